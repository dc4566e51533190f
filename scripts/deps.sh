#!/usr/bin/env bash
# Install the Debian 12 packages pmuscope needs, if any is missing.
# Usage: scripts/deps.sh [build|test]   (test adds clang, sanitizer runtimes, perf 6.12)
# Needs root (or sudo) only when something is missing.
set -euo pipefail
mode=${1:-build}

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in gcc meson ninja-build pkg-config python3 libjansson-dev libdw-dev libzstd-dev libiberty-dev \
         zlib1g-dev libprotobuf-c-dev protobuf-c-compiler libjs-d3 libcapstone-dev; do have_pkg "$p" || need+=("$p"); done
if [ "$mode" = test ]; then
  for p in clang libclang-rt-14-dev llvm cpio busybox-static zstd golang-go chromium tmux dwarves libjemalloc2 libtcmalloc-minimal4 strace; do have_pkg "$p" || need+=("$p"); done
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    [ ${#need[@]} -eq 0 ] || { echo "deps: missing ${need[*]} and not root: install them with apt-get" >&2; exit 1; }
  fi
fi
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() { [ $updated = 1 ] || { $SUDO apt-get update -qq; updated=1; }; }

if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}" >&2
  apt_update
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

ensure_backports() {
  if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "deb http://deb.debian.org/debian bookworm-backports main" | $SUDO tee /etc/apt/sources.list.d/pmuscope-backports.list >/dev/null
    updated=0
  fi
  apt_update
}

# pmuscope builds against the Linux UAPI perf_event.h of 6.3 or later
# (perf_event_attr.config3); bookworm's linux-libc-dev is 6.1, backports has 6.12.
if ! grep -qs 'config3' /usr/include/linux/perf_event.h; then
  ensure_backports
  echo "deps: installing linux-libc-dev (UAPI headers >= 6.3) from bookworm-backports" >&2
  $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports linux-libc-dev >/dev/null
fi

# The differential tests compare against perf 6.12 from bookworm-backports
# (bookworm's own perf is 6.1).
if [ "$mode" = test ]; then
  perf_major() { perf --version 2>/dev/null | sed -n 's/^perf version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p'; }
  read -r maj min < <(perf_major || echo "0 0") || true
  if [ -z "${maj:-}" ] || [ "$maj" -lt 6 ] || { [ "$maj" -eq 6 ] && [ "$min" -lt 12 ]; }; then
    ensure_backports
    echo "deps: installing linux-perf from bookworm-backports" >&2
    $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports linux-perf >/dev/null
  fi
fi
