#!/usr/bin/env python3
"""Ground truth for type resolution (issue 29).

Writes random C programs (random struct layouts: scalars, arrays, nested
structs, arrays of structs, unions, pointers to other structs), each access
on its own source line whose (type, member) the generator knows, compiles
them with gcc and clang at -O0 and -O2 -g (non-PIE), runs each under
`pmuscope mem --engine software -c 1 -o FILE` (page-fault samples: the IP of
the faulting instruction and the data address; every access touches a page
nothing touched before, so each access line faults once), reads the
samples with `pmuscope script -F ip,addr`, maps each IP to its source line
(addr2line) and resolves it with typeprobe.  Prints, per compiler x level:
samples on access lines, resolved share, wrong share, and unresolved
reasons.

  gen_types.py PMUSCOPE TYPEPROBE [--seeds N] [--goals] [--keep DIR]

--goals: exit 1 unless resolved >= 95 % at -O0, >= 80 % at -O2 and wrong
<= 1 % everywhere (the issue's goals); without it the table is only printed
and the exit status says whether everything ran.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

SCALARS = [("char", 1), ("short", 2), ("int", 4), ("long", 8), ("float", 4), ("double", 8)]


class Struct:
    def __init__(self, name):
        self.name = name
        self.fields = []  # (kind, fname, info)

    def decl(self):
        out = ["struct %s {" % self.name]
        for kind, fname, info in self.fields:
            if kind == "scalar":
                out.append("\t%s %s;" % (info, fname))
            elif kind == "array":
                out.append("\t%s %s[%d];" % (info[0], fname, info[1]))
            elif kind == "nested":
                out.append("\tstruct %s %s;" % (info.name, fname))
            elif kind == "narray":
                out.append("\tstruct %s %s[%d];" % (info[0].name, fname, info[1]))
            elif kind == "union":
                members = " ".join("%s %s%s;" % (t, n, "[%d]" % c if c else "")
                                   for t, n, c in info)
                out.append("\tunion { %s } %s;" % (members, fname))
            elif kind == "ptr":
                out.append("\tstruct %s *%s;" % (info.name, fname))
        out.append("};")
        return "\n".join(out)

    def leaves(self, rnd):
        """(path, c_type, union_prefix) of leaf accesses, with random indices."""
        res = []
        for kind, fname, info in self.fields:
            if kind == "scalar":
                res.append((fname, info, None))
            elif kind == "array":
                res.append(("%s[%d]" % (fname, rnd.randrange(info[1])), info[0], None))
            elif kind == "nested":
                for p, t, u in info.leaves(rnd):
                    res.append(("%s.%s" % (fname, p), t, u and "%s.%s" % (fname, u)))
            elif kind == "narray":
                i = rnd.randrange(info[1])
                for p, t, u in info[0].leaves(rnd):
                    res.append(("%s[%d].%s" % (fname, i, p), t,
                                u and "%s[%d].%s" % (fname, i, u)))
            elif kind == "union":
                t, n, c = rnd.choice(info)
                res.append(("%s.%s%s" % (fname, n, "[%d]" % rnd.randrange(c) if c else ""),
                            t, fname))
        return res


def make_types(rnd, n):
    types = []
    for i in range(n):
        s = Struct("T%d" % i)
        for j in range(rnd.randint(3, 7)):
            fname = "f%d" % j
            r = rnd.random()
            if r < 0.35:
                s.fields.append(("scalar", fname, rnd.choice(SCALARS)[0]))
            elif r < 0.55:
                s.fields.append(("array", fname, (rnd.choice(SCALARS)[0], rnd.randint(2, 9))))
            elif r < 0.68 and types:
                s.fields.append(("nested", fname, rnd.choice(types)))
            elif r < 0.78 and types:
                s.fields.append(("narray", fname, (rnd.choice(types), rnd.randint(2, 4))))
            elif r < 0.9:
                s.fields.append(("union", fname, [
                    (rnd.choice(SCALARS)[0], "u%d" % k, rnd.choice([0, 0, 2, 4]))
                    for k in range(rnd.randint(2, 3))]))
            else:
                s.fields.append(("scalar", fname, rnd.choice(SCALARS)[0]))
        types.append(s)
    # pointer members to earlier types (for chained accesses)
    for s in types[1:]:
        if rnd.random() < 0.8:
            s.fields.insert(rnd.randrange(len(s.fields) + 1), ("ptr", "link", rnd.choice(types[:types.index(s)])))
    return types


def program(rnd, n_access):
    """C text and {line: (type, path, union_prefix, kind)}."""
    types = make_types(rnd, rnd.randint(3, 5))
    lines = ["#include <stddef.h>", "#include <sys/mman.h>", "#include <string.h>", ""]
    for t in types:
        lines.append(t.decl())
    lines += ["volatile long sink = 1;",
              "__attribute__((noinline)) void escape(void *p) { __asm__ volatile(\"\" :: \"r\"(p) : \"memory\"); }",
              "static void *fresh(size_t n) { n = (n + 4095) & ~(size_t)4095;",
              "\tvoid *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);",
              "\treturn p == MAP_FAILED ? NULL : p; }",
              "static void *touched(size_t n) { void *p = fresh(n); if (p) memset(p, 1, n); return p; }"]
    for t in types:
        lines.append("__attribute__((noinline)) struct %s *fresh_%s(void) { return fresh(sizeof(struct %s)); }"
                     % (t.name, t.name, t.name))
        lines.append("__attribute__((noinline)) struct %s *touched_%s(void) { return touched(sizeof(struct %s)); }"
                     % (t.name, t.name, t.name))
    expect = {}
    body_funcs, calls, globals_ = [], [], []

    def access(expr, ctype, rnd):
        if rnd.random() < 0.5:
            return "%s = (%s)%d;" % (expr, ctype, rnd.randint(1, 100))
        return "sink += (long)%s;" % expr

    for k in range(n_access):
        t = rnd.choice(types)
        path, ctype, union = rnd.choice(t.leaves(rnd))
        kind = rnd.choice(["heap", "heap", "global", "stack", "chain", "param", "index",
                           "multi", "loop"])
        fn = []
        if kind == "chain":
            holders = [s for s in types if any(f[0] == "ptr" for f in s.fields)]
            if not holders:
                kind = "heap"
            else:
                h = rnd.choice(holders)
                target = [f for f in h.fields if f[0] == "ptr"][0][2]
                t = target
                path, ctype, union = rnd.choice(t.leaves(rnd))
                fn.append("__attribute__((noinline)) void acc%d(void) {" % k)
                fn.append("\tstruct %s *h = touched_%s();" % (h.name, h.name))
                fn.append("\th->link = fresh_%s();" % t.name)
                fn.append("\tescape(h);")
                fn.append(("\t" + access("h->link->" + path, ctype, rnd), t.name, path, union, kind))
                fn.append("\tescape(h);")
                fn.append("}")
        if kind == "param":
            fn.append("__attribute__((noinline)) void use%d(struct %s *q, long v) {" % (k, t.name))
            fn.append("\t(void)v;")
            fn.append(("\t" + access("q->" + path, ctype, rnd), t.name, path, union, kind))
            fn.append("\tescape(q);")
            fn.append("}")
            fn.append("__attribute__((noinline)) void acc%d(void) { use%d(fresh_%s(), sink); }"
                      % (k, k, t.name))
        elif kind == "index":
            fn.append("__attribute__((noinline)) void acc%d(void) {" % k)
            fn.append("\tstruct %s *a = fresh(8 * sizeof(struct %s));" % (t.name, t.name))
            fn.append("\tint i = (int)(sink & 3) + 2;")
            fn.append(("\t" + access("a[i]." + path, ctype, rnd), t.name, path, union, kind))
            fn.append("\tescape(a);")
            fn.append("}")
        elif kind == "loop":
            # pointers kept in a local array, the access in a loop (a back
            # edge the linear walk crosses): four objects, four faults
            fn.append("__attribute__((noinline)) void acc%d(void) {" % k)
            fn.append("\tstruct %s *arr[4];" % t.name)
            fn.append("\tfor (int j = 0; j < 4; j++) arr[j] = fresh_%s();" % t.name)
            fn.append("\tfor (int j = 0; j < 4; j++) {")
            fn.append(("\t\t" + access("arr[j]->" + path, ctype, rnd), t.name, path, union, kind))
            fn.append("\t\tif (sink > 100) break;")
            fn.append("\t}")
            fn.append("\tfor (int j = 0; j < 4; j++) escape(arr[j]);")
            fn.append("}")
        elif kind == "multi":
            t2 = rnd.choice(types)
            path2, ctype2, union2 = rnd.choice(t2.leaves(rnd))
            fn.append("__attribute__((noinline)) void acc%d(void) {" % k)
            fn.append("\tstruct %s *p = fresh_%s();" % (t.name, t.name))
            fn.append("\tstruct %s *q = fresh_%s();" % (t2.name, t2.name))
            fn.append(("\t" + access("p->" + path, ctype, rnd), t.name, path, union, kind))
            fn.append(("\t" + access("q->" + path2, ctype2, rnd), t2.name, path2, union2, kind))
            fn.append("\tescape(p);")
            fn.append("\tescape(q);")
            fn.append("}")
        if kind == "heap":
            fn.append("__attribute__((noinline)) void acc%d(void) {" % k)
            fn.append("\tstruct %s *p = fresh_%s();" % (t.name, t.name))
            fn.append(("\t" + access("p->" + path, ctype, rnd), t.name, path, union, kind))
            fn.append("\tescape(p);")
            fn.append("}")
        elif kind == "global":
            globals_.append("struct %s g%d __attribute__((aligned(4096)));" % (t.name, k))
            fn.append("__attribute__((noinline)) void acc%d(void) {" % k)
            fn.append(("\t" + access("g%d.%s" % (k, path), ctype, rnd), t.name, path, union, kind))
            fn.append("}")
        elif kind == "stack":
            # the variable sits between two pads so its page is one no
            # earlier frame touched (stack-clash probes are off)
            fr = "F%d" % k
            # pb grows with k: l lies below every frame an earlier call used
            lines.append("struct %s { char pa[6000]; struct %s l; char pb[%d]; };"
                         % (fr, t.name, 16384 * (k + 1)))
            fn.append("__attribute__((noinline)) void acc%d(void) {" % k)
            fn.append("\tstruct %s fr;" % fr)
            fn.append(("\t" + access("fr.l." + path, ctype, rnd), fr, "l." + path,
                       union and "l." + union, kind))
            fn.append("\tescape(&fr);")
            fn.append("\tacc%d();" % (k + 1) if k + 1 < n_access else "\tescape(0);")
            fn.append("}")
        body_funcs.append(fn)
        if kind != "stack" or not calls or True:
            calls.append(k)
    # accesses in inlined code (always_inline, so at -O0 too): the access
    # line is the inlined function's; its scopes are an inlined
    # subroutine's inside the caller.  Drawn from a stream of their own,
    # appended, so the accesses above stay as they were.
    rin = random.Random(hash(rnd.getstate()))
    n_inline = 4
    for k in range(n_access, n_access + n_inline):
        t = rin.choice(types)
        path, ctype, union = rin.choice(t.leaves(rin))
        fn = ["static inline __attribute__((always_inline)) void inl%d(struct %s *q, long v) {"
              % (k, t.name), "\t(void)v;",
              ("\t" + access("q->" + path, ctype, rin), t.name, path, union, "inline"),
              "\tescape(q);", "}",
              "__attribute__((noinline)) void acc%d(void) { inl%d(fresh_%s(), sink); }"
              % (k, k, t.name)]
        body_funcs.append(fn)
    # stack functions call the next accessor so frames go deeper; make the
    # chain consistent: every accessor is called from main unless a stack
    # accessor before it calls it
    called_by_stack = set()
    for k, fn in enumerate(body_funcs):
        if any(isinstance(x, str) and x == "\tacc%d();" % (k + 1) for x in fn):
            called_by_stack.add(k + 1)
    lines += globals_
    lines += ["void acc%d(void);" % k for k in range(n_access + n_inline)]
    out_lines = [ln for block in lines for ln in block.split("\n")]
    for fn in body_funcs:
        for x in fn:
            if isinstance(x, tuple):
                text, tname, path, union, kind = x
                out_lines.append(text)
                expect[len(out_lines)] = (tname, path, union, kind)
            else:
                out_lines.append(x)
    out_lines.append("int main(void) {")
    for k in range(n_access + n_inline):
        if k not in called_by_stack:
            out_lines.append("\tacc%d();" % k)
    out_lines.append("\treturn (int)(sink & 1);")
    out_lines.append("}")
    return "\n".join(out_lines) + "\n", expect


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def ro_ranges(exe):
    """[lo, hi) of the executable's read-only data sections."""
    out = []
    r = run(["readelf", "-SW", exe])
    for ln in r.stdout.splitlines():
        m = re.search(r"\]\s+(\.rodata\S*)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", ln)
        if m:
            lo = int(m.group(2), 16)
            out.append((lo, lo + int(m.group(3), 16)))
    return out


