#!/usr/bin/env bash
# pmuscope report -i A -i B: one report of both files, equal to the report
# of their concatenated samples (every sample of A then every sample of B,
# as --json --samples lists them), counts that add up, and each file's host
# name on its samples (JSON sources, pprof "host" label).  Files: two live
# `pmuscope mem -o` recordings, and perf's weight_struct file (another host)
# when ../shared/data is there; recordings of this kernel merged with a
# copy of another kernel (their kernel IPs named per file).
set -u
pms=${1:?usage: report_merge.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp

expect() { # name, want, got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want: [$2]"; echo "  got:  [$3]"; fail=1
  fi
}

"$pms" report -i - -i - </dev/null >/dev/null 2>&1; expect "stdin twice" 2 $?
"$pms" mem --size 8M --quiet -o "$tmp/a.data" >/dev/null 2>&1; expect "recording a" 0 $?
"$pms" mem --size 4M --steps 100000 --quiet -o "$tmp/b.data" >/dev/null 2>&1; expect "recording b" 0 $?
data=${PMS_SHARED_DATA:-$(dirname "$0")/../../../shared/data}
ws=$data/perf_data_converter/src/quipper/testdata/perf.data.weight_struct
files=("$tmp/a.data" "$tmp/b.data")
[ -r "$ws" ] && files+=("$ws")

args=()
for f in "${files[@]}"; do
  args+=(-i "$f")
  n=$(basename "$f")
  "$pms" report -i "$f" --json --samples --top 100000 >"$tmp/$n.kept.json" 2>/dev/null
  "$pms" report -i "$f" --json --top 100000 >"$tmp/$n.agg.json" 2>/dev/null
done
"$pms" report "${args[@]}" --json --samples --top 100000 >"$tmp/m.kept.json" 2>"$tmp/err"
expect "merged report (kept) exit" 0 $?
"$pms" report "${args[@]}" --json --top 100000 >"$tmp/m.agg.json" 2>"$tmp/err"
expect "merged report (aggregate) exit" 0 $?
"$pms" report "${args[@]}" >"$tmp/m.txt" 2>&1
grep -q "^merged from: " "$tmp/m.txt" || { echo "FAIL: text says no sources"; head "$tmp/m.txt"; fail=1; }

python3 - "$tmp" "$(hostname)" "${files[@]}" <<'PY' || fail=1
import collections, json, os, sys
tmp, host, files = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = []
def eq(what, want, got):
    if want != got:
        bad.append("%s: want %r, got %r" % (what, want, got))
one = {f: (json.load(open(os.path.join(tmp, os.path.basename(f) + ".kept.json"))),
           json.load(open(os.path.join(tmp, os.path.basename(f) + ".agg.json")))) for f in files}
mk = json.load(open(os.path.join(tmp, "m.kept.json")))
ma = json.load(open(os.path.join(tmp, "m.agg.json")))
# the report of the concatenated samples: the same samples, in file order
eq("sample_list", sum((one[f][0]["sample_list"] for f in files), []), mk["sample_list"])
for name, m, k in (("kept", mk, 0), ("aggregate", ma, 1)):
    def total(get):
        return sum(get(one[f][k]) for f in files)
    eq(name + " total", total(lambda r: r["samples"]["total"]), m["samples"]["total"])
    eq(name + " with_addr", total(lambda r: r["samples"]["with_addr"]), m["samples"]["with_addr"])
    eq(name + " with_data_src", total(lambda r: r["samples"]["with_data_src"]), m["samples"]["with_data_src"])
    eq(name + " latency samples", total(lambda r: r["latency"]["samples"]), m["latency"]["samples"])
    for key in ("resolved", "unresolved", "no_addr", "not_asked", "efault", "enoent"):
        eq(name + " numa " + key, total(lambda r: r["numa"][key]), m["numa"][key])
    lv = collections.Counter()
    for f in files:
        for l in one[f][k]["data_source"]["levels"]:
            lv[l["level"]] += l["samples"]
    eq(name + " levels", dict(lv), {l["level"]: l["samples"] for l in m["data_source"]["levels"]})
    # each file's samples under its host (this machine's for the recordings)
    want = collections.OrderedDict()
    for f in files:
        h = one[f][k]["target"]["files"][0]["host"] or f
        want[h] = want.get(h, 0) + one[f][k]["samples"]["total"]
    eq(name + " sources", [{"host": h, "samples": n} for h, n in want.items()], m["sources"])
    eq(name + " files", [x["target"]["files"][0] for x in (one[f][k] for f in files)], m["target"]["files"])
eq("recording host", host, one[files[0]][0]["target"]["files"][0]["host"])
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# Code is named through each file's mappings: the functions of a recording
# and of perf's file (other binaries) add up.  (One executable at two
# bases, as in two recordings of one program, is named at one of them
# only: the symbolizer keeps one module per file.)  [vdso] functions too:
# the vDSO rule is per file (session.c symbolizer_make), so the recording's
# are named as in its own report and perf's file (another host) leaves its
# own unnamed, as its own report does.  Kernel functions as well: the
# kernel rule is per file too (session_kmods.c sess_kernel_judge), so the recording's
# kernel IPs are named and perf's file's stay "[kernel]".
if [ -r "$ws" ]; then
  "$pms" report -i "$tmp/a.data" -i "$ws" --json --samples --top 100000 >"$tmp/aw.json" 2>/dev/null
  python3 - "$tmp/a.data.kept.json" "$tmp/$(basename "$ws").kept.json" "$tmp/aw.json" <<'PY' || fail=1
import collections, json, sys
a, w, m = (json.load(open(f)) for f in sys.argv[1:4])
def named(r):
    c = collections.Counter()
    for x in r["top"]["functions_by_samples"]:
        c[(x["name"], x["module"])] += x["samples"]
    return c
want, got = named(a) + named(w), named(m)
if want != got or not want:
    print("FAIL: merged functions: want %r, got %r" % (dict(want), dict(got)))
    sys.exit(1)
PY
fi

# A file of this kernel merged with one of another kernel (the same
# recording, its [kernel.kallsyms] build id rewritten): the first's kernel
# IPs are named, the second's stay "[kernel]" at the same addresses, rows
# of their own: functions, instructions and call paths (folded) are the sum
# of each file's own report, kernel rows included, in the table's kept and
# aggregate modes.  Recorded with -g (call paths) and without (n: files
# without paths are decoded in parallel, their tables merged; --jobs below).
"$pms" record -e cpu-clock -F 1000 -g -o "$tmp/k.data" -- \
  dd if=/dev/zero of=/dev/null bs=64k count=40000 >/dev/null 2>&1
expect "recording k" 0 $?
"$pms" record -e cpu-clock -F 1000 -o "$tmp/n.data" -- \
  dd if=/dev/zero of=/dev/null bs=64k count=20000 >/dev/null 2>&1
expect "recording n" 0 $?
for f in k n; do
python3 - "$tmp/$f.data" "$tmp/${f}f.data" <<'PY' || fail=1
import struct, sys
d, o, bid = open("/sys/kernel/notes", "rb").read(), 0, None
while o + 12 <= len(d):
    nsz, dsz, t = struct.unpack_from("<III", d, o)
    o += 12
    name = d[o:o + nsz]
    o += (nsz + 3) & ~3
    if name.rstrip(b"\0") == b"GNU" and t == 3:
        bid = d[o:o + dsz]
    o += (dsz + 3) & ~3
data = open(sys.argv[1], "rb").read()
if not bid or data.count(bid) != 1:
    print("FAIL: the recording lists the running kernel's build id once (%r)" % (bid and data.count(bid)))
    sys.exit(1)
open(sys.argv[2], "wb").write(data.replace(bid, bytes(b ^ 0xff for b in bid)))
PY
done
for f in k kf n nf; do
  "$pms" report -i "$tmp/$f.data" --json --top 100000 >"$tmp/$f.agg.json" 2>/dev/null
  "$pms" report -i "$tmp/$f.data" --json --samples --top 100000 >"$tmp/$f.kept.json" 2>/dev/null
done
"$pms" report -i "$tmp/k.data" --folded >"$tmp/k.folded" 2>/dev/null
"$pms" report -i "$tmp/kf.data" --folded >"$tmp/kf.folded" 2>/dev/null
for f in k n; do
  "$pms" report -i "$tmp/$f.data" -i "$tmp/${f}f.data" --json --top 100000 >"$tmp/${f}m.agg.json" 2>/dev/null
  expect "merged $f ${f}f exit" 0 $?
  "$pms" report -i "$tmp/$f.data" -i "$tmp/${f}f.data" --json --samples --top 100000 \
    >"$tmp/${f}m.kept.json" 2>/dev/null
done
"$pms" report -i "$tmp/k.data" -i "$tmp/kf.data" --folded >"$tmp/km.folded" 2>/dev/null
python3 - "$tmp" <<'PY' || fail=1
import collections, json, sys
t, bad = sys.argv[1], []
def rows(r, key, fields):
    c = collections.Counter()
    for x in r["top"][key]:
        c[tuple(x[f] for f in fields)] += x["samples"]
    return c
def folded(p):
    c = collections.Counter()
    for l in open(p):
        s, n = l.rstrip("\n").rsplit(" ", 1)
        c[s] += int(n)
    return c
own = json.load(open(t + "/k.agg.json"))
named = [x for x in own["top"]["functions_by_samples"] if x["kernel"] and x["name"] != "[kernel]"]
if not named:
    print("note: the recording names no kernel function (kallsyms hidden?): the case says nothing")
    sys.exit(0)
for mode in ("k.agg", "k.kept", "n.agg", "n.kept"):
    f, mode = mode.split(".")
    k, kf, m = (json.load(open("%s/%s.%s.json" % (t, x, mode))) for x in (f, f + "f", f + "m"))
    mode = f + " " + mode
    if not any(x["kernel"] and x["name"] == "[kernel]" for x in kf["top"]["functions_by_samples"]):
        bad.append("%s: the foreign copy's own report names its kernel IPs" % mode)
    for key, fields in (("functions_by_samples", ("name", "module", "kernel")),
                        ("instructions_by_samples", ("name", "addr", "kernel"))):
        want, got = rows(k, key, fields) + rows(kf, key, fields), rows(m, key, fields)
        if want != got:
            bad.append("%s %s: want-got %r got-want %r" % (mode, key, dict(want - got), dict(got - want)))
want, got = folded(t + "/k.folded") + folded(t + "/kf.folded"), folded(t + "/km.folded")
if want != got or not any("[kernel]" in s for s in got):
    bad.append("folded: want-got %r got-want %r" % (dict(want - got), dict(got - want)))
for b in bad:
    print("FAIL: kernel of another file:", b[:2000])
sys.exit(1 if bad else 0)
PY

# Several files are decoded in parallel (--jobs, default the online CPUs),
# one profile each, merged in file order: the report is byte for byte the
# one of --jobs 1, in text and JSON, with and without symbols.  Files: the
# ones above, and, when bench/perfdata_gen is built (the second argument),
# three generated ones of other shapes (several DSOs, random data_src).
gen=${2:-}
pfiles=("${files[@]}" "$tmp/n.data" "$tmp/nf.data")
if [ -n "$gen" ] && [ -x "$gen" ]; then
  "$gen" "$tmp/g1.data" 60000 8 >/dev/null 2>&1; expect "generate g1" 0 $?
  "$gen" "$tmp/g2.data" 40000 4 /usr/lib/x86_64-linux-gnu/libc.so.6:/usr/lib/x86_64-linux-gnu/libm.so.6 20000 \
    >/dev/null 2>&1; expect "generate g2" 0 $?
  "$gen" "$tmp/g3.data" 30000 16 /usr/lib/x86_64-linux-gnu/libc.so.6 0 rand >/dev/null 2>&1
  expect "generate g3" 0 $?
  pfiles+=("$tmp/g1.data" "$tmp/g2.data" "$tmp/g3.data")
else
  echo "note: no perfdata_gen; --jobs compared on the recorded files only"
fi
pargs=()
for f in "${pfiles[@]}"; do pargs+=("$f"); done
for mode in "" "--json" "--no-symbols" "--json --top 100000"; do
  # shellcheck disable=SC2086 # mode is a word list
  "$pms" report "${pargs[@]}" $mode --jobs 1 >"$tmp/j1.out" 2>"$tmp/j1.err"; r1=$?
  # shellcheck disable=SC2086
  "$pms" report "${pargs[@]}" $mode --jobs 4 >"$tmp/j4.out" 2>"$tmp/j4.err"; r4=$?
  expect "--jobs 1 exit [$mode]" 0 $r1
  expect "--jobs 4 exit [$mode]" 0 $r4
  cmp -s "$tmp/j1.out" "$tmp/j4.out" || { echo "FAIL: --jobs 4 report differs from --jobs 1 [$mode]"; diff "$tmp/j1.out" "$tmp/j4.out" | head; fail=1; }
  cmp -s "$tmp/j1.err" "$tmp/j4.err" || { echo "FAIL: --jobs 4 stderr differs [$mode]"; fail=1; }
done
# the default (every CPU) too, and the counts add up to the files' own
"$pms" report "${pargs[@]}" --json >"$tmp/jd.json" 2>/dev/null
"$pms" report "${pargs[@]}" --json --jobs 1 >"$tmp/j1.json" 2>/dev/null
cmp -s "$tmp/jd.json" "$tmp/j1.json" || { echo "FAIL: the default --jobs report differs from --jobs 1"; fail=1; }
python3 - "$tmp/jd.json" <<'PY' || fail=1
import json, subprocess, sys
m = json.load(open(sys.argv[1]))
total = sum(f["records"] for f in m["target"]["files"])
if total != m["target"]["records"] or not m["samples"]["total"]:
    print("FAIL: parallel merge: records %r of %r, samples %r" % (m["target"]["records"], total, m["samples"]["total"]))
    sys.exit(1)
PY
"$pms" report "${pargs[@]}" --jobs 0 >/dev/null 2>&1; expect "--jobs 0" 2 $?

# pprof: the host label of every sample is its file's host
if command -v go >/dev/null; then
  "$pms" report "${args[@]}" --pprof "$tmp/m.pb.gz" >/dev/null 2>&1; expect "merged pprof exit" 0 $?
  go tool pprof -raw "$tmp/m.pb.gz" >"$tmp/m.raw" 2>/dev/null
  python3 - "$tmp/m.raw" "$tmp/m.kept.json" <<'PY' || fail=1
import collections, json, re, sys
raw, rep = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
part = raw.split("\nSamples:\n", 1)[1].split("\nLocations\n", 1)[0]
hosts, cur = collections.Counter(), 0
for line in part.splitlines()[1:]:
    m = re.match(r"\s*(\d+)\s+\d+:", line)
    if m:
        cur = int(m.group(1))
    for k, v in re.findall(r"(\w+):\[(.*?)\](?= \w+:\[|\s*$)", line):
        if k == "host":
            hosts[v] += cur
want = {s["host"]: s["samples"] for s in rep["sources"]}
if dict(hosts) != want:
    print("FAIL: pprof host labels: want %r, got %r" % (want, dict(hosts)))
    sys.exit(1)
PY
else
  echo "note: go is not installed; the pprof host labels were not checked"
fi
exit $fail
