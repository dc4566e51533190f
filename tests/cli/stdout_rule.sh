#!/usr/bin/env bash
# Exports never share a command's stdout unless asked with '-' (issue 30
# item 7): mem --folded -- CMD is refused without --folded-to; --folded-to
# FILE keeps the command's output out of the stacks, --folded-to - shares
# stdout on purpose; report --folded-to FILE writes the file.
set -u
pms=${1:?usage: stdout_rule.sh PMUSCOPE}
export PMUSCOPE_NO_DAMON=1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
"$pms" mem -q -g --folded -- echo MARKER >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] || bad "mem --folded -- CMD: exit $rc, want 2"
grep -q -- "give --folded-to FILE" "$tmp/e" || bad "message: $(cat "$tmp/e")"
grep -q MARKER "$tmp/o" && bad "the command ran"
"$pms" mem -q -g --folded-to "$tmp/s.folded" -- echo MARKER >"$tmp/o" 2>"$tmp/e" || bad "--folded-to FILE: $(cat "$tmp/e")"
[ "$(cat "$tmp/o")" = MARKER ] || bad "stdout is not the command's alone: $(head -3 "$tmp/o")"
grep -q MARKER "$tmp/s.folded" && bad "the command's output in the stacks"
grep -Eq ' [0-9]+$' "$tmp/s.folded" || bad "no stacks in the file: $(head -3 "$tmp/s.folded")"
"$pms" mem -q -g --folded-to - -- echo MARKER >"$tmp/o" 2>/dev/null || bad "--folded-to -"
grep -q '^MARKER$' "$tmp/o" && grep -Eq ' [0-9]+$' "$tmp/o" || bad "--folded-to - does not share stdout: $(head -3 "$tmp/o")"
# the built-in workload has no stdout of its own: --folded alone is fine
"$pms" mem -q --size 4M --folded >"$tmp/w" 2>/dev/null || bad "mem --folded (workload)"
grep -Eq ' [0-9]+$' "$tmp/w" || bad "workload --folded: $(head -3 "$tmp/w")"
# the human report of a COMMAND follows perf stat's rule: stderr (or
# --report-file), never the command's stdout; after the run, in one piece
"$pms" mem -q -- sh -c 'echo MARKER' >"$tmp/o" 2>"$tmp/e" || bad "mem -- CMD: $(cat "$tmp/e")"
[ "$(cat "$tmp/o")" = MARKER ] || bad "mem -- CMD: stdout is not the command's alone: $(head -3 "$tmp/o")"
grep -q '^pmuscope mem: command sh -c echo MARKER' "$tmp/e" || bad "mem -- CMD: no report on stderr: $(head -3 "$tmp/e")"
grep -q '^engine: ' "$tmp/e" || bad "mem -- CMD: no engine line on stderr"
# --json is asked for on stdout: it stays there (a clean document needs
# --report-file); the built-in workload has no stdout: the report is there
"$pms" mem -q --json -- true >"$tmp/o" 2>/dev/null || bad "mem --json -- CMD"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/o" || bad "mem --json -- CMD: stdout not JSON"
"$pms" mem -q --size 1M >"$tmp/o" 2>/dev/null || bad "mem (workload)"
grep -q '^pmuscope mem: built-in pointer chase' "$tmp/o" || bad "workload report not on stdout"
# c2c and record of a COMMAND: the same rule
"$pms" c2c -- sh -c 'echo MARKER' >"$tmp/o" 2>"$tmp/e" || bad "c2c -- CMD: $(cat "$tmp/e")"
[ "$(cat "$tmp/o")" = MARKER ] || bad "c2c -- CMD: stdout is not the command's alone: $(head -3 "$tmp/o")"
grep -q '^pmuscope c2c' "$tmp/e" || bad "c2c -- CMD: no report on stderr: $(head -3 "$tmp/e")"
"$pms" c2c --json -- true >"$tmp/o" 2>/dev/null || bad "c2c --json -- CMD"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/o" || bad "c2c --json -- CMD: stdout not JSON"
"$pms" record -e page-faults -- sh -c 'echo MARKER' >"$tmp/o" 2>"$tmp/e" || bad "record -- CMD: $(cat "$tmp/e")"
[ "$(cat "$tmp/o")" = MARKER ] || bad "record -- CMD: stdout is not the command's alone: $(head -3 "$tmp/o")"
grep -q '^pmuscope record: ' "$tmp/e" || bad "record -- CMD: no report on stderr: $(head -3 "$tmp/e")"
exit $fail
