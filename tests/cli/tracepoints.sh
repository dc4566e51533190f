#!/usr/bin/env bash
# Tracepoints by name and glob everywhere an event is taken (issue 30 item 2):
# stat -e, encode, record -e; the counts perf stat gives for the same
# events (the exec and exit of `true` are deterministic); events --catalog
# shows a tracepoint's id as events does.  Needs a readable tracefs (skips
# otherwise); the fake-tracefs half is tests/event/test_machine_events.c.
set -u
pms=${1:?usage: tracepoints.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
tr=/sys/kernel/tracing/events
[ -r $tr/sched/sched_process_exec/id ] || tr=/sys/kernel/debug/tracing/events
if [ ! -r $tr/sched/sched_process_exec/id ]; then
  echo "SKIP: tracefs not readable here" >&2; exit 77
fi
id=$(cat $tr/sched/sched_process_exec/id)

# stat -e sys:name: counted, the count perf gives
"$pms" stat --strict -x, -e sched:sched_process_exec,sched:sched_process_exit -- true \
  >"$tmp/o" 2>"$tmp/e" || bad "stat -e sched:...: $(cat "$tmp/e" "$tmp/o")"
pm=$(cat "$tmp/o" "$tmp/e" | awk -F, '$3 ~ /^sched:sched_process_(exec|exit)$/ { print $3 "=" $1 }' | sort | tr '\n' ' ')
[ "$pm" = "sched:sched_process_exec=1 sched:sched_process_exit=1 " ] || bad "stat counts: '$pm' $(cat "$tmp/e")"
if command -v perf >/dev/null; then
  pf=$(perf stat -x, -e sched:sched_process_exec,sched:sched_process_exit -- true 2>&1 |
       awk -F, '{ print $3 "=" $1 }' | sort | tr '\n' ' ')
  [ "$pm" = "$pf" ] || bad "stat counts '$pm' differ from perf's '$pf'"
fi
# a glob: one row per match, as perf expands it
n=$(ls -d $tr/sched/sched_process_*/ | wc -l)
"$pms" stat -x, -e 'sched:sched_process_*' -- true >"$tmp/o" 2>&1 || bad "stat glob: $(cat "$tmp/o")"
got=$(grep -c ',sched:sched_process_' "$tmp/o")
[ "$got" = "$n" ] || bad "glob sched:sched_process_* gave $got rows, tracefs has $n: $(cat "$tmp/o")"
# unknown tracepoint: an error naming it
"$pms" stat -e sched:no_such_tp -- true >/dev/null 2>"$tmp/e"; rc=$?
[ $rc != 0 ] && grep -q "unknown tracepoint 'sched:no_such_tp'" "$tmp/e" || bad "unknown tracepoint: rc $rc $(cat "$tmp/e")"
# modifiers still parse as modifiers
"$pms" encode page-faults:u >"$tmp/o" 2>&1 || bad "encode page-faults:u: $(cat "$tmp/o")"
# encode: the id from tracefs
"$pms" encode sched:sched_process_exec >"$tmp/o" 2>&1 || bad "encode: $(cat "$tmp/o")"
grep -q "type=2,config=$(printf 0x%x "$id")" "$tmp/o" || bad "encode: want config $id: $(cat "$tmp/o")"
# record -e: samples every hit
"$pms" record -e sched:sched_process_exec -o "$tmp/r.data" -- true >"$tmp/o" 2>&1 || bad "record -e: $(cat "$tmp/o")"
grep -q "sched:sched_process_exec, 1 samples" "$tmp/o" || bad "record -e: want 1 sample: $(cat "$tmp/o")"
# events and events --catalog (perf list -j) print the same id for it
"$pms" events sched:sched_process_exec >"$tmp/a" 2>&1
grep -Eq "^sched:sched_process_exec +tracepoint/config=$id/ " "$tmp/a" || bad "events: $(cat "$tmp/a")"
if command -v perf >/dev/null && perf list -j >"$tmp/pl.json" 2>/dev/null; then
  "$pms" events --catalog "$tmp/pl.json" sched:sched_process_exec >"$tmp/c" 2>&1
  grep -Eq "^sched:sched_process_exec +tracepoint/config=$id/ " "$tmp/c" || bad "events --catalog: $(cat "$tmp/c")"
  grep -q ' $' "$tmp/c" && bad "events --catalog: trailing spaces"
fi
exit $fail
