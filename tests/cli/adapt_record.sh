#!/usr/bin/env bash
# mem --adapt -o FILE (issue 20): the sampler reopens its events with larger
# periods while recording; the file keeps one attr per event and every
# sample carries the period it was taken with (PERF_SAMPLE_PERIOD, as perf
# writes a frequency-mode event), so perf report weights the samples by
# their periods.  perf is the oracle: perf report's event count and perf
# script's periods are the samples' periods that mem reported; pmuscope
# report reads the same file and says its tables count samples of mixed
# periods.  $1 = the pmuscope binary.
set -u
pms=${1:?usage: adapt_record.sh PMUSCOPE}
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
command -v perf >/dev/null || { echo "no perf: the oracle is missing"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 4 processes x 8 MiB of fresh pages, one-page rings: it adapts at once
wl='for i in 1 2 3 4; do dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null & done; wait'
"$pms" mem --quiet --json --adapt -m 1 -o "$tmp/a.data" -- sh -c "$wl" >"$tmp/a.json" 2>"$tmp/a.err"
rc=$?
if [ $rc != 0 ]; then
  if grep -q "no sampling engine\|perf_event_open" "$tmp/a.err"; then
    echo "no perf events here:"; cat "$tmp/a.err"; exit 77
  fi
  bad "mem --adapt -o exit $rc"; cat "$tmp/a.err"; exit 1
fi
perf report -i "$tmp/a.data" --stdio --sort comm >"$tmp/p.txt" 2>"$tmp/p.err" ||
  { bad "perf report refused the file"; cat "$tmp/p.err"; }
perf report -i "$tmp/a.data" --stats >"$tmp/st.txt" 2>&1 ||
  { bad "perf report --stats refused the file"; cat "$tmp/st.txt"; }
perf script -i "$tmp/a.data" -F period >"$tmp/s.txt" 2>"$tmp/s.err" ||
  { bad "perf script refused the file"; cat "$tmp/s.err"; }
"$pms" report --json "$tmp/a.data" >"$tmp/r.json" 2>"$tmp/r.err" ||
  { bad "pmuscope report of the file"; cat "$tmp/r.err"; }
"$pms" report "$tmp/a.data" >"$tmp/r.txt" 2>&1
python3 - "$tmp" <<'PY' || bad "perf and pmuscope against mem's figures"
import json, re, sys
t = sys.argv[1]
s = json.load(open(t + "/a.json"))["samples"]
a = s["adaptations"]
assert a, "no adaptation with one-page rings: %s" % s
periods = {1} | {x["new"] for x in a}
# perf report: every sample, weighted by its period
p = open(t + "/p.txt").read()
# (its "# Samples:" line rounds to 1K from 1000 on: --stats counts)
n = int(re.search(r"SAMPLE events:\s+(\d+)", open(t + "/st.txt").read()).group(1))
ev = int(re.search(r"# Event count \(approx\.\): (\d+)", p).group(1))
assert n == s["total"], ("perf samples", n, s["total"])
assert ev == s["events"], ("perf event count", ev, s["events"])
# perf script: each sample's period is one the sampler used
got = [int(l) for l in open(t + "/s.txt").read().split()]
assert len(got) == s["total"], (len(got), s["total"])
assert sum(got) == s["events"], (sum(got), s["events"])
assert set(got) <= periods and 1 in set(got) and max(got) > 1, (set(got), periods)
# pmuscope report of the file: the same samples and events, mixed periods
r = json.load(open(t + "/r.json"))["samples"]
assert r["total"] == s["total"], (r["total"], s["total"])
assert r["events"] == s["events"], (r["events"], s["events"])
assert r["period_min"] == 1 and r["period_max"] == max(got), r
assert r["tables_count"] == "samples", r
print("ok: %d samples for %d events, periods %s, %d adaptation(s)" % (n, ev, sorted(set(got)), len(a)))
PY
grep -q "the samples stand for [0-9]* events (periods 1 to [0-9]*); the tables count samples, not events (perf report weights by period)" "$tmp/r.txt" ||
  { bad "report text: no mixed-periods line"; grep -A3 "^samples:" "$tmp/r.txt"; }
exit $fail
