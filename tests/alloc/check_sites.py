#!/usr/bin/env python3
"""`pmuscope mem` on tests/alloc/alloc_sites_prog with the software
page-fault engine (each sample carries the faulting data address): every
sample the program's own ground truth places in exactly one of its blocks
(by process, address, and lifetime widened by MARGIN each side, which covers
the clocks' offset; a forked child's samples in blocks inherited at the
fork) must be attributed by pmuscope to that block's site: >= 99 % placed,
none wrong (a sample placed where the truth has no block, or in another
site).  check_sites.py PMUSCOPE PROGRAM [MEM OPTIONS...]"""
import json, os, subprocess, sys, tempfile

MARGIN = 5_000_000  # ns

def main():
    cli, prog, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as d:
        truth_path = os.path.join(d, "truth")
        env = dict(os.environ, PMUSCOPE_NO_DAMON="1")
        r = subprocess.run([cli, "mem", "--engine", "software", "--json", "--samples"] +
                           extra + ["--", prog, truth_path],
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print("mem failed (%d): %s" % (r.returncode, r.stderr))
            return 77 if "perf_event" in r.stderr or "permission" in r.stderr.lower() else 1
        rep = json.loads(r.stdout)
        blocks, forks = [], {}
        for line in open(truth_path):
            f = line.split()
            if f[0] == "B":
                t1 = int(f[6]) or (1 << 63)
                blocks.append((f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), t1))
            elif f[0] == "F":
                forks[int(f[1])] = (int(f[2]), int(f[3]))
    a = rep.get("allocation_sites")
    if not a or not a.get("tracked"):
        print("allocations not tracked:", a)
        return 1
    sites = [s["call_path"][0]["function"] if s["call_path"] else None for s in a["sites"]]
    samples, ssite = rep["sample_list"], a["sample_sites"]
    if len(samples) != len(ssite):
        print("sample_sites has %d entries for %d samples" % (len(ssite), len(samples)))
        return 1

    def truth_of(pid, addr, t, depth=0):
        hits = [b for b in blocks if b[1] == pid and b[2] <= addr < b[2] + b[3]
                and b[4] - MARGIN <= t <= b[5] + MARGIN]
        if not hits and pid in forks and depth < 4:
            parent, tf = forks[pid]
            if t >= tf - MARGIN:
                hits = [b for b in truth_of(parent, addr, tf, depth + 1)]
        return hits

    placeable = placed = wrong = 0
    per_site = {}
    for x, si in zip(samples, ssite):
        if not x.get("addr"):
            continue
        addr = int(x["addr"], 16)
        hits = truth_of(x["pid"], addr, x["time"])
        got = sites[si] if si >= 0 else None
        if len(hits) == 1:
            placeable += 1
            want = hits[0][0]
            per_site[want] = per_site.get(want, 0) + 1
            if got == want:
                placed += 1
            elif got is None and os.environ.get("CHECK_SITES_DEBUG"):
                print("unplaced: pid %d addr %#x time %d truth %s %s" % (x["pid"], addr, x["time"], want, hits[0][1:]))
            elif got is not None:
                wrong += 1
                print("wrong: pid %d addr %#x time %d: %s, truth %s" % (x["pid"], addr, x["time"], got, want))
        elif not hits and got is not None:
            # no block of the program's holds it (or the margin made it
            # ambiguous): pmuscope must not claim a site of the program
            if got.startswith("site_"):
                wrong += 1
                print("wrong: pid %d addr %#x time %d placed in %s, truth has no block" %
                      (x["pid"], addr, x["time"], got))
    print("placeable %d placed %d wrong %d; by site %s" % (placeable, placed, wrong, per_site))
    want_sites = {"site_big_malloc", "site_calloc", "site_realloc", "site_aligned",
                  "site_reuse_a", "site_reuse_b", "site_thread", "site_child"}
    missing = want_sites - set(per_site)
    if missing:
        print("no placeable samples for", sorted(missing))
        return 1
    if placeable == 0 or placed < 0.99 * placeable or wrong:
        return 1
    return 0

sys.exit(main())
