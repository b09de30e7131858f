#!/usr/bin/env bash
# Makes cocotb 1.9 and scapy (the cocotb testbench, testbench/cocotb/) importable and
# prints the python3 to run it with on stdout. Installs them only when missing:
#   1. python3 already imports both, or the venv of step 3 does: use it;
#   2. pip install --user cocotb==1.9.2 scapy;
#   3. when pip refuses (a Debian Python that is "externally managed", or no pip): a venv
#      at ~/.local/share/nt-cocotb with both in it.
# Icarus Verilog, which the testbench simulates on, comes from scripts/setup.sh.
# Exits 1 with the reason when none of this works.
set -euo pipefail

venv="$HOME/.local/share/nt-cocotb"
probe='import cocotb, scapy; assert cocotb.__version__.startswith("1.9")'

found() {
  local p
  for p in python3 "$venv/bin/python"; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c "$probe" >/dev/null 2>&1; then
      command -v "$p"
      return 0
    fi
  done
  return 1
}

if found; then exit 0; fi
command -v python3 >/dev/null 2>&1 || { echo "setup-cocotb: python3 is missing (scripts/setup.sh installs it)" >&2; exit 1; }
echo "setup-cocotb: installing cocotb 1.9.2 and scapy with pip --user" >&2
if python3 -m pip install --user --quiet cocotb==1.9.2 scapy >&2 && found; then exit 0; fi
echo "setup-cocotb: pip --user did not work; trying a venv at $venv" >&2
python3 -m venv "$venv" >&2 || { echo "setup-cocotb: cannot create a Python venv (python3-venv missing?)" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet cocotb==1.9.2 scapy >&2
found || { echo "setup-cocotb: cocotb and scapy installed but do not import" >&2; exit 1; }
