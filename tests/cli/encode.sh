#!/usr/bin/env bash
# pmuscope encode: event strings -> attrs on the fixture machines, text and
# JSON, and errors that quote the event and the column.
set -u
pms=${1:?usage: encode.sh PMUSCOPE}
m=$(cd "$(dirname "$0")/../fixtures/machines" && pwd)
fail=0
skipped=0  # a part that cannot run here makes the whole test exit 77
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect() { # name, want-file-content, got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want: $2"; echo "  got:  $3"; fail=1
  fi
}

out=$("$pms" --root "$m/adl-hybrid" encode cycles:u 'cpu_core/mem-loads,ldlat=30/pp' 2>&1)
want=$(printf '%s\n' \
  "cycles:u	cpu_atom	type=0,config=0xa00000000,exclude_kernel,exclude_hv	cpus=8-15" \
  "cycles:u	cpu_core	type=0,config=0x400000000,exclude_kernel,exclude_hv	cpus=0-7" \
  "cpu_core/mem-loads,ldlat=30/pp	cpu_core	type=4,config=0x1cd,config1=0x1e,precise_ip=2	cpus=0-7")
expect "adl-hybrid text" "$want" "$out"

out=$("$pms" --root "$m/zen4-ibs" encode '{cycles,instructions}:W' 2>&1)
want=$(printf '%s\n' \
  "cycles	cpu	type=0,config=0x0	cpus=all	group=0 leader weak" \
  "instructions	cpu	type=0,config=0x1	cpus=all	group=0")
expect "zen4 group" "$want" "$out"

out=$("$pms" --root "$m/zen4-ibs" encode energy-pkg 2>&1)
expect "scale/unit" "energy-pkg	power	type=8,config=0x2	cpus=0,96	scale=2.32831e-10 unit=Joules" "$out"

"$pms" --root "$m/arm-biglittle" encode --json cpu_cycles:k >"$tmp/j" 2>&1 || { echo "FAIL: --json exit"; fail=1; }
for s in '"pmu": *"armv8_cortex_a53"' '"pmu": *"armv8_cortex_a72"' '"type": *9' '"config": *17' \
         '"cpus": *"4-5"' '"attr": *"type=8,config=0x11,exclude_user,exclude_hv"'; do
  grep -Eq "$s" "$tmp/j" || { echo "FAIL: json lacks $s"; cat "$tmp/j"; fail=1; }
done
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["events"])==2' "$tmp/j" \
    || { echo "FAIL: json does not parse or has the wrong count"; fail=1; }
fi

# errors: exit 1, nothing on stdout, the message quotes the event and column
if "$pms" --root "$m/zen4-ibs" encode cycles 'cpu/umask=0x100/' >"$tmp/o" 2>"$tmp/e"; then
  echo "FAIL: bad event exited 0"; fail=1
fi
[ -s "$tmp/o" ] && { echo "FAIL: stdout not empty on error"; fail=1; }
expect "error text" \
  "pmuscope: encode: event 'cpu/umask=0x100/': value 0x100 does not fit term 'umask' (config:8-15, 8 bits) at column 5" \
  "$(cat "$tmp/e")"

# catalog names: the built-in ARM PMUv3 table by default on arm64, where
# sysfs has no alias (neither cluster lists l1d_tlb_refill); sysfs wins
out=$(env -u PMUSCOPE_CATALOG "$pms" --root "$m/arm-biglittle" encode l1d_tlb_refill:u armv8_cortex_a72/l1d_tlb_refill/ 2>&1)
want=$(printf '%s\n' \
  "l1d_tlb_refill:u	armv8_cortex_a53	type=8,config=0x5,exclude_kernel,exclude_hv	cpus=0-3" \
  "l1d_tlb_refill:u	armv8_cortex_a72	type=9,config=0x5,exclude_kernel,exclude_hv	cpus=4-5" \
  "armv8_cortex_a72/l1d_tlb_refill/	armv8_cortex_a72	type=9,config=0x5	cpus=4-5")
