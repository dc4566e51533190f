#!/usr/bin/env bash
# pmuscope events: built-in ARM table, --explain, --facts, Apple tables,
# catalogs from ../shared/data (skipped with a message when absent), per
# cluster catalogs on big.LITTLE, --json, errors.
set -u
cli=${1:?usage: events.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/fixtures/machines"
data="$top/../shared/data"
fail=0
skipped=0  # a part that cannot run here makes the whole test exit 77
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
unset PMUSCOPE_CATALOG PMUSCOPE_ROOT

bad() { echo "FAIL: $*"; fail=1; }
has() { # file text
  grep -qF -- "$2" "$1" || bad "expected '$2' in: $(head -c 600 "$1")"; }
pyjson() { # file python-assertions (d = the document)
  printf 'import json, sys\nd = json.load(open(sys.argv[1]))\n%s\n' "$2" >"$tmp/check.py"
  python3 "$tmp/check.py" "$1" 2>"$tmp/pyerr" || bad "$1: $(cat "$tmp/pyerr")"
}

"$cli" events --help >"$tmp/h" || bad "--help failed"
has "$tmp/h" "--explain"

# --explain: tier, block, PMCEID bit, and on an N1 what its PMU lists.
"$cli" --root "$fx/neoverse-n1-spe" events --explain 0x4005 >"$tmp/e" || bad "--explain failed"
has "$tmp/e" "0x4005 STALL_BACKEND_MEM: tier extension"
has "$tmp/e" "PMCEID0_EL0 bit 37"
has "$tmp/e" "here: armv8_pmuv3_0"
"$cli" events --explain 0x0008 --json >"$tmp/e.json" || bad "--explain --json failed"
pyjson "$tmp/e.json" '
assert d["name"] == "INST_RETIRED" and d["tier"] == "architectural" and d["architectural"]
assert d["pmceid_register"] == 0 and d["pmceid_bit"] == 8 and d["block"] == "common"'
"$cli" events --explain 0x1234 --json >"$tmp/e.json" || bad "--explain 0x1234 failed"
pyjson "$tmp/e.json" 'assert d["tier"] == "impdef" and d["name"] is None and d["pmceid_bit"] is None'
if "$cli" events --explain 0x10000 >"$tmp/o" 2>"$tmp/err"; then bad "--explain 0x10000 accepted"; fi
has "$tmp/err" "16-bit"
if "$cli" events --explain banana >"$tmp/o" 2>"$tmp/err"; then bad "--explain banana accepted"; fi
has "$tmp/err" "pmuscope: events:"

"$cli" events --facts >"$tmp/f" || bad "--facts failed"
has "$tmp/f" "config1:0"
has "$tmp/f" "EOPNOTSUPP"

# Built-in ARM table on an N1 machine: encodings on its PMU, availability from events/.
"$cli" --root "$fx/neoverse-n1-spe" events --json inst_retired >"$tmp/n1.json" || bad "events --json failed"
pyjson "$tmp/n1.json" '
e = {x["name"]: x for x in d["events"]}
i = e["INST_RETIRED"]
assert i["encoding"] == "armv8_pmuv3_0/event=0x8/" and i["tier"] == "architectural", i
assert i["available"] == "yes" and i["code"] == 8
assert d["count"] == len(d["events"])'

# Apple: the M4 renumbering by name, the 8-bit note.
"$cli" events --apple all >"$tmp/a" || bad "--apple all failed"
grep -Eq '^INST_ALL +0x8c +0x8c +0x8c +0x8 +0x8$' "$tmp/a" || bad "INST_ALL row: $(grep INST_ALL "$tmp/a")"
"$cli" events --apple as4-1 --json >"$tmp/a.json" || bad "--apple as4-1 failed"
pyjson "$tmp/a.json" '
e = {x["name"]: x for x in d["events"]}
assert e["INST_ALL"]["encoding"] == "event=0x8" and e["ARM_BR_MIS_PRED"]["code"] == 16
assert "0xFF" in e["L1D_CACHE_MISS_LD"]["note"] and e["INST_ALL"]["note"] is None'
if "$cli" events --apple m7 >"$tmp/o" 2>"$tmp/err"; then bad "--apple m7 accepted"; fi
has "$tmp/err" "as4-1"

if [ -d "$data" ]; then
  # A perfmon checkout, selected for Granite Rapids by the --root machine's cpuinfo.
  "$cli" --root "$fx/gnr-nosnc" events --catalog "$data/intel-perfmon" --pmu uncore_imc --json UNC_M_CAS_COUNT_SCH0.RD >"$tmp/g.json" \
    || bad "GNR perfmon catalog failed"
  pyjson "$tmp/g.json" '
e = {x["name"]: x for x in d["events"]}["UNC_M_CAS_COUNT_SCH0.RD"]
assert all(x["name"].startswith("UNC_M_CAS_COUNT_SCH0.RD") for x in d["events"])
assert e["encoding"] == "uncore_imc/event=0x5,umask=0xcf/", e
assert e["uncore"] and e["available"] == "yes"'
  # Hybrid names per core type, catalog from the environment variable.
  PMUSCOPE_CATALOG="$data/linux-pmu-events/tools/perf/pmu-events/arch/x86/alderlake/floating-point.json" \
    "$cli" events ARITH.FPDIV_ACTIVE >"$tmp/adl" || bad "ADL catalog failed"
  has "$tmp/adl" "cpu_core/event=0xb0,cmask=0x1,umask=0x1/"
  has "$tmp/adl" "cpu_atom/event=0xcd,umask=0x2/"
  # big.LITTLE: one ARM-software/data catalog per cluster PMU, by MIDR.
  "$cli" --root "$fx/arm-biglittle" events --catalog "$data/arm-software-data" --json INST_RETIRED >"$tmp/bl.json" \
    || bad "big.LITTLE catalogs failed"
  pyjson "$tmp/bl.json" '
enc = sorted(x["encoding"] for x in d["events"])
assert enc == ["armv8_cortex_a53/event=0x8/", "armv8_cortex_a72/event=0x8/"], enc
assert all("cortex-a53" in x["source"] or "cortex-a72" in x["source"] for x in d["events"])'
  # --cpu overrides the machine; an unknown MIDR is an error naming it.
  "$cli" events --catalog "$data/arm-software-data" --cpu 0x413fd0c1 l1d_cache_refill_rd >"$tmp/c" || bad "--cpu N1 failed"
  has "$tmp/c" "event=0x42"
  if "$cli" events --catalog "$data/arm-software-data" --cpu 0x41000000 >"$tmp/o" 2>"$tmp/err"; then bad "unknown MIDR accepted"; fi
  has "$tmp/err" "0x41000000"
else
  echo "SKIP: $data absent: catalog-directory checks not run"
  skipped=1
fi

# Malformed catalog: file, line and column in the error, exit 1.
printf '[\n {"EventName": "X",\n  "EventCode": ]\n' >"$tmp/bad.json"
if "$cli" events --catalog "$tmp/bad.json" >"$tmp/o" 2>"$tmp/err"; then bad "malformed catalog accepted"; fi
has "$tmp/err" "bad.json:3:"
if "$cli" events --bogus >"$tmp/o" 2>"$tmp/err"; then bad "--bogus accepted"; fi

# What could not be read is said (issue 32 item 7): one PMU whose files are
# malformed leaves the others listed and is named with its file; a tracefs
# the caller may not read is said (perf: "failed to open tracing events
# directory").
cp -r "$fx/adl-hybrid" "$tmp/adlroot"
"$cli" --root "$tmp/adlroot" events >"$tmp/good" 2>"$tmp/err" || bad "events on adl-hybrid failed"
[ -s "$tmp/err" ] && bad "events on an intact root wrote stderr: $(cat "$tmp/err")"
echo garbage >"$tmp/adlroot/sys/bus/event_source/devices/cstate_core/type"
"$cli" --root "$tmp/adlroot" events >"$tmp/o" 2>"$tmp/err" || bad "events with one bad PMU failed"
has "$tmp/err" "pmuscope: events: warning: PMU cstate_core not read"
has "$tmp/err" "cstate_core/type"
grep -q '^cstate_core/' "$tmp/o" && bad "events listed the unreadable PMU's events"
grep -v '^cstate_core/' "$tmp/good" | cmp -s - "$tmp/o" || bad "events with one bad PMU lost other rows: $(wc -l <"$tmp/good") -> $(wc -l <"$tmp/o") lines"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  mkdir -p "$tmp/tr/sys/kernel/tracing/events/sched/sched_switch"
  echo 316 >"$tmp/tr/sys/kernel/tracing/events/sched/sched_switch/id"
  chmod 700 "$tmp/tr/sys/kernel/tracing"; chmod 755 "$tmp" "$tmp/tr"
  runuser -u nobody -- "$cli" --root "$tmp/tr" events >"$tmp/o" 2>"$tmp/err" || bad "events with unreadable tracefs failed"
  has "$tmp/err" "tracepoints not listed: cannot open the tracing events directory"
  "$cli" --root "$tmp/tr" events >"$tmp/o" 2>"$tmp/err"
  grep -q 'sched:sched_switch' "$tmp/o" || bad "root: the tracepoint is not listed"
  [ -s "$tmp/err" ] && bad "root: stderr: $(cat "$tmp/err")"
fi

[ "$fail" = 0 ] && [ "$skipped" = 1 ] && exit 77
exit $fail
