#!/usr/bin/env bash
# Inline frames of DWARF call paths in mem -g and report's call paths and
# exports (issue 30 items 1, 4), perf 6.12 and go tool pprof as oracles, on
# a workload whose page faults are taken in leaf < mid < top, all inlined
# into outer (inline_touch_workload.c):
#  1. mem --call-graph dwarf -o F --folded-to L (live) and report -i F
#     --folded give the same stacks, with outer;top;mid;leaf; --no-inline
#     the same on both, without them;
#  2. report -i F --folded is perf report -i F --no-children -g
#     folded,0,caller,count (perf's " (inlined)" taken out) for every chain
#     of a user leaf, with and without --no-inline on both sides;
#  3. --pprof: go tool pprof -traces shows the --folded stacks with leaf,
#     mid and top "(inline)" (pprof's form: one Location, a Line per
#     function, innermost first: -raw); its addresses are perf script
#     --no-inline's (export_check.py stacks); --no-inline: no "(inline)";
#  4. report --json: the top path's frames leaf, mid, top ("inlined") and
#     outer; the text marks them "(inlined)"; --html holds the frames.
# $1 = pmuscope, $2 = the workload, $3 = export_check.py.
set -u
pms=${1:?usage: export_inline.sh PMUSCOPE WORKLOAD CHECK}
prog=${2:?usage: export_inline.sh PMUSCOPE WORKLOAD CHECK}
check=${3:?usage: export_inline.sh PMUSCOPE WORKLOAD CHECK}
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d); [ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT; echo "tmp $tmp"
# perf's addr2line given time on a loaded host (script_inline.sh)
printf '[core]\n\taddr2line-timeout = 120000\n' >"$tmp/perfconfig"
export HOME=$tmp PERF_CONFIG=$tmp/perfconfig PMUSCOPE_NO_DAMON=1

# 1. live and recorded
if ! "$pms" mem --call-graph dwarf --no-alloc --engine software --period 4 --quiet \
     --folded-to "$tmp/live.folded" -o "$tmp/f.data" -- "$prog" 3000 >/dev/null 2>"$tmp/err"; then
  grep -q "no sampling engine\|EACCES\|EPERM" "$tmp/err" && { echo "SKIP: no software sampling: $(head -2 "$tmp/err")"; exit 77; }
  bad "mem --call-graph dwarf: $(head -3 "$tmp/err")"; exit 1
fi
"$pms" mem --call-graph dwarf --no-inline --no-alloc --engine software --period 4 --quiet \
  --folded-to "$tmp/live.noinl.folded" -o "$tmp/n.data" -- "$prog" 3000 >/dev/null 2>"$tmp/err" \
  || bad "mem --no-inline: $(head -3 "$tmp/err")"
"$pms" report -i "$tmp/f.data" --folded >"$tmp/file.folded" 2>"$tmp/err" || bad "report --folded: $(head -2 "$tmp/err")"
"$pms" report -i "$tmp/n.data" --no-inline --folded >"$tmp/file.noinl.folded" 2>/dev/null || bad "report --no-inline --folded"
cmp -s "$tmp/live.folded" "$tmp/file.folded" || { bad "mem -g --folded-to differs from report -i of its -o file"; diff "$tmp/live.folded" "$tmp/file.folded" | head -6; }
cmp -s "$tmp/live.noinl.folded" "$tmp/file.noinl.folded" || { bad "--no-inline: mem -g and report -i differ"; diff "$tmp/live.noinl.folded" "$tmp/file.noinl.folded" | head -6; }
main=$(grep -E '(^|;)main;outer;top;mid;leaf [0-9]+$' "$tmp/file.folded" | awk '{print $NF}')
echo "live = file: $(wc -l <"$tmp/file.folded") stacks, main;outer;top;mid;leaf ${main:-none}"
[ "${main:-0}" -gt 0 ] || bad "no main;outer;top;mid;leaf stack in --folded"
grep -qE ';(leaf|mid|top)( |;)' "$tmp/file.noinl.folded" && bad "--no-inline --folded names an inlined function"
grep -qE '(^|;)main;outer [0-9]+$' "$tmp/file.noinl.folded" || bad "--no-inline: no main;outer stack"

# 2. against perf report -g folded on the same file.  perf unwinds a file
# it did not record only with its modules in its build-id cache (this
# $HOME's is empty): added as perf record adds them
for x in f n; do
  perf buildid-list -i "$tmp/$x.data" 2>/dev/null | awk '$2 ~ /^\// {print $2}'
done | sort -u | while read -r m; do perf buildid-cache -a "$m" >/dev/null 2>&1; done
cmpfold() { # FOLDED PERF-REPORT-OUTPUT
  python3 - "$1" "$2" <<'PY'
import collections, re, sys
ours = collections.Counter()
for l in open(sys.argv[1]):
    s, n = l.rstrip("\n").rsplit(" ", 1)
    if "[kernel]" not in s:   # kernel frames of a file stay unnamed here
        ours[s] += int(n)
perf, user = collections.Counter(), False
for l in open(sys.argv[2]):
    if l.startswith("#") or not l.strip():
        continue
    m = re.match(r"^\s+[0-9.]+%\s+\[(.)\]", l)
    if m:
        user = m.group(1) == "."
        continue
    n, s = l.strip().split(" ", 1)
    if user:
        perf[s.replace(" (inlined)", "")] += int(n)
same = sum((ours & perf).values())
tot = max(sum(ours.values()), sum(perf.values()))
print("  %d of %d samples' stacks equal (perf %d, pmuscope %d)" % (same, tot, sum(perf.values()), sum(ours.values())))
for k in list((ours - perf) + (perf - ours))[:4]:
    print("  differs: %r pmuscope %d perf %d" % (k, ours[k], perf[k]))
# perf prints no chain for a sample whose unwind gave nothing: 1 %
sys.exit(0 if tot and tot - same <= max(2, tot // 100) else 1)
PY
}
perf report -i "$tmp/f.data" --stdio --no-children -g folded,0,caller,count --sort sym >"$tmp/p.rep" 2>/dev/null
cmpfold "$tmp/file.folded" "$tmp/p.rep" || bad "--folded differs from perf report -g folded"
perf report -i "$tmp/n.data" --no-inline --stdio --no-children -g folded,0,caller,count --sort sym >"$tmp/pn.rep" 2>/dev/null
cmpfold "$tmp/file.noinl.folded" "$tmp/pn.rep" || bad "--no-inline --folded differs from perf report --no-inline -g folded"

# 3. pprof
if command -v go >/dev/null; then
  "$pms" report -i "$tmp/f.data" --pprof "$tmp/f.pb.gz" --json --top 100000 >"$tmp/f.json" 2>/dev/null || bad "report --pprof"
  "$pms" report -i "$tmp/n.data" --no-inline --pprof "$tmp/n.pb.gz" >/dev/null 2>&1 || bad "report --no-inline --pprof"
  for x in f n; do
    go tool pprof -traces "$tmp/$x.pb.gz" >"$tmp/$x.traces" 2>"$tmp/err" || bad "go tool pprof -traces: $(head -2 "$tmp/err")"
    go tool pprof -raw "$tmp/$x.pb.gz" >"$tmp/$x.raw" 2>"$tmp/err" || bad "go tool pprof -raw: $(head -2 "$tmp/err")"
  done
  python3 - "$tmp/f.traces" "$tmp/file.folded" "$tmp/f.raw" <<'PY' || bad "pprof -traces are not the --folded stacks with leaf, mid, top (inline)"
import collections, re, sys
got, marks = collections.Counter(), collections.Counter()
for block in open(sys.argv[1]).read().split("-----------+")[1:]:
    frames, count = [], None
    for line in block.splitlines()[1:]:
        m = re.match(r"^\s*([0-9.]+)\s{3}(.*)$", line)
        if count is None and m and not line.rstrip().endswith(":"):
            count = int(float(m.group(1)))
            frames.append(m.group(2).strip())
        elif count is not None and line.startswith("             "):
            frames.append(line.strip())
    if count is None:
        continue
    names = [f[:-len(" (inline)")] if f.endswith(" (inline)") else f for f in frames]
    got[";".join(reversed(names))] += count
    if names[:4] == ["leaf", "mid", "top", "outer"]:
        marks[tuple(f.endswith(" (inline)") for f in frames[:4])] += count
want = collections.Counter()
for l in open(sys.argv[2]):
    s, n = l.rstrip("\n").rsplit(" ", 1)
    want[s] += int(n)
raw = open(sys.argv[3]).read().split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
# a location of four lines: leaf, mid, top (inlined), outer
four = re.search(r"^\s+\d+: 0x[0-9a-f]+ (?:M=\d+ )?leaf \S+ s=\d+\n\s+mid \S+ s=\d+\n\s+top \S+ s=\d+\n\s+outer \S+ s=\d+$", raw, re.M)
print("pprof: %d stacks as --folded's %d; leaf/mid/top/outer inline marks %s; a 4-line location: %s"
      % (len(got), len(want), dict(marks), bool(four)))
ok = got == want and marks and set(marks) == {(True, True, True, False)} and four
sys.exit(0 if ok else 1)
PY
  grep -q '(inline)' "$tmp/n.traces" && bad "--no-inline pprof has inline lines"
  perf script -i "$tmp/f.data" -F tid,ip --no-inline >"$tmp/f.perf" 2>/dev/null
  python3 "$check" stacks "$tmp/f.raw" "$tmp/f.perf" dwarf || bad "pprof addresses differ from perf script --no-inline"
else
  echo "go (golang-go) is not installed: pprof not checked"
  "$pms" report -i "$tmp/f.data" --json --top 100000 >"$tmp/f.json" 2>/dev/null || bad "report --json"
fi

# 4. JSON, text and HTML
python3 - "$tmp/f.json" <<'PY' || bad "report --json's top path is not leaf, mid, top (inlined), outer"
import json, sys
p = json.load(open(sys.argv[1]))["callpaths"]["by_samples"][0]["frames"]
got = [(f["func"], f["inlined"]) for f in p[:5]]
print("json top path:", got)
sys.exit(0 if got == [("leaf", True), ("mid", True), ("top", True), ("outer", False), ("main", False)] else 1)
PY
"$pms" report -i "$tmp/f.data" >"$tmp/f.txt" 2>/dev/null
n=$(grep -cE ' (leaf|mid|top)\+0x[0-9a-f]+ .*\(inlined\)$' "$tmp/f.txt")
[ "$n" -ge 3 ] || bad "report text: $n inlined frames marked"
"$pms" report -i "$tmp/n.data" --no-inline >"$tmp/n.txt" 2>/dev/null
grep -q '(inlined)' "$tmp/n.txt" && bad "report --no-inline text has inlined frames"
"$pms" report -i "$tmp/f.data" --html "$tmp/f.html" >/dev/null 2>&1 || bad "report --html"
for f in leaf mid top; do
  grep -q "{\"name\":\"$f\"" "$tmp/f.html" || bad "--html has no frame $f"
done
exit $fail
