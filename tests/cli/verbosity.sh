#!/usr/bin/env bash
# Noise (issue 30 item 6): -v and -q on every command; mem's default engine
# line is one short line with the reason in a few words, the engine ladder
# ("tried ...") only with -v and in JSON.
set -u
pms=${1:?usage: verbosity.sh PMUSCOPE}
export PMUSCOPE_NO_DAMON=1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
cmds=$("$pms" help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on && $1 != "help" { print $1 }')
[ -n "$cmds" ] || bad "no commands"
for c in $cmds; do
  for f in -v -q --verbose --quiet; do
    "$pms" "$c" $f --help >"$tmp/h" 2>"$tmp/e" || bad "$c $f: exit $?: $(cat "$tmp/e")"
  done
  "$pms" "$c" --help | grep -Eq -- '^  -v, --verbose|^  -q, --quiet' || bad "$c --help lists neither -v nor -q"
done
# a COMMAND's text report is on stderr (its stdout is the command's)
"$pms" mem -- true >"$tmp/e" 2>"$tmp/t" || bad "mem: $(cat "$tmp/t")"
n=$(grep -c '^engine: ' "$tmp/t")
[ "$n" = 1 ] || bad "want one engine line, got $n"
len=$(grep '^engine: ' "$tmp/t" | awk '{ print length($0) }')
[ "${len:-999}" -le 100 ] || bad "engine line is $len characters: $(grep '^engine: ' "$tmp/t")"
grep -q '^  tried ' "$tmp/t" "$tmp/e" && bad "the ladder without -v: $(grep tried "$tmp/t")"
if grep -q '^engine: software' "$tmp/t"; then
  grep -q '^engine: software page faults (no precise PMU here' "$tmp/t" || bad "reason: $(grep '^engine: ' "$tmp/t")"
fi
"$pms" mem -v -- true >"$tmp/v" 2>&1 || bad "mem -v"
grep -q '^  tried ' "$tmp/v" || bad "mem -v: no ladder: $(head -5 "$tmp/v")"
"$pms" mem --json -- true >"$tmp/j" 2>/dev/null || bad "mem --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["attempts"]) >= 1 and d["engine"]["label"]' "$tmp/j" || bad "JSON lost the ladder"
# -q: no progress line even when asked for one
"$pms" mem -q --progress -- true >/dev/null 2>"$tmp/e" || bad "mem -q"
# (a COMMAND's text report is on stderr too: the progress line is the one
# with a carriage return)
[ "$(tr -dc '\r' <"$tmp/e" | wc -c)" = 0 ] || bad "mem -q printed progress"
exit $fail
