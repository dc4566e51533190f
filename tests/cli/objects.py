#!/usr/bin/env python3
"""Allocation sites in mem's outputs (issue 28), on tests/alloc/alloc_sites_prog
with the software page-fault engine and every allocation tracked:
 - --advise: one advice per sampled allocation site, named by the program's
   own source line and function (its ground truth names the site), its
   blocks exactly the program's blocks of that site, and on this one-node
   host every hot site left "already local" (text and JSON).
objects.py PMUSCOPE PROGRAM"""
import json, os, re, subprocess, sys, tempfile

def run(cli, args, prog, d, name):
    truth = os.path.join(d, name + ".truth")
    env = dict(os.environ, PMUSCOPE_NO_DAMON="1")
    r = subprocess.run([cli, "mem", "--engine", "software", "--period", "1", "--alloc-rate", "0",
                        "--quiet"] + args + ["--", prog, truth],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print("mem %s failed (%d): %s" % (args, r.returncode, r.stderr))
        sys.exit(77 if "perf_event" in r.stderr or "permission" in r.stderr.lower() else 1)
    blocks, parent = [], {}
    for line in open(truth):
        f = line.split()
        if f[0] == "B":
            blocks.append((f[1], int(f[2]), int(f[3]), int(f[4])))
        elif f[0] == "F":
            parent[int(f[1])] = int(f[2])
    # a forked child's samples in blocks it inherited: the parent's blocks
    blocks += [(t[0], c, t[2], t[3]) for c, pp in parent.items() for t in blocks if t[1] == pp]
    return r.stdout, blocks

def check_advice(cli, prog, d):
    out, truth = run(cli, ["--advise", "--json"], prog, d, "adv")
    rep = json.loads(out)
    sites = rep["allocation_sites"]["sites"]
    adv = rep["advice"]["sites"]
    assert adv, "no site advice"
    assert rep["advice"]["sites_applied"] is False
    assert sum(a["samples"] for a in adv) == rep["allocation_sites"]["samples_placed"]
    nodes = len([n for n in os.listdir("/sys/devices/system/node") if re.match(r"node\d+$", n)])
    for a in adv:
        fn = sites[a["site"]]["call_path"][0]["function"] or ""
        if not fn.startswith("site_"):
            continue  # the C library's own (fopen of the truth file)
        assert a["where"].startswith("alloc_sites_prog.c:") and "(%s <- " % fn in a["where"], a
        assert a["text"].startswith("allocation at " + a["where"] + ": "), a
        assert sites[a["site"]]["samples"] == a["samples"], (a, sites[a["site"]])
        # each block is one of the program's blocks of that site
        for b in a["blocks"]:
            s, e = int(b["start"], 16), int(b["end"], 16)
            assert any(t[0] == fn and t[1] == b["pid"] and t[2] == s and t[3] == e - s
                       for t in truth), (fn, b)
        if nodes == 1 and a["resolved"] >= 30:
            assert a["action"] == "leave" and "already local" in a["reason"], a
            assert a["remote_share"] == 0 and a["hint"] is None, a
    text, _ = run(cli, ["--advise"], prog, d, "advt")
    lines = [l for l in text.splitlines() if re.match(r"  #\d+ allocation at alloc_sites_prog\.c:\d+ \(", l)]
    assert lines, text
    assert "Allocation-site advice" in text
    assert re.search(r"% of samples, [\d.]+ % remote", lines[0]), lines[0]

def main():
    cli, prog = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        check_advice(cli, prog, d)
    print("ok")
    return 0

if __name__ == "__main__":
    sys.exit(main())
