#!/usr/bin/env bash
# mem's allocation-tracking lines: a statically linked command and -p say
# why allocations are not tracked; --no-alloc leaves the section out; the
# options are written in the JSON; record -o puts the records into the
# file, or says why not.
#   alloc_cli.sh PMUSCOPE STATIC_PROGRAM
set -u
cli=$1 static=$2
export PMUSCOPE_NO_DAMON=1
fail=0
out=$("$cli" mem --engine software -- "$static" 2>&1)
grep -q "allocations are not tracked: .* is statically linked" <<<"$out" ||
	{ echo "static: no reason line"; echo "$out" | tail -3; fail=1; }
sleep 5 &
sp=$!
out=$("$cli" mem --engine software -p "$sp" --duration 0.5 2>&1)
kill "$sp" 2>/dev/null
grep -q "allocations are not tracked: -p attaches" <<<"$out" ||
	{ echo "-p: no reason line"; echo "$out" | tail -3; fail=1; }
json=$("$cli" mem --engine software --no-alloc --json -- /bin/true 2>/dev/null)
python3 -c 'import json,sys; sys.exit("allocation_sites" in json.load(sys.stdin))' <<<"$json" ||
	{ echo "--no-alloc: section present"; fail=1; }
json=$("$cli" mem --engine software --alloc-rate 4K --alloc-threshold 1M --json -- /bin/true 2>/dev/null)
python3 -c '
import json, sys
a = json.load(sys.stdin)["allocation_sites"]
sys.exit(0 if a["tracked"] and a["rate"] == 4096 and a["threshold"] == 1 << 20 else 1)' <<<"$json" ||
	{ echo "options not in the JSON"; fail=1; }
"$cli" mem --alloc-rate -5 -- /bin/true >/dev/null 2>&1 && { echo "bad --alloc-rate accepted"; fail=1; }
# record -o of a started command: its allocation records go into the file
# (report -i reads them); --no-alloc leaves them out; -p says why not
d=$(mktemp -d)
dyn=$(command -v true)
"$cli" record -e page-faults -o "$d/r.data" -- "$dyn" >/dev/null 2>&1 ||
	{ echo "record -o failed"; fail=1; }
json=$("$cli" report -i "$d/r.data" --json 2>/dev/null)
python3 -c '
import json, sys
a = json.load(sys.stdin).get("allocation_sites")
sys.exit(0 if a and a["tracked"] and a["records"] > 0 and a["rate"] == 32768 else 1)' <<<"$json" ||
	{ echo "record -o: no allocation records in the file"; fail=1; }
"$cli" record -e page-faults --no-alloc -o "$d/n.data" -- "$dyn" >/dev/null 2>&1
json=$("$cli" report -i "$d/n.data" --json 2>/dev/null)
python3 -c 'import json,sys; sys.exit("allocation_sites" in json.load(sys.stdin))' <<<"$json" ||
	{ echo "record --no-alloc: allocation records in the file"; fail=1; }
sleep 5 &
sp=$!
out=$("$cli" record -e page-faults -o "$d/p.data" -p "$sp" --duration 0.3 2>&1)
kill "$sp" 2>/dev/null
grep -q "allocations are not tracked: -p attaches" <<<"$out" ||
	{ echo "record -p: no reason line"; echo "$out" | tail -3; fail=1; }
rm -rf "$d"
exit $fail
