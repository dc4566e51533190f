#!/usr/bin/env bash
# pmuscope report: usage errors, the `pmuscope mem` report layout for a
# recorded file, and (with ../shared/data) the weight_struct numbers: levels
# in perf's "Memory access" text, latency percentiles, nodes.
set -u
pms=${1:?usage: report.sh PMUSCOPE}
fail=0
skipped=0  # a part that cannot run here makes the whole test exit 77
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect() { # name, want, got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want: [$2]"; echo "  got:  [$3]"; fail=1
  fi
}

"$pms" report --help >/dev/null; expect "--help exit" 0 $?
"$pms" report --top 0 >/dev/null 2>&1; expect "bad --top exit" 2 $?
"$pms" report -i "$tmp/none" >/dev/null 2>"$tmp/err"; expect "missing file exit" 1 $?
grep -q "^pmuscope: report: " "$tmp/err" || { echo "FAIL: missing file message"; fail=1; }

# Top IPs named from MMAP2 + the binaries here, against perf script's sym
# for the same IPs (aliases such as malloc/__libc_malloc differ, so most,
# not all, must agree).  Needs a perf that can record here.
export HOME=$tmp PERF_CONFIG=/dev/null
if perf record -q -e task-clock -c 100000 -o "$tmp/loop.data" -- \
     bash -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' >/dev/null 2>&1 </dev/null; then
  "$pms" report -i "$tmp/loop.data" >"$tmp/rep" 2>&1; expect "recorded report exit" 0 $?
  perf script --force -F ip,sym -i "$tmp/loop.data" 2>/dev/null </dev/null | awk '{print $1, $2}' | sort -u >"$tmp/psym"
  same=0; named=0
  while read -r ip _ _ _ sym _; do
    [ -n "$sym" ] || continue
    named=$((named + 1))
    want=$(awk -v ip="${ip#0x}" '$1 == ip {print $2; exit}' "$tmp/psym")
    [ "${sym%%+0x*}" = "$want" ] && same=$((same + 1))
  done < <(sed -n '/^top instructions by samples (/,/^$/p' "$tmp/rep" | tail -n +3 \
             | awk 'NF >= 6 && $6 != "[unknown]" {print $5, "-", "-", "-", $6}')
  [ "$named" -ge 8 ] && [ "$same" -ge 4 ] || { echo "FAIL: named top IPs: $named named, $same as perf"; cat "$tmp/rep"; fail=1; }
  # The same file as a pipe-mode stream (perf inject writes one): the same
  # report, the attrs and features arriving as records before the samples.
  if perf inject -i "$tmp/loop.data" -o - >"$tmp/loop.pipe" 2>/dev/null </dev/null && command -v python3 >/dev/null; then
    a=$("$pms" report --json -i "$tmp/loop.data" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["samples"]["total"], d["engine"]["name"], d["top"]["functions_by_samples"][1]["name"], d["target"]["pipe_mode"])')
    b=$("$pms" report --json -i - <"$tmp/loop.pipe" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["samples"]["total"], d["engine"]["name"], d["top"]["functions_by_samples"][1]["name"], d["target"]["pipe_mode"])')
    expect "pipe mode report" "${a% False} True" "$b"
  fi
else
  echo "SKIP: perf cannot record here; top-IP names not compared"
  skipped=1
fi

# A recorded arm_spe file (fuzz seed; docs/spe.md): 4 load/store samples
# from the AUX trace, the record cut by its chunk's end counted.
seeds=$(dirname "$0")/../fuzz/corpus/auxtrace
"$pms" report -i "$seeds/spe_v1_n1.data" --json >"$tmp/spe.json" 2>&1
grep -q '"aux_cut_records": *1' "$tmp/spe.json" || { echo "FAIL: spe report aux_cut_records"; cat "$tmp/spe.json"; fail=1; }
"$pms" report -i "$seeds/spe_v1_n1.data" >"$tmp/spe.txt" 2>&1
grep -q "^samples: 4 (4 with a data address)" "$tmp/spe.txt" || { echo "FAIL: spe report samples"; cat "$tmp/spe.txt"; fail=1; }
grep -q "RAM hit  *2  50.0%" "$tmp/spe.txt" || { echo "FAIL: spe report levels"; cat "$tmp/spe.txt"; fail=1; }
# A Zen 4 ibs_op file recorded with RAW only: the data source comes from the
# registers (docs/ibs.md).
"$pms" report -i "$seeds/ibs_zen4.data" >"$tmp/ibs.txt" 2>&1
grep -q "Remote node, same socket RAM hit  *1" "$tmp/ibs.txt" || { echo "FAIL: ibs report levels"; cat "$tmp/ibs.txt"; fail=1; }
grep -q "latency (cycles, 1 samples with a valid weight): min 200" "$tmp/ibs.txt" || { echo "FAIL: ibs report latency"; cat "$tmp/ibs.txt"; fail=1; }

