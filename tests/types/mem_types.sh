#!/usr/bin/env bash
# pmuscope mem --types (a live run, software engine) prints the same types
# section as report --types on the run's own -o file: text (the section
# after the memory report) and JSON (mem's "types" key vs report --types
# --json), with and without allocation tracking.  The program writes members
# of heap structs on fresh pages, so each write faults at its instruction.
#   mem_types.sh PMUSCOPE
set -u
pms=${1:?usage: mem_types.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap "rm -rf $tmp" EXIT
export PMUSCOPE_NO_DAMON=1
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }

cat >"$tmp/p.c" <<'C'
#include <sys/mman.h>
struct cell { long key; int hits[6]; struct cell *next; double w; };
__attribute__((noinline)) void fill(struct cell *c, int i)
{
	c->hits[i % 6] = i;
	c->w = i * 0.5;
}
int main(void)
{
	/* 64 cells a page apart: every member write faults a fresh page
	 * (mmap, not malloc: MALLOC_PERTURB_, set by meson test, would
	 * touch a malloc'd block first) */
	char *buf = mmap(0, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	for (int i = 0; i < 64; i++)
		fill((struct cell *)(buf + (size_t)i * 4096), i);
	return buf[8] == 7;
}
C
gcc -O0 -g -fno-pie -no-pie -o "$tmp/p" "$tmp/p.c" || { echo "FAIL: compile"; exit 1; }

# text: the section from its first line to the end of mem's report
"$pms" mem --engine software -c 1 --types --no-alloc -o "$tmp/a.data" \
	--report-file "$tmp/live.txt" -- "$tmp/p" 2>"$tmp/err"
rc=$?
if [ ! -s "$tmp/a.data" ]; then
	echo "SKIP: mem could not record here: $(tail -3 "$tmp/err")"; exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: mem --types exit $rc"; cat "$tmp/err"; fail=1; }
sed -n '/^Data types and members:/,$p' "$tmp/live.txt" >"$tmp/live.sec"
"$pms" report --types -i "$tmp/a.data" >"$tmp/file.txt" 2>"$tmp/err2" ||
	{ echo "FAIL: report --types"; cat "$tmp/err2"; fail=1; }
if ! grep -q 'struct cell +0x8 (hits\[' "$tmp/live.sec"; then
	echo "FAIL: the live section names no struct cell hits[] row"; cat "$tmp/live.txt"; fail=1
fi
if ! cmp -s "$tmp/live.sec" "$tmp/file.txt"; then
	echo "FAIL: mem --types text differs from report --types on its -o file"
	diff "$tmp/live.sec" "$tmp/file.txt" | head -40; fail=1
fi

# JSON, allocation tracking on (the default)
"$pms" mem --engine software -c 1 --types --json -o "$tmp/b.data" -- "$tmp/p" \
	>"$tmp/live.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mem --types --json exit $rc"; tail -5 "$tmp/err"; fail=1; }
"$pms" report --types --json -i "$tmp/b.data" >"$tmp/file.json" 2>"$tmp/err2" ||
	{ echo "FAIL: report --types --json"; cat "$tmp/err2"; fail=1; }
python3 - "$tmp/live.json" "$tmp/file.json" <<'PY' || fail=1
import json, sys
live = json.load(open(sys.argv[1]))["types"]
f = json.load(open(sys.argv[2]))
f.pop("pmuscope", None)  # the document's own header (tools/json.c)
if live != f:
    for k in sorted(set(live) | set(f)):
        if live.get(k) != f.get(k):
            print("FAIL: json key %s: live %s file %s" % (k, str(live.get(k))[:300], str(f.get(k))[:300]))
    sys.exit(1)
rows = [r for r in live["members"] if r["type"] == "struct cell"]
if sum(r["samples"] for r in rows) < 64:
    print("FAIL: fewer than 64 struct cell samples: %s" % rows); sys.exit(1)
PY

# the exports: pprof labels "type" and "member" (go tool pprof -tags), and
# the HTML page's types table (headless Chromium, as tests/cli/export.sh)
"$pms" mem --engine software -c 1 --types --json --no-alloc -o "$tmp/c.data" \
	--pprof "$tmp/c.pb.gz" --html "$tmp/c.html" -- "$tmp/p" >"$tmp/c.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mem --types --pprof --html exit $rc"; tail -5 "$tmp/err"; fail=1; }
# report --types --pprof --html on the run's file: the same exports (mem's
# code path), its stdout what report --types alone prints
"$pms" report --types --json -i "$tmp/c.data" --pprof "$tmp/r.pb.gz" --html "$tmp/r.html" \
	>"$tmp/r.json" 2>"$tmp/err" || { echo "FAIL: report --types --pprof --html"; tail -5 "$tmp/err"; fail=1; }
