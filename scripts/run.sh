#!/usr/bin/env bash
# The main job with built-in defaults (README command 1). Extra arguments go to `ntsim`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec cargo run --release --bin ntsim -- "$@"
