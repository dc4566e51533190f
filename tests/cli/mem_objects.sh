#!/usr/bin/env bash
# Data objects named truly on a real `mem -- CMD` run (issue 28): a global
# by its symbol, data no symbol covers by its section, the objects table's
# column headers, JSON's kind and section.  $1 = pmuscope, $2 = the workload
# (tests/cli/objnames_prog.c).
set -u
cli=${1:?usage: mem_objects.sh PMUSCOPE PROG}
prog=${2:?usage: mem_objects.sh PMUSCOPE PROG}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
export PMUSCOPE_NO_DAMON=1

# the text report of a COMMAND is on stderr (its stdout is the command's)
if ! "$cli" mem --top 40 -- "$prog" >/dev/null 2>"$tmp/out"; then
  if grep -q "no sampling engine" "$tmp/out"; then echo "SKIP: $(cat "$tmp/out")"; exit 77; fi
  bad "mem exit status"; cat "$tmp/out"
fi
sed -n '/^top data objects/,$p' "$tmp/out" >"$tmp/objs"
grep -qE '^ +samples +% +remote +kind +start +size +nodes +object$' "$tmp/objs" \
  || { bad "objects table header"; cat "$tmp/objs"; }
grep -qE '^ +level +samples +%$' "$tmp/out" || bad "data source levels header"
# the 4 MiB global: its 1024 pages, by its name, kind global, in .bss,
# resident (read at the held exit) on this one-node machine's node 0
grep -qE '^ +[0-9]+ .* global +0x[0-9a-f]+ +4\.0 MiB  0:10[0-9][0-9]p/10[0-9][0-9]s.* pms_objnames_table  \(objnames_prog \.bss\)' \
  "$tmp/objs" || { bad "the global by name"; cat "$tmp/objs"; }
# the symbol-less data: its section, never a neighbour's name
grep -qE ' segment .* objnames_prog pms_nosym$' "$tmp/objs" \
  || { bad "symbol-less data by its section"; cat "$tmp/objs"; }
grep -q '__start_pms_nosym\|pms_objnames_blob' "$tmp/objs" && bad "a sizeless symbol named data"

"$cli" mem --quiet --json --top 40 -- "$prog" >"$tmp/json" 2>"$tmp/err" || bad "json exit status"
python3 - "$tmp/json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
objs = d["top"]["data_objects"]
g = [o for o in objs if o["name"] == "pms_objnames_table"]
assert g and g[0]["kind"] == "global" and g[0]["section"] == ".bss" and g[0]["size"] == 4 << 20, g
assert g[0]["samples"] >= 1000, g
s = [o for o in objs if o["kind"] == "segment" and o["section"] == "pms_nosym"]
assert s and s[0]["samples"] >= 8, objs
assert all("section" in o for o in objs)
n = {x["node"]: x for x in g[0]["nodes"]}
assert g[0]["resident_read"] and n[0]["pages"] >= 1024 and n[0]["samples"] >= 1000, g
PY

# from a file: the aggregate report (the default) names whole mappings by
# their sections (the .bss tail included); with kept samples (--samples) the
# same objects as live; residency was not recorded, and it says so
# (--no-alloc: a tracked run's file keeps the samples for its allocation
# sites, and then names the objects as live, checked below)
"$cli" mem --quiet --no-alloc -o "$tmp/n.data" -- "$prog" >/dev/null 2>"$tmp/err" || bad "mem -o exit status"
"$cli" report -i "$tmp/n.data" --top 40 >"$tmp/rep" 2>"$tmp/err" || bad "report exit status"
grep -q "residency not recorded in a file" "$tmp/rep" || { bad "file: residency line"; cat "$tmp/rep"; }
grep -qE ' 4\.0 MiB .* objnames_prog \.bss$' "$tmp/rep" || { bad "file: the .bss mapping"; cat "$tmp/rep"; }
"$cli" mem --quiet -o "$tmp/o.data" -- "$prog" >/dev/null 2>"$tmp/err" || bad "mem -o exit status"
"$cli" report -i "$tmp/o.data" --top 40 >"$tmp/rep" 2>"$tmp/err" || bad "report exit status"
grep -qE ' global .* pms_objnames_table  \(objnames_prog \.bss\)$' "$tmp/rep" \
  || { bad "tracked file: the global, as live"; cat "$tmp/rep"; }
"$cli" report --json --samples -i "$tmp/o.data" --top 40 >"$tmp/rep.json" 2>"$tmp/err" \
  || bad "report --json --samples exit status"
python3 - "$tmp/rep.json" <<'PY' || fail=1
import json, sys
objs = json.load(open(sys.argv[1]))["top"]["data_objects"]
g = [o for o in objs if o["name"] == "pms_objnames_table"]
assert g and g[0]["kind"] == "global" and g[0]["section"] == ".bss" and g[0]["samples"] >= 1000, objs
assert not g[0]["resident_read"] and g[0]["pages_absent"] is None, g
assert [o for o in objs if o["kind"] == "segment" and o["section"] == "pms_nosym"], objs
PY
exit $fail
