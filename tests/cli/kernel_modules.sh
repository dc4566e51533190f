#!/usr/bin/env bash
# Kernel module IPs named as perf 6.12 names them (issue 30 item 4):
# from the kallsyms lines tagged with the module's name (perf's
# dso__split_kallsyms), the map named "[module]" (dso.c __kmod_path__parse).
#  1. A file written here (a kernel MMAP, three module MMAPs: a .ko.xz
#     path, "[other_mod]", "[dash-mod]") with samples in and around them,
#     read against a kallsyms written here: pmuscope --root ROOT (ROOT's
#     proc/kallsyms, its sys/kernel/notes holding the file's kernel build
#     id) and perf --kallsyms ROOT/proc/kallsyms: script -F ip,sym,dso and
#     report -s sym,dso equal, and c2c -i names the module IPs as script.
#  2. This machine, system-wide (perf record -a -e cpu-clock while modules
#     work): every module IP's line as perf's; skipped with a message when
#     no module IP is sampled (no modules loaded, as on a kernel without
#     module support).
set -u
pms=${1:?usage: kernel_modules.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
export HOME=$tmp/home PERF_CONFIG=/dev/null
mkdir -p "$HOME"

# 1. the written file (kernel_file_gen.py --modules)
python3 "$(dirname "$0")/kernel_file_gen.py" "$tmp/m.data" "$tmp/root" \
  /lib/modules/6.12.0/kernel/drivers/fake-mod.ko.xz none kfirst --modules ||
  { echo "FAIL: could not write the file"; exit 1; }
perf script -i "$tmp/m.data" -F ip,sym,dso --kallsyms "$tmp/root/proc/kallsyms" >"$tmp/p.txt" 2>"$tmp/e" ||
  { echo "FAIL: perf script on the written file: $(head -2 "$tmp/e")"; fail=1; }
"$pms" --root "$tmp/root" script -i "$tmp/m.data" -F ip,sym,dso >"$tmp/m.txt" 2>"$tmp/e" ||
  { echo "FAIL: pmuscope script on the written file: $(head -2 "$tmp/e")"; fail=1; }
named=$(grep -c '_fn\|_alias\|_last\|_data' "$tmp/p.txt")
echo "written file: $(wc -l <"$tmp/p.txt") samples, perf names $(grep -c 'mod\])$' "$tmp/p.txt") in modules"
[ "$(grep -c ' mod_fn_[a-z_]* (\[fake_mod\])$' "$tmp/p.txt")" -ge 5 ] ||
  { echo "FAIL: perf named no module IP from the written kallsyms ($named named)"; cat "$tmp/p.txt"; fail=1; }
cmp -s "$tmp/p.txt" "$tmp/m.txt" || {
  echo "FAIL: script -F ip,sym,dso differs from perf's (perf <, pmuscope >)"; diff "$tmp/p.txt" "$tmp/m.txt"; fail=1; }
rows() { grep -v '^#' | grep . | sed -E 's/ +/ /g; s/ $//' | sort; }
perf report -i "$tmp/m.data" --stdio -n -s sym,dso --kallsyms "$tmp/root/proc/kallsyms" 2>/dev/null | rows >"$tmp/pr.txt"
"$pms" --root "$tmp/root" report -i "$tmp/m.data" -n -s sym,dso 2>/dev/null | rows >"$tmp/mr.txt"
grep -q 'mod_data+0x' "$tmp/pr.txt" || { echo "FAIL: perf's report has no module data object row"; fail=1; }
cmp -s "$tmp/pr.txt" "$tmp/mr.txt" || {
  echo "FAIL: report -s sym,dso differs from perf's (perf <, pmuscope >)"; diff "$tmp/pr.txt" "$tmp/mr.txt"; fail=1; }
# c2c: the module IPs it lists named as script names them
"$pms" --root "$tmp/root" c2c --json --all -i "$tmp/m.data" >"$tmp/c2c.json" 2>"$tmp/e" ||
  { echo "FAIL: c2c -i: $(head -2 "$tmp/e")"; fail=1; }
python3 - "$tmp/c2c.json" "$tmp/m.txt" <<'PY' || fail=1
import json, sys
script = {}
for l in open(sys.argv[2]):
    p = l.split()
    script[int(p[0], 16)] = (p[1], p[2].strip('()'))
d = json.load(open(sys.argv[1]))
acc = [a for l in d["lines"] for a in l["offsets"] if a.get("ip")]
mod = [a for a in acc if script.get(int(a["ip"], 16), ("", ""))[1] not in ("[kernel.kallsyms]", "[unknown]")]
bad = [(a["ip"], a["function"], a.get("module"), script[int(a["ip"], 16)]) for a in mod
       if script[int(a["ip"], 16)][0] != "[unknown]" and
       (a["function"], a.get("module")) != script[int(a["ip"], 16)]]
print(f"c2c: {len(acc)} IPs listed, {len(mod)} in modules, {len(bad)} named otherwise than script")
if len(mod) < 5 or bad:
    print("FAIL: c2c module names:", bad[:8])
    sys.exit(1)
PY

# 2. this machine
if [ "$(id -u)" != 0 ] || ! awk 'NR == 1 { exit ($1 ~ /^0+$/) }' /proc/kallsyms 2>/dev/null; then
  echo "SKIP (this machine): kallsyms hides addresses here"
elif ! grep -q '	\[' /proc/kallsyms; then
  echo "SKIP (this machine): no module IP can be sampled: no module is loaded (proc/kallsyms has no [module] line$([ -e /proc/modules ] || echo ', no proc/modules'))"
else
  work='for i in $(seq 100); do cat /proc/self/status /proc/net/dev /proc/net/tcp >/dev/null 2>&1; ls -R /sys/module >/dev/null 2>&1; done;
        dd if=/dev/zero of='"$tmp"'/z bs=64k count=500 conv=fsync 2>/dev/null; sync'
  if perf record -q -a -e cpu-clock -c 20000 -o "$tmp/a.data" -- sh -c "$work" >/dev/null 2>"$tmp/e"; then
    perf script -i "$tmp/a.data" -F ip,sym,dso >"$tmp/pa.txt" 2>/dev/null
    "$pms" script -i "$tmp/a.data" -F ip,sym,dso >"$tmp/ma.txt" 2>/dev/null
    # the lines of module IPs (a "[name]" dso other than the kernel's and [vdso]...)
    sel() { grep -E ' \(\[[^]]*\]\)$' "$1" | grep -Ev '\((\[kernel\.kallsyms\]|\[vdso\]|\[unknown\]|\[vsyscall\])\)$'; }
    n=$(sel "$tmp/pa.txt" | wc -l)
    if [ "$n" = 0 ]; then
      echo "SKIP (this machine): no module IP sampled in $(wc -l <"$tmp/pa.txt") samples"
    else
      paste -d'|' "$tmp/pa.txt" "$tmp/ma.txt" | awk -F'|' '$1 ~ /\(\[[^]]*\]\)$/ && $1 !~ /kernel\.kallsyms|vdso|unknown/ && $1 != $2' >"$tmp/d"
      echo "this machine: $n module IP samples, $(wc -l <"$tmp/d") differ from perf's"
      [ -s "$tmp/d" ] && { echo "FAIL: module IPs named otherwise than perf (perf|pmuscope):"; head "$tmp/d"; fail=1; }
    fi
  else
    echo "SKIP (this machine): perf record -a refused: $(head -1 "$tmp/e")"
  fi
fi
exit $fail
