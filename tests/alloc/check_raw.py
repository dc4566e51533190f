#!/usr/bin/env python3
"""The preload's records for raw-clone threads and for TLS blocks of modules
past id 255 (docs/mem.md), read from the stream file itself: runs
tests/alloc/alloc_raw_prog under libpmuscope-alloc.so as `pmuscope mem --
CMD` sets it up (every allocation tracked) and checks its TRUTH lines:
  A TID ADDR FN RET1 RET2 WHAT  a malloc record at ADDR with that thread's
                                tid, frame 0 inside FN (the hook's return
                                address: within 512 bytes of FN's start),
                                frames 1 and 2 the return addresses into the
                                two callers (a full call path, not frame 0
                                alone)
  P PID ADDR                    the malloc record at ADDR carries pid PID
  S TID LO HI                   a thread_stack record of that tid holding
                                [LO, HI)
  L TID LO HI MODBASE [T]       a tls record of that tid holding [LO, HI),
                                its one frame the module's first byte + 1
                                (its time T or later)
  U TID LO HI MODBASE           exactly one tls record of that tid holding
                                [LO, HI) with that module frame
  I ID                          the module id is 256 or more
  R IDA IDB                     the two ids are the same (the id reused)
  M TID                         (maps, run under strace) that thread
                                opened /proc/self/maps once at most (not
                                once per record: 21)
  X N                           N 0: the stream mapping that held a gone
                                raw thread's record is unmapped
  W N                           at most 3 mappings of the stream's chunks
                                (the main thread's and one the raw threads
                                handed on; a chunk left mapped per raw
                                thread: 9)
  C ADDR T0 T1 T2 T3            (clock, clock_mono) the malloc record at
                                ADDR within [T0, T1], its free within
                                [T2, T3] (CLOCK_MONOTONIC ns; the stream's
                                counter ticks converted as the reader does)
check_raw.py PRELOAD PROGRAM clone|reuse|reap|maps|clock|clock_mono
check_raw.py PRELOAD PROGRAM mods|reload|rawdyn|rawdyn_noself|rawie MODULE COPIES   (COPIES copies of
                                            MODULE made in a temporary folder)"""
import bisect, fcntl, os, shutil, struct, subprocess, sys, tempfile

REC = struct.Struct("<HBBIIIQQQQQ")  # struct pms_alloc_rec, 56 bytes
MAGICS, HDR_PAGE, CHUNK = (0x32434f4c41534d50, 0x31434f4c41534d50), 4096, 64 << 10
CLOCK, F_TSC = 17, 2  # PMS_ALLOC_CLOCK, PMS_ALLOC_F_TSC

def tick_ns(points, x):
    """Counter tick x as CLOCK_MONOTONIC ns: linear between the calibration
    points (tick, ns) around it, else along the first and last ones."""
    a, b = points[0], points[-1]
    i = bisect.bisect_right([p[0] for p in points], x)
    if 0 < i < len(points):
        a, b = points[i - 1], points[i]
    return a[1] + (x - a[0]) * (b[1] - a[1]) / (b[0] - a[0])

def records(data):
    out, points = [], []
    if len(data) < HDR_PAGE or struct.unpack_from("<Q", data)[0] not in MAGICS:
        raise SystemExit("no stream header")
    for k in range(struct.unpack_from("<Q", data, 8)[0]):
        off = HDR_PAGE + k * CHUNK
        end = min(off + CHUNK, len(data))
        while end - off >= 32:
            size, kind, nfr = struct.unpack_from("<HBB", data, off)
            if size == 0:
                break
            body = size - 8 * nfr  # a record may end early (32, 40, 48 or 56 bytes)
            if body not in (32, 40, 48, 56) or off + size > end:
                raise SystemExit("malformed record at %d" % off)
            whole = data[off:off + body] + bytes(REC.size - body)
            size, kind, nfr, pid, tid, flags, t, addr, nbytes, w, old = REC.unpack(whole)
            frames = struct.unpack_from("<%dQ" % nfr, data, off + body)
            if kind == CLOCK:
                points.append((addr, t, nbytes))
            else:
                out.append((kind, pid, tid, addr, nbytes, frames, t, flags))
            off += body + 8 * nfr
    # (the reader's rule, src/alloc/stream.c: points read across a
    # preemption, wider than twice the narrowest and 256 ticks, not used;
    # each kept one past the last)
    wide = 2 * min(p[2] for p in points) + 256 if points else 0
    narrow = sum(1 for p in points if p[2] <= wide)
    kept = []
    for p in sorted(points):
        if (narrow >= 2 and p[2] > wide) or (kept and (p[0] <= kept[-1][0] or p[1] <= kept[-1][1])):
            continue
        kept.append(p)
    if any(x[7] & F_TSC for x in out) and len(kept) < 2:
        raise SystemExit("times in counter ticks, %d calibration points" % len(kept))
    return [x[:6] + (tick_ns(kept, x[6]) if x[7] & F_TSC else x[6], x[7]) for x in out]

