#!/usr/bin/env bash
# Live vs the -o file of the same run, field by field, for c2c and --advise
# (mem's own differential is mem_file.sh), on this kernel's software engine:
#  1. `pmuscope c2c --json --all -o F -- FALSE_SHARING shared` and
#     `pmuscope c2c --json --all -i F` are equal in every field but the
#     live-only ones (docs/c2c.md "Live-only fields", listed below); a run
#     without -o (`pmuscope c2c --json --all -- ...`) gives a report of the
#     same fields and types as the -o run's.
#  2. `pmuscope mem --advise --json -o F -- W` and `pmuscope report --advise
#     --json -i F`: the advice of the file is built from the samples whose
#     nodes the file carries; every field that does not depend on the live
#     NUMA oracle or this machine's distances and free memory is equal
#     (docs/advise.md "Live-only fields").
# $1 = pmuscope, $2 = the false-sharing workload.  Needs PMS_BUILD_DIR.
set -u
cli=${1:?usage: session_diff.sh PMUSCOPE FALSE_SHARING}
fs=${2:?usage: session_diff.sh PMUSCOPE FALSE_SHARING}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PMUSCOPE_NO_DAMON=1 LC_ALL=C
bad() { echo "FAIL: $*"; fail=1; }
wl=${PMS_BUILD_DIR:-}/tests/sample/pms_touch_pages
[ -x "$wl" ] || { echo "no workload $wl (PMS_BUILD_DIR)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON"; exit 77; }

# ---- 1. c2c
# c2c passes the command's status on; an ASan-built workload traced by the
# exit holds exits 1 from LeakSanitizer ("does not work under ptrace")
if ! ASAN_OPTIONS=${ASAN_OPTIONS:+${ASAN_OPTIONS}:}detect_leaks=0 \
    "$cli" c2c --json --all -o "$tmp/c2c.data" -- "$fs" shared 600 --refault \
     >"$tmp/live.json" 2>"$tmp/err"; then
  grep -q "no sampling engine" "$tmp/err" && { echo "no sampling engine here"; exit 77; }
  bad "c2c -o exit status"; cat "$tmp/err"
fi
grep -q "^pmuscope: c2c: wrote [0-9]* records to $tmp/c2c.data" "$tmp/err" \
  || { bad "c2c -o says what it wrote"; cat "$tmp/err"; }
"$cli" c2c --json --all -i "$tmp/c2c.data" >"$tmp/file.json" 2>"$tmp/err" \
  || { bad "c2c -i of the c2c -o file"; cat "$tmp/err"; }
# -o is for live runs
"$cli" c2c -i "$tmp/c2c.data" -o "$tmp/x.data" >/dev/null 2>&1
[ $? = 2 ] || bad "c2c -i F -o G is a usage error"
python3 - "$tmp/live.json" "$tmp/file.json" <<'PY' || fail=1
import json, sys
live, file = (json.load(open(p)) for p in sys.argv[1:3])
# Live-only fields (docs/c2c.md), each with its reason:
LIVE_ONLY = {
    "source": "the run (command, its exit, the engine ladder's label) vs the file "
              "(path, records, the recorded events, why it has no nodes)",
    "lines[].mem_nodes": "the NUMA oracle asks the live process; a file has nodes "
                         "only from PHYS_ADDR",
    "lines[].node_unknown": "the same: the samples without a node",
    "lines[].object": "live data objects also come from /proc/PID/maps (heap, stack, "
                      "merged mappings); a file has only its MMAP/MMAP2 records",
}
# and a kernel offset's function: named live from this kernel's kallsyms,
# [kernel] from a file (docs/c2c.md)
# A kernel instruction's address: the live model is fed the profile's kept
# samples unmasked (pms_memreport_input.unmasked), each kernel IP its own
# offset row as in the file (before, they read 0 live and merged into one
# row: "offsets: 2 vs 3 entries" under ASan); the live report masks them
# only for a caller that may not see them, the file keeps them as recorded.
# Both say kernel and [kernel].  The offsets of a line are ordered by
# address, so the comparison takes them in one order.
for d in (live, file):
    for line in d["lines"]:
        for o in line["offsets"]:
            if o["kernel"]:
                o["ip"] = "kernel"
                o["function"] = "[kernel]"
        line["offsets"].sort(key=lambda o: json.dumps(o, sort_keys=True))
diffs = []
def walk(a, b, path):
    if path in LIVE_ONLY:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append(f"{path}: {len(a)} vs {len(b)} entries")
            return
        for x, y in zip(a, b):
            walk(x, y, path + "[]")
    elif a != b:
        diffs.append(f"{path}: live {a!r} file {b!r}")
walk(live, file, "")
if live["samples"] == 0 or not live["lines"]:
    print("FAIL: the live c2c run found no line"); sys.exit(1)
for d in diffs[:20]:
    print("FAIL: c2c live vs file:", d)
sys.exit(1 if diffs else 0)
PY

# ---- 1b. c2c without -o: the report of the -o run (recording changes
# nothing of it): another run, so the counts differ, but every object has
# the same fields (where both runs have it), and the run finds lines
if ! ASAN_OPTIONS=${ASAN_OPTIONS:+${ASAN_OPTIONS}:}detect_leaks=0 \
    "$cli" c2c --json --all -- "$fs" shared 600 --refault >"$tmp/plain.json" 2>"$tmp/err"; then
  bad "c2c live (no -o) exit status"; cat "$tmp/err"
