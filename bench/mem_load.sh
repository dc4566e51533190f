#!/usr/bin/env bash
# Loss under load (issue 20): the built-in workload with 16 threads touching
# a 1 GiB buffer, recorded by `pmuscope mem` (the software fallback here),
# at several --period values.  Prints samples kept, lost, the loss ratio and
# whether the report warned.  Not a test: figures depend on the machine.
#   bench/mem_load.sh [PMUSCOPE [SIZE [THREADS [PERIODS...]]]]
set -u
pms=${1:-build/pmuscope}
size=${2:-1G}
threads=${3:-16}
shift $(( $# < 3 ? $# : 3 ))
periods=${*:-1 4 16 64}
printf '%-8s %10s %10s %8s  %s\n' period samples lost loss warned
for p in $periods; do
  "$pms" mem --json --quiet --size "$size" --threads "$threads" --steps 1 --period "$p" 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["samples"]
lost = s["lost"] + s["lost_samples"]
print("%-8s %10d %10d %7.1f%%  %s" % (sys.argv[1], s["total"], lost,
      100.0 * s.get("loss_ratio", 0.0), "yes" if s.get("loss_warning") else "no"))
' "$p" || echo "$p: pmuscope mem failed"
done
