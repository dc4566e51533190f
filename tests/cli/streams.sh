#!/usr/bin/env bash
# Streams, files and exit codes (issue 18): stat writes its counts to stderr
# as perf stat does (-o FILE instead), its --json is the only thing on that
# stream, mem's report can go to a file apart from the command's output, and
# the command's exit status comes back (127/126 when it cannot be run).
set -u
pms=${1:?usage: streams.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

# stat: the command's stdout stays its own; the counts are on stderr
"$pms" stat -e task-clock,page-faults -- sh -c 'echo out-of-command' >"$tmp/o" 2>"$tmp/e" || bad "stat rc $?"
[ "$(cat "$tmp/o")" = out-of-command ] || bad "stat stdout holds more than the command's: $(cat "$tmp/o")"
grep -q 'page-faults' "$tmp/e" || bad "stat counts not on stderr: $(cat "$tmp/e")"
grep -q 'Performance counter stats for' "$tmp/e" || bad "stat header not on stderr"
"$pms" stat -e task-clock -- ls /usr >/dev/null 2>"$tmp/e"; grep -q 'task-clock' "$tmp/e" || bad "stat -- ls >/dev/null shows nothing"
# -o FILE: counts there, stderr empty, --append adds
"$pms" stat -e page-faults -o "$tmp/c.txt" -- true 2>"$tmp/e" || bad "stat -o rc"
[ -s "$tmp/e" ] && bad "stat -o still wrote stderr: $(cat "$tmp/e")"
grep -q 'page-faults' "$tmp/c.txt" || bad "stat -o file: $(cat "$tmp/c.txt")"
"$pms" stat -e page-faults -o "$tmp/c.txt" --append -- true 2>/dev/null
[ "$(grep -c 'page-faults' "$tmp/c.txt")" = 2 ] || bad "--append did not append"
"$pms" stat -e page-faults --output=/nonexistent/dir/f -- true 2>"$tmp/e"; rc=$?
[ $rc = 74 ] || bad "stat -o into a missing dir: rc $rc, want 74"
grep -q "^pmuscope: stat: -o /nonexistent/dir/f: No such file" "$tmp/e" || bad "stat -o error: $(cat "$tmp/e")"
# --json / -j: the stream holds one JSON document and nothing else
"$pms" stat -j -e page-faults -- sh -c 'echo x; echo y >&2' >"$tmp/o" 2>"$tmp/e" || bad "stat -j rc"
[ "$(cat "$tmp/o")" = x ] || bad "stat -j stdout: $(cat "$tmp/o")"
"$pms" stat --json -e task-clock,page-faults -o "$tmp/j" -- sh -c 'echo noise >&2' 2>/dev/null || bad "stat --json -o rc"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["rows"]' "$tmp/j" || bad "stat --json -o not pure JSON: $(cat "$tmp/j")"
"$pms" stat --json -e task-clock -- true 2>"$tmp/j2" >/dev/null
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j2" || bad "stat --json stderr not pure JSON: $(cat "$tmp/j2")"

# exit status of the command, for stat and mem
"$pms" stat -e task-clock -- sh -c 'exit 3' 2>/dev/null; [ $? = 3 ] || bad "stat: status 3 not passed on"
"$pms" stat -e task-clock -- sh -c 'kill -TERM $$' 2>/dev/null; rc=$?; [ $rc = 143 ] || bad "stat: SIGTERM gave $rc, want 143"
"$pms" stat -e task-clock -- /nonexistent/cmd 2>"$tmp/e"; rc=$?
[ $rc = 127 ] || bad "stat of a missing command: rc $rc, want 127"
grep -q "^pmuscope: stat: cannot run '/nonexistent/cmd': No such file or directory" "$tmp/e" || bad "stat missing command: $(cat "$tmp/e")"
"$pms" mem --quiet -- /nonexistent/cmd >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 127 ] || bad "mem of a missing command: rc $rc, want 127"
grep -q "^pmuscope: mem: cannot run '/nonexistent/cmd': No such file or directory" "$tmp/e" || bad "mem missing command: $(cat "$tmp/e")"
echo data >"$tmp/noexec"; chmod 644 "$tmp/noexec"
"$pms" mem --quiet -- "$tmp/noexec" >/dev/null 2>&1; rc=$?; [ $rc = 126 ] || bad "mem of a non-executable: rc $rc, want 126"

# mem: the report apart from the command's output
"$pms" mem --quiet --report-file "$tmp/r.txt" -- sh -c 'echo from-command; exit 4' >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 4 ] || bad "mem --report-file: rc $rc, want the command's 4"
[ "$(cat "$tmp/o")" = from-command ] || bad "mem stdout holds more than the command's: $(head -3 "$tmp/o")"
grep -q '^pmuscope mem: command' "$tmp/r.txt" || bad "report file: $(head -3 "$tmp/r.txt")"
"$pms" mem --quiet --json --report-file "$tmp/r.json" -- sh -c 'echo noise' >/dev/null 2>&1
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/r.json" || bad "mem --json --report-file not pure JSON"
"$pms" mem --quiet --report-file /nonexistent/dir/r -- true >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 74 ] || bad "mem --report-file into a missing dir: rc $rc, want 74"
grep -q "report-file /nonexistent/dir/r: No such file" "$tmp/e" || bad "mem --report-file error: $(cat "$tmp/e")"
# -o onto a path that cannot be created: 74 (as a failed write), the path named (issue 32 item 11)
for c in "mem --quiet" record; do
  "$pms" $c -o /nonexistent/dir/x.data -- true >/dev/null 2>"$tmp/e"; rc=$?
  [ $rc = 74 ] || bad "$c -o into a missing dir: rc $rc, want 74"
  grep -q -- "-o /nonexistent/dir/x.data: No such file or directory" "$tmp/e" || bad "$c -o error: $(cat "$tmp/e")"
done
exit $fail
