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
# The same perf runs time each sample: the first thread's CPU after the
# other threads' last sample is the serial part (the merge, the report,
# its output, the exit; the walk runs beside the first chunk and is not
# in it).  With S that and T the --jobs 1 CPU, Amdahl's bound on N threads
# is T / (S + (T - S) / N); it is printed with the part before.
#
# PMS_BENCH_RT=1 (root): the timed runs under SCHED_FIFO (chrt -f 50),
# so that on a loaded machine they get the CPUs (RT throttling leaves the
# other tasks 5 %); a --jobs 1 run has beside it an RT spinner (a shell
# loop that ends itself after 8 s) holding the other CPU, so that neither
# run shares the cores, the L3 and the memory with the other work.  The
# others' CPU and the hypervisor's steal during each run (/proc/stat less
# this run's and the spinner's) is printed.
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
rt=${PMS_BENCH_RT:-0}
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
for r in $(seq 1 "$runs"); do
  for j in 1 "$jobs"; do
    pre=() sp=
    if [ "$rt" = 1 ]; then
      pre=(chrt -f 50)
      if [ "$j" = 1 ]; then
        # shellcheck disable=SC2016 # the inner shell expands them
        chrt -f 50 bash -c 'e=$((SECONDS + 8)); while [ $SECONDS -lt $e ]; do :; done' &
        sp=$!
      fi
    fi
    b0=$(busy) t0=$(date +%s%N)
    # shellcheck disable=SC2086 # extra is a word list
    "${pre[@]}" /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$pms" report "$f" --jobs "$j" $extra >"$tmp/out.$j" 2>/dev/null
    t1=$(date +%s%N) b1=$(busy)
    if [ -n "$sp" ]; then kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null || true; fi
    read -r w u s m <"$tmp/t"
    w=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')
    awk -v d=$((b1 - b0)) -v u="$u" -v s="$s" -v w="$w" -v sp="${sp:+1}" \
      'BEGIN {printf "%.2f\n", d / 100 - u - s - (sp ? w : 0)}' >>"$tmp/oth.$j"
    echo "$w" >>"$tmp/wall.$j"
    echo "$u $s" | awk '{print $1 + $2}' >>"$tmp/cpu.$j"
    echo "$m" >>"$tmp/rss.$j"
  done
  cmp -s "$tmp/out.1" "$tmp/out.$jobs" || { echo "the --jobs $jobs report differs from --jobs 1" >&2; exit 1; }
done
w1=$(median <"$tmp/wall.1"); wj=$(median <"$tmp/wall.$jobs")
c1=$(median <"$tmp/cpu.1"); cj=$(median <"$tmp/cpu.$jobs")
m1=$(sort -n "$tmp/rss.1" | tail -1); mj=$(sort -n "$tmp/rss.$jobs" | tail -1)
o1=$(median <"$tmp/oth.1"); oj=$(median <"$tmp/oth.$jobs")
[ "$rt" = 1 ] && echo "timed runs under SCHED_FIFO (PMS_BENCH_RT=1)"
echo "--jobs 1:     wall $w1 s, cpu $c1 s (medians), peak RSS $((m1 / 1024)) MB; the other tasks' cpu and steal meanwhile $o1 s"
echo "--jobs $jobs:     wall $wj s, cpu $cj s, peak RSS $((mj / 1024)) MB; the other tasks' cpu and steal meanwhile $oj s"
awk -v a="$w1" -v b="$wj" -v c="$c1" -v d="$cj" -v n="$n" \
  'BEGIN {printf "speed-up (wall): %.2fx; cpu --jobs %s / --jobs 1: %.2f; %.1f M samples/s (--jobs 1 wall), %.1f M/s (--jobs %s); reports identical\n", a / b, "'"$jobs"'", d / c, n / a / 1e6, n / b / 1e6, "'"$jobs"'"}'
if command -v perf >/dev/null; then
  for _ in $(seq 1 "$runs"); do
    for j in 1 "$jobs"; do
      # shellcheck disable=SC2086 # extra is a word list
      perf record -q -e cpu-clock -F 1000 -o "$tmp/p.data" -- "$pms" report "$f" --jobs "$j" $extra \
        >/dev/null 2>&1 || continue
      # samples per thread: the total, the busiest thread's, and the
      # first thread's after the decoding threads' last (the serial part;
      # a thread of under a quarter of the busiest other's samples is no
      # decoding thread: the naming's warm-up, memprof_report.c, runs
      # beside the serial part)
      perf script -i "$tmp/p.data" -F pid,tid,time 2>/dev/null | awk '
        { split($1, a, "/"); t = $2 + 0; n[a[2]]++
          if (a[1] == a[2]) { mt[++nm] = t; main = a[2] } else if (t > lt[a[2]]) lt[a[2]] = t }
        END { for (k in n) { s += n[k]; if (n[k] > m) m = n[k]; if (k != main && n[k] > mo) mo = n[k] }
              for (k in lt) if (n[k] * 4 >= mo && lt[k] > last) last = lt[k]
              for (i = 1; i <= nm; i++) if (mt[i] > last) after++
              print s, m, after + 0 }' >>"$tmp/thr.$j"
    done
  done
  if [ -s "$tmp/thr.1" ] && [ -s "$tmp/thr.$jobs" ]; then
    t1=$(cut -d' ' -f1 "$tmp/thr.1" | median); tj=$(cut -d' ' -f1 "$tmp/thr.$jobs" | median)
    mj=$(cut -d' ' -f2 "$tmp/thr.$jobs" | median)
    sj=$(cut -d' ' -f3 "$tmp/thr.$jobs" | median)
    awk -v a="$t1" -v b="$tj" -v m="$mj" -v j="$jobs" 'BEGIN {printf "per thread (perf cpu-clock, 1 kHz, medians): --jobs 1 %d ms; --jobs %s %d ms in all, busiest thread %d ms: cpu --jobs %s / --jobs 1 %.2f; critical-path speed-up %.2fx\n", a, j, b, m, j, b / a, a / m}'
    awk -v a="$t1" -v s="$sj" -v b="$tj" -v j="$jobs" 'BEGIN {printf "serial: the first thread after the others ended %d ms (%.1f %% of --jobs 1), parallel %d ms; Amdahl bound on %s threads %.2fx (with the parallel part as --jobs %s spent it: %.2fx)\n", s, 100 * s / a, b - s, j, a / (s + (a - s) / j), j, a / (s + (b - s) / j)}'
  fi
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
