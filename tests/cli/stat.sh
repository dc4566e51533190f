#!/bin/bash
# pmuscope stat on this machine's kernel with software events: a command
# touching N fresh pages, side by side with perf stat; interval output; -p
# attach; -a; CSV and JSON; argument errors; a fixture machine (--root) where
# counting refuses to touch the host.
set -u
PMS=$1
fail=0
skipped=0  # a part that cannot run here makes the whole test exit 77
bad() { echo "FAIL: $*" >&2; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$PMS" stat --help | grep -q -- '--per-node' || bad "--help"

# A command that touches N fresh pages (python3 writes one byte per page).
N=20000
# The interpreter itself, not a wrapper (a pyenv shim runs bash first, and
# how much it does depends on where its stderr goes).
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ]; then
	toucher=("$py" -c "import mmap
m = mmap.mmap(-1, $N * 4096)
for i in range(0, $N * 4096, 4096): m[i] = 1")
else
	echo "SKIP page-touch checks: no python3" >&2
	skipped=1
	toucher=()
fi

if [ ${#toucher[@]} -gt 0 ]; then
	"$PMS" stat -x, -e page-faults -o "$tmp/pms.csv" -- "${toucher[@]}" >/dev/null 2>"$tmp/pms.err" ||
		bad "stat -x, page-faults: $(cat "$tmp/pms.err")"
	ours=$(awk -F, '$3 == "page-faults" { print $1 }' "$tmp/pms.csv")
	[ -n "$ours" ] && [ "$ours" -ge "$N" ] || bad "page-faults '$ours' < $N: $(cat "$tmp/pms.csv")"
	# The pct field is 100.00 for a software event; no task-clock: no /sec metric.
	grep -q ',page-faults,[0-9]*,100.00,,$' "$tmp/pms.csv" || bad "csv fields: $(cat "$tmp/pms.csv")"
	if [ -x /usr/bin/perf ]; then
		/usr/bin/perf stat -x, -e page-faults -- "${toucher[@]}" >/dev/null 2>"$tmp/perf.csv"
		theirs=$(awk -F, '$3 ~ /^page-faults/ { print $1 }' "$tmp/perf.csv")
		if [ -z "$theirs" ] || ! [ "$theirs" -gt 0 ] 2>/dev/null; then
			echo "SKIP perf comparison: perf stat gave '$(cat "$tmp/perf.csv")'" >&2
			skipped=1
		else
			# Within 2%.
			awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 50 <= b) }' ||
				bad "page-faults: pmuscope $ours vs perf $theirs (more than 2% apart)"
			echo "page-faults: pmuscope $ours, perf $theirs"
		fi
	else
		echo "SKIP perf comparison: /usr/bin/perf absent" >&2
		skipped=1
	fi
fi

# Human output of the default set on a command; its exit status comes back.
"$PMS" stat -- sh -c 'exit 3' >"$tmp/h.out" 2>&1
[ $? -eq 3 ] || bad "exit status of the command not passed on"
for e in task-clock context-switches cpu-migrations page-faults; do
	grep -q " $e" "$tmp/h.out" || bad "default set lacks $e: $(cat "$tmp/h.out")"
done
grep -q 'msec' "$tmp/h.out" || bad "task-clock not in msec"
grep -q 'seconds time elapsed' "$tmp/h.out" || bad "no elapsed time"

# JSON.
"$PMS" stat --json -e page-faults,task-clock -- true 2>"$tmp/j.json" || bad "stat --json"
python3 - "$tmp/j.json" <<'EOF' || bad "json: $(cat "$tmp/j.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["target"] == "command", d
assert d["command"] == ["true"] and d["exit_status"] == 0
rows = {r["event"]: r for r in d["rows"]}
assert rows["page-faults"]["raw"] > 0 and rows["page-faults"]["fraction_running"] == 1
assert rows["task-clock"]["unit"] == "msec"
for r in d["rows"]:
    for k in ("value", "raw", "time_enabled", "time_running", "counted", "instances"):
        assert k in r, k
EOF

# Interval output: a 0.35 s command at -I 100 prints at least 3 intervals.
"$PMS" stat -I 100 -x, -e task-clock -- sleep 0.35 >"$tmp/i.csv" 2>&1 || bad "stat -I"
lines=$(grep -c ',task-clock,' "$tmp/i.csv")
[ "$lines" -ge 3 ] || bad "-I 100 printed $lines intervals: $(cat "$tmp/i.csv")"
"$PMS" stat -I 100 --json -e page-faults -o "$tmp/i.json" -- sleep 0.25 || bad "stat -I --json"
python3 -c "
import json, sys
objs = [json.loads(l) for l in open('$tmp/i.json') if l.strip()]
assert len(objs) >= 2, objs
assert all('interval_end_s' in o for o in objs)
" || bad "interval JSON lines: $(cat "$tmp/i.json")"

# -p PID: attach to a running process until it exits.
sleep 0.4 &
spid=$!
"$PMS" stat -p "$spid" -x, -e task-clock,context-switches >"$tmp/p.csv" 2>&1 || bad "stat -p: $(cat "$tmp/p.csv")"
wait "$spid" 2>/dev/null
grep -q ',context-switches,' "$tmp/p.csv" || bad "-p output: $(cat "$tmp/p.csv")"
"$PMS" stat -p 999999999 -e task-clock >/dev/null 2>"$tmp/p.err" && bad "-p of no process succeeded"
grep -q 'no process 999999999' "$tmp/p.err" || bad "-p error: $(cat "$tmp/p.err")"

# -a: system-wide cpu-clock for the duration of a command, per CPU and per node.
if "$PMS" stat -a -x, -e cpu-clock --per-cpu -o "$tmp/a.csv" -- sleep 0.1 2>"$tmp/a.err"; then
	ncpu=$(grep -c ',cpu-clock,' "$tmp/a.csv")
	[ "$ncpu" -eq "$(nproc)" ] || bad "-a --per-cpu rows $ncpu != nproc $(nproc)"
	"$PMS" stat -a --per-node -e cpu-clock -- sleep 0.05 >"$tmp/n.out" 2>&1 ||
		bad "-a --per-node: $(cat "$tmp/n.out")"
	grep -q '^N0 ' "$tmp/n.out" || bad "--per-node rows: $(cat "$tmp/n.out")"
else
	grep -q 'perf_event_paranoid' "$tmp/a.err" || bad "-a failed without naming paranoid: $(cat "$tmp/a.err")"
	echo "SKIP -a: $(cat "$tmp/a.err")" >&2
	skipped=1
fi

# Privilege on the real kernel: as nobody at perf_event_paranoid >= 2,
# counting the kernel is refused and the message gives the level; the
# default set falls back to user space only.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo -1)
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ "$par" -ge 2 ] &&
	"${nobody[@]}" "$PMS" --version >/dev/null 2>&1; then
	"${nobody[@]}" "$PMS" stat -e page-faults -- true >/dev/null 2>"$tmp/np.err" &&
		bad "kernel counting as nobody at paranoid $par succeeded"
	grep -q "perf_event_paranoid is $par" "$tmp/np.err" || bad "paranoid message: $(cat "$tmp/np.err")"
	grep -q "CAP_PERFMON: no" "$tmp/np.err" || bad "capability message: $(cat "$tmp/np.err")"
	"${nobody[@]}" "$PMS" stat -- true 2>"$tmp/np2.err" >/dev/null ||
		bad "default set as nobody: $(cat "$tmp/np2.err")"
	grep -q 'page-faults:u' "$tmp/np2.err" || bad "no :u fallback: $(cat "$tmp/np2.err")"
	grep -q 'user space only' "$tmp/np2.err" || bad "fallback not announced: $(cat "$tmp/np2.err")"
