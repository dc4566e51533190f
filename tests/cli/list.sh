#!/usr/bin/env bash
# pmuscope list: text and --json over the fixture machines, filtering, --help,
# and the plain "no hardware PMU" explanation on a machine without one.
set -u
cli=${1:?usage: list.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/fixtures/machines"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

bad() { echo "FAIL: $*"; fail=1; }

# --json parses and names the expected PMUs (with kind/engine) on every machine.
expect_json() { # machine pattern-or-"" python-assertions
  local m=$1 pat=$2 py=$3
  if ! "$cli" --root "$fx/$m" list $pat --json >"$tmp/$m.json" 2>"$tmp/err"; then
    bad "$m: list --json exited non-zero: $(cat "$tmp/err")"; return
  fi
  if ! python3 -m json.tool "$tmp/$m.json" >/dev/null 2>"$tmp/err"; then
    bad "$m: list --json is not JSON: $(cat "$tmp/err")"; return
  fi
  if ! python3 - "$tmp/$m.json" <<EOF 2>"$tmp/err"
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in d["pmus"]}
$py
EOF
  then bad "$m: $(cat "$tmp/err")"; fi
}

expect_json zen4-ibs "" '
assert d["hardware_pmu"] is True and d["note"] is None
assert p["cpu"]["kind"] == "core" and p["cpu"]["type"] == 4 and p["cpu"]["engine"] is None
assert p["ibs_op"]["engine"] == "ibs" and p["ibs_op"]["type"] == 10
assert p["ibs_fetch"]["engine"] == "ibs_fetch" and p["ibs_fetch"]["type"] == 9
assert p["ibs_op"]["caps"]["zen4_ibs_extensions"] == "1"
f = {x["name"]: x for x in p["ibs_op"]["formats"]}
assert f["swfilt"]["field"] == "config2" and f["swfilt"]["bits"] == "0"
assert f["ldlat"] == {"name": "ldlat", "field": "config1", "bits": "0-11", "width": 12, "mask": "0xfff"}
ev = {x["name"]: x for x in p["cpu"]["events"]}
assert ev["cpu-cycles"]["value"] == "event=0x76" and ev["cpu-cycles"]["unit"] is None
assert p["amd_l3"]["scope"] == "llc" and p["amd_df"]["cpus"] == "0,96"
assert p["amd_df"]["cpus_file"] == "cpumask"
assert len(p) == 20
'
expect_json adl-hybrid "" '
assert p["cpu_core"]["cpus"] == "0-7" and p["cpu_core"]["cpus_file"] == "cpus"
assert p["cpu_atom"]["cpus"] == "8-15" and p["cpu_atom"]["type"] == 10
assert p["cpu_core"]["engine"] == "pebs" and p["cpu_core"]["max_precise"] == 3
assert p["intel_pt"]["nr_addr_filters"] == 2
assert p["uncore_cbox_3"]["box"] == "uncore_cbox" and p["uncore_cbox_3"]["box_index"] == 3
assert p["uncore_cbox_3"]["scope"] == "package"
ev = {x["name"]: x for x in p["power"]["events"]}
assert ev["energy-pkg"]["unit"] == "Joules" and abs(ev["energy-pkg"]["scale"] - 2.3283064365386963e-10) < 1e-15
'
expect_json arm-biglittle "armv8_*" '
assert sorted(p) == ["armv8_cortex_a53", "armv8_cortex_a72"], sorted(p)
assert p["armv8_cortex_a53"]["cpus"] == "0-3" and p["armv8_cortex_a72"]["cpus"] == "4-5"
assert d["pattern"] == "armv8_*"
'
expect_json neoverse-n1-spe "" '
assert p["arm_spe_0"]["engine"] == "spe" and p["arm_spe_0"]["kind"] == "precise"
assert p["arm_cmn_0"]["kind"] == "uncore" and p["arm_dsu_0"]["scope"] == "cluster"
assert p["arm_dsu_1"]["cpus"] == "2" and p["arm_dsu_1"]["associated_cpus"] == "2-3"
assert p["arm_cmn_0"]["associated_cpus"] is None
assert p["armv8_pmuv3_0"]["kind"] == "core"
'
expect_json apple-m1 "apple" '
assert sorted(p) == ["apple_firestorm_pmu", "apple_icestorm_pmu"]
assert all(x["kind"] == "core" for x in p.values())
'
expect_json vm-nopmu "" '
assert d["hardware_pmu"] is False and d["hypervisor"] is True
assert "No hardware PMU is exposed" in d["note"], d["note"]
assert sorted(p) == ["breakpoint", "msr", "software", "tracepoint", "uprobe"]
'