def clocksource_tsc():
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            return f.read().strip() == "tsc"
    except OSError:
        return False

def check_clock(recs, rows, mono):
    """C rows: the malloc record at ADDR between T0 and T1, the free
    between T2 and T3 (paired in time order per address), within SLACK ns
    (the calibration points' own width); counter ticks used where the
    kernel's clock source is the TSC on x86-64, unless mono."""
    SLACK = 2000
    rc, worst = 0, 0
    tsc = [x for x in recs if x[0] in (1, 11) and x[7] & F_TSC]
    want_tsc = not mono and clocksource_tsc() and os.uname().machine == "x86_64"
    print("records in counter ticks: %d (expected: %s)" % (len(tsc), "yes" if want_tsc else "none"))
    if bool(tsc) != want_tsc:
        rc = 1
    by_addr = {}
    for row in rows:
        if row[0] == "C":
            by_addr.setdefault(int(row[1], 16), []).append(tuple(int(v) for v in row[2:6]))
    n = 0
    for addr, spans in by_addr.items():
        spans.sort()
        # this address's records in time order: each malloc of 100,000
        # bytes (other blocks may get the address too) and the free after it
        seq = sorted((x[6], x[0], x[4]) for x in recs if x[0] in (1, 11) and x[3] == addr)
        pairs = [(t, next((u for u, k, _ in seq[i + 1:] if k == 11), None))
                 for i, (t, k, b) in enumerate(seq) if k == 1 and b == 100000]
        if len(pairs) != len(spans) or any(f is None for _, f in pairs):
            print("%#x: %d malloc records (with a free after: %d) for %d blocks: WRONG" %
                  (addr, len(pairs), sum(f is not None for _, f in pairs), len(spans)))
            rc = 1
            continue
        for kind, lo_i, hi_i in ((1, 0, 1), (11, 2, 3)):
            times = [p[0] if kind == 1 else p[1] for p in pairs]
            for t, sp in zip(times, spans):
                off = max(sp[lo_i] - t, t - sp[hi_i], 0)
                worst = max(worst, off)
                n += 1
                if off > SLACK:
                    print("%#x: %s at %d, outside [%d, %d] by %d ns: WRONG" %
                          (addr, "malloc" if kind == 1 else "free", t, sp[lo_i], sp[hi_i], off))
                    rc = 1
    print("%d record times checked against CLOCK_MONOTONIC: worst %d ns outside their span: %s" %
          (n, worst, "ok" if not rc else "WRONG"))
    return rc if n else 1

