#!/usr/bin/env bash
# The pprof labels of one run, live and from its file (issue 27/29): mem's
# live --pprof and report --pprof of the run's -o file carry the same label
# keys (the host label aside: a file's report names its recorded host, a
# live run none) and the same samples per allocation site (alloc_site),
# without and with --types (then also alloc_type, type and member).  Both
# go through pms_render_session_pprof; before it, report labelled sites only
# with --types.  A program allocating two malloc blocks and writing each on
# fresh pages (software engine: each write faults at its instruction).
# Live-only keys (docs/export.md): mem_node and remote (the live NUMA
# oracle asks the process; a file has nodes only from PHYS_ADDR, which
# page-fault samples lack) and host (a file's report names its recorded
# host, a live run none).
#   pprof_labels.sh PMUSCOPE
set -u
pms=${1:?usage: pprof_labels.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PMUSCOPE_NO_DAMON=1
# meson test sets MALLOC_PERTURB_: malloc would fill the blocks first
unset MALLOC_PERTURB_
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
command -v go >/dev/null || { echo "SKIP: no go (go tool pprof reads the profiles)"; exit 77; }

cat >"$tmp/s.c" <<'C'
#include <stdlib.h>
struct cell { long key; int hits[6]; double w; };
struct pair { int a; int b; long c[4]; };
__attribute__((noinline)) void put_cell(struct cell *c, int i) { c->w = i * 0.5; }
__attribute__((noinline)) void put_pair(struct pair *p, int i) { p->b = i; }
int main(void)
{
	char *cells = malloc(40 * 4096);
	char *pairs = malloc(20 * 4096);
	if (!cells || !pairs)
		return 1;
	for (int i = 1; i < 40; i++)
		put_cell((struct cell *)(cells + (size_t)i * 4096), i);
	for (int i = 1; i < 20; i++)
		put_pair((struct pair *)(pairs + (size_t)i * 4096), i);
	return cells[8] + pairs[8] == 99;
}
C
gcc -O0 -g -fno-pie -no-pie -o "$tmp/s" "$tmp/s.c" || { echo "FAIL: compile"; exit 1; }

for t in plain types; do
	opt=()
	[ $t = types ] && opt=(--types)
	"$pms" mem --engine software -c 1 "${opt[@]}" -o "$tmp/$t.data" --pprof "$tmp/$t.m.pb.gz" \
		-- "$tmp/s" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -qi "permission\|not permitted\|perf_event_open" "$tmp/err"; then
		echo "SKIP: mem could not sample here: $(tail -2 "$tmp/err")"; exit 77
	fi
	[ $rc -eq 0 ] || { echo "FAIL: mem ${opt[*]} --pprof: exit $rc"; tail -5 "$tmp/err"; fail=1; continue; }
	"$pms" report -i "$tmp/$t.data" "${opt[@]}" --pprof "$tmp/$t.r.pb.gz" >/dev/null 2>"$tmp/err" ||
		{ echo "FAIL: report ${opt[*]} --pprof"; tail -5 "$tmp/err"; fail=1; continue; }
	for w in m r; do
		go tool pprof -tags "$tmp/$t.$w.pb.gz" >"$tmp/$t.$w.tags" 2>"$tmp/err" ||
			{ echo "FAIL: go tool pprof -tags $t.$w.pb.gz"; cat "$tmp/err"; fail=1; }
	done
done
[ $fail -eq 0 ] || exit 1

python3 - "$tmp" <<'PY' || fail=1
import re, sys
tmp = sys.argv[1]
def tags(f):
    """go tool pprof -tags: ' key: Total N' then '   n (p%): value' lines"""
    out, key = {}, None
    for ln in open(f).read().splitlines():
        m = re.match(r"\s*(\w+): Total", ln)
        if m:
            key = m.group(1)
            out[key] = {}
            continue
        m = re.match(r"\s*(\d+(?:\.\d+)?) \(\s*[\d.]+%\): (.*)$", ln)
        if key and m:
            out[key][m.group(2).strip()] = int(float(m.group(1)))
    return out
bad = []
for t, need in (("plain", {"alloc_site"}), ("types", {"alloc_site", "alloc_type", "type", "member"})):
    m, r = tags("%s/%s.m.tags" % (tmp, t)), tags("%s/%s.r.tags" % (tmp, t))
    live_only = {"host", "mem_node", "remote"}
    km, kr = set(m) - live_only, set(r) - live_only
    print("%s: mem's keys %s; report's %s" % (t, sorted(km), sorted(kr)))
    if km != kr:
        bad.append("%s: label keys differ: mem only %s, report only %s" % (t, sorted(km - kr), sorted(kr - km)))
    if not need <= km:
        bad.append("%s: mem's profile lacks %s" % (t, sorted(need - km)))
    if not need <= kr:
        bad.append("%s: report's profile lacks %s" % (t, sorted(need - kr)))
    for k in ("alloc_site", "alloc_type"):
        if k in m and m.get(k) != r.get(k):
            bad.append("%s: %s samples differ: mem %s, report %s" % (t, k, m.get(k), r.get(k)))
    if len(m.get("alloc_site", {})) < 2:
        bad.append("%s: the two malloc sites are not both labelled: %s" % (t, m.get("alloc_site")))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo "PASS: report's pprof of the -o file carries mem's live labels (alloc_site; with --types alloc_type, type, member)"
exit $fail
