#!/usr/bin/env bash
# report --children / --no-children / -g (flat, folded) against perf report
# 6.12 on the same files (issue 30 item 4), perf as oracle:
#  - files recorded here: perf record -g (frame pointers) of the call-path
#    workload (page faults and cpu-clock), and --call-graph dwarf of it
#    built without frame pointers (compared twice: perf's default, whose
#    DWARF frames in inlined code are their inline stacks, as pmuscope's
#    (src/session/inlpath.c), and --no-inline on both sides);
#  - the real files of PMS_SHARED_DATA with call chains: quipper's
#    perf.data.callgraph-3.8 (frame pointers, a 2013 Chrome desktop) and
#    KDAB's cpp-inlining.perf.data (DWARF, binaries not here).
# Rows are compared whitespace-squeezed and sorted (perf pads columns and
# breaks ties in its own order); a chain line is compared with its row's.
# callgraph-3.8 and cpp-inlining must be equal line for line (one known
# cpp-inlining sample excepted: a user PC in the kernel, see docs/cli.md);
# the recorded files equal but for at most 1 line on each side (frame
# pointers) or 2 (DWARF) (a count, not a share: a small file has few
# lines), names as they are: the symbolizer picks perf's alias at one
# address (libc's __GI_strtoll, __strnlen_ifunc, symbolizer.c msym_cmp).
# A DWARF sample whose stack dump is empty (a fault on the stack page
# itself, "ustack: size 0" in perf report -D) has no user frame at all, as
# in perf (sorthist.c sample_frames): it once cost up to 3 lines of a
# fractal form.  Differences are printed.
set -u
pms=${1:?usage: report_callgraph.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# perf's inline frames need its addr2line to answer within
# core.addr2line-timeout (1 s by default: too short for libc's debug file
# on a loaded host, and perf then drops them; docs/script.md)
printf '[core]\n\taddr2line-timeout = 120000\n' >"$tmp/perfconfig"
export PERF_CONFIG=$tmp/perfconfig
bad() { echo "FAIL: $*"; fail=1; }
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }

# entry rows squeezed; chain lines (folded, or flat's value + frames) as
# "ROW<TAB>CHAIN"
norm() {
  awk '
    /^#/ { next }
    /^$/ { if (c != "") print e "\t" c; c = ""; next }
    /^           [0-9]/ { if (c != "") print e "\t" c; v = $1; c = v " "; n = 0; next }
    /^                [^ ]/ { sub(/^ +/, ""); c = c (n++ ? ";" : "") $0; next }
    /^ / { if (c != "") print e "\t" c; c = ""; gsub(/ +/, " "); sub(/^ /, ""); sub(/ $/, ""); e = $0; print e; next }
    { print e "\t" $0 }
    END { if (c != "") print e "\t" c }' | sort
}

# UNTIE=1 (graph and fractal on the files recorded here): the lines as a
# set, each without its connectors ("|", ";", "--", indentation), so that siblings of
# equal value may come in either order: perf breaks such ties by module and
# address, which the chains here do not carry (pmuscope by name); the
# shared files are compared with the connectors
# (perf 6.12 sometimes ends its "[...]" remainder line with " (inlined)"
# on these files, in the fractal forms, not on the shared files: dropped)
untie() { grep -v '^#' | sed -E 's/^[|; \t-]*//; s/ +/ /g; s/ $//; s/\[\.\.\.\] \(inlined\)$/[...]/' |
  grep -v '^$' | sort; }

# MIN_PERCENT: the share of lines equal on each side; or, as "-N", at most
# N lines differing on each side
compare() { # FILE MIN_PERCENT PERF_EXTRA MODE...
  local f=$1 min=$2 pex=$3; shift 3
  local nf=norm; [ "${UNTIE:-}" = 1 ] && nf=untie
  perf report -i "$f" --stdio $pex "$@" 2>/dev/null | $nf >"$tmp/p"
  "$pms" report -i "$f" "$@" 2>"$tmp/e" | $nf >"$tmp/m"
  local np nm same off
  np=$(wc -l <"$tmp/p"); nm=$(wc -l <"$tmp/m"); same=$(comm -12 "$tmp/p" "$tmp/m" | wc -l)
  echo "$(basename "$f") $*: perf $np lines, pmuscope $nm, $same equal" >&2
  # a count of lines, not a share: under load the cpu-clock file may hold
  # two samples
  if [ "$np" -lt 1 ]; then bad "$(basename "$f") $*: perf printed nothing"; return; fi
  case $min in
    -*) off=$((np - same > nm - same ? np - same : nm - same)); [ "$off" -gt "${min#-}" ];;
    *) [ $((same * 100)) -lt $((np * min)) ] || [ $((same * 100)) -lt $((nm * min)) ];;
  esac
  if [ $? = 0 ]; then
    bad "$(basename "$f") $*: $same of $np lines equal to perf's (perf <, pmuscope >):"
    diff "$tmp/p" "$tmp/m" | head -12
    head -3 "$tmp/e"
  elif [ "$same" != "$np" ] || [ "$same" != "$nm" ]; then
    diff "$tmp/p" "$tmp/m" | grep '^[<>]' | head -6 >&2
  fi
}

