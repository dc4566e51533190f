#!/usr/bin/env bash
# pmuscope mem's Arm SPE filter options (perf's arm_spe event terms
# event_filter, inv_event_filter, inv_data_src_filter): malformed masks and
# another engine are usage errors (exit 2); on a machine without an SPE PMU
# (this one) the open is refused with the reason (exit 1), never an
# unfiltered fallback.  What the library programs is tested on the fake
# kernel (tests/sample/test_probe.c spe_inv_event_and_data_source_filters).
# $1 = pmuscope
set -u
cli=${1:?usage: spe_filters.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

for args in "--spe-event-filter=x" "--spe-inv-event-filter=0" "--spe-inv-data-src-filter=-1" \
            "--spe-data-src=64" "--spe-data-src=x" "--spe-data-src=" "--engine ibs --spe-data-src=0,3" \
            "--engine ibs --spe-event-filter=0x8" "--engine software --spe-inv-event-filter 4"; do
  # shellcheck disable=SC2086
  "$cli" mem $args -- true >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 2 ] || bad "mem $args: exit $rc, want 2 (usage)"
  grep -q "spe" "$tmp/err" || bad "mem $args: the message does not name the option: $(cat "$tmp/err")"
done

if ls /sys/bus/event_source/devices 2>/dev/null | grep -q '^arm_spe'; then
  echo "this machine has an SPE PMU: the refusal case does not apply"
else
  "$cli" mem --spe-inv-event-filter=0x4 -- true >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 1 ] || bad "mem --spe-inv-event-filter without SPE: exit $rc, want 1"
  grep -q "Arm SPE" "$tmp/err" || bad "no reason naming Arm SPE: $(cat "$tmp/err")"
  grep -qi "software" "$tmp/out" && bad "fell back to another engine: $(cat "$tmp/out")"
  "$cli" mem --spe-data-src=0,3 -- true >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 1 ] || bad "mem --spe-data-src without SPE: exit $rc, want 1"
  grep -q "Arm SPE" "$tmp/err" || bad "--spe-data-src: no reason naming Arm SPE: $(cat "$tmp/err")"
fi
"$cli" mem --help >"$tmp/help" 2>&1
for o in spe-event-filter spe-inv-event-filter spe-inv-data-src-filter spe-data-src; do
  grep -q -- "--$o" "$tmp/help" || bad "mem --help does not list --$o"
done
[ "$fail" = 0 ] && echo "spe_filters: ok"
exit "$fail"
