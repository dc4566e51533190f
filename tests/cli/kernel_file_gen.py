#!/usr/bin/env python3
"""A written perf.data file of kernel samples, and the root it is read
against (pmuscope --root ROOT, perf --symfs ROOT --kallsyms ROOT/proc/kallsyms):
ROOT/proc/kallsyms (a core kernel at 0xffffffff81000000, two lines of the
module fake_mod) and ROOT/sys/kernel/notes (the root's running kernel's
build id, KID below).  The file maps the kernel and, at 0xffffffffc0000000,
MODPATH as a module; its samples fall in and around both (data addresses a
cache line apart, HITM data_src: c2c lists them).

  kernel_file_gen.py OUT ROOT MODPATH MODID|none ORDER [options]
    MODID       the build id the file lists for MODPATH (hex), none: none
    ORDER       kfirst: the core-kernel samples first, mfirst: the module's
    --kid ID    the id the file lists for [kernel.kallsyms]: running (the
                root's, the default), none, or hex
    --fetch     AMD IBS fetch samples (the ibs_fetch PMU, RAW fetch
                registers whose linear address is the IP, Zen 4's CPUID;
                in pipe mode as HEADER_FEATURE records before the data)
    --pipe WHEN pipe mode, a first sample (--first), a FINISHED_ROUND
                after each sample; the HEADER_BUILD_ID records early
                (before every sample), beforekernel (after the first
                sample, before the kernel's: perf inject -b's order; the
                first is delivered after them, at the next round's end),
                afterfirst (after a second user sample's round: the first
                is delivered before them) or late (after every sample)
    --first KIND the pipe's first sample: user (the default: user mode,
                a user data address), kdata (user mode, its data address
                in core_fn_a: its only kernel address; the event is
                page-faults, whose address perf script names) or guest (a
                guest kernel's IP, in no map)
    --modules   the module-naming layout: kallsyms with an alias at one
                address, data lines ending functions, the modules
                other_mod, dash_mod and gone_mod (no map in the file:
                unmapped_fn); MMAPs of [other_mod] and [dash-mod] after
                MODPATH's; samples at the maps' edges, in gone_mod and above
                the kernel map
Used by kernel_modules.sh, kernel_modules_ko.sh, kernel_sort_merge.sh,
c2c_merge_kernel.sh, report_fetch_kernel.sh and report_merge_pipe.sh."""
import argparse
import os
import struct

ap = argparse.ArgumentParser()
for a in ("out", "root", "kopath", "modid", "order"):
    ap.add_argument(a)
ap.add_argument("--kid", default="running")
ap.add_argument("--fetch", action="store_true")
ap.add_argument("--pipe", choices=("early", "beforekernel", "afterfirst", "late"))
ap.add_argument("--first", choices=("user", "kdata", "guest"), default="user")
ap.add_argument("--modules", action="store_true")
o = ap.parse_args()

KID = bytes(range(0x10, 0x24))
TEXT, MOD = 0xffffffff81000000, 0xffffffffc0000000
FETCH_TYPE = 9
if o.modules:
    ks = [(TEXT, 'T', '_text', None), (TEXT, 'T', 'startup_64', None),
          (TEXT + 0x1000, 'T', 'core_fn_a', None), (TEXT + 0x2000, 't', 'core_fn_b', None),
          (TEXT + 0x2800, 'D', 'core_data', None), (TEXT + 0x3000, 'T', 'core_last', None),
          # an alias at one address (the last line is perf's), a data line
          # ending a function, the last line ending at the page after it
          (MOD, 't', 'mod_fn_a', 'fake_mod'), (MOD + 0x100, 't', 'mod_fn_b', 'fake_mod'),
          (MOD + 0x100, 'T', 'mod_fn_b_alias', 'fake_mod'),
          (MOD + 0x400, 'T', 'mod_fn_c', 'fake_mod'), (MOD + 0x2000, 'd', 'mod_data', 'fake_mod'),
          (MOD + 0x10000, 't', 'other_fn', 'other_mod'),
          (MOD + 0x10200, 'T', 'other_last', 'other_mod'),
          # a "[dash-mod]" map: perf keeps the bracketed name as it is, so
          # the kallsyms tag [dash_mod] is not its module's
          (MOD + 0x20000, 't', 'dash_fn', 'dash_mod'),
          # a module with no map in the file
          (MOD + 0x30000, 't', 'unmapped_fn', 'gone_mod')]