"$pms" report --types --json -i "$tmp/c.data" >"$tmp/r0.json" 2>/dev/null
python3 - "$tmp/r.json" "$tmp/r0.json" "$tmp/c.json" <<'PY' || fail=1
import json, sys
r, r0 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
live = json.load(open(sys.argv[3]))["types"]
for d in (r, r0):
    d.pop("pmuscope", None)
bad = []
if r != r0:
    bad.append("report --types --json differs with --pprof/--html")
if r != live:
    bad.append("report --types --json differs from the mem run's types")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
# the file's JSON (types key) for the checks below: report's exports are
# checked against the report's own types
python3 -c 'import json,sys; print(json.dumps({"types": json.load(open(sys.argv[1]))}))' \
	"$tmp/r.json" >"$tmp/rw.json"
if command -v go >/dev/null; then
    for run in c r; do
	js=$tmp/$run.json; [ $run = r ] && js=$tmp/rw.json
	go tool pprof -tags "$tmp/$run.pb.gz" >"$tmp/tags" 2>"$tmp/err3" ||
		{ echo "FAIL: go tool pprof -tags $run.pb.gz"; cat "$tmp/err3"; fail=1; }
	python3 - "$js" "$tmp/tags" <<'PY' || { echo "  (in $run.pb.gz)"; fail=1; }
import json, re, sys
j = json.load(open(sys.argv[1]))["types"]
tags = open(sys.argv[2]).read()
# go tool pprof -tags: " type: Total N" then "   n (p%): value" lines
def counts(key):
    out, on = {}, False
    for ln in tags.splitlines():
        m = re.match(r"\s*(\w+): Total", ln)
        if m:
            on = m.group(1) == key
            continue
        m = re.match(r"\s*(\d+(?:\.\d+)?) \(\s*[\d.]+%\): (.*)$", ln)
        if on and m:
            out[m.group(2).strip()] = int(float(m.group(1)))
    return out
ty, mem = counts("type"), counts("member")
want_ty = {}
for r in j["members"]:
    want_ty[r["type"]] = want_ty.get(r["type"], 0) + r["samples"]
bad = []
if ty != want_ty:
    bad.append("type labels %s != --types %s" % (ty, want_ty))
cell = {r["member"] or "(whole)": r["samples"] for r in j["members"] if r["type"] == "struct cell"}
for m, n in cell.items():
    if mem.get(m, 0) < n:
        bad.append("member label %s: %s < %d" % (m, mem.get(m), n))
if not cell:
    bad.append("no struct cell rows")
for b in bad:
    print("FAIL: pprof:", b)
sys.exit(1 if bad else 0)
PY
    done
else
	echo "go is not installed: pprof labels not checked"
fi
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chrome" ]; then
    nonet=""; unshare -n true 2>/dev/null && nonet="unshare -n"
    for run in c r; do
	js=$tmp/$run.json; [ $run = r ] && js=$tmp/rw.json
	# shellcheck disable=SC2086
	timeout 240 $nonet "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/ud" \
		--enable-logging=stderr --v=0 --dump-dom "file://$tmp/$run.html" >"$tmp/dom" 2>"$tmp/dom.err" </dev/null ||
		{ echo "FAIL: chromium"; fail=1; }
	python3 - "$js" "$tmp/dom" <<'PY' || { echo "  (in $run.html)"; fail=1; }
import json, re, sys, html
j = json.load(open(sys.argv[1]))["types"]
dom = open(sys.argv[2]).read()
def el(i):
    m = re.search(r'<pre id="%s"[^>]*>(.*?)</pre>' % i, dom, re.S)
    return html.unescape(m.group(1)) if m else None
bad = []
if el("pms-status") != "rendered":
    bad.append("status %s, errors %s" % (el("pms-status"), el("pms-errors")))
else:
    chk = json.loads(el("pms-check"))
    want = {"%s +0x%x (%s)" % (r["type"], r["offset"], r["member"] or "(whole)"): r["samples"]
            for r in j["members"]}
    if chk.get("types") != want:
        bad.append("types table %s != json %s" % (chk.get("types"), want))
    if chk.get("type_layouts") != [len(l["fields"]) for l in j["layouts"]]:
        bad.append("layouts %s != %s" % (chk.get("type_layouts"), [len(l["fields"]) for l in j["layouts"]]))
for b in bad:
    print("FAIL: html:", b)
sys.exit(1 if bad else 0)
PY
    done
else
	echo "chromium is not installed: the page's types table not checked"
fi

# usage: --types with --csv is refused
"$pms" mem --types --csv -- true >/dev/null 2>&1; r=$?
[ $r -eq 2 ] || { echo "FAIL: --types --csv exit $r, want 2"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: mem --types equals report --types on its -o file (text, JSON, pprof labels, HTML page)"
exit $fail
