#!/usr/bin/env python3
"""perf as the oracle for type resolution (issue 29).

For the ground-truth generator's random programs (gen_types.py), compiled
non-PIE with -g by gcc and clang at -O0 and -O2, every instruction with a
memory operand in the access functions becomes one memory sample of a
written perf.data (typefile: raw mem-loads attr, IP|TID|TIME|ADDR|CPU|
WEIGHT|DATA_SRC, COMM + MMAP2 of the executable segment; the data address
is the RIP-relative target where objdump prints one, else 0).  Then
`perf report -s symoff,type,typeoff` names each sample's type and member
and typeprobe (the library's pms_typeres_lookup) does the same.  Compared
per instruction: the type and the offset must be equal where both resolve;
perf's member name (it stops at the first array) must be a prefix of
pmuscope's with the indices removed.  Every disagreement is printed.

  perf_oracle.py TYPEPROBE TYPEFILE [--seeds N] [--strict]

Exit 77 when perf is missing or prints no type at all; with --strict, 1 on
any disagreement.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_types  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def exec_segment(exe):
    for ln in run(["readelf", "-lW", exe]).stdout.splitlines():
        f = ln.split()
        if f and f[0] == "LOAD" and "E" in f[-2:-1] + [f[-2]]:
            return int(f[2], 16), int(f[5], 16), int(f[1], 16)
    return None


def mem_insns(exe):
    """(ip, function+off, data addr) of memory-operand instructions in acc*."""
    out, fn, start = [], None, 0
    for ln in run(["objdump", "-d", "--no-show-raw-insn", exe]).stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) <(\w+)>:", ln)
        if m:
            fn, start = m.group(2), int(m.group(1), 16)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s+(.*)$", ln)
        if not m or not fn or not fn.startswith("acc"):
            continue
        mnem, ops = m.group(2), m.group(3)
        if "(" not in ops or mnem.startswith(("lea", "nop", "call", "jmp", "push", "pop")):
            continue
        ip = int(m.group(1), 16)
        t = re.search(r"# ([0-9a-f]+) <", ops)
        out.append((ip, "%s+%#x" % (fn, ip - start), int(t.group(1), 16) if t else 0))
    return out


def perf_types(data, home):
    env = dict(os.environ, HOME=home, PERF_CONFIG="/dev/null", LC_ALL="C")
    env.pop("DEBUGINFOD_URLS", None)
    r = run(["perf", "report", "-i", data, "--stdio", "-s", "symoff,type,typeoff"], env=env)
    res = {}
    for ln in r.stdout.splitlines():
        m = re.match(r"^\s+[\d.]+%\s+\[\.\]\s+(\S+)\s+(.*?)\s{2,}(.*)$", ln)
        if not m:
            continue
        sym, typeoff = m.group(1), m.group(3).strip()
        t = re.match(r"^(.*) \+(0x[0-9a-f]+|\d+) \((.*)\)$", typeoff)
        if t and not t.group(1).startswith("("):  # "(unknown)", "(stack operation)"
            res[sym] = (t.group(1), int(t.group(2), 0),
                        "" if t.group(3) == "no field" else t.group(3))
        else:
            res[sym] = None  # perf printed (unknown) or a stack/other kind
    return res


def strip_idx(s):
    return re.sub(r"\[\d+\]", "", s)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    probe, typefile = os.path.abspath(args[0]), os.path.abspath(args[1])
    seeds = int(args[args.index("--seeds") + 1]) if "--seeds" in args else 2
    strict = "--strict" in args
    if not shutil.which("perf") or run(["perf", "--version"]).returncode:
        print("SKIP: no perf")
        return 77
    work = tempfile.mkdtemp(prefix="pms-types-perf-")
    home = os.path.join(work, "home")
    os.makedirs(home)
    stats = {}
    disagree = []
    known = []
    perf_only = []
    try:
        for seed in range(seeds):
            src, _ = gen_types.program(random.Random(2000 + seed), 20)
            cpath = os.path.join(work, "q%d.c" % seed)
            with open(cpath, "w") as fh:
                fh.write(src)
            for cc in [c for c in ("gcc", "clang") if shutil.which(c)]:
                for opt in ("-O0", "-O2"):
                    exe = os.path.join(work, "q%d_%s%s" % (seed, cc, opt))
                    r = run([cc, opt, "-g", "-fno-pie", "-no-pie", "-fno-inline",
                             "-fno-stack-clash-protection", "-o", exe, cpath])
                    if r.returncode:
                        print("compile failed", r.stderr[:500])
                        return 1
                    seg = exec_segment(exe)
                    insns = mem_insns(exe)
                    data = exe + ".data"
                    inp = "".join("%d %x %x\n" % (5000 + i, ip, a) for i, (ip, _, a) in enumerate(insns))
                    r = run([typefile, data, exe, hex(seg[0]), hex(seg[1]), hex(seg[2])], input=inp)
                    if r.returncode:
                        print("typefile failed", r.stderr)
                        return 1
                    perf = perf_types(data, home)
                    pin = "".join("%s 0 %x %s\n" % (exe, ip, "%x" % a if a else "-")
                                  for ip, _, a in insns)
                    ours = run([probe], input=pin).stdout.splitlines()
                    st = stats.setdefault((cc, opt), {"n": 0, "both": 0, "equal": 0,
                                                      "perf_only": 0, "ours_only": 0, "neither": 0})
                    for (ip, sym, a), res in zip(insns, ours):
                        st["n"] += 1
                        p = perf.get(sym)
                        f = res.split("\t")
                        o = None
                        if f[0].startswith("ok "):
                            o = (f[1], int(f[2]), f[3] if f[3] != "-" else "")
                        if p and o:
                            st["both"] += 1
                            pm = strip_idx(p[2])
                            om = strip_idx(o[2])
                            if p[0] == o[0] and p[1] == o[1] and (om == pm or om.startswith(pm + ".") or om.startswith(pm)):
                                st["equal"] += 1
                            elif p[0] == o[0] + "*" and p[1] == 0:
                                # perf gives a register loaded from an indexed stack
                                # slot the slot's pointer type (docs/types.md): listed,
                                # not a failure
                                known.append("%s %s %s %s: perf %s | pmuscope %s" % (
                                    cc, opt, os.path.basename(exe), sym, p, o))
                            else:
                                disagree.append("%s %s %s %s: perf %s | pmuscope %s" % (
                                    cc, opt, os.path.basename(exe), sym, p, o))
                        elif p:
                            st["perf_only"] += 1
                            perf_only.append("%s %s %s %s: perf %s | pmuscope %s" % (
                                cc, opt, os.path.basename(exe), sym, p, f[0]))
                        elif o:
                            st["ours_only"] += 1
                        else:
                            st["neither"] += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%-6s %-4s %6s %6s %6s %10s %10s %8s" % ("cc", "opt", "insns", "both", "equal",
                                                  "perf-only", "ours-only", "neither"))
    any_perf = False
    for (cc, opt), st in sorted(stats.items()):
        any_perf |= st["both"] + st["perf_only"] > 0
        print("%-6s %-4s %6d %6d %6d %10d %10d %8d" % (cc, opt, st["n"], st["both"], st["equal"],
                                                      st["perf_only"], st["ours_only"], st["neither"]))
    for d in known:
        print("DISAGREE (perf names the pointer, not the object it points to)", d)
    for d in disagree:
        print("DISAGREE", d)
    for d in perf_only:
        print("PERF-ONLY", d)
    if not any_perf:
        print("SKIP: perf printed no type for any sample")
        return 77
    return 1 if strict and disagree else 0


if __name__ == "__main__":
    sys.exit(main())
