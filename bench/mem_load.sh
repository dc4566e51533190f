#!/usr/bin/env bash
# Loss under load (issue 20): 16 processes each faulting in SIZE/16 of fresh
# memory at once (dd with a SIZE/16 block), recorded by `pmuscope mem` (the
# software fallback here), at several --period values and with --adapt
# ("adapt" in PERIODS).  Prints samples kept, lost, the loss ratio, whether
# the report warned, the events the samples stand for (sum of their periods,
# with --adapt) plus the lost ones (their sum is every page fault: nothing
# hidden), and the changes --adapt made.  Not a test: figures depend on the
# machine.
#   bench/mem_load.sh [PMUSCOPE [SIZE [THREADS [PERIODS...]]]]
#   bench/mem_load.sh build/pmuscope 1G 16 adapt adapt 1
set -u
pms=${1:-build/pmuscope}
size=${2:-1G}
threads=${3:-16}
shift $(( $# < 3 ? $# : 3 ))
periods=${*:-1 4 16 64 adapt}
mib=$(( $(numfmt --from=iec "$size") / 1048576 ))
per="$(( mib / threads ))M"
# the machine's load with every figure (a loaded 2-CPU VM loses more)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %10s %10s %8s  %-6s %10s  %s\n' period samples lost loss warned ev+lost changes
for p in $periods; do
  if [ "$p" = adapt ]; then opt=--adapt; else opt="--period $p"; fi
  # shellcheck disable=SC2086
  "$pms" mem --json --quiet $opt -- sh -c \
    "for i in \$(seq $threads); do dd if=/dev/zero of=/dev/null bs=$per count=1 2>/dev/null & done; wait" 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["samples"]
lost = s["lost"] + s["lost_samples"]
p = sys.argv[1]
ev = s.get("events", s["total"] * (int(p) if p.isdigit() else 1))
ch = " ".join("%.2fs:%d->%d" % (a["at_s"], a["old"], a["new"]) for a in s.get("adaptations", []))
print("%-8s %10d %10d %7.1f%%  %-6s %10d  %s" % (p, s["total"], lost,
      100.0 * s.get("loss_ratio", 0.0), "yes" if s.get("loss_warning") else "no",
      ev + lost * (int(p) if p.isdigit() else 1), ch))
' "$p" || echo "$p: pmuscope mem failed"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
