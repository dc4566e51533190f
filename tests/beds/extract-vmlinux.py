#!/usr/bin/env python3
"""Pull the ELF vmlinux out of an x86 bzImage whose payload is xz-compressed
(Debian amd64 kernels: CONFIG_KERNEL_XZ=y) so QEMU can boot it via PVH."""
import lzma
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    blob = open(src, 'rb').read()
    pos = 0
    while True:
        pos = blob.find(b'\xfd7zXZ\x00', pos)
        if pos < 0:
            sys.exit('%s: no xz payload with an ELF inside' % src)
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
