#!/usr/bin/env python3
"""Compare an export of pmuscope with the --json report of the same run.

  export_check.py folded REPORT.json FOLDED [latency]
  export_check.py pprof  REPORT.json RAW      (RAW: `go tool pprof -raw` output)
  export_check.py html   REPORT.json DOM      (DOM: chromium --dump-dom output)
  export_check.py png    SHOT.png             (not blank)
  export_check.py traces TRACES FOLDED        (TRACES: `go tool pprof -traces`;
                                              the same stacks of names and counts)
  export_check.py stacks RAW SCRIPT [hidden|dwarf]  (the same address stacks as
                                              `perf script -F tid,ip` or `pmuscope
                                              script -F callchain`; hidden: no kernel
                                              ones; dwarf: perf shows callers' pc - 1)
  export_check.py merge MERGED.raw A.raw B.raw.. (the merged profile's stacks,
                                              labels and values are the files')
  export_check.py cumulative REPORT.json RAW  (flat and cumulative samples per
                                              function equal the report's)
  export_check.py icicle REPORT.json DOM [LEAF,CALLER,..]  (the page's icicle:
                                              root totals, the stacks ending in the
                                              given path, every stack, equal the
                                              report's call paths)
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


def raw_profile(path):
    """`go tool pprof -raw`: samples as (count, latency, [location ids]) and
    locations as {id: (address, function)}."""
    text = open(path).read()
    samples_part = text.split("\nSamples:\n", 1)[1].split("\nLocations\n", 1)[0]
    locs_part = text.split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
    locs = {}
    for line in locs_part.splitlines():
        m = re.match(r"\s*(\d+): 0x([0-9a-f]+) (?:M=\d+ )?(.*?) \S*:\d+ s=\d+(?:\((.*)\))?$", line)
        if m:
            locs[int(m.group(1))] = (int(m.group(2), 16), m.group(4) or m.group(3))
    samples = []
    for line in samples_part.splitlines()[1:]:
        m = re.match(r"\s*(\d+)\s+(\d+): ?([\d ]*)$", line)
        if m:
            samples.append((int(m.group(1)), int(m.group(2)), [int(x) for x in m.group(3).split()], {}))
        elif samples:
            for k, v in re.findall(r"(\w+):\[(.*?)\](?= \w+:\[|\s*$)", line):
                samples[-1][3][k] = v
    return samples, locs


def check_merge(merged, parts):
    """The merged pprof holds the files' samples: the same stacks (names and
    addresses) with the same labels, host aside, and the same values."""
    def key_counts(path):
        samples, locs = raw_profile(path)
        out = collections.Counter()
        for n, lat, ids, lab in samples:
            lab = tuple(sorted((k, v) for k, v in lab.items() if k != "host"))
            k = (tuple(locs[i] for i in ids), lab)
            out[k + ("samples",)] += n
            out[k + ("latency",)] += lat
        return out
    got = key_counts(merged)
    want = collections.Counter()
    for p in parts:
        want.update(key_counts(p))
    got = collections.Counter({k: v for k, v in got.items() if v})
    want = collections.Counter({k: v for k, v in want.items() if v})
    diff = (got - want) + (want - got)
    if diff:
        bad.append("merged pprof vs its files: %d keys differ, e.g. %s" % (len(diff), list(diff)[:2]))
    want_eq("merged pprof samples", sum(v for k, v in want.items() if k[-1] == "samples"),
            sum(v for k, v in got.items() if k[-1] == "samples"))


def folded_name(n):
    return n.replace(";", ":").replace("\n", " ")


def check_traces(traces, folded):
    """-traces blocks: labels, then the count and the leaf, then callers."""
    got = collections.Counter()
    for block in open(traces).read().split("-----------+")[1:]:
        frames, count = [], None
        for line in block.splitlines()[1:]:
            m = re.match(r"^\s{0,10}(\S+)   (.*)$", line)
            if count is None and m and not line.lstrip().endswith(":") and re.match(r"^\s*[0-9.]+\s{3}", line):
                count = int(float(m.group(1)))
                frames.append(m.group(2))
            elif count is not None and line.startswith("             "):
                frames.append(line.strip())
        if count is None:
            continue
        got[";".join(folded_name(f) for f in reversed(frames)) or "[no ip]"] += count
    want = collections.Counter()
    for line in open(folded):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        want[stack] += int(n)
    got = collections.Counter({k: v for k, v in got.items() if v})
    want_eq("pprof -traces stacks vs --folded (%d vs %d distinct)" % (len(got), len(want)),
            dict(want), dict(got))


def script_stacks(path, hidden):
    """perf script -F tid,ip / pmuscope script -F callchain: each sample's
    frames (tab-indented lines, first word the address)."""
    out = collections.Counter()
    text = open(path).read()
    cur = None
    stacks = []
    for line in text.splitlines():
        if line.startswith("\t"):
            if cur is None:
                cur = []
            cur.append(int(line.split()[0], 16))
        elif cur is not None:
            stacks.append(cur)
            cur = None
    if cur is not None:
        stacks.append(cur)
    for ips in stacks:
        if hidden:
            ips = [i for i in ips if i < (1 << 63)]
        out[tuple(ips)] += 1
    return out


def perf_empty_samples(path):
    """Samples `perf script -F tid,ip` shows without a frame."""
    n, cur = 0, None
    for line in open(path):
        if not line.strip():
            continue
        if not line.startswith("\t"):
            if cur == 0:
                n += 1
            cur = 0
        else:
            cur = (cur or 0) + 1
    return n + (1 if cur == 0 else 0)


def check_stacks(raw, script, how):
    """how: "hidden" (kernel addresses not shown), "dwarf" (perf's libdw
    unwinder shows a caller's return address - 1), else ""."""
    samples, locs = raw_profile(raw)
    hidden = how == "hidden"
    got = collections.Counter()
    for n, _, ids, _ in samples:
        ips = [locs[i][0] for i in ids]
        if hidden:
            ips = [i for i in ips if i and i < (1 << 63)]
        if how == "dwarf":
            user = [k for k, i in enumerate(ips) if i < (1 << 63)]
            ips = [i - 1 if user and k > user[0] and i < (1 << 63) else i for k, i in enumerate(ips)]
        got[tuple(ips)] += n
    want = script_stacks(script, hidden)
    # samples whose chain is empty in the script print no frame block
    got.pop((), None)
    want.pop((), None)
    if how == "dwarf":
        # perf shows nothing for a DWARF sample it could not unwind (no
        # user part: its PC not in a mapping it knows yet, during exec),
        # where our stack keeps the sampled instruction, or one user frame
        # less; allowed for at most 1 % of the samples, as callpath.sh
        empty = perf_empty_samples(script)
        only_here, only_perf = got - want, want - got
        shorter = 0
        for k, c in only_here.items():
            for _ in range(c):
                t = k[:-1]
                if t and only_perf[t] > 0:
                    only_perf[t] -= 1
                    want[t] -= 1
                elif empty > 0:
                    empty -= 1
                else:
                    continue
                want[k] += 1
                shorter += 1
        want = +want
        if shorter:
            print("dwarf: %d stacks shorter or empty in perf script (PC not in its mappings)" % shorter)
        if shorter > max(2, 0.01 * sum(got.values())):
            bad.append("%d DWARF stacks shorter in perf script" % shorter)
    diff = (got - want) + (want - got)
    if diff:
        bad.append("pprof address stacks vs %s: %d stacks differ (of %d), e.g. %s" %
                   (script, len(diff), len(got), [(tuple(hex(i) for i in k), got[k], want[k])
                                                  for k in list(diff)[:3]]))
    want_eq("pprof samples with a stack vs script", sum(want.values()), sum(got.values()))


def json_frame_name(f):
    if f["func"]:
        return f["func"]
    if f["ip"] is None or f["kernel"]:
        return "[kernel]"
    if f["module"] and not f["kernel"]:
        return "[unknown] [%s]" % f["module"].rsplit("/", 1)[-1]
    return "[unknown]"


def check_cumulative(rep, raw):
    samples, locs = raw_profile(raw)
    flat, cum = collections.Counter(), collections.Counter()
    for n, _, ids, _ in samples:
        names = [locs[i][1] for i in ids]
        if names:
            flat[names[0]] += n
        for f in set(names):
            cum[f] += n
    want_flat = functions(rep)
    want_eq("pprof flat per function", dict(want_flat), dict(flat))
    # the report's call paths: each path's functions once; a sample without
    # a path counts for its own function only
    cp = rep.get("callpaths")
    want_cum = collections.Counter()
    path_leaf = collections.Counter()
    for p in cp["by_samples"] if cp else []:
        names = [json_frame_name(f) for f in p["frames"]]
        path_leaf[names[0]] += p["samples"]
        for f in set(names):
            want_cum[f] += p["samples"]
    for f, v in want_flat.items():
        want_cum[f] += v - path_leaf.get(f, 0)
    want_cum = collections.Counter({k: v for k, v in want_cum.items() if v})
    want_eq("pprof cumulative per function", dict(want_cum), dict(cum))


def fold_deep(names, depth=48):
    """page.js foldDeep: a run of >= 4 "[unknown]" frames is one frame, a
    stack deeper than depth ends in "[N more frames]" """
    out, i = [], 0
    while i < len(names):
        j = i
        while j < len(names) and names[j].startswith("[unknown]"):
            j += 1
        if j - i >= 4:
            out.append("[unknown] x%d" % (j - i))
            i = j
        else:
            out.append(names[i])
            i += 1
    if len(out) > depth:
        out = out[:depth - 1] + ["[%d more frames]" % (len(out) - (depth - 1))]
    return out


def check_icicle(rep, dom, known):
    chk = page_check(dom)
    ic = chk["icicle"]
    total = rep["samples"]["total"]
    want_eq("icicle root (samples)", total or None, ic["samples"]["root"])  # nothing drawn: null
    lat = sum(f["latency_total"] for f in rep["top"]["functions_by_samples"])
    want_eq("icicle root (latency)", lat or None, ic["latency"]["root"])
    # every stack prefix of the report's call paths, root first; without
    # call paths one level: the functions (and the samples without an IP)
    cp = rep.get("callpaths") or {"by_samples": [], "without_path": 0}
    want = collections.Counter()
    for p in cp["by_samples"]:
        names = fold_deep([folded_name(json_frame_name(f)) for f in reversed(p["frames"])])
        for k in range(1, len(names) + 1):
            want[";".join(names[:k])] += p["samples"]
    if not cp["by_samples"]:
        want = collections.Counter({folded_name(k): v for k, v in functions(rep).items()})
        no_ip = total - sum(want.values())
        if no_ip:
            want["[no ip]"] = no_ip
    got = ic["samples"]["stacks"]
    for k in known:  # leaf first, comma-separated: the stacks ending so
        tail = ";".join(reversed(k.split(",")))
        w = sum(v for s, v in want.items() if s == tail or s.endswith(";" + tail))
        g = sum(v for s, v in got.items() if s == tail or s.endswith(";" + tail))
        want_eq("icicle stacks ending %s" % tail, w, g)
        if not w:
            bad.append("the report has no path ending %s" % tail)
    if cp["without_path"] == 0 and len(got) < 2000:
        # the page's stacks are the call paths (a sample's own function
        # leads every stack; without_path = 0: all samples have one)
        want_eq("icicle stacks", dict(want), got)


def page_check(path):
    dom = open(path).read()
    m = re.search(r'<pre id="pms-check"[^>]*>(.*?)</pre>', dom, re.S)
    return json.loads(m.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


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
    elif what == "merge":
        check_merge(sys.argv[2], sys.argv[3:])
    elif what == "traces":
        check_traces(sys.argv[2], sys.argv[3])
    elif what == "stacks":
        check_stacks(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
    else:
        rep = json.load(open(sys.argv[2]))
        if what == "folded":
            check_folded(rep, sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "samples")
        elif what == "pprof":
            check_pprof(rep, sys.argv[3])
        elif what == "html":
            check_html(rep, sys.argv[3])
        elif what == "cumulative":
            check_cumulative(rep, sys.argv[3])
        elif what == "icicle":
            check_icicle(rep, sys.argv[3], sys.argv[4:])
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


sys.exit(main())
