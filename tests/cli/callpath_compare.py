#!/usr/bin/env python3
"""Call stacks of a pmuscope JSON report ("callpaths" with every path: --top
100000) against `perf script -F tid,ip` of the same samples, as multisets.
usage: callpath_compare.py OURS.json PERF.txt MODE [LEAF,CALLER,...,ROOT [SHARE]]
MODE fp or dwarf (perf's libdw unwinder shows a caller's pc - 1).  With a
path: at least SHARE (default 0.95) of the samples whose leaf is LEAF have
that path (function names, leaf first)."""
import collections, json, sys
ours_json, perf_txt, mode = sys.argv[1:4]
j = json.load(open(ours_json))
cp = j["callpaths"]
KERNEL = 1 << 63  # x86-64 and AArch64 kernel addresses: the upper half
hidden = any(f["ip"] is None for p in cp["by_samples"] for f in p["frames"])
ours = collections.Counter()
cut = set()  # stacks of paths cut short (perf drops a failed DWARF unwind)
want = sys.argv[4].split(",") if sys.argv[4:] else []
in_leaf = good = 0
for p in cp["by_samples"]:
    fr, first_user, prev = [], True, None
    for f in p["frames"]:
        if f["kernel"]:
            if not hidden:
                fr.append(int(f["ip"], 16))
            continue
        ip = int(f["ip"], 16)
        # the first user frame's inline stack (frames "inlined" into the
        # next, at its ip) is at that pc too
        if prev is not None and not (prev.get("inlined") and int(prev["ip"], 16) == ip):
            first_user = False
        if mode == "dwarf" and not first_user:
            ip -= 1   # perf's libdw unwinder shows a caller's pc - 1
        prev = f
        fr.append(ip)
    ours[tuple(fr)] += p["samples"]
    if p["truncated"]:
        cut.add(tuple(fr))
    funcs = [f["func"] for f in p["frames"] if not f["kernel"]]
    if want and funcs and funcs[0] == want[0]:
        in_leaf += p["samples"]
        if funcs[:4] == want:
            good += p["samples"]
# perf script -F tid,ip: a line with the tid starts each sample, its frames
# follow indented; a sample perf could not unwind at all has none.
theirs = collections.Counter()
stacks, cur = [], None
for l in open(perf_txt):
    if not l.strip():
        continue
    if not l.startswith("\t"):
        if cur is not None:
            stacks.append(cur)
        cur = []
    else:
        cur.append(int(l.split()[0], 16))
if cur is not None:
    stacks.append(cur)
empty = 0
for ips in stacks:
    if hidden:
        ips = [i for i in ips if i < KERNEL]
    if ips:
        theirs[tuple(ips)] += 1
    else:
        empty += 1
ok = True
without = cp["without_path"]
if cp["samples"] != sum(ours.values()) + without:
    print(f"{mode}: {cp['samples']} samples, {sum(ours.values())} with a path"); ok = False
# A sample perf shows no frame for is one we have no path for (a DWARF
# unwind that found nothing and no kernel part).
m = min(empty, without)
empty -= m
without -= m
# ... or one whose unwind we cut short, when its stack here has no kernel
# frame: perf drops only the user part of a failed unwind and prints the
# kernel callchain whatever happened to it, so a stack with kernel frames is
# never one perf shows empty.  (Pairing such a stack with perf's empty one,
# as this did before, took the empty stack from the sample it belonged to:
# an exec-time fault in load_elf_binary, kernel frames + the old image's PC,
# cut, took the empty stack of an ld.so fault on a not yet present stack
# page, whose user stack copy was empty; perf showed the first as its
# kernel frames and the second as nothing.)
for k in list(ours - theirs):
    if k in cut and empty and not any(ip >= KERNEL for ip in k):
        take = min(empty, (ours - theirs)[k])
        theirs[k] += take
        empty -= take
# perf drops the user part of a DWARF stack whose PC it cannot place in a
# mapping it knows at that time (samples during exec, before the MMAP2 of
# the loader reaches its time-ordered view: here the faults of execve's
# load_elf_binary, whose user registers are still the old image's), leaving
# a stack one frame shorter; and it shows nothing for a user-only sample
# whose stack copy is empty (a fault on a stack page not yet present: the
# kernel could not copy it, "ustack: size 0" in perf script -D), where the
# PC alone is here.  Allowed for at most 1 % of the samples, and counted.
shorter = 0
only_here, only_perf = ours - theirs, theirs - ours
perf_empty = empty
for k, c in list(only_here.items()):
    for _ in range(c):
        t = k[:-1]
        if t and only_perf[t] > 0:
            only_perf[t] -= 1
        elif not t and perf_empty > 0:
            perf_empty -= 1
        else:
            continue
        theirs[k] += 1
        if t:
            theirs[t] -= 1
        shorter += 1
theirs = +theirs
empty = perf_empty
if shorter:
    print(f"{mode}: {shorter} stacks one user frame shorter in perf (PC not in its mappings)")
    if shorter > max(2, 0.01 * cp["samples"]):
        ok = False
if without or empty:
    print(f"{mode}: {without} samples without a path here, {empty} without frames in perf"); ok = False
if ours != theirs:
    print(f"{mode}: stacks differ from perf script: {sum((ours - theirs).values())} only here, "
          f"{sum((theirs - ours).values())} only in perf ({sum(ours.values())} vs {sum(theirs.values())})")
    for k in list((ours - theirs))[:2]: print("  here:", [hex(x) for x in k])
    for k in list((theirs - ours))[:2]: print("  perf:", [hex(x) for x in k])
    ok = False
if want:
    share = float(sys.argv[5]) if sys.argv[5:] else 0.95
    print(f"{mode}: expected path for {good} of {in_leaf} samples in {want[0]}")
    if in_leaf < 50 or good < share * in_leaf:
        ok = False
sys.exit(0 if ok else 1)
