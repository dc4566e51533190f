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
CACHE=${PMS_BEDS_CACHE:-$HERE/cache}
deps=$(grep -v '^ *#' "$TOP/meson.build" | grep -o "dependency('[^']*'" | cut -d"'" -f2 | sort -u | tr '\n' ' ')
lib_srcs=$(python3 "$HERE/meson-files.py" "$TOP" pms_sources $src_mesons)
cli_srcs=$(python3 "$HERE/meson-files.py" "$TOP" cli_sources tools/meson.build)

stamp=$( (cd "$TOP" && cat meson.build $lib_srcs $cli_srcs $src_mesons tools/meson.build \
	include/pmuscope/*.h src/*/*.h tools/*.h tests/beds/guest/*.c tests/report/c2c_false_sharing.c tests/types/gen_types.py \
	src/alloc/preload/*.[ch] \
	"$HERE/build.sh" src/export/profile.proto tools/html/* 2>/dev/null;
	echo "$CC $deps") | sha256sum | cut -c1-16)
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] &&
	[ -x "$out/pmuscope" ] && [ -x "$out/bedcheck" ] && [ -x "$out/c2c_false_sharing" ] &&
	[ -x "$out/typeshare" ] && [ -x "$out/typeshare_padded" ] &&
	{ [ "$arch" != x86_64 ] || [ -x "$out/dyn/bin/allocnuma" ]; } &&
	{ [ "$arch" != aarch64 ] || [ -f "$out/gt/manifest.json" ]; }; then
	exit 0
fi
rm -f "$out/stamp" "$out/pmuscope" "$out/bedcheck" "$out/c2c_false_sharing" "$out/typeshare" "$out/typeshare_padded" # never leave a stale binary behind a failed build
rm -rf "$out/dyn"

# version.h as meson's configure_file makes it.
ver=$(sed -n "s/^ *version *: *'\([0-9.]*\)'.*/\1/p" "$TOP/meson.build" | head -n1)
IFS=. read -r vmaj vmin vpat <<<"$ver"
sed -e "s/@PMS_VERSION_MAJOR@/$vmaj/" -e "s/@PMS_VERSION_MINOR@/$vmin/" \
	-e "s/@PMS_VERSION_PATCH@/$vpat/" -e "s/@PMS_VERSION_STRING@/\"$ver\"/" \
	"$TOP/include/pmuscope/version.h.in" >"$out/version.h"

# Sources meson generates (custom_target), made here the same way: the pprof
# profile.proto's protobuf-c code (src/export/meson.build) and the HTML page's
# embedded d3, script and style (tools/meson.build).  Architecture-neutral C.
mkdir -p "$out/gen/export"
protoc-c --proto_path="$TOP/src/export" --c_out="$out/gen/export" "$TOP/src/export/profile.proto" ||
	{ echo "build.sh: protoc-c (protobuf-c-compiler) failed" >&2; exit 1; }
d3_js=/usr/share/javascript/d3/d3.min.js
[ -r "$d3_js" ] || { echo "build.sh: no $d3_js (Debian libjs-d3, scripts/deps.sh)" >&2; exit 1; }
python3 "$TOP/tools/html/embed.py" "$out/gen/html_embed.c" "pms_html_d3=$d3_js" \
	"pms_html_js=$TOP/tools/html/page.js" "pms_html_css=$TOP/tools/html/page.css" || exit 1
gen_lib_srcs="$out/gen/export/profile.pb-c.c $out/gen/html_embed.c" # the page: src/render
gen_cli_srcs=""

CFLAGS="-std=c11 -O2 -g0 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -I$TOP/include -I$TOP/src -I$out -I$out/gen"
# The library's own dependencies (meson.build dependency('...')), through
# pkg-config: the host's for x86_64, the arm64 -dev packages setup.sh unpacked
# into cache/sysroot-arm64 for aarch64.
LIBS=""
for d in $deps; do
	# meson's own: threads is the C library's
	if [ "$d" = threads ]; then
		CFLAGS="$CFLAGS -pthread"
		LIBS="$LIBS -pthread"
		continue
	fi
	if [ "$arch" = aarch64 ]; then
		pc="env PKG_CONFIG_SYSROOT_DIR=$CACHE/sysroot-arm64 PKG_CONFIG_LIBDIR=$CACHE/sysroot-arm64/usr/lib/aarch64-linux-gnu/pkgconfig pkg-config"
	else
		pc=pkg-config
	fi
	$pc --exists "$d" || { echo "build.sh: pkg-config finds no $d for $arch (run setup.sh)" >&2; exit 1; }
	CFLAGS="$CFLAGS $($pc --cflags "$d")"
	LIBS="$LIBS $($pc --static --libs "$d")"
done
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
# Objects are cached by content: the key covers the source, every header and
# the flags, so while others edit the tree only what changed is recompiled.
hdr_key=$( (cat "$TOP"/include/pmuscope/*.h "$TOP"/src/*/*.h "$out/version.h" "$out"/gen/*/*.h 2>/dev/null;
	echo "$CC $CFLAGS") | sha256sum | cut -c1-16)
for s in $lib_srcs $gen_lib_srcs; do
	case $s in /*) ;; *) s=$TOP/$s ;; esac  # generated ones are absolute
	flat=$(echo "${s#"$TOP"/}" | tr / _)
	key=$( (cat "$s"; echo "$hdr_key") | sha256sum | cut -c1-16)
	o=$out/obj/$flat-$key.o
	objs+=("$o")
	[ -f "$o" ] && continue
	rm -f "$out/obj/$flat"-*.o
	# Library warnings are the library CI's business (-Werror there); keep them
	# in build.log so a bed run shows only what failed.
	$CC $CFLAGS -c "$s" -o "$o.tmp" 2>>"$out/build.log" && mv "$o.tmp" "$o" &
	pids+=($!)
done
fail=0
for pid in "${pids[@]}"; do wait "$pid" || fail=1; done
[ $fail = 0 ] || { grep -B2 -A6 'error' "$out/build.log" | head -60 >&2; echo "build.sh: library build failed for $arch" >&2; exit 1; }
# The CLI's objects.  A fully static link puts the CLI and the dependency
# archives in one namespace: a CLI function named like a library export (the
# CLI's json_null() vs jansson's) would be a duplicate definition.  Such
# names are renamed in the CLI objects only (definition and callers alike);
# the dynamic meson build does not need this.
cli_objs=()
for s in $cli_srcs $gen_cli_srcs; do
	case $s in /*) ;; *) s=$TOP/$s ;; esac
	o=$out/obj/$(echo "${s#"$TOP"/}" | tr / _).o
	$CC $CFLAGS -I"$TOP/tools" -c "$s" -o "$o" 2>>"$out/build.log" ||
		{ grep -B2 -A6 error "$out/build.log" | head -40 >&2; exit 1; }
	cli_objs+=("$o")
done
NM=${CC%gcc}nm OBJCOPY=${CC%gcc}objcopy
libdirs=$(for f in $LIBS; do case $f in -L*) echo "${f#-L}" ;; esac; done)
archives=$(for f in $LIBS; do case $f in -l*)
	for d in $libdirs $(dirname "$($CC -print-file-name=lib${f#-l}.a)"); do
		[ -f "$d/lib${f#-l}.a" ] && { echo "$d/lib${f#-l}.a"; break; }
	done ;; esac; done)
if [ -n "$archives" ]; then
	clash=$(comm -12 <($NM -g --defined-only "${cli_objs[@]}" 2>/dev/null | awk 'NF==3{print $3}' | sort -u) \
		<($NM -g --defined-only $archives 2>/dev/null | awk 'NF==3{print $3}' | sort -u))
	for sym in $clash; do
		echo "build.sh: note: CLI symbol $sym is also defined by a dependency; renamed to pmscli_$sym for the static link" >>"$out/build.log"
		for o in "${cli_objs[@]}"; do $OBJCOPY --redefine-sym "$sym=pmscli_$sym" "$o"; done
	done
fi
# Link notes (glibc's "dlopen in statically linked applications", pulled in by
# libdw) go to build.log; bedcheck itself must compile warning-free.
link_fail() { grep -v "^$" "$out/build.log" | tail -40 >&2; echo "build.sh: $1 link failed for $arch" >&2; exit 1; }
$CC -static -o "$out/pmuscope" "${cli_objs[@]}" "${objs[@]}" $LIBS -lm 2>>"$out/build.log" ||
	link_fail pmuscope
$CC $CFLAGS -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror -c \
	"$HERE/guest/bedcheck.c" -o "$out/obj/bedcheck.o" || exit 1
$CC -static -o "$out/bedcheck" "$out/obj/bedcheck.o" "${objs[@]}" $LIBS -lm 2>>"$out/build.log" ||
	link_fail bedcheck
# The two-thread false-sharing workload `pmuscope c2c` profiles (x86 bed).
$CC $CFLAGS -Werror -static -pthread "$TOP/tests/report/c2c_false_sharing.c" \
	-o "$out/c2c_false_sharing" 2>>"$out/build.log" || link_fail c2c_false_sharing
# Two threads writing members of one struct, then padded (issue 29, `mem
# --types`, x86 bed): -g, for the DWARF the types are read from.
for v in typeshare typeshare_padded; do
	$CC -std=c11 -O1 -g -D_GNU_SOURCE -Wall -Wextra -Werror -static -pthread \
		$([ $v = typeshare_padded ] && echo -DPADDED) "$HERE/guest/typeshare_workload.c" \
		-o "$out/$v" 2>>"$out/build.log" || link_fail $v
done
# The x86 bed's allocation-site check (issue 28): a dynamically linked
# workload and the preload `mem -- CMD` puts into it, with the loader and
# every library ldd names for either, laid out under dyn/ as the guest sees
# them (beds.py copies dyn/ into the initramfs; /bin/pmuscope finds the
# preload beside itself, at src/alloc/preload/ as in a build tree).  The
# preload's flags and sources are its meson target's (src/alloc/preload/
# meson.build: every .c there; -z defs fails the link on a missing one).
if [ "$arch" = x86_64 ]; then
	pre=$out/dyn/bin/src/alloc/preload
	mkdir -p "$pre"
	$CC -std=c11 -O2 -g0 -D_GNU_SOURCE -I"$TOP/include" -shared -fPIC -fvisibility=hidden \
		-fno-omit-frame-pointer -ftls-model=initial-exec -fno-tree-loop-distribute-patterns \
		"$TOP"/src/alloc/preload/*.c -o "$pre/libpmuscope-alloc.so" -Wl,-z,defs -lm -ldl -pthread \
		2>>"$out/build.log" || link_fail libpmuscope-alloc.so
	# -g for the sites' source lines; frame pointers for their call paths
	$CC -std=c11 -O1 -g -fno-omit-frame-pointer -D_GNU_SOURCE -Wall -Wextra -Werror -pthread \
		"$HERE/guest/allocnuma_workload.c" -o "$out/dyn/bin/allocnuma" 2>>"$out/build.log" ||
		link_fail allocnuma
	libs=$(for f in "$pre/libpmuscope-alloc.so" "$out/dyn/bin/allocnuma"; do ldd "$f"; done |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u)
	[ -n "$libs" ] || { echo "build.sh: ldd names no library for allocnuma" >&2; exit 1; }
	for l in $libs; do
		mkdir -p "$out/dyn$(dirname "$l")"
		cp -L "$l" "$out/dyn$l" || exit 1
	done
fi
# The types ground truth's random programs (issue 29, tests/types/gen_types.py):
# cross-compiled for the aarch64 bed by each compiler found (gcc, clang),
# -O0 and -O2, with the manifest the host judges their samples by
# (beds.py check_a64_types).
if [ "$arch" = aarch64 ]; then
	rm -rf "$out/gt"
	python3 "$TOP/tests/types/gen_types.py" --emit-a64 "$out/gt" 4 >>"$out/build.log" 2>&1 ||
		{ echo "build.sh: the types ground truth's programs failed for $arch" >&2; exit 1; }
fi
# Drop objects of sources that are gone or changed.
for f in "$out"/obj/*.o; do
	case " ${objs[*]} ${cli_objs[*]} $out/obj/bedcheck.o " in *" $f "*) ;; *) rm -f "$f" ;; esac
done
echo "$stamp" >"$out/stamp"