expect "arm built-in catalog" "$want" "$out"
env -u PMUSCOPE_CATALOG "$pms" --root "$m/neoverse-n1-spe" encode arm_cmn_0/l1d_tlb_refill/ >"$tmp/o" 2>"$tmp/e" \
  && { echo "FAIL: core catalog event on arm_cmn_0 exited 0"; fail=1; }
expect "wrong PMU kind" \
  "pmuscope: encode: event 'arm_cmn_0/l1d_tlb_refill/': catalog event 'l1d_tlb_refill' is for a core PMU, not for uncore PMU 'arm_cmn_0'; write it bare or on its own PMU at column 11" \
  "$(cat "$tmp/e")"
# x86 without a catalog: catalog names stay unknown
env -u PMUSCOPE_CATALOG "$pms" --root "$m/adl-hybrid" encode ARITH.FPDIV_ACTIVE >/dev/null 2>"$tmp/e" \
  && { echo "FAIL: catalog name without a catalog exited 0"; fail=1; }
grep -q "unknown event 'ARITH.FPDIV_ACTIVE'.* at column 1" "$tmp/e" || { echo "FAIL: unknown event text"; cat "$tmp/e"; fail=1; }
"$pms" --root "$m/zen4-ibs" encode --catalog /nonexistent/catalog cycles >"$tmp/o" 2>"$tmp/e" \
  && { echo "FAIL: missing catalog exited 0"; fail=1; }
grep -q "^pmuscope: encode: catalog /nonexistent/catalog: " "$tmp/e" || { echo "FAIL: missing catalog text"; cat "$tmp/e"; fail=1; }

data="$(cd "$(dirname "$0")/../.." && pwd)/../shared/data"
if [ -d "$data/intel-perfmon" ] && [ -d "$data/arm-software-data" ]; then
  # hybrid: one name, each core PMU's own code (perfmon ADL: 0xb0/0x1 cmask 1 on
  # Golden Cove, 0xcd/0x2 on Gracemont); --catalog, then $PMUSCOPE_CATALOG
  want=$(printf '%s\n' \
    "ARITH.FPDIV_ACTIVE	cpu_atom	type=10,config=0x2cd	cpus=8-15" \
    "ARITH.FPDIV_ACTIVE	cpu_core	type=4,config=0x10001b0	cpus=0-7")
  out=$("$pms" --root "$m/adl-hybrid" encode --catalog "$data/intel-perfmon" ARITH.FPDIV_ACTIVE 2>&1)
  expect "adl --catalog" "$want" "$out"
  out=$(PMUSCOPE_CATALOG="$data/intel-perfmon" "$pms" --root "$m/adl-hybrid" encode ARITH.FPDIV_ACTIVE 2>&1)
  expect "adl \$PMUSCOPE_CATALOG" "$want" "$out"
  # big.LITTLE: each cluster's ARM-software/data file by its MIDR; LD_RETIRED
  # (0x06) is an A53 event only, L1D_CACHE_RD (0x40) an A72 one
  out=$("$pms" --root "$m/arm-biglittle" encode --catalog "$data/arm-software-data" LD_RETIRED L1D_CACHE_RD 2>&1)
  want=$(printf '%s\n' \
    "LD_RETIRED	armv8_cortex_a53	type=8,config=0x6	cpus=0-3" \
    "L1D_CACHE_RD	armv8_cortex_a72	type=9,config=0x40	cpus=4-5")
  expect "big.LITTLE per-cluster catalog" "$want" "$out"
  "$pms" --root "$m/arm-biglittle" encode --catalog "$data/arm-software-data" armv8_cortex_a72/LD_RETIRED/ 2>"$tmp/e" >/dev/null \
    && { echo "FAIL: A53-only event on the A72 exited 0"; fail=1; }
  grep -q "catalog event 'LD_RETIRED' is for PMU 'armv8_cortex_a53', not for core PMU 'armv8_cortex_a72'" "$tmp/e" \
    || { echo "FAIL: wrong-cluster text"; cat "$tmp/e"; fail=1; }
  # a catalog for another CPU: the mapfile has no row for the Zen 4 fixture
  "$pms" --root "$m/zen4-ibs" encode --catalog "$data/intel-perfmon" cycles >/dev/null 2>"$tmp/e" \
    && { echo "FAIL: catalog without a row for the CPU exited 0"; fail=1; }
  grep -q "^pmuscope: encode: catalog $data/intel-perfmon: .*AuthenticAMD-25-11" "$tmp/e" \
    || { echo "FAIL: no-row text"; cat "$tmp/e"; fail=1; }
  # --json carries per_pkg (false for a core event; the uncore case is in
  # tests/event/test_catalog.c, as no fixture's IMC boxes have format/)
  "$pms" --root "$m/adl-hybrid" encode --json --catalog "$data/intel-perfmon" ARITH.FPDIV_ACTIVE >"$tmp/j"
  grep -Eq '"per_pkg": *false' "$tmp/j" || { echo "FAIL: json lacks per_pkg"; cat "$tmp/j"; fail=1; }
