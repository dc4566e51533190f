#!/usr/bin/env bash
# pmuscope c2c: usage errors; the real `perf mem record` file of
# ../shared/data (perf.data.weight_struct, Skylake-SP PEBS) read without
# loss and, with perf installed, every global count equal to
# `perf c2c report`'s; live on this host (software engine): the two-thread
# false-sharing workload's line listed with both threads, both offsets and
# its node, and the padded variant with no shared line.
set -u
pms=${1:?usage: c2c.sh PMUSCOPE FALSE_SHARING}
fs=${2:?usage: c2c.sh PMUSCOPE FALSE_SHARING}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PERF_CONFIG=/dev/null LC_ALL=C

expect() { # name, want, got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want: [$2]"; echo "  got:  [$3]"; fail=1
  fi
}
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON"; exit 77; }

"$pms" c2c --help >/dev/null; expect "--help exit" 0 $?
"$pms" c2c >/dev/null 2>&1; expect "no target exit" 2 $?
"$pms" c2c -i x -a >/dev/null 2>&1; expect "two targets exit" 2 $?
"$pms" c2c -i x --json --csv >/dev/null 2>&1; expect "--json --csv exit" 2 $?
"$pms" c2c -i x --display nope >/dev/null 2>&1; expect "bad --display exit" 2 $?
"$pms" c2c -i x --sort nope >/dev/null 2>"$tmp/err"; expect "bad --sort exit" 2 $?
grep -q "address" "$tmp/err" || { echo "FAIL: --sort message lists the keys"; fail=1; }
"$pms" c2c -i "$tmp/none" >/dev/null 2>"$tmp/err"; expect "missing file exit" 1 $?
grep -q "^pmuscope: c2c: " "$tmp/err" || { echo "FAIL: missing file message"; fail=1; }

# ---- the real perf mem record file ------------------------------------------
ws=${PMS_SHARED_DATA:-}/perf_data_converter/src/quipper/testdata/perf.data.weight_struct
if [ -n "${PMS_SHARED_DATA:-}" ] && [ -r "$ws" ]; then
  "$pms" c2c --json -i "$ws" >"$tmp/ws.json"; expect "weight_struct exit" 0 $?
  "$pms" c2c -i "$ws" >"$tmp/ws.txt"; expect "weight_struct text exit" 0 $?
  "$pms" c2c --csv --all -i "$ws" >"$tmp/ws.csv"; expect "weight_struct csv exit" 0 $?
  # every sample accounted for: the file's samples (perf script) = records,
  # and each record is a load, a store or unparsable
  n=$(perf script -F ip -i "$ws" 2>/dev/null </dev/null | wc -l)
  [ "$n" -gt 0 ] || n=14 # the file's documented sample count (SOURCES.md) without perf
  python3 - "$tmp/ws.json" "$n" <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2]); t = d["totals"]
assert d["samples"] == n == t["nr_entries"], (d["samples"], n, t["nr_entries"])
assert t["load"] + t["store"] + t["noparse"] == n, t
assert d["source"]["skipped_records"] == 0 and not d["source"]["truncated"]
assert d["engine"] == "pebs" and d["metric"]["name"] == "tot_hitm"
assert d["lines_seen"] == 14, d["lines_seen"]  # 14 distinct data lines in the file
EOF
  rows=$(tail -n +2 "$tmp/ws.csv" | wc -l)
  expect "csv: one row per (line, offset, instruction), --all" 14 "$rows"
  if perf c2c report --stdio -i "$ws" >"$tmp/perf.txt" 2>/dev/null </dev/null; then
    # perf's global counts against ours ("LLC Misses to" are percentages:
    # perf prints -nan% without LLC misses)
    python3 - "$tmp/perf.txt" "$tmp/ws.txt" <<'EOF' || fail=1
import sys, re
def info(path):
    out = {}
    for line in open(path):
        m = re.match(r"^  ([A-Z][^:]*?)\s*:\s*(-?[0-9.]+|-nan)%?\s*(\(.*)?$", line)
        if m: out.setdefault(m.group(1), m.group(2))
    return out
p, q = info(sys.argv[1]), info(sys.argv[2])
bad = [k for k in p if "LLC Misses to" not in k and p[k] != q.get(k)]
assert len(p) >= 40 and not bad, [(k, p[k], q.get(k)) for k in bad]
EOF
  fi
else
  echo "no ../shared/data (PMS_SHARED_DATA): the real-file part did not run"
fi

