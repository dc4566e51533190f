#!/usr/bin/env bash
# A hostile --root tree: a FIFO where sysfs has a file must not hang list,
# encode, topology or stat -a, and a symlink loop is an error naming the
# path, never "absent" (a CPU silently left out).  $1 = the pmuscope binary.
set -u
cli=${1:?usage: hostile_root.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=${PMS_FIXTURES:-$top/tests/fixtures}/machines
fail=0
# /dev/shm when there is one: copying the fixture tree is 20x faster there.
tmp=$(mktemp -d -p "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")"); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

# The trees are copies made of symlinks to the fixture (cp -as: fast).
# Each command gets 60 s (generous: ASan on a loaded machine); 124 = hung.
run() { # name root args...
  local name=$1 root=$2; shift 2
  timeout 60 "$cli" --root "$root" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
  echo $? >"$tmp/$name.rc"
}

base="$(cd "$fx/gnr-snc3" && pwd)"
[ -d "$base" ] || { echo "no fixture $base"; exit 77; }

# 1. FIFOs: cpu/online and a PMU's type file.
cp -as "$base" "$tmp/fifo"
rm -f "$tmp/fifo/sys/devices/system/cpu/online"
mkfifo "$tmp/fifo/sys/devices/system/cpu/online"
pmu=$(ls -d "$tmp/fifo/sys/bus/event_source/devices/"*/ 2>/dev/null | head -1)
if [ -n "$pmu" ]; then rm -f "$pmu/type"; mkfifo "$pmu/type"; fi
run topology "$tmp/fifo" topology
run stat "$tmp/fifo" stat -a -e cpu-clock -- true
run list "$tmp/fifo" list
run encode "$tmp/fifo" encode cpu-clock
for c in topology stat list encode; do
  rc=$(cat "$tmp/$c.rc")
  [ "$rc" = 124 ] && { bad "$c hangs on a FIFO in --root"; continue; }
  [ "$rc" != 0 ] || bad "$c: exit 0 with a FIFO in --root"
  grep -q "is not a regular file (a FIFO)" "$tmp/$c.err" ||
    { bad "$c: the error does not name the FIFO:"; cat "$tmp/$c.err"; }
done

# 2. A symlink loop where cpu1's topology is: an error naming it.
cp -as "$base" "$tmp/loop"
t="$tmp/loop/sys/devices/system/cpu/cpu1/topology"
f=$(ls "$t" | head -1)
rm -f "$t/$f"; ln -s l2 "$t/l1"; ln -s l1 "$t/l2"; ln -s l1 "$t/$f"
run loop "$tmp/loop" topology
[ "$(cat "$tmp/loop.rc")" != 0 ] || bad "topology: exit 0 with a symlink loop (cpu1 read as absent)"
grep -q "cpu1/topology/.*Too many levels of symbolic links" "$tmp/loop.err" ||
  { bad "topology: the loop is not named:"; cat "$tmp/loop.err"; }

# 3. A loop for a whole CPU directory.
cp -as "$base" "$tmp/loop2"
d="$tmp/loop2/sys/devices/system/cpu"
mv "$d/cpu1" "$d/cpu1.real"; ln -s cpu1 "$d/cpu1"
run loop2 "$tmp/loop2" topology
[ "$(cat "$tmp/loop2.rc")" != 0 ] || bad "topology: exit 0 with cpu1 a symlink loop"
grep -q "cpu1.*Too many levels of symbolic links" "$tmp/loop2.err" ||
  { bad "topology: the cpu1 loop is not named:"; cat "$tmp/loop2.err"; }

exit $fail
