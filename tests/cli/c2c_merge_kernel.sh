#!/usr/bin/env bash
# c2c -i A -i B: one model of both files, each file's kernel IPs named by
# the per-file kernel rule (session/session_kmods.c sess_kernel_judge):
# A lists the running kernel's build id (a written root's), B another's;
# files written by kernel_file_gen.py (the same samples in each).
#  - A's kernel and module IPs are named as c2c -i A names them, B's stay
#    "[kernel]" as c2c -i B leaves them: offset rows of their own, so the
#    merged offsets (ip, function, records) are A's plus B's;
#  - each line's records are the sum of the two files' (before: c2c kept
#    only the last -i, silently);
#  - the order of the files does not change what is named.
set -u
pms=${1:?usage: c2c_merge_kernel.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gen=$(cd "$(dirname "$0")" && pwd)/kernel_file_gen.py
root=$tmp/root
python3 "$gen" "$tmp/a.data" "$root" /lib/modules/x/fake-mod.ko none kfirst &&
  python3 "$gen" "$tmp/b.data" "$root" /lib/modules/x/fake-mod.ko none kfirst \
    --kid 00112233445566778899aabbccddeeff00112233 || { echo "FAIL: could not write the files"; exit 1; }
c2c() { # OUT FILES...
  local out=$1; shift
  local args=()
  for f in "$@"; do args+=(-i "$tmp/$f.data"); done
  PMS_NO_DAMON=1 "$pms" --root "$root" c2c --json --all "${args[@]}" >"$tmp/$out.json" 2>"$tmp/e" ||
    { echo "FAIL: c2c $*: $(head -2 "$tmp/e")"; fail=1; }
}
c2c a a; c2c b b; c2c ab a b; c2c ba b a

python3 - "$tmp" <<'PY' || fail=1
import collections, json, sys
tmp = sys.argv[1]
bad = []
def offsets(name):
    """(line address, ip, function) -> records, and the offset rows"""
    c, rows = collections.Counter(), 0
    for l in json.load(open(f"{tmp}/{name}.json"))["lines"]:
        for o in l["offsets"]:
            c[(l["address"], o["ip"], o["function"])] += o["stats"]["tot_recs"]
            rows += 1
    return c, rows
(a, na), (b, nb) = offsets("a"), offsets("b")
named = {k for k in a if k[2] != "[kernel]"}
if not {"core_fn_a", "core_last", "ks_mod_a"} <= {k[2] for k in named}:
    bad.append(f"c2c -i A names {sorted({k[2] for k in named})}")
if {k[2] for k in b} != {"[kernel]"}:
    bad.append(f"c2c -i B names {sorted({k[2] for k in b})}")
for m in ("ab", "ba"):
    got, rows = offsets(m)
    if got != a + b:
        bad.append(f"{m}: offsets differ from A's plus B's: only merged {sorted((got - (a + b)).items())[:3]}, "
                   f"missing {sorted(((a + b) - got).items())[:3]}")
    if rows != na + nb:
        bad.append(f"{m}: {rows} offset rows, A and B have {na} + {nb}")
print(f"A: {na} offsets, {len(named)} named; B: {nb}, none named")
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo "ok: c2c -i A -i B names A's kernel IPs, leaves B's apart and unnamed"
exit $fail