def main():
    preload, prog, mode = sys.argv[1:4]
    mono = mode == "clock_mono"
    if mono:
        mode = "clock"
    with tempfile.TemporaryDirectory() as d:
        args = [prog, os.path.join(d, "truth"), mode]
        if mode in ("mods", "reload", "rawdyn", "rawdyn_noself", "rawie"):
            mod, copies = sys.argv[4], int(sys.argv[5])
            for i in range(copies):
                p = os.path.join(d, "mod%03d.so" % i)
                shutil.copyfile(mod, p)
                args.append(p)
        fd = os.memfd_create("pmuscope-alloc-test", 0)
        os.set_inheritable(fd, True)
        fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND)
        env = dict(os.environ, LD_PRELOAD=preload,
                   PMUSCOPE_ALLOC="fd=%d,ino=%d,rate=0,threshold=65536%s" %
                   (fd, os.fstat(fd).st_ino, ",clock=mono" if mono else ""))
        trace = os.path.join(d, "strace")
        if mode == "maps":
            if not shutil.which("strace"):
                print("skipped: no strace")
                return 77
            args = ["strace", "-f", "-qq", "-e", "trace=openat", "-o", trace] + args
        r = subprocess.run(args, env=env, pass_fds=(fd,))
        if r.returncode == 77:
            print("skipped: not on this architecture")
            return 77
        if r.returncode:
            print("program exited %d under the preload" % r.returncode)
            return 1
        recs = records(os.pread(fd, os.fstat(fd).st_size, 0))
        rows = [l.split() for l in open(os.path.join(d, "truth"))]
        opens = [l.split()[0] for l in open(trace) if "/proc/self/maps" in l] if mode == "maps" else []
    if mode == "clock":
        return check_clock(recs, rows, mono)
    rc = 0
    for row in rows:
        if row[0] == "I":
            ok = int(row[1]) >= 256
            print("last module's TLS id %s: %s" % (row[1], "ok" if ok else "below 256"))
            rc |= not ok
            continue
        if row[0] == "R":
            ok = row[1] == row[2]
            print("TLS module ids %s then %s: %s" % (row[1], row[2], "ok" if ok else "not reused"))
            rc |= not ok
            continue
        if row[0] == "M":
            n = opens.count(row[1])
            ok = n <= 1
            print("thread %s opened /proc/self/maps %d times: %s" % (row[1], n, "ok" if ok else "WRONG"))
            rc |= not ok
            continue
        if row[0] == "X":
            ok = row[1] == "0"
            print("a gone raw thread's chunk still mapped after the main thread's claims: %s: %s" %
                  (row[1], "ok" if ok else "WRONG"))
            rc |= not ok
            continue
        if row[0] == "W":
            ok = 0 < int(row[1]) <= 3
            print("stream chunk mappings after 8 raw threads: %s: %s" % (row[1], "ok" if ok else "WRONG"))
            rc |= not ok
            continue
        if row[0] == "P":
            pid, addr = int(row[1]), int(row[2], 16)
            got = [x for x in recs if x[0] == 1 and x[3] == addr]
            ok = bool(got) and all(x[1] == pid for x in got)
            print("malloc record at %#x: pids %s (want %d): %s" %
                  (addr, [x[1] for x in got], pid, "ok" if ok else "WRONG"))
            rc |= not ok
            continue
        tid = int(row[1])
        if row[0] == "A":
            addr, fn, r1, r2 = (int(x, 16) for x in row[2:6])
            got = [x for x in recs if x[0] == 1 and x[3] == addr and x[2] == tid]
            ok = any(len(x[5]) >= 3 and fn <= x[5][0] < fn + 512 and x[5][1] == r1 and x[5][2] == r2
                     for x in got)
            print("%s thread %d: malloc record %s, frames %s (want %#x.., %#x, %#x): %s" %
                  (row[6], tid, "found" if got else "missing",
                   [["%#x" % f for f in x[5][:4]] for x in got], fn, r1, r2, "ok" if ok else "WRONG"))
        else:
            lo, hi = int(row[2], 16), int(row[3], 16)
            kind = 15 if row[0] == "S" else 16
            got = [x for x in recs if x[0] == kind and x[2] == tid and x[3] <= lo and hi <= x[3] + x[4]]
            if row[0] == "L":
                base = int(row[4], 16)
                got = [x for x in got if x[5][:1] == (base + 1,)]
                if len(row) > 5:
                    got = [x for x in got if x[6] >= int(row[5])]
            ok = len(got) >= 1
            if row[0] == "U":
                base = int(row[4], 16)
                ok = len([x for x in got if x[5][:1] == (base + 1,)]) == 1
            print("thread %d %s [%#x, %#x): %d records: %s" %
                  (tid, "stack" if kind == 15 else "tls", lo, hi, len(got),
                   "ok" if ok else "WRONG (want 1)" if row[0] == "U" else "MISSING"))
        rc |= not ok
    if not rows:
        print("no truth rows")
        rc = 1
    return rc

sys.exit(main())