# ---- live: false sharing and the padded variant (software engine here) ------
if "$fs" shared 50 2>/dev/null; then
  # c2c passes the command's status on: a sanitizer build's workload, traced
  # by the exit holds, would exit 1 from LeakSanitizer ("does not work under
  # ptrace"); its leaks are not what this test checks
  nolsan=${ASAN_OPTIONS:+${ASAN_OPTIONS}:}detect_leaks=0
  ASAN_OPTIONS=$nolsan "$pms" c2c --json -- "$fs" shared 600 --refault >"$tmp/fs.json" 2>"$tmp/fs.err"
  expect "live shared exit" 0 $?
  ASAN_OPTIONS=$nolsan "$pms" c2c --json -- "$fs" padded 600 --refault >"$tmp/pad.json" 2>"$tmp/pad.err"
  expect "live padded exit" 0 $?
  # an ASan-built workload's runtime has lines of its own that both threads
  # write (the stack depot at thread start): real sharing, not the counters'
  san=0
  ldd "$fs" 2>/dev/null | grep -q libasan && san=1
  python3 - "$tmp/fs.json" "$tmp/fs.err" "$tmp/pad.json" "$tmp/pad.err" "$san" <<'EOF' || fail=1
import json, re, sys
def line_of(err):
    m = re.search(r"line (0x[0-9a-f]+) a \+0 b \+(\d+)", open(err).read())
    return int(m.group(1), 16), int(m.group(2))
d = json.load(open(sys.argv[1])); addr, off = line_of(sys.argv[2])
assert off == 8
lines = [l for l in d["lines"] if int(l["address"], 16) == addr & ~63]
assert len(lines) == 1, ("the false-sharing line is not listed", hex(addr), [l["address"] for l in d["lines"]])
l = lines[0]
offs = {a["offset"]: {t["tid"] for t in a["threads"]} for a in l["offsets"]}
assert 0 in offs and 8 in offs, offs
tids = set().union(*offs.values())
assert len(tids) == 2 and l["threads"] == 2, (tids, l["threads"])
# each counter is written by its own thread only
assert len(offs[0]) == 1 and len(offs[8]) == 1 and offs[0] != offs[8], offs
assert all(t["pid"] == l["pid"] for a in l["offsets"] for t in a["threads"])
assert l["mem_nodes"], "the line's node is unknown"
import os
nodes = {int(n[4:]) for n in os.listdir("/sys/devices/system/node") if re.match(r"node\d+$", n)}
assert set(l["mem_nodes"]) <= nodes, (l["mem_nodes"], nodes)
assert any(a["function"] == "run" for a in l["offsets"]), [a["function"] for a in l["offsets"]]
assert d["engine"] == "software" and d["metric"]["name"] == "sharers" and not d["hitm_available"]
p = json.load(open(sys.argv[3])); paddr, poff = line_of(sys.argv[4])
assert poff == 64
# neither padded counter's line is shared; any line listed is the C
# runtime's, which both threads really touch (libc's vDSO pointers and the
# vvar page read by clock_gettime: two threads' first-touch faults can race
# on them, seen once in 5 runs), or, with a sanitizer, its runtime's
mine = [l for l in p["lines"] if int(l["address"], 16) in (paddr & ~63, (paddr & ~63) + 64)]
assert mine == [], mine
assert p["shared_lines"] == len(p["lines"]), (p["shared_lines"], len(p["lines"]))
if sys.argv[5] == "0":
    assert all(re.search(r"/(libc|ld-linux[^/]*)\.so", a["module"] or "") or a["module"] == "[vdso]"
               for l in p["lines"] for a in l["offsets"]), \
        [(l["address"], a["module"], a["function"]) for l in p["lines"] for a in l["offsets"]]
else:
    assert all("asan" in (a["module"] or "") or "sanitizer" in (a["function"] or "") for l in p["lines"]
               for a in l["offsets"]), [(a["module"], a["function"]) for l in p["lines"] for a in l["offsets"]]
# ... though both lines were seen
assert p["lines_seen"] >= 2
EOF
  # the padded run's two lines, each with one thread, with --all
  "$pms" c2c --json --all -- "$fs" padded 400 --refault >"$tmp/pad2.json" 2>"$tmp/pad2.err"
  python3 - "$tmp/pad2.json" "$tmp/pad2.err" <<'EOF' || fail=1
import json, re, sys
d = json.load(open(sys.argv[1]))
a = int(re.search(r"line (0x[0-9a-f]+)", open(sys.argv[2]).read()).group(1), 16)
mine = {int(l["address"], 16): l for l in d["lines"] if int(l["address"], 16) in (a, a + 64)}
assert len(mine) == 2, [l["address"] for l in d["lines"]]
assert all(l["threads"] == 1 for l in mine.values()), [(hex(k), l["threads"]) for k, l in mine.items()]
EOF
else
  echo "the false-sharing workload does not run here: live part skipped"
fi

exit $fail