def judge(res, exp):
    """'ok', 'wrong', or an unresolved reason."""
    tname, path, union, kind = exp
    f = res.split("\t")
    if not f[0].startswith("ok "):
        return "unresolved:" + f[0]
    rtype, rmember = f[1], f[3]
    if rtype != "struct " + tname:
        return "wrong"
    if rmember == path:
        return "ok"
    if union and rmember.startswith(union + "."):  # a union's other member, same bytes
        return "ok"
    return "wrong"


def script_samples(text):
    """(ip, addr) of `pmuscope script -F ip,addr` lines (perf's field order:
    addr before ip), user IPs only."""
    samples = []
    for ln in text.splitlines():
        p = ln.split()
        if len(p) == 2:
            try:
                samples.append((int(p[1], 16), int(p[0], 16)))
            except ValueError:
                continue
    return [s for s in samples if s[0] < 0x7f0000000000]


def judge_program(exe, cpath, expect, samples, probe, st, addr2line="addr2line"):
    """One program's samples: those on access lines (the IP's line by
    addr2line) resolved by typeprobe and judged into st."""
    if not samples:
        return
    a2l = run([addr2line, "-e", exe] + ["%x" % s[0] for s in samples])
    locs = a2l.stdout.splitlines()
    rodata = ro_ranges(exe)
    todo = []
    for (ip, addr), loc in zip(samples, locs):
        m = re.search(r":(\d+)", loc)
        if any(lo <= addr < hi for lo, hi in rodata):
            continue  # a constant of the line (an -O2 double), not the access
        if m and os.path.basename(loc.split(":")[0]) == os.path.basename(cpath) \
                and int(m.group(1)) in expect:
            todo.append((ip, addr, expect[int(m.group(1))]))
    st["lines"] += len(expect)
    if not todo:
        return
    inp = "".join("%s 0 %x %x\n" % (exe, ip, addr) for ip, addr, _ in todo)
    pr = run([probe], input=inp)
    for (ip, addr, exp), res in zip(todo, pr.stdout.splitlines()):
        v = judge(res, exp)
        st["n"] += 1
        bk = st["bykind"].setdefault(exp[3], [0, 0, 0])
        bk[0] += 1
        if v == "ok":
            st["ok"] += 1
            bk[1] += 1
        elif v == "wrong":
            st["wrong"] += 1
            bk[2] += 1
            print("WRONG %s ip %x line-expect %s -> %s" % (os.path.basename(exe), ip, exp, res))
        else:
            st["reasons"][v] = st["reasons"].get(v, 0) + 1


