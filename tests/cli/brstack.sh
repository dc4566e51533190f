#!/usr/bin/env bash
# Branch stacks decoded from real files against perf script -F brstack:
#  - AMD Zen 4 (Genoa) branch-stack samples (quipper's perf.data.branch_stack_spec)
#  - Intel LBR samples (perfparser's perf.lbr.data, a Qt qCompress blob)
# Every sample's line must be byte-identical; --json gives the same count;
# `pmuscope report` counts the last branch of each sample as perf shows it.
# $1 = pmuscope.  Needs PMS_SHARED_DATA and perf.
set -u
cli=${1:?usage: brstack.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
data=${PMS_SHARED_DATA:-}
command -v perf >/dev/null || { echo "no perf"; exit 77; }
zen4=$data/perf_data_converter/src/quipper/testdata/perf.data.branch_stack_spec
lbr=$data/kdab-perfparser/tests/auto/perfdata/vector_static_gcc/perf.lbr.data.zlib
[ -f "$zen4" ] || { echo "no $zen4 (PMS_SHARED_DATA)"; exit 77; }
files=("$zen4")
if [ -f "$lbr" ] && python3 -c '
import sys, zlib
d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(zlib.decompress(d[4:]))' "$lbr" "$tmp/lbr.data" 2>/dev/null; then
  files+=("$tmp/lbr.data")
fi
checked=0
for f in "${files[@]}"; do
  perf script -i "$f" -F brstack >"$tmp/perf.txt" 2>/dev/null || { echo "perf cannot read $f"; continue; }
  "$cli" script -i "$f" -F brstack >"$tmp/ours.txt" 2>"$tmp/err" || { bad "script -F brstack $f"; cat "$tmp/err"; continue; }
  if cmp -s "$tmp/perf.txt" "$tmp/ours.txt"; then
    checked=$((checked + 1))
  else
    bad "brstack of $f differs from perf script"; diff "$tmp/perf.txt" "$tmp/ours.txt" | head -4 | cut -c1-300
  fi
  n=$(grep -c . "$tmp/perf.txt")
  "$cli" script -i "$f" -F brstack --json >"$tmp/ours.json" 2>/dev/null || bad "script --json $f"
  python3 - "$tmp/ours.json" "$tmp/perf.txt" <<'PY' || bad "brstack JSON of $f"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
perf = [l.split() for l in open(sys.argv[2])]  # one line a sample, empty without branches
assert len(rows) == len(perf), (len(rows), len(perf))
for r, p in zip(rows, perf):
    assert len(r["brstack"]) == len(p)
    for b, t in zip(r["brstack"], p):
        fr, to = t.split("/")[:2]
        assert int(b["from"], 16) == int(fr, 16) and int(b["to"], 16) == int(to, 16)
PY
  # pmuscope report: the last branch of each sample (entry 0) counted as
  # perf script shows them
  "$cli" report --json --top 100000 -i "$f" >"$tmp/rep.json" 2>/dev/null || bad "report $f"
  python3 - "$tmp/rep.json" "$tmp/perf.txt" <<'PY' || bad "report's last branches of $f"
import collections, json, sys
cp = json.load(open(sys.argv[1]))["callpaths"]
want = collections.Counter()
for l in open(sys.argv[2]):
    t = l.split()
    if t:
        fr, to = t[0].split("/")[:2]
        want[(int(fr, 16), int(to, 16))] += 1
got = collections.Counter({(int(b["from"], 16), int(b["to"], 16)): b["samples"]
                           for b in cp["last_branch_by_samples"]})
assert cp["with_branches"] == sum(want.values()), (cp["with_branches"], sum(want.values()))
assert got == want, (got.most_common(3), want.most_common(3))
PY
done
[ $checked -gt 0 ] || { echo "no file checked"; [ $fail -eq 0 ] && exit 77; }
echo "brstack: $checked file(s) identical to perf script"
exit $fail
