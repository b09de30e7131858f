#!/usr/bin/env bash
# Synthesizes every block in verilog-out/ with Yosys `synth_xilinx` and prints LUT, FF,
# LUTRAM and block-RAM counts per block. Writes each block's `stat` report to
# fpga/reports/<block>.<family>.txt and the full Yosys log to target/fpga/.
#
# Usage: fpga/synth.sh [--family xcup|xc7|xcu] [-j JOBS] [BLOCK ...]
#   default family: xcup (Virtex/Kintex UltraScale+, as in thesis Table 3.2)
#   default jobs: the number of CPUs (blocks are synthesized in parallel; rows print in order)
#   default blocks: every verilog-out/*.v
set -euo pipefail
cd "$(dirname "$0")/.."

family=xcup
jobs=$(nproc 2>/dev/null || echo 1)
blocks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --family) family="${2:?--family needs a value}"; shift 2 ;;
    --family=*) family="${1#--family=}"; shift ;;
    -j) jobs="${2:?-j needs a value}"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "synth.sh: unknown option $1" >&2; exit 2 ;;
    *) blocks+=("$1"); shift ;;
  esac
done
case "$family" in xcup|xcu|xc7|xc7s|xc6s) ;; *) echo "synth.sh: unsupported family $family" >&2; exit 2 ;; esac
command -v yosys >/dev/null || { echo "synth.sh: yosys is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
if [ ${#blocks[@]} -eq 0 ]; then
  for v in verilog-out/*.v; do blocks+=("$(basename "$v" .v)"); done
fi

case "$jobs" in ''|*[!0-9]*|0) echo "synth.sh: -j needs a positive number, got '$jobs'" >&2; exit 2 ;; esac
for top in "${blocks[@]}"; do
  [ -f "verilog-out/$top.v" ] || { echo "synth.sh: no verilog-out/$top.v (see ntsim blocks)" >&2; exit 2; }
done

mkdir -p target/fpga fpga/reports
# One block: Yosys, then its row into target/fpga/<top>.<family>.row.
synth_one() {
  local top=$1 v="verilog-out/$1.v" rpt="fpga/reports/$1.$family.txt"
  rm -f "target/fpga/$top.$family.row"
  if ! yosys -p "read_verilog -sv $v; synth_xilinx -family $family -top $top -flatten -noiopad; tee -o $rpt stat" \
      > "target/fpga/$top.$family.log" 2>&1; then
    return 1
  fi
  awk -v top="$top" '
    $1 ~ /^LUT[1-6]$/ { lut += $2 }
    $1 ~ /^FD[RSCP]E(_1)?$/ { ff += $2 }
    $1 ~ /^(RAM(16|32|64|128|256)|SRL)/ { lutram += $2 }
    $1 ~ /^RAMB18/ { b18 += $2 }
    $1 ~ /^RAMB36/ { b36 += $2 }
    END { printf "%-14s %8d %8d %8d %8d %8d\n", top, lut, ff, lutram, b18, b36 }' "$rpt" \
    > "target/fpga/$top.$family.row"
}
for top in "${blocks[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  synth_one "$top" &
done
wait || true
failed=0
for top in "${blocks[@]}"; do
  if [ ! -s "target/fpga/$top.$family.row" ]; then
    echo "synth.sh: yosys failed on $top; see target/fpga/$top.$family.log" >&2
    tail -20 "target/fpga/$top.$family.log" >&2
    failed=1
  fi
done
[ "$failed" -eq 0 ] || exit 1
printf '%-14s %8s %8s %8s %8s %8s\n' block LUT FF LUTRAM BRAM18 BRAM36
for top in "${blocks[@]}"; do cat "target/fpga/$top.$family.row"; done