else:
    ks = [(TEXT, 'T', '_text', None), (TEXT + 0x1000, 'T', 'core_fn_a', None),
          (TEXT + 0x3000, 'T', 'core_last', None),
          (MOD, 't', 'ks_mod_a', 'fake_mod'), (MOD + 0x20, 't', 'ks_mod_b', 'fake_mod')]
os.makedirs(f'{o.root}/proc', exist_ok=True)
os.makedirs(f'{o.root}/sys/kernel', exist_ok=True)
with open(f'{o.root}/proc/kallsyms', 'w') as f:
    for a, t, n, m in ks:
        f.write(f'{a:016x} {t} {n}' + (f'\t[{m}]' if m else '') + '\n')
with open(f'{o.root}/sys/kernel/notes', 'wb') as f:
    f.write(struct.pack('<III', 4, 20, 3) + b'GNU\0' + KID)


def rec(t, misc, body):
    return struct.pack('<IHH', t, misc, 8 + len(body)) + body


def pad8(s):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)


def wstr(s):  # perf's do_write_string: u32 length, NUL-padded to 64
    b = s.encode() + b'\0'
    b += b'\0' * (-len(b) % 64)
    return struct.pack('<I', len(b)) + b


def kmmap(start, ln, pgoff, name):
    return rec(1, 1, struct.pack('<IIQQQ', 0xffffffff, 0, start, ln, pgoff) + pad8(name))


def bidbody(idb, name):
    fname = pad8(name)
    fname += b'\0' * (-len(fname) % 64)
    return struct.pack('<i', -1) + idb + b'\0' * (24 - len(idb)) + fname


# IP | TID | TIME | ADDR | PERIOD | DATA_SRC, or IP | TID | TIME | PERIOD | RAW
stype = 0x1 | 0x2 | 0x4 | 0x100 | 0x400 if o.fetch else 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x8000


def sample(ip, i, t, misc=1, addr=None):
    if o.fetch:
        # IbsFetchCtl: IbsFetchVal (49), IbsFetchEn (48), latency 40 + i % 7;
        # IbsFetchLinAd the IP; the caps word first (perf's RAW layout:
        # Zen 4, IbsFetchCtlExtd)
        regs = ((1 << 49) | (1 << 48) | ((40 + i % 7) << 32), ip, 0, 0)
        raw = struct.pack('<I', 0x7ff | (1 << 11) | (1 << 9)) + struct.pack('<4Q', *regs)
        return rec(9, misc, struct.pack('<QIIQQ', ip, 100, 100, t, 1) +
                   struct.pack('<I', len(raw)) + raw)
    if addr is None:
        addr = 0xffff888000000000 + 64 * i
    return rec(9, misc, struct.pack('<QIIQQQQ', ip, 100, 100, t, addr, 1, 0x68100142))


kid = {'running': KID, 'none': None}.get(o.kid)
if o.kid not in ('running', 'none'):
    kid = bytes.fromhex(o.kid)
bids = []
if kid:
    bids.append((1, bidbody(kid, '[kernel.kallsyms]')))
if o.modid != 'none':
    bids.append((1, bidbody(bytes.fromhex(o.modid), o.kopath)))

side = kmmap(TEXT, 0x4000, TEXT, '[kernel.kallsyms]_text')
side += kmmap(MOD, 0x4000, 0, o.kopath)
if o.modules:
    side += kmmap(MOD + 0x10000, 0x1000, 0, '[other_mod]')
    side += kmmap(MOD + 0x20000, 0x1000, 0, '[dash-mod]')
