#!/usr/bin/env python3
"""The allocation tracker's cost on bench/alloc_bench (not a test: it prints
figures).  Runs the bench RUNS times plain and RUNS times under
libpmuscope-alloc.so exactly as `pmuscope mem -- CMD` sets it up (LD_PRELOAD,
PMUSCOPE_ALLOC on an O_APPEND memfd), alternating, and prints the medians of
the run time the bench prints and of its CPU time (user + system, from the
children's rusage: steadier than run time on a loaded machine), their ratios
and the records written.
  alloc_overhead.py BUILD [RUNS [THREADS [ROUNDS [RATE [THRESHOLD]]]]]"""
import fcntl, os, resource, statistics, struct, subprocess, sys

def count_records(fd):
    """Records in the stream file (include/pmuscope/alloc.h: a header page,
    then 64 KiB chunks of records ended by a size of 0)."""
    data = os.pread(fd, os.fstat(fd).st_size, 0)
    if len(data) < 4096:
        return 0
    n = 0
    for k in range(struct.unpack_from("<Q", data, 8)[0]):
        off = 4096 + k * 65536
        end = min(off + 65536, len(data))
        while end - off >= 56:
            size = struct.unpack_from("<H", data, off)[0]
            if not size:
                break
            n, off = n + 1, off + size
    return n

def main():
    build = sys.argv[1]
    runs, threads, rounds = (int(a) for a in (sys.argv[2:5] + ["5", "4", "200000"][len(sys.argv[2:5]):]))
    rate = sys.argv[5] if len(sys.argv) > 5 else "32768"
    thr = sys.argv[6] if len(sys.argv) > 6 else "65536"
    bench = os.path.join(build, "bench", "alloc_bench")
    pre = os.path.join(build, "src", "alloc", "preload", "libpmuscope-alloc.so")
    plain, tracked, recbytes, records = [], [], 0, 0
    cpu = {"plain": [], "tracked": []}

    def cpu_now():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    for _ in range(runs):
        c0 = cpu_now()
        out = subprocess.run([bench, str(threads), str(rounds)], capture_output=True, text=True, check=True)
        cpu["plain"].append(cpu_now() - c0)
        plain.append(float(out.stdout))
        fd = os.memfd_create("alloc-bench", 0)
        os.set_inheritable(fd, True)
        fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND)
        env = dict(os.environ, LD_PRELOAD=pre, PMUSCOPE_ALLOC="fd=%d,ino=%d,rate=%s,threshold=%s"
                   % (fd, os.fstat(fd).st_ino, rate, thr))
        c0 = cpu_now()
        out = subprocess.run([bench, str(threads), str(rounds)], capture_output=True, text=True,
                             check=True, env=env, pass_fds=(fd,))
        cpu["tracked"].append(cpu_now() - c0)
        tracked.append(float(out.stdout))
        recbytes, records = os.fstat(fd).st_size, count_records(fd)
        os.close(fd)
    p, t = statistics.median(plain), statistics.median(tracked)
    print("alloc_bench %d threads x %d allocations, rate %s, threshold %s, %d runs each" %
          (threads, rounds, rate, thr, runs))
    print("plain   median %.3f s  (%s)" % (p, " ".join("%.3f" % x for x in plain)))
    print("tracked median %.3f s  (%s)" % (t, " ".join("%.3f" % x for x in tracked)))
    print("ratio tracked/plain %.3f; stream file %d bytes, %d records" % (t / p, recbytes, records))
    cp, ct = statistics.median(cpu["plain"]), statistics.median(cpu["tracked"])
    print("cpu plain median %.3f s, tracked %.3f s: ratio %.3f" % (cp, ct, ct / cp))
    return 0

sys.exit(main())
