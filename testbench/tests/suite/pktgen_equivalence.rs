//! The rust-hdl packet generator against [`PktGenModel`] under seeded NDP-style (paced
//! PULLs) and Homa-style (GRANTs) events, every cycle; plus the rules of SPEC §6 checked
//! on what leaves: every ACK of every event leaves once, in order; every NACK leaves once
//! (in order unless its queue was full); slot decisions (PULLs, and with `pace_nacks` the
//! NACKs) are at least `gap` cycles apart (a PULL that releases no packet takes no slot);
//! NDP: each PULL raises the packets its message may send by at most one over the
//! message's last PULL (its first over `rtt_pkts`), counting an offset beyond the
//! message's last packet as that packet; both kinds of PULL occur (releasing, and free:
//! offset beyond the message); and no PULL is lost: after the traffic stops, each
//! message's last PULL carries the last offset requested for it, or, when that offset
//! was beyond the message and joined a queued PULL, the offset of its last packet.
use nt_hdl::pktgen::PacketGen16;
use nt_sim::kernel::Kernel;
use nt_sim::pktgen_workload::{read_pktgen, PktGenWorkload};
use nt_testbench::pktgen_model::{msg_pkts, PktGenModel};
use nt_testbench::stream::StreamMonitor;
use std::collections::{HashMap, VecDeque};

fn run(
    ndp: bool,
    gap: u16,
    pace_nacks: bool,
    rtt_pkts: u8,
    seed: u64,
    cycles: u64,
) -> Result<(String, u64, u64, u64, (u64, u64)), String> {
    let mut k = Kernel::new(PacketGen16::new()).map_err(|e| e.to_string())?;
    let mut w = PktGenWorkload::new(seed, ndp, gap);
    w.pace_nacks = pace_nacks;
    w.rtt_pkts = rtt_pkts;
    let mut m = PktGenModel::new(ndp, gap, pace_nacks, rtt_pkts);
    let mut mon = StreamMonitor::new("source");
    // ACK/NACK flags of accepted events, in order; last PULL offset requested per message
    // (by destination port, one per message here) and last sent.
    let mut acks: VecDeque<u16> = VecDeque::new();
    let mut nacks: HashMap<(u16, u8), u32> = HashMap::new();
    let mut nacks_out = 0u64;
    // (offset, the message's packets)
    let mut want_pull: HashMap<u16, (u16, u16)> = HashMap::new();
    let mut sent_pull: HashMap<u16, u16> = HashMap::new();
    // Last PULL sent per message (destination port, message id), and the most any PULL
    // raised an offset.
    let mut last_pull: HashMap<(u16, u16), u16> = HashMap::new();
    let mut max_raise = 0u64;
    // Latest offset requested per message, and PULLs sent below it (the rest requeued).
    let mut want_msg: HashMap<(u16, u16), u16> = HashMap::new();
    let mut capped = 0u64;
    let (mut pulls, mut acks_out) = (0u64, 0u64);
    // PULLs sent that release a packet (offset within the message) and that do not.
    let (mut releasing, mut free) = (0u64, 0u64);
    let mut t = 0u64;
    loop {
        if t == cycles {
            w.generate = false;
        }
        w.drive(k.uut_mut());
        k.settle().map_err(|e| e.to_string())?;
        let io = read_pktgen(k.uut());
        let ev = w.presented();
        m.cycle(t, ev, &io)?;
        mon.check(t, io.src_valid, io.src_ready, &io.src, false)?;
        if let Some(e) = ev.filter(|_| io.ev_ready) {
            if e.flags & 0x02 != 0 {
                acks.push_back(e.tx_msg_id);
            }
            if e.flags & 0x04 != 0 {
                *nacks.entry((e.tx_msg_id, e.pkt_offset)).or_default() += 1;
            }
            if e.flags & 0x08 != 0 {
                want_pull.insert(e.dst_port, (e.pull_grant, msg_pkts(e.msg_len)));
                want_msg.insert((e.dst_port, e.tx_msg_id), e.pull_grant);
            }
        }
        if io.src_valid && io.src_ready && io.src.last {
            let f = io.src.meta.flags;
            if f & 0x02 != 0 {
                let got = io.src.meta.tx_msg_id;
                if acks.pop_front() != Some(got) {
                    return Err(format!("cycle {t}: ACK {got:#x} out of order"));
                }
                acks_out += 1;
            }
            if f & 0x04 != 0 {
                let key = (io.src.meta.tx_msg_id, io.src.meta.pkt_offset);
                match nacks.get_mut(&key) {
                    Some(n) if *n > 0 => *n -= 1,
                    _ => return Err(format!("cycle {t}: NACK {key:?} never asked for")),
                }
                nacks_out += 1;
            }
            if f & 0x08 != 0 {
                let (port, pull) = (io.src.meta.remote_port, io.src.meta.credit);
                sent_pull.insert(port, pull);
                let prev = last_pull
                    .insert((port, io.src.meta.tx_msg_id), pull)
                    .unwrap_or(rtt_pkts as u16);
                // Packets released: an offset beyond the message counts as its last packet.
                let n = msg_pkts(io.src.meta.msg_len);
                if pull > n {
                    free += 1;
                } else {
                    releasing += 1;
                }
                let raise = pull.min(n).saturating_sub(prev.min(n)) as u64;
                if want_msg.get(&(port, io.src.meta.tx_msg_id)) > Some(&pull) {
                    capped += 1;
                }
                max_raise = max_raise.max(raise);
                if ndp && raise > 1 {
                    return Err(format!(
                        "cycle {t}: PULL {pull} for message {:#x} raises {raise} over {prev}",
                        io.src.meta.tx_msg_id
                    ));
                }
                pulls += 1;
            }
        }
        w.observe(k.uut());
        k.tick().map_err(|e| e.to_string())?;
        t += 1;
        if t > cycles && w.idle() && m.quiet() {
            break;
        }
        if t > cycles + 300_000 {
            return Err("not drained".into());
        }
    }
    if !acks.is_empty() {
        return Err(format!("{} ACKs never left", acks.len()));
    }
    let left: u32 = nacks.values().sum();
    if left != 0 {
        return Err(format!("{left} NACKs never left"));
    }
    let (np, nu) = (
        k.uut().stat.nacks_paced.val().to_u64(),
        k.uut().stat.nacks_unpaced.val().to_u64(),
    );
    let lost: Vec<_> = want_pull
        .iter()
        .filter(|&(port, &(want, n))| {
            let sent = sent_pull.get(port).copied();
            sent != Some(want) && !(want > n && sent == Some(n))
        })
        .collect();
    if !lost.is_empty() {
        return Err(format!(
            "PULLs lost: (port, (offset, packets)) {lost:?}, sent {sent_pull:?}"
        ));
    }
    if ndp {
        let d = &m.pull_decisions;
        if let Some(x) = d.windows(2).find(|x| x[1] - x[0] < gap.max(1) as u64) {
            return Err(format!("PULLs {x:?} closer than {gap} cycles"));
        }
    }
    Ok((format!(
        "{} events, {} packets, {acks_out} ACKs, {nacks_out} NACKs ({np} waited for a slot, {nu} sent early: queue full), {pulls} PULL/GRANTs ({releasing} within their message, {free} beyond it; largest raise {max_raise}, {capped} below the offset asked for), {} coalesced",
        w.events,
        m.packets,
        io_coalesced(&k)
    ), np, nu, capped, (releasing, free)))
}

