#!/usr/bin/env bash
# Kernel module IPs named from the module's .ko file as perf 6.12 names
# them (issue 30 item 4; perf's dso__load of a module dso): a relocatable
# object made here (cc -c, ld -r --build-id) stands for a .ko, placed
# below a root (pmuscope --root ROOT, perf --symfs ROOT); a written file
# maps it as a module and samples in and around it.
#  1. For each build-id case (the file lists the .ko's id, none, another
#     id) and sample order (a core-kernel sample first or a module sample
#     first): script -F ip,sym,symoff,dso and report -n -s sym,dso as
#     perf's (script's dso: the listed .ko path where the file's build ids
#     name the module, found or not, else "[module]"; report's: "[module]").  What perf shows: the
#     .ko's symbols with its id or none; with another id kallsyms' lines,
#     only when the kernel's symbols were loaded before the module's.
#     The same for the object gzip'd and xz'd (.ko.gz, .ko.xz).
#  2. perf's build-id cache: the .ko gone from its path, its copy in the
#     cache (perf buildid-cache -a), the cache moved where buildid.dir
#     says ($HOME/.perfconfig, PERF_CONFIG=FILE; PERF_CONFIG=/dev/null and
#     PERF_BUILDID_DIR read nothing): the module lines as perf's.
set -u
pms=${1:?usage: kernel_modules_ko.sh PMUSCOPE}
case $pms in /*) ;; *) pms=$PWD/$pms ;; esac
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
# gcc builds the stand-in module whatever CC builds pmuscope: the layout the
# .init.text check below asks for (.init.text right after the text run) is
# gcc's; clang's object places it elsewhere (a clang CI rehearsal failed so)
cc=gcc; command -v gcc >/dev/null || cc=${CC:-cc}
command -v ld >/dev/null && command -v "${cc%% *}" >/dev/null || { echo "SKIP: no cc or ld" >&2; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: the written file is x86-64's" >&2; exit 77; }
export HOME=$tmp/home PERF_CONFIG=/dev/null
mkdir -p "$HOME"

cat >"$tmp/m.c" <<'C'
/* a kernel module's shape: .text (an alias, a weak and a global at one
 * address, unsized asm labels), .text.unlikely after it, .init.text and
 * .exit.text, data */
int mod_counter = 3;
const char mod_msg[] = "fake module";
__attribute__((noinline)) static int helper(int x) { return x * mod_counter + mod_msg[x & 7]; }
int mod_fn_a(int x) { return helper(x) + 2; }
__attribute__((noinline)) int mod_fn_b(int x) { for (int i = 0; i < x; i++) mod_counter += i; return mod_counter; }
extern int mod_fn_b_alias(int) __attribute__((alias("mod_fn_b")));
__attribute__((weak, noinline)) int mod_weak(int x) { return x + mod_counter * 3; }
extern int __mod_weak_u(int) __attribute__((alias("mod_weak")));
__attribute__((section(".text.unlikely"))) int mod_cold(int x) { return x - 7 + helper(x); }
__attribute__((section(".init.text"))) int mod_init(void) { return helper(3) + mod_msg[1]; }
__attribute__((section(".exit.text"))) void mod_exit(void) { mod_counter = 0; }
asm(".text\n.globl mod_asm\nmod_asm:\n\tnop\n\tnop\n\tret\nmod_label:\n\tnop\n\tret\n");
C
$cc -O1 -c -fno-pic -mcmodel=kernel -fno-asynchronous-unwind-tables "$tmp/m.c" -o "$tmp/m.o" 2>"$tmp/e" &&
  ld -r --build-id=sha1 -o "$tmp/fake-mod.ko" "$tmp/m.o" 2>>"$tmp/e" || {
  echo "SKIP: could not make a relocatable object: $(head -1 "$tmp/e")" >&2; exit 77; }
