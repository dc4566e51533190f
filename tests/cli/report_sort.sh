#!/usr/bin/env bash
# report --sort/-s KEY against perf report -s KEY (perf mem's keys with
# --mem-mode) on the same files: the project's fixture with a data source,
# and files perf records here (perf record -e page-faults -d): the same rows
# with the same sample counts (issue 30 item 4).  perf's pid key is the
# thread printed "tid:comm" with the thread's last comm, and so is
# pmuscope's (tgid is the process).  perf prints one table per event, pmuscope one over all of
# them: perf's rows are summed per key.  Also -n, --percent-limit,
# --header-only and an unknown key.  phys_daddr on a --phys-data recording.
set -u
pms=${1:?usage: report_sort.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }

files=("$top/tests/fuzz/corpus/cli_perfdata/file_two_attrs_features.data")
# on both CPUs, children in parallel: perf record writes each CPU's ring in
# turn, so an exec's COMM can come in the file after the new program's
# first samples (from the other CPU), in the same round or the next; perf
# orders by time (its ordered events) and so does pmuscope's reader
# (pms_perfdata_ordered): the comm rows must agree
if taskset -c 0 perf record -q -e page-faults -c 1 -d --sample-cpu -o "$tmp/one.data" -- \
     sh -c 'ls / >/dev/null; cat /dev/null; sort /dev/null; true' >/dev/null 2>"$tmp/e" &&
   perf record -q -e page-faults -c 1 -d --sample-cpu -o "$tmp/pf.data" -- \
     sh -c 'for j in 1 2 3; do ls / >/dev/null & cat /dev/null & sort /dev/null & done; wait; true' \
     >/dev/null 2>"$tmp/e"; then
  files+=("$tmp/one.data" "$tmp/pf.data")
else
  echo "SKIP recording: $(head -2 "$tmp/e")" >&2
fi
# perf's rows: "  12.34%   5  VALUE" -> "VALUE<TAB>5", sorted
perf_rows() { # KEY FILE
  local mm=""
  case $1 in mem|snoop|tlb|locked|symbol_daddr|phys_daddr|dcacheline) mm=--mem-mode;; esac
  perf report $mm -i "$2" --stdio -n -s "$1" 2>/dev/null | grep -v '^#' | grep . |
    sed -E 's/^ *[0-9.]+% +([0-9]+) +(.*[^ ]) *$/\2\t\1/' |
    # --mem-mode adds perf's IPC columns ("-  -") to symbol_daddr
    sed -E 's/ +- +-\t/\t/' |
    # perf prints a table per event; pmuscope's is over all of them
    awk -F'\t' '{ n[$1] += $2 } END { for (k in n) print k "\t" n[k] }' | sort
}
pms_rows() {
  "$pms" report -i "$2" -n -s "$1" 2>/dev/null | grep -v '^#' | grep . |
    sed -E 's/^ *[0-9.]+% +([0-9]+) +(.*[^ ]) *$/\2\t\1/' | sort
}
for f in "${files[@]}"; do
  for k in pid cpu mem snoop tlb locked; do
    perf_rows $k "$f" >"$tmp/p"
    pms_rows $k "$f" >"$tmp/m"
    [ -s "$tmp/p" ] || { echo "SKIP $k on $(basename "$f"): perf gives no rows" >&2; continue; }
    diff "$tmp/p" "$tmp/m" >"$tmp/d" || bad "-s $k on $(basename "$f"): rows differ from perf's (perf <, pmuscope >): $(head -6 "$tmp/d")"
  done
done
# phys_daddr: "[level] address" by the address alone, on a recording with
# physical addresses (perf record --phys-data: root here)
if perf record -q -e page-faults -c 1 -d --phys-data -o "$tmp/phys.data" -- \
     sh -c 'for j in 1 2 3; do ls / >/dev/null & cat /dev/null & done; wait' >/dev/null 2>"$tmp/e"; then
  perf_rows phys_daddr "$tmp/phys.data" >"$tmp/p"
  pms_rows phys_daddr "$tmp/phys.data" >"$tmp/m"
  if [ -s "$tmp/p" ]; then
    diff "$tmp/p" "$tmp/m" >"$tmp/d" || bad "-s phys_daddr: rows differ from perf's (perf <, pmuscope >): $(head -6 "$tmp/d")"
    grep -q '^\[[k.]\] 0x' "$tmp/m" || bad "-s phys_daddr: no physical address row: $(head -3 "$tmp/m")"
  else
    echo "SKIP phys_daddr: perf gives no rows" >&2
  fi
else
  echo "SKIP phys_daddr: perf record --phys-data refused here: $(head -1 "$tmp/e")" >&2