modes=("--no-children -g none" "--children -g none"
       "--no-children -g folded" "--children -g folded"
       "--no-children -g folded,0,caller" "--children -g folded,0,callee,count"
       "--children -g folded,0,caller,period" "-g folded,0.5"
       "--no-children -g flat" "--children -g flat,1,caller,period"
       "--no-children -g graph" "--children -g graph" "--children -g graph,0.5,callee"
       "--no-children -g fractal" "--children -g fractal" "-g fractal,5,caller,count"
       "--no-children -g graph,2,period" "--children -g fractal,0,callee,percent,3")

fp=${PMS_BUILD_DIR:-}/tests/sample/pms_callpath_fp
nofp=${PMS_BUILD_DIR:-}/tests/sample/pms_callpath_nofp
files=()
if [ -x "$fp" ] && [ -x "$nofp" ]; then
  if perf record -q -g -e page-faults -c 1 -o "$tmp/fp.data" "$fp" touch 300 >/dev/null 2>"$tmp/r" &&
     perf record -q -g -e cpu-clock -F 1000 -o "$tmp/clk.data" "$fp" spin 300 >/dev/null 2>>"$tmp/r" &&
     perf record -q --call-graph dwarf -e page-faults -c 1 -o "$tmp/dw.data" "$nofp" touch 300 \
       >/dev/null 2>>"$tmp/r"; then
    files=("$tmp/fp.data" "$tmp/clk.data" "$tmp/dw.data")
  else
    echo "SKIP recording: $(head -2 "$tmp/r")" >&2
  fi
else
  echo "SKIP recording: no workloads (PMS_BUILD_DIR)" >&2
fi
for f in "${files[@]}"; do
  # DWARF: up to 2 lines (none seen since empty stack dumps give no user
  # frame, as perf)
  pex= tol=-1 inl=("")
  case $f in *dw.data) tol=-2 inl=("" "--no-inline");; esac
  for ni in "${inl[@]}"; do
  for m0 in "${modes[@]}"; do
    m="$ni $m0"
    untie=; case $m in *graph*|*fractal*) untie=1;; esac
    # a print limit keeps the first N children: among equal siblings perf's
    # first N (by address) are not these (by name); compared on the shared
    # files only
    case $m in *percent,3) continue;; esac
    # inline frames with children (perf's default on the DWARF file): the
    # rows are perf's (one per inlined function and function it is inlined
    # into, sort.c _sort__sym_cmp), but perf report names the frames of the
    # chains below a few inlined rows by address (its perf script names
    # them) and orders chains of equal value its own way: 80 % of the lines
    # (seen 96-100 % with perf's addr2line given time, 95.7 % on a clang
    # build's recording, 86 % on one CI rehearsal's, where perf also printed
    # ten chains through ld.so's _start by address; --no-children and
    # --no-inline stay within 2 lines)
    t=$tol
    [ -z "$ni" ] && [[ $f == *dw.data ]] && [[ $m0 != --no-children* ]] && t=80
    # shellcheck disable=SC2086
    UNTIE=$untie compare "$f" $t "$pex" $m
  done
  done
  # --children alone is the table of -g none (perf would add its graph)
  cmp -s <("$pms" report -i "$f" --children 2>&1) <("$pms" report -i "$f" --children -g none 2>&1) ||
    bad "$(basename "$f"): --children differs from --children -g none"
  # the workload's path, as it is: main -> cp_outer -> cp_middle -> cp_leaf_touch
  if [ "$f" = "$tmp/fp.data" ]; then
    "$pms" report -i "$f" --no-children -g folded >"$tmp/o" 2>&1
    grep -q '^[0-9.]*% cp_leaf_touch;cp_middle;cp_outer;main;' "$tmp/o" ||
      bad "--no-children -g folded: no callee chain of the workload: $(grep cp_leaf "$tmp/o" | head -3)"
    "$pms" report -i "$f" --children -g folded >"$tmp/o" 2>&1
    grep -q '^[0-9.]*% main;cp_outer;cp_middle;cp_leaf_touch$' "$tmp/o" ||
      bad "--children -g folded: no caller chain below main: $(grep 'main;' "$tmp/o" | head -3)"
  fi
done

d=${PMS_SHARED_DATA:-}
cg=$d/perf_data_converter/src/quipper/testdata/perf.data.callgraph-3.8
inl=$d/kdab-perfparser/tests/auto/perfdata/cpp-inlining/cpp-inlining.perf.data
if [ -r "$cg" ]; then
  for m in "${modes[@]}"; do
    # shellcheck disable=SC2086
    compare "$cg" 100 "" $m
  done
else
  echo "SKIP shared data: no $cg (PMS_SHARED_DATA)" >&2
fi
if [ -r "$inl" ]; then
  for m in "--no-children -g folded" "--no-children -g none" "--children -g none"; do
    # shellcheck disable=SC2086
    compare "$inl" 98 --no-inline $m
  done
fi

# usage: graph and fractal are taken, an unknown word is not, nor --children with --json
for g in graph fractal,1,callee; do
  "$pms" report -i /dev/null -g $g >/dev/null 2>"$tmp/e"; rc=$?
  [ $rc != 2 ] || bad "-g $g: a usage error: $(head -1 "$tmp/e")"
done
"$pms" report -i /dev/null -g foo >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 2 ] || bad "-g foo: exit $rc"
"$pms" report -i /dev/null --children --json >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 2 ] || bad "--children --json: exit $rc"
exit $fail
