#!/usr/bin/env bash
# One big file on several threads (issue 33): `pmuscope report FILE
# --jobs 1` against `--jobs N` (default the online CPUs) on one generated
# file, paired and interleaved runs.  Not a test: prints medians of the
# wall and CPU (user + sys) times, the speed-up in wall time, the peak
# memory (max RSS) of each, and checks that the two reports are the same
# byte for byte.
#
#   bench/report_split.sh [BUILD_DIR [SAMPLES [RUNS [JOBS [GEN_OPTIONS [REPORT_ARGS [GEN_AFTER]]]]]]]
#
# SAMPLES (default 10000000; 72 bytes each: 720 MB) bench-shape samples
# from perfdata_gen, with GEN_OPTIONS (one word list, e.g. --rounds=4000
# for perf record's FINISHED_ROUNDs with records out of order); REPORT_ARGS
# (default --no-symbols) go to both reports.  The file is generated under
# ${TMPDIR:-/tmp} and deleted at the end.  The load average before and
# after is printed: say it with the figures.
#
# GEN_AFTER (one word list) goes after the generator's thread count: e.g.
# "LIB1.so:LIB2.so 300000" for bench/perfdata_bench.sh's dso shape, with
# GEN_OPTIONS "--datasrc=varied --addr=maps" its objs shape;
# GEN_OPTIONS "--stack=fp" is its fp shape.
#
# On a loaded machine the wall times say little: where perf is installed,
# RUNS more runs of each under `perf record -e cpu-clock` (not timed) give
# each thread's CPU; the busiest thread's CPU is the --jobs N run's critical
# path, and CPU(--jobs 1) / that is the wall speed-up an idle machine
# would show, less what the threads cost each other there (shared cache,
# memory bandwidth), which this cannot see.
#
# Peak memory on a huge file: SAMPLES=140000000 makes a 10 GB file (needs
# the disk: df -h ${TMPDIR:-/tmp}); RUNS=1 is enough.
set -eu
build=${1:-build}
n=${2:-10000000}
runs=${3:-3}
jobs=${4:-$(nproc)}
genopt=${5:-}
extra=${6:---no-symbols}
genafter=${7:-}
pms=$build/pmuscope
gen=$build/bench/perfdata_gen
[ -x "$pms" ] && [ -x "$gen" ] || { echo "build $build first (ninja -C $build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
tmp=$(mktemp -d); f=${TMPDIR:-/tmp}/pms-split-$$.data
trap 'rm -rf "$tmp" "$f"' EXIT
# shellcheck disable=SC2086 # genopt is a word list
"$gen" $genopt "$f" "$n" 64 $genafter >/dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; one file of $n samples ($(du -h "$f" | cut -f1)), generator options: ${genopt:-none}; $runs paired runs; --jobs $jobs; report args: $extra"
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for r in $(seq 1 "$runs"); do
  for j in 1 "$jobs"; do
    # shellcheck disable=SC2086 # extra is a word list
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$pms" report "$f" --jobs "$j" $extra >"$tmp/out.$j" 2>/dev/null
    read -r w u s m <"$tmp/t"
    echo "$w" >>"$tmp/wall.$j"
    echo "$u $s" | awk '{print $1 + $2}' >>"$tmp/cpu.$j"
    echo "$m" >>"$tmp/rss.$j"
  done
  cmp -s "$tmp/out.1" "$tmp/out.$jobs" || { echo "the --jobs $jobs report differs from --jobs 1" >&2; exit 1; }
done
w1=$(median <"$tmp/wall.1"); wj=$(median <"$tmp/wall.$jobs")
c1=$(median <"$tmp/cpu.1"); cj=$(median <"$tmp/cpu.$jobs")
m1=$(sort -n "$tmp/rss.1" | tail -1); mj=$(sort -n "$tmp/rss.$jobs" | tail -1)
echo "--jobs 1:     wall $w1 s, cpu $c1 s (medians), peak RSS $((m1 / 1024)) MB"
echo "--jobs $jobs:     wall $wj s, cpu $cj s, peak RSS $((mj / 1024)) MB"
awk -v a="$w1" -v b="$wj" -v c="$c1" -v d="$cj" -v n="$n" \
  'BEGIN {printf "speed-up (wall): %.2fx; cpu --jobs %s / --jobs 1: %.2f; %.1f M samples/s (--jobs 1 wall), %.1f M/s (--jobs %s); reports identical\n", a / b, "'"$jobs"'", d / c, n / a / 1e6, n / b / 1e6, "'"$jobs"'"}'
if command -v perf >/dev/null; then
  for _ in $(seq 1 "$runs"); do
    for j in 1 "$jobs"; do
      # shellcheck disable=SC2086 # extra is a word list
      perf record -q -e cpu-clock -F 1000 -o "$tmp/p.data" -- "$pms" report "$f" --jobs "$j" $extra \
        >/dev/null 2>&1 || continue
      # samples per thread: the total and the busiest thread's
      perf script -i "$tmp/p.data" -F tid 2>/dev/null | sort | uniq -c |
        awk '{s += $1; if ($1 > m) m = $1} END {print s, m}' >>"$tmp/thr.$j"
    done
  done
  if [ -s "$tmp/thr.1" ] && [ -s "$tmp/thr.$jobs" ]; then
    t1=$(cut -d' ' -f1 "$tmp/thr.1" | median); tj=$(cut -d' ' -f1 "$tmp/thr.$jobs" | median)
    mj=$(cut -d' ' -f2 "$tmp/thr.$jobs" | median)
    awk -v a="$t1" -v b="$tj" -v m="$mj" -v j="$jobs" 'BEGIN {printf "per thread (perf cpu-clock, 1 kHz, medians): --jobs 1 %d ms; --jobs %s %d ms in all, busiest thread %d ms: cpu --jobs %s / --jobs 1 %.2f; critical-path speed-up %.2fx\n", a, j, b, m, j, b / a, a / m}'
  fi
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
