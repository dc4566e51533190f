#!/usr/bin/env bash
# Exit holds under many processes (issue 34): `mem -- COMMAND` of a shell
# loop of short processes holds every one at exit, asks about its pages
# and lets it go; the report's exit-hold line and numa.exit_holds count
# them, no sample's process is gone before it was asked about, and pages of
# an address space an exec replaced are said so, not "not mapped".  With
# the smallest --hold-budget only the first process of each batch is asked
# about (released = threads - batches); 'none' lets none go unasked.
# --hold-budget is parsed the same by mem, record and c2c.  No timing is
# asserted: the outer timeout is only a hang guard.
set -u
pms=${1:?usage: hold.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PERF_CONFIG=/dev/null LC_ALL=C PMUSCOPE_NO_DAMON=1
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON"; exit 77; }
bad() { echo "FAIL: $*"; fail=1; }

# usage: the value, for each command that holds
for c in mem record c2c; do
  "$pms" $c --hold-budget x -- true >/dev/null 2>"$tmp/e"; [ $? = 2 ] || bad "$c --hold-budget x exit"
  grep -q "hold-budget" "$tmp/e" || bad "$c --hold-budget x message: $(cat "$tmp/e")"
  "$pms" $c --hold-budget -1 -- true >/dev/null 2>&1; [ $? = 2 ] || bad "$c --hold-budget -1 exit"
  "$pms" $c --help | grep -q -- "--hold-budget MS" || bad "$c --help lacks --hold-budget"
done
"$pms" c2c -i "$tmp/none" --hold-budget 3 >/dev/null 2>&1; [ $? = 2 ] || bad "c2c -i with --hold-budget exit"

loop='for i in $(seq 40); do /bin/true; done'
probe=$(timeout 300 "$pms" mem --json --quiet -- true 2>"$tmp/e")
case "$probe" in
  *'"exit_hold": "held"'*) ;;
  *) echo "SKIP: no held live run here: $(head -2 "$tmp/e")"; exit 77 ;;
esac

# no budget: every process held and asked about
timeout 300 "$pms" mem --json --quiet --hold-budget none -- sh -c "$loop" >"$tmp/none.json" 2>"$tmp/e" \
  || bad "mem --hold-budget none: exit $? $(head -3 "$tmp/e")"
python3 - "$tmp/none.json" <<'EOF' || fail=1
import json, sys
n = json.load(open(sys.argv[1]))["numa"]
h = n["exit_holds"]
ok = True
def want(what, cond):
    global ok
    if not cond:
        print("FAIL: none: %s (%s)" % (what, json.dumps({k: n[k] for k in n if k not in ("matrix", "nodes")})))
        ok = False
want("the shell, seq's subshell and 40 processes held", h["processes"] >= 42)
want("threads >= processes", h["threads"] >= h["processes"] >= 1)
want("batches", 1 <= h["batches"] <= h["threads"])
want("no budget", h["budget_ms"] is None and h["released_at_budget"] == 0 and n["hold_budget"] == 0)
want("longest <= total", 0 <= h["longest_ms"] <= h["total_ms"])
want("no process gone before it was asked about", n["process_gone"] == 0)
want("samples resolved", n["resolved"] > 0)
want("statuses add up", n["efault"] + n["enoent"] + n["process_gone"] + n["other_status"] +
     n["not_asked"] + n["exec_replaced"] + n["hold_budget"] == n["unresolved"])
sys.exit(0 if ok else 1)
EOF

# the text report's line
timeout 300 "$pms" mem --quiet -- sh -c 'for i in 1 2 3; do /bin/true; done' >/dev/null 2>"$tmp/t.txt" \
  || bad "mem text: exit $? $(head -3 "$tmp/t.txt")"
grep -qE "^  exit holds: [0-9]+ processes held \([0-9]+ threads\), [0-9.]+ ms in all, longest [0-9.]+ ms; 0 let go at the hold budget$" "$tmp/t.txt" \
  || bad "text exit-holds line: $(grep 'exit holds' "$tmp/t.txt")"

# the smallest budget: only the first of each batch asked about; exits
# that come together (background jobs) make batches of several
timeout 300 "$pms" mem --json --quiet --hold-budget 0 -- sh -c 'for i in $(seq 16); do /bin/true & done; wait' \
  >"$tmp/zero.json" 2>"$tmp/e" || bad "mem --hold-budget 0: exit $? $(head -3 "$tmp/e")"
python3 - "$tmp/zero.json" <<'EOF' || fail=1
import json, sys
n = json.load(open(sys.argv[1]))["numa"]
h = n["exit_holds"]
ok = True
def want(what, cond):
    global ok
    if not cond:
        print("FAIL: zero: %s (%s)" % (what, json.dumps(h)))
        ok = False
want("17 processes held", h["processes"] >= 17)
want("all but one per batch let go", h["released_at_budget"] == h["threads"] - h["batches"])
want("budget said", h["budget_ms"] is not None and h["budget_ms"] < 0.001)
want("released samples counted so, not gone", n["process_gone"] == 0 and
     (n["hold_budget"] == 0 or h["released_at_budget"] > 0))
print("# %d batches of %d held, %d let go at the budget with %d samples" % (
    h["batches"], h["threads"], h["released_at_budget"], n["hold_budget"]))
sys.exit(0 if ok else 1)
EOF

# record holds too (its JSON has no node counts: it runs and ends)
timeout 300 "$pms" record --hold-budget 2 -- sh -c "$loop" >/dev/null 2>"$tmp/e" || bad "record: exit $? $(head -3 "$tmp/e")"
exit $fail
