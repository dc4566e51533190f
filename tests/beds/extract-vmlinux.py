#!/usr/bin/env python3
"""Pull the ELF vmlinux out of an x86 bzImage whose payload is xz-compressed
(Debian amd64 kernels: CONFIG_KERNEL_XZ=y in 6.1) or zstd-compressed
(CONFIG_KERNEL_ZSTD=y in bookworm-backports' 6.12, through the zstd tool)
so QEMU can boot it via PVH."""
import lzma
import shutil
import subprocess
import sys


def try_zstd(blob, dst):
    if not shutil.which('zstd'):
        return False
    pos = 0
    while True:
        pos = blob.find(b'\x28\xb5\x2f\xfd', pos)
        if pos < 0:
            return False
        # the bzImage's payload is followed by its size and setup code:
        # zstd complains about that trailing data, but the frame comes out
        p = subprocess.run(['zstd', '-dcq'], input=blob[pos:], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        if p.stdout[:4] == b'\x7fELF':
            open(dst, 'wb').write(p.stdout)
            return True
        pos += 1


def main():
    src, dst = sys.argv[1], sys.argv[2]
    blob = open(src, 'rb').read()
    pos = 0
    while True:
        pos = blob.find(b'\xfd7zXZ\x00', pos)
        if pos < 0:
            if try_zstd(blob, dst):
                return
            sys.exit('%s: no xz or zstd payload with an ELF inside' % src)
        try:
            out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(blob[pos:])
        except lzma.LZMAError:
            out = b''
        if out[:4] == b'\x7fELF':
            open(dst, 'wb').write(out)
            return
        pos += 1


if __name__ == '__main__':
    main()
