#!/usr/bin/env bash
# The dependency rules written in src/README.md hold: every include in
# src/<concern>/ names only the concern itself or one it may depend on.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$top" <<'PY'
import os, re, sys
top = sys.argv[1]
# Which concern owns each public header.
owner = {
    "cpuset": "util", "error": "util", "memsample": "util", "version": "util",
    "sys": "sys", "record": "decode", "datasrc": "decode", "spe": "decode",
    "perfdata": "perfdata", "pmu": "pmu", "topo": "topo",
    "catalog": "catalog", "armpmu": "catalog", "uncore_enc": "catalog",
    "event": "event", "ring": "sample", "sampler": "sample", "memsrc": "sample", "numa": "numa",
    "symbols": "symbols", "recorder": "recorder", "report": "report", "c2c": "report", "count": "count", "selfmon": "count",
}
allowed = {}
text = open(os.path.join(top, "src/README.md")).read()
table = text.split("```")[1]
# An entry starts at column 0 and may continue on indented lines; its last
# parenthesis lists what it may depend on.
for block in re.split(r"\n(?=\S)", table.strip()):
    name = block.split()[0]
    deps = re.findall(r"\(([^()]*)\)", block)[-1]
    allowed[name] = {name} | (set() if deps == "depends on nothing"
                              else {d.strip() for d in deps.split(",")})
bad = []
for concern in sorted(os.listdir(os.path.join(top, "src"))):
    d = os.path.join(top, "src", concern)
    if not os.path.isdir(d):
        continue
    if concern not in allowed:
        bad.append(f"src/{concern}/ is not in src/README.md's table")
        continue
    for f in sorted(os.listdir(d)):
        if not f.endswith((".c", ".h")):
            continue
        for line in open(os.path.join(d, f)):
            m = re.match(r'#include "(?:pmuscope/(\w+)\.h|(\w+)/\w+\.h)"', line)
            if not m:
                continue
            dep = owner.get(m.group(1), "?" + str(m.group(1))) if m.group(1) else m.group(2)
            if dep not in allowed[concern]:
                bad.append(f"src/{concern}/{f}: includes {line.strip()[9:]} ({dep}), "
                           f"not among {sorted(allowed[concern])}")
for b in bad:
    print("FAIL:", b)
print(f"{len(allowed)} concerns checked, {len(bad)} violations")
sys.exit(1 if bad else 0)
PY
