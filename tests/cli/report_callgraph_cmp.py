#!/usr/bin/env python3
"""Compare perf report --stdio and pmuscope report in one -g form
(tests/cli/report_callgraph.sh).

Order is compared, but for ties: rows of equal value columns, chains
(folded, flat) of equal value in a row, and siblings of equal value in a
graph/fractal tree are compared as sets (perf breaks such ties by DSO and
symbol address, sort.c/callchain.c; pmuscope by name).

One disagreement is recognized by rule, counted and printed, never
hidden in a share (--script FILE: perf script's output of the same file):
perf 6.12 prints frames by address ("0x7f..") where its perf script names
them.  Cause (perf source): sort.c _sort__sym_cmp orders an inlined symbol
against others by name and two plain ones by address, not one order, so
the hists input rbtree can miss an existing row and add a second one;
hist.c hists__collapse_insert_entry then merges the two with
callchain.c callchain_merge, whose merge_chain_branch re-appends each
frame with a map_symbol of maps and map but no sym; callchain_list__sym_name
prints such a frame as its address, and match_chain (no sym: IP compare)
keeps it apart from the named branch.  So in such a row perf's chains are
split in two: the named ones, and the merged ones by address.
 - folded: each address frame is named as perf script names that IP
   (an IP repeated k times: k of its inline stack's frames), then perf's
   equal chains of the row are summed (folded values are a chain's own
   samples): the result must equal pmuscope's line (a percent within 0.01
   per summand); the row's chains compared as a set.
 - count values (folded): perf counts each branch merged at the collapse
   as one sample (merge_chain_branch -> append_chain_children ->
   append_chain: count++ however many samples the branch held), so the
   counts of such a row are lower bounds: the same chains, each at most
   pmuscope's count, summing below it.
 - flat, graph, fractal: values there are cumulated over the chains a
   node begins, which the split halves do not give back: the row's chain
   lines are left out (counted, printed).
Exit 0 when equal (or --max-other N other lines a side), 1 otherwise.
"""
import re
import sys
from collections import Counter, OrderedDict

args = sys.argv[1:]
opts = {"--merged": None, "--detect": None, "--value": "percent", "--script": None, "--max-other": "0", "--mode": "none", "--order": "caller"}
files = []
while args:
    a = args.pop(0)
    if a in opts:
        opts[a] = args.pop(0)
    else:
        files.append(a)
perf_f, pms_f = (files + [None, None])[:2]
mode = opts["--mode"]
callee = opts["--order"] == "callee"

ENTRY = re.compile(r"^ {1,8}[0-9]+\.[0-9]+%")
ADDR = re.compile(r"^0x[0-9a-f]+$")


def squeeze(s):
    return re.sub(r" +", " ", s.strip())


def rows_of(path):
    """[(header, [body lines])] in printed order."""
    rows = []
    for ln in open(path, errors="replace"):
        ln = ln.rstrip("\n")
        if ln.startswith("#"):
            continue
        if ENTRY.match(ln):
            rows.append((squeeze(ln), []))
        elif rows:
            rows[-1][1].append(ln)
    return rows


def head_value(h):
    """a row's tie key: its first value (Children, or Overhead); perf
    orders rows of equal Children by Self with -g none and not with a
    graph (hists__output_resort), so Self is not a key here"""
    return re.findall(r"[0-9]+\.[0-9]+%", h)[:1]


def chains_lin(body):
    """folded / flat: [(value, [frames])] in order."""
    out = []
    if mode == "folded":
        for ln in body:
            if ln.strip():
                v, _, c = ln.strip().partition(" ")
                out.append((v, c.split(";")))
        return out
    cur = None
    for ln in body:
        if not ln.strip():
            cur = None
        elif re.match(r"^ {11}[0-9]", ln):
            cur = (ln.strip(), [])
            out.append(cur)
        elif cur is not None:
            cur[1].append(ln.strip())
    return out


VAL = re.compile(r"^(.*?)([| ])--([^-]+?)--(.*)$")


