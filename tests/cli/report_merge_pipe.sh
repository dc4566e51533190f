#!/usr/bin/env bash
# The per-file kernel rule for a pipe-mode file, whose build ids come
# in-stream as HEADER_BUILD_ID records (session/session_kmods.c
# sess_kernel_judge): a file's kernel is judged once, at its first sample
# that may hold a kernel address, from the build ids read by then; every
# output keeps that judgment, so a merged report is the sum of the files'
# own reports.  Pipe files written by kernel_file_gen.py --pipe (a user
# sample first, a FINISHED_ROUND after each sample), listing the running
# kernel's id (a written root's) early (before every sample), before the
# kernel samples (after the user sample: perf inject -b's order), or late
# (after every sample); merged with a file of another kernel:
#  - early, beforekernel: kernel IPs named, alone and merged (before: a
#    merge judged beforekernel at its user sample, and left it unnamed);
#  - late: kernel IPs "[kernel]", alone and merged (before: named alone,
#    unnamed merged);
#  - the merged report's functions are the sum of the two files' own;
#  - script -F ip,sym,dso and report -s sym keep the same judgment (before:
#    they judged a pipe file at its open, before its build ids, and named
#    none of its kernel IPs): the kernel functions they name are report's;
#    early and beforekernel equal perf script's lines and perf report -s
#    sym's rows (as sets: ties are ordered apart) where perf is installed.
#    perf names the late file's kernel IPs too: it names them from the
#    --kallsyms given, whatever the build id, where this leaves them
#    unnamed (docs/mem.md).
set -u
pms=${1:?usage: report_merge_pipe.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/kernel_file_gen.py
root=$tmp/root
mod=/lib/modules/x/fake-mod.ko
python3 "$gen" "$tmp/other.data" "$root" $mod none kfirst \
  --kid 00112233445566778899aabbccddeeff00112233 || { echo "FAIL: could not write other.data"; exit 1; }
rep() { # OUT FILES...
  local out=$1; shift
  local args=()
  for f in "$@"; do args+=(-i "$tmp/$f.data"); done
  "$pms" --root "$root" report "${args[@]}" --json --top 100000 >"$tmp/$out.json" 2>"$tmp/e" ||
    { echo "FAIL: report $*: $(head -2 "$tmp/e")"; fail=1; }
}
rep other other
for w in early beforekernel late; do
  python3 "$gen" "$tmp/$w.data" "$root" $mod none kfirst --pipe $w ||
    { echo "FAIL: could not write $w.data"; fail=1; continue; }
  rep "$w" "$w"
  rep "$w-m" "$w" other
  rep "m-$w" other "$w"
  "$pms" --root "$root" script -i "$tmp/$w.data" -F ip,sym,dso >"$tmp/$w.script" 2>"$tmp/e" ||
    { echo "FAIL: script $w: $(head -2 "$tmp/e")"; fail=1; }
  "$pms" --root "$root" report -i "$tmp/$w.data" -s sym >"$tmp/$w.sort" 2>"$tmp/e" ||
    { echo "FAIL: report -s sym $w: $(head -2 "$tmp/e")"; fail=1; }
  [ "$w" = late ] && continue
  command -v perf >/dev/null || continue
  perf script -i "$tmp/$w.data" --symfs "$root" --kallsyms "$root/proc/kallsyms" \
    -F ip,sym,dso >"$tmp/$w.pscript" 2>/dev/null &&
    { cmp -s "$tmp/$w.script" "$tmp/$w.pscript" ||
      { echo "FAIL: $w: script differs from perf script:"; diff "$tmp/$w.script" "$tmp/$w.pscript" | head -5; fail=1; }; }
  perf report -i "$tmp/$w.data" --stdio -s sym --symfs "$root" \
    --kallsyms "$root/proc/kallsyms" 2>/dev/null >"$tmp/$w.preport" && {
    diff <(grep '%' "$tmp/$w.sort" | sort) <(grep '%' "$tmp/$w.preport" | sed 's/ *$//' | sort) >"$tmp/d" ||
      { echo "FAIL: $w: report -s sym differs from perf report -s sym:"; head -5 "$tmp/d"; fail=1; }; }
done

PYTHONPATH=$here python3 - "$tmp" <<'PY' || fail=1
import sys
from kernel_check import functions, verdict
tmp = sys.argv[1]
bad = []
def funcs(name):
    return functions(f"{tmp}/{name}.json", module=True)
other = funcs("other")
if {k[0] for k in other} != {"[kernel]"}:
    bad.append(f"another kernel's file names {sorted(other)}")
for w, named in (("early", True), ("beforekernel", True), ("late", False)):
    own = funcs(w)
    names = {k[0] for k in own}
    if named and not {"core_fn_a", "core_last", "ks_mod_a"} <= names:
        bad.append(f"{w}: its kernel IPs are not named alone: {sorted(names)}")
    if not named and names - {"[kernel]", "[unknown]"}:
        bad.append(f"{w}: named alone although its kernel id came after its samples: {sorted(names)}")
    for m in (f"{w}-m", f"m-{w}"):
        got = funcs(m)
        if got != own + other:
            bad.append(f"{m}: merged functions {dict(got)} != the files' own {dict(own + other)}")
    print(f"{w}: {'named' if named else 'unnamed'}: {sum(own.values())} samples, {len(names)} functions")
    # script and report -s name the kernel functions report names
    kern = {k[0] for k in own} - {"[kernel]", "[unknown]"}
    scr = set()
    for line in open(f"{tmp}/{w}.script"):
        f = line.split()
        if len(f) >= 3 and f[0].startswith("ffff") and f[1] != "[unknown]":
            scr.add(f[1])
    srt = set()
    for line in open(f"{tmp}/{w}.sort"):
        f = line.split()
        if len(f) == 3 and f[1] == "[k]" and not f[2][0].isdigit():
            srt.add(f[2])
    if named and not kern:
        bad.append(f"{w}: report names no kernel function")
    if scr != kern:
        bad.append(f"{w}: script names kernel functions {sorted(scr)}, report {sorted(kern)}")
    if srt != kern:
        bad.append(f"{w}: report -s sym names kernel functions {sorted(srt)}, report {sorted(kern)}")
verdict(bad)
PY
[ $fail -eq 0 ] && echo "ok: a pipe file's kernel judged at its first kernel sample, alone and merged alike, by report, report -s and script"
exit $fail
