#!/usr/bin/env bash
# Issue 30 item 8, the smaller ones: stat -x, --per-node/--per-socket rows
# carry perf's CPU-count column ("N0,2,83,,page-faults"; perf's own output
# as the oracle for the field layout); c2c -- CMD passes the command's exit
# status on; --engine's list names damon (and the completion offers it);
# --folded=latency with no latency data says so; mem's header gives sizes
# as people read them.
set -u
pms=${1:?usage: smaller.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
export PMUSCOPE_NO_DAMON=1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
ncpu=$(getconf _NPROCESSORS_ONLN)
# stat -x, --per-node: label, CPU count, value, unit, event ...
if "$pms" stat -a -x, --per-node -e page-faults -- true >"$tmp/s" 2>&1; then
  grep -Eq "^N0,$ncpu,[0-9]+,,page-faults," "$tmp/s" || bad "--per-node csv: $(cat "$tmp/s")"
  if command -v perf >/dev/null && perf stat -a -x, --per-node -e page-faults -- true 2>"$tmp/p" >/dev/null; then
    pf=$(awk -F, '/page-faults/ { print $1 "," $2 "," $4 "," $5 }' "$tmp/p")
    mf=$(awk -F, '/page-faults/ { print $1 "," $2 "," $4 "," $5 }' "$tmp/s")
    [ "$pf" = "$mf" ] || bad "--per-node fields '$mf' differ from perf's '$pf'"
  fi
else
  echo "SKIP --per-node: $(head -2 "$tmp/s")" >&2
fi
"$pms" stat -x, -e page-faults -- true 2>&1 | grep -Eq '^[0-9]+,,page-faults,' || bad "stat -x, without aggregation changed"
# c2c -- CMD: the command's status
"$pms" c2c -- sh -c 'exit 3' >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 3 ] || bad "c2c -- (exit 3): exit $rc: $(cat "$tmp/e")"
"$pms" c2c -- true >/dev/null 2>&1 || bad "c2c -- true failed"
# --engine: damon is one of them
"$pms" mem --engine foo -- true >/dev/null 2>"$tmp/e"
grep -q "want ibs, pebs, spe, damon or software" "$tmp/e" || bad "--engine list: $(cat "$tmp/e")"
grep -q 'compgen -W "ibs pebs spe damon software"' "$top/tools/completion/pmuscope.bash" || bad "completion lacks damon"
# --folded=latency without latency (software samples): said on stderr
"$pms" record -e page-faults -d -o "$tmp/pf.data" -- true >/dev/null 2>&1 || perf record -q -e page-faults -d -o "$tmp/pf.data" -- true >/dev/null 2>&1
if [ -s "$tmp/pf.data" ]; then
  "$pms" report -i "$tmp/pf.data" --folded=latency >"$tmp/f" 2>"$tmp/e"
  [ -s "$tmp/f" ] && bad "--folded=latency wrote stacks without latency"
  grep -q -- "--folded=latency: no stacks to write (no sample has a latency" "$tmp/e" || bad "--folded=latency message: $(cat "$tmp/e")"
fi
# the header's buffer size in binary units
"$pms" mem --size 8M -q >"$tmp/m" 2>&1 || bad "mem --size 8M: $(tail -3 "$tmp/m")"
grep -q '^pmuscope mem: built-in pointer chase, 8 MiB, 1 thread(s)' "$tmp/m" || bad "mem header: $(head -1 "$tmp/m")"
exit $fail
