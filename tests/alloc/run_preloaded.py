#!/usr/bin/env python3
"""Run a program under libpmuscope-alloc.so as `pmuscope mem -- CMD` would
(LD_PRELOAD, PMUSCOPE_ALLOC naming an inherited memfd) and check the stream
file (a header page, then per-thread chunks): every record well formed (include/pmuscope/alloc.h), and the kinds named
with --expect present.
  run_preloaded.py PRELOAD RATE [--expect K,K,...] -- PROGRAM ARGS..."""
import fcntl, os, struct, subprocess, sys

HDR = struct.Struct("<HBBIIIQQQQQ")  # struct pms_alloc_rec, 56 bytes
MAGICS, HDR_PAGE, CHUNK = (0x32434f4c41534d50, 0x31434f4c41534d50), 4096, 64 << 10  # PMS_ALLOC_STREAM_*
KINDS = {1: "malloc", 2: "calloc", 3: "realloc", 4: "reallocarray", 5: "aligned_alloc",
         6: "posix_memalign", 7: "memalign", 8: "valloc", 9: "mmap", 10: "mremap",
         11: "free", 12: "munmap", 13: "start", 14: "fork", 15: "thread_stack", 16: "tls",
         17: "clock"}

def main():
    args = sys.argv[1:]
    sep = args.index("--")
    preload, rate = args[0], args[1]
    expect = []
    if "--expect" in args[:sep]:
        expect = args[args.index("--expect") + 1].split(",")
    prog = args[sep + 1:]
    fd = os.memfd_create("pmuscope-alloc-test", 0)
    os.set_inheritable(fd, True)
    fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND)
    env = dict(os.environ, LD_PRELOAD=preload,
               PMUSCOPE_ALLOC="fd=%d,ino=%d,rate=%s,threshold=65536" % (fd, os.fstat(fd).st_ino, rate))
    r = subprocess.run(prog, env=env, pass_fds=(fd,))
    if r.returncode != 0:
        print("program exited %d under the preload" % r.returncode)
        return 1
    data = os.pread(fd, os.fstat(fd).st_size, 0)
    seen, pids = {}, set()
    if len(data) < HDR_PAGE or struct.unpack_from("<QQ", data)[0] not in MAGICS:
        print("no stream header (%d bytes)" % len(data))
        return 1
    claimed = struct.unpack_from("<QQ", data)[1]
    for k in range(claimed):
        c = HDR_PAGE + k * CHUNK
        end, off = min(c + CHUNK, len(data)), c
        while end - off >= 32:
            size, kind, nfr = struct.unpack_from("<HBB", data, off)
            if size == 0:
                break
            body = size - 8 * nfr  # a record may end early (32, 40, 48 or 56 bytes)
            if kind not in KINDS or body not in (32, 40, 48, 56) or nfr > 32 or off + size > end:
                print("malformed record at %d: kind %d size %d frames %d" % (off, kind, size, nfr))
                return 1
            whole = data[off:off + body] + bytes(HDR.size - body)
            size, kind, nfr, pid, tid, flags, t, addr, nbytes, w, old = HDR.unpack(whole)
            if kind <= 10 and (nfr < 1 or not addr):
                print("allocation record without a call path or address at %d" % off)
                return 1
            seen[KINDS[kind]] = seen.get(KINDS[kind], 0) + 1
            pids.add(pid)
            off += size
    missing = [k for k in expect if k not in seen]
    print("records:", seen, "processes:", len(pids))
    if missing:
        print("missing kinds:", missing)
        return 1
    return 0

sys.exit(main())
