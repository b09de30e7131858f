#!/usr/bin/env bash
# Every test (scripts/test.sh, with the fuzz tests at 100,000 frames per target), then the
# long checks the default run leaves out:
#   * nextpnr-ecp5 installed when missing (scripts/setup.sh --full);
#   * every #[ignore]d test of the workspace (cargo test -- --ignored): the ECP5 flow on
#     timer_n16 and nic_ndp, switch2_p16's co-simulation, the Tofino parallel incasts, nic_ndp's under Icarus (the
#     default run co-simulates it under Verilator), the shared buffer's misaligned-writer
#     mutant (a Verilator build of its own), and the full FPGA sweep
#     (verilog_out::full_sweep_matches_committed_reports: fpga/synth.sh into a temp dir on
#     every block and switch mode, xcup and then ECP5 with place and route stopped after 120
#     minutes, each compared with its committed report within the default run's
#     tolerances; several hours on 2 cores, switch2_p4 and switch2_p16 about 40 minutes of it on xcup);
#   * the cocotb testbench (testbench/cocotb/run.py: nic_ndp and switch2_p4 under Icarus,
#     packets built with scapy; under a minute);
#   * the Python package: `pip install ./python` into the Python that has cocotb (building
#     it with cargo in target/python, a few minutes), then python/tests/test_ntsim.py.
# Arguments go to scripts/test.sh (and so to cargo test). Prints the wall time at the end;
# exits non-zero when any part failed. Writes no tracked file.
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
bash scripts/setup.sh --full || exit 1
# the fuzz tests at 100,000 frames per target (25,000 in the test command)
NT_FUZZ_FRAMES=100000 bash scripts/test.sh "$@"
rc=$?
cargo test --workspace --tests --no-fail-fast -- --ignored
rc_long=$?
py=$(bash scripts/setup-cocotb.sh) && "$py" testbench/cocotb/run.py
rc_cocotb=$?
# --user unless that Python is a venv's (scripts/setup-cocotb.sh's fallback).
rc_python=1
if [ -n "${py:-}" ]; then
  user=$("$py" -c 'import sys; print("" if sys.prefix != sys.base_prefix else "--user")')
  CARGO_TARGET_DIR="$PWD/target/python" "$py" -m pip install $user --quiet ./python \
    && "$py" python/tests/test_ntsim.py
  rc_python=$?
fi
t=$(( $(date +%s) - t0 ))
printf 'test-full: scripts/test.sh %s, ignored tests %s, cocotb %s, python %s; wall time %dh %02dm %02ds\n' \
  "$([ "$rc" -eq 0 ] && echo passed || echo failed)" "$([ "$rc_long" -eq 0 ] && echo passed || echo failed)" \
  "$([ "$rc_cocotb" -eq 0 ] && echo passed || echo failed)" "$([ "$rc_python" -eq 0 ] && echo passed || echo failed)" \
  $((t / 3600)) $((t % 3600 / 60)) $((t % 60))
[ "$rc" -eq 0 ] && [ "$rc_long" -eq 0 ] && [ "$rc_cocotb" -eq 0 ] && [ "$rc_python" -eq 0 ]
