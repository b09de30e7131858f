#!/usr/bin/env python3
"""Builds the emitted Verilog of each cocotb test module's top under Icarus Verilog and runs
its tests; exits non-zero when any fails or none ran.

    python3 testbench/cocotb/run.py            # every top below
    python3 testbench/cocotb/run.py nic_ndp    # one

Needs `pip install cocotb==1.9.2 scapy` and iverilog (scripts/setup.sh --full installs
them). Builds go to target/cocotb/<top>/ (results.xml, sim.vvp, the waveform if
WAVES=1), never into the repository.
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# top-level module (verilog-out/<top>.v) -> its test module in this folder
TOPS = {"nic_ndp": "test_nic_ndp", "switch2_p4": "test_switch2_p4"}


def main(argv):
    try:
        from cocotb.runner import get_results, get_runner
    except ImportError as e:
        print(f"run.py: cocotb is not installed ({e}); pip install cocotb==1.9.2 scapy", file=sys.stderr)
        return 2
    tops = argv or list(TOPS)
    unknown = [t for t in tops if t not in TOPS]
    if unknown:
        print(f"run.py: no cocotb tests for {', '.join(unknown)}; known: {', '.join(TOPS)}", file=sys.stderr)
        return 2
    failed = 0
    for top in tops:
        build = ROOT / "target" / "cocotb" / top
        runner = get_runner("icarus")
        runner.build(
            verilog_sources=[ROOT / "verilog-out" / f"{top}.v"],
            hdl_toplevel=top,
            build_dir=build,
            always=True,
            timescale=("1ns", "1ps"),
            waves=os.environ.get("WAVES") == "1",
        )
        xml = runner.test(
            hdl_toplevel=top,
            test_module=TOPS[top],
            test_dir=HERE,
            build_dir=build,
            results_xml=str(build / "results.xml"),
            waves=os.environ.get("WAVES") == "1",
        )
        n, bad = get_results(xml)
        print(f"run.py: {top}: {n} tests, {bad} failed")
        if n == 0 or bad:
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
