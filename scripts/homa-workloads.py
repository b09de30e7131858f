#!/usr/bin/env python3
"""Writes examples/workloads/W1.cdf .. W5.cdf from the message-size distributions of the
Homa simulator (github.com/PlatformLab/HomaSimulation, the commits named in each file).

Usage: python3 scripts/homa-workloads.py DIR
  DIR: that repository's RpcTransportDesign/OMNeT++Simulation/homatransport/sizeDistributions
Each output file says what was converted and how (W1's tail, W5's units).
"""
import os
import sys

if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
    sys.exit(__doc__)
SRC = sys.argv[1]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "workloads")
D="RpcTransportDesign/OMNeT++Simulation/homatransport/sizeDistributions"
meta={
 'W1':("Facebook key-value store, memcached","FacebookKeyValueMsgSizeDist.txt","de26a1a2ea1376a3ed3549ae7fd4f16973ccbcd5"),
 'W2':("Google search RPCs","Google_SearchRPC.txt","5dc62c4964a6b9d8b9c9185f1714a27a73e23838"),
 'W3':("all Google RPCs","Google_AllRPC.txt","5dc62c4964a6b9d8b9c9185f1714a27a73e23838"),
 'W4':("Facebook Hadoop cluster","Facebook_HadoopDist_All.txt","f6ac2d08fdd9ebb120ed86010ea035d1a5d9d0af"),
 'W5':("web search (DCTCP)","DCTCP_MsgSizeDist.txt","2a7ff5df1006a73dbc9321c2fdcffef6fa07378c"),
}
def parse(f):
    lines=[l.split() for l in open(f).read().strip().splitlines() if l.strip()]
    return float(lines[0][0]), [(int(a), float(b)) for a,b in lines[1:]]
k_,sig=0.348238,214.476
def gpd(p): return round(15+(((1-0.47)/(1-p))**k_-1)*sig/k_)
for w in ['W1','W2','W3','W4','W5']:
    hdr, t = parse(os.path.join(SRC, meta[w][1]))
    notes=[]
    if w=='W1':
        edges=[0.47+0.005*i for i in range(1,105)]+[0.995+0.0005*i for i in range(1,10)]+[0.9999,0.99999,0.999999,0.9999999,0.99999999,1.0]
        prev=0.47
        for e in edges:
            t.append((gpd((prev+e)/2), round(e,8))); prev=e
        notes.append("Sizes 1 to 15 bytes are the source's table (up to p = 0.47); above it, its sampler")
        notes.append("draws from a generalized Pareto tail from 15 bytes (MsgSizeDistributions.cc:")
        notes.append("k = 0.348238, sigma = 214.476, capped at 2^30 bytes), tabulated here in steps of")
        notes.append("0.005 up to p = 0.995 and finer above, each step at the size of its middle")
        notes.append("probability.")
    if w=='W5':
        t=[(s*1442,p) for s,p in t]
        hdr*=1442
        notes.append("The source gives sizes in packets of 1,442 bytes (maxDataBytesPerPkt: a")
        notes.append("1,500-byte Ethernet payload less the IPv4, UDP and Homa headers); here in bytes.")
    m=0;pv=0
    for s,p in t: m+=(p-pv)*s; pv=p
    mono=all(b>=a for (_,a),(_,b) in zip(t,t[1:])) and all(d>=c for (c,_),(d,_) in zip(t,t[1:]))
    assert mono, w
    below=max([p for s,p in t if s<8] or [0])
    above=1-max([p for s,p in t if s<=38912] or [0])
    cm=0;pv=0
    for s,p in t: cm+=(p-pv)*min(max(s,8),38912); pv=p
    with open(os.path.join(OUT, f'{w}.cdf'), 'w') as f:
        f.write(f"# {w} ({meta[w][0]}): message sizes, the workload {w} of Homa (SIGCOMM 2018)\n")
        f.write(f"# and of PL2 (paper 001, section 6).\n")
        f.write(f"# Source: github.com/PlatformLab/HomaSimulation, {D}/{meta[w][1]}\n")
        f.write(f"# at commit {meta[w][2][:12]}. Lines are `bytes cumulative_probability`: a message\n")
        f.write(f"# is at most `bytes` long with that probability (ntsim's poisson workload draws the\n")
        f.write(f"# first line whose probability reaches a uniform draw).\n")
        for n in notes: f.write(f"# {n}\n")
        f.write(f"# Mean {m:,.1f} bytes (the source's header: {hdr:,.1f}). Below 8 bytes: {below:.6f};\n")
        f.write(f"# above 38,912 bytes (the NIC's largest message): {above:.6f}. A poisson workload takes\n")
        f.write(f"# this file with `clamp_sizes = true`, which clamps sizes into 8..=38,912 bytes:\n")
        f.write(f"# mean {cm:,.1f} bytes then.\n")
        for s,p in t:
            f.write(f"{s} {p:.10g}\n")
    print(w, len(t), round(m,1), hdr, below, above, round(cm,1))
