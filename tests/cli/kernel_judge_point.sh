#!/usr/bin/env bash
# Every output judges a pipe file's kernel at the same sample: its first
# that may hold a kernel address, by one test (src/decode/kaddr.h: a kernel,
# guest-kernel or hypervisor IP, a call chain, a branch stack, a data
# address in the kernel half), read in perf's order, from the build ids
# read by then.  Pipe files of kernel_file_gen.py (the root's running
# kernel id; its first sample a user one, a user one reading kernel data
# (page faults), or a guest kernel's; the ids early, before the kernel
# samples, after the first sample's round, or late):
#  - report's functions, report -s sym's and script -F ip,sym's kernel
#    names are the same set, named where the ids came before the judging
#    sample, else none (before: script judged at a guest IP and report did
#    not, neither at a kernel data address: they disagreed on both files
#    whose ids come after the first sample's round);
#  - report --fetch's rows equal report's function rows on the same cases
#    as IBS fetch files (before: a pipe file was refused, "no ibs_fetch
#    event", and the view judged after the whole file, naming a late id's);
#  - a page fault's kernel address in a file whose ids come first is named
#    by script as by perf script (before: judged at the open, unnamed).
set -u
pms=${1:?usage: kernel_judge_point.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
root=$tmp/root
mod=/lib/modules/x/fake-mod.ko
run() { # NAME what to read (its stdout) ...
  local name=$1; shift
  "$pms" --root "$root" "$@" >"$tmp/$name" 2>"$tmp/e" ||
    { echo "FAIL: $*: $(head -2 "$tmp/e")"; fail=1; }
}
for first in user kdata guest; do
  for w in early beforekernel afterfirst late; do
    c=$first-$w
    python3 "$here/kernel_file_gen.py" "$tmp/$c.data" "$root" $mod none kfirst \
      --pipe $w --first $first || { echo "FAIL: could not write $c"; fail=1; continue; }
    run "$c.json" report -i "$tmp/$c.data" --json --top 100000
    run "$c.sort" report -i "$tmp/$c.data" -s sym
    run "$c.script" script -i "$tmp/$c.data" -F ip,sym
    [ $first = kdata ] && continue # a fetch sample has no data address
    python3 "$here/kernel_file_gen.py" "$tmp/f$c.data" "$root" $mod none kfirst \
      --pipe $w --first $first --fetch || { echo "FAIL: could not write f$c"; fail=1; continue; }
    run "f$c.json" report -i "$tmp/f$c.data" --json --top 100000
    run "f$c.fetch" report --fetch -i "$tmp/f$c.data"
  done
done
python3 "$here/kernel_file_gen.py" "$tmp/pf.data" "$root" $mod none kfirst --pipe early --first kdata &&
  run pf.script script -i "$tmp/pf.data" -F ip,sym,addr
if command -v perf >/dev/null; then
  perf script -i "$tmp/pf.data" --symfs "$root" --kallsyms "$root/proc/kallsyms" -F ip,sym,addr \
    >"$tmp/pf.perf" 2>/dev/null && { cmp -s "$tmp/pf.script" "$tmp/pf.perf" ||
    { echo "FAIL: a fault's kernel address: script differs from perf script:"
      diff "$tmp/pf.script" "$tmp/pf.perf" | head -5; fail=1; }; }
  grep -q '^ffffffff81001010 core_fn_a ' "$tmp/pf.script" ||
    { echo "FAIL: the fault's kernel address is not named core_fn_a"; head -2 "$tmp/pf.script"; fail=1; }
fi

PYTHONPATH=$here python3 - "$tmp" <<'PY' || fail=1
import os, sys
from kernel_check import fetch_rows, functions, named_kernel, verdict
tmp = sys.argv[1]
bad = []
def script_names(path):
    out = set()
    for line in open(path):
        f = line.split()
        if len(f) >= 2 and f[0].startswith("ffffffff") and f[1] != "[unknown]":
            out.add(f[1])
    return out
def sort_names(path):
    out = set()
    for line in open(path):
        f = line.split()
        if len(f) == 3 and f[1] == "[k]" and not f[2][0].isdigit():
            out.add(f[2])
    return out
for first in ("user", "kdata", "guest"):
    for w in ("early", "beforekernel", "afterfirst", "late"):
        c = f"{first}-{w}"
        # the ids come before the judging sample: always early; before
        # the kernel samples, but the first sample is delivered after them;
        # after the first sample's round: only where it holds no kernel
        # address; late: never
        want = w in ("early", "beforekernel") or (w == "afterfirst" and first == "user")
        rep = named_kernel(functions(f"{tmp}/{c}.json"))
        srt, scr = sort_names(f"{tmp}/{c}.sort"), script_names(f"{tmp}/{c}.script")
        print(f"{c}: report {sorted(rep)}, report -s {sorted(srt)}, script {sorted(scr)}")
        if bool(rep) != want:
            bad.append(f"{c}: report names {sorted(rep)}: the ids came "
                       f"{'before' if want else 'after'} the judging sample")
        if srt != rep or scr != rep:
            bad.append(f"{c}: report -s names {sorted(srt)}, script {sorted(scr)}, report {sorted(rep)}")
        if first == "kdata":
            continue
        fv, fr = fetch_rows(f"{tmp}/f{c}.fetch"), functions(f"{tmp}/f{c}.json")
        if fv != fr or bool(named_kernel(fr)) != want:
            bad.append(f"f{c}: fetch view {dict(fv)}, report {dict(fr)} (named: {want})")
verdict(bad)
PY
[ $fail -eq 0 ] && echo "ok: report, report -s, script and the fetch view judge a pipe file's kernel at one sample"
exit $fail