fn io_coalesced(k: &Kernel<PacketGen16>) -> u64 {
    k.uut().stat.coalesced.val().to_u64()
}

#[test]
fn packet_generator_matches_the_golden_model() {
    for (ndp, gap, pn, rtt, seed) in [
        (true, 136, true, 12, 5700),
        (true, 20, true, 4, 5701),
        (true, 136, false, 12, 5702),
        (false, 136, true, 12, 5800),
    ] {
        let (s, paced, early, capped, (releasing, free)) = run(ndp, gap, pn, rtt, seed, 100_000)
            .unwrap_or_else(|e| {
                panic!("pktgen ndp={ndp} gap={gap} pace_nacks={pn} rtt_pkts={rtt} seed {seed}: {e}")
            });
        println!("pktgen ndp={ndp} gap={gap} pace_nacks={pn} rtt_pkts={rtt} seed {seed}: {s}");
        if ndp {
            // PULLs of one message merge in its row, whose raise is then sent one by one.
            assert!(capped > 10, "{s}");
            // Both kinds of PULL: releasing (paced) and beyond the message (free).
            assert!(releasing > 10 && free > 10, "{s}");
        }
        if ndp && pn {
            // The run exercises NACKs waiting for slots (and, at the MTU gap, a full queue).
            assert!(paced > 100, "{s}");
            if gap == 136 {
                assert!(early > 0, "{s}");
            }
        } else {
            assert_eq!((paced, early), (0, 0), "{s}");
        }
    }
}
