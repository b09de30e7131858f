#!/usr/bin/env bash
# Every test (README command 2): unit, golden-model equivalence, co-simulation of the
# emitted Verilog under Verilator and Icarus, lint, the Yosys checks, system tests on the
# compiled engine, CLI and waveform checks. The long sweeps (synthesis of every block, ECP5
# place and route, switch2_p16's co-simulation) are scripts/test-full.sh.
# Ends with one line totalling every cargo test binary, "tests: N passed, M failed", and
# the wall time of each part (setup, build, tests).
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
bash scripts/setup.sh || exit 1
t1=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# `--tests`, not `--all-targets`: it honours `test = false` (hdl's library, whose directed
# tests are the integration test hdl/tests/blocks; building its unit-test harness compiled
# the whole crate a second time). There are no examples or benches.
cargo test --workspace --tests --no-run "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
t2=$(date +%s)
if [ "$rc" -eq 0 ]; then
  cargo test --workspace --tests --no-fail-fast "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
fi
t3=$(date +%s)
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
echo "test.sh: wall $((t3 - t0)) s (setup $((t1 - t0)) s, build $((t2 - t1)) s, tests $((t3 - t2)) s)"
exit "$rc"
