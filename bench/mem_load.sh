#!/usr/bin/env bash
# Loss under load (issue 20): 16 processes each faulting in SIZE/16 of fresh
# memory at once (dd with a SIZE/16 block), recorded by `pmuscope mem` (the
# software fallback here), at several --period values.  Prints samples kept, lost, the loss ratio and
# whether the report warned.  Not a test: figures depend on the machine.
#   bench/mem_load.sh [PMUSCOPE [SIZE [THREADS [PERIODS...]]]]
set -u
pms=${1:-build/pmuscope}
size=${2:-1G}
threads=${3:-16}
shift $(( $# < 3 ? $# : 3 ))
periods=${*:-1 4 16 64}
mib=$(( $(numfmt --from=iec "$size") / 1048576 ))
per="$(( mib / threads ))M"
printf '%-8s %10s %10s %8s  %s\n' period samples lost loss warned
for p in $periods; do
  "$pms" mem --json --quiet --period "$p" -- sh -c \
    "for i in \$(seq $threads); do dd if=/dev/zero of=/dev/null bs=$per count=1 2>/dev/null & done; wait" 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["samples"]
lost = s["lost"] + s["lost_samples"]
print("%-8s %10d %10d %7.1f%%  %s" % (sys.argv[1], s["total"], lost,
      100.0 * s.get("loss_ratio", 0.0), "yes" if s.get("loss_warning") else "no"))
' "$p" || echo "$p: pmuscope mem failed"
done
