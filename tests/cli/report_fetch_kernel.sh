#!/usr/bin/env bash
# report --fetch names a file's kernel IPs under the session's per-file
# kernel rule, as report does (session/session_kmods.c
# pms_ibs_fetch_view_file): a written IBS fetch file (kernel_file_gen.py
# --fetch) of kernel and module samples, read against a written root:
#  1. the file lists the root's running kernel id: its rows (function,
#     samples) are report's function rows, core kernel and module IPs
#     named (the module's from its .ko, with the id the file lists for it,
#     where cc and ld make one; else from the root's kallsyms lines);
#  2. the file lists another kernel's id: every kernel IP "[kernel]", as
#     report's rows (before: named from the root's kallsyms).
set -u
pms=${1:?usage: report_fetch_kernel.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/kernel_file_gen.py
root=$tmp/root
kpath=/lib/modules/6.12.0/kernel/fake-mod.ko
mkdir -p "$root/lib/modules/6.12.0/kernel"
kid=none
cc=gcc; command -v gcc >/dev/null || cc=${CC:-cc}
if [ "$(uname -m)" = x86_64 ] && command -v ld >/dev/null && command -v "${cc%% *}" >/dev/null; then
  printf '%s\n' 'int mod_counter = 3;' \
    'int mod_fn_a(int x) { return x * mod_counter + 2; }' \
    '__attribute__((noinline)) int mod_fn_b(int x) { for (int i = 0; i < x; i++) mod_counter += i; return mod_counter; }' \
    >"$tmp/m.c"
  if $cc -O1 -c -fno-pic -mcmodel=kernel -fno-asynchronous-unwind-tables "$tmp/m.c" -o "$tmp/m.o" 2>/dev/null &&
     ld -r --build-id=sha1 -o "$root$kpath" "$tmp/m.o" 2>/dev/null; then
    kid=$(python3 - "$root$kpath" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'GNU\0')
n = struct.unpack('<III', b[i - 12:i])
print(b[i + 4:i + 4 + n[1]].hex() if i > 12 and n[2] == 3 else 'none')
PY
)
  fi
fi
[ "$kid" = none ] && echo "note: no .ko made here: module IPs named from kallsyms lines"

# the fetch view's rows and report's function rows, as {function: samples}
rows() { # FILE KERNEL-ID
  python3 "$gen" "$tmp/f.data" "$root" "$kpath" "$kid" kfirst --fetch --kid "$2" ||
    { echo "FAIL: could not write the file ($2)"; fail=1; return; }
  "$pms" --root "$root" report --fetch -i "$tmp/f.data" >"$tmp/$1.fetch" 2>"$tmp/e" ||
    { echo "FAIL: report --fetch ($2): $(head -2 "$tmp/e")"; fail=1; }
  "$pms" --root "$root" report -i "$tmp/f.data" --json --top 100000 >"$tmp/$1.json" 2>"$tmp/e" ||
    { echo "FAIL: report ($2): $(head -2 "$tmp/e")"; fail=1; }
}
rows here running
rows other 00112233445566778899aabbccddeeff00112233

PYTHONPATH=$here python3 - "$tmp" "$kid" <<'PY' || fail=1
import sys
from kernel_check import fetch_rows, functions, verdict
tmp, kid = sys.argv[1:3]
bad = []
def fetch(name):
    return fetch_rows(f"{tmp}/{name}.fetch")
def report(name):
    return functions(f"{tmp}/{name}.json")
for name in ("here", "other"):
    f, r = fetch(name), report(name)
    print(f"{name}: fetch view {dict(f)}")
    if f != r or not f:
        bad.append(f"{name}: fetch view {dict(f)} != report {dict(r)}")
h, o = fetch("here"), fetch("other")
want = {"core_fn_a", "core_last"} | ({"mod_fn_a", "mod_fn_b"} if kid != "none" else {"ks_mod_a"})
if not want <= set(h):
    bad.append(f"this kernel's file: {sorted(want - set(h))} not named")
if set(o) != {"[kernel]"} or sum(o.values()) != sum(h.values()):
    bad.append(f"another kernel's file: rows {dict(o)}, not all [kernel]")
verdict(bad)
PY
[ $fail -eq 0 ] && echo "ok: report --fetch names kernel IPs as report does, for this kernel's file and another's"
exit $fail
