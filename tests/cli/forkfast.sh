#!/usr/bin/env bash
# A command whose children outlive it (issue 32 item 11, "forkfast"): the run
# ends when the command exits, as perf record's does; what its children do
# after that is not sampled, and pmuscope says how many were still running.
# Those children are left to run: neither the exit holds (ptrace, with
# PTRACE_O_EXITKILL) nor the end of the run kill them.
set -u
pms=${1:?usage: forkfast.sh PMUSCOPE}
export PMUSCOPE_NO_DAMON=1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

# two children outlive the parent; each forks a grandchild after a while
# (a fork the tracer may not have seen when the run ends)
cat >"$tmp/ff.sh" <<'W'
#!/bin/sh
d=$1
for n in 1 2; do
  ( sleep 0.3; sleep 0.3; echo done >"$d/marker.$n" ) &
done
exit 0
W
chmod +x "$tmp/ff.sh"

check() {
  local name=$1 rc=$2
  [ $rc = 0 ] || bad "$name: exit $rc"
  # the two subshells, and their first sleep when it has started (2 to 4)
  local n
  n=$(sed -n 's/.*warning: \([0-9]*\) processes of the command were still running when it exited.*/\1/p' "$tmp/err")
  [ -n "$n" ] && [ "$n" -ge 2 ] && [ "$n" -le 4 ] ||
    { bad "$name: the children left running are not said (or miscounted: '$n')"; cat "$tmp/err"; }
  sleep 1.5
  for n in 1 2; do
    [ -f "$tmp/marker.$n" ] || bad "$name: child $n did not finish (killed?)"
  done
  grep -q Killed "$tmp/err" && bad "$name: a process of the command was killed"
  rm -f "$tmp"/marker.*
}

"$pms" mem --quiet -- "$tmp/ff.sh" "$tmp" >/dev/null 2>"$tmp/err"; check "mem (exit holds)" $?
"$pms" mem --quiet --no-hold -- "$tmp/ff.sh" "$tmp" >/dev/null 2>"$tmp/err"; check "mem --no-hold" $?
(cd "$tmp" && "$pms" record -o "$tmp/r.data" -- "$tmp/ff.sh" "$tmp" >/dev/null 2>"$tmp/err"); check "record -o" $?

# a command whose children have all ended says nothing of the kind
"$pms" mem --quiet -- sh -c '(true) & wait' >/dev/null 2>"$tmp/err" || bad "mem waiting: exit $?"
grep -q "still running" "$tmp/err" && bad "mem: children said running after the command waited for them"
exit $fail
