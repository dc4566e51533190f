#!/usr/bin/env bash
# report -s of several files: each file's samples named by that file's own
# side-band and kernel rule (session/sorthist.c sorthist_bind binds each
# file's own names; session.c file_sample gives each file's judgment), so
# the merged rows are the sum of the files' own.  Files of
# kernel_file_gen.py: A lists the running kernel's id (a written root's),
# B another's, P is a pipe file whose id comes after its samples:
#  - report -n -s sym,dso of A, B and P alone; A alone equal to perf
#    report -n -s sym,dso --kallsyms (perf reads one file; it names B's
#    and P's kernel IPs from the kallsyms given whatever the id, where
#    pmuscope leaves them unnamed: docs/mem.md);
#  - -i A -i B, -i B -i A and -i P -i A: the rows the sum of the files'
#    own, A's kernel functions named and B's and P's not (before: the
#    files' IPs all named by the first file's ids: every B IP named after
#    A, A's unnamed after B or P).
set -u
pms=${1:?usage: kernel_sort_merge.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
root=$tmp/root
mod=/lib/modules/x/fake-mod.ko
gen() { python3 "$here/kernel_file_gen.py" "$tmp/$1.data" "$root" $mod none kfirst "${@:2}" ||
          { echo "FAIL: could not write $1"; exit 1; }; }
gen A
gen B --kid 00112233445566778899aabbccddeeff00112233
gen P --pipe late
srt() { # OUT FILES...
  local out=$1; shift
  local args=()
  for f in "$@"; do args+=(-i "$tmp/$f.data"); done
  "$pms" --root "$root" report "${args[@]}" -n -s sym,dso >"$tmp/$out.sort" 2>"$tmp/e" ||
    { echo "FAIL: report -s $*: $(head -2 "$tmp/e")"; fail=1; }
}
srt A A; srt B B; srt P P; srt AB A B; srt BA B A; srt PA P A
if command -v perf >/dev/null; then
  perf report -i "$tmp/A.data" --stdio -n -s sym,dso --symfs "$root" \
    --kallsyms "$root/proc/kallsyms" >"$tmp/A.perf" 2>/dev/null || { echo "FAIL: perf report A"; fail=1; }
fi

PYTHONPATH=$here python3 - "$tmp" <<'PY' || fail=1
import os, sys
from kernel_check import sort_rows, verdict
tmp = sys.argv[1]
bad = []
rows = {n: sort_rows(f"{tmp}/{n}.sort") for n in ("A", "B", "P", "AB", "BA", "PA")}
def kernel_named(r):
    return {k.split()[1] for k in r if k.startswith("[k] ") and not k.split()[1][0].isdigit()}
if os.path.exists(f"{tmp}/A.perf"):
    perf = sort_rows(f"{tmp}/A.perf")
    if perf != rows["A"]:
        bad.append(f"A: report -s sym,dso {dict(rows['A'])} != perf's {dict(perf)}")
if not {"core_fn_a", "core_last", "ks_mod_a"} <= kernel_named(rows["A"]):
    bad.append(f"A: its kernel IPs are not named: {sorted(kernel_named(rows['A']))}")
for n in ("B", "P"):
    if kernel_named(rows[n]):
        bad.append(f"{n}: another kernel's IPs named {sorted(kernel_named(rows[n]))}")
for m in ("AB", "BA", "PA"):
    want = rows[m[0]] + rows[m[1]]
    print(f"{m}: {len(rows[m])} rows, {sum(rows[m].values())} samples, kernel named "
          f"{sorted(kernel_named(rows[m]))}")
    if rows[m] != want:
        d = {k: (rows[m][k], want[k]) for k in set(rows[m]) | set(want) if rows[m][k] != want[k]}
        bad.append(f"{m}: merged rows differ from the files' own (merged, sum): {d}")
verdict(bad)
PY
[ $fail -eq 0 ] && echo "ok: a merged report -s names each file's samples by its own rule: the sum of the files' own"
exit $fail
