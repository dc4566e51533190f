#!/usr/bin/env bash
# Kernel IPs of files recorded on this kernel (the file lists the running
# kernel's build id) named from this machine's proc/kallsyms as perf 6.12
# names them (issue 30 item 4):
#  1. script -F ip,sym against perf script -F ip,sym on a cpu-clock
#     recording of syscall-heavy work: every kernel sample both name has
#     the same name (aliases at one address: perf takes the last line;
#     data lines end functions; src/symbols/kallsyms.h);
#  2. c2c -i of a page-fault recording with faults taken in the kernel
#     (read() into fresh pages): each kernel IP c2c lists is named as
#     script/report name it (and as perf does), not [kernel].
set -u
pms=${1:?usage: kernel_names.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: kernel symbols need root here" >&2; exit 77; }
# kernel names need kallsyms addresses and the kernel's build id
if ! awk 'NR == 1 { exit ($1 ~ /^0+$/) }' /proc/kallsyms || [ ! -r /sys/kernel/notes ]; then
  echo "SKIP: kallsyms hides addresses or no kernel notes" >&2; exit 77
fi

work='for i in $(seq 150); do cat /proc/self/status /proc/self/maps >/dev/null; done;
      dd if=/dev/zero of=/dev/null bs=64k count=3000 2>/dev/null'
if ! perf record -q -e cpu-clock -c 20000 -o "$tmp/cpu.data" -- sh -c "$work" \
     >/dev/null 2>"$tmp/e"; then
  echo "SKIP: perf record refused: $(head -2 "$tmp/e")" >&2; exit 77
fi
# dd reads /dev/zero into a fresh buffer: the kernel's clear_user faults
perf record -q -e page-faults -c 1 -d -o "$tmp/pf.data" -- \
  dd if=/dev/zero of=/dev/null bs=4M count=2 >/dev/null 2>"$tmp/e" || {
  echo "FAIL: perf record -e page-faults -d: $(head -2 "$tmp/e")"; exit 1; }

for f in cpu pf; do
  perf script -i "$tmp/$f.data" -F ip,sym >"$tmp/$f.perf" 2>/dev/null </dev/null ||
    { echo "FAIL: perf script $f"; fail=1; }
  "$pms" script -i "$tmp/$f.data" -F ip,sym >"$tmp/$f.pms" 2>"$tmp/$f.err" </dev/null ||
    { echo "FAIL: pmuscope script $f: $(head -2 "$tmp/$f.err")"; fail=1; }
done
PMS_NO_DAMON=1 "$pms" c2c --json --all -i "$tmp/pf.data" >"$tmp/c2c.json" 2>"$tmp/c2c.err" ||
  { echo "FAIL: c2c -i: $(head -2 "$tmp/c2c.err")"; fail=1; }

python3 - "$tmp" <<'EOF' || fail=1
import json, sys
tmp = sys.argv[1]
def names(path):
    """ip -> the set of names given to it (kernel IPs only)"""
    out = {}
    for l in open(path):
        p = l.split()
        if not p or not p[0].startswith("ffff"):
            continue
        out.setdefault(int(p[0], 16), set()).add(p[1] if len(p) > 1 else "[unknown]")
    return out
# the kept kallsyms lines (perf's types), for the count of IPs in a
# function with aliases (several lines at its address)
import bisect, collections
ks = []
for l in open("/proc/kallsyms"):
    p = l.split()
    if len(p) == 3 and p[1] in "tTwWdDbBulN" and int(p[0], 16):
        ks.append(int(p[0], 16))
ks.sort()
many = {a for a, n in collections.Counter(ks).items() if n > 1}
ok = True
for f in ("cpu", "pf"):
    perf, pms = names(f"{tmp}/{f}.perf"), names(f"{tmp}/{f}.pms")
    both = [ip for ip in perf if ip in pms and "[unknown]" not in perf[ip]]
    diff = [(hex(ip), perf[ip], pms[ip]) for ip in both if perf[ip] != pms[ip]]
    alias = sum(1 for ip in both if (i := bisect.bisect_right(ks, ip)) and ks[i - 1] in many)
    print(f"{f}: {len(perf)} kernel IPs in perf script, {len(both)} named by both "
          f"({alias} in a function with aliases), {len(diff)} differ")
    if diff or not both:
        print("FAIL:", f, "script names differ from perf's:", diff[:10])
        ok = False
    if f == "pf":
        script = pms
# c2c: its kernel IPs named as script (and report) name them
d = json.load(open(f"{tmp}/c2c.json"))
acc = [a for l in d["lines"] for a in l["offsets"] if a["kernel"] and a.get("ip")]
bad = [(a["ip"], a["function"], script.get(int(a["ip"], 16))) for a in acc
       if {a["function"]} != script.get(int(a["ip"], 16), {"?"})]
print(f"c2c: {len(acc)} kernel IPs listed, {len(bad)} named otherwise than script")
if not acc or bad:
    print("FAIL: c2c kernel names:", bad[:10])
    ok = False
sys.exit(0 if ok else 1)
EOF
exit $fail
