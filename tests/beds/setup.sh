#!/bin/bash
# Prepare the QEMU verification beds: Debian packages, the guest kernels and
# the arm64 busybox.  Idempotent; everything downloaded is cached in
# tests/beds/cache/ (git-ignored).  Kernels are fetched with apt-get download
# and unpacked with dpkg-deb -x: nothing is installed into this machine's /boot.
#
# Exit status: 0 ready, 77 cannot be prepared here (no root to install, no
# network, no package) -- the bed tests turn that into a meson SKIP.
set -u
HERE=$(cd "$(dirname "$0")" && pwd -P)
CACHE=${PMS_BEDS_CACHE:-$HERE/cache}
mkdir -p "$CACHE" || exit 77
LOG=$CACHE/setup.log

skip() { echo "beds setup: SKIP: $*" >&2; exit 77; }
say() { echo "beds setup: $*" >&2; }

# Serialise concurrent setups (meson may start several beds).
exec 9>"$CACHE/.lock"
flock 9 2>/dev/null || true

# Libraries the library links (meson.build's dependency('...')), as pkg-config
# name=Debian -dev packages (comma-separated: a static link needs the private
# dependencies' archives too, e.g. libdw's libelf, zlib, xz, bzip2).  The
# amd64 ones are installed; the arm64 ones are only downloaded and unpacked
# into cache/sysroot-arm64 for the static cross link.
# "-": the package comes with another dependency's list (liblzma-dev with libdw's)
DEV_PKGS="jansson=libjansson-dev libdw=libdw-dev,libelf-dev,zlib1g-dev,liblzma-dev,libbz2-dev libzstd=libzstd-dev zlib=zlib1g-dev libprotobuf-c=libprotobuf-c-dev capstone=libcapstone-dev liblzma=-"
TOP=$(cd "$HERE/../.." && pwd -P)
deps=$(grep -v '^ *#' "$TOP/meson.build" | grep -o "dependency('[^']*'" | cut -d"'" -f2 | sort -u | tr '\n' ' ')
dev_pkgs=""
for d in $deps; do
	# meson's own: threads is the C library's (-pthread), no package
	case $d in threads) continue ;; esac
	pkg=""
	for m in $DEV_PKGS; do [ "${m%%=*}" = "$d" ] && pkg=${m#*=}; done
	[ -n "$pkg" ] || { echo "beds setup: meson dependency '$d' has no Debian package in DEV_PKGS (tests/beds/setup.sh)" >&2; exit 1; }
	[ "$pkg" = "-" ] && continue
	dev_pkgs="$dev_pkgs ${pkg//,/ }"
done
want_ready="v1 bpo612 deps:$dev_pkgs"

if [ -f "$CACHE/ready" ] && [ "$(cat "$CACHE/ready")" = "$want_ready" ] && [ -z "${PMS_BEDS_REFRESH:-}" ]; then
	exit 0
fi

HOST_PKGS="qemu-system-x86 qemu-system-arm busybox-static cpio zstd gcc-aarch64-linux-gnu libc6-dev-arm64-cross python3 xz-utils pkg-config protobuf-c-compiler libjs-d3$dev_pkgs"
missing=""
for p in $HOST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
# libc.a for static x86_64 links comes with libc6-dev.
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || missing="$missing libc6-dev"

apt_updated=""
apt_update() {
	[ -n "$apt_updated" ] && return 0
	say "apt-get update"
	timeout 300 apt-get update >>"$LOG" 2>&1 || skip "apt-get update failed (see $LOG)"
	apt_updated=1
}

if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || skip "missing packages:$missing (run this script as root once)"
	command -v apt-get >/dev/null || skip "no apt-get; install:$missing"
	apt_update
	say "installing$missing"
	DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y --no-install-recommends $missing \
		>>"$LOG" 2>&1 || skip "apt-get install$missing failed (see $LOG)"
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	[ "$(id -u)" = 0 ] || skip "arm64 is not a dpkg architecture here (dpkg --add-architecture arm64 as root)"
	dpkg --add-architecture arm64 || skip "dpkg --add-architecture arm64 failed"
	apt_updated=""
fi
# The arm64 package lists must be present for apt-get download of :arm64.
if ! apt-cache show linux-image-arm64:arm64 >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || skip "no arm64 package lists (apt-get update as root)"
	apt_update
fi

# Resolve the kernel ABI (e.g. 6.1.0-57) from the meta-package's dependency,
# so security updates move it without editing this file.
resolve_image() { # $1 = amd64|arm64
	apt-cache depends "linux-image-$1:$1" 2>/dev/null |
		sed -n "s/^ *Depends: \(linux-image-[0-9][^:]*-$1\)\(:$1\)\{0,1\}\$/\1/p" |
		grep -v -- '-unsigned$' | head -n1
}

fetch_deb() { # $1 = package[:arch], $2 = dir; leaves the .deb's path in $deb
	local pkg=$1 dir=$2
	mkdir -p "$dir"
	deb=$(ls "$dir"/*.deb 2>/dev/null | head -n1)
	if [ -z "$deb" ]; then
		say "apt-get download $pkg"
		(cd "$dir" && timeout 600 apt-get download "$pkg" >>"$LOG" 2>&1) ||
			skip "apt-get download $pkg failed (see $LOG)"
		deb=$(ls "$dir"/*.deb 2>/dev/null | head -n1)
		[ -n "$deb" ] || skip "apt-get download $pkg produced no .deb"
	fi
}

for arch in amd64 arm64; do
	img=$(resolve_image $arch)
	[ -n "$img" ] || skip "cannot resolve the linux-image-$arch ABI with apt-cache depends"
	abi=${img#linux-image-}
	kdir=$CACHE/kernel-$arch
	if [ ! -f "$kdir/$abi/ok" ]; then
		rm -rf "$kdir"
		fetch_deb "$img:$arch" "$kdir/deb"
		mkdir -p "$kdir/$abi"
		dpkg-deb -x "$deb" "$kdir/$abi/root" || skip "dpkg-deb -x $deb failed"
		rm -rf "$kdir/deb"        # keep only what the beds boot (~70 MB saved)
		rm -rf "$kdir/$abi/root/lib" "$kdir/$abi/root/usr"  # modules: not needed, initramfs-only guests
		touch "$kdir/$abi/ok"
	fi
	ln -sfn "$abi" "$kdir/current"
	say "kernel $arch: $abi"
done

# The DAMON bed's kernel: bookworm-backports' 6.12 (CONFIG_DAMON_SYSFS=y;
# bookworm's 6.1 has no DAMON sysfs).  Optional: where it cannot be had,
# only that bed (x86damon) skips.
resolve_bpo() {
	apt-cache depends linux-image-amd64/bookworm-backports 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.12[^:]*-amd64\)$/\1/p' |
		grep -v -- '-unsigned$' | head -n1
}
bimg=$(resolve_bpo)
if [ -z "$bimg" ] && [ "$(id -u)" = 0 ] && ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
	say "adding bookworm-backports to apt sources (the DAMON bed's 6.12 kernel)"
	echo "deb http://deb.debian.org/debian bookworm-backports main" >/etc/apt/sources.list.d/pmuscope-backports.list
	apt_updated=""
	apt_update
	bimg=$(resolve_bpo)
fi
if [ -z "$bimg" ]; then
	say "no bookworm-backports 6.12 kernel (linux-image-amd64/bookworm-backports): the x86damon bed will skip"
else
	babi=${bimg#linux-image-}
	bdir=$CACHE/kernel-amd64-bpo
	if [ ! -f "$bdir/$babi/ok" ]; then
		rm -rf "$bdir"
		mkdir -p "$bdir/deb"
		say "apt-get download $bimg (bookworm-backports)"
		if (cd "$bdir/deb" && timeout 600 apt-get download "$bimg/bookworm-backports" >>"$LOG" 2>&1) &&
			bdeb=$(ls "$bdir"/deb/*.deb 2>/dev/null | head -n1) && [ -n "$bdeb" ] &&
			mkdir -p "$bdir/$babi" && dpkg-deb -x "$bdeb" "$bdir/$babi/root"; then
			rm -rf "$bdir/deb" "$bdir/$babi/root/lib" "$bdir/$babi/root/usr"
			touch "$bdir/$babi/ok"
		else
			say "apt-get download $bimg failed (see $LOG): the x86damon bed will skip"
			rm -rf "$bdir"
		fi
	fi
	if [ -f "$bdir/$babi/ok" ]; then
		ln -sfn "$babi" "$bdir/current"
		say "kernel amd64 (DAMON bed): $babi"
		[ -f "$bdir/$babi/vmlinux" ] ||
			python3 "$HERE/extract-vmlinux.py" "$bdir/$babi"/root/boot/vmlinuz-* "$bdir/$babi/vmlinux" ||
			say "6.12 vmlinux extraction failed; its bzImage will be booted"
	fi
fi

# The amd64 bzImage boots ~2x faster under TCG when its ELF vmlinux is booted
# directly through PVH (skips SeaBIOS and in-guest xz decompression).
kx=$CACHE/kernel-amd64/current
if [ ! -f "$kx/vmlinux" ]; then
	python3 "$HERE/extract-vmlinux.py" "$kx"/root/boot/vmlinuz-* "$kx/vmlinux.tmp" &&
		mv "$kx/vmlinux.tmp" "$kx/vmlinux" || say "vmlinux extraction failed; the bzImage will be booted"
fi

# arm64 busybox: the static binary from busybox-static:arm64, downloaded only.
if [ ! -x "$CACHE/busybox-arm64" ]; then
	fetch_deb busybox-static:arm64 "$CACHE/bb-arm64"
	dpkg-deb -x "$deb" "$CACHE/bb-arm64/root" || skip "dpkg-deb -x $deb failed"
	cp "$CACHE/bb-arm64/root/bin/busybox" "$CACHE/busybox-arm64" || skip "no bin/busybox in $deb"
	rm -rf "$CACHE/bb-arm64"
fi
cp "$(command -v busybox || echo /bin/busybox)" "$CACHE/busybox-amd64" 2>/dev/null || skip "no /bin/busybox (busybox-static)"

# arm64 -dev packages of the library's dependencies (static .a + .pc).
for pkg in $dev_pkgs; do
	if [ ! -f "$CACHE/sysroot-arm64/.$pkg" ]; then
		fetch_deb "$pkg:arm64" "$CACHE/dev-arm64-$pkg"
		dpkg-deb -x "$deb" "$CACHE/sysroot-arm64" || skip "dpkg-deb -x $deb failed"
		rm -rf "$CACHE/dev-arm64-$pkg"
		touch "$CACHE/sysroot-arm64/.$pkg"
	fi
done

echo "$want_ready" >"$CACHE/ready"
say "ready ($CACHE)"
