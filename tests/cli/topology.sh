#!/usr/bin/env bash
# pmuscope topology on the synthetic Granite Rapids fixtures (seed 003 shape)
# and on this machine.  $1 = the pmuscope binary.
set -u
cli=${1:?usage: topology.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=${PMS_FIXTURES:-$top/tests/fixtures}/machines
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

bad() { echo "FAIL: $*"; fail=1; }
expect() { # file pattern what
  grep -Eq -- "$2" "$1" || { bad "$3: no /$2/ in:"; head -40 "$1"; }
}

"$cli" topology --help >"$tmp/help" || bad "--help exit status"
expect "$tmp/help" "--json" "help mentions --json"

# SNC3: six nodes, CHA/IMC read on 0/120, 40/160, 80/200.
"$cli" --root "$fx/gnr-snc3" topology >"$tmp/snc3" 2>"$tmp/err" || bad "snc3 exit status"
expect "$tmp/snc3" "^SNC: +SNC3 \(distances agree\)" "snc3 summary"
expect "$tmp/snc3" "package 1: cpus 120-239, 1 die\(s\), 1 L3, nodes 3-5, SNC3" "snc3 package 1"
expect "$tmp/snc3" "^NUMA nodes: 6" "snc3 node count"
expect "$tmp/snc3" "uncore_cha_60 +package 0 node 1 +read on cpu 40 .*cha-split" "cha_60 socket 0"
expect "$tmp/snc3" "uncore_cha_60 +package 1 node 4 +read on cpu 160 " "cha_60 socket 1"
expect "$tmp/snc3" "uncore_imc_4 +package 1 node 5 +read on cpu 200 .*imc-table" "imc_4 socket 1"
expect "$tmp/snc3" "uncore_upi_0 +package 0 node all .*per-socket" "upi per socket"
readers=$(grep -E "uncore_(cha|imc)_" "$tmp/snc3" | sed -E 's/.*read on cpu ([0-9]+).*/\1/' | sort -n | uniq | tr '\n' ' ')
[ "$readers" = "0 40 80 120 160 200 " ] || bad "snc3 reader CPUs are '$readers'"

"$cli" --root "$fx/gnr-snc3" topology --json >"$tmp/snc3.json" || bad "snc3 --json exit status"
if command -v python3 >/dev/null; then
  python3 - "$tmp/snc3.json" <<'PY' || bad "snc3 JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["snc"] == 3 and len(d["nodes"]) == 6, d["snc"]
assert [p["snc"] for p in d["packages"]] == [3, 3]
assert d["nodes"][1]["distances"] == [12, 10, 12, 21, 21, 21]
cha = {(b["package"], b["reader_cpu"], b["node"]) for b in d["uncore"] if b["box"] == "uncore_cha"}
assert cha == {(0, 0, 0), (0, 40, 1), (0, 80, 2), (1, 120, 3), (1, 160, 4), (1, 200, 5)}, cha
assert all(b["kernel_cpu"] in (0, 120) for b in d["uncore"])
assert all(b["warning"] for b in d["uncore"] if b["how"] == "per-socket")
PY
else
  expect "$tmp/snc3.json" '"snc": 3' "snc3 JSON snc"
fi

"$cli" --root "$fx/gnr-snc2" topology >"$tmp/snc2" || bad "snc2 exit status"
expect "$tmp/snc2" "^SNC: +SNC2" "snc2 summary"
expect "$tmp/snc2" "uncore_cha_60 +package 1 node 3 +read on cpu 180 " "snc2 cha_60"

"$cli" --root "$fx/gnr-nosnc" topology >"$tmp/nosnc" || bad "nosnc exit status"
expect "$tmp/nosnc" "^SNC: +none" "nosnc summary"
grep -q "warning" "$tmp/nosnc" && bad "nosnc printed a warning"
grep -E "uncore_" "$tmp/nosnc" | grep -vEq "\(kernel cpumask [0-9]+, cpumask\)" && bad "nosnc moved a box"

# Errors: unknown argument exits 2, a root without sysfs exits 1 with the prefix.
"$cli" topology --bogus >/dev/null 2>&1; [ $? -eq 2 ] || bad "unknown argument exit status"
"$cli" --root "$tmp" topology >/dev/null 2>"$tmp/err"; [ $? -eq 1 ] || bad "empty root exit status"
expect "$tmp/err" "^pmuscope: topology: .*sys/devices/system/cpu" "empty root message"

# Fujitsu A64FX (issue 18: vendor was null): the N1 fixture with A64FX's
# implementer 0x46 and part 0x001 (arch/arm64/include/asm/cputype.h).
cp -r "$fx/neoverse-n1-spe" "$tmp/a64fx"
sed -i 's/^CPU implementer\t: 0x41/CPU implementer\t: 0x46/; s/^CPU part\t: 0xd0c/CPU part\t: 0x001/' "$tmp/a64fx/proc/cpuinfo"
for m in "$tmp"/a64fx/sys/devices/system/cpu/cpu*/regs/identification/midr_el1; do
  echo 0x00000000461f0010 >"$m"
done
"$cli" --root "$tmp/a64fx" topology --json >"$tmp/a64fx.json" 2>"$tmp/err" || { bad "a64fx topology"; cat "$tmp/err"; }
expect "$tmp/a64fx.json" '"vendor": "Fujitsu"' "A64FX vendor"
expect "$tmp/a64fx.json" '"A64FX"' "A64FX core name"

# This machine: must work and print JSON.
"$cli" topology --json >"$tmp/live.json" 2>"$tmp/err" || { bad "live topology"; cat "$tmp/err"; }
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ncpus"] > 0' "$tmp/live.json" || bad "live JSON"
fi
exit $fail
