#!/usr/bin/env bash
# BRBE-shaped branch stacks (issue 31 row 3): a perf.data file written here
# whose branch entries carry what drivers/perf/arm_brbe.c fills (6.17:
# brbe_type_to_perf_type_map: COND, UNCOND, IND, CALL, IND_CALL, RET,
# SYSCALL, ERET, IRQ (IRQ and TRAP), SERROR, EXTEND_ABI + FAULT_ALGN/DATA/
# INST; perf_entry_from_brbe_regset: source-only records (to 0, no priv),
# target-only ones (from 0, no mispredict flags), cycles, priv from the EL),
# read by perf 6.12 and by pmuscope: `script -F brstack` byte-identical.
# $1 = pmuscope.  Needs perf and python3.
set -u
cli=${1:?usage: brstack_brbe.sh PMUSCOPE}
command -v perf >/dev/null || { echo "no perf"; exit 77; }
tmp=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/brbe.data" <<'PY'
import struct, sys
# perf_event_attr, PERF_ATTR_SIZE_VER7 (128 bytes)
IP, TID, BRANCH_STACK = 1 << 0, 1 << 1, 1 << 11
st = IP | TID | BRANCH_STACK
# -j any,u,k,save_type,priv: ANY 3, USER 0, KERNEL 1, TYPE_SAVE 16, PRIV_SAVE 18
bst = (1 << 3) | 1 | 2 | (1 << 16) | (1 << 18)
flags = (1 << 18)  # sample_id_all
attr = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQ", 0, 128, 0x11, 10007, st, 0, flags, 0, 0,
                   0, 0, bst, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
assert len(attr) == 128
def ent(frm, to, mispred=0, pred=0, cycles=0, typ=0, new=0, priv=0):
    f = mispred | pred << 1 | cycles << 4 | typ << 20 | new << 26 | priv << 29
    return struct.pack("<QQQ", frm, to, f)
U, K = 1, 2  # PERF_BR_PRIV_USER, _KERNEL
stacks = [
    [ent(0x400100, 0x400200, 1, 0, 5, 1, 0, U),        # COND, mispredicted
     ent(0x400210, 0x401000, 0, 1, 12, 4, 0, U),       # CALL
     ent(0x401020, 0x400214, 0, 1, 0, 6, 0, U),        # RET
     ent(0x400300, 0x400400, 0, 1, 300, 2, 0, U)],     # UNCOND
    [ent(0x400500, 0, 0, 1, 3, 7, 0, 0),               # SYSCALL, source only
     ent(0, 0x400504, 0, 0, 0, 11, 0, U),              # ERET, target only
     ent(0x400600, 0x400700, 0, 1, 7, 3, 0, U),        # IND
     ent(0x400710, 0x402000, 1, 0, 9, 5, 0, U)],       # IND_CALL
    [ent(0x400800, 0xffff800080010000, 0, 1, 0, 12, 0, K),  # IRQ (and TRAP)
     ent(0x400900, 0xffff800080010400, 0, 1, 0, 15, 1, K),  # FAULT_DATA
     ent(0x400904, 0xffff800080010400, 0, 1, 0, 15, 0, K),  # FAULT_ALGN
     ent(0x400908, 0xffff800080010400, 0, 1, 0, 15, 2, K),  # FAULT_INST
     ent(0x400a00, 0xffff800080010800, 0, 1, 0, 13, 0, K)], # SERROR
    [],
]
data = b""
for i, s in enumerate(stacks):
    body = struct.pack("<QIIQ", 0x400100 + i, 4242, 4242, len(s)) + b"".join(s)
    data += struct.pack("<IHH", 9, 2, 8 + len(body)) + body  # SAMPLE, misc USER
attrs_off = 104
attr_sz = 128 + 16
ids_off = attrs_off + attr_sz
data_off = ids_off
hdr = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, attr_sz, attrs_off, attr_sz,
                                data_off, len(data), 0, 0) + b"\0" * 32
open(sys.argv[1], "wb").write(hdr + attr + struct.pack("<QQ", ids_off, 0) + data)
PY
perf script -i "$tmp/brbe.data" -F brstack >"$tmp/perf.txt" 2>"$tmp/perf.err" ||
  { echo "perf cannot read the BRBE-shaped file"; cat "$tmp/perf.err"; exit 1; }
"$cli" script -i "$tmp/brbe.data" -F brstack >"$tmp/ours.txt" 2>"$tmp/err" ||
  { echo "FAIL: pmuscope script"; cat "$tmp/err"; exit 1; }
# every type the driver maps, as perf names them, is in perf's output
for t in /COND/ /CALL/ /RET/ /UNCOND/ /SYSCALL/ /ERET/ /IND/ /IND_CALL/ /IRQ/ /FAULT_DATA/ \
         /FAULT_ALGN/ /FAULT_INST/ /SERROR/; do
  grep -q -- "$t" "$tmp/perf.txt" || { echo "FAIL: perf printed no $t"; cat "$tmp/perf.txt"; exit 1; }
done
if ! cmp -s "$tmp/perf.txt" "$tmp/ours.txt"; then
  echo "FAIL: BRBE-shaped brstack differs from perf script"
  diff "$tmp/perf.txt" "$tmp/ours.txt" | head -10 | cut -c1-400
  exit 1
fi
echo "ok: $(grep -c . "$tmp/perf.txt") samples with BRBE-shaped branch stacks byte-identical to perf script"
