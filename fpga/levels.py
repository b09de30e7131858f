#!/usr/bin/env python3
"""Deepest logic path of a mapped Yosys netlist, in LUT levels.

Usage: fpga/levels.py NETLIST.json [TOP]

Reads the JSON that `write_json` (or `synth_* -json`) writes after `synth_xilinx` or
`synth_ecp5` and prints one line `levels N`, then the path: its start net, each LUT-level
cell on it (type and name) and its end net.

What a level is (the same rule for both families, so the numbers compare):
* a LUT (LUT1-LUT6, INV on Xilinx; LUT4 on ECP5) is one level;
* the muxes that join LUTs into a wider function in the same slice (MUXF7/8/9; PFUMX,
  L6MUX21) are zero: a Xilinx LUT7 and an ECP5 LUT5-LUT7 are one level, like a LUT6;
* a carry chain is one level however long: entering a carry cell (CARRY4/8, CCU2C) from
  its data inputs counts one, going on through its carry input counts zero (a CCU2C holds
  the two LUT4s that feed its carry, so on ECP5 the LUT before the chain is inside that
  level; on Xilinx the LUT that feeds S/DI is a level of its own);
* an asynchronous LUTRAM or SRL read (address to data) is one level;
* flip-flops, block RAM, DSP and every other cell end a path and start the next one, as
  do the block's ports.
The tool's own `ltp` counts every cell as a level, so a 64-bit adder alone is 32 levels on
ECP5 (32 CCU2C); this count is closer to what limits the clock.

Exits 1 with a message on a combinational loop, a netlist without the module, or a file
that is not a Yosys JSON netlist.
"""
import json
import re
import sys
from collections import defaultdict, deque

# Cell type -> function(input port, output port) -> weight, or None (no arc).
CARRY_IN = {"CI", "CI_TOP", "CIN"}
LUTRAM_ADDR = re.compile(r"^(ADDR[A-H]?|A[0-9]*|DPRA[0-9]*|RAD)$")


def arcs_for(ctype):
    if re.fullmatch(r"LUT[1-6]|INV", ctype):
        return lambda i, o: 1  # Xilinx I0-I5 -> O; ECP5 LUT4 A-D -> Z
    if ctype in ("MUXF7", "MUXF8", "MUXF9", "PFUMX", "L6MUX21"):
        return lambda i, o: 0
    if ctype in ("CARRY4", "CARRY8", "CCU2C"):
        return lambda i, o: 0 if i in CARRY_IN else 1
    if re.fullmatch(r"RAM(32|64|128|256|512)(M|M8|M16|X1S|X1D|X2S)(_1)?", ctype) or ctype == "TRELLIS_DPR16X4":
        return lambda i, o: 1 if LUTRAM_ADDR.match(i) else None
    if re.fullmatch(r"SRL(C)?(16|32)E", ctype):
        return lambda i, o: 1 if re.fullmatch(r"A[0-9]*", i) and o == "Q" else None
    return None


