#!/usr/bin/env python3
"""Compare an export of pmuscope with the --json report of the same run.

  export_check.py folded REPORT.json FOLDED [latency]
  export_check.py pprof  REPORT.json RAW      (RAW: `go tool pprof -raw` output)
  export_check.py html   REPORT.json DOM      (DOM: chromium --dump-dom output)
  export_check.py png    SHOT.png             (not blank)
Exit 0 when equal, 1 with the differences printed."""
import collections
import json
import re
import struct
import sys
import zlib

bad = []


def want_eq(what, want, got):
    if want != got:
        bad.append("%s: want %r, got %r" % (what, want, got))


def functions(rep, key="samples"):
    """Per-function totals of the report (needs --top large enough for all)."""
    out = collections.Counter()
    for f in rep["top"]["functions_by_samples"]:
        name = f["name"]
        if name == "[unknown]" and f["module"]:
            name = "[unknown] [%s]" % f["module"].rsplit("/", 1)[-1]
        out[name] += f["samples"] if key == "samples" else f["latency_total"]
    return out


def check_folded(rep, path, weight):
    got = collections.Counter()
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        got[stack.split(";")[-1]] += int(n)  # the leaf: the sampled function
    want = functions(rep, weight)
    want = collections.Counter({k: v for k, v in want.items() if v})
    no_ip = rep["samples"]["total"] - sum(f["samples"] for f in rep["top"]["functions_by_samples"])
    if weight == "samples" and no_ip:
        want["[no ip]"] = no_ip
    want_eq("folded per-function %s" % weight, dict(want), dict(got))
    if weight == "samples":
        want_eq("folded total", rep["samples"]["total"], sum(got.values()))


def check_pprof(rep, path):
    text = open(path).read()
    samples_part = text.split("\nSamples:\n", 1)[1].split("\nLocations\n", 1)[0]
    locs_part = text.split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
    locfunc = {}
    for line in locs_part.splitlines():
        # pprof shows a demangled name with the name as written after it
        m = re.match(r"\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*?) \S*:\d+ s=\d+(?:\((.*)\))?$", line)
        if m:
            locfunc[int(m.group(1))] = m.group(3) or m.group(2)
    total = 0
    lat = 0
    funcs = collections.Counter()
    labels = collections.defaultdict(collections.Counter)
    cur = None
    for line in samples_part.splitlines()[1:]:  # after the "samples/count latency/cycles" header
        m = re.match(r"\s*(\d+)\s+(\d+): ?([\d ]*)$", line)
        if m:
            cur = int(m.group(1))
            total += cur
            lat += int(m.group(2))
            ids = [int(x) for x in m.group(3).split()]
            if ids:
                funcs[locfunc[ids[0]]] += cur
            continue
        for k, v in re.findall(r"(\w+):\[(.*?)\](?= \w+:\[|\s*$)", line):
            labels[k][v] += cur
    want_eq("pprof total samples", rep["samples"]["total"], total)
    want_eq("pprof total latency", sum(f["latency_total"] for f in rep["top"]["functions_by_samples"]), lat)
    want_eq("pprof per-function samples", dict(functions(rep)), dict(funcs))
    want_eq("pprof level labels",
            {l["level"]: l["samples"] for l in rep["data_source"]["levels"]}, dict(labels["level"]))
    nodes = rep["numa"]["nodes"]
    M = rep["numa"]["matrix"]
    mem = collections.Counter()
    remote = collections.Counter()
    for a, ra in enumerate(M):
        for b, v in enumerate(ra):
            if v:
                mem["%d node" % nodes[b]] += v
                remote["yes" if a != b else "no"] += v
    # mem_node is on every resolved sample; the matrix holds those with a CPU node
    want_eq("pprof mem_node labels (total)", rep["numa"]["resolved"], sum(labels["mem_node"].values()))
    if not rep["numa"]["matrix_outside"]:
        want_eq("pprof mem_node labels", dict(mem), dict(labels["mem_node"]))
    want_eq("pprof remote labels", dict(remote), dict(labels["remote"]))
    objs = collections.Counter()
    for o in rep["top"]["data_objects"]:
        objs[o["name"]] += o["samples"]
    want_eq("pprof object labels", dict(objs), dict(labels["object"]))


def check_html(rep, path):
    dom = open(path).read()

    def el(id_):
        m = re.search(r'<pre id="%s"[^>]*>(.*?)</pre>' % id_, dom, re.S)
        return None if m is None else m.group(1)

    want_eq("page status", "rendered", el("pms-status"))
    want_eq("page errors", "", el("pms-errors"))
    chk = json.loads(el("pms-check").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    want_eq("page samples", rep["samples"]["total"], chk["samples"])
    want_eq("page levels", {l["level"]: l["samples"] for l in rep["data_source"]["levels"]}, chk["levels"])
    if rep["numa"]["nodes"]:
        want_eq("page matrix", rep["numa"]["matrix"], chk["matrix"])
    want_eq("page sources", {s["host"]: s["samples"] for s in rep.get("sources", [])}, chk["sources"])
    want_eq("page functions",
            {f["name"]: f["samples"] for f in rep["top"]["functions_by_samples"]}, chk["functions"])


def check_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        bad.append("screenshot: not a PNG")
        return
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    # Distinct byte values of the filtered scanlines: a blank page
    # (one colour) filters to a handful of values.
    if w < 100 or h < 100 or len(set(raw)) < 32:
        bad.append("screenshot looks blank (%dx%d, %d distinct bytes)" % (w, h, len(set(raw))))


def main():
    what = sys.argv[1]
    if what == "png":
        check_png(sys.argv[2])
    else:
        rep = json.load(open(sys.argv[2]))
        if what == "folded":
            check_folded(rep, sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "samples")
        elif what == "pprof":
            check_pprof(rep, sys.argv[3])
        elif what == "html":
            check_html(rep, sys.argv[3])
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


sys.exit(main())
