#!/usr/bin/env bash
# pmuscope migrate, mem --advise/--apply and report --advise on this machine
# (one node here: nothing moves; the multi-node cases run in the x86 bed and
# against the fake kernel, tests/advise).  $1 = pmuscope.
set -u
cli=${1:?usage: advise.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d)
sp=
trap '[ -n "$sp" ] && kill "$sp" 2>/dev/null; rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
expect_rc() { # want cmd...
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ "$rc" = "$want" ] || { bad "exit $rc (want $want): $*"; cat "$tmp/err"; }
}

# migrate: usage and refusals
expect_rc 2 "$cli" migrate --range 0x1000-0x2000 --to 0
expect_rc 2 "$cli" migrate -p 1 --range 0x2000-0x1000 --to 0
expect_rc 2 "$cli" migrate -p 1 --range 0x1000-0x2000 --to 0,
expect_rc 2 "$cli" migrate -p 1 --range 0x1000-0x2000 --to x
expect_rc 0 "$cli" migrate --help
grep -q -- "--range" "$tmp/out" || bad "migrate --help lists no --range"
expect_rc 1 "$cli" migrate -p 2147483646 --range 0x1000-0x2000 --to 0
grep -q "no process" "$tmp/err" || bad "no-process message: $(cat "$tmp/err")"

# migrate a live process's stack to the node it is on: every present page is
# there already, nothing fails
sleep 60 & sp=$!
sleep 0.2
range=$(awk '/\[stack\]/ {print $1}' /proc/$sp/maps)
node=$(ls -d /sys/devices/system/node/node* | head -1 | sed 's/.*node//')
if [ -n "$range" ]; then
  expect_rc 0 "$cli" migrate -p $sp --range 0x${range%-*}-0x${range#*-} --to "$node" --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
r = d["result"]
assert d["error"] is None, d
assert r["pages"] > 0 and r["failed"] == 0, r
assert r["already"] + r["moved"] + r["not_present"] == r["pages"], r
assert r["already"] >= 1, r        # the stack's top page is present
assert r["on_target_after"] == r["already"] + r["moved"], r
PY
  expect_rc 1 "$cli" migrate -p $sp --range 0x1000-0x2000 --to 999
  grep -q "node 999 does not exist" "$tmp/err" || bad "bad node message: $(cat "$tmp/err")"
else
  bad "no [stack] in /proc/$sp/maps"
fi

# mem --advise: the workload buffer is local on a one-node machine: leave it
expect_rc 2 "$cli" mem --apply --size 1M
grep -q "needs --duration" "$tmp/err" || bad "--apply without --duration: $(cat "$tmp/err")"
expect_rc 2 "$cli" mem --advise --csv --size 1M
if "$cli" mem --quiet --advise --json --size 4M >"$tmp/adv.json" 2>"$tmp/err"; then
  python3 - "$tmp/adv.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
a = d["advice"]
assert a["samples"] > 0, a
it = [i for i in a["items"] if i["kind"] == "workload"]
assert len(it) == 1, a["items"]
w = it[0]
assert w["action"] == "leave" and "already local" in w["reason"], w
assert w["remote_share"] == 0 and w["remote_hi"] < 0.1 and w["sure"], w
assert w["samples"] >= 1000 and w["mem_nodes"][0]["pages_sampled"] >= 1000, w
assert w["numactl"] is None and w["migrate"] is None, w
PY
  "$cli" mem --quiet --advise --size 4M >"$tmp/adv.txt" 2>"$tmp/err" || bad "mem --advise text"
  grep -q "Placement advice" "$tmp/adv.txt" || bad "no advice in the text report"
  grep -q "advice: LEAVE it" "$tmp/adv.txt" || bad "no LEAVE in the text report"
else
  grep -q "no sampling engine" "$tmp/err" && { echo "no sampling engine here"; exit 77; }
  bad "mem --advise: $(cat "$tmp/err")"
fi

# --apply: measure, apply (nothing to move here), measure again
if "$cli" mem --quiet --apply --duration 1 --json --size 16M --steps 400000000 \
     >"$tmp/apply.json" 2>"$tmp/err"; then :; fi
python3 - "$tmp/apply.json" <<'PY' || { fail=1; cat "$tmp/err"; }
import json, sys
d = json.load(open(sys.argv[1]))
a = d["advice"]
assert "before" in a and "after" in a, a.keys()
assert a["before"]["samples"] > 0, a["before"]
w = [i for i in a["items"] if i["kind"] == "workload"][0]
assert w["applied"] is None and w["before"]["samples"] > 0, w   # left: not migrated
assert w["after"] is not None, w
PY

# report --advise on a file with physical addresses
if "$cli" mem --quiet --phys -o "$tmp/p.data" --size 1M >/dev/null 2>"$tmp/err"; then
  expect_rc 0 "$cli" report --advise --json -i "$tmp/p.data"
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["advice"]; assert a["distances_assumed"] and not a["capacity_checked"], a' "$tmp/out" || bad "report --advise JSON"
  expect_rc 0 "$cli" report --advise -i "$tmp/p.data"
  grep -q "Placement advice" "$tmp/out" || bad "report --advise text"
else
  echo "note: --phys not allowed here, report --advise not run: $(head -1 "$tmp/err")"
fi
expect_rc 2 "$cli" report --advise --csv -i /dev/null
exit $fail