fi
# comm and dso: equal rows (the side-band's names at each sample's point)
for f in "${files[@]:1}"; do
  for k in comm dso; do
    perf_rows $k "$f" >"$tmp/p"
    pms_rows $k "$f" >"$tmp/m"
    [ -s "$tmp/p" ] || { echo "SKIP $k: perf gives no rows" >&2; continue; }
    diff "$tmp/p" "$tmp/m" >"$tmp/d" || bad "-s $k on $(basename "$f"): rows differ from perf's (perf <, pmuscope >): $(head -6 "$tmp/d")"
  done
done
# sym and symbol_daddr: perf's names (its alias at one address; a data
# object as name+0xOFF; a data address in the sample's own mode, an
# anonymous map's stays an address): the same rows on every file, but for
# at most 2 samples (a count, not a share: rare cases not matched, such as
# perf's [s] level for shared mappings), the differences listed
for f in "${files[@]}"; do
  for k in sym symbol_daddr; do
    perf_rows $k "$f" >"$tmp/p"
    pms_rows $k "$f" >"$tmp/m"
    [ -s "$tmp/p" ] || { echo "SKIP $k on $(basename "$f"): perf gives no rows" >&2; continue; }
    same=$(comm -12 "$tmp/p" "$tmp/m" | awk -F'\t' '{ s += $2 } END { print s + 0 }')
    all=$(awk -F'\t' '{ s += $2 } END { print s + 0 }' "$tmp/p")
    echo "-s $k on $(basename "$f"): $same of $all samples in rows equal to perf's" >&2
    comm -3 "$tmp/p" "$tmp/m" | head -8 >&2
    [ $((all - same)) -le 2 ] || bad "-s $k on $(basename "$f"): only $same of $all samples in rows equal to perf's"
  done
  # a data object named as perf names it, on the recordings (ls writes to
  # libc's and ld.so's objects)
  if [ "$f" != "${files[0]}" ] && ! grep -q '+0x[0-9a-f]*'"$(printf '\t')" "$tmp/m"; then
    bad "-s symbol_daddr on $(basename "$f"): no name+0xOFF row"
  fi
done
# sym over a whole libc: bench/perfdata_gen's samples at 2,000 addresses
# drawn over libc's text (no sampling here: a written file), every alias
# choice perf makes at one address (__GI_x, __x_ifunc, weak/global/local)
# met: equal rows (the starting binary: 17,949 of 20,000 samples)
gen=${PMS_BUILD_DIR:-}/bench/perfdata_gen
if [ -x "$gen" ] && "$gen" "$tmp/gen.data" 20000 4 >/dev/null 2>&1; then
  perf_rows sym "$tmp/gen.data" >"$tmp/p"
  pms_rows sym "$tmp/gen.data" >"$tmp/m"
  same=$(comm -12 "$tmp/p" "$tmp/m" | awk -F'\t' '{ s += $2 } END { print s + 0 }')
  echo "-s sym on perfdata_gen's libc file: $same of 20000 samples in rows equal to perf's" >&2
  diff "$tmp/p" "$tmp/m" >"$tmp/d" || bad "-s sym on perfdata_gen's libc file: rows differ from perf's (perf <, pmuscope >): $(head -6 "$tmp/d")"
  rm -f "$tmp/gen.data"
else
  echo "SKIP libc aliases: no perfdata_gen (PMS_BUILD_DIR)" >&2
fi
# dcacheline: perf's text (the line of the map-relative address, named by
# the data symbol, [X] unmapped, [s] in a shared file mapping) and perf's
# rows (sort__dcacheline_cmp: one per sample mode, map or none, the map's
# id, the process for private anonymous memory, and line; a row prints its
# first sample's text, so rows may print alike): on the fixture (two
# events: perf's rows summed by text), and row for row (text and count,
# rows printed alike kept apart) on the recordings and on a workload that
# writes a MAP_SHARED file mapping and anonymous memory at the same lines
# from two processes (tests/cli/dcl_shared_workload.c)
perf_rows dcacheline "${files[0]}" >"$tmp/p"
pms_rows dcacheline "${files[0]}" >"$tmp/m"
if [ -s "$tmp/p" ]; then
  diff "$tmp/p" "$tmp/m" >"$tmp/d" || bad "-s dcacheline on $(basename "${files[0]}"): rows differ from perf's (perf <, pmuscope >): $(head -6 "$tmp/d")"
else
  echo "SKIP dcacheline: perf gives no rows" >&2
fi
dcl=${PMS_BUILD_DIR:-}/tests/cli/dcl_shared
dfiles=("${files[@]:1}")
if [ -x "$dcl" ] && perf record -q -e page-faults -c 1 -d -o "$tmp/shm.data" -- "$dcl" "$tmp/shm.bin" \
     >/dev/null 2>"$tmp/e"; then
  dfiles+=("$tmp/shm.data")
