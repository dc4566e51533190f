#!/usr/bin/env bash
# The data type per allocation site (issue 29): pmuscope mem --types with
# allocation tracking (software engine, a live run) names the type of over
# half of a site's typed samples and its hot member.  Three malloc sites:
# one written only as struct cell (member w), one only as struct pair
# (member b), one written half as each (no dominant type: "mixed", JSON
# "type": null).  Without --types the sites carry no type fields.
#   alloc_site_types.sh PMUSCOPE
set -u
pms=${1:?usage: alloc_site_types.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap "rm -rf $tmp" EXIT
export PMUSCOPE_NO_DAMON=1
# meson test sets MALLOC_PERTURB_: malloc would fill the blocks first, and
# the writes would fault nowhere
unset MALLOC_PERTURB_
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }

cat >"$tmp/s.c" <<'C'
#include <stdlib.h>
struct cell { long key; int hits[6]; struct cell *next; double w; };
struct pair { int a; int b; long c[4]; };
/* each write on a fresh page: it faults at the writing instruction */
__attribute__((noinline)) void put_cell(struct cell *c, int i) { c->w = i * 0.5; }
__attribute__((noinline)) void put_pair(struct pair *p, int i) { p->b = i; }
__attribute__((noinline)) void *get(size_t n) { return malloc(n); }
int main(void)
{
	char *cells = malloc(48 * 4096); /* site: cells */
	char *pairs = malloc(24 * 4096); /* site: pairs */
	char *mixed = get(32 * 4096);    /* site: mixed */
	if (!cells || !pairs || !mixed)
		return 1;
	for (int i = 1; i < 48; i++)
		put_cell((struct cell *)(cells + (size_t)i * 4096), i);
	for (int i = 1; i < 24; i++)
		put_pair((struct pair *)(pairs + (size_t)i * 4096), i);
	/* pages 2..31 (the first holds malloc's header): 15 of each */
	for (int i = 2; i < 32; i++) {
		if (i % 2)
			put_pair((struct pair *)(mixed + (size_t)i * 4096), i);
		else
			put_cell((struct cell *)(mixed + (size_t)i * 4096), i);
	}
	return cells[8] + pairs[8] + mixed[8] == 99;
}
C
gcc -O0 -g -fno-pie -no-pie -o "$tmp/s" "$tmp/s.c" || { echo "FAIL: compile"; exit 1; }
line() { grep -n "/\* site: $1 \*/" "$tmp/s.c" | cut -d: -f1; }
export L_CELLS=$(line cells) L_PAIRS=$(line pairs) L_MIXED=$(line mixed)

"$pms" mem --engine software -c 1 --types --json -o "$tmp/s.data" --html "$tmp/m.html" \
	--pprof "$tmp/m.pb.gz" -- "$tmp/s" >"$tmp/t.json" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -qi "permission\|not permitted\|perf_event_open" "$tmp/err"; then
	echo "SKIP: mem could not sample here: $(tail -2 "$tmp/err")"; exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: mem --types --json exit $rc"; tail -5 "$tmp/err"; fail=1; }
"$pms" mem --engine software -c 1 --types -- "$tmp/s" 2>"$tmp/t.txt" >/dev/null ||
	{ echo "FAIL: mem --types (text)"; fail=1; }
"$pms" mem --engine software -c 1 --json -- "$tmp/s" >"$tmp/n.json" 2>"$tmp/err" ||
	{ echo "FAIL: mem --json"; fail=1; }
python3 - "$tmp/t.json" "$tmp/n.json" "$tmp/t.txt" <<'PY' || fail=1
import json, os, sys
t = json.load(open(sys.argv[1]))["allocation_sites"]
n = json.load(open(sys.argv[2]))["allocation_sites"]
txt = open(sys.argv[3]).read()
bad = []
def site(line, func):
    for s in t["sites"]:
        for f in s["call_path"]:
            if (f.get("file") or "").endswith("s.c") and f.get("line") == line and f.get("function") == func:
                return s
    return None
want = {"cells": ("main", "struct cell", "w", 40), "pairs": ("main", "struct pair", "b", 20),
        "mixed": ("main", None, None, 24)}
for k, (func, ty, mem, least) in want.items():
    s = site(int(os.environ["L_" + k.upper()]), func)
    if s is None:
        bad.append("no site at s.c:%s (%s); sites %s" % (os.environ["L_" + k.upper()], k,
                   [[(f.get("function"), f.get("line")) for f in x["call_path"]] for x in t["sites"]]))
        continue
    typ = s.get("type")
    print("%-6s samples %3d typed %3d type %s" % (k, s["samples"], s["typed_samples"], typ))
    if s["typed_samples"] < least or s["typed_samples"] > s["samples"]:
        bad.append("%s: typed %d of %d samples, want at least %d" % (k, s["typed_samples"], s["samples"], least))
    if ty is None:
        if typ is not None:
            bad.append("%s: half and half, yet type %s" % (k, typ))
        continue
    if not typ or typ["name"] != ty or typ["member"] != mem:
        bad.append("%s: type %s, want %s (%s)" % (k, typ, ty, mem))
    elif not (typ["samples"] == typ["member_samples"] == s["typed_samples"]):
        bad.append("%s: type samples %d member %d typed %d, want all equal" %
                   (k, typ["samples"], typ["member_samples"], s["typed_samples"]))
for s in n["sites"]:
    if "type" in s or "typed_samples" in s:
        bad.append("without --types a site has type fields: %s" % s); break
# the text column
if "type (member) share" not in txt:
    bad.append("text: no type column")
