#!/usr/bin/env bash
# perf's flags with perf's meaning, or a message saying what to use
# (issue 18), and errors that say the cause first.
set -u
pms=${1:?usage: perf_flags.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
ok() { "$@" >"$tmp/o" 2>"$tmp/e" || bad "'$*' exit $?: $(head -3 "$tmp/e")"; }
usage() { "$@" >"$tmp/o" 2>"$tmp/e"; local rc=$?; [ $rc = 2 ] || bad "'$*' exit $rc, want 2"; }

# stat: -j, -r N, -o FILE, -A, -i (perf's letters)
ok "$pms" stat -j -e page-faults -- true
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/e" || bad "stat -j is not JSON"
ok "$pms" stat -r 3 -e page-faults -- true; grep -q '(3 runs)' "$tmp/e" || bad "stat -r 3"
ok "$pms" stat -o "$tmp/s.txt" -e page-faults -- true; grep -q page-faults "$tmp/s.txt" || bad "stat -o"
ok "$pms" stat -i -e page-faults -- true
# mem: -t, --ldlat, -e, -c, -F, -U/-K
ok "$pms" mem -t load --size 1M --quiet
ok "$pms" mem -t store --size 1M --quiet
ok "$pms" mem --type=load,store --ldlat 30 --size 1M --quiet
ok "$pms" mem -e mem-loads --size 1M --quiet
ok "$pms" mem -e ldlat-stores --size 1M --quiet
ok "$pms" mem -e list; grep -q '^mem-loads' "$tmp/o" || bad "mem -e list: $(cat "$tmp/o")"
usage "$pms" mem -t bogus; grep -q "want load, store or load,store" "$tmp/e" || bad "-t message: $(cat "$tmp/e")"
usage "$pms" mem -e cycles; grep -q -- "-t load|store" "$tmp/e" && grep -q -- "--engine" "$tmp/e" ||
  bad "mem -e does not say what to use: $(cat "$tmp/e")"
usage "$pms" mem --ldlat 0
usage "$pms" mem -c 0
usage "$pms" mem -c 7 -F 100
ok "$pms" mem -c 7 --size 1M --quiet
# -F is a frequency: far fewer samples than one per page fault
"$pms" mem --size 16M --quiet --json >"$tmp/d.json" 2>/dev/null
"$pms" mem -F 50 --size 16M --quiet --json >"$tmp/f.json" 2>/dev/null
python3 - "$tmp/d.json" "$tmp/f.json" <<'PY' || bad "-F 50 did not lower the sample count"
import json, sys
d, f = (json.load(open(p))["samples"]["total"] for p in sys.argv[1:3])
assert f * 10 < d, (d, f)
PY
ok "$pms" mem -U --size 1M --quiet
# report --stdio is perf's default mode, accepted
"$pms" mem --size 4M --quiet -o "$tmp/m.data" >/dev/null 2>&1 || bad "mem -o"
ok "$pms" report --stdio -i "$tmp/m.data"
grep -q '^engine: recorded: page-faults \[software\]' "$tmp/o" || bad "report engine line: $(grep engine: "$tmp/o")"
grep -q 'record with pmuscope mem --phys' "$tmp/o" || bad "report hint names perf's flag only: $(grep -i phys "$tmp/o")"
# script names the event as perf does, not type1/0x2/
ok "$pms" script --json -F event -i "$tmp/m.data"
head -1 "$tmp/o" | grep -q '"event":"page-faults"' || bad "script event name: $(head -1 "$tmp/o")"
if [ -x /usr/bin/perf ]; then
  /usr/bin/perf script -F event -i "$tmp/m.data" 2>/dev/null | head -1 | grep -q 'page-faults' ||
    echo "note: perf names it $(/usr/bin/perf script -F event -i "$tmp/m.data" 2>/dev/null | head -1)"
fi

# errors: the cause first
"$pms" mem -p 999999999 >/dev/null 2>"$tmp/e"; [ $? = 1 ] || bad "mem -p of no process: exit"
[ "$(cat "$tmp/e")" = "pmuscope: mem: no process 999999999" ] || bad "mem -p message: $(cat "$tmp/e")"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
if [ "$nodes" = 1 ]; then
  "$pms" mem --node 5 --quiet >/dev/null 2>"$tmp/e"; [ $? = 1 ] || bad "mem --node 5: exit"
  [ "$(cat "$tmp/e")" = "pmuscope: mem: node 5 does not exist (this machine has node 0)" ] ||
    bad "mem --node 5 message: $(cat "$tmp/e")"
else
  echo "SKIP --node check: $nodes nodes" >&2
fi
"$pms" mem --engine ibs --quiet >/dev/null 2>"$tmp/e"
[ "$(grep -o 'no sampling engine could be opened' "$tmp/e" | wc -l)" -le 1 ] || bad "doubled prefix: $(cat "$tmp/e")"
exit $fail
