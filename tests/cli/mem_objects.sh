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

if ! "$cli" mem --top 40 -- "$prog" >"$tmp/out" 2>"$tmp/err"; then
  if grep -q "no sampling engine" "$tmp/err"; then echo "SKIP: $(cat "$tmp/err")"; exit 77; fi
  bad "mem exit status"; cat "$tmp/err"
fi
sed -n '/^top data objects/,$p' "$tmp/out" >"$tmp/objs"
grep -qE '^ +samples +% +remote +kind +start +size +object$' "$tmp/objs" \
  || { bad "objects table header"; cat "$tmp/objs"; }
grep -qE '^ +level +samples +%$' "$tmp/out" || bad "data source levels header"
# the 4 MiB global: its 1024 pages, by its name, kind global, in .bss
grep -qE '^ +[0-9]+ .* global +0x[0-9a-f]+ +4\.0 MiB  pms_objnames_table  \(objnames_prog \.bss\)' \
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
PY
exit $fail