def tree(body):
    """graph / fractal: nodes [(path tuple, value)] with their children
    order kept: a nested list [name-run, value, [children]]."""
    root = ["", None, []]
    stack = [(-1, root)]  # (marker column, node)
    for ln in body:
        if not ln.strip() or re.match(r"^[ |]*$", ln):
            continue
        m = VAL.match(ln)
        if m and set(m.group(1)) <= set(" |"):
            col = len(m.group(1))
            while stack[-1][0] >= col:
                stack.pop()
            # perf 6.12 may end fractal's remainder line with " (inlined)"
            n = [re.sub(r"^\[\.\.\.\] \(inlined\)$", "[...]", m.group(4)), m.group(3), []]
            stack[-1][1][2].append(n)
            stack.append((col, n))
            continue
        m = re.match(r"^([ |]*)---(.*)$", ln)
        if m:
            n = [m.group(2), None, []]
            root[2].append(n)
            stack = [(-1, root), (len(m.group(1)), n)]
            continue
        # a frame continuing the last node's run
        stack[-1][1][0] += ";" + re.sub(r"^[ |]*", "", ln).strip()
    return root


def canon_tree(n, path, out):
    kids = n[2]
    i = 0
    groups = []
    while i < len(kids):
        j = i
        while j < len(kids) and kids[j][1] == kids[i][1]:
            j += 1
        groups.append(sorted(kids[i:j], key=lambda k: k[0]))
        i = j
    for g in groups:
        for k in g:
            p = path + (k[0],)
            out.append("%s | %s" % (k[1], " ; ".join(p)))
            canon_tree(k, p, out)


def canon_lin(ch):
    out = []
    i = 0
    while i < len(ch):
        j = i
        while j < len(ch) and ch[j][0] == ch[i][0]:
            j += 1
        out += sorted("%s %s" % (v, ";".join(f)) for v, f in ch[i:j])
        i = j
    return out


# IP -> its frames as perf script names them, caller first
names = {}
if opts["--script"]:
    cur_ip, run = None, []
    pat = re.compile(r"^\s+([0-9a-f]+) (.+?)(\+0x[0-9a-f]+)? \((.*)\)$")
    for ln in open(opts["--script"], errors="replace"):
        m = pat.match(ln)
        if not m:
            if cur_ip and run and cur_ip not in names:
                names[cur_ip] = run[::-1]
            cur_ip, run = None, []
            continue
        ip = "0x" + m.group(1).lstrip("0")
        nm = m.group(2) + (" (inlined)" if m.group(4) == "inlined" else "")
        if ip != cur_ip:
            if cur_ip and run and cur_ip not in names:
                names[cur_ip] = run[::-1]
            cur_ip, run = ip, []
        if nm != "[unknown]":
            run.append(nm)


def resolve(frames, rowsym):
    """perf's address frames named; None when one cannot be."""
    out = list(frames)
    i = 0
    while i < len(out):
        if not ADDR.match(out[i]):
            i += 1
            continue
        ip = out[i]
        k = i
        while k < len(out) and out[k] == ip:
            k += 1
        ex = names.get(ip)
        if not ex:  # perf script does not name it either
            i = k
            continue
        if callee:
            ex = ex[::-1]
        prev = out[i - 1] if i else None
        if prev is not None and prev in ex:
            s = ex.index(prev) + 1
        elif i == 0 and rowsym in ex:
            s = ex.index(rowsym)
        else:
            s = 0
        if s + (k - i) > len(ex):
            return None
        out[i:k] = ex[s:s + k - i]
        i = k
    return out


def named(f):
    """an address frame perf script names (not one of no symbol)"""
    return bool(ADDR.match(f)) and f in names


def num(v):
    return float(v.rstrip("%"))


perf_rows, pms_rows = (rows_of(perf_f), rows_of(pms_f)) if pms_f else ([], [])
fail = []
merged_rows = 0
merged_lines = 0


def canon_rows(rows):
    out = []
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and head_value(rows[j][0]) == head_value(rows[i][0]):
            j += 1
        out += sorted(rows[i:j], key=lambda r: r[0])
        i = j
    return out


