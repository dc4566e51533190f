#!/usr/bin/env bash
# The live sampler's drain thread runs 5 nice levels above the process
# where the process may raise priority (root here: CAP_SYS_NICE), so that it
# copies the rings out soon after its wake-up while the sampled processes
# keep every CPU busy; every other thread keeps the process's nice value.
# $1 = the pmuscope binary.
set -u
pms=${1:?usage: drain_nice.sh PMUSCOPE}
tmp=$(mktemp -d); trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
# a command that waits until the check is done (the fifo), then exits
mkfifo "$tmp/go"
"$pms" mem --quiet -- sh -c "read x < $tmp/go" >"$tmp/out" 2>"$tmp/err" &
pid=$!
# wait (up to 60 s under load) for the drain thread: a second task, and
# as root its nice value set (it sets it first thing, racing this look)
nt=0
for _ in $(seq 600); do
  nt=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
  if [ "$nt" -ge 2 ]; then
    [ "$(id -u)" != 0 ] && break
    main=$(awk '{print $19}' "/proc/$pid/stat")
    low=$(for t in /proc/$pid/task/*; do awk '{print $19}' "$t/stat"; done | sort -n | head -1)
    [ "$low" = "$((main - 5))" ] && break
  fi
  sleep 0.1
done
fail=0
if [ "$nt" -lt 2 ]; then
  if grep -q "no sampling engine\|perf_event_open" "$tmp/err"; then echo "no perf events here"; echo x >"$tmp/go"; exit 77; fi
  echo "FAIL: no drain thread in pmuscope mem ($nt tasks)"; cat "$tmp/err"; fail=1
else
  main=$(awk '{print $19}' "/proc/$pid/stat")
  nices=$(for t in /proc/$pid/task/*; do awk '{print $19}' "$t/stat"; done | sort -n | tr '\n' ' ')
  raised=$(for t in /proc/$pid/task/*; do awk -v m="$main" '$19 == m - 5' "$t/stat"; done | wc -l)
  others=$(for t in /proc/$pid/task/*; do awk -v m="$main" '$19 != m && $19 != m - 5' "$t/stat"; done | wc -l)
  if [ "$(id -u)" = 0 ]; then
    [ "$raised" = 1 ] || { echo "FAIL: as root one thread (the drain) at nice $((main - 5)); nice values: $nices"; fail=1; }
  else
    echo "not root: the drain thread may stay at nice $main (nice values: $nices)"
  fi
  [ "$others" = 0 ] || { echo "FAIL: a thread at another nice value: $nices"; fail=1; }
fi
echo x >"$tmp/go"
wait $pid; rc=$?
[ $rc = 0 ] || { echo "FAIL: mem exit $rc"; cat "$tmp/err"; fail=1; }
# a COMMAND's text report is on stderr (its stdout is the command's)
grep -q "^samples:" "$tmp/err" || { echo "FAIL: no report"; cat "$tmp/err"; fail=1; }
exit $fail
