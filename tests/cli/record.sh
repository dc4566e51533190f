#!/usr/bin/env bash
# pmuscope record (overflow sampling) on this kernel's software events, with
# the known-path workload (tests/sample/callpath_wl.c):
#  1. cpu-clock -g: >= 90% of the samples in cp_leaf_spin have the path
#     cp_leaf_spin <- cp_middle_spin <- cp_outer_spin <- main, the hot
#     function is cp_leaf_spin, and perf script of the -o file shows the
#     same call stacks for every sample.
#  2. page-faults -g: the same against perf script.
#  3. cycles: sampled where a PMU takes it, else cpu-clock with the reason.
#  4. usage errors (exit 2).
# $1 = pmuscope.  Needs PMS_BUILD_DIR (the workloads) and perf.
set -u
cli=${1:?usage: record.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
fp=${PMS_BUILD_DIR:-}/tests/sample/pms_callpath_fp
[ -x "$fp" ] || { echo "no workload (PMS_BUILD_DIR)"; exit 77; }
command -v perf >/dev/null || { echo "no perf"; exit 77; }
cmp_py=$(dirname "$0")/callpath_compare.py

run() { # run NAME ARGS...
  local name=$1; shift
  if ! "$cli" record --json --top 100000 -o "$tmp/$name.data" "$@" >"$tmp/$name.json" 2>"$tmp/err"; then
    if grep -q "EACCES\|EPERM" "$tmp/err"; then echo "sampling refused here: $(cat "$tmp/err")"; exit 77; fi
    bad "record $*"; cat "$tmp/err"; return 1
  fi
}

# 1. cpu-clock with frame pointers (a period of 100 us of CPU time)
if run clock -e cpu-clock -c 100000 -g -- "$fp" spin 600; then
  perf script -i "$tmp/clock.data" -F tid,ip >"$tmp/clock.perf" 2>"$tmp/perr" || { bad "perf script of record -o"; cat "$tmp/perr"; }
  python3 "$cmp_py" "$tmp/clock.json" "$tmp/clock.perf" fp cp_leaf_spin,cp_middle_spin,cp_outer_spin,main 0.90 \
    || bad "record cpu-clock -g vs perf script"
  python3 - "$tmp/clock.json" <<'PY' || bad "record cpu-clock report"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["engine"] == "overflow", j["engine"]
assert [e["name"] for e in j["events"]] == ["cpu-clock"], j["events"]
assert j["samples"] > 100, j["samples"]
hot = j["hot_functions"][0]
assert hot["func"] == "cp_leaf_spin" and hot["samples"] >= 0.9 * j["samples"], hot
assert hot["file"].endswith("callpath_wl.c"), hot
assert j["callpaths"]["mode"] == "fp"
PY
  # perf report reads the file too
  perf report -i "$tmp/clock.data" --stdio --sort sym 2>/dev/null | grep -q cp_leaf_spin \
    || bad "perf report of record -o does not name cp_leaf_spin"
fi

# 2. page-faults
if run faults -e page-faults -c 2 -g -- "$fp" touch 2000; then
  perf script -i "$tmp/faults.data" -F tid,ip >"$tmp/faults.perf" 2>/dev/null
  python3 "$cmp_py" "$tmp/faults.json" "$tmp/faults.perf" fp cp_leaf_touch,cp_middle,cp_outer,main \
    || bad "record page-faults -g vs perf script"
fi

# 3. cycles: the event, or cpu-clock and the reason
if run cycles -e cycles -- "$fp" spin 200; then
  python3 - "$tmp/cycles.json" <<'PY' || bad "record cycles"
import json, sys
j = json.load(open(sys.argv[1]))
names = [e["name"] for e in j["events"]]
if j["fallback_cpu_clock"]:
    assert names == ["cpu-clock"], names
    assert "refused 'cycles'" in j["notes"], j["notes"]
else:
    assert all(n.startswith("cycles") or "cycles" in n for n in names), names
assert j["samples"] > 0
PY
fi
"$cli" record -e cycles --no-fallback -- true >/dev/null 2>"$tmp/err"
rc=$?
if grep -q "refused 'cycles'\|ENOENT\|ENODEV\|EOPNOTSUPP" "$tmp/err"; then
  [ $rc -eq 1 ] || bad "--no-fallback without a PMU: exit $rc"
fi

# 4. usage
"$cli" record -e cycles >/dev/null 2>&1; [ $? -eq 2 ] || bad "record without a target"
"$cli" record -F 10 -c 10 -- true >/dev/null 2>&1; [ $? -eq 2 ] || bad "-F with -c"
"$cli" record --folded x -- true >/dev/null 2>&1; [ $? -eq 2 ] || bad "--folded without -g"
"$cli" record -C 0-x -- true >/dev/null 2>&1; [ $? -eq 2 ] || bad "-C 0-x"
exit $fail
