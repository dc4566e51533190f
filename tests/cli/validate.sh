#!/usr/bin/env bash
# Bad input gets a clear message and a failing exit status, never a wrapped
# value or a bare errno: mem --size -1, stat -I with 20 digits, script -F
# with 33 fields, mem -p of no process, unprivileged mem -a.
# $1 = the pmuscope binary.
set -u
pms=${1:?usage: validate.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
want() { # name rc-not-0 pattern  -- command...
  local name=$1 pat=$2; shift 2
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local rc=$?
  [ $rc != 0 ] && [ $rc != 124 ] || bad "$name: exit $rc"
  grep -Eq -- "$pat" "$tmp/err" || { bad "$name: stderr lacks /$pat/:"; cat "$tmp/err"; }
}
want "mem --size -1" "--size '-1': want bytes 16\.\.1T" "$pms" mem --size -1
want "mem --size 2^64" "--size '18446744073709551616'" "$pms" mem --size 18446744073709551616
want "mem --size 17179869184G" "--size '17179869184G'" "$pms" mem --size 17179869184G
want "stat -I huge" "-I '[0-9]+': want milliseconds 1\.\.86400000" "$pms" stat -I 99999999999999999999 -- true
f33=$(printf 'comm,%.0s' $(seq 32))comm
want "script -F 33 fields" "-F: at most 32 fields; 'comm' would be field 33" "$pms" script --json -F "$f33" -i /dev/null
pid=4194303
while kill -0 $pid 2>/dev/null; do pid=$((pid - 1)); done
want "mem -p no process" "no process $pid" "$pms" mem -p $pid
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
   [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 0)" -gt 0 ]; then
  want "unprivileged mem -a" "system-wide sampling \(-a\) needs CAP_PERFMON .*perf_event_paranoid <= 0 \(it is [0-9-]+\)" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$pms" mem -a --duration 1
else
  echo "note: unprivileged mem -a not checked (needs root to drop to nobody, and paranoid > 0)"
fi
exit $fail
