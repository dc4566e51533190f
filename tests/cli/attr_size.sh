#!/usr/bin/env bash
# A perf.data whose header attr_size disagrees with attr.size + 16 is read
# as perf reads it (entries counted by attr_size, each attr read by its own
# size with its ids right after; tools/perf/util/header.c read_attr).  The
# file: perf's own recording with attr_size patched to attr.size; perf
# script and pmuscope script must print the same samples.
set -u
pms=${1:?usage: attr_size.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
perf=/usr/bin/perf
[ -x $perf ] || { echo "perf absent"; exit 77; }
$perf record -q -e page-faults -d -o "$tmp/pf.data" -- sh -c 'true' >/dev/null 2>&1 ||
  { echo "perf record refused here"; exit 77; }
python3 - "$tmp/pf.data" "$tmp/patched.data" <<'PY' || { echo "FAIL: patch"; exit 1; }
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
attr_size, attrs_off, attrs_size = struct.unpack_from("<QQQ", b, 16)
asz = struct.unpack_from("<I", b, attrs_off + 4)[0]
assert attr_size == asz + 16, (attr_size, asz)
struct.pack_into("<Q", b, 16, asz)      # attr_size = attr.size: the ids no longer counted
assert attrs_size // asz == attrs_size // attr_size   # same entry count for perf
open(sys.argv[2], "wb").write(b)
PY
$perf script -F ip,addr -i "$tmp/patched.data" 2>/dev/null | awk '{print $1, $2}' | sed 's/^ *//' >"$tmp/perf.txt"
[ -s "$tmp/perf.txt" ] || { echo "perf does not read the patched file either"; exit 77; }
"$pms" script -F addr,ip -i "$tmp/patched.data" >"$tmp/pms.raw" 2>"$tmp/e" || bad "pmuscope refuses it: $(cat "$tmp/e")"
"$pms" script -F addr,ip -i "$tmp/pf.data" >"$tmp/orig.raw" 2>/dev/null
cmp -s "$tmp/pms.raw" "$tmp/orig.raw" || bad "patched file reads differently from the original"
# perf prints "addr ip" for -F ip,addr; compare the sets of (addr, ip) as numbers
python3 - "$tmp/perf.txt" "$tmp/pms.raw" <<'PY' || bad "samples differ from perf script"
import sys
def rows(p):
    out = []
    for l in open(p):
        f = l.split()
        if len(f) >= 2:
            out.append(tuple(int(x, 16) for x in f[:2]))
    return sorted(out)
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a and a == b, (len(a), len(b), a[:3], b[:3])
PY
"$pms" report -i "$tmp/patched.data" >/dev/null 2>"$tmp/e" || bad "report refuses it: $(cat "$tmp/e")"
exit $fail
