#!/usr/bin/env bash
# The cost of data-type resolution (issue 29): `report --types` against the
# plain `report` on the same perf.data, and the per-(binary, IP) cache at
# work.  Not a test: it prints medians, the ratio and the cache's counts.
#
#   bench/types_bench.sh [BUILD_DIR [SAMPLES [IPS [RUNS]]]]
#
# The file (generated under ${TMPDIR:-/tmp}, deleted after) holds SAMPLES
# (default 1000000) memory samples of BUILD_DIR/pmuscope itself (built with
# -g): IPS (default 20000) of its instructions with a memory operand, drawn
# at random, each sample one of them at random (tests/types/typefile writes
# it: an MMAP2 of the executable segment at a PIE base, TID, ADDR, WEIGHT,
# DATA_SRC).  Both commands read with the default --jobs (the online CPUs;
# --types runs in the split too).  Both run RUNS (default 3) times, interleaved;
# medians of wall and user+sys seconds (GNU time).  Say the load average
# printed before and after with the figures.
#
# TYPES_BENCH_TARGET=BIN samples BIN instead of BUILD_DIR/pmuscope (a fixed
# binary: the same file for two builds); TYPES_BENCH_OTHER=PMS runs another
# build's pmuscope (e.g. the one before a change) on the same file,
# interleaved, and prints its ratio too.
set -eu
build=${1:-build}
n=${2:-1000000}
ips=${3:-20000}
runs=${4:-3}
pms=$build/pmuscope
tf=$build/tests/types/typefile
for x in "$pms" "$tf"; do [ -x "$x" ] || { echo "types_bench: $x is not built" >&2; exit 1; }; done
command -v /usr/bin/time >/dev/null || { echo "types_bench: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pms-types-bench.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
bin=$(readlink -f "${TYPES_BENCH_TARGET:-$pms}")
other=${TYPES_BENCH_OTHER:-}
read -r off vaddr fsz < <(readelf -lW "$bin" | awk '$1=="LOAD" && / R E / {print $2, $3, $5}')
base=$((0x555555554000))
objdump -d --no-show-raw-insn "$bin" |
  awk -F'\t' '/^ *[0-9a-f]+:\t/ && $2 ~ /\(%r[a-z0-9]+/ && $2 !~ /%rip|push|pop|lea / {sub(":", "", $1); gsub(" ", "", $1); print $1}' \
  >"$tmp/all"
python3 - "$tmp/all" "$n" "$ips" "$base" <<'PY' >"$tmp/lines"
import random, sys
allips = [int(x, 16) for x in open(sys.argv[1])]
n, k, base = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random.seed(29)
pick = random.sample(allips, min(k, len(allips)))
out = sys.stdout
for i in range(n):
    out.write("%d %x %x\n" % (4001 + i % 8, base + random.choice(pick), 0x7fff00001000 + 64 * (i % 4096)))
PY
"$tf" "$tmp/f.data" "$bin" "$(printf '%#x' $((base + vaddr)))" "$(printf '%#x' "$fsz")" "$(printf '%#x' "$off")" <"$tmp/lines"
rm -f "$tmp/lines"
echo "file: $(du -h "$tmp/f.data" | cut -f1), $n samples over $(wc -l <"$tmp/all") memory instructions of $bin ($ips drawn)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
measure() { # NAME PMS ARGS...: appends "wall cpu" to $tmp/NAME
  local name=$1 p=$2; shift 2
  /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$p" "$@" >/dev/null 2>&1
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$tmp/t" >>"$tmp/$name"
}
for _ in $(seq "$runs"); do
  measure plain "$pms" report -i "$tmp/f.data"
  measure types "$pms" report --types -i "$tmp/f.data"
  if [ -n "$other" ]; then
    measure oplain "$other" report -i "$tmp/f.data"
    measure otypes "$other" report --types -i "$tmp/f.data"
  fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
med() { sort -n -k"$2" "$tmp/$1" | awk -v c="$2" '{v[NR]=$c} END {print v[int((NR+1)/2)]}'; }
pw=$(med plain 1); pc=$(med plain 2); tw=$(med types 1); tc=$(med types 2)
printf '%-28s %8s %8s\n' "command (median of $runs)" "wall s" "cpu s"
printf '%-28s %8s %8s\n' "report" "$pw" "$pc"
printf '%-28s %8s %8s\n' "report --types" "$tw" "$tc"
awk -v a="$tw" -v b="$pw" -v c="$tc" -v d="$pc" 'BEGIN {
  printf "ratio report --types / report: wall %.2fx, cpu %.2fx (goal <= 1.5x)\n", a / b, c / d }'
if [ -n "$other" ]; then
  ow=$(med otypes 1); oc=$(med otypes 2); opw=$(med oplain 1); opc=$(med oplain 2)
  echo "other: $other"
  printf '%-28s %8s %8s\n' "report (other)" "$opw" "$opc"
  printf '%-28s %8s %8s\n' "report --types (other)" "$ow" "$oc"
  awk -v a="$ow" -v b="$opw" -v c="$oc" -v d="$opc" 'BEGIN {
    printf "other: ratio report --types / report: wall %.2fx, cpu %.2fx\n", a / b, c / d }'
fi
"$pms" report --types --json -i "$tmp/f.data" 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin); c = j["ip_cache"]
print("ip cache: %d lookups, %d IPs decoded and resolved (%.1f%% answered from the cache); %d of %d samples resolved"
      % (c["lookups"], c["resolved_ips"], 100.0 * (c["lookups"] - c["resolved_ips"]) / max(1, c["lookups"]),
         j["resolved"], j["samples"]))'
