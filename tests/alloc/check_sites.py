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
With --merge, a second run of the program writes a second file, and
`report -i F1 -i F2 --json --samples` (a merged report) must place every
sample in the site each file's own report placed it (file 1's samples,
then file 2's, in order), each file's allocations in its own process
space, and pass the same check against each run's truth.
With --want S,S,... only those sites must have placeable samples (a
program linked with jemalloc or tcmalloc: those allocators keep freed
pages resident, so the reuse rounds' touches are not page faults and the
software engine cannot see them); every placed sample is still checked.
check_sites.py PMUSCOPE PROGRAM [--merge] [--want S,S] [MEM OPTIONS...]"""
import json, os, shutil, subprocess, sys, tempfile

MARGIN = 5_000_000  # ns
WANT_SITES = {"site_big_malloc", "site_calloc", "site_realloc", "site_aligned",
              "site_reuse_a", "site_reuse_b", "site_thread", "site_child",
              "site_clone_thread", "site_clone_proc"}

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
        # what the truth and the samples say of each missing site's blocks
        for b in blocks:
            if b[0] not in missing:
                continue
            near = [(t, len(truth_of(pid, addr, t)), got) for pid, addr, t, got in got_list
                    if pid == b[1] and b[2] <= addr < b[2] + b[3]
                    and b[4] - MARGIN <= t <= b[5] + MARGIN]
            print("  block %s pid %d %#x+%d alive [%d, %d]: %d samples in its range%s" %
                  (b[0], b[1], b[2], b[3], b[4], b[5], len(near),
                   ", e.g. (time, truth hits, placed) %s" % near[:3] if near else ""))
        return 1
    if placeable == 0 or placed < 0.99 * placeable or wrong:
        return 1
    return 0

def run_mem(cli, prog, extra, d, tag, env):
    """One `mem -o` run: (live sites, the file, the truth path, the live
    JSON), or an exit status."""
    truth_path, data = os.path.join(d, "truth" + tag), os.path.join(d, "alloc%s.data" % tag)
    r = subprocess.run([cli, "mem", "--engine", "software", "--json", "--samples", "-o", data] +
                       extra + ["--", prog, truth_path],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print("mem failed (%d): %s" % (r.returncode, r.stderr))
        return 77 if "perf_event" in r.stderr or "permission" in r.stderr.lower() else 1
    js = json.loads(r.stdout)
    return sample_sites(js), data, truth_path, js

def report_sites(cli, files, env):
    args = [cli, "report", "--json", "--samples"]
    for f in files:
        args += ["-i", f]
    f = subprocess.run(args, env=env, capture_output=True, text=True)
    if f.returncode != 0:
        print("report %s failed (%d): %s" % (files, f.returncode, f.stderr))
        return None
    return sample_sites(json.loads(f.stdout))

def check_merge(cli, prog, extra, d, env, first, fromfile):
    got = run_mem(cli, prog, extra, d, "2", env)
    if isinstance(got, int):
        return got
    live2, data2, truth2, _ = got
    fromfile2 = report_sites(cli, [data2], env)
    merged = report_sites(cli, [first, data2], env)
    if merged is None or fromfile2 is None:
        return 1
    for x in (live2, fromfile2, merged):
        if isinstance(x, str):
            print("merge:", x)
            return 1
    rc = 0
    if merged != fromfile + fromfile2:
        n = sum(1 for a, b in zip(merged, fromfile + fromfile2) if a != b)
        print("merged report: %d samples (%d + %d from the files), %d placed otherwise" %
              (len(merged), len(fromfile), len(fromfile2), n))
        rc = 1
    b2, f2 = read_truth(truth2)
    rc |= check("merged, file 2 part", merged[len(fromfile):], b2, f2)
    print("merged report of 2 files: %d samples, %d placed in sites" %
          (len(merged), sum(1 for x in merged if x[3])))
    return rc

def main():
    cli, prog, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    merge = "--merge" in extra
    extra = [a for a in extra if a != "--merge"]
    if "--want" in extra:
        k = extra.index("--want")
        global WANT_SITES
        WANT_SITES = set(extra[k + 1].split(","))
        extra = extra[:k] + extra[k + 2:]
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PMUSCOPE_NO_DAMON="1")
        got = run_mem(cli, prog, extra, d, "", env)
        if isinstance(got, int):
            return got
        live, data, truth_path, js = got
        fromfile = report_sites(cli, [data], env)
        if fromfile is None:
            return 1
        blocks, forks = read_truth(truth_path)
        if shutil.which("perf"):
            # perf skips the allocation feature: the samples still read
            nsamples = len(js["sample_list"])
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
        if merge:
            rc |= check_merge(cli, prog, extra, d, env, data, fromfile)
    return rc

sys.exit(main())
