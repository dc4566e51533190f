#!/usr/bin/env bash
# Options the chosen engine cannot honour are said, never silent (issue 30
# item 3): one line each in the text report, engine.not_honoured in JSON, a
# stderr line where no text report is shown, an error with --strict before
# the command runs.  On this host the software engine is the one that
# runs (no PMU); with a precise engine present the test skips.
set -u
pms=${1:?usage: honour.sh PMUSCOPE}
export PMUSCOPE_NO_DAMON=1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
"$pms" mem -t load --ldlat 300 -- true >"$tmp/t" 2>"$tmp/e" || bad "mem exit $?: $(cat "$tmp/e")"
grep -q '^engine: software' "$tmp/t" "$tmp/e" || { echo "SKIP: a precise engine here" >&2; exit 77; }
cat "$tmp/t" "$tmp/e" >"$tmp/all"
[ "$(grep -c '^  not honoured: ' "$tmp/all")" = 2 ] || bad "want two not-honoured lines: $(cat "$tmp/all")"
grep -q '^  not honoured: -t load: stores are sampled too' "$tmp/all" || bad "-t load line"
grep -q '^  not honoured: --ldlat: ' "$tmp/all" || bad "--ldlat line"
# nothing to say without such options
"$pms" mem -- true >"$tmp/t" 2>&1 || bad "plain mem"
grep -q 'not honoured' "$tmp/t" && bad "plain mem says not honoured"
# JSON: in the engine object; and on stderr, where no text report is shown
"$pms" mem --json -t store -- true >"$tmp/j" 2>"$tmp/e" || bad "--json exit"
grep -q "pmuscope: mem: -t store is not honoured by the software engine" "$tmp/e" || bad "--json stderr: $(cat "$tmp/e")"
python3 - "$tmp/j" <<'PY' || bad "json: $(head -c 300 "$tmp/j")"
import json, sys
e = json.load(open(sys.argv[1]))["engine"]
assert [u["option"] for u in e["not_honoured"]] == ["-t store"], e
PY
# --strict: an error, and the command never runs
"$pms" mem --strict -t load -- touch "$tmp/ran" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 1 ] || bad "--strict exit $rc, want 1"
grep -q 'error: -t load is not honoured by the software engine' "$tmp/e" || bad "--strict message: $(cat "$tmp/e")"
[ -e "$tmp/ran" ] && bad "--strict ran the command"
"$pms" mem --strict -- true >/dev/null 2>&1 || bad "--strict with nothing unhonoured failed"
exit $fail