def new_stats():
    return {"n": 0, "ok": 0, "wrong": 0, "reasons": {}, "lines": 0, "bykind": {}}


def print_table(table):
    """The table per compiler x level; True when a goal is not met."""
    print("%-6s %-4s %8s %9s %7s  %s" % ("cc", "opt", "samples", "resolved", "wrong",
                                         "unresolved / by kind (n ok wrong)"))
    fail = False
    for (cc, opt), st in sorted(table.items()):
        n = st["n"] or 1
        res = 100.0 * (st["ok"] + st["wrong"]) / n
        wrong = 100.0 * st["wrong"] / n
        print("%-6s %-4s %8d %8.1f%% %6.1f%%  %s  %s" % (
            cc, opt, st["n"], res, wrong,
            " ".join("%s=%d" % kv for kv in sorted(st["reasons"].items())) or "-",
            " ".join("%s:%d/%d/%d" % (k, v[0], v[1], v[2]) for k, v in sorted(st["bykind"].items()))))
        goal = 95.0 if opt == "-O0" else 80.0
        if st["n"] == 0 or res < goal or wrong > 1.0:
            fail = True
    return fail


# aarch64 (the QEMU aarch64 bed, tests/beds): cross compilers, static
A64_CC = {"gcc": ["aarch64-linux-gnu-gcc"], "clang": ["clang", "--target=aarch64-linux-gnu"]}
A64_FLAGS = ["-g", "-static", "-fno-stack-clash-protection", "-fno-stack-protector"]


