#!/usr/bin/env bash
# pmuscope encode: event strings -> attrs on the fixture machines, text and
# JSON, and errors that quote the event and the column.
set -u
pms=${1:?usage: encode.sh PMUSCOPE}
m=$(cd "$(dirname "$0")/../fixtures/machines" && pwd)
fail=0
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

"$pms" encode --help | grep -q "usage: pmuscope" || { echo "FAIL: --help"; fail=1; }
"$pms" encode >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: no args should exit 2"; fail=1; }
"$pms" encode --bogus x >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad option should exit 2"; fail=1; }
exit $fail
