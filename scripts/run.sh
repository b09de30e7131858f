#!/usr/bin/env bash
# The main job with built-in defaults (README command 1): `ntsim demo`. With arguments,
# they go to `ntsim` instead (`bash scripts/run.sh run incast-ndp-54k`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ $# -gt 0 ] || set -- demo
exec cargo run --release --bin ntsim -- "$@"
