#!/usr/bin/env bash
# stat reads as perf stat (issue 18): derived metrics (CPUs utilized, /sec,
# insn per cycle), user/sys time, -r N with the spread, the -I header,
# -a said as 'system wide', and -x fields as perf's, checked field by field
# against perf stat -x where perf is installed.
set -u
pms=${1:?usage: stat_perf.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

"$pms" stat -e task-clock,context-switches,page-faults -- true 2>"$tmp/h" || bad "stat rc"
grep -Eq 'msec +task-clock +# +[0-9.]+ CPUs utilized$' "$tmp/h" || bad "no CPUs utilized: $(cat "$tmp/h")"
grep -Eq 'page-faults +# +[0-9.]+ [KMG]?/sec$' "$tmp/h" || bad "no page-faults /sec: $(cat "$tmp/h")"
grep -Eq '^ +[0-9.]+ seconds user$' "$tmp/h" || bad "no user time: $(cat "$tmp/h")"
grep -Eq '^ +[0-9.]+ seconds sys$' "$tmp/h" || bad "no sys time: $(cat "$tmp/h")"
grep -q ' $' "$tmp/h" && bad "trailing spaces in: $(grep -n ' $' "$tmp/h")"

# -r N: the header says the runs, every counted row and the elapsed time the spread
"$pms" stat -r 3 -e task-clock,page-faults -- true 2>"$tmp/r" || bad "-r 3 rc"
grep -q "Performance counter stats for 'true' (3 runs):" "$tmp/r" || bad "-r header: $(cat "$tmp/r")"
[ "$(grep -Ec '\( \+- +[0-9.]+% \)$' "$tmp/r")" = 3 ] || bad "-r spreads: $(cat "$tmp/r")"
"$pms" stat -r 0 -- true >/dev/null 2>&1; [ $? = 2 ] || bad "-r 0 is not a usage error"
"$pms" stat -r 2 -a -e cpu-clock >/dev/null 2>&1; [ $? = 2 ] || bad "-r without a command is not a usage error"
"$pms" stat -j -r 2 -e page-faults -- true 2>"$tmp/rj"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["runs"] == 2 and "elapsed_stddev_pct" in d and "user_s" in d, d
assert "stddev_pct" in d["rows"][0]
' "$tmp/rj" || bad "-j -r: $(cat "$tmp/rj")"

# -a: 'system wide' (as perf)
if "$pms" stat -a -e cpu-clock -- sleep 0.05 2>"$tmp/a"; then
  grep -q "Performance counter stats for 'system wide':" "$tmp/a" || bad "-a header: $(cat "$tmp/a")"
else
  echo "SKIP -a: $(cat "$tmp/a")" >&2
fi
# -I: a header line first, as perf's
"$pms" stat -I 100 -e task-clock -- sleep 0.15 2>"$tmp/i"
head -1 "$tmp/i" | grep -Eq '^# +time +counts +unit +events$' || bad "-I header: $(head -2 "$tmp/i")"

# -x, fields: the same columns as perf stat -x, (value, unit, event, [var%,] run, pct, metric, metric unit)
"$pms" stat -x, -e task-clock,page-faults -- true 2>"$tmp/x" || bad "-x rc"
"$pms" stat -x, -r 2 -e task-clock,page-faults -- true 2>"$tmp/xr" || bad "-x -r rc"
if [ -x /usr/bin/perf ] && /usr/bin/perf stat -x, -e task-clock,page-faults -- true 2>"$tmp/px" >/dev/null &&
   grep -q task-clock "$tmp/px"; then
  /usr/bin/perf stat -x, -r 2 -e task-clock,page-faults -- true 2>"$tmp/pxr" >/dev/null
  for pair in "x px" "xr pxr"; do
    set -- $pair
    python3 - "$tmp/$1" "$tmp/$2" <<'PY' || bad "-x fields differ from perf ($1): $(cat "$tmp/$1") vs $(cat "$tmp/$2")"
import sys
ours = [l.rstrip("\n").split(",") for l in open(sys.argv[1]) if l.strip()]
perf = [l.rstrip("\n").split(",") for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert len(ours) == len(perf), (ours, perf)
for o, p in zip(ours, perf):
    assert len(o) == len(p), (o, p)
    assert o[1] == p[1] and o[2] == p[2], (o, p)      # unit, event
    assert o[-1] == p[-1], (o, p)                    # metric unit
    if len(o) == 8:
        assert o[3].endswith("%") and p[3].endswith("%"), (o, p)
PY
  done
else
  echo "SKIP perf -x comparison: perf stat unusable here" >&2
  awk -F, 'NF != 7 { exit 1 }' "$tmp/x" || bad "-x field count: $(cat "$tmp/x")"
fi
exit $fail
