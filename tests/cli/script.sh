#!/usr/bin/env bash
# pmuscope script: usage errors, refused files, and (with ../shared/data) the
# 14 weight_struct samples with perf's data_src text, JSON lines, pipe mode
# from stdin and a zstd-compressed file.
set -u
pms=${1:?usage: script.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect() { # name, want, got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want: [$2]"; echo "  got:  [$3]"; fail=1
  fi
}

"$pms" script --help >/dev/null; expect "--help exit" 0 $?
"$pms" script -F nosuch -i x >/dev/null 2>"$tmp/err"; expect "bad field exit" 2 $?
grep -qx "Invalid field requested." "$tmp/err" || { echo "FAIL: bad field message (perf's)"; cat "$tmp/err"; fail=1; }
"$pms" script -i "$tmp/none" >/dev/null 2>"$tmp/err"; expect "missing file exit" 1 $?
grep -q "^pmuscope: script: $tmp/none: No such file" "$tmp/err" || { echo "FAIL: missing file message"; cat "$tmp/err"; fail=1; }
printf 'NOTPERF0%0120d' 0 >"$tmp/junk"
"$pms" script -i "$tmp/junk" >/dev/null 2>"$tmp/err"; expect "junk exit" 1 $?
grep -q 'not "PERFILE2" in either byte order' "$tmp/err" || { echo "FAIL: junk message"; cat "$tmp/err"; fail=1; }

# Recorded hardware samples (docs/spe.md, docs/ibs.md), in the fuzz seeds:
# an arm_spe file (Neoverse N1 MIDR; two chunks, the second cut inside its
# last record), whose load/store samples perf 6.12 prints as
#   7fff00001000 1a88101042 |OP LOAD|LVL RAM hit|..  77 ffff800010001234
#   7fff00002000 1e00080024 |OP STORE|LVL N/A|..      5           400100
# (in perf's field order and widths: addr, data_src padded to the longest
# so far, weight %16, then the IP)
# (plus, from the cut record, one more: known difference K4), and a Zen 4
# ibs_op file recorded with RAW only.
seeds=$(dirname "$0")/../fuzz/corpus/auxtrace
out=$("$pms" script -i "$seeds/spe_v1_n1.data" -F cpu,ip,addr,weight,data_src 2>"$tmp/err")
expect "spe lines" 4 "$(printf '%s\n' "$out" | wc -l)"
expect "spe first" \
  "[000]     7fff00001000      1a88101042 |OP LOAD|LVL RAM hit|SNP None|TLB Walker hit|LCK No|BLK  N/A              77 ffff800010001234" \
  "$(printf '%s\n' "$out" | head -1)"
expect "spe second" \
  "[000]     7fff00002000      1e00080024 |OP STORE|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A                          5           400100" \
  "$(printf '%s\n' "$out" | sed -n 2p)"
grep -q "AUX data lost: 1 SPE records cut by the end of their chunk (19 bytes)" "$tmp/err" || { echo "FAIL: spe cut count"; cat "$tmp/err"; fail=1; }
out=$("$pms" script -i "$seeds/ibs_zen4.data" -F ip,addr,weight,data_src 2>&1)
expect "ibs raw-only load" \
  "        7fff1000    103a29082042 |OP LOAD|LVL Remote node, same socket RAM hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A             200           401000" \
  "$(printf '%s\n' "$out" | head -1)"

data=${PMS_SHARED_DATA:-$(dirname "$0")/../../../shared/data}
q=$data/perf_data_converter/src/quipper/testdata
if [ ! -r "$q/perf.data.weight_struct" ]; then
  echo "SKIP: ../shared/data absent; only the error paths were checked"
  [ $fail = 0 ] && exit 77 || exit 1
fi
ws=$q/perf.data.weight_struct

out=$("$pms" script -i "$ws" -F pid,tid,addr,weight,data_src 2>&1)
expect "lines" 14 "$(printf '%s\n' "$out" | wc -l)"
# perf's first line (time order: this sample is the file's second)
expect "first sample" \
  "  20132/20144       55ffba5cda08     11868100242 |OP LOAD|LVL LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A             225" \
  "$(printf '%s\n' "$out" | head -1)"
expect "last sample" \
  "  17654/19892       7fc3ada9f408     10268100142 |OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A                  168" \
  "$(printf '%s\n' "$out" | tail -1)"

"$pms" script --json -i "$ws" -F ip,addr,weight,data_src,node >"$tmp/j" 2>&1
expect "json lines" 14 "$(wc -l <"$tmp/j")"
if command -v python3 >/dev/null; then
  got=$(python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(sum(r["weight"] for r in rows), rows[1]["data_src"], rows[1]["data_src_text"], rows[0]["node"])
' "$tmp/j" 2>&1)
  expect "json values" "1725 0x11868100242 |OP LOAD|LVL LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A None" "$got"
fi

# Pipe mode read from stdin (a stream, not a mapped file).
pf=$q/perf.data.piped.header_features_aligned-6.12
if [ -r "$pf" ]; then
  expect "pipe stdin samples" 9 "$(cat "$pf" | "$pms" script -i - -F ip 2>&1 | wc -l)"
fi
# zstd-compressed records (perfparser's cpp-inlining).
cf=$data/kdab-perfparser/tests/auto/perfdata/cpp-inlining/cpp-inlining.perf.data
if [ -r "$cf" ]; then
  expect "compressed samples" 539 "$("$pms" script -i "$cf" -F data_src 2>&1 | wc -l)"
  "$pms" script --header -i "$cf" >"$tmp/h" 2>&1
  grep -q "^# compressed : Zstd, level = 1, ratio = 126$" "$tmp/h" || { echo "FAIL: compressed header"; cat "$tmp/h"; fail=1; }
  grep -q "^#   COMPRESSED  *13$" "$tmp/h" || { echo "FAIL: COMPRESSED count"; fail=1; }
fi
# The corrupt pipe file: the samples before the bad record, then an error.
bad=$q/perf.data.piped.corrupted.zero_size_sample-3.2
if [ -r "$bad" ]; then
  "$pms" script -i "$bad" >/dev/null 2>"$tmp/err"; expect "corrupt exit" 1 $?
  grep -q "record of type 9 at offset 49104 has size 0" "$tmp/err" || { echo "FAIL: corrupt message"; cat "$tmp/err"; fail=1; }
fi
exit $fail
