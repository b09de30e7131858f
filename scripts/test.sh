#!/usr/bin/env bash
# Every test (README command 2): unit, golden-model equivalence, co-simulation of the
# emitted Verilog under Verilator and Icarus, lint, Yosys synthesis, CLI and waveform checks.
# Ends with one line totalling every cargo test binary: "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --all-targets --no-fail-fast "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$rc"