fi
grep -q "wrote" "$tmp/err" && bad "c2c without -o says it wrote a file"
python3 - "$tmp/plain.json" "$tmp/live.json" "$tmp/file.json" <<'PY' || fail=1
import json, sys
plain, live, file = (json.load(open(p)) for p in sys.argv[1:4])
def keys(v, path="", acc=None):
    """the fields of every object, by its path (list entries: their union)"""
    acc = {} if acc is None else acc
    if isinstance(v, dict):
        acc.setdefault(path, set()).update(v)
        for k, x in v.items():
            keys(x, f"{path}.{k}" if path else k, acc)
    elif isinstance(v, list):
        for x in v:
            keys(x, path + "[]", acc)
    return acc
kp, kl = keys(plain), keys(live)
ok = True
for need in ("", "source", "lines[]", "lines[].offsets[]"):
    if need not in kp or need not in kl:
        print(f"FAIL: c2c live vs live -o: no {need or 'top'} object in one of them"); ok = False
for path in sorted(set(kp) & set(kl)):
    if kp[path] != kl[path]:
        print(f"FAIL: c2c live vs live -o: {path or 'top'}: fields {sorted(kp[path] ^ kl[path])} "
              f"in one only"); ok = False
if plain["samples"] == 0 or not plain["lines"]:
    print("FAIL: the plain live c2c run found no line"); ok = False
for d in (plain, live, file):
    if d["source"]["kind"] != ("file" if d is file else "live"):
        print("FAIL: c2c source.kind", d["source"]["kind"]); ok = False
sys.exit(0 if ok else 1)
PY

# ---- 2. --advise
if ! "$cli" mem --quiet --advise --json -o "$tmp/mem.data" -- "$wl" 3000 "$tmp/range" \
     >"$tmp/alive.json" 2>"$tmp/err"; then
  bad "mem --advise -o exit status"; cat "$tmp/err"
fi
"$cli" report --advise --json -i "$tmp/mem.data" >"$tmp/afile.json" 2>"$tmp/err" \
  || { bad "report --advise of the mem -o file"; cat "$tmp/err"; }
python3 - "$tmp/alive.json" "$tmp/afile.json" <<'PY' || fail=1
import json, sys
live, file = (json.load(open(p)) for p in sys.argv[1:3])
la, fa = live["advice"], file["advice"]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL: advise live vs file:", what); ok = False
# the same schema and page size
check(set(la) == set(fa), f"keys {sorted(la)} vs {sorted(fa)}")
check(la["page_size"] == fa["page_size"], "page_size")
# live-only (docs/advise.md): this machine's distances and free memory
check(la["distances_assumed"] is False and fa["distances_assumed"] is True,
      "distances: measured live, assumed from a file")
check(fa["capacity_checked"] is False, "a file's advice checks no free memory")
# the advice counts the samples with both nodes: live the oracle's and the
# samples' CPU nodes, from a file the PHYS_ADDR nodes only
check(la["samples"] == live["numa"]["resolved"],
      f"live advice samples {la['samples']} vs resolved {live['numa']['resolved']}")
check(fa["samples"] == file["numa"]["from_phys"],
      f"file advice samples {fa['samples']} vs from_phys {file['numa']['from_phys']}")
# what does not depend on nodes is the same in both reports
for k in ("samples", "data_source", "latency", "sources"):
    check(live[k] == file[k], f"report field {k}")
# Field by field, the whole document but the live-only fields
# (docs/advise.md "Live-only fields", each with its reason there):
LIVE_ONLY = {
    "target", "exit", "duration_s", "attempts",  # the run vs the file
    "engine.label", "engine.notes",         # the ladder's label vs "recorded: EVENT"
    "numa",                                 # the live oracle's nodes vs PHYS_ADDR only
    "processes", "threads",                 # rows of a live run's pids (a file's: none)
    "allocation_sites",                     # the preload's records: live only
    "top.data_objects",                     # live objects also from /proc/PID/maps
    "advice",                               # checked above
}
SITE_NODE_FIELDS = {"resolved", "remote_share", "nodes", "home_node"}
diffs = []
def walk(a, b, path):
    if path in LIVE_ONLY:
        return
    if path.startswith("top.") and isinstance(a, list) and isinstance(b, list):
        # a top list: kernel entries differ by design (the live profile's
        # kept kernel IPs read 0), and entries tied at the tail may change
        # places: the user-space entries both lists name agree in every
        # field but the node-dependent ones, and the first entries agree
        key = lambda e: (e.get("name"), e.get("addr"), e.get("module"))
        la = {key(e): e for e in a if not e.get("kernel")}
        fb = {key(e): e for e in b if not e.get("kernel")}
        for k in sorted(set(la) & set(fb), key=str):
            for f in sorted(set(la[k]) | set(fb[k])):
                if f not in SITE_NODE_FIELDS and la[k].get(f) != fb[k].get(f):
                    diffs.append(f"{path}[{k[0]}].{f}: live {la[k].get(f)!r} file {fb[k].get(f)!r}")
        if a and b and key(a[0]) != key(b[0]):
            diffs.append(f"{path}[0]: live {key(a[0])} file {key(b[0])}")
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append(f"{path}: {len(a)} vs {len(b)} entries")
            return
        for x, y in zip(a, b):
            walk(x, y, path + "[]")
    elif a != b:
        diffs.append(f"{path}: live {a!r} file {b!r}")
walk(live, file, "")
for d in diffs[:20]:
    print("FAIL: advise live vs file:", d)
ok = ok and not diffs
for it in la["items"] + fa["items"]:
    for f in ("name", "kind", "start", "end", "action", "reason"):
        check(f in it, f"item field {f}")
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] && echo "session_diff: ok"
exit $fail
