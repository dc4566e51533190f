#!/usr/bin/env bash
# `pmuscope report --fetch` (issue 31 row 2) on the seed files' one fetch
# sample each, as perf 6.12's `report -D` decodes it (amd-sample-raw.c):
# Zen 4 (25,17): IcMiss 0, L1TlbPgSz 2MB, Comp 1, L2Miss 0, the Zen 4
# fields; Zen 3 (25,1, erratum 1347): no IcMiss, L1TlbPgSz 16KB.  A file
# without an ibs_fetch event is refused; a bad --fetch argument is a usage
# error.  $1 = pmuscope.
set -u
pms=${1:?usage: report_fetch.sh PMUSCOPE}
seeds=$(dirname "$0")/../fuzz/corpus/auxtrace
fail=0
bad() { echo "FAIL: $*"; fail=1; }
z4=$("$pms" report --fetch -i "$seeds/ibs_zen4.data" 2>&1) || bad "zen4: exit $?"
echo "$z4" | grep -q "1 kept, 0 the driver drops" || bad "zen4 header: $z4"
# samples lat IC L2 L3 OC iL1 iL2 iMiss refill pages
echo "$z4" | grep -Eq "^ +1 +0\.0 +0\.0% +0\.0% +0\.0% +0\.0% +100\.0% +0\.0% +0\.0% +- +0/0/1/0  total$" ||
  bad "zen4 total row: $z4"
z3=$("$pms" report --fetch -i "$seeds/ibs_zen3.data" 2>&1) || bad "zen3: exit $?"
echo "$z3" | grep -Eq "^ +1 +0\.0 +- +0\.0% +- +- +100\.0% +0\.0% +0\.0% +- +0/1/0/0  total$" ||
  bad "zen3 total row (no IcMiss, 16K page, no Zen 4 fields): $z3"
out=$("$pms" report --fetch -i "$seeds/spe_v1_n1.data" 2>&1) && bad "a file without ibs_fetch accepted"
echo "$out" | grep -q "no ibs_fetch event" || bad "refusal: $out"
"$pms" report --fetch=x -i "$seeds/ibs_zen4.data" >/dev/null 2>&1
[ $? -eq 2 ] || bad "--fetch=x is not a usage error"
[ $fail -eq 0 ] && echo "ok: report --fetch on the Zen 4 and Zen 3 seed files"
exit $fail
