#!/usr/bin/env bash
# The differential of the one sample path, at CLI level, on this kernel's
# software engine (page faults):
#  1. `pmuscope mem --json -o F -- W` and `pmuscope report --json -i F` of
#     the file written in the same run are equal in every field but the
#     live-only ones (docs/mem.md "Live-only fields", listed below with
#     their reasons).
#  2. A perf-written file (`perf record -e page-faults -d -W`) read by
#     `pmuscope script` and `pmuscope report` agrees with `perf script` on
#     ip, addr, data_src and weight of every sample.
# $1 = pmuscope.  Needs PMS_BUILD_DIR (the touch-pages workload).
set -u
cli=${1:?usage: mem_file.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
wl=${PMS_BUILD_DIR:-}/tests/sample/pms_touch_pages
[ -x "$wl" ] || { echo "no workload $wl (PMS_BUILD_DIR)"; exit 77; }

if ! "$cli" mem --quiet --json --top 100000 -o "$tmp/mem.data" -- "$wl" 3000 "$tmp/range" \
     >"$tmp/live.json" 2>"$tmp/err"; then
  if grep -q "no sampling engine" "$tmp/err"; then
    echo "no sampling engine here: $(cat "$tmp/err")"; exit 77
  fi
  bad "mem -o exit status"; cat "$tmp/err"
fi
"$cli" report --json --top 100000 -i "$tmp/mem.data" >"$tmp/file.json" 2>"$tmp/err" \
  || { bad "report of the mem -o file"; cat "$tmp/err"; }
python3 - "$tmp/live.json" "$tmp/file.json" <<'PY' || fail=1
import json, sys
live, file = (json.load(open(p)) for p in sys.argv[1:3])
# Live-only fields (docs/mem.md), each with its reason:
LIVE_ONLY = {
    "target": "the run (command, pid) vs the file (path, records)",
    "workload": "the built-in workload's own report",
    "exit": "how the command ended: a file has no process",
    "duration_s": "wall clock of the run vs the span of sample times",
    "attempts": "the engine ladder happens only live",
    "engine.label": "the ladder's verdict vs the file's event names",
    "engine.notes": "the ladder's caveats vs the file's record counts",
    "numa": "the NUMA oracle (move_pages on the live process) and its counts",
    "processes": "per-process rows: the live (kept-samples) report only; a file's "
                 "report aggregates and has none",
    "threads": "per-thread rows: the same",
    "top.data_objects": "live data objects also come from /proc/PID/maps (heap, stack, "
                        "merged mappings); a file has only its MMAP/MMAP2 records",
}
SITE_LIVE_ONLY = {"resolved", "remote_share", "on_home_share"}  # oracle nodes
# kernel IPs are named from this machine's kallsyms live only: their names,
# and so the kernel functions they group into (the file's kernel IPs are all
# "[kernel]"); the full lists (--top 100000) are compared without them
KERNEL_NAME = {"name", "file", "line", "module"}
for d in (live, file):
    for k in ("functions_by_samples", "functions_by_latency"):
        d["top"][k] = [s for s in d["top"][k] if not s["kernel"]]
diffs = []
def walk(a, b, path):
    if path in LIVE_ONLY:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        kernel = a.get("kernel") is True and path.startswith("top.")
        for k in sorted(set(a) | set(b)):
            if path.startswith("top.") and k in SITE_LIVE_ONLY:
                continue
            if not path and k == "allocation_sites":
                continue  # live only: -o does not carry the allocation records (docs/mem.md)
            if kernel and k in KERNEL_NAME:
                continue
            if k not in a or k not in b:
                diffs.append("%s.%s only in %s" % (path, k, "file" if k in b else "live"))
                continue
            walk(a[k], b[k], (path + "." if path else "") + k)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append("%s: %d live, %d file entries" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, "%s[%d]" % (path, i))
    elif a != b:
        diffs.append("%s: live %r, file %r" % (path, a, b))
walk(live, file, "")
if live["samples"]["total"] < 3000:
    diffs.append("only %d samples for 3000 first touches" % live["samples"]["total"])
for d in diffs:
    print("FAIL: mem vs report of its -o file:", d)
sys.exit(1 if diffs else 0)
PY

# 2. A file perf wrote.
if [ -x /usr/bin/perf ] && /usr/bin/perf --version >/dev/null 2>&1; then
  ph=$tmp/perfhome; mkdir -p "$ph"
  P() { HOME=$ph PERF_CONFIG=/dev/null /usr/bin/perf "$@" </dev/null; }
  if P record -q -e page-faults -c 1 -d -W -o "$tmp/perf.data" -- "$wl" 2000 "$tmp/range2" \
       >/dev/null 2>"$tmp/err"; then
    # perf script prints addr data_src(value + text) weight ip in its own
    # order; keep addr, the data_src value, weight and ip
    P script -F ip,addr,data_src,weight -i "$tmp/perf.data" 2>/dev/null \
      | awk '{print $1, $2, $(NF-1), $NF}' >"$tmp/perf.script"
    "$cli" script -F addr,data_src,weight,ip -i "$tmp/perf.data" 2>"$tmp/err" \
      | awk '{print $1, $2, $(NF-1), $NF}' >"$tmp/pms.script" \
      || { bad "pmuscope script of a perf file"; cat "$tmp/err"; }
    n=$(wc -l <"$tmp/perf.script")
    [ "$n" -ge 2000 ] || bad "perf script shows only $n samples"
    # perf orders samples by time across CPUs, pmuscope keeps file order:
    # the same lines, in any order
    sort "$tmp/perf.script" >"$tmp/perf.sorted"; sort "$tmp/pms.script" >"$tmp/pms.sorted"
    cmp -s "$tmp/perf.sorted" "$tmp/pms.sorted" \
      || { bad "perf script and pmuscope script differ (ip addr data_src weight)"; diff "$tmp/perf.sorted" "$tmp/pms.sorted" | head -5; }
    "$cli" report --json --top 100000 -i "$tmp/perf.data" >"$tmp/perfrep.json" 2>"$tmp/err" \
      || { bad "pmuscope report of a perf file"; cat "$tmp/err"; }
    # the report's samples are perf script's: count, addresses, per-IP counts
    python3 - "$tmp/perf.script" "$tmp/perfrep.json" <<'PY' || fail=1
import collections, json, sys
rows = [l.split() for l in open(sys.argv[1])]
r = json.load(open(sys.argv[2]))
ips = collections.Counter(int(x[3], 16) for x in rows)
got = {int(s["addr"], 16): s["samples"] for s in r["top"]["instructions_by_samples"]
       if s["addr"] is not None}
bad = []
if r["samples"]["total"] != len(rows):
    bad.append("samples %d, perf script %d" % (r["samples"]["total"], len(rows)))
if r["samples"]["with_addr"] != len(rows):
    bad.append("with_addr %d, perf script %d rows with addr" % (r["samples"]["with_addr"], len(rows)))
# PERF_MEM_NA and weight 0 from a software event are no values
if r["samples"]["with_data_src"] != 0 or r["latency"]["samples"] != 0:
    bad.append("data_src/weight counted for a software event: %r %r"
               % (r["samples"]["with_data_src"], r["latency"]["samples"]))
if any(x[1] != "1e05080021" or x[2] != "0" for x in rows):
    bad.append("perf wrote data_src/weight other than PERF_MEM_NA/0")
for ip, n in ips.items():
    if not r["kernel_addresses_visible"] and ip >= 1 << 63:
        continue
    if got.get(ip) != n:
        bad.append("ip %#x: perf script %d samples, report %r" % (ip, n, got.get(ip)))
        break
for b in bad:
    print("FAIL: report of a perf file:", b)
sys.exit(1 if bad else 0)
PY
  else
    echo "note: perf record refused here: $(head -1 "$tmp/err")"
  fi
else
  echo "note: /usr/bin/perf absent; the perf-written file was not checked"
fi
exit $fail