# perf's split row: the same defect may leave an inlined function's row
# in two at the collapse too (hist.c hists__collapse_insert_entry compares
# with the same _sort__sym_cmp): perf prints two rows of one key whose
# values sum to pmuscope's one row.  Such rows are taken out of the order,
# their values summed (0.01 per summand); folded: their chains pooled as
# a merged row's; other forms: their chain lines left out.
def key_of(h):
    return re.sub(r"^([0-9]+\.[0-9]+% )+", "", h)


if opts["--detect"]:
    # --detect: perf's folded forms of one file, count then period, in
    # pairs (caller, callee): the keys of rows merged at perf's collapse,
    # found in perf's own output alone: a chain frame printed by address
    # that perf script names, or counts summing below the periods (a file
    # of period-1 samples: page faults recorded with -c 1)
    mode = "folded"
    keys = set()
    fl = opts["--detect"].split(",")
    for fc, fp in zip(fl[0::2], fl[1::2]):
        rc, rp = rows_of(fc), rows_of(fp)
        for (h, b), (_, bp) in zip(rc, rp):
            c, pch = chains_lin(b), chains_lin(bp)
            if any(named(f) for _, fr in c for f in fr) or \
               sum(int(v) for v, _ in c) < sum(int(v) for v, _ in pch):
                keys.add(key_of(h))
    for k in sorted(keys):
        print(k)
    sys.exit(0)
merged_keys = set()
if opts["--merged"]:
    merged_keys = set(x.rstrip("\n") for x in open(opts["--merged"]))

pk = Counter(key_of(h) for h, _ in perf_rows)
mk = Counter(key_of(h) for h, _ in pms_rows)
pooled = []
for k in sorted(x for x in pk if pk[x] > 1 and mk[x] == 1):
    ps = [r for r in perf_rows if key_of(r[0]) == k]
    mrow = [r for r in pms_rows if key_of(r[0]) == k][0]
    pv = [re.findall(r"[0-9]+\.[0-9]+%", h) for h, _ in ps]
    mv = re.findall(r"[0-9]+\.[0-9]+%", mrow[0])
    if not all(abs(sum(num(v[i]) for v in pv) - num(mv[i])) <= 0.0101 * (len(ps) - 1)
               for i in range(len(mv))):
        continue
    perf_rows = [r for r in perf_rows if key_of(r[0]) != k]
    pms_rows = [r for r in pms_rows if key_of(r[0]) != k]
    print("split row (perf %s, pmuscope %s): %s" % (
        " + ".join(v[0] for v in pv), mv[0], k), file=sys.stderr)
    merged_rows += 1
    pooled.append((mrow[0], [ln for _, b in ps for ln in b], mrow[1]))

pr, mr = canon_rows(perf_rows), canon_rows(pms_rows)
ph = [r[0] for r in pr]
mh = [r[0] for r in mr]
p_lines, m_lines = [], []
for h in ph:
    p_lines.append("ROW " + h)
for h in mh:
    m_lines.append("ROW " + h)
mbody = {}
for h, b in mr:
    mbody.setdefault(h, []).append(b)
