#!/usr/bin/env python3
"""The allocation tracker's cost on bench/alloc_bench (not a test: it prints
figures).  Runs the bench RUNS times plain and RUNS times under
libpmuscope-alloc.so exactly as `pmuscope mem -- CMD` sets it up (LD_PRELOAD,
PMUSCOPE_ALLOC on an O_APPEND memfd), alternating, and prints the medians of
the run time the bench prints and of its CPU time (user + system, from the
children's rusage: steadier than run time on a loaded machine), their ratios
and the records written.  --preload PATH (repeatable) runs each library
named instead of the build's, in the same alternation (another build's, to
compare two versions on one loaded machine); --syscalls then runs the bench
once more under each one with `strace -f -c` and prints the library's
mmap/munmap/fallocate calls (the bench's own large blocks make some too:
the plain run's counts are printed beside them).  --split adds, for each
library, a run that tracks nothing (the hooks' own cost: rate and threshold
past any size) and one that tracks only the large blocks (the rate past any
size, THRESHOLD kept), in the same alternation, so the ratios split into
hooks, large blocks and sampled small ones.  --mono adds, for each
library, a run with its records stamped by clock_gettime(CLOCK_MONOTONIC)
(clock=mono) instead of the time-stamp counter, in the same alternation.
--profile runs each case under `perf record -e cpu-clock` instead, in the
same alternation, and prints the median samples per run in each part of
the process (the libc allocator, the kernel, the library, the bench's own
code): where the tracked run's extra time goes, less noisy than the total.
With --profile, --split adds the same two runs per library.  --pin CPUS
(a list such as 0 or 0,1) runs everything on those CPUs only: with one,
the bench's threads never run at the same time, so most of the time they
spend waiting on each other's arena locks (futex sleeps and the
allocator's cache lines moving between CPUs: on the loaded 2-CPU VM it
changed the CPU of one case by up to 1.5x from run to run) leaves the
figures (a thread preempted holding a lock still makes the others wait).
The load average is printed before and after.
  alloc_overhead.py [--preload PATH]... [--syscalls] [--split] [--mono] [--profile] [--pin CPUS] BUILD [RUNS [THREADS [ROUNDS [RATE [THRESHOLD]]]]]"""
import fcntl, os, re, resource, shutil, statistics, struct, subprocess, sys

def count_records(fd):
    """Records in the stream file (include/pmuscope/alloc.h: a header page,
    then 64 KiB chunks of records, 32 bytes or more, ended by a size of 0),
    its calibration points (kind 17) left out."""
    data = os.pread(fd, os.fstat(fd).st_size, 0)
    if len(data) < 4096:
        return 0
    n = 0
    for k in range(struct.unpack_from("<Q", data, 8)[0]):
        off = 4096 + k * 65536
        end = min(off + 65536, len(data))
        while end - off >= 32:  # a record may end early (a free: 32 bytes)
            size, kind = struct.unpack_from("<HB", data, off)
            if not size:
                break
            n, off = n + (kind != 17), off + size
    return n

def tracked_env(pre, rate, thr, mono=False):
    fd = os.memfd_create("alloc-bench", 0)
    os.set_inheritable(fd, True)
    fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND)
    env = dict(os.environ, LD_PRELOAD=pre, PMUSCOPE_ALLOC="fd=%d,ino=%d,rate=%s,threshold=%s%s"
               % (fd, os.fstat(fd).st_ino, rate, thr, ",clock=mono" if mono else ""))
    return fd, env

def syscall_counts(cmd, env=None, fds=()):
    """mmap, munmap, fallocate calls of cmd and its threads (strace -f -c)."""
    r = subprocess.run(["strace", "-f", "-c", "-e", "trace=mmap,munmap,fallocate"] + cmd,
                       capture_output=True, text=True, env=env, pass_fds=fds)
    got = {}
    for line in r.stderr.splitlines():
        f = line.split()
        if len(f) >= 5 and f[-1] in ("mmap", "munmap", "fallocate") and re.match(r"^\d+$", f[3]):
            got[f[-1]] = int(f[3])
    return got

