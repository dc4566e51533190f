#!/usr/bin/env bash
# events answers "what can I count on this machine" as perf list does
# (issue 18): software events, hardware events only where a core PMU exists,
# each PMU's sysfs events, tracepoints, the CPU's catalog; what it lists
# counts with stat -e; `perf list -j` output works as a catalog; no match is
# an error.
set -u
pms=${1:?usage: events_machine.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/machines
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

"$pms" events >"$tmp/all" 2>"$tmp/e" || bad "events exit $?: $(cat "$tmp/e")"
grep -q "^catalog: this machine" "$tmp/all" || bad "events does not say it lists this machine: $(head -1 "$tmp/all")"
grep -Eq '^page-faults +page-faults +software event +yes$' "$tmp/all" || bad "no page-faults software event"
grep -Eq '^task-clock ' "$tmp/all" || bad "no task-clock"
grep -q '^SW_INCR' "$tmp/all" && [ "$(uname -m)" != aarch64 ] && bad "the ARM PMUv3 table on $(uname -m)"
grep -q ' $' "$tmp/all" && bad "trailing spaces: $(grep -c ' $' "$tmp/all") lines"
if [ -z "$(ls /sys/bus/event_source/devices/*/caps/max_precise /sys/bus/event_source/devices/cpu* 2>/dev/null)" ]; then
  grep -Eq '^cycles +cycles +hardware event' "$tmp/all" && bad "hardware events listed on a machine without a core PMU"
fi
# every kind it lists counts: a software event, a PMU sysfs event, a tracepoint
for kind in "software event" "kernel PMU event" "tracepoint event"; do
  enc=$(awk -v k="$kind" 'NR > 2 && index($0, k) { print $2; exit }' "$tmp/all")
  [ -n "$enc" ] || { echo "SKIP: no $kind here" >&2; continue; }
  case "$enc" in
    *tsc*|*msr*) continue;; # msr events need the msr module's privileges
  esac
  "$pms" stat --strict -x, -e "$enc" -- true >/dev/null 2>"$tmp/s" || bad "listed '$enc' ($kind) does not count: $(cat "$tmp/s")"
done
"$pms" events --json fault >"$tmp/j" || bad "--json exit"
python3 - "$tmp/j" <<'PY' || bad "--json: $(head -c 400 "$tmp/j")"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {e.get("kind") for e in d["events"]}
assert "software event" in kinds, kinds
assert all("fault" in e["name"].lower() for e in d["events"])
assert d["count"] == len(d["events"]) > 0
PY
# no match is an error
"$pms" events no-such-event-xyz >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 1 ] || bad "no match exit $rc, want 1"
grep -q "no event matches 'no-such-event-xyz'" "$tmp/e" || bad "no-match message: $(cat "$tmp/e")"
# a machine with a core PMU (fixture): the hardware events and its sysfs aliases
"$pms" --root "$fx/zen4-ibs" events cycles >"$tmp/z" || bad "zen4 fixture events"
grep -Eq '^cycles +cycles +hardware event' "$tmp/z" || bad "zen4: no hardware cycles: $(cat "$tmp/z")"
grep -Eq '^cpu/cpu-cycles/ ' "$tmp/z" || bad "zen4: no cpu/cpu-cycles/ alias"
# perf list -j output as the catalog
if [ -x /usr/bin/perf ] && /usr/bin/perf list -j >"$tmp/pl.json" 2>/dev/null && [ -s "$tmp/pl.json" ]; then
  "$pms" events --catalog "$tmp/pl.json" >"$tmp/c" 2>"$tmp/e" || bad "--catalog perf list -j: $(cat "$tmp/e")"
  grep -Eq '^page-faults +page-faults ' "$tmp/c" || bad "perf list -j: no page-faults"
  n=$(grep -c '' "$tmp/c")
  [ "$n" -gt 100 ] || bad "perf list -j gave only $n lines"
  enc=$(awk '/tracepoint\/config=/ { print $2; exit }' "$tmp/c")
  [ -z "$enc" ] || "$pms" stat --strict -e "$enc" -- true >/dev/null 2>&1 || bad "perf list -j tracepoint '$enc' does not count"
  "$pms" events --catalog "$tmp/pl.json" no-such-event-xyz >/dev/null 2>&1; [ $? = 1 ] || bad "--catalog no match exit"
else
  echo "SKIP perf list -j: no perf" >&2
fi
exit $fail
