#!/usr/bin/env python3
"""`pmuscope mem` on tests/alloc/alloc_sites_prog with the software
page-fault engine (each sample carries the faulting data address): every
sample the program's own ground truth places in exactly one of its blocks
(by process, address, and lifetime widened by MARGIN each side, which covers
the clocks' offset; a forked child's samples in blocks inherited at the
fork) must be attributed by pmuscope to that block's site: >= 99 % placed,
none wrong (a sample placed where the truth has no block, or in another
site).  Then the same from the file: `mem -o F` wrote the allocation
records into the perf.data, and `report -i F --json --samples` must place
every sample in the same site as the live run did (and so pass the same
check), and perf still reads the file (perf script gives every sample).
check_sites.py PMUSCOPE PROGRAM [MEM OPTIONS...]"""
import json, os, shutil, subprocess, sys, tempfile

MARGIN = 5_000_000  # ns
WANT_SITES = {"site_big_malloc", "site_calloc", "site_realloc", "site_aligned",
              "site_reuse_a", "site_reuse_b", "site_thread", "site_child"}

def read_truth(path):
    blocks, forks = [], {}
    for line in open(path):
        f = line.split()
        if f[0] == "B":
            t1 = int(f[6]) or (1 << 63)
            blocks.append((f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), t1))
        elif f[0] == "F":
            forks[int(f[1])] = (int(f[2]), int(f[3]))
    return blocks, forks

def sample_sites(rep):
    """Per sample: (pid, addr, time, site function or None), or a message."""
    a = rep.get("allocation_sites")
    if not a or not a.get("tracked"):
        return "allocations not tracked: %s" % a
    sites = [s["call_path"][0]["function"] if s["call_path"] else None for s in a["sites"]]
    samples, ssite = rep["sample_list"], a["sample_sites"]
    if len(samples) != len(ssite):
        return "sample_sites has %d entries for %d samples" % (len(ssite), len(samples))
    return [(x["pid"], int(x["addr"], 16), x["time"], sites[si] if si >= 0 else None)
            for x, si in zip(samples, ssite) if x.get("addr")]

def check(label, got_list, blocks, forks):
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
    for pid, addr, t, got in got_list:
        hits = truth_of(pid, addr, t)
        if len(hits) == 1:
            placeable += 1
            want = hits[0][0]
            per_site[want] = per_site.get(want, 0) + 1
            if got == want:
                placed += 1
            elif got is None and os.environ.get("CHECK_SITES_DEBUG"):
                print("unplaced: pid %d addr %#x time %d truth %s %s" % (pid, addr, t, want, hits[0][1:]))
            elif got is not None:
                wrong += 1
                print("wrong: pid %d addr %#x time %d: %s, truth %s" % (pid, addr, t, got, want))
        elif not hits and got is not None:
            # no block of the program's holds it (or the margin made it
            # ambiguous): pmuscope must not claim a site of the program
            if got.startswith("site_"):
                wrong += 1
                print("wrong: pid %d addr %#x time %d placed in %s, truth has no block" %
                      (pid, addr, t, got))
    print("%s: placeable %d placed %d wrong %d; by site %s" % (label, placeable, placed, wrong, per_site))
    missing = WANT_SITES - set(per_site)
    if missing:
        print("%s: no placeable samples for %s" % (label, sorted(missing)))
        return 1
    if placeable == 0 or placed < 0.99 * placeable or wrong:
        return 1
    return 0

def main():
    cli, prog, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as d:
        truth_path, data = os.path.join(d, "truth"), os.path.join(d, "alloc.data")
        env = dict(os.environ, PMUSCOPE_NO_DAMON="1")
        r = subprocess.run([cli, "mem", "--engine", "software", "--json", "--samples", "-o", data] +
                           extra + ["--", prog, truth_path],
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print("mem failed (%d): %s" % (r.returncode, r.stderr))
            return 77 if "perf_event" in r.stderr or "permission" in r.stderr.lower() else 1
        live = sample_sites(json.loads(r.stdout))
        f = subprocess.run([cli, "report", "-i", data, "--json", "--samples"],
                           env=env, capture_output=True, text=True)
        if f.returncode != 0:
            print("report -i failed (%d): %s" % (f.returncode, f.stderr))
            return 1
        fromfile = sample_sites(json.loads(f.stdout))
        blocks, forks = read_truth(truth_path)
        if shutil.which("perf"):
            # perf skips the allocation feature: the samples still read
            nsamples = len(json.loads(r.stdout)["sample_list"])
            ps = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True)
            pr = subprocess.run(["perf", "report", "-i", data, "--stdio"], capture_output=True, text=True)
            lines = len(ps.stdout.splitlines())
            if ps.returncode or pr.returncode or lines != nsamples:
                print("perf on the -o file: script rc %d, %d lines for %d samples; report rc %d %s" %
                      (ps.returncode, lines, nsamples, pr.returncode, pr.stderr[-300:]))
                return 1
            print("perf script: %d samples read" % lines)
    for got in (live, fromfile):
        if isinstance(got, str):
            print(got)
            return 1
    rc = check("live", live, blocks, forks) | check("from the -o file", fromfile, blocks, forks)
    if sorted(live) != sorted(fromfile):
        diff = set(live) ^ set(fromfile)
        print("live and file differ in %d samples, e.g. %s" % (len(diff), sorted(diff, key=str)[:4]))
        rc = 1
    return rc

sys.exit(main())
