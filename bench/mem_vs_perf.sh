#!/usr/bin/env bash
# `pmuscope mem` against `perf record -e page-faults -c 1 -d` on the same
# workload (issue 21): samples kept, samples lost, the recorder's own peak
# resident memory and CPU time, paired and interleaved over RUNS runs, and
# the ratios of the medians.  Not a test: figures depend on the machine.
#
#   bench/mem_vs_perf.sh [PMUSCOPE [RUNS [SIZE [MMAP]]]]
#
# The workload touches SIZE (default 1G) of fresh memory in 16 processes at
# once (dd, SIZE/16 blocks): every page faults once, one sample each at
# period 1.  MMAP (optional) is passed to both as -m.  The recorder's own
# figures (not the workload's) come from /proc/PID: VmHWM polled every
# 20 ms, and utime+stime read once it has exited, before it is reaped
# (bench/recorder_usage.py), at the kernel's tick resolution.
set -u
pms=${1:-build/pmuscope}
runs=${2:-5}
size=${3:-1G}
mm=${4:-}
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PERF_CONFIG=/dev/null LC_ALL=C
mib=$(( $(numfmt --from=iec "$size") / 1048576 ))
per="$(( mib / 16 ))M"
wl="for i in \$(seq 16); do dd if=/dev/zero of=/dev/null bs=$per count=1 2>/dev/null & done; wait"

# watch CMD...: runs it; sets hwm (its peak resident kB, polled) and cpu
# (its own user+sys seconds at exit, not the workload's): recorder_usage.py.
here=$(cd "$(dirname "$0")" && pwd)
watch() {
	read -r hwm cpu < <(python3 "$here/recorder_usage.py" "$tmp/out" "$tmp/err" "$@" || echo "0 0")
}
med() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "mem_vs_perf: $runs paired runs, $size touched by 16 processes, $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %-9s %9s %8s %9s %7s\n' run tool samples lost "hwm kB" "cpu s"
for r in $(seq "$runs"); do
	watch "$pms" mem --json --quiet --period 1 ${mm:+-m "$mm"} -- sh -c "$wl"
	read -r ps pl < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["samples"]
print(s["total"], s["lost"] + s["lost_samples"])' "$tmp/out" 2>/dev/null || echo "0 -1")
	printf '%-4s %-9s %9s %8s %9s %7s\n' "$r" pmuscope "$ps" "$pl" "$hwm" "$cpu"
	echo "$ps $pl $hwm $cpu" >>"$tmp/pms"
	watch perf record -q -e page-faults -c 1 -d ${mm:+-m "$mm"} -o "$tmp/perf.data" -- sh -c "$wl"
	fs=$(perf report --stats -i "$tmp/perf.data" 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" {print $3; exit}')
	# perf -D prints "PERF_RECORD_LOST: id:N: lost:K" for each ring
	# overflow and, at the end, one "PERF_RECORD_LOST_SAMPLES: ...: lost
	# samples :K" with the kernel's own count (read_format LOST) of the same
	# drops: the larger of the two sums, not both.
	fl=$(perf report -D -i "$tmp/perf.data" 2>/dev/null | awk '
		/PERF_RECORD_LOST:/ { if (match($0, /lost:[0-9]+/)) a += substr($0, RSTART + 5, RLENGTH - 5) }
		/PERF_RECORD_LOST_SAMPLES:/ { if (match($0, /lost samples :[0-9]+/)) b += substr($0, RSTART + 14, RLENGTH - 14) }
		END { print (a > b ? a : b) + 0 }')
	printf '%-4s %-9s %9s %8s %9s %7s\n' "$r" perf "${fs:-0}" "$fl" "$hwm" "$cpu"
	echo "${fs:-0} $fl $hwm $cpu" >>"$tmp/perf"
done
for k in 1 2 3 4; do
	eval "p$k=\$(awk -v k=$k '{print \$k}' \"$tmp/pms\" | med)"
	eval "f$k=\$(awk -v k=$k '{print \$k}' \"$tmp/perf\" | med)"
done
maxl() { awk '{print $2}' "$1" | sort -g | tail -1; }
echo "medians: pmuscope samples $p1 lost $p2 hwm $p3 kB cpu $p4 s | perf samples $f1 lost $f2 hwm $f3 kB cpu $f4 s"
echo "worst lost over $runs runs: pmuscope $(maxl "$tmp/pms"), perf $(maxl "$tmp/perf")"
suml() { awk '{n += $2} END {print n + 0}' "$1"; }
wins() { paste -d' ' "$tmp/pms" "$tmp/perf" | awk '$2 <= $6 {n++} END {print n + 0}'; }
echo "lost over all $runs runs: pmuscope $(suml "$tmp/pms"), perf $(suml "$tmp/perf"); runs where pmuscope lost no more than perf: $(wins) of $runs"
awk -v a="$p3" -v b="$f3" -v c="$p4" -v d="$f4" 'BEGIN {
	printf "pmuscope/perf: resident %.2fx (goal <= 1.5x), cpu %.2fx (goal <= 1.1x)\n",
	       (b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