def main():
    argv, pres, sysc, split, mono, profile = sys.argv[1:], [], False, False, False, False
    while argv and argv[0].startswith("--"):
        if argv[0] in ("--help", "-h"):
            print(__doc__)
            raise SystemExit(0)
        if argv[0] == "--preload":
            pres.append(argv[1])
            argv = argv[2:]
        elif argv[0] == "--syscalls":
            sysc, argv = True, argv[1:]
        elif argv[0] == "--split":
            split, argv = True, argv[1:]
        elif argv[0] == "--mono":
            mono, argv = True, argv[1:]
        elif argv[0] == "--profile":
            profile, argv = True, argv[1:]
        elif argv[0] == "--pin":
            cpus = {int(c) for c in argv[1].split(",")}
            os.sched_setaffinity(0, cpus)  # the runs inherit it
            print("pinned to CPUs %s" % ",".join(str(c) for c in sorted(cpus)))
            argv = argv[2:]
        else:
            raise SystemExit("unknown option %s" % argv[0])
    build = argv[0]
    runs, threads, rounds = (int(a) for a in (argv[1:4] + ["5", "4", "200000"][len(argv[1:4]):]))
    rate = argv[4] if len(argv) > 4 else "32768"
    thr = argv[5] if len(argv) > 5 else "65536"
    bench = os.path.join(build, "bench", "alloc_bench")
    if not pres:
        pres = [os.path.join(build, "src", "alloc", "preload", "libpmuscope-alloc.so")]
    if profile:
        return profile_parts(bench, pres, runs, threads, rounds, rate, thr, split)
    if len(pres) > 1 or split or mono:
        return compare(bench, pres, runs, threads, rounds, rate, thr, sysc, split, mono)
    pre = pres[0]
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
    print("load average now: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    if sysc:
        print_syscalls(bench, pres, threads, rounds, rate, thr)
    return 0

def print_syscalls(bench, pres, threads, rounds, rate, thr):
    if not shutil.which("strace"):
        print("(no strace: system calls not counted)")
        return
    cmd = [bench, str(threads), str(rounds)]
    print("system calls (strace -f -c, one run each): plain %s" % syscall_counts(cmd))
    for pre in pres:
        fd, env = tracked_env(pre, rate, thr)
        print("  under %s: %s" % (pre, syscall_counts(cmd, env, (fd,))))
        os.close(fd)

def dso_samples(data):
    """cpu-clock samples per object of a perf.data file (perf report --sort dso)."""
    r = subprocess.run(["perf", "report", "-i", data, "--no-children", "-n", "--sort", "dso",
                        "--stdio", "-g", "none"], capture_output=True, text=True)
    got = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and not line.startswith("#") and f[1].isdigit():
            got[f[2]] = got.get(f[2], 0) + int(f[1])
    return got

def profile_parts(bench, pres, runs, threads, rounds, rate, thr, split=False):
    """Plain and each preload alternating under perf record: the median
    samples (50 us of CPU each) per run in libc, the kernel, the library
    and the bench (with --split: each preload also tracking nothing, and
    only large blocks)."""
    if not shutil.which("perf"):
        raise SystemExit("--profile needs perf")
    tmp = "/tmp/alloc-overhead-%d.data" % os.getpid()
    cases = [("plain", None, None, None)]
    for pre in pres:
        if split:
            cases.append((pre + " hooks only", pre, NEVER, NEVER))
            cases.append((pre + " large only", pre, NEVER, thr))
        cases.append((pre, pre, rate, thr))
    got = {k: [] for k, _, _, _ in cases}
    print("load average before: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    for _ in range(runs):
        for k, pre, r_, t_ in cases:
            fd, env = tracked_env(pre, r_, t_) if pre else (None, None)
            subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "50000", "-o", tmp,
                            bench, str(threads), str(rounds)], capture_output=True, check=True,
                           env=env, pass_fds=(fd,) if fd is not None else ())
            if fd is not None:
                os.close(fd)
            d = dso_samples(tmp)
            lib = os.path.basename(pre) if pre else None
            got[k].append({"total": sum(d.values()), "libc": d.get("libc.so.6", 0),
                           "kernel": d.get("[kernel.kallsyms]", 0),
                           "library": d.get(lib, 0) if lib else 0,
                           "bench": d.get(os.path.basename(bench), 0)})
    os.unlink(tmp)
    print("alloc_bench %d threads x %d allocations, rate %s, threshold %s, %d runs each, "
          "alternating: median cpu-clock samples (50 us) per run" % (threads, rounds, rate, thr, runs))
    parts = ("total", "libc", "kernel", "library", "bench")
    base = {p: statistics.median(x[p] for x in got["plain"]) for p in parts}
    for k, _, _, _ in cases:
        med = {p: statistics.median(x[p] for x in got[k]) for p in parts}
        print("%s: %s; total ratio %.3f" % (k, ", ".join("%s %d" % (p, med[p]) for p in parts),
                                            med["total"] / base["total"]))
    print("load average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    return 0

NEVER = str(1 << 62)  # a rate or threshold past any size

def compare(bench, pres, runs, threads, rounds, rate, thr, sysc, split=False, mono=False):
    """Plain, then each preload (with --split: also tracking nothing, and
    only large blocks; with --mono: also clock=mono), alternating: median
    wall and CPU ratios."""
    def cpu_now():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime
    runs_of = [("plain", None, None, None, False)]
    for pre in pres:
        if split:
            runs_of.append((pre + " hooks only", pre, NEVER, NEVER, False))
            runs_of.append((pre + " large only", pre, NEVER, thr, False))
        if mono:
            runs_of.append((pre + " clock=mono", pre, rate, thr, True))
        runs_of.append((pre, pre, rate, thr, False))
    keys = [k for k, _, _, _, _ in runs_of]
    wall = {k: [] for k in keys}
    cpu = {k: [] for k in keys}
    print("load average before: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    for _ in range(runs):
        for k, pre, r_, t_, m_ in runs_of:
            fd, env = tracked_env(pre, r_, t_, m_) if pre else (None, None)
            c0 = cpu_now()
            out = subprocess.run([bench, str(threads), str(rounds)], capture_output=True, text=True,
                                 check=True, env=env, pass_fds=(fd,) if fd is not None else ())
            cpu[k].append(cpu_now() - c0)
            wall[k].append(float(out.stdout))
            if fd is not None:
                os.close(fd)
    print("alloc_bench %d threads x %d allocations, rate %s, threshold %s, %d runs each, alternating" %
          (threads, rounds, rate, thr, runs))
    wp, cp = statistics.median(wall["plain"]), statistics.median(cpu["plain"])
    print("plain: wall median %.3f s, cpu median %.3f s (runs %.3f-%.3f)" %
          (wp, cp, min(cpu["plain"]), max(cpu["plain"])))
    for k in keys[1:]:
        w, c = statistics.median(wall[k]), statistics.median(cpu[k])
        print("%s: wall median %.3f s (ratio %.3f), cpu median %.3f s (ratio %.3f; runs %.3f-%.3f)" %
              (k, w, w / wp, c, c / cp, min(cpu[k]), max(cpu[k])))
    print("load average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    if sysc:
        print_syscalls(bench, pres, threads, rounds, rate, thr)
    return 0

sys.exit(main())