else
  echo "SKIP dcacheline on a shared mapping: no $dcl or perf record refused: $(head -1 "$tmp/e")" >&2
fi
rows_each() { grep -v '^#' | grep . | sed -E 's/^ *[0-9.]+% +([0-9]+) +(.*[^ ]) *$/\2\t\1/; s/ +/ /g' | sort; }
for f in "${dfiles[@]}"; do
  for k in dcacheline dcacheline,pid mem,dcacheline; do
    perf report --mem-mode -i "$f" --stdio -n -s $k 2>/dev/null | rows_each >"$tmp/p"
    "$pms" report -i "$f" -n -s $k 2>/dev/null | rows_each >"$tmp/m"
    [ -s "$tmp/p" ] || { echo "SKIP -s $k on $(basename "$f"): perf gives no rows" >&2; continue; }
    echo "-s $k on $(basename "$f"): perf $(wc -l <"$tmp/p") rows ($(grep -c '\[s\]' "$tmp/p") [s]), pmuscope $(wc -l <"$tmp/m")" >&2
    diff "$tmp/p" "$tmp/m" >"$tmp/d" || bad "-s $k on $(basename "$f"): rows differ from perf's (perf <, pmuscope >): $(head -6 "$tmp/d")"
  done
done
if [ -s "$tmp/shm.data" ]; then
  # the shared file's lines: one [s] row each, both processes' samples in it
  "$pms" report -i "$tmp/shm.data" -n -s dcacheline 2>/dev/null | rows_each >"$tmp/m"
  [ "$(grep -c '^\[s\] .*	2$' "$tmp/m")" -ge 16 ] || bad "-s dcacheline: not 16 [s] rows of 2 samples on the shared mapping: $(grep -c '^\[s\]' "$tmp/m") [s] rows"
fi
# -F: perf's columns in the given order (overhead, sample, period, keys),
# rows in the order of the fields; compared as whitespace-separated
# columns, in order where the first field is comm (perf sorts by it), else
# as a set (perf breaks ties between equal counts by the pid's number)
cols() { grep -v '^#' | grep . | sed -E 's/^ +//; s/ +$//; s/ +/\t/g'; }
for f in "${files[@]:1}"; do
  for F in comm,sample,period overhead,sample,pid period,cpu,sample; do
    perf report -i "$f" --stdio -F "$F" 2>/dev/null | cols >"$tmp/p"
    "$pms" report -i "$f" -F "$F" 2>"$tmp/e" | cols >"$tmp/m"
    [ -s "$tmp/p" ] || { echo "SKIP -F $F: perf gives no rows" >&2; continue; }
    case $F in comm,*) ;; *) sort -o "$tmp/p" "$tmp/p"; sort -o "$tmp/m" "$tmp/m";; esac
    diff "$tmp/p" "$tmp/m" >"$tmp/d" || bad "-F $F on $(basename "$f"): rows differ from perf's (perf <, pmuscope >): $(head -6 "$tmp/d") $(cat "$tmp/e")"
  done
done
f=${files[-1]}
"$pms" report -i "$f" -F overhead,sample >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "no sort key among the fields" "$tmp/e" || bad "-F without a key: rc $rc $(cat "$tmp/e")"
# several keys, percent limit, header only
"$pms" report -i "$f" -s pid,cpu >"$tmp/o" 2>&1 || bad "-s pid,cpu: $(cat "$tmp/o")"
grep -q '^# Overhead  Pid:Command  CPU$' "$tmp/o" || bad "-s pid,cpu header: $(head -4 "$tmp/o")"
"$pms" report -i "$f" -s pid --percent-limit 100 >"$tmp/o" 2>&1 || bad "--percent-limit"
rows=$(grep -vc '^#' "$tmp/o")
all=$("$pms" report -i "$f" -s pid | grep -vc '^#')
[ "$all" -le 1 ] || [ "$rows" -lt "$all" ] || bad "--percent-limit 100 kept all $all rows"
"$pms" report -i "$f" --header-only >"$tmp/o" 2>&1 || bad "--header-only: $(cat "$tmp/o")"
grep -q '^# perf version' "$tmp/o" || bad "--header-only: no header: $(head -3 "$tmp/o")"
grep -q '^engine:' "$tmp/o" && bad "--header-only printed the report"
"$pms" report -i "$f" -s nosuchkey >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "sort key 'nosuchkey' is unknown; the keys: pid" "$tmp/e" || bad "unknown key: rc $rc $(cat "$tmp/e")"
exit $fail
