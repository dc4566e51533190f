#!/usr/bin/env bash
# Loss is said: a recording whose LOST records count more than 2% of the
# samples gets a WARNING with the ratio and what to do, in the text and in
# the JSON (samples.loss_ratio, samples.loss_warning); a small loss gets
# none.  The files are made here (python3): 100 page-fault samples and a
# LOST record.  $1 = the pmuscope binary.
set -u
pms=${1:?usage: loss.sh PMUSCOPE}
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

mk() { # file lost
python3 - "$1" "$2" <<'PY'
import struct, sys
path, lost = sys.argv[1], int(sys.argv[2])
# attr: PERF_TYPE_SOFTWARE / PAGE_FAULTS, period 1, IP|TID|TIME|ADDR|CPU|PERIOD
attr = struct.pack('<IIQQQQQ', 1, 136, 2, 1, 0x18f, 0, 0).ljust(136, b'\0')
attrs = attr + struct.pack('<QQ', 0, 0)          # and its (empty) ids section
data = b''
for i in range(100):
    data += struct.pack('<IHH', 9, 2, 56) + struct.pack('<QIIQQIIQ',
            0x401000 + 4 * i, 42, 42, 1000 + i, 0x7f0000000000 + 4096 * i, 0, 0, 1)
if lost:
    data += struct.pack('<IHHQQ', 2, 0, 24, 0, lost)
hdr = b'PERFILE2' + struct.pack('<QQ', 104, len(attrs))
hdr += struct.pack('<QQQQQQ', 104, len(attrs), 104 + len(attrs), len(data), 0, 0) + bytes(32)
open(path, 'wb').write(hdr + attrs + data)
PY
}

mk "$tmp/high.data" 900
mk "$tmp/low.data" 1
"$pms" report --no-symbols -i "$tmp/high.data" >"$tmp/high.txt" 2>"$tmp/high.err" || bad "report exit $?"
grep -q "WARNING: lost 90.0% of the samples (900 lost, 100 kept).*--period" "$tmp/high.txt" ||
  { bad "no loss warning in the text:"; head -12 "$tmp/high.txt"; cat "$tmp/high.err"; }
"$pms" report --no-symbols --json -i "$tmp/high.data" >"$tmp/high.json" 2>/dev/null
python3 - "$tmp/high.json" <<'PY' || bad "JSON loss fields"
import json, sys
s = json.load(open(sys.argv[1]))["samples"]
assert abs(s["loss_ratio"] - 0.9) < 1e-9, s
assert s["loss_warning"] and "90.0%" in s["loss_warning"], s
PY
"$pms" report --no-symbols -i "$tmp/low.data" >"$tmp/low.txt" 2>&1
grep -q "WARNING: lost" "$tmp/low.txt" && bad "a 1% loss is warned about"
"$pms" report --no-symbols --json -i "$tmp/low.data" 2>/dev/null |
  python3 -c 'import json,sys; s=json.load(sys.stdin)["samples"]; assert s["loss_warning"] is None, s' ||
  bad "JSON warns about a 1% loss"
exit $fail