else
  echo "SKIP: $data absent: catalog rows on intel-perfmon / arm-software-data not run"
  skipped=1
fi

"$pms" encode --help | grep -q "usage: pmuscope" || { echo "FAIL: --help"; fail=1; }
# Arm PMUv3 generic events: what arm_pmuv3.c programs (armv8_pmuv3_perf_map,
# PMCEID from events/, the BR_RETIRED -> PC_WRITE_RETIRED fallback, the
# A53/A57 extra cache maps); the fake-kernel agreement is tests/count/test_pmuv3.c
out=$("$pms" --root "$m/arm-biglittle" encode branches L1-dcache-prefetch-misses ref-cycles 2>&1 | cut -f1,2,5)
want=$(printf '%s\n' \
  "branches	armv8_cortex_a53	programs=0x000c PC_WRITE_RETIRED (branch-instructions fallback: PC_WRITE_RETIRED (PMCEID lacks BR_RETIRED))" \
  "branches	armv8_cortex_a72	programs=0x000c PC_WRITE_RETIRED (branch-instructions fallback: PC_WRITE_RETIRED (PMCEID lacks BR_RETIRED))" \
  "L1-dcache-prefetch-misses	armv8_cortex_a53	programs=0x00c2 (armv8_a53_perf_cache_map)" \
  "L1-dcache-prefetch-misses	armv8_cortex_a72	programs=none (ENOENT: neither armv8_pmuv3_perf_cache_map nor the core's extra cache map has it)" \
  "ref-cycles	armv8_cortex_a53	programs=none (ENOENT: armv8_pmuv3_perf_map has no event for it)" \
  "ref-cycles	armv8_cortex_a72	programs=none (ENOENT: armv8_pmuv3_perf_map has no event for it)")
expect "pmuv3 generic map (biglittle)" "$want" "$out"
out=$("$pms" --root "$m/neoverse-n1-spe" encode branches cycles 2>&1 | cut -f1,5)
want=$(printf '%s\n' \
  "branches	programs=0x0021 BR_RETIRED (branch-instructions: BR_RETIRED (PMCEID has it))" \
  "cycles	programs=0x0011 CPU_CYCLES (armv8_pmuv3_perf_map)")
expect "pmuv3 generic map (n1)" "$want" "$out"
"$pms" --root "$m/neoverse-n1-spe" encode --json dTLB-load-misses >"$tmp/j" 2>&1
for s in '"supported": *false' '"errno": *"ENOENT"' '"pmceid_known": *true'; do
  grep -Eq "$s" "$tmp/j" || { echo "FAIL: pmuv3 json lacks $s"; cat "$tmp/j"; fail=1; }
done

"$pms" encode --help | grep -q -- "--catalog PATH" || { echo "FAIL: --help lacks --catalog"; fail=1; }
"$pms" encode >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: no args should exit 2"; fail=1; }
"$pms" encode --bogus x >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad option should exit 2"; fail=1; }
[ "$fail" = 0 ] && [ "$skipped" = 1 ] && exit 77
exit $fail
