#!/usr/bin/env bash
# The prepared hardware check for a machine with a real PMU (the verification-
# beds issue): run pmuscope's list, topology, stat and mem there and keep
# their JSON.  The machine may have no network and no build tools, so it runs
# a static x86-64 pmuscope built here:
#
#   bash tests/beds/setup.sh && bash tests/beds/build.sh x86_64 tests/beds/cache/build-x86_64
#   # then, on the device machine (the device tool carries the binary):
#   bash scripts/hwcheck.sh tests/beds/cache/build-x86_64/pmuscope "$OUT"
#
# Every step runs under a timeout and its exit status is recorded; a refused
# step is a result, not a failure of the script.  Record what it showed in
# docs/verification.md as that machine's result.
set -u
bin=${1:-tests/beds/cache/build-x86_64/pmuscope}
out=${2:-${OUT:-./hwcheck-out}}
mkdir -p "$out"
[ -x "$bin" ] || { echo "hwcheck: no pmuscope binary at $bin" >&2; exit 2; }

step() { # name, then the command
  local name=$1; shift
  timeout 120 "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo "$name exit=$?" | tee -a "$out/steps.txt"
}

{
  uname -a; grep -m1 'model name' /proc/cpuinfo
  echo "paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"
  ls /sys/bus/event_source/devices
} >"$out/machine.txt" 2>&1
step list-json "$bin" list --json
step list "$bin" list
step topology-json "$bin" topology --json
step stat-default-json "$bin" stat --json -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
step stat-hw-json "$bin" stat --json -e '{cycles,instructions},cache-misses' -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
step stat-node-json "$bin" stat --json --per-node -a -e cycles -- sleep 1
step mem-json "$bin" mem --json --size 256M
step mem-text "$bin" mem --size 256M
step mem-o "$bin" mem --size 64M -o "$out/mem.perf.data"
# Everything on one screen for the session that reads the result.
for f in "$out"/steps.txt "$out"/machine.txt "$out"/mem-text.out; do echo "== $f"; head -80 "$f"; done
