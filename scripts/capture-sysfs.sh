#!/usr/bin/env bash
# Capture the parts of this machine's /sys and /proc that pmuscope reads into
# DIR, in the same layout as tests/fixtures/machines/<name>/ (so that
# `pmuscope --root DIR ...` replays it):
#
#   DIR/sys/bus/event_source/devices/<pmu>/   type, cpumask, cpus, nr_addr_filters,
#                                             perf_event_mux_interval_ms,
#                                             associated_cpus, caps/ format/ events/
#   DIR/sys/devices/system/cpu/               online possible present kernel_max,
#                                             cpuN/topology/*, cpuN/cache/index*/*,
#                                             cpuN/regs/identification/*, cpu_capacity
#   DIR/sys/devices/system/node/nodeN/        cpulist cpumap distance meminfo
#   DIR/proc/cpuinfo, DIR/proc/sys/kernel/{hostname,osrelease}  (JSON producer object)
#
# /sys/bus/event_source/devices/* are symlinks into /sys/devices; they become
# real directories here.  Only regular readable files are copied; unreadable
# ones (some need root) are listed in DIR/CAPTURE.txt.  Run as an ordinary
# user; nothing is written outside DIR.
#
# usage: scripts/capture-sysfs.sh DIR   (DIR must not exist yet)
set -euo pipefail

usage() { echo "usage: $0 DIR   (DIR must not exist)" >&2; exit 2; }
[ $# -eq 1 ] || usage
case $1 in -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
out=$1
[ -e "$out" ] && { echo "$0: $out already exists" >&2; exit 1; }
src=${CAPTURE_SYSFS_SRC:-}   # test seam: capture from SRC/sys instead of /sys
mkdir -p "$out"
log="$out/CAPTURE.txt"
{
  echo "captured: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -r 2>/dev/null || echo '?')"
  echo "machine: $(uname -m 2>/dev/null || echo '?')"
  echo "source: ${src:-/}"
  echo "unreadable:"
} >"$log"

# copy_file SRC DST: one regular file, or note it as unreadable.
copy_file() {
  local s=$1 d=$2
  [ -f "$s" ] || return 0
  mkdir -p "$(dirname "$d")"
  if ! cat "$s" >"$d" 2>/dev/null; then
    rm -f "$d"
    echo "  ${s#"$src"}" >>"$log"
  fi
}

# copy_dir SRC DST: the regular files directly inside SRC (no recursion).
copy_dir() {
  local s=$1 d=$2 f
  [ -d "$s" ] || return 0
  for f in "$s"/*; do
    [ -f "$f" ] && copy_file "$f" "$d/$(basename "$f")"
  done
  return 0
}

ev="$src/sys/bus/event_source/devices"
n=0
if [ -d "$ev" ]; then
  for p in "$ev"/*; do
    [ -e "$p" ] || continue
    name=$(basename "$p")
    real=$(cd -P "$p" && pwd)   # resolve the symlink into /sys/devices
    dst="$out/sys/bus/event_source/devices/$name"
    mkdir -p "$dst"
    for f in type cpumask cpus nr_addr_filters perf_event_mux_interval_ms \
             associated_cpus alias identifier; do
      copy_file "$real/$f" "$dst/$f"
    done
    for sub in caps format events; do
      copy_dir "$real/$sub" "$dst/$sub"
    done
    n=$((n + 1))
  done
fi

cpu="$src/sys/devices/system/cpu"
for f in online possible present offline kernel_max; do
  copy_file "$cpu/$f" "$out/sys/devices/system/cpu/$f"
done
for c in "$cpu"/cpu[0-9]*; do
  [ -d "$c" ] || continue
  cn=$(basename "$c")
  d="$out/sys/devices/system/cpu/$cn"
  copy_file "$c/online" "$d/online"
  copy_file "$c/cpu_capacity" "$d/cpu_capacity"
  copy_dir "$c/topology" "$d/topology"
  copy_dir "$c/regs/identification" "$d/regs/identification"
  for idx in "$c"/cache/index[0-9]*; do
    [ -d "$idx" ] && copy_dir "$idx" "$d/cache/$(basename "$idx")"
  done
done

node="$src/sys/devices/system/node"
for f in online possible has_cpu has_memory; do
  copy_file "$node/$f" "$out/sys/devices/system/node/$f"
done
for nd in "$node"/node[0-9]*; do
  [ -d "$nd" ] || continue
  d="$out/sys/devices/system/node/$(basename "$nd")"
  for f in cpulist cpumap distance meminfo; do
    copy_file "$nd/$f" "$d/$f"
  done
done

copy_file "$src/proc/cpuinfo" "$out/proc/cpuinfo"
for f in hostname osrelease; do
  copy_file "$src/proc/sys/kernel/$f" "$out/proc/sys/kernel/$f"
done

echo "pmus: $n" >>"$log"
echo "captured $n PMUs into $out (see $log)"
