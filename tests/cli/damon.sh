#!/usr/bin/env bash
# pmuscope mem --engine damon: help, option errors, and the refusal of a
# snapshot root.  Never runs DAMON here: the build host's DAMON belongs to
# the host (live DAMON runs only in the x86damon QEMU bed).  $1 = pmuscope.
set -u
cli=${1:?usage: damon.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

"$cli" mem --engine damon --help >"$tmp/help" || bad "--engine damon --help exit status"
for w in --damon-sample-us --damon-aggr-us --damon-update-us --damon-min-regions \
	 --damon-max-regions --damon-pages "NOT reported: instruction" "own kdamond"; do
	grep -q -- "$w" "$tmp/help" || bad "--engine damon --help mentions '$w'"
done
"$cli" mem --help | grep -q "damon" || bad "mem --help mentions the damon engine"

err() { # expected-message args...
	local want=$1; shift
	if "$cli" mem --engine damon "$@" >"$tmp/out" 2>"$tmp/err"; then
		bad "accepted: $*"
	fi
	grep -q -- "$want" "$tmp/err" || { bad "message for '$*': want '$want', got: $(cat "$tmp/err")"; }
	[ -s "$tmp/out" ] && bad "stdout for '$*': $(cat "$tmp/out")"
}
err "--damon-aggr-us '0': want 1.." --damon-aggr-us 0 -- true
err "--damon-min-regions 'x'" --damon-min-regions x -- true
err "-o has no meaning with the damon engine" -o "$tmp/x.data" -- true
err "--period has no meaning" --period 100 -- true
err "-a (system-wide) is not supported" -a
err "give a command or -p, not both" -p 1 -- true
err "--json and --csv exclude each other" --json --csv -- true
err "want up to 8 process ids" -p 1,2,3,4,5,6,7,8,9
err "--engine 'ibs' here" --engine=damon --engine ibs -- true

# A snapshot root is never a place to start DAMON.
mkdir -p "$tmp/root/sys/kernel/mm/damon/admin/kdamonds"
echo 0 >"$tmp/root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
"$cli" --root "$tmp/root" mem --engine damon -- true >/dev/null 2>"$tmp/err" && bad "--root accepted"
grep -q "DAMON runs on this machine only" "$tmp/err" || bad "--root message: $(cat "$tmp/err")"
[ "$(cat "$tmp/root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds")" = 0 ] || bad "snapshot written"

exit $fail
