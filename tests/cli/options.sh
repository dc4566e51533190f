#!/usr/bin/env bash
# The one option parser (tools/cli_opt.c) as every subcommand sees it:
# long options with '=' or a separate argument, -h/--help, 'pmuscope help
# CMD', and a usage error exits 2 with a one-line message naming the option
# (no help text dumped after it).  Issue 12 (CLI part).
set -u
pms=${1:?usage: options.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmds="mem datasrc list encode topology events report script stat c2c record migrate"

expect() { # name, want, got
  if [ "$2" != "$3" ]; then echo "FAIL: $1: want [$2] got [$3]"; fail=1; fi
}

for c in $cmds; do
  # help CMD == CMD --help == CMD -h, on stdout, exit 0
  "$pms" help "$c" >"$tmp/h1" 2>"$tmp/e"; expect "help $c exit" 0 $?
  "$pms" "$c" --help >"$tmp/h2"; expect "$c --help exit" 0 $?
  "$pms" "$c" -h >"$tmp/h3"; expect "$c -h exit" 0 $?
  cmp -s "$tmp/h1" "$tmp/h2" || { echo "FAIL: help $c differs from $c --help"; fail=1; }
  cmp -s "$tmp/h1" "$tmp/h3" || { echo "FAIL: $c -h differs from $c --help"; fail=1; }
  grep -q "^usage: pmuscope .*$c" "$tmp/h1" || { echo "FAIL: help $c is not $c's help"; head -3 "$tmp/h1"; fail=1; }
  grep -q "^  mem  *memory-access" "$tmp/h1" && [ "$c" != mem ] && { echo "FAIL: help $c prints the overview"; fail=1; }
  # every usage error exits 2, says what, and does not dump the help
  "$pms" "$c" --no-such-option >"$tmp/o" 2>"$tmp/e"; expect "$c --no-such-option exit" 2 $?
  [ -s "$tmp/o" ] && { echo "FAIL: $c usage error wrote stdout"; fail=1; }
  grep -q "^pmuscope: $c: '--no-such-option' is not an option" "$tmp/e" || { echo "FAIL: $c message: $(cat "$tmp/e")"; fail=1; }
  [ "$(wc -l <"$tmp/e")" -le 2 ] || { echo "FAIL: $c usage error prints $(wc -l <"$tmp/e") lines"; fail=1; }
  "$pms" "$c" -Q >/dev/null 2>"$tmp/e"; expect "$c -Q exit" 2 $?
  grep -q "'-Q'" "$tmp/e" || { echo "FAIL: $c -Q message: $(cat "$tmp/e")"; fail=1; }
  "$pms" "$c" --help=x >/dev/null 2>&1; expect "$c --help=x exit" 2 $?
done

# options that need an argument, given none: exit 2, named
for a in "mem --top" "report --top" "report -i" "script -F" "stat -e" "events --pmu" "encode --catalog" "datasrc --pebs"; do
  $pms $a >/dev/null 2>"$tmp/e"; expect "'$a' (no argument) exit" 2 $?
  grep -q "needs an argument" "$tmp/e" || { echo "FAIL: '$a' message: $(cat "$tmp/e")"; fail=1; }
done
# bad option values and conflicting options are usage errors too
for a in "mem --top=0" "report --top=x" "stat -I 0 -- true" "stat -p 0" "stat -x, --json -- true" \
         "stat" "encode" "datasrc" "report --samples" "report --json --csv" "list a b" "events a b" \
         "events --explain zz" "topology extra" "script one two" "mem --engine=nope" \
         "mem -p 1 -- true" "mem -m 3 -- true" "mem -m 0 -- true" "mem -m 1X -- true" "help nosuchcmd" "help mem stat"; do
  $pms $a >/dev/null 2>"$tmp/e"; expect "'$a' exit" 2 $?
  [ -s "$tmp/e" ] || { echo "FAIL: '$a' says nothing"; fail=1; }
done
# an abbreviation: unique is taken (as getopt_long and perf), several are named
"$pms" stat --per -- true >/dev/null 2>"$tmp/e"; expect "ambiguous --per exit" 2 $?
grep -q "'--per' is ambiguous: --per-cpu, --per-core" "$tmp/e" || { echo "FAIL: ambiguous message: $(cat "$tmp/e")"; fail=1; }
"$pms" report --to=2 --js -i /nonexistent >/dev/null 2>&1; expect "unique prefixes --to= --js" 1 $?
"$pms" nosuchcmd >/dev/null 2>&1; expect "unknown command exit" 2 $?
"$pms" >/dev/null 2>&1; expect "no command exit" 2 $?
"$pms" -V >/dev/null 2>"$tmp/e"; expect "-V exit" 2 $?
[ "$(wc -l <"$tmp/e")" -eq 1 ] || { echo "FAIL: -V prints more than the error: $(cat "$tmp/e")"; fail=1; }
"$pms" help >"$tmp/o"; expect "help exit" 0 $?
grep -q "^  report " "$tmp/o" || { echo "FAIL: help lists no commands"; fail=1; }
v=$("$pms" --version); expect "--version exit" 0 $?
case "$v" in "pmuscope version "[0-9]*) ;; *) echo "FAIL: --version says [$v]"; fail=1;; esac
expect "-v = --version" "$v" "$("$pms" -v)"

# long options with '=' and a separate argument, on the file commands
"$pms" mem --size=4M --quiet -o "$tmp/m.data" >/dev/null 2>"$tmp/e" || { echo "FAIL: mem -o: $(cat "$tmp/e")"; exit 1; }
"$pms" report --top=3 -i "$tmp/m.data" >"$tmp/r1" 2>"$tmp/e"; expect "report --top=3 exit" 0 $?
"$pms" report --top 3 --input="$tmp/m.data" >"$tmp/r2" 2>/dev/null; expect "report --top 3 exit" 0 $?
diff <(grep -v '(.* s)$' "$tmp/r1") <(grep -v '(.* s)$' "$tmp/r2") >/dev/null || { echo "FAIL: --top=3 and --top 3 differ"; fail=1; }
"$pms" report --top=3 --json -i "$tmp/m.data" >"$tmp/j" 2>/dev/null; expect "report --top=3 --json exit" 0 $?
python3 - "$tmp/j" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for k, v in d["top"].items():
    n += len(v)
    if len(v) > 3:
        print("FAIL: --top=3 gave %d entries in %s" % (len(v), k)); sys.exit(1)
if n == 0:
    print("FAIL: the top lists are empty"); sys.exit(1)
PY
"$pms" script --json -F ip -i "$tmp/m.data" >"$tmp/s" 2>"$tmp/e"; expect "script --json -F ip exit" 0 $?
python3 - "$tmp/s" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
if not rows:
    print("FAIL: script --json -F ip printed nothing"); sys.exit(1)
for r in rows:
    if list(r) != ["ip"] or not r["ip"].startswith("0x"):
        print("FAIL: script --json -F ip row", r); sys.exit(1)
PY
"$pms" script --fields=ip -i "$tmp/m.data" | head -1 | grep -Eq '^ *(0x)?[0-9a-f]+$' || { echo "FAIL: script --fields=ip"; fail=1; }
"$pms" stat --event=task-clock -x, -- true 2>"$tmp/e" >/dev/null; expect "stat --event= exit" 0 $?
exit $fail
