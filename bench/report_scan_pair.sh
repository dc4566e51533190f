#!/usr/bin/env bash
# `report --no-symbols` against a bare record scan (issue 33), two builds
# paired: for each FILE, 3 interleaved runs of BASE's and NEW's `report
# --no-symbols` (the default --jobs, then --jobs 1) and of BASE's and NEW's
# `script -F ip` to /dev/null (the bare record scan); prints CPU seconds
# (user + sys) medians, M samples/s a core (samples / CPU seconds; SAMPLES
# from the file name's last -N, as bench/perfdata_bench.sh names its files)
# and each build's ratio to its own scan, with the load average before and
# after.  Not a test: nothing is timed against a limit.
#
#   bench/report_scan_pair.sh BASE_PMUSCOPE NEW_PMUSCOPE FILE...
#
# Files: bench/perfdata_bench.sh's (PMS_BENCH_KEEP=1 keeps them), e.g.
# ${TMPDIR:-/tmp}/pms-bench-varied-5000000.data.
set -eu
base=${1:?usage: report_scan_pair.sh BASE NEW FILE...}
new=${2:?usage: report_scan_pair.sh BASE NEW FILE...}
shift 2
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
t=$(mktemp); trap 'rm -f "$t"' EXIT
cpu() { /usr/bin/time -f "%U %S" -o "$t" "$@" >/dev/null 2>&1; awk '{print $1 + $2}' "$t"; }
med() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
for f in "$@"; do
	n=$(basename "$f" .data); n=${n##*-}
	echo "== $f ($n samples), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	nd=() bd=() nj=() bj=() sc=() bs=()
	for _ in 1 2 3; do
		nd+=("$(cpu "$new" report --no-symbols -i "$f")")
		bd+=("$(cpu "$base" report --no-symbols -i "$f")")
		nj+=("$(cpu "$new" report --no-symbols --jobs 1 -i "$f")")
		bj+=("$(cpu "$base" report --no-symbols --jobs 1 -i "$f")")
		sc+=("$(cpu "$new" script -F ip -i "$f")")
		bs+=("$(cpu "$base" script -F ip -i "$f")")
	done
	awk -v n="$n" -v nd="$(med "${nd[@]}")" -v bd="$(med "${bd[@]}")" -v nj="$(med "${nj[@]}")" \
		-v bj="$(med "${bj[@]}")" -v sc="$(med "${sc[@]}")" -v bs="$(med "${bs[@]}")" 'BEGIN {
		m = n / 1e6
		printf "  default: new %.2f s (%.1f M/s), base %.2f s (%.1f M/s)\n", nd, m / nd, bd, m / bd
		printf "  --jobs 1: new %.2f s (%.1f M/s), base %.2f s (%.1f M/s)\n", nj, m / nj, bj, m / bj
		printf "  script -F ip: new %.2f s (%.1f M/s), base %.2f s (%.1f M/s)\n", sc, m / sc, bs, m / bs
		printf "  new / new scan: default %.2fx, --jobs 1 %.2fx; base / base scan: %.2fx, %.2fx\n", nd / sc, nj / sc, bd / bs, bj / bs
	}'
	echo "  runs: new ${nd[*]} | base ${bd[*]} | new j1 ${nj[*]} | base j1 ${bj[*]} | scan ${sc[*]} | base scan ${bs[*]}"
	echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
