#!/usr/bin/env bash
# Every test (README command 2): unit, golden-model equivalence, co-simulation of the
# emitted Verilog under Verilator, lint, Yosys synthesis, CLI and waveform checks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --no-fail-fast "$@"
