#!/usr/bin/env bash
# c2c of a started command names each contended line's allocation site
# (docs/mem.md): the false-sharing workload's counters live in one page it
# maps (c2c_false_sharing.c, the mmap in main); c2c tracks it (--alloc-rate
# 0: a 4 KiB mapping is below the default threshold) and names that line's
# site in JSON, text and CSV, live and from its -o file (c2c -i).
#   alloc_c2c.sh PMUSCOPE C2C_FALSE_SHARING
set -u
# In the sanitizer build the workload is built with ASan, and LeakSanitizer
# cannot run under c2c's exit hold (ptrace): the workload would exit 1.
case "${ASAN_OPTIONS:-}" in *detect_leaks=1*) export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0" ;; esac
cli=$1 fs=$2
export PMUSCOPE_NO_DAMON=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$cli" c2c --alloc-rate 0 --json -o "$tmp/c.data" -- "$fs" shared 600 --refault \
	>"$tmp/live.json" 2>"$tmp/live.err" || { echo "c2c live failed"; cat "$tmp/live.err"; exit 1; }
"$cli" c2c --json -i "$tmp/c.data" >"$tmp/file.json" 2>"$tmp/file.err" ||
	{ echo "c2c -i failed"; cat "$tmp/file.err"; exit 1; }
python3 - "$tmp/live.json" "$tmp/live.err" "$tmp/file.json" <<'PY' || fail=1
import json, re, sys
addr = int(re.search(r"line (0x[0-9a-f]+) a \+0", open(sys.argv[2]).read()).group(1), 16)
for label, path in (("live", sys.argv[1]), ("file", sys.argv[3])):
    d = json.load(open(path))
    mine = [l for l in d["lines"] if int(l["address"], 16) == addr & ~63]
    assert len(mine) == 1, (label, "the false-sharing line is not listed", d["lines"])
    a = mine[0]["alloc_site"]
    assert a, (label, "no allocation site", mine[0])
    assert a["kind"] == "mmap" and a["function"] == "main", (label, a)
    assert a["file"].endswith("c2c_false_sharing.c") and a["line"] > 0, (label, a)
    # every sample of the line lies in the one mapping
    assert a["samples"] == a["placed"] > 0, (label, a)
    print("%s: line %#x allocated at %s:%d (%s), %d of its samples" %
          (label, addr & ~63, a["file"], a["line"], a["kind"], a["samples"]))
PY
"$cli" c2c -i "$tmp/c.data" >"$tmp/file.txt" 2>/dev/null
# (main's caller is named where the unwinder gets past it: the ASan build)
grep -Eq "allocated at c2c_false_sharing.c:[0-9]+ \(main( <- [^)]*)?\): mmap" "$tmp/file.txt" ||
	{ echo "text: no allocation line"; grep -A2 "^  line" "$tmp/file.txt" | head; fail=1; }
"$cli" c2c --csv -i "$tmp/c.data" >"$tmp/file.csv" 2>/dev/null
python3 - "$tmp/file.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and any(r["alloc_where"].startswith("c2c_false_sharing.c:") for r in rows), rows[:2]
PY
# --no-alloc: no site
"$cli" c2c --no-alloc --json -- "$fs" shared 200 --refault >"$tmp/no.json" 2>/dev/null
python3 -c '
import json, sys
sys.exit(any(l["alloc_site"] for l in json.load(open(sys.argv[1]))["lines"]))' "$tmp/no.json" ||
	{ echo "--no-alloc: a site named"; fail=1; }
exit $fail