side += rec(3, 0, struct.pack('<II', 100, 100) + pad8('fakeproc'))
if o.modules:
    kips = [TEXT + 0x1010, TEXT + 0x2010, TEXT + 0x2808, TEXT + 0x3010]
    mips = [MOD, MOD + 0x50, MOD + 0x100, MOD + 0x180, MOD + 0x400, MOD + 0x1ff0, MOD + 0x2008,
            MOD + 0x2ff8, MOD + 0x3ff0, MOD + 0x10010, MOD + 0x10210, MOD + 0x10ff8,
            MOD + 0x20010, MOD + 0x30010, TEXT + 0x8000]
else:
    mips = [MOD + x for x in range(0, 0x80, 3)] + [MOD + x for x in (0x138, 0x200, 0x3ff0)]
    kips = [TEXT + 0x1010, TEXT + 0x3010]
ips = (kips + mips) if o.order == 'kfirst' else (mips + kips)
t = 1000
samples = b''
for i, ip in enumerate(ips):
    samples += sample(ip, i, t)
    t += 1000
# cpu-clock, page-faults (--first kdata) or ibs_fetch (--fetch); mmap, comm
attr = struct.pack('<IIQQQQQIIQQQQIiQIHHIIQ', FETCH_TYPE if o.fetch else 1, 128,
                   2 if o.first == 'kdata' else 0, 1, stype,
                   0, (1 << 8) | (1 << 9), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
# CPUID (9) and PMU_MAPPINGS (16), the fetch file's features
feats = []
if o.fetch:
    feats.append((9, wstr('AuthenticAMD,25,17,1')))
    feats.append((16, struct.pack('<I', 2) + struct.pack('<I', 4) + wstr('cpu') +
                  struct.pack('<I', FETCH_TYPE) + wstr('ibs_fetch')))

if o.pipe:
    # PERF_RECORD_HEADER_ATTR (64): the attr, no ids; HEADER_BUILD_ID (67)
    # a FINISHED_ROUND (68) after each sample, as perf record ends a
    # round per drained buffer: a round's samples are delivered once the
    # next round ends, before what follows is read (perf's
    # ordered_events flush)
    bidrecs = b''.join(rec(67, m, b) for m, b in bids)
    # an unmapped user IP, its data address a user one or the kernel's; or
    # a guest kernel's IP (misc 4: PERF_RECORD_MISC_GUEST_KERNEL), in no map
    user = (sample(TEXT + 0x100000, 0, 500, misc=4) if o.first == 'guest' else
            sample(0x400123, 0, 500, misc=2,
                   addr=TEXT + 0x1010 if o.first == 'kdata' else 0x7f0000001000))
    user += rec(68, 0, b'')
    samples = b''.join(sample(ip, i, 1000 * (i + 1)) + rec(68, 0, b'')
                       for i, ip in enumerate(ips))
    # HEADER_FEATURE (80): the feature's number, then its body
    data = rec(64, 0, attr) + b''.join(rec(80, 0, struct.pack('<Q', f) + b) for f, b in feats)
    data += side
    if o.pipe == 'early':
        data += bidrecs + user + samples
    elif o.pipe == 'beforekernel':
        data += user + bidrecs + samples
    elif o.pipe == 'afterfirst':
        data += user + sample(0x400123, 0, 600, misc=2, addr=0x7f0000001000) + rec(68, 0, b'')
        data += bidrecs + samples
    else:
        data += user + samples + bidrecs
    open(o.out, 'wb').write(b'PERFILE2' + struct.pack('<Q', 16) + data)
    raise SystemExit(0)

fattr = attr + struct.pack('<QQ', 0, 0)
data = side + samples
data_off = 104 + len(fattr)
feat_off = data_off + len(data)
# features in bit order: BUILD_ID (2), then the fetch file's
feats = [(2, b''.join(struct.pack('<IHH', 0, m, 8 + len(b)) + b for m, b in bids))] + feats
bits = 0
for b, _ in feats:
    bits |= 1 << b
table, body = b'', b''
off = feat_off + 16 * len(feats)
for _, f in feats:
    table += struct.pack('<QQ', off + len(body), len(f))
    body += f
hdr = b'PERFILE2' + struct.pack('<QQQQQQQQ4Q', 104, len(fattr), 104, len(fattr), data_off, len(data),
                                0, 0, bits, 0, 0, 0)
open(o.out, 'wb').write(hdr + fattr + data + table + body)
