#!/usr/bin/env bash
# Call paths of memory samples against perf, on this kernel's software
# engine (page faults), with the known-path workload of tests/sample/
# callpath_wl.c (main -> cp_outer -> cp_middle -> cp_leaf_touch):
#  1. -g (frame pointers): `pmuscope mem -g -o F` gives the expected path for
#     >= 95% of the samples in cp_leaf_touch, and `perf script` of F shows
#     the same call stacks: the multiset of stacks is equal.
#  2. --call-graph dwarf on the workload built without frame pointers
#     (-O2 -fomit-frame-pointer): the expected path for >= 95% of those
#     samples, and the stacks equal perf's own DWARF unwinding of F
#     (perf script's default: the inline stacks of DWARF frames expanded on
#     both sides; perf shows a caller's return address - 1).
#  3. Files written by perf record -g and --call-graph dwarf: `pmuscope
#     script -F callchain` prints what `perf script -F ip` prints (DWARF:
#     script unwinding as report, inline frames expanded as perf's default,
#     their " (inlined)" taken out), `script --json -F
#     callchain` the same frames sample by sample, and
#     `pmuscope report` aggregates the same stacks as perf script.
# $1 = pmuscope.  Needs PMS_BUILD_DIR (the workloads) and perf.
# callpath.sh --self-test: callpath_compare.py's pairing rules on crafted
# inputs (no pmuscope, no perf).
set -u
if [ "${1:-}" = --self-test ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  cmp_py=$(dirname "$0")/callpath_compare.py
  # A run as seen once in three CI runs: 2 faults inside execve (kernel
  # frames, then the old image's PC that no mapping holds: cut), perf
  # showing their kernel frames only; 1 fault of ld.so on a stack page not
  # yet present (user stack copy empty): its PC here, nothing in perf; and
  # 300 samples unwound alike.  Every sample has its counterpart: it passes.
  # Before, the cut exec stack took perf's empty stack and the comparison
  # failed.  $1: perf's stack of the execve faults.
  write() {
    python3 - "$tmp/ours.json" <<'PY'
import json, sys
K = lambda ip: {"ip": hex(ip), "kernel": True, "func": "k"}
U = lambda ip, fn="f": {"ip": hex(ip), "kernel": False, "func": fn}
paths = [
    {"samples": 300, "truncated": False,
     "frames": [U(0x401010, "leaf"), U(0x401101, "mid"), U(0x401201, "main")]},
    {"samples": 2, "truncated": True,
     "frames": [K(0xffffffff8223c3bd), K(0xffffffff8177e8e7), U(0x7f9ab3b4cfda)]},
    {"samples": 1, "truncated": False, "frames": [U(0x7fb1c641eec1)]},
]
json.dump({"callpaths": {"samples": 303, "without_path": 0, "by_samples": paths}},
          open(sys.argv[1], "w"))
PY
    { for i in $(seq 300); do printf '  42 \n\t401010\n\t401100\n\t401200\n'; done
      printf '  42 \n%b  42 \n%b  42 \n' "$1" "$1"; } >"$tmp/perf.txt"
  }
  st=0
  write '\tffffffff8223c3bd\n\tffffffff8177e8e7\n'
  python3 "$cmp_py" "$tmp/ours.json" "$tmp/perf.txt" dwarf || { echo "FAIL: exec-time faults"; st=1; }
  # The same with perf showing the execve faults empty too: a stack with
  # kernel frames is never one perf shows empty (it prints the kernel
  # callchain whatever the unwind did): it must fail.
  write ''
  if python3 "$cmp_py" "$tmp/ours.json" "$tmp/perf.txt" dwarf >/dev/null; then
    echo "FAIL: kernel frames here matched perf's empty stacks"; st=1
  fi
  exit $st
fi
cli=${1:?usage: callpath.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
fp=${PMS_BUILD_DIR:-}/tests/sample/pms_callpath_fp
nofp=${PMS_BUILD_DIR:-}/tests/sample/pms_callpath_nofp
[ -x "$fp" ] && [ -x "$nofp" ] || { echo "no workloads (PMS_BUILD_DIR)"; exit 77; }
command -v perf >/dev/null || { echo "no perf"; exit 77; }

# Usage errors first (exit 2, the reason named).
"$cli" mem --call-graph lbr -- true >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "lbr is not supported" "$tmp/err" || { bad "--call-graph lbr"; cat "$tmp/err"; }
"$cli" mem --call-graph dwarf,70000 -- true >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || { bad "--call-graph dwarf,70000 accepted"; cat "$tmp/err"; }

cmp_py=$(dirname "$0")/callpath_compare.py
want=cp_leaf_touch,cp_middle,cp_outer,main

live() { # live MODE-ARGS BIN NAME
  local name=$3
  # --no-alloc: the command's own paths against perf's (the allocation
  # tracker's frames and loader work are not what this compares)
  if ! "$cli" mem $1 --no-alloc --engine software --period 4 --quiet --json --top 100000 \
       -o "$tmp/$name.data" -- "$2" touch 3000 >"$tmp/$name.json" 2>"$tmp/err"; then
    if grep -q "no sampling engine\|EACCES\|EPERM" "$tmp/err"; then
      echo "no software sampling here: $(cat "$tmp/err")"; exit 77
    fi
    bad "mem $1"; cat "$tmp/err"; return
  fi
}

# 1. frame pointers
live "-g" "$fp" fp
perf script -i "$tmp/fp.data" -F tid,ip >"$tmp/fp.perf" 2>"$tmp/perr" || { bad "perf script of mem -g -o"; cat "$tmp/perr"; }
python3 "$cmp_py" "$tmp/fp.json" "$tmp/fp.perf" fp $want || bad "mem -g vs perf script"

# 2. DWARF on code without frame pointers
live "--call-graph dwarf" "$nofp" dwarf
perf script -i "$tmp/dwarf.data" -F tid,ip >"$tmp/dwarf.perf" 2>"$tmp/perr" \
  || { bad "perf script of mem --call-graph dwarf -o"; cat "$tmp/perr"; }
python3 "$cmp_py" "$tmp/dwarf.json" "$tmp/dwarf.perf" dwarf $want || bad "mem --call-graph dwarf vs perf script"
# ... and frame pointers there give no callers: the DWARF result is the unwinder's
python3 - "$tmp/dwarf.json" <<'PY' || bad "dwarf frames not flagged"
import json, sys
cp = json.load(open(sys.argv[1]))["callpaths"]
assert cp["mode"] == "dwarf" and cp["dwarf_unwind"]["unwound"] > 0, cp["dwarf_unwind"]
assert all(f["dwarf"] for p in cp["by_samples"] for f in p["frames"] if not f["kernel"])
PY

# 3. perf-written files
for m in fp dwarf; do
  cg=$([ $m = fp ] && echo "-g" || echo "--call-graph dwarf")
  bin=$([ $m = fp ] && echo "$fp" || echo "$nofp")
  if ! perf record -q $cg -e page-faults -c 4 -o "$tmp/p$m.data" -- "$bin" touch 3000 \
       >/dev/null 2>"$tmp/perr"; then
    echo "perf record $cg refused here: $(head -c 300 "$tmp/perr")"; continue
  fi
  "$cli" report --json --top 100000 -i "$tmp/p$m.data" >"$tmp/p$m.json" 2>"$tmp/err" \
    || { bad "report of perf record $cg"; cat "$tmp/err"; continue; }
  perf script -i "$tmp/p$m.data" -F tid,ip >"$tmp/p$m.perf" 2>/dev/null
  # script and report expand inline frames as perf does by default: -F
  # callchain is perf's -F ip, " (inlined)" dropped
  perf script -i "$tmp/p$m.data" -F ip 2>/dev/null | sed "s/ (inlined)\$//" >"$tmp/p$m.perfip"
  python3 "$cmp_py" "$tmp/p$m.json" "$tmp/p$m.perf" $m || bad "report of perf record $cg vs perf script"
  # both: script unwinds DWARF samples as report does (session/dwpath.c)
  "$cli" script -i "$tmp/p$m.data" -F callchain >"$tmp/p$m.ours" 2>"$tmp/err" || bad "script -F callchain"
  # the same stacks, each sample's block of frames whole; perf orders
  # samples by time across CPUs, pmuscope script keeps file order
  python3 - "$tmp/p$m.perfip" "$tmp/p$m.ours" <<'PY' || { bad "script -F callchain differs from perf script -F ip"; diff "$tmp/p$m.perfip" "$tmp/p$m.ours" | head -5; }
import sys
def blocks(path):
  return sorted(b.strip("\n") for b in open(path).read().split("\n\n") if b.strip())
a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
sys.exit(0 if a == b and a else 1)
PY
  # script --json's callchain: the frames the text prints, sample by
  # sample (DWARF: unwound as the text, not the kernel part alone); a
  # sample whose text has no frame is [] there
  "$cli" script -i "$tmp/p$m.data" --json -F tid,callchain >"$tmp/p$m.ours.json" 2>"$tmp/err" \
    || bad "script --json -F tid,callchain"
  python3 - "$tmp/p$m.ours" "$tmp/p$m.ours.json" "$tmp/p$m.perfip" <<'PY' || bad "script --json callchain ($m) differs from the text / perf script -F ip"
import json, sys
def blocks(path):
  return [[int(x, 16) for x in b.split()] for b in open(path).read().split("\n\n") if b.strip()]
text, perf = blocks(sys.argv[1]), blocks(sys.argv[3])
rows = [json.loads(l)["callchain"] for l in open(sys.argv[2])]
js = [[int(x, 16) for x in r] for r in rows if r]
user = sum(1 for b in js for ip in b if ip < 1 << 63)
print("script --json: %d samples, %d with frames, %d user frames" % (len(rows), len(js), user))
ok = js == text and sorted(js) == sorted(perf) and user > len(js)
sys.exit(0 if ok else 1)
PY
done
exit $fail