def fail(msg):
    print(f"levels.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) not in (2, 3):
        fail("usage: levels.py NETLIST.json [TOP]")
    try:
        with open(sys.argv[1]) as f:
            design = json.load(f)
        modules = design["modules"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{sys.argv[1]}: not a Yosys JSON netlist ({e})")
    if len(sys.argv) == 3:
        top = sys.argv[2]
    else:
        tops = [n for n, m in modules.items() if m.get("attributes", {}).get("top")]
        if len(tops) != 1:
            fail(f"{sys.argv[1]}: name the top module (candidates: {', '.join(tops) or 'none'})")
        top = tops[0]
    if top not in modules:
        fail(f"{sys.argv[1]}: no module {top}")
    mod = modules[top]

    # Edges between net bits: src -> [(dst, weight, cell name)].
    succ = defaultdict(list)
    indeg = defaultdict(int)
    bits = set()
    boundary = defaultdict(int)
    # Where a path really ends: inputs of flip-flops, RAMs and other boundary cells, and the
    # block's output ports.
    ends = {}
    for pname, port in mod.get("ports", {}).items():
        if port.get("direction") == "output":
            for x in port["bits"]:
                if isinstance(x, int):
                    ends[x] = ("output port", pname, None)
    for name, cell in mod["cells"].items():
        ctype = cell["type"]
        arc = arcs_for(ctype)
        dirs = cell.get("port_directions", {})
        conns = cell["connections"]
        if arc is None:
            boundary[ctype] += 1
            for p, bs in conns.items():
                if dirs.get(p) == "input":
                    for x in bs:
                        if isinstance(x, int):
                            ends.setdefault(x, (ctype, name, p))
            continue
        ins = [p for p in conns if dirs.get(p) == "input"]
        outs = [p for p in conns if dirs.get(p) == "output"]
        if not outs:
            fail(f"{top}: cell {name} ({ctype}) has no port directions in the netlist")
        for i in ins:
            for o in outs:
                w = arc(i, o)
                if w is None:
                    continue
                for sb in conns[i]:
                    if not isinstance(sb, int):
                        continue  # a constant starts nothing
                    for db in conns[o]:
                        if isinstance(db, int):
                            succ[sb].append((db, w, name))
                            indeg[db] += 1
                            bits.add(sb)
                            bits.add(db)

    # Longest path over a DAG, in topological order (Kahn).
    level = {b: 0 for b in bits}
    via = {}
    queue = deque(b for b in bits if indeg[b] == 0)
    seen = 0
    while queue:
        b = queue.popleft()
        seen += 1
        for d, w, cell in succ[b]:
            if d not in via or level[b] + w > level[d]:
                level[d] = level[b] + w
                via[d] = (b, cell, w)
            indeg[d] -= 1
            if indeg[d] == 0:
                queue.append(d)
    if seen != len(bits):
        loop = sorted(b for b in bits if indeg[b] > 0)[:5]
        fail(f"{top}: combinational loop through net bits {loop} (and {len(bits) - seen - len(loop)} more)")

    names = {}
    for n, net in mod["netnames"].items():
        hidden = net.get("hide_name", 0)
        for k, b in enumerate(net["bits"]):
            if isinstance(b, int) and (b not in names or (names[b][1] and not hidden)):
                label = n if len(net["bits"]) == 1 else f"{n}[{k}]"
                names[b] = (label, hidden)

    def net(b):
        return names.get(b, (f"bit {b}", 1))[0]

    if not bits:
        print("levels 0")
        return
    # The deepest bit; among equals one where a path ends (a register, RAM or output port)
    # rather than an unused carry output, and one that drives no further arc, so that the
    # path runs on through zero-level cells (PFUMX, L6MUX21) to where it ends.
    end = max(bits, key=lambda b: (level[b], b in ends, not succ.get(b), -b))
    path = []
    b = end
    while b in via:
        src, cell, w = via[b]
        path.append((cell, w))
        b = src
    path.reverse()
    print(f"levels {level[end]}")
    print(f"  from {net(b)}")
    for cell, w in path:
        print(f"  +{w} {mod['cells'][cell]['type']:<16} {cell}")
    where = ""
    if end in ends:
        ctype, name, port = ends[end]
        if port is None:
            where = f" ({ctype} {name})"
        else:
            # Name the register by the net it drives: its own name is often generated.
            conns = mod["cells"][name]["connections"]
            dirs = mod["cells"][name].get("port_directions", {})
            outs = [x for p, bs in conns.items() if dirs.get(p) == "output" for x in bs if isinstance(x, int)]
            where = f" ({ctype} {name}.{port}" + (f", driving {net(outs[0])})" if outs else ")")
    print(f"  to   {net(end)}{where}")
    print("  (path ends: " + ", ".join(f"{t} {n}" for t, n in sorted(boundary.items())) + ")")


if __name__ == "__main__":
    main()
