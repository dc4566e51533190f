#!/usr/bin/env bash
# pmuscope datasrc: perf's data_src text for golden values (facts 2.3-2.4,
# 3.3, 5.3), the mem report columns, JSON, vendor raw words, and errors.
set -u
pms=${1:?usage: datasrc.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect() { # name, want, got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want: [$2]"; echo "  got:  [$3]"; fail=1
  fi
}

out=$("$pms" datasrc 0 0x540 1a29081042 0x183a00000040 0x7a00000080 0x0000010268100142 2>&1)
want=$(printf '%s\n' \
  "               0 |OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" \
  "             540 |OP No|LVL L1 or L2 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" \
  "      1a29081042 |OP LOAD|LVL RAM hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A" \
  "    183a00000040 |OP No|LVL Remote socket, same board RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" \
  "      7a00000080 |OP No|LVL Remote RAM miss|SNP Fwd|TLB N/A|LCK No|BLK  N/A" \
  "     10268100142 |OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A")
expect "script text" "$want" "$out"

# --dec: 2112 = 0x840
expect "decimal" "             840 |OP No|LVL L3 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" \
  "$("$pms" datasrc --dec 2112 2>&1)"

# columns keep perf's quirks: "PMEM " trailing space, " N/A" leading space
out=$("$pms" datasrc --columns 0x1c00000000 0xe00000040 0x60000000000 0x3000000 2>&1)
want=$(printf 'data_src\top\tMemory access\tSnoop\tTLB access\tLocked\tBlocked\n0x0000001c00000000\tNo\tPMEM \tN/A\tN/A\tNo\t N/A\n0x0000000e00000040\tNo\tUnknown level 7 hit\tN/A\tN/A\tNo\t N/A\n0x0000060000000000\tNo\tN/A\tN/A\tN/A\tNo\t Data Addr\n0x0000000003000000\tNo\tN/A\tN/A\tN/A\tN/A\t N/A')
expect "columns" "$want" "$out"

# vendor raw words
expect "ibs-op zen4 DRAM" "      1a29081042 |OP LOAD|LVL RAM hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A" \
  "$("$pms" datasrc --ibs-op 0x3,0x120081 2>&1)"
expect "ibs-op pre-zen4 HitM" "     81629808842 |OP LOAD|LVL core, same node Any cache hit|SNP HitM|TLB L1 hit|LCK N/A|BLK  N/A" \
  "$("$pms" datasrc --ibs-op 2,0x120081,0x17,0x31,0 2>&1)"
expect "pebs skx" "     17668000042 |OP LOAD|LVL Remote Any cache hit|SNP Fwd|TLB L1 or L2 hit|LCK No|BLK  N/A" \
  "$("$pms" datasrc --pebs skx:0xc 2>&1)"
expect "pebs stlat" "     10468100444 |OP STORE|LVL L2 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" \
  "$("$pms" datasrc --pebs glc:3:store 2>&1)"
expect "spe" "      8490080442 |OP LOAD|LVL L2 hit|SNP N/A or Peer|TLB Walker miss|LCK No|BLK  N/A" \
  "$("$pms" datasrc --spe 0x410fd0c0:9:ld:0x30 2>&1)"

# JSON
"$pms" datasrc --json 0x3c00000080 --pebs pnc:0x11f >"$tmp/j" 2>&1 || { echo "FAIL: --json exit"; fail=1; }
for s in '"value": "0x0000003c00000080"' '"mem": "Remote PMEM miss"' '"blocked": " N/A"' \
         '"memory": "PMEM"' '"lvl_num": 14' '"remote": 1' '"input": "pnc:0x11f"' '"region": 15'; do
  grep -Fq "$s" "$tmp/j" || { echo "FAIL: json lacks $s"; cat "$tmp/j"; fail=1; }
done
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["values"])==2' "$tmp/j" \
    || { echo "FAIL: json does not parse or has the wrong count"; fail=1; }
fi

# errors: exit 1, nothing on stdout, the message names the bad argument
for bad in xyz 0x 12345678901234567 1g; do
  if "$pms" datasrc 0x40 "$bad" >"$tmp/o" 2>"$tmp/e"; then echo "FAIL: '$bad' exited 0"; fail=1; fi
  "$pms" datasrc 0x40 "$bad" >/dev/null 2>&1; rc=$?
  [ $rc -eq 1 ] || { echo "FAIL: '$bad' exit $rc, want 1"; fail=1; }
  [ -s "$tmp/o" ] && { echo "FAIL: stdout not empty for '$bad'"; fail=1; }
  grep -Fq "'$bad'" "$tmp/e" || { echo "FAIL: message does not name '$bad': $(cat "$tmp/e")"; fail=1; }
done
"$pms" datasrc --pebs bogus:1 >/dev/null 2>"$tmp/e"; [ $? -eq 1 ] || { echo "FAIL: bad --pebs exit"; fail=1; }
grep -Fq "'bogus:1'" "$tmp/e" || { echo "FAIL: --pebs message: $(cat "$tmp/e")"; fail=1; }
"$pms" datasrc --ibs-op 1 >/dev/null 2>"$tmp/e"; [ $? -eq 1 ] || { echo "FAIL: bad --ibs-op exit"; fail=1; }
grep -Fq "'1'" "$tmp/e" || { echo "FAIL: --ibs-op message: $(cat "$tmp/e")"; fail=1; }

"$pms" datasrc --help | grep -q "usage: pmuscope datasrc" || { echo "FAIL: --help"; fail=1; }
"$pms" datasrc >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: no args should exit 2"; fail=1; }
"$pms" datasrc --bogus 1 >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad option should exit 2"; fail=1; }
# a dash word is an option (usage error, named), not a value
"$pms" datasrc 0x40 -5 >/dev/null 2>"$tmp/e"; [ $? -eq 2 ] || { echo "FAIL: '-5' should exit 2"; fail=1; }
grep -Fq "'-5'" "$tmp/e" || { echo "FAIL: message does not name '-5': $(cat "$tmp/e")"; fail=1; }
"$pms" --help | grep -q "datasrc" || { echo "FAIL: datasrc not in the command list"; fail=1; }
exit $fail
