#!/usr/bin/env bash
# A compressed record that does not decompress stops the read, as in perf
# (issue 20): perf record -z makes a file of COMPRESSED records; copies are
# made with (a) the first record's zstd frame broken, (b) a later one broken
# (its block header given the reserved type: see below),
# (c) every record rewritten as COMPRESSED2 (u64 data_size, data, padding;
# perf 6.15's form) and (d) those with data_size cut by 8 bytes.  perf is the
# oracle where it reads the file: when a record gives no bytes it says
# "Couldn't decompress data", stops and exits non-zero (perf script), and
# pmuscope script and report must say it and exit non-zero too; when a
# frame breaks after some output, perf keeps that output and goes on, and
# pmuscope must print as many samples and exit 0.  perf 6.12 does not know
# COMPRESSED2 (it refuses type 83): for (c) pmuscope must read exactly what
# it reads of the original, for (d) it must stop and say so.
# $1 = the pmuscope binary.
set -u
pms=${1:?usage: compressed.sh PMUSCOPE}
command -v perf >/dev/null || { echo "no perf"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

if ! perf record -q -z -m 16 -e page-faults -c 1 -o "$tmp/c.data" -- \
     dd if=/dev/zero of=/dev/null bs=16M count=1 >"$tmp/rec.log" 2>&1; then
  echo "perf record -z failed (no zstd, or perf_event_open refused):"; cat "$tmp/rec.log"
  exit 77
fi

python3 - "$tmp" <<'PY' || { echo "making the files failed"; exit 1; }
import struct, sys
d = bytearray(open(sys.argv[1] + '/c.data', 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', d, 40)
comp = []
p = data_off
while p < data_off + data_size:
    t, m, s = struct.unpack_from('<IHH', d, p)
    if t == 81:
        comp.append(p)
    p += s
if len(comp) < 2:
    sys.exit('perf wrote %d COMPRESSED records, need 2' % len(comp))

def save(name, buf):
    open(sys.argv[1] + '/' + name, 'wb').write(buf)

# bad1: the first record's zstd frame magic.  bad2: the second record's
# first byte, where perf record's one streamed frame goes on with a block
# header (perf flushes a block per record), given the reserved block type
# (both bits of the type set; in a record that starts its own frame this
# breaks the magic instead): the decoder fails before any output.  A plain
# xor of that byte made a different block kind (an RLE block, a last block)
# that decodes into garbage records, which perf processes or refuses
# depending on the bytes: not a stable oracle.
for name, at, how in (('bad1', comp[0], 'xor'), ('bad2', comp[1], 'reserved')):
    b = bytearray(d)
    if how == 'xor':
        b[at + 8] ^= 0xff
    else:
        b[at + 8] |= 0x06
    save(name + '.data', b)

def as_c2(cut):
    out = bytearray()
    p = data_off
    while p < data_off + data_size:
        t, m, s = struct.unpack_from('<IHH', d, p)
        if t == 81:
            z = d[p + 8:p + s]
            pad = (len(z) + 7) // 8 * 8
            out += struct.pack('<IHHQ', 83, m, 16 + pad, len(z) - cut) + z + bytes(pad - len(z))
        else:
            out += d[p:p + s]
        p += s
    # the feature sections follow the data: move their offsets
    feat = bytearray(d[data_off + data_size:])
    # the feature bitmap: 256 bits after magic, size, attr_size and three
    # sections (0x48); 0x68 (the header's end) once counted the attrs'
    # bits, moving payload bytes too (the hostname's length: read as
    # truncated, and the copy's [vdso] no longer named as on this host)
    nfeat = bin(int.from_bytes(d[0x48:0x48 + 32], 'little')).count('1')
    delta = len(out) - data_size
    for i in range(nfeat):
        o, s = struct.unpack_from('<QQ', feat, 16 * i)
        struct.pack_into('<QQ', feat, 16 * i, o + delta, s)
    b = d[:data_off] + out + feat
    struct.pack_into('<Q', b, 48, len(out))
    return b

save('c2.data', as_c2(0))
save('c2cut.data', as_c2(8))
PY

"$pms" script -i "$tmp/c.data" >"$tmp/c.pms" 2>/dev/null || bad "script of the original failed"
for f in bad1 bad2; do
  perf script -i "$tmp/$f.data" >"$tmp/$f.perf" 2>"$tmp/$f.perf.err"; prc=$?
  "$pms" script -i "$tmp/$f.data" >"$tmp/$f.pms" 2>"$tmp/$f.pms.err"; rc=$?
  # perf stops (and exits non-zero) when a record gives no bytes at all;
  # a frame broken after some output keeps that output and goes on
  if grep -q "Couldn't decompress data" "$tmp/$f.perf.err"; then
    [ "$prc" -ne 0 ] || bad "$f: perf script said it but exit 0"
    [ "$rc" -ne 0 ] || bad "$f: pmuscope script exit 0 where perf script exits $prc"
    grep -q "couldn't decompress data" "$tmp/$f.pms.err" ||
      { bad "$f: pmuscope script does not say couldn't decompress data:"; cat "$tmp/$f.pms.err"; }
    "$pms" report --no-symbols -i "$tmp/$f.data" >/dev/null 2>"$tmp/$f.rep.err" &&
      bad "$f: pmuscope report exit 0"
    grep -q "couldn't decompress data" "$tmp/$f.rep.err" ||
      { bad "$f: pmuscope report does not say couldn't decompress data:"; cat "$tmp/$f.rep.err"; }
  else
    [ "$rc" -eq 0 ] || { bad "$f: pmuscope script exit $rc where perf script exits $prc"; cat "$tmp/$f.pms.err"; }
    grep -q "zstd" "$tmp/$f.pms.err" || bad "$f: pmuscope script does not say what it lost"
    # perf goes on: the same samples come out
    np=$(wc -l <"$tmp/$f.perf"); nm=$(wc -l <"$tmp/$f.pms")
    [ "$np" -eq "$nm" ] || bad "$f: perf script printed $np sample lines, pmuscope $nm"
  fi
  # (where perf stops it prints only the samples its ordered queue flushed
  # at a FINISHED_ROUND before the record; pmuscope, in file order, prints
  # every sample before it, fewer than the original's)
  [ "$(wc -l <"$tmp/$f.pms")" -lt "$(wc -l <"$tmp/c.pms")" ] || bad "$f: as many samples as the original"
done
grep -q "Couldn't decompress data" "$tmp/bad1.perf.err" ||
  bad "bad1: perf read a file whose first frame is broken (oracle changed?)"
perf script -i "$tmp/c.data" >"$tmp/all.perf" 2>/dev/null

# COMPRESSED2 as written by perf 6.15: read as the COMPRESSED original
"$pms" script -i "$tmp/c2.data" >"$tmp/c2.pms" 2>"$tmp/c2.err" ||
  { bad "script of the COMPRESSED2 copy failed:"; cat "$tmp/c2.err"; }
cmp -s "$tmp/c.pms" "$tmp/c2.pms" || bad "the COMPRESSED2 copy reads differently from the original"
cmp -s "$tmp/c.pms" "$tmp/all.perf" ||
  [ "$(wc -l <"$tmp/c.pms")" -eq "$(wc -l <"$tmp/all.perf")" ] ||
  bad "the original: pmuscope script $(wc -l <"$tmp/c.pms") lines, perf script $(wc -l <"$tmp/all.perf")"
# ... and with data_size cut short: stop, say it, non-zero
"$pms" script -i "$tmp/c2cut.data" >/dev/null 2>"$tmp/cut.err" && bad "c2cut: script exit 0"
grep -q "couldn't decompress data" "$tmp/cut.err" ||
  { bad "c2cut: script does not say couldn't decompress data:"; cat "$tmp/cut.err"; }
"$pms" report --no-symbols --json -i "$tmp/c2cut.data" >/dev/null 2>"$tmp/cutr.err" &&
  bad "c2cut: report exit 0"
grep -q "COMPRESSED2" "$tmp/cutr.err" || { bad "c2cut: report does not name the record:"; cat "$tmp/cutr.err"; }
[ $fail = 0 ] && echo "ok: broken compressed records stop the read as in perf"
exit $fail