for frag in ("struct cell (w) 100%", "struct pair (b) 100%", "mixed "):
    if frag not in txt:
        bad.append("text: no %r in the sites table" % frag)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# The exports: the HTML page's sites table (its type column) and the pprof
# label alloc_type, of the live run (m) and of report --types on its -o file
# (r), each against the sites of the page's own JSON; report's sites name
# the same types as the live run's
"$pms" report --types -i "$tmp/s.data" --html "$tmp/r.html" --pprof "$tmp/r.pb.gz" \
	>"$tmp/r.txt" 2>"$tmp/err" || { echo "FAIL: report --types --html --pprof"; tail -5 "$tmp/err"; fail=1; }
"$pms" report --types -i "$tmp/s.data" >"$tmp/r0.txt" 2>/dev/null
cmp -s "$tmp/r.txt" "$tmp/r0.txt" || { echo "FAIL: report --types prints otherwise with --html/--pprof"; fail=1; }
chrome=$(command -v chromium || command -v chromium-browser || true)
for run in m r; do
	if command -v go >/dev/null; then
		go tool pprof -tags "$tmp/$run.pb.gz" >"$tmp/$run.tags" 2>"$tmp/err3" ||
			{ echo "FAIL: go tool pprof -tags $run.pb.gz"; cat "$tmp/err3"; fail=1; }
	fi
	if [ -n "$chrome" ]; then
		nonet=""; unshare -n true 2>/dev/null && nonet="unshare -n"
		# shellcheck disable=SC2086
		timeout 240 $nonet "$chrome" --headless --no-sandbox --disable-gpu \
			--disable-background-networking --disable-component-update --disable-sync \
			--no-first-run --user-data-dir="$tmp/ud" --enable-logging=stderr --v=0 \
			--dump-dom "file://$tmp/$run.html" >"$tmp/$run.dom" 2>"$tmp/dom.err" </dev/null ||
			{ echo "FAIL: chromium $run.html"; fail=1; }
	fi
done
[ -n "$chrome" ] || echo "chromium is not installed: the page's sites table not checked"
command -v go >/dev/null || echo "go is not installed: the alloc_type labels not checked"
python3 - "$tmp" <<'PY' || fail=1
import html, json, os, re, sys
tmp = sys.argv[1]
bad = []
def page_json(f):
    m = re.search(r'<script type="application/json" id="pms-report">\s*(.*?)</script>',
                  open(f).read(), re.S)
    return json.loads(m.group(1))["allocation_sites"]
def frame_text(f):
    file = "%s:%d" % (os.path.basename(f["file"]), f["line"]) if f.get("file") else None
    return (f.get("function") or f["ip"]) + (" (%s)" % file if file else "")
def where(s):
    path = s.get("call_path") or []
    top = ([f for f in path if f.get("file")] or path or [None])[0]
    return frame_text(top) if top else "[%s]" % s["kind"]
def type_text(s):
    t = s.get("type")
    if not t:
        return "mixed" if s["typed_samples"] else "-"
    return "%s (%s) %.0f%%" % (t["name"], t["member"] or "whole",
                               100.0 * t["samples"] / s["typed_samples"])
def counts(tags, key):
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
def by_line(sites):
    out = {}
    for s in sites:
        for f in s["call_path"]:
            if (f.get("file") or "").endswith("s.c") and f.get("function") == "main":
                out[f["line"]] = (s["type"] or {}).get("name"), (s["type"] or {}).get("member")
    return out
lines = {}
for run in ("m", "r"):
    AS = page_json(os.path.join(tmp, run + ".html"))
    sites = AS["sites"]
    if not sites or any("typed_samples" not in s for s in sites):
        bad.append("%s: the page's sites carry no types" % run)
        continue
    lines[run] = by_line(sites)
    dom = os.path.join(tmp, run + ".dom")
    if os.path.exists(dom):
        d = open(dom).read()
        m = re.search(r'<pre id="pms-check"[^>]*>(.*?)</pre>', d, re.S)
        st = re.search(r'<pre id="pms-status"[^>]*>(.*?)</pre>', d, re.S)
        if not m or not st or html.unescape(st.group(1)) != "rendered":
            bad.append("%s.html: not rendered" % run)
        else:
            chk = json.loads(html.unescape(m.group(1)))
            want = {"%s %d" % (where(s), s["samples"]): type_text(s) for s in sites}
            if chk.get("alloc_types") != want:
                bad.append("%s.html: sites' types %s != json %s" % (run, chk.get("alloc_types"), want))
            else:
                print("%s.html: %d sites typed as the JSON" % (run, len(want)))
    tf = os.path.join(tmp, run + ".tags")
    if os.path.exists(tf):
        got = counts(open(tf).read(), "alloc_type")
        want = {}
        for s in sites:
            if s.get("type"):
                want[s["type"]["name"]] = want.get(s["type"]["name"], 0) + s["samples"]
        if got != want or not want:
            bad.append("%s.pb.gz: alloc_type labels %s != sites %s" % (run, got, want))
        else:
            print("%s.pb.gz: alloc_type %s" % (run, got))
# the typed sites as the text/JSON above (cells, pairs; mixed untyped), in both
for run, ls in lines.items():
    for k, ty in (("CELLS", ("struct cell", "w")), ("PAIRS", ("struct pair", "b")), ("MIXED", (None, None))):
        got = ls.get(int(os.environ["L_" + k]))
        if got != ty:
            bad.append("%s: site %s type %s, want %s" % (run, k.lower(), got, ty))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo "PASS: allocation sites name their dominant type and hot member (text, JSON, HTML, pprof; mem and report)"
exit $fail
