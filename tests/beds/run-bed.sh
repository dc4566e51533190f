#!/bin/bash
# One QEMU verification bed, as a test: run-bed.sh BED [WORKDIR]
# BED: x86 (4-node NUMA x86_64), x86damon (2 nodes, 6.12, DAMON), a64plain, a64icount, a64numa (aarch64 PMUv3).
# Prepares the bed (setup.sh, cached), builds the static guest binaries,
# boots the guest under `timeout` and asserts on its console (beds.py).
# Exit: 0 pass, 1 fail, 77 skip (no apt/network/qemu here; never in CI).
set -u
HERE=$(cd "$(dirname "$0")" && pwd -P)
bed=${1:?usage: run-bed.sh BED [WORKDIR]}
work=${2:-$HERE/cache/work}
CACHE=${PMS_BEDS_CACHE:-$HERE/cache}
export PMS_BEDS_CACHE=$CACHE

# A skip is a failure where the beds are required (CI sets PMS_BEDS_REQUIRED=1).
skip() {
	echo "SKIP: bed $bed: $*"
	[ "${PMS_BEDS_REQUIRED:-0}" = 1 ] && { echo "bed $bed: PMS_BEDS_REQUIRED=1: failing instead of skipping"; exit 1; }
	exit 77
}

t0=$(date +%s.%N)
bash "$HERE/setup.sh"
rc=$?
[ $rc = 0 ] || { [ $rc = 77 ] && skip "setup unavailable (see above)"; exit 1; }

case $bed in
	x86|x86damon) arch=x86_64 ;;
	a64*) arch=aarch64 ;;
	*) echo "run-bed.sh: unknown bed $bed" >&2; exit 2 ;;
esac
# Builds of one arch are shared by its beds; serialise them.
(
	flock 8
	bash "$HERE/build.sh" $arch "$CACHE/build-$arch"
) 8>"$CACHE/.build-$arch.lock"
rc=$?
[ $rc = 0 ] || { [ $rc = 77 ] && skip "no compiler for $arch"; echo "bed $bed: build failed"; exit 1; }
t1=$(date +%s.%N)
printf 'bed %s: setup+build %.1f s\n' "$bed" "$(echo "$t1 - $t0" | bc 2>/dev/null || echo 0)"
python3 "$HERE/beds.py" run "$bed" "$work"
rc=$?
[ $rc = 77 ] && skip "QEMU not installed"
exit $rc
