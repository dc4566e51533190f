#!/usr/bin/env bash
# pmuscope script/report against perf script/perf mem report on the same large
# perf.data file.  Not a test: prints wall time and peak RSS of each and the
# ratios (perf / pmuscope).  Run by hand:
#
#   bench/perfdata_bench.sh [BUILD_DIR [SAMPLES [FILE]]]
#
# BUILD_DIR (default build) must hold pmuscope and bench/perfdata_gen;
# SAMPLES defaults to 5000000; FILE (default $TMPDIR/pms-bench.data) is
# generated when missing (COMM/MMAP2 for 64 threads mapping libc, so perf has
# symbols to resolve).  Uses /usr/bin/time -v for peak RSS when present.
set -eu
build=${1:-build}
n=${2:-5000000}
file=${3:-${TMPDIR:-/tmp}/pms-bench.data}
pms=$build/pmuscope
gen=$build/bench/perfdata_gen
[ -x "$pms" ] && [ -x "$gen" ] || { echo "build $build first (ninja -C $build)" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 2; }
[ -s "$file" ] || "$gen" "$file" "$n"
home=$(mktemp -d); trap 'rm -rf "$home"' EXIT
export HOME=$home PERF_CONFIG=/dev/null LC_ALL=C
unset DEBUGINFOD_URLS

# run NAME CMD...: wall seconds and peak RSS (kB) into $wall $rss.
run() {
  local name=$1; shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$home/t" "$@" >"$home/$name.out" 2>"$home/$name.err" || true
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$home/t")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$home/t")
  else
    local t0 t1
    t0=$(date +%s.%N); "$@" >"$home/$name.out" 2>"$home/$name.err" || true; t1=$(date +%s.%N)
    wall=$(echo "$t1 - $t0" | bc); rss=0
  fi
  printf '%-34s %9.2f s %10s kB  %s lines\n' "$name" "$wall" "$rss" "$(wc -l <"$home/$name.out")"
}

printf 'file: %s (%s bytes)\n' "$file" "$(stat -c %s "$file")"
run "pmuscope script" "$pms" script -i "$file" -F ip,addr,data_src,weight
sw=$wall; sr=$rss
run "perf script -F ip,addr,data_src,weight" perf script --force -i "$file" -F ip,addr,data_src,weight
pw=$wall; pr=$rss
run "pmuscope report" "$pms" report -i "$file"
rw=$wall; rr=$rss
run "perf mem report --stdio" perf mem report --force --stdio -i "$file"
mw=$wall; mr=$rss
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }
echo
echo "script: perf/pmuscope wall $(ratio "$pw" "$sw"), peak RSS $(ratio "$pr" "$sr")"
echo "report: perf/pmuscope wall $(ratio "$mw" "$rw"), peak RSS $(ratio "$mr" "$rr")"