data=${PMS_SHARED_DATA:-$(dirname "$0")/../../../shared/data}
ws=$data/perf_data_converter/src/quipper/testdata/perf.data.weight_struct
if [ ! -r "$ws" ]; then
  echo "SKIP: ../shared/data absent; only the error paths were checked"
  skipped=1
  [ $fail = 0 ] && exit 77 || exit 1
fi

"$pms" report -i "$ws" >"$tmp/out" 2>&1; expect "exit" 0 $?
# the file as an operand (issue 21), the same report and script as -i
"$pms" report "$ws" >"$tmp/pos" 2>&1; expect "report FILE exit" 0 $?
cmp -s "$tmp/out" "$tmp/pos" || { echo "FAIL: report FILE differs from report -i FILE"; fail=1; }
expect "script FILE" "$("$pms" script -i "$ws" | md5sum)" "$("$pms" script "$ws" | md5sum)"
# -i and operands both name input files: two give one merged report
"$pms" report --json -i "$ws" "$ws" >"$tmp/two.json" 2>/dev/null; expect "-i and FILE exit" 0 $?
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["samples"]["total"] == 28 else 1)' "$tmp/two.json" \
  || { echo "FAIL: report -i F F is not the merge of both (28 samples)"; fail=1; }
"$pms" script "$ws" "$ws" >/dev/null 2>&1; expect "two FILEs exit" 2 $?
grep -q "^pmuscope report: .*perf.data.weight_struct (file mode, 12964 records, 0 skipped)" "$tmp/out" \
  || { echo "FAIL: title"; cat "$tmp/out"; fail=1; }
grep -q "^samples: 14 (14 with a data address); lost 0 in 0 records, lost samples 0, throttled 0, dropped 0$" "$tmp/out" \
  || { echo "FAIL: totals"; cat "$tmp/out"; fail=1; }
expect "levels" "LFB/MAB hit 5
L1 hit 4
L3 hit 4
L2 hit 1" "$(sed -n '/^data source levels (/,/^$/p' "$tmp/out" | awk 'NR>1 && NF && $1 != "level" {n=NF-2; s=$1; for(i=2;i<=n;i++) s=s" "$i; print s, $(n+1)}')"
grep -q "^latency (cycles, 14 samples with a valid weight): min 70  median 89  p90 240  p99 249  max 249$" "$tmp/out" \
  || { echo "FAIL: percentiles"; fail=1; }
grep -q "^  nodes unavailable: no event samples PHYS_ADDR" "$tmp/out" || { echo "FAIL: nodes reason"; fail=1; }
# the same sections as pmuscope mem's text
for p in "^engine: " "^data source levels \\(% of all" "^NUMA nodes of sampled data" "^CPU node x memory node" \
         "^top instructions by samples \\(% of all" "^top functions by samples" "^top data objects \\(% of the"; do
  grep -Eq "$p" "$tmp/out" || { echo "FAIL: no /$p/"; fail=1; }
done

if command -v python3 >/dev/null; then
  got=$("$pms" report --json -i "$ws" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["samples"]["total"], sum(l["samples"] for l in d["data_source"]["levels"]), d["latency"]["median"],
      d["latency"]["p90"], d["latency"]["p99"], d["numa"]["resolved"], d["numa"]["nodes_unavailable"][:21],
      len(d["top"]["instructions_by_samples"]), d["target"]["kind"], d["data_source"]["available"])
' 2>&1)
  expect "json" "14 14 89 240 249 0 no event samples PHYS 10 file True" "$got"
  # --samples: every sample, with the weights (derived/weight_struct_samples.txt
  # var1: 70 70 71 77 ...) and data_src texts of the file
  got=$("$pms" report --json --samples -i "$ws" | python3 -c '
import json, sys
d = json.load(sys.stdin)
l = d["sample_list"]
print(len(l), sorted(s["weight"] for s in l)[:3], sum(1 for s in l if s["level"] == "L1 hit"))
' 2>&1)
  expect "json samples" "14 [70, 70, 71] 4" "$got"
fi
"$pms" report --csv -i "$ws" >"$tmp/csv" 2>&1; expect "csv exit" 0 $?
expect "csv rows" 15 "$(wc -l <"$tmp/csv")"
head -1 "$tmp/csv" | grep -q "^time,pid,tid,cpu,cpu_node,ip,addr,phys_addr,mem_node,node_status,data_src,level,weight,object,object_kind,section$" \
  || { echo "FAIL: csv header"; fail=1; }
[ "$fail" = 0 ] && [ "$skipped" = 1 ] && exit 77
exit $fail
