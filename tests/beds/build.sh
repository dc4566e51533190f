#!/bin/bash
# Build pmuscope and the in-guest test program as static binaries for one
# guest architecture: build.sh x86_64|aarch64 OUTDIR
# The library and CLI sources are taken from the meson files (src/*/meson.build,
# tools/meson.build), so files other engineers add are picked up.  Rebuilds
# only when a source, header or meson file changed (content hash).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd -P)
TOP=$(cd "$HERE/../.." && pwd)
arch=$1 out=$2
case $arch in
	x86_64) CC=${PMS_BEDS_CC_X86:-gcc} ;;
	aarch64) CC=${PMS_BEDS_CC_A64:-aarch64-linux-gnu-gcc} ;;
	*) echo "build.sh: unknown arch $arch" >&2; exit 2 ;;
esac
command -v "$CC" >/dev/null || { echo "build.sh: no $CC" >&2; exit 77; }
mkdir -p "$out"

# meson lists: every files('a.c', ...) of pms_sources / cli_sources.
src_mesons=$(sed -n "s/^ *subdir('\\(src\/[a-z_0-9]*\\)').*/\\1\/meson.build/p" "$TOP/meson.build")
lib_srcs=$(python3 "$HERE/meson-files.py" "$TOP" pms_sources $src_mesons)
cli_srcs=$(python3 "$HERE/meson-files.py" "$TOP" cli_sources tools/meson.build)

stamp=$( (cd "$TOP" && cat meson.build $lib_srcs $cli_srcs $src_mesons tools/meson.build \
	include/pmuscope/*.h src/*/*.h tools/*.h tests/beds/guest/*.c "$HERE/build.sh" 2>/dev/null;
	echo "$CC") | sha256sum | cut -c1-16)
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] &&
	[ -x "$out/pmuscope" ] && [ -x "$out/bedcheck" ]; then
	exit 0
fi
rm -f "$out/stamp"

# version.h as meson's configure_file makes it.
ver=$(sed -n "s/^ *version *: *'\([0-9.]*\)'.*/\1/p" "$TOP/meson.build" | head -n1)
IFS=. read -r vmaj vmin vpat <<<"$ver"
sed -e "s/@PMS_VERSION_MAJOR@/$vmaj/" -e "s/@PMS_VERSION_MINOR@/$vmin/" \
	-e "s/@PMS_VERSION_PATCH@/$vpat/" -e "s/@PMS_VERSION_STRING@/\"$ver\"/" \
	"$TOP/include/pmuscope/version.h.in" >"$out/version.h"

CFLAGS="-std=c11 -O2 -g0 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -I$TOP/include -I$TOP/src -I$out"
# bookworm's cross sysroot has 6.1 UAPI headers, whose perf_event_attr lacks
# config3 (added in 6.3) that the library uses; the host's linux-libc-dev
# (6.12 from bookworm-backports, see scripts/deps.sh) is newer.
# linux/perf_event.h is the same for every architecture, so overlay just it.
if [ "$arch" = aarch64 ]; then
	sysroot_h=$(echo '#include <linux/perf_event.h>' | $CC -E -x c - 2>/dev/null |
		sed -n 's/^# [0-9]* "\(.*linux\/perf_event\.h\)".*/\1/p' | head -n1)
	if ! grep -q config3 "$sysroot_h" 2>/dev/null && grep -q config3 /usr/include/linux/perf_event.h; then
		mkdir -p "$out/uapi/linux"
		cp /usr/include/linux/perf_event.h "$out/uapi/linux/perf_event.h"
		CFLAGS="$CFLAGS -I$out/uapi"
	fi
fi
objs=()
pids=()
mkdir -p "$out/obj"
: >"$out/build.log"
for s in $lib_srcs; do
	o=$out/obj/$(echo "$s" | tr / _).o
	# Library warnings are the library CI's business (-Werror there); keep them
	# in build.log so a bed run shows only what failed.
	$CC $CFLAGS -c "$TOP/$s" -o "$o" 2>>"$out/build.log" &
	pids+=($!)
	objs+=("$o")
done
fail=0
for pid in "${pids[@]}"; do wait "$pid" || fail=1; done
[ $fail = 0 ] || { grep -B2 -A6 'error' "$out/build.log" | head -60 >&2; echo "build.sh: library build failed for $arch" >&2; exit 1; }
$CC $CFLAGS -I"$TOP/tools" -static -o "$out/pmuscope" $(for s in $cli_srcs; do echo "$TOP/$s"; done) "${objs[@]}" -lm
$CC $CFLAGS -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror -static -o "$out/bedcheck" "$HERE/guest/bedcheck.c" "${objs[@]}" -lm
echo "$stamp" >"$out/stamp"