# Text output: the ibs filter keeps exactly the two IBS PMUs.
out=$("$cli" --root "$fx/zen4-ibs" list ibs 2>&1) || bad "list ibs exited non-zero"
names=$(printf '%s\n' "$out" | grep -E '^[a-z]' | tr '\n' ' ')
[ "$names" = "ibs_fetch ibs_op " ] || bad "list ibs printed PMUs '$names'"
printf '%s\n' "$out" | grep -q 'precise: ibs$' || bad "list ibs: no engine shown"
printf '%s\n' "$out" | grep -q 'swfilt=config2:0' || bad "list ibs: no swfilt format shown"
printf '%s\n' "$out" | grep -q 'zen4_ibs_extensions=1' || bad "list ibs: no caps shown"

out=$("$cli" --root "$fx/adl-hybrid" list cpu_core 2>&1) || bad "list cpu_core exited non-zero"
printf '%s\n' "$out" | grep -q 'counts on CPUs 0-7, precise: pebs (max_precise 3)' ||
  bad "list cpu_core: $out"

# A pattern that matches nothing is an error, said on stderr.
if "$cli" --root "$fx/zen4-ibs" list nosuchpmu >"$tmp/out" 2>"$tmp/err"; then
  bad "list nosuchpmu exited 0"
fi
grep -q "no PMU name matches 'nosuchpmu'" "$tmp/err" || bad "list nosuchpmu: $(cat "$tmp/err")"

# The no-PMU explanation, on the VM fixture (and on this machine when it has none).
out=$("$cli" --root "$fx/vm-nopmu" list 2>&1) || bad "vm-nopmu list exited non-zero"
printf '%s\n' "$out" | grep -q 'No hardware PMU is exposed' || bad "vm-nopmu: no explanation"
printf '%s\n' "$out" | grep -q 'virtual machine' || bad "vm-nopmu: no VM hint"
printf '%s\n' "$out" | grep -q "hypervisor' flag" || bad "vm-nopmu: hypervisor flag not reported"
out=$("$cli" --root "$fx/zen4-ibs" list 2>&1)
printf '%s\n' "$out" | grep -q 'No hardware PMU' && bad "zen4: spurious no-PMU note"
out=$("$cli" list 2>&1) || bad "list on this machine exited non-zero: $out"
if ! ls /sys/bus/event_source/devices 2>/dev/null | grep -qE '^(cpu|cpu_core|cpu_atom|armv[89]_.*|apple_.*_pmu|ibs_op|arm_spe_[0-9]+)$'; then
  printf '%s\n' "$out" | grep -q 'No hardware PMU is exposed' ||
    bad "this machine has no core PMU but list does not say so"
fi
"$cli" list --json | python3 -m json.tool >/dev/null || bad "list --json on this machine"

# --help, bad options.
"$cli" list --help | grep -q 'usage: pmuscope \[--root DIR\] list' || bad "list --help"
"$cli" list --bogus >/dev/null 2>&1; [ $? -eq 2 ] || bad "list --bogus should exit 2"
"$cli" --help | grep -q '^  list ' || bad "list missing from pmuscope --help"

# A root that does not exist fails with the path in the message.
if "$cli" --root "$tmp/nope" list >/dev/null 2>"$tmp/err"; then bad "missing root exited 0"; fi
grep -q "pmuscope: .*$tmp/nope" "$tmp/err" || bad "missing root message: $(cat "$tmp/err")"

# scripts/capture-sysfs.sh: a capture replays to the same list, here and for a
# fixture (whose tree it must reproduce file for file).
cap="$top/scripts/capture-sysfs.sh"
if "$cap" "$tmp/live" >/dev/null 2>"$tmp/err"; then
  diff <("$cli" list --json | grep -v '"root"') \
       <("$cli" --root "$tmp/live" list --json | grep -v '"root"') >"$tmp/diff" ||
    bad "capture of this machine lists differently: $(head -20 "$tmp/diff")"
else
  bad "capture-sysfs.sh failed: $(cat "$tmp/err")"
fi
for m in neoverse-n1-spe adl-hybrid; do
  CAPTURE_SYSFS_SRC="$fx/$m" "$cap" "$tmp/cap-$m" >/dev/null 2>"$tmp/err" ||
    bad "capture of $m failed: $(cat "$tmp/err")"
  rm -f "$tmp/cap-$m/CAPTURE.txt"
  diff -r "$fx/$m" "$tmp/cap-$m" >"$tmp/diff" || bad "capture of $m differs: $(head "$tmp/diff")"
done
"$cap" "$tmp/live" >/dev/null 2>&1 && bad "capture-sysfs.sh overwrote an existing DIR"

exit $fail
