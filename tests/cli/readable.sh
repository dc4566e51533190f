#!/usr/bin/env bash
# Output people can read (issue 18): human sizes, per-node memory size and
# free memory in topology (as numactl -H), no trailing spaces anywhere, the
# engine line without "software software".
set -u
pms=${1:?usage: readable.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/machines
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

"$pms" topology >"$tmp/t" || bad "topology exit"
# L3 sizes, where the kernel gives one (some VMs expose no cpu*/cache at all:
# then topology has no L3 line to check, and says "0 L3")
if grep -qs '^3$' /sys/devices/system/cpu/cpu0/cache/index*/level; then
  grep -Eq '^  L3 #[0-9]+: [0-9.]+ (KiB|MiB|GiB), cpus' "$tmp/t" || bad "L3 size not human: $(grep L3 "$tmp/t")"
else
  echo "note: this kernel exposes no L3 in /sys/devices/system/cpu/cpu0/cache; the L3 size check is not run"
  grep -q ', 0 L3, ' "$tmp/t" || bad "no L3 in sysfs but topology does not say 0 L3: $(grep package "$tmp/t")"
fi
grep -Eq '[0-9]{6,} (KiB|bytes)' "$tmp/t" && bad "raw byte counts: $(grep -E '[0-9]{6,} (KiB|bytes)' "$tmp/t")"
# per node: size and free, checked against the kernel's nodeN/meminfo (numactl -H reads the same)
for m in /sys/devices/system/node/node[0-9]*/meminfo; do
  [ -r "$m" ] || continue
  n=$(basename "$(dirname "$m")"); n=${n#node}
  kb=$(awk '/MemTotal:/ { print $4 }' "$m")
  line=$(grep "^  node $n:" "$tmp/t")
  echo "$line" | grep -Eq "size [0-9.]+ (MiB|GiB|TiB), free [0-9.]+ (KiB|MiB|GiB|TiB)" || bad "node $n sizes: $line"
  "$pms" topology --json >"$tmp/tj"
  python3 - "$tmp/tj" "$n" "$kb" <<'PY' || bad "node $n mem_total_bytes differs from meminfo"
import json, sys
d = json.load(open(sys.argv[1]))
node = [x for x in d["nodes"] if x["id"] == int(sys.argv[2])][0]
assert node["mem_total_bytes"] == int(sys.argv[3]) * 1024, node
assert 0 < node["mem_free_bytes"] <= node["mem_total_bytes"], node
PY
  if command -v numactl >/dev/null; then
    mb=$(numactl -H | awk -v n="$n" '$1 == "node" && $2 == n && $3 == "size:" { print $4 }')
    [ -z "$mb" ] || [ "$mb" = $((kb / 1024)) ] || bad "numactl says node $n size $mb MB, meminfo $((kb / 1024))"
  fi
done
# no trailing spaces: topology on every fixture machine, list, events, mem, stat
for m in "$fx"/*/; do
  "$pms" --root "$m" topology >"$tmp/o" 2>&1
  grep -q ' $' "$tmp/o" && bad "trailing spaces in topology of $(basename "$m")"
done
for c in "list" "events" "mem --size 1M --quiet" "topology" "datasrc 0x1 0x68100142" "help" "help stat"; do
  $pms $c >"$tmp/o" 2>/dev/null
  grep -q ' $' "$tmp/o" && bad "trailing spaces in '$c': $(grep -n ' $' "$tmp/o" | head -3)"
done
"$pms" stat -e task-clock,page-faults -- true 2>"$tmp/o"
grep -q ' $' "$tmp/o" && bad "trailing spaces in stat"
# the engine line says each thing once
"$pms" mem --size 1M --quiet >"$tmp/m"
grep -q 'software  *software' "$tmp/m" && bad "engine lines repeat 'software': $(grep software "$tmp/m" | head -3)"
exit $fail
