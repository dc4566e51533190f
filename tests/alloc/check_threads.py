#!/usr/bin/env python3
"""`pmuscope mem` names thread stacks and TLS blocks (docs/mem.md): on
tests/alloc/alloc_threads_prog, every sample in a thread's touched stack
range must go to that thread's stack site (kind thread_stack, its tid) and
every sample in its touched TLS range to its TLS site of the program
(kind tls, its tid, the program's module): >= 90 % of each placed, none
wrong; the text report names them [stack:TID] and [tls:TID].  With MODULE
(loaded by the program with dlopen), every sample in a thread's touched
range of the module's TLS block ("M" rows) goes to that thread's TLS site
of the module (kind tls, its tid, the module's path).
check_threads.py PMUSCOPE PROGRAM [MODULE]"""
import json, os, subprocess, sys, tempfile

def main():
    cli, prog = sys.argv[1], sys.argv[2]
    mod = sys.argv[3:4]
    with tempfile.TemporaryDirectory() as d:
        truth = os.path.join(d, "truth")
        env = dict(os.environ, PMUSCOPE_NO_DAMON="1")
        r = subprocess.run([cli, "mem", "--engine", "software", "--json", "--samples",
                            "--alloc-rate", "0", "-o", os.path.join(d, "t.data"), "--", prog, truth] + mod,
                           env=env, capture_output=True, text=True)
        if r.returncode:
            print("mem failed (%d): %s" % (r.returncode, r.stderr[-500:]))
            return 1
        rep = json.loads(r.stdout)
        t = subprocess.run([cli, "report", "-i", os.path.join(d, "t.data")], env=env,
                           capture_output=True, text=True)
        rows = [l.split() for l in open(truth)]
    a = rep["allocation_sites"]
    sites = a["sites"]
    rc = 0
    if mod and sum(r[0] == "M" for r in rows) != 4:  # main and 3 threads
        print("module rows: %s" % [r for r in rows if r[0] == "M"])
        rc = 1
    for row in rows:
        if row[0] == "M":
            tid, m0, m1 = int(row[1]), int(row[2], 16), int(row[3], 16)
            ranges, owner = (("module tls", m0, m1, "tls"),), os.path.realpath(mod[0])
        else:
            tid, s0, s1, t0, t1 = int(row[1]), *(int(x, 16) for x in row[2:6])
            ranges = (("stack", s0, s1, "thread_stack"), ("tls", t0, t1, "tls"))
            owner = os.path.realpath(prog)
        for what, lo, hi, kind in ranges:
            n = placed = wrong = 0
            for x, si in zip(rep["sample_list"], a["sample_sites"]):
                addr = int(x.get("addr") or "0", 16)
                if x["tid"] != tid or not lo <= addr < hi:
                    continue
                n += 1
                s = sites[si] if si >= 0 else None
                ok = s and s["kind"] == kind and s["tid"] == tid
                if kind == "tls" and ok:
                    ok = s["call_path"] and s["call_path"][0]["module"] == owner
                placed += bool(ok)
                wrong += bool(s) and not ok
                if s and not ok:
                    print("wrong: tid %d %s %#x -> %s tid %s %s" %
                          (tid, what, addr, s["kind"], s["tid"], s["call_path"][:1]))
            print("thread %d %s: %d samples, %d placed, %d wrong" % (tid, what, n, placed, wrong))
            if n == 0 or placed < 0.9 * n or wrong:
                rc = 1
            if row[0] == "M":
                continue
            tag = "[%s:%d]" % ("stack" if kind == "thread_stack" else "tls", tid)
            if t.returncode or tag not in t.stdout + t.stderr:
                print("report -i text does not name %s" % tag)
                rc = 1
    return rc

sys.exit(main())