kid=$(python3 - "$tmp/fake-mod.ko" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'GNU\0')
n = struct.unpack('<III', b[i - 12:i])
print(b[i + 4:i + 4 + n[1]].hex() if n[2] == 3 else '')
PY
)
[ ${#kid} = 40 ] || { echo "FAIL: no build id in the object"; exit 1; }
root=$tmp/root
mkdir -p "$root/lib/modules/6.12.0/kernel"
cp "$tmp/fake-mod.ko" "$root/lib/modules/6.12.0/kernel/"
kpath=/lib/modules/6.12.0/kernel/fake-mod.ko

# FILE ROOT MODPATH ID|none ORDER: a file mapping MODPATH at 0xffffffffc0000000
gen=$(cd "$(dirname "$0")" && pwd)/kernel_file_gen.py
rows() { grep -v '^#' | grep . | sed -E 's/ +/ /g; s/ $//' | sort; }

# 1. the .ko below the root
other=$(printf '%s' "$kid" | tr '0-9a-f' '1-9a-f0')
for idcase in "$kid" none "$other"; do
  for order in kfirst mfirst; do
    c="id=${idcase:0:8} $order"
    f=$tmp/$order-${idcase:0:8}.data
    python3 "$gen" "$f" "$root" "$kpath" "$idcase" "$order" || { echo "FAIL: could not write $c"; fail=1; continue; }
    fields=ip,sym,symoff,dso
    perf script -i "$f" -F $fields --kallsyms "$root/proc/kallsyms" --symfs "$root" >"$tmp/p.txt" 2>/dev/null
    "$pms" --root "$root" script -i "$f" -F $fields >"$tmp/m.txt" 2>"$tmp/e" ||
      { echo "FAIL: $c: pmuscope script: $(head -2 "$tmp/e")"; fail=1; }
    named=$(grep -c ' mod_[a-z_]*+0x' "$tmp/p.txt")
    echo "$c: $(wc -l <"$tmp/p.txt") samples, perf names $named from the .ko, $(grep -c ' ks_mod_' "$tmp/p.txt") from kallsyms"
    if [ "$idcase" != "$other" ]; then
      [ "$named" -ge 20 ] || { echo "FAIL: $c: perf read no .ko ($named named)"; fail=1; }
      # script's dso column: the path the build ids list, else the short name
      want="($kpath)"; [ "$idcase" = none ] && want='([fake_mod])'
      grep -qF " mod_asm+0x0 $want" "$tmp/p.txt" || { echo "FAIL: $c: perf's dso column is not $want"; fail=1; }
      [ "$cc" != gcc ] || { grep -q ' mod_init+' "$tmp/p.txt" && ! grep -q ' mod_exit+' "$tmp/p.txt"; } ||
        { echo "FAIL: $c: perf's .init.text/.exit.text rule not shown"; fail=1; }
    fi
    cmp -s "$tmp/p.txt" "$tmp/m.txt" || {
      echo "FAIL: $c: script -F $fields differs from perf's (perf <, pmuscope >)"; diff "$tmp/p.txt" "$tmp/m.txt" | head -8; fail=1; }
    # c2c and the default report: the module IPs script names, named alike
    # (one module naming, src/symbols/kmod.c)
    "$pms" --root "$root" c2c --json --all -i "$f" >"$tmp/c2c.json" 2>"$tmp/e" ||
      { echo "FAIL: $c: c2c -i: $(head -2 "$tmp/e")"; fail=1; }
    "$pms" --root "$root" report -i "$f" >"$tmp/rep.txt" 2>"$tmp/e" ||
      { echo "FAIL: $c: report -i: $(head -2 "$tmp/e")"; fail=1; }
    python3 - "$tmp/c2c.json" "$tmp/m.txt" "$tmp/rep.txt" "$c" <<'PY2' || fail=1
import json, re, sys
script = {}
for l in open(sys.argv[2]):
    p = l.split()
    script[int(p[0], 16)] = re.sub(r'\+0x[0-9a-f]+$', '', p[1])
d = json.load(open(sys.argv[1]))
acc = [(int(a["ip"], 16), a["function"]) for l in d["lines"] for a in l["offsets"] if a.get("ip")]
rep = [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r' 0x([0-9a-f]{16}) (\S+) ', open(sys.argv[3]).read())]
for what, v in (("c2c", acc), ("report", rep)):
    mod = [(ip, fn) for ip, fn in v if ip >= 0xffffffffc0000000 and script.get(ip, "[unknown]") != "[unknown]"]
    bad = [(hex(ip), fn, script[ip]) for ip, fn in mod if fn != script[ip]]
    named = sum(1 for ip, fn in script.items() if ip >= 0xffffffffc0000000 and fn != "[unknown]")
    if len(mod) < min(named, 10) or bad:
        print(f"FAIL: {sys.argv[4]}: {what}: {len(mod)} module IPs script names, {len(bad)} named otherwise:", bad[:4])
        sys.exit(1)
PY2
    perf report -i "$f" --stdio -n -s sym,dso --kallsyms "$root/proc/kallsyms" --symfs "$root" 2>/dev/null | rows >"$tmp/pr.txt"
    "$pms" --root "$root" report -i "$f" -n -s sym,dso 2>/dev/null | rows >"$tmp/mr.txt"
    cmp -s "$tmp/pr.txt" "$tmp/mr.txt" || {
      echo "FAIL: $c: report -s sym,dso differs from perf's (perf <, pmuscope >)"; diff "$tmp/pr.txt" "$tmp/mr.txt" | head -8; fail=1; }
  done
done

# compressed modules (perf decompresses a .ko.gz/.ko.xz by its suffix):
# script -F ip,sym,symoff,dso as perf's, with the id listed and without
for z in gz xz; do
  command -v $( [ $z = gz ] && echo gzip || echo xz ) >/dev/null || { echo "note: no $z command; .ko.$z not checked"; continue; }
  if [ $z = gz ]; then gzip -c "$tmp/fake-mod.ko" >"$root$kpath.gz"; else xz -c "$tmp/fake-mod.ko" >"$root$kpath.xz"; fi
  for idcase in "$kid" none; do
    c="$z id=${idcase:0:8}"
    python3 "$gen" "$tmp/z.data" "$root" "$kpath.$z" "$idcase" mfirst || { echo "FAIL: could not write $c"; fail=1; continue; }
    perf script -i "$tmp/z.data" -F ip,sym,symoff,dso --kallsyms "$root/proc/kallsyms" --symfs "$root" >"$tmp/p.txt" 2>/dev/null
    "$pms" --root "$root" script -i "$tmp/z.data" -F ip,sym,symoff,dso >"$tmp/m.txt" 2>/dev/null
    named=$(grep -c ' mod_[a-z_]*+0x' "$tmp/p.txt")
    echo "$c: perf names $named from the .ko.$z"
    [ "$named" -ge 20 ] || { echo "FAIL: $c: perf read no .ko.$z"; fail=1; }
    cmp -s "$tmp/p.txt" "$tmp/m.txt" || {
      echo "FAIL: $c: script differs from perf's (perf <, pmuscope >)"; diff "$tmp/p.txt" "$tmp/m.txt" | head -6; fail=1; }
  done
done

# 2. perf's build-id cache and buildid.dir (pmuscope's root: /, as perf's)
gone=$tmp/gone/fake-mod.ko
mkdir -p "$tmp/gone"; cp "$tmp/fake-mod.ko" "$gone"
perf buildid-cache -a "$gone" 2>/dev/null
rm -f "$gone"
[ -e "$HOME/.debug/.build-id/${kid:0:2}/${kid:2}" ] || { echo "FAIL: perf buildid-cache -a put nothing in \$HOME/.debug"; exit 1; }
python3 "$gen" "$tmp/c.data" "$tmp/croot" "$gone" "$kid" mfirst || { echo "FAIL: could not write the cache file"; exit 1; }
mods() { grep ' ffffffffc'; }
cachecase() { # NAME MIN: the module lines as perf's; perf names at least MIN
  perf script -i "$tmp/c.data" -F ip,sym,symoff,dso 2>/dev/null | mods >"$tmp/p.txt"
  "$pms" script -i "$tmp/c.data" -F ip,sym,symoff,dso 2>/dev/null | mods >"$tmp/m.txt"
  local n; n=$(grep -c ' mod_[a-z_]*+0x' "$tmp/p.txt")
  echo "cache, $1: perf names $n module IPs"
  if [ "$2" -gt 0 ]; then [ "$n" -ge "$2" ]; else [ "$n" = 0 ]; fi ||
    { echo "FAIL: cache, $1: perf named $n (expected $([ "$2" -gt 0 ] && echo ">= $2" || echo 0))"; fail=1; }
  cmp -s "$tmp/p.txt" "$tmp/m.txt" || {
    echo "FAIL: cache, $1: module lines differ from perf's (perf <, pmuscope >)"; diff "$tmp/p.txt" "$tmp/m.txt" | head -6; fail=1; }
}
cachecase '$HOME/.debug' 20
mv "$HOME/.debug" "$HOME/elsewhere"
printf '# moved\n[BuildID]\n\tDir = "%s/elsewhere" ; a comment\n[other]\n\tdir = /nowhere\n' "$HOME" >"$HOME/.perfconfig"
cachecase 'buildid.dir in ~/.perfconfig, PERF_CONFIG=/dev/null' 0
( unset PERF_CONFIG; cachecase 'buildid.dir in ~/.perfconfig' 20 )
( unset PERF_CONFIG; PERF_CONFIG_NOGLOBAL=1 cachecase 'PERF_CONFIG_NOGLOBAL=1' 0 )
mv "$HOME/.perfconfig" "$HOME/pc"
PERF_CONFIG=$HOME/pc cachecase 'PERF_CONFIG=FILE' 20
( unset PERF_CONFIG; PERF_BUILDID_DIR=$HOME/elsewhere cachecase 'PERF_BUILDID_DIR only' 0 )
# relative: PERF_CONFIG and buildid.dir from the working directory
printf '[buildid]\ndir = elsewhere\n' >"$HOME/rel"
( cd "$HOME" && PERF_CONFIG=rel cachecase 'relative PERF_CONFIG and buildid.dir' 20 )
( cd "$tmp" && PERF_CONFIG=$HOME/rel cachecase 'relative buildid.dir from another directory' 0 )
printf '[buildid]\ndir = %s/elsewhere\n[buildid]\ndir = %s/nowhere\n' "$HOME" "$HOME" >"$HOME/pc"
PERF_CONFIG=$HOME/pc cachecase 'the last buildid.dir' 0
exit $fail