def emit_a64(out, seeds):
    """The programs of seeds 0..seeds-1 written to out and cross-compiled
    for aarch64 by each compiler found, at -O0 and -O2 (static: the guest
    has no libraries); out/manifest.json says each executable's compiler,
    level, source and expected (type, member) per line."""
    os.makedirs(out, exist_ok=True)
    manifest = {}
    for seed in range(seeds):
        rnd = random.Random(1000 + seed)
        src, expect = program(rnd, 28)
        cpath = os.path.join(out, "p%d.c" % seed)
        with open(cpath, "w") as fh:
            fh.write(src)
        for cc, cmd in sorted(A64_CC.items()):
            if not shutil.which(cmd[0]):
                continue
            for opt in ("-O0", "-O2"):
                name = "p%d_%s_%s" % (seed, cc, opt[1:])
                r = run(cmd + [opt] + A64_FLAGS + ["-o", os.path.join(out, name), cpath])
                if r.returncode:
                    print("a64 compile failed: %s %s: %s" % (cc, opt, r.stderr[:1000]))
                    if os.path.exists(os.path.join(out, name)):
                        os.unlink(os.path.join(out, name))
                    continue
                manifest[name] = {"cc": cc, "opt": opt, "src": cpath,
                                  "expect": {str(k): list(v) for k, v in expect.items()}}
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh)
    return manifest


