#!/usr/bin/env bash
# The dependency rules written in src/README.md hold for what each file really
# uses: every header that a src/<concern>/ file reaches, directly or through
# other headers (the compiler's own dependency list, cc -MM), belongs to the
# concern itself or to one its row lists.  tools/ reaches only public headers.
# decode makes no syscalls; decode and perfdata open no file by path (checked
# on the built objects' undefined symbols).
#   layering.sh [PMUSCOPE_CLI]   check this tree
#   layering.sh --self-test      show that the check fails on violations,
#                                direct and through a header
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${PMS_BUILD_DIR:-$top/build}
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "layering: no C compiler ($cc)"; exit 77; }

check() { # check TOP [LIB.a]: 0 when the rules hold
python3 - "$1" "$build" "$cc" "${2:-}" <<'PY'
import os, re, subprocess, sys
top, build, cc, lib = sys.argv[1:5]
# Public headers whose concern is not their own name.
owner = {
    "cpuset": "util", "error": "util", "memsample": "util", "version": "util", "api": "util",
    "record": "decode", "datasrc": "decode", "spe": "decode", "callpath": "decode",
    "unwind": "symbols", "pathprof": "report",
    "armpmu": "catalog", "pmuv3": "catalog", "ibsfwd": "event", "branchrules": "event", "ibsfetch": "decode", "fetchview": "report", "uncore_enc": "catalog",
    "ring": "sample", "sampler": "sample", "memsrc": "sample", "memdeco": "sample",
    "selfmon": "count", "countrun": "count", "c2c": "report", "symtrack": "session",
    "c2c_text": "report", "damon_text": "damon", "top": "report", "stat_text": "count", "advise_text": "advise",
    "sorthist": "session", "render_cmd": "render", "workload": "sys",
    "script": "session",
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
src = os.path.join(top, "src")
inc = os.path.join(top, "include", "pmuscope")

def concern_of(path):
    """The concern a reached header belongs to, or None for tools/ files."""
    p = os.path.realpath(path)
    if os.path.dirname(p) == os.path.realpath(inc):
        name = os.path.basename(p)[:-2]
        if name in owner:
            return owner[name]
        if os.path.isdir(os.path.join(src, name)):
            return name
        return "?pmuscope/" + name + ".h (add it to layering.sh's owner map)"
    if p == os.path.realpath(os.path.join(build, "version.h")):
        return "util"
    # a header generated at build time for a concern (meson's mirror of
    # src/<concern>/ in the build tree, e.g. export/profile.pb-c.h)
    rel = os.path.relpath(p, os.path.realpath(os.path.join(build, "src")))
    if not rel.startswith("..") and os.path.isdir(os.path.join(src, rel.split(os.sep)[0])):
        return rel.split(os.sep)[0]
    rel = os.path.relpath(p, os.path.realpath(src))
    if not rel.startswith(".."):
        return rel.split(os.sep)[0]
    rel = os.path.relpath(p, os.path.realpath(os.path.join(top, "tools")))
    if not rel.startswith(".."):
        return None
    return "?" + path

def reached(path, extra_inc):
    args = [cc, "-MM", "-MG", "-x", "c", "-std=c11", "-D_GNU_SOURCE",
            "-I" + os.path.join(top, "include"), "-I" + src, "-I" + build, "-I" + os.path.join(build, "src")] + extra_inc + [path]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    deps = out.stdout.split(":", 1)[1].replace("\\\n", " ").split()
    return [d for d in deps if os.path.realpath(d) != os.path.realpath(path)], None

bad = []
nfiles = 0
for concern in sorted(os.listdir(src)):
    d = os.path.join(src, concern)
    if not os.path.isdir(d):
        continue
    if concern not in allowed:
        bad.append(f"src/{concern}/ is not in src/README.md's table")
        continue
    for f in sorted(os.listdir(d)):
        if not f.endswith((".c", ".h")):
            continue
        nfiles += 1
        deps, err = reached(os.path.join(d, f), [])
        if deps is None:
            bad.append(f"src/{concern}/{f}: cc -MM failed: {err}")
            continue
        for h in deps:
            c = concern_of(h)
            if c is None or c not in allowed[concern]:
                what = "a tools/ header" if c is None else c
                bad.append(f"src/{concern}/{f}: reaches {os.path.relpath(h, top)} ({what}), "
                           f"not among {sorted(allowed[concern])}")
tools = os.path.join(top, "tools")
for f in sorted(os.listdir(tools)) if os.path.isdir(tools) else []:
    if not f.endswith((".c", ".h")):
        continue
    nfiles += 1
    deps, err = reached(os.path.join(tools, f), ["-I" + tools])
    if deps is None:
        bad.append(f"tools/{f}: cc -MM failed: {err}")
        continue
    for h in deps:
        p = os.path.realpath(h)
        if os.path.dirname(p) in (os.path.realpath(inc), os.path.realpath(tools)) or \
           p == os.path.realpath(os.path.join(build, "version.h")):
            continue
        bad.append(f"tools/{f}: reaches {os.path.relpath(h, top)}: the CLI uses only include/pmuscope/")

# The CLI's headers (src/README.md, "tools-include:" and "tools-except"
# lines): a tools/ file includes only the session, report and rendering
# headers listed, and a sample/perfdata/decode/run header only where its
# file's exception line names it.  An exception the file no longer needs is
# a note: deleting it is the one-line tightening.
tools_ok, tools_except = set(), {}
for m in re.finditer(r"^\s*tools-include:\s*(.*)$", text, re.M):
    tools_ok |= set(m.group(1).split())
for m in re.finditer(r"^\s*tools-except\s+(\S+):\s*([^(\n]*)", text, re.M):
    tools_except.setdefault(m.group(1), set()).update(m.group(2).split())
if not tools_ok:
    bad.append("src/README.md has no 'tools-include:' line (the CLI's headers)")
used_except = {}
for f in sorted(os.listdir(tools)) if os.path.isdir(tools) else []:
    if not f.endswith((".c", ".h")):
        continue
    for n, line in enumerate(open(os.path.join(tools, f), errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s+"pmuscope/([A-Za-z0-9_]+)\.h"', line)
        if not m:
            continue
        h = m.group(1)
        if h in tools_ok:
            continue
        if h in tools_except.get(f, set()):
            used_except.setdefault(f, set()).add(h)
            continue
        bad.append(f"tools/{f}:{n}: includes pmuscope/{h}.h, not among the CLI's headers "
                   f"(src/README.md tools-include) nor this file's tools-except line")
for f, hs in sorted(tools_except.items()):
    for h in sorted(hs - used_except.get(f, set())):
        print(f"note: src/README.md: tools-except {f} lists {h}, which it no longer "
              f"includes: delete it")

# One of each (src/README.md): who may read the CPU identity, detect a
# hypervisor, or map a format field to a perf_event_attr word.
single = [
    (r'"proc/cpuinfo"', "topo", "the CPU identity is read once, by src/topo (use the topology)"),
    (r'regs/identification/midr_el1"', "topo", "MIDRs are read once, by src/topo (pms_topo_cpu()->midr)"),
    (r'"sys/hypervisor/type"', "topo", "VM detection is pms_hypervisor_detect()"),
    (r'case PMS_CFG_CONFIG1\b', "pmu", "format field -> attr word is pms_format_attr_set/get()"),
]
for base in ("src", "tools"):
    for root, _, files in os.walk(os.path.join(top, base)):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, top)
            owner_dir = rel.split(os.sep)[1] if base == "src" else "tools"
            for n, line in enumerate(open(path, errors="replace"), 1):
                for pat, home, why in single:
                    if owner_dir != home and re.search(pat, line):
                        bad.append(f"{rel}:{n}: {why}")

# The CLI drives the memory pipeline only through the session
# (include/pmuscope/session.h): no tools/ file opens a run, sampler, source,
# reader, profile, call paths, contention model or symbolizer itself.  What
# remains (src/README.md): the advisor of a finished report (--advise's plan)
# is made in mem_advise.c.
pipeline_calls = re.compile(r"\b(pms_liverun_[a-z_]+|pms_sampler_open|pms_memsrc_open_[a-z]+|"
                            r"pms_memsrc_poll|pms_perfdata_reader_open_[a-z]+|pms_memprof_new|"
                            r"pms_pathprof_new|pms_c2c_new|pms_symbolizer_new|pms_advisor_new|"
                            r"pms_recorder_(?:open|new|start)[a-z_]*)\s*\(")
pipeline_ok = {("mem_advise.c", "pms_advisor_new")}
for f in sorted(os.listdir(tools)) if os.path.isdir(tools) else []:
    if not f.endswith((".c", ".h")):
        continue
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  open(os.path.join(tools, f), errors="replace").read(), flags=re.S)
    for n, line in enumerate(text.split("\n"), 1):
        for m in pipeline_calls.finditer(line):
            if (f, m.group(1)) not in pipeline_ok:
                bad.append(f"tools/{f}:{n}: calls {m.group(1)}(): the CLI goes through the "
                           f"session (pms_session_*)")

# What the objects call: decode makes no syscalls, decode and perfdata open
# nothing by path (perfdata's reader and writer work on the fd they are given).
opens = {"open", "open64", "openat", "openat64", "fopen", "fopen64", "opendir", "creat",
         "stat", "stat64", "lstat", "access", "readlink", "unlink", "mkdir", "getenv"}
fdio = {"read", "write", "pread", "pread64", "pwrite", "pwrite64", "mmap", "mmap64", "munmap",
        "fstat", "fstat64", "lseek", "lseek64", "ioctl", "syscall", "close", "fdopen"}
if lib and not os.path.exists(lib):
    bad.append(f"{lib} is not built: the object checks need it (ninja first)")
if lib and os.path.exists(lib):
    out = subprocess.run(["nm", "-A", "--undefined-only", lib], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r".*:(\S+\.o):\s+U (\S+)", line)
        if not m:
            continue
        obj, sym = m.group(1), m.group(2).split("@")[0]
        mm = re.match(r"src_(decode|perfdata)_", obj)
        if not mm:
            continue
        if sym in opens or (mm.group(1) == "decode" and sym in fdio):
            bad.append(f"{obj}: calls {sym}(), which src/README.md rules out for {mm.group(1)}")
    # No two files of one concern call each other (src/README.md).
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True).stdout
    defs, uses = {}, {}
    for line in out.splitlines():
        m = re.match(r".*:(src_[a-z]+_\S+\.o):\s*(?:[0-9a-f]+ )?([A-Za-z]) (\S+)$", line)
        if not m:
            continue
        obj, kind, sym = m.groups()
        if kind in "TDRB":
            defs[sym] = obj
        elif kind == "U":
            uses.setdefault(obj, set()).add(sym)
    calls = {(o, defs[s]) for o, ss in uses.items() for s in ss if s in defs and defs[s] != o}
    for a, b in sorted(calls):
        if a < b and (b, a) in calls and a.split("_")[1] == b.split("_")[1]:
            bad.append(f"{a} and {b} call each other: move the shared part so one builds on the other")
for b in bad:
    print("FAIL:", b)
print(f"{len(allowed)} concerns, {nfiles} files checked, {len(bad)} violations")
sys.exit(1 if bad else 0)
PY
}

