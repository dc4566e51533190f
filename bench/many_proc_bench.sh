#!/usr/bin/env bash
# Many short processes under `pmuscope mem` (each held at exit), against
# `perf record -e page-faults -c 1 -d` and the workload alone (issue 34):
# wall time of each (the median of RUNS, interleaved), mem's wall over
# perf record's, and the share of mem's sampled addresses resolved to a
# node with the rest by reason, and mem's exit-hold line.  Not a test:
# figures depend on the machine and its load (printed first).
#
#   bench/many_proc_bench.sh [PMUSCOPE [RUNS [WORKLOADS]]]
#
# WORKLOADS (default all, space-separated): loop200 and loop2000 (a shell
# loop of /bin/true), seq200 (200 `sleep 0.01` one after the other),
# conc200 (200 `sleep 0.5` at once, then wait: issue 33), make (make -j2 of a generated C project of 50 files,
# cleaned before each run), shim (python3 -c pass started through a bash
# shim that first runs 40 short processes, as a pyenv shim does).
# PMUSCOPE_NO_DAMON=1 is set (mem's automatic DAMON choice off).
set -u
pms=${1:-build/pmuscope}
runs=${2:-3}
wls=${3:-loop200 loop2000 seq200 conc200 make shim}
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PMUSCOPE_NO_DAMON=1 PERF_CONFIG=/dev/null LC_ALL=C

# the C project: 50 files of a few functions each
mkdir -p "$tmp/proj"
for i in $(seq 50); do
	cat >"$tmp/proj/f$i.c" <<EOF
#include <stdio.h>
#include <string.h>
int f$i(int x) { char b[64]; snprintf(b, sizeof(b), "%d", x * $i); return (int)strlen(b); }
int g$i(const char *s) { int n = 0; while (*s) n += *s++; return n + f$i(n); }
EOF
done
printf 'int main(void) { return 0; }\n' >"$tmp/proj/main.c"
{
	printf 'OBJ = main.o'
	for i in $(seq 50); do printf ' f%d.o' "$i"; done
	printf '\nprog: $(OBJ)\n\t$(CC) -o $@ $(OBJ)\n%%.o: %%.c\n\t$(CC) -O1 -c -o $@ $<\n'
	printf 'clean:\n\trm -f prog *.o\n'
} >"$tmp/proj/Makefile"
# the shim: 40 short processes, then python3
cat >"$tmp/shim" <<'EOF'
#!/usr/bin/env bash
for i in $(seq 20); do v=$(dirname "/a/b/$i"); b=$(basename "$v"); done
exec python3 "$@"
EOF
chmod +x "$tmp/shim"

cmd_of() {
	case $1 in
	loop200) echo "sh -c 'for i in \$(seq 200); do /bin/true; done'" ;;
	loop2000) echo "sh -c 'for i in \$(seq 2000); do /bin/true; done'" ;;
	seq200) echo "sh -c 'for i in \$(seq 200); do sleep 0.01; done'" ;;
	conc200) echo "sh -c 'for i in \$(seq 200); do sleep 0.5 & done; wait'" ;;
	make) echo "make -s -j2 -C $tmp/proj" ;;
	shim) echo "$tmp/shim -c pass" ;;
	*) return 1 ;;
	esac
}
prep() { [ "$1" = make ] && make -s -C "$tmp/proj" clean >/dev/null 2>&1; true; }
# timed CMD...: runs CMD under GNU time; appends its wall to $tmp/$W and
# its CPU (user + sys of it and its reaped children) to $tmp/$W.cpu
timed() {
	local w=$1; shift
	eval "/usr/bin/time -f '%e %U %S' -o $tmp/t $*" >/dev/null 2>&1
	tail -1 "$tmp/t" | awk '{print $1}' >>"$tmp/$w"
	tail -1 "$tmp/t" | awk '{print $2 + $3}' >>"$tmp/$w.cpu"
}
med() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "many_proc_bench: $runs runs each, $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
printf '%-9s %8s %8s %8s %9s %21s %9s %9s  %s\n' workload "alone s" "perf s" "mem s" mem/perf \
	"cpu alone/perf/mem s" "cpu m/p" resolved "unresolved by reason; exit holds"
for w in $wls; do
	c=$(cmd_of "$w") || { echo "unknown workload $w" >&2; continue; }
	: >"$tmp/a"; : >"$tmp/p"; : >"$tmp/m"; : >"$tmp/a.cpu"; : >"$tmp/p.cpu"; : >"$tmp/m.cpu"
	for r in $(seq "$runs"); do
		prep "$w"; timed a "$c"
		prep "$w"; timed p "perf record -q -e page-faults -c 1 -d -o $tmp/perf.data -- $c"
		rm -f "$tmp/perf.data"
		prep "$w"; timed m "$pms mem --json --quiet -- $c >$tmp/mem.json"
	done
	a=$(med <"$tmp/a"); p=$(med <"$tmp/p"); m=$(med <"$tmp/m")
	ac=$(med <"$tmp/a.cpu"); pc=$(med <"$tmp/p.cpu"); mc=$(med <"$tmp/m.cpu")
	# the last mem run's resolution and holds
	line=$(python3 - "$tmp/mem.json" <<'EOF'
import json, sys
try:
    n = json.load(open(sys.argv[1]))["numa"]
except Exception as e:
    print("- (no report: %s)" % e); sys.exit()
tot = n["resolved"] + n["unresolved"]
why = ", ".join("%s %d" % (k, n[k]) for k in ("efault", "enoent", "process_gone", "exec_replaced",
                                              "hold_budget", "other_status", "not_asked") if n.get(k))
h = n.get("exit_holds") or {}
print("%.1f%% %s; %d processes (%d threads) held in %d batches, %.1f ms in all, longest %.2f ms, %d at the budget" % (
    100.0 * n["resolved"] / tot if tot else 0, why or "none", h.get("processes", 0), h.get("threads", 0),
    h.get("batches", 0), h.get("total_ms", 0), h.get("longest_ms", 0), h.get("released_at_budget", 0)))
EOF
)
	printf '%-9s %8.2f %8.2f %8.2f %8.2fx %6.2f/%6.2f/%6.2f %8.2fx %s\n' "$w" "$a" "$p" "$m" \
		"$(echo "$m / $p" | bc -l)" "$ac" "$pc" "$mc" "$(echo "$mc / $pc" | bc -l)" "$line"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
