#!/usr/bin/env bash
# mem --adapt (issue 20): with rings of one page the first poll finds them
# full, and the sampler reopens its events on the command's tasks with a
# larger period.  The report says each change (text and JSON), every sample
# keeps its period (the JSON's events is the sum of them), and the samples'
# periods plus the records lost account for the command's page faults.
# (--adapt with -o: adapt_record.sh.)  $1 = the pmuscope binary.
set -u
pms=${1:?usage: adapt.sh PMUSCOPE}
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 4 processes x 8 MiB of fresh pages: 8192 page faults and some more
wl='for i in 1 2 3 4; do dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null & done; wait'
"$pms" mem --quiet --json --adapt -m 1 -- sh -c "$wl" >"$tmp/a.json" 2>"$tmp/a.err"
rc=$?
if [ $rc != 0 ]; then
  if grep -q "no sampling engine\|perf_event_open" "$tmp/a.err"; then
    echo "no perf events here:"; cat "$tmp/a.err"; exit 77
  fi
  bad "mem --adapt exit $rc"; cat "$tmp/a.err"
fi
python3 - "$tmp/a.json" <<'PY' || bad "JSON adaptations"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["samples"]
a = s.get("adaptations")
assert s.get("adapt") is True, "samples.adapt"
assert a, "no adaptation with one-page rings: %s" % s
prev = None
for x in a:
    assert x["new"] > x["old"], x
    assert x["new_ring_pages"] >= x["old_ring_pages"], x
    # the drain thread finds a ring half full (it came a quarter ring late),
    # or the poller a quarter of a ring written since its last poll, or loss
    assert x["fill_pct"] >= 50 or x["rate_pct"] >= 25 or x["lost_records"] * 50 > x["kept_records"] + x["lost_records"], x
    assert x["new_streams"] >= 1 and x["tasks"] >= 1, x
    if prev:
        assert x["old"] == prev["new"], (prev, x)
    prev = x
assert a[0]["old"] == 1, a[0]
ev, lost = s["events"], s["lost"] + s["lost_samples"]
# every sample stands for its period: the sum covers more than the samples
assert ev > s["total"], (ev, s["total"])
# the periods plus the lost records (each worth the period of its ring:
# at most the last one) reach the 8192 faults of the buffers, and the
# samples' periods do not overshoot the faults (about 300 more for the
# shell, dd and the loader)
# ... less what no sample took: each counter ends (closed at a change, or
# at the end) with fewer events than its period since its last sample (the
# kernel samples on the period's overflow), at most one counter a task of
# the workload (sh and 4 dd, their forks) for each period.  Under ASan the
# sampler adapts further (512 in one run: 7681 events, 0 lost, for 8192
# faults).
tasks = max(x["tasks"] for x in a) + 6
rest = tasks * (sum(x["old"] - 1 for x in a) + a[-1]["new"] - 1)
assert ev + lost * a[-1]["new"] + rest >= 8192 * 0.95, (ev, lost, a[-1]["new"], rest)
assert ev <= 8192 + 4000, ev
# the tables count samples; each change says the events its old samples
# stood for, and they add up with the last period's samples to events
assert s["tables_count"] == "samples", s.get("tables_count")
for x in a:
    assert x["old_events"] == x["old_samples"] * x["old"], x
assert sum(x["old_events"] for x in a) <= ev, (a, ev)
print("ok: %d adaptation(s), %d samples for %d events, %d lost" % (len(a), s["total"], ev, lost))
PY
"$pms" mem --quiet --adapt -m 1 -- sh -c "$wl" >"$tmp/a.txt" 2>&1
grep -q "adapted at [0-9.]* s: period 1 -> [0-9]*, ring 1 -> 2 pages" "$tmp/a.txt" ||
  { bad "text: no adaptation line"; grep -A3 "^samples:" "$tmp/a.txt"; }
grep -q "the samples stand for [0-9]* events (the sum of their periods); the tables count samples, not events (perf report weights by period): the [0-9]* samples before the first change are [0-9.]*% of the samples and [0-9.]*% of the events" "$tmp/a.txt" ||
  { bad "text: no weighting line"; grep -A6 "^samples:" "$tmp/a.txt"; }

# without --adapt, --period 4: every sample stands for 4 events, and the
# report says its tables count samples (the same shares as perf's
# period-weighted ones, with one period)
"$pms" mem --quiet --json --period 4 -- sh -c "$wl" >"$tmp/p.json" 2>"$tmp/p.err" ||
  { bad "mem --period 4"; cat "$tmp/p.err"; }
python3 - "$tmp/p.json" <<'PY' || bad "JSON --period 4"
import json, sys
s = json.load(open(sys.argv[1]))["samples"]
assert s["tables_count"] == "samples", s
assert s["events"] == 4 * s["total"], (s["events"], s["total"])
assert "adaptations" not in s, s
PY
"$pms" mem --quiet --period 4 -- sh -c "$wl" >"$tmp/p.txt" 2>&1
grep -q "the samples stand for [0-9]* events (period 4); the tables count samples" "$tmp/p.txt" ||
  { bad "text --period 4: no weighting line"; grep -A3 "^samples:" "$tmp/p.txt"; }
exit $fail