if [ "${1:-}" = "--self-test" ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  fail=0
  fresh() { rm -rf "$tmp/t"; mkdir -p "$tmp/t"; cp -r "$top/src" "$top/include" "$top/tools" "$tmp/t/"; }
  expect_fail() { # NAME PATTERN: the check must fail and name PATTERN
    if check "$tmp/t" "${lib:-}" >"$tmp/out" 2>&1; then
      echo "FAIL: self-test $1: the check passed"; fail=1
    elif ! grep -q -- "$2" "$tmp/out"; then
      echo "FAIL: self-test $1: no line matching '$2':"; cat "$tmp/out"; fail=1
    else
      echo "ok: $1: $(grep -m1 -- "$2" "$tmp/out")"
    fi
  }
  fresh
  check "$tmp/t" >"$tmp/out" 2>&1 || { echo "FAIL: self-test: the unchanged copy fails:"; cat "$tmp/out"; fail=1; }
  # The CLI opening a pipeline object itself, not through the session.
  fresh; printf 'void f(void);\nvoid f(void) { pms_memprof_new(0, 0, 0); }\n' >>"$tmp/t/tools/cmd_report.c"
  expect_fail "pipeline outside the session" "tools/cmd_report.c:[0-9]*: calls pms_memprof_new()"
  # The CLI including a sample/perfdata/decode header directly.
  fresh; sed -i '1i #include "pmuscope/perfdata.h"' "$tmp/t/tools/cmd_stat.c"
  expect_fail "tools header" "tools/cmd_stat.c:1: includes pmuscope/perfdata.h"
  # An exception taken away: the file that still includes it fails.
  fresh; sed -i 's/^\( *tools-except cmd_report.c:.*\)perfdata/\1/' "$tmp/t/src/README.md"
  expect_fail "tools exception" "tools/cmd_report.c:[0-9]*: includes pmuscope/perfdata.h"
  # A direct include of a concern util may not use.
  fresh; sed -i '1i #include "pmuscope/topo.h"' "$tmp/t/src/util/natsort.c"
  expect_fail "direct include" "src/util/natsort.c: reaches include/pmuscope/topo.h (topo)"
  # Only through a header: natsort.c includes nothing new, but a util header
  # it includes now pulls in topo (a direct-include scan sees nothing).
  fresh; sed -i '1i #include "pmuscope/topo.h"' "$tmp/t/src/util/natsort.h"
  expect_fail "through a header" "src/util/natsort.c: reaches include/pmuscope/topo.h (topo)"
  # A module's internal header used from another module.
  fresh; sed -i '1i #include "count/count_int.h"' "$tmp/t/src/report/memprof.c"
  expect_fail "internal header" "src/report/memprof.c: reaches src/count/count_int.h (count)"
  # The CLI reaching an internal header.
  fresh; sed -i '1i #include "util/error.h"' "$tmp/t/tools/cli_json.c"
  expect_fail "tools internal" "tools/cli_json.c: reaches src/util/error.h"
  # A second reader of something that has one home.
  fresh; sed -i '1i static const char *p = "proc/cpuinfo";' "$tmp/t/src/sample/ring.c"
  expect_fail "second cpuinfo reader" "src/sample/ring.c:1: the CPU identity is read once"
  # A row that lost a dependency the code has.
  fresh; sed -i 's/^\(report .*\)(util, \(.*\))$/\1(\2)/' "$tmp/t/src/README.md"
  grep -q '^report.*(util' "$tmp/t/src/README.md" && { echo "FAIL: self-test could not edit the report row"; fail=1; }
  expect_fail "table row" "src/report/memprof.c: reaches .* (util)"
  # On objects: a decode file that opens a path, and two catalog files that
  # call each other.
  fresh; mkdir -p "$tmp/o"
  printf '#include <fcntl.h>\nint pms_t_d(void);\nint pms_t_d(void) { return open("x", O_RDONLY); }\n' >"$tmp/o/d.c"
  printf 'int pms_t_b(int);\nint pms_t_a(int);\nint pms_t_a(int n) { return n ? pms_t_b(n - 1) : 0; }\n' >"$tmp/o/a.c"
  printf 'int pms_t_a(int);\nint pms_t_b(int);\nint pms_t_b(int n) { return n ? pms_t_a(n - 1) : 1; }\n' >"$tmp/o/b.c"
  "$cc" -c "$tmp/o/d.c" -o "$tmp/o/src_decode_d.c.o" && "$cc" -c "$tmp/o/a.c" -o "$tmp/o/src_catalog_a.c.o" &&
    "$cc" -c "$tmp/o/b.c" -o "$tmp/o/src_catalog_b.c.o" &&
    ar rcs "$tmp/o/lib.a" "$tmp/o/src_decode_d.c.o" "$tmp/o/src_catalog_a.c.o" "$tmp/o/src_catalog_b.c.o" ||
    { echo "FAIL: self-test could not build its objects"; fail=1; }
  lib=$tmp/o/lib.a
  expect_fail "decode opens a path" "src_decode_d.c.o: calls open()"
  expect_fail "call cycle" "src_catalog_a.c.o and src_catalog_b.c.o call each other"
  exit $fail
fi
check "$top" "$build/libpmuscope.a"
