#!/usr/bin/env python3
"""Write the seed corpus for fuzz_record (run from this directory).

Each seed is the 22-byte layout prefix fuzz_record.c reads (u32 sample_type,
u8 read_format, u8 flags: bit0 HW_INDEX, bit1 COUNTERS, bit2 sample_id_all,
u64 sample_regs_user, u64 sample_regs_intr) followed by one little-endian
record built here with struct, independently of the C encoder."""
import struct

IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = (1 << i for i in range(11))
BRANCH_STACK, REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENTIFIER = (1 << i for i in range(11, 17))
TRANSACTION, REGS_INTR, PHYS_ADDR, AUX, CGROUP = (1 << i for i in range(17, 22))
DATA_PAGE_SIZE, CODE_PAGE_SIZE, WEIGHT_STRUCT = (1 << i for i in range(22, 25))


def prefix(st, rf=0, flags=0, ru=0, ri=0):
    return struct.pack('<IBBQQ', st, rf, flags, ru, ri)


def record(rtype, misc, body):
    body += b'\0' * (-len(body) % 8)
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def q(*v):
    return struct.pack('<%dQ' % len(v), *v)


seeds = {}

# Precise memory sample (the sampler's usual layout).
st = IP | TID | TIME | ADDR | CPU | PERIOD | DATA_SRC | WEIGHT_STRUCT | PHYS_ADDR | DATA_PAGE_SIZE
body = q(0x401136) + struct.pack('<II', 100, 101) + q(12345, 0x7ffd1000) + \
    struct.pack('<II', 3, 0) + q(10007, 0x0003002000000c8, 0x68100142, 0x12345000, 4096)
seeds['mem_sample'] = prefix(st) + record(9, 0x4002, body)

# Callchain, raw, branch stack with hw_idx and counters, regs, stack, group read.
st = IDENTIFIER | IP | READ | CALLCHAIN | RAW | BRANCH_STACK | REGS_USER | STACK_USER | REGS_INTR | AUX
rf = 0x8 | 0x1 | 0x4 | 0x10  # GROUP | TOTAL_TIME_ENABLED | ID | LOST
body = q(42, 0xffffffff81001000)
body += q(2, 100, 5, 42, 0, 6, 43, 0)
body += q(3, 2**64 - 128, 0xffffffff81001000, 0x401000)
body += struct.pack('<I', 12) + bytes(range(12))
body += q(2, 7, 0x1000, 0x2000, 0x300051, 0x3000, 0x4000, 0x2, 11, 22)
body += q(2, 0xa0, 0xa2)
body += q(16) + bytes(range(16)) + q(12)
body += q(2, 0xb0)
body += q(8) + b'AUXDATA!'
seeds['full_sample'] = prefix(st, rf, 3, 0x5, 0x1) + record(9, 1, body)

# Non-sample records with a sample_id trailer (TID|TIME|ID|CPU|IDENTIFIER).
st = TID | TIME | ID | CPU | IDENTIFIER | IP
trailer = struct.pack('<II', 10, 11) + q(777, 42) + struct.pack('<II', 2, 0) + q(42)
seeds['mmap2'] = prefix(st, 0, 4) + record(
    10, 2, struct.pack('<II', 10, 11) + q(0x400000, 0x1000, 0) + struct.pack('<II', 8, 1) +
    q(99, 3) + struct.pack('<II', 5, 2) + b'/bin/true\0\0\0\0\0\0\0' + trailer)
seeds['mmap2_buildid'] = prefix(st, 0, 4) + record(
    10, 0x4002, struct.pack('<II', 10, 11) + q(0x400000, 0x1000, 0) +
    struct.pack('<BBH', 20, 0, 0) + bytes(range(0xb0, 0xc4)) + struct.pack('<II', 5, 2) +
    b'/lib/libc.so.6\0\0' + trailer)
seeds['comm'] = prefix(st, 0, 4) + record(3, 0x2000, struct.pack('<II', 10, 11) + b'stress\0\0' + trailer)
seeds['aux'] = prefix(st, 0, 4) + record(11, 0, q(0x10000, 0x800, 0x5) + trailer)
seeds['lost_samples'] = prefix(st, 0, 4) + record(13, 0, q(17) + trailer)
seeds['switch_cpu_wide'] = prefix(st, 0, 4) + record(15, 0x2000, struct.pack('<II', 20, 21) + trailer)
seeds['fork'] = prefix(0) + record(7, 0, struct.pack('<IIII', 2, 1, 2, 1) + q(5))

for name, data in seeds.items():
    with open(name + '.bin', 'wb') as f:
        f.write(data)
