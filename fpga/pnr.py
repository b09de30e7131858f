#!/usr/bin/env python3
"""Summarizes one nextpnr-ecp5 run for fpga/synth.sh.

Usage: fpga/pnr.py LOG [REPORT.json]
       fpga/pnr.py --stopped MINUTES LOG

LOG is nextpnr's log (-l), REPORT its --report JSON (absent when nextpnr failed). Prints
one line of fields for the table,

    COMB FF RAMW DP16KD MULT18 FMAX STATUS

(FMAX in MHz or "-"; STATUS "ok", "does-not-fit:RES=USED/AVAIL[,...]", or with --stopped,
for a run that synth.sh stopped at its time limit, "stopped:MINUTES" and FMAX nextpnr's
estimate after placement in parentheses, or "-" when placement had not finished), then the lines
of the report: the device utilisation, Fmax and the critical path of every clock (source,
sink, logic and routing time, the routed nets on it). Exits 1 with nextpnr's error when it
failed for another reason than a resource that the device does not have enough of, or
when the log has no utilisation (nextpnr did not get as far as packing).
"""
import json
import re
import sys

COLS = ["TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "MULT18X18D"]


def main():
    args = sys.argv[1:]
    stopped = None
    if args[:1] == ["--stopped"]:
        if len(args) != 3 or not args[1].isdigit():
            print("usage: pnr.py --stopped MINUTES LOG", file=sys.stderr)
            sys.exit(2)
        stopped, args = args[1], args[2:]
    if len(args) not in (1, 2):
        print("usage: pnr.py LOG [REPORT.json] | pnr.py --stopped MINUTES LOG", file=sys.stderr)
        sys.exit(2)
    sys.argv[1:] = args
    log = open(sys.argv[1], errors="replace").read().splitlines()
    util = {}
    for line in log:
        m = re.match(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%$", line)
        if m:
            # nextpnr prints the utilisation after packing; the last one counts.
            util[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    errors = [l for l in log if l.startswith("ERROR:")]
    if not util:
        print("pnr.py: no device utilisation in the nextpnr log" + (": " + errors[0] if errors else ""), file=sys.stderr)
        sys.exit(1)
    over = [f"{k}={u}/{a}" for k, (u, a) in sorted(util.items()) if u > a]
    report = None
    if len(sys.argv) == 3:
        try:
            with open(sys.argv[2]) as f:
                report = json.load(f)
        except (OSError, ValueError):
            report = None
    estimate = None
    for line in log:
        m = re.match(r"^Info: Max frequency for clock '[^']*': ([0-9.]+) MHz", line)
        if m:
            estimate = float(m.group(1))
    if over:
        status = "does-not-fit:" + ",".join(over)
    elif stopped is not None:
        status = "stopped:" + stopped
    elif errors or report is None:
        print("pnr.py: nextpnr failed: " + (errors[0] if errors else "no report written"), file=sys.stderr)
        sys.exit(1)
    else:
        status = "ok"

    fmax = "-"
    if report and report.get("fmax"):
        # One clock per block; the slowest one if there were several.
        fmax = "%.1f" % min(v["achieved"] for v in report["fmax"].values())
    if stopped is not None and estimate is not None:
        fmax = "(%.1f)" % estimate
    print(" ".join([str(util.get(c, (0, 0))[0]) for c in COLS] + [fmax, status]))

    print("device utilisation (used/available):")
    for k, (u, a) in sorted(util.items()):
        if u:
            print(f"  {k:<14} {u:>7}/{a:<7}{'  OVER' if u > a else ''}")
    if errors:
        print("nextpnr: " + errors[0])
    if stopped is not None:
        print(f"nextpnr stopped after {stopped} min (synth.sh --pnr-minutes), before routing finished")
        if estimate is not None:
            print(f"Fmax estimate after placement: {estimate:.2f} MHz")
        routed = [l for l in log if "iter=" in l and "overused=" in l]
        if routed:
            print("router, last iteration: " + routed[-1].replace("Info:", "").strip())
    if not report:
        return
    for clk, v in sorted(report.get("fmax", {}).items()):
        print(f"Fmax {clk}: {v['achieved']:.2f} MHz (target {v['constraint']:.0f} MHz)")
    for p in report.get("critical_paths", []):
        if p["from"] != p["to"] or not p["path"]:
            continue  # paths to and from the block's ports are not the clock's
        steps = p["path"]
        logic = sum(s["delay"] for s in steps if s["type"] != "routing")
        routing = sum(s["delay"] for s in steps if s["type"] == "routing")
        cells = [s for s in steps if s["type"] == "logic"]
        print(f"critical path ({p['from']} -> {p['to']}): {logic + routing:.2f} ns = "
              f"{logic:.2f} ns logic + {routing:.2f} ns routing, {len(cells)} logic steps")
        print(f"  from {steps[0]['from']['cell']}.{steps[0]['from']['port']}")
        for s in steps:
            # Nets inside a slice (LUT to PFUMX/L6MUX21) take 0 ns; the rest are routed.
            if s["type"] == "routing" and s["delay"] > 0.005:
                src = s.get("sources") or ["?"]
                print(f"  net {s['net']} ({s['delay']:.2f} ns; {src[0]})")
        print(f"  to   {steps[-1]['to']['cell']}.{steps[-1]['to']['port']}")


if __name__ == "__main__":
    main()