items = [(h, b, mbody.get(h, [[]]).pop(0) if mbody.get(h) else [], False) for h, b in pr]
items += [(h, b, mb, True) for h, b, mb in pooled]
for h, b, mb, pool in items:
    rowsym = h.split("] ", 1)[1] if "] " in h else ""
    if mode in ("folded", "flat"):
        pc, mc = chains_lin(b), chains_lin(mb)
        damaged = pool or any(named(f) for _, fr in pc for f in fr)
        if (damaged or key_of(h) in merged_keys) and mode == "flat":
            merged_rows += 1
            merged_lines += len(pc)
            print("merge-loss row (perf by address, split or merged at its collapse; its %d chains left out): %s" % (len(pc), h),
                  file=sys.stderr)
            continue
        count = opts["--value"] == "count"
        if count and not pool and not any(named(f) for _, fr in pc for f in fr) and mc:
            # perf counts a branch merged at the collapse as one sample
            # (callchain.c merge_chain_branch -> append_chain: count++ per
            # merge, the period added whole): a row whose counts sum below
            # pmuscope's, the same chains each at most pmuscope's count
            ps = sum(int(v) for v, _ in pc)
            ms_ = sum(int(v) for v, _ in mc)
            pd = {";".join(f): int(v) for v, f in pc}
            md = {";".join(f): int(v) for v, f in mc}
            if ps < ms_ and set(pd) == set(md) and all(pd[c] <= md[c] for c in pd):
                merged_rows += 1
                merged_lines += len(pc)
                print("merge-count-loss row (perf's counts sum %d, pmuscope's %d): %s" % (ps, ms_, h),
                      file=sys.stderr)
                continue
        if damaged and names:
            merged_rows += 1
            sums = OrderedDict()
            ok = True
            for v, fr in pc:
                r = resolve(fr, rowsym)
                if r is None:
                    ok = False
                    break
                if any(named(f) for f in fr):
                    merged_lines += 1
                sums.setdefault(";".join(r), []).append(v)
            if ok:
                mset = {";".join(fr): v for v, fr in mc}
                for c, vs in sums.items():
                    mv = mset.pop(c, None)
                    good = mv is not None
                    if good and len(vs) == 1:
                        good = mv == vs[0]
                    elif good and vs[0].endswith("%"):
                        good = abs(num(mv) - sum(num(v) for v in vs)) <= 0.0101 * (len(vs) - 1)
                    elif good and count:  # merged branches count 1 (above)
                        good = int(mv) >= sum(int(v) for v in vs)
                    elif good:
                        good = int(mv) == sum(int(v) for v in vs)
                    line = "%s\t%s %s" % (h, "+".join(vs), c)
                    if good:
                        print("merge-loss (perf by address or split, named and summed): " + line, file=sys.stderr)
                    else:
                        p_lines.append(line)
                        m_lines.append("%s\t%s %s" % (h, mv, c) if mv else "")
                for c, v in mset.items():
                    m_lines.append("%s\t%s %s" % (h, v, c))
                continue
        # flat: perf orders a row's chains by their own samples (the
        # sorted chain by node hit), which flat does not print (its value
        # is cumulated): a set
        lin = canon_lin if mode == "folded" else lambda c: sorted(canon_lin(c))
        p_lines += ["%s\t%s" % (h, x) for x in lin(pc)]
        m_lines += ["%s\t%s" % (h, x) for x in lin(mc)]
    elif mode in ("graph", "fractal"):
        if pool or key_of(h) in merged_keys or any(named(f) for ln in b for f in [re.sub(r"^[ |]*", "", ln).strip().split("--")[-1]]):
            merged_rows += 1
            merged_lines += len(b)
            print("merge-loss row (perf by address, split or merged at its collapse; its %d lines left out): %s" % (len(b), h),
                  file=sys.stderr)
            continue
        po, mo = [], []
        canon_tree(tree(b), (), po)
        canon_tree(tree(mb), (), mo)
        p_lines += ["%s\t%s" % (h, x) for x in po]
        m_lines += ["%s\t%s" % (h, x) for x in mo]
for h, bs in mbody.items():
    for b in bs:
        if b:
            m_lines.append("%s\t(row not in perf) %d lines" % (h, len(b)))
p_lines = [x for x in p_lines if x]
m_lines = [x for x in m_lines if x]

# the lines each side has alone, then the order of the common ones
cp, cm = Counter(p_lines), Counter(m_lines)
only_p = list((cp - cm).elements())
only_m = list((cm - cp).elements())
order = ""
if not only_p and not only_m and p_lines != m_lines:
    i = next(i for i, (a, b) in enumerate(zip(p_lines, m_lines)) if a != b)
    order = "order differs at line %d: perf %r, pmuscope %r" % (i, p_lines[i], m_lines[i])
print("perf %d lines, pmuscope %d, %d other on perf's side, %d on pmuscope's; "
      "merge-loss rows %d (%d perf lines)%s" % (len(p_lines), len(m_lines), len(only_p), len(only_m),
                                                merged_rows, merged_lines, "; " + order if order else ""))
for x in only_p[:8]:
    print("< " + x)
for x in only_m[:8]:
    print("> " + x)
if order:
    sys.exit(1)
sys.exit(0 if max(len(only_p), len(only_m)) <= int(opts["--max-other"]) else 1)