def judge_a64(out, samples_by_exe, probe):
    """The table of emit_a64's programs from their samples in the guest
    ({name: `pmuscope script -F ip,addr` text}), resolved on this host."""
    with open(os.path.join(out, "manifest.json")) as fh:
        manifest = json.load(fh)
    a2l = shutil.which("aarch64-linux-gnu-addr2line") or shutil.which("llvm-addr2line") or "addr2line"
    table = {}
    for name, m in sorted(manifest.items()):
        if name not in samples_by_exe:
            continue
        st = table.setdefault((m["cc"], m["opt"]), new_stats())
        expect = {int(k): tuple(v) for k, v in m["expect"].items()}
        judge_program(os.path.join(out, name), m["src"], expect,
                      script_samples(samples_by_exe[name]), probe, st, a2l)
    return table


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    if args[0] == "--emit-a64":  # gen_types.py --emit-a64 DIR SEEDS (tests/beds/build.sh)
        return 0 if emit_a64(args[1], int(args[2])) else 1
    cli, probe = os.path.abspath(args[0]), os.path.abspath(args[1])
    seeds = int(args[args.index("--seeds") + 1]) if "--seeds" in args else 4
    goals = "--goals" in args
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    env = dict(os.environ, PMUSCOPE_NO_DAMON="1")
    compilers = [c for c in ("gcc", "clang") if shutil.which(c)]
    if not compilers:
        print("SKIP: no compiler")
        return 77
    work = keep or tempfile.mkdtemp(prefix="pms-types-")
    os.makedirs(work, exist_ok=True)
    table = {}
    try:
        for seed in range(seeds):
            rnd = random.Random(1000 + seed)
            src, expect = program(rnd, 28)
            cpath = os.path.join(work, "p%d.c" % seed)
            with open(cpath, "w") as fh:
                fh.write(src)
            for cc in compilers:
                for opt in ("-O0", "-O2"):
                    key = (cc, opt)
                    st = table.setdefault(key, new_stats())
                    exe = os.path.join(work, "p%d_%s%s" % (seed, cc, opt))
                    r = run([cc, opt, "-g", "-fno-pie", "-no-pie",
                             "-fno-stack-clash-protection", "-fno-stack-protector",
                             "-o", exe, cpath])
                    if r.returncode:
                        print("compile failed:", cc, opt, r.stderr[:2000])
                        return 1
                    data = exe + ".data"
                    r = run([cli, "mem", "--engine", "software", "-c", "1", "-o", data,
                             "--", exe], env=env)
                    if not os.path.exists(data):
                        print("SKIP: mem could not record here:", r.stderr[-500:])
                        return 77
                    r = run([cli, "script", "-i", data, "-F", "ip,addr"])
                    judge_program(exe, cpath, expect, script_samples(r.stdout), probe, st)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    fail = print_table(table)
    if goals and fail:
        print("goals not met")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