else
	echo "SKIP privilege checks: need root, setpriv, paranoid >= 2 (is $par)" >&2
	skipped=1
fi

# EMFILE on the real kernel: 15 counters with 12 fds.
evs=$(printf 'page-faults,%.0s' $(seq 15))
(ulimit -n 12 && exec "$PMS" stat -e "${evs%,}" -- true) >/dev/null 2>"$tmp/mf.err" &&
	bad "15 counters within ulimit -n 12"
grep -q "soft 12, hard 12" "$tmp/mf.err" || bad "EMFILE limits: $(cat "$tmp/mf.err")"
grep -q "ulimit -n" "$tmp/mf.err" || bad "EMFILE advice: $(cat "$tmp/mf.err")"

# Argument errors.
"$PMS" stat >/dev/null 2>"$tmp/e1" && bad "no target accepted"
grep -q 'nothing to count' "$tmp/e1" || bad "no-target message: $(cat "$tmp/e1")"
"$PMS" stat --per-core -- true >/dev/null 2>"$tmp/e2" && bad "--per-core without -a accepted"
grep -q 'needs per-CPU counting' "$tmp/e2" || bad "per-core message: $(cat "$tmp/e2")"
"$PMS" stat -e 'no-such-event-xyz' -- true >/dev/null 2>"$tmp/e3" && bad "unknown event accepted"
grep -q "^pmuscope: event: " "$tmp/e3" || bad "unknown event message: $(cat "$tmp/e3")"

# Catalog names: a missing catalog is named; a catalog without this CPU says so.
"$PMS" stat --catalog /no/such/catalog -e inst_retired -- true >/dev/null 2>"$tmp/c1" && bad "missing catalog accepted"
grep -q "^pmuscope: stat: catalog" "$tmp/c1" || bad "catalog message: $(cat "$tmp/c1")"
"$PMS" stat --catalog /no/such/catalog --help | grep -q -- '--catalog PATH' || bad "--help lacks --catalog"

# A fixture machine is not this system: starting a command there is refused.
root=$(dirname "$0")/../fixtures/machines/zen4-ibs
"$PMS" --root "$root" stat -e task-clock -- true >/dev/null 2>"$tmp/r.err" && bad "--root stat ran"
grep -q 'live system' "$tmp/r.err" || bad "--root message: $(cat "$tmp/r.err")"

[ "$fail" = 0 ] && [ "$skipped" = 1 ] && exit 77
exit $fail
