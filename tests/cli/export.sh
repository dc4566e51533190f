#!/usr/bin/env bash
# Exports of the memory report against the --json report of the same run:
#   export.sh PMUSCOPE folded  collapsed stacks (per-function counts, latency)
#   export.sh PMUSCOPE pprof   `go tool pprof -raw` of --pprof (totals,
#                              per-function counts, label values); 77 without go
#   export.sh PMUSCOPE html    headless Chromium, network off, opens --html:
#                              no console message, a screenshot not blank, the
#                              tables' numbers; 77 without chromium
#   export.sh PMUSCOPE callpath  the three exports of call paths (-g, --call-graph
#                              dwarf): pprof stacks (addresses) equal `perf script`
#                              and `pmuscope script -F callchain` of the same file,
#                              pprof -traces equal --folded, flat and cumulative
#                              counts per function and labels equal the JSON, a
#                              merged report's pprof is its files', the page's
#                              icicle equals the JSON's paths; 77 without go, perf
#                              or the workloads
# Data: a live `pmuscope mem` run (software engine here: nodes, matrix,
# objects) and, with ../shared/data, perf's weight_struct file (PEBS data
# sources and latencies).
set -u
pms=${1:?usage: export.sh PMUSCOPE folded|pprof|html}
mode=${2:-folded}
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/export_check.py"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp

expect() { # name, want, got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want: [$2]"; echo "  got:  [$3]"; fail=1
  fi
}

data=${PMS_SHARED_DATA:-$here/../../../shared/data}
ws=$data/perf_data_converter/src/quipper/testdata/perf.data.weight_struct

# One live run: its JSON, pprof and HTML come from the same report; -o keeps
# its samples for the file reports below.
live() {
  "$pms" mem --size 8M --quiet --top 100000 --json --pprof "$tmp/live.pb.gz" \
    --html "$tmp/live.html" -o "$tmp/live.data" >"$tmp/live.json" 2>"$tmp/live.err"
  expect "mem with exports exit" 0 $?
}

case $mode in
folded)
  "$pms" report --html >/dev/null 2>&1; expect "--html without a file" 2 $?
  "$pms" report --folded=bogus >/dev/null 2>&1; expect "--folded=bogus" 2 $?
  "$pms" report --json --folded >/dev/null 2>&1; expect "--json with --folded" 2 $?
  "$pms" mem --folded --csv >/dev/null 2>&1; expect "mem --folded with --csv (usage error)" 2 $?
  live
  head -c 2 "$tmp/live.pb.gz" | od -An -tx1 | tr -d ' \n' >"$tmp/magic"
  expect "pprof is gzip" "1f8b" "$(cat "$tmp/magic")"
  grep -q '^<!DOCTYPE html>' "$tmp/live.html" || { echo "FAIL: html"; fail=1; }
  grep -q "default-src 'none'" "$tmp/live.html" || { echo "FAIL: html CSP"; fail=1; }
  ! grep -Eq '(src|href)="(https?:)?//' "$tmp/live.html" || { echo "FAIL: html refers to the network"; fail=1; }
  files=("$tmp/live.data")
  [ -r "$ws" ] && files+=("$ws")
  for f in "${files[@]}"; do
    "$pms" report -i "$f" --json --samples --top 100000 >"$tmp/f.json" 2>/dev/null
    "$pms" report -i "$f" --folded --top 100000 >"$tmp/f.folded" 2>/dev/null
    expect "report --folded exit ($f)" 0 $?
    $check folded "$tmp/f.json" "$tmp/f.folded" || fail=1
    "$pms" report -i "$f" --folded=latency >"$tmp/f.lat" 2>/dev/null
    $check folded "$tmp/f.json" "$tmp/f.lat" latency || fail=1
  done
  # Live: --folded prints the stacks instead of the report.
  "$pms" mem --size 8M --quiet --folded >"$tmp/m.folded" 2>/dev/null
  expect "mem --folded exit" 0 $?
  grep -Eq '^mem_workload_run [0-9]+$' "$tmp/m.folded" || { echo "FAIL: mem --folded"; head "$tmp/m.folded"; fail=1; }
  ;;
pprof)
  command -v go >/dev/null || { echo "SKIP: go (Debian golang-go) is not installed"; exit 77; }
  live
  go tool pprof -raw "$tmp/live.pb.gz" >"$tmp/live.raw" 2>"$tmp/err"; expect "pprof -raw (live)" 0 $?
  $check pprof "$tmp/live.json" "$tmp/live.raw" || fail=1
  grep -q 'mem_workload_run' "$tmp/live.raw" || { echo "FAIL: no function in the raw profile"; fail=1; }
  # samples, not latency, is what pprof shows by default
  go tool pprof -top "$tmp/live.pb.gz" 2>/dev/null | grep -q '^Type: samples$' \
    || { echo "FAIL: default sample type"; go tool pprof -top "$tmp/live.pb.gz" 2>&1 | head -5; fail=1; }
  # a live run reads the build ids from the binaries themselves
  sed -n '/^Mappings/,$p' "$tmp/live.raw" | grep -Eq "^ *[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $pms +[0-9a-f]{40}" \
    || { echo "FAIL: no build id for $pms (live)"; sed -n '/^Mappings/,$p' "$tmp/live.raw"; fail=1; }
  if [ -r "$ws" ]; then
    "$pms" report -i "$ws" --json --top 100000 --pprof "$tmp/ws.pb.gz" >"$tmp/ws.json" 2>/dev/null
    go tool pprof -raw "$tmp/ws.pb.gz" >"$tmp/ws.raw" 2>"$tmp/err"; expect "pprof -raw (file)" 0 $?
    $check pprof "$tmp/ws.json" "$tmp/ws.raw" || fail=1
    # the file's BUILD_ID header gives the kernel mapping its build id
    sed -n '/^Mappings/,$p' "$tmp/ws.raw" | grep -Eq '\[kernel\] +[0-9a-f]{40}' \
      || { echo "FAIL: no kernel build id in the mappings"; cat "$tmp/ws.raw"; fail=1; }
  fi
  # pmuscope's own recording: the report of the file against its JSON, and
  # the build id its BUILD_ID header gives the pmuscope binary's mapping
  "$pms" report -i "$tmp/live.data" --json --top 100000 --pprof "$tmp/f.pb.gz" >"$tmp/f.json" 2>/dev/null
  go tool pprof -raw "$tmp/f.pb.gz" >"$tmp/f.raw" 2>"$tmp/err"; expect "pprof -raw (recording)" 0 $?
  $check pprof "$tmp/f.json" "$tmp/f.raw" || fail=1
  sed -n '/^Mappings/,$p' "$tmp/f.raw" | grep -Eq "^ *[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $pms +[0-9a-f]{40}" \
    || { echo "FAIL: no build id for $pms in the mappings"; sed -n '/^Mappings/,$p' "$tmp/f.raw"; fail=1; }
  ;;
html)
  chrome=$(command -v chromium || command -v chromium-browser || true)
  [ -n "$chrome" ] || { echo "SKIP: chromium (Debian chromium) is not installed"; exit 77; }
  live
  pages=(live)
  if [ -r "$ws" ]; then
    "$pms" report -i "$ws" --json --top 100000 --html "$tmp/ws.html" >"$tmp/ws.json" 2>/dev/null
    pages+=(ws)
    # a merged report: its hosts
    "$pms" report -i "$tmp/live.data" -i "$ws" --json --top 100000 --html "$tmp/merged.html" \
      >"$tmp/merged.json" 2>/dev/null
    pages+=(merged)
  fi
  # a report without one sample draws too (a perf file of a short run)
  if PERF_CONFIG=/dev/null perf record -q -e task-clock -c 1000000000000 -o "$tmp/none.data" -- true \
       >/dev/null 2>&1 </dev/null; then
    "$pms" report -i "$tmp/none.data" --json --html "$tmp/none.html" >"$tmp/none.json" 2>/dev/null
    expect "empty report exit" 0 $?
    pages+=(none)
  fi
  # Network off: a new network namespace when we may make one (root here
  # and in CI), besides the page's own Content-Security-Policy.
  nonet=""
  unshare -n true 2>/dev/null && nonet="unshare -n"
  for p in "${pages[@]}"; do
    for what in dump-dom screenshot; do
      rm -rf "$tmp/ud"
      arg=--dump-dom; [ $what = screenshot ] && arg="--screenshot=$tmp/$p.png --window-size=1280,2400"
      # shellcheck disable=SC2086
      timeout 240 $nonet "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/ud" \
        --enable-logging=stderr --v=0 $arg "file://$tmp/$p.html" >"$tmp/$p.$what" 2>"$tmp/$p.$what.err" </dev/null
      expect "chromium $what ($p)" 0 $?
      # the page's console messages (Chromium's own chrome:// pages may
      # log, e.g. "Slow network is detected" on a loaded machine)
      if grep ':CONSOLE' "$tmp/$p.$what.err" | grep -vq 'source: chrome://'; then
        echo "FAIL: console messages ($p)"; grep ':CONSOLE' "$tmp/$p.$what.err"; fail=1
      fi
    done
    $check html "$tmp/$p.json" "$tmp/$p.dump-dom" || fail=1
    $check icicle "$tmp/$p.json" "$tmp/$p.dump-dom" || fail=1
    $check png "$tmp/$p.png" || fail=1
  done
  ;;
callpath)
  fp=${PMS_BUILD_DIR:-}/tests/sample/pms_callpath_fp
  nofp=${PMS_BUILD_DIR:-}/tests/sample/pms_callpath_nofp
  [ -x "$fp" ] && [ -x "$nofp" ] || { echo "SKIP: no call-path workloads (PMS_BUILD_DIR)"; exit 77; }
  command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
  command -v go >/dev/null || { echo "SKIP: go (Debian golang-go) is not installed"; exit 77; }
  # Two recordings of one program name its code at one base only in a
  # merged report (docs/export.md, limits): without address randomization
  # both map it at the same base.
  norand=""
  setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"
  raw() { go tool pprof -raw "$1.pb.gz" >"$1.raw" 2>"$tmp/err" && go tool pprof -traces "$1.pb.gz" >"$1.traces" 2>>"$tmp/err"
          expect "go tool pprof -raw/-traces $(basename "$1")" 0 $?; }
  # 1. a live mem -g run: its JSON and pprof are one report's; its -o file
  #    against perf script
  case $pms in /*) ;; *) pms=$PWD/$pms ;; esac
  cd "$tmp" || exit 1
  # --no-alloc here and below: the command alone, as record and perf run it
  if ! $norand "$pms" mem -g --no-alloc --engine software --period 4 --quiet --json --top 100000 -o cp.data \
       --pprof cp.pb.gz --html cp.html -- "$fp" touch 3000 >cp.json 2>"$tmp/err"; then
    grep -q "no sampling engine\|EACCES\|EPERM" "$tmp/err" && { echo "SKIP: no software sampling: $(cat "$tmp/err")"; exit 77; }
    echo "FAIL: mem -g with exports"; cat "$tmp/err"; exit 1
  fi
  raw cp
  $check pprof cp.json cp.raw || fail=1
  $check cumulative cp.json cp.raw || fail=1
  perf script -i cp.data -F tid,ip >cp.perf 2>/dev/null; expect "perf script of mem -g -o" 0 $?
  $check stacks cp.raw cp.perf || fail=1
  "$pms" script -i cp.data -F callchain >cp.script 2>"$tmp/err"; expect "script -F callchain" 0 $?
  $check stacks cp.raw cp.script || fail=1
  # 2. report of that file: --folded and pprof -traces show the same stacks
  "$pms" report -i cp.data --folded >f.folded 2>"$tmp/err"; expect "report --folded" 0 $?
  "$pms" report -i cp.data --json --top 100000 --pprof f.pb.gz >f.json 2>"$tmp/err"
  raw f
  $check traces f.traces f.folded || fail=1
  $check stacks f.raw cp.perf || fail=1
  $check cumulative f.json f.raw || fail=1
  grep -Eq '(^|;)main;cp_outer;cp_middle;cp_leaf_touch [0-9]+$' f.folded \
    || { echo "FAIL: the workload's path is not in --folded"; head f.folded; fail=1; }
  # 3. pmuscope record -g and perf record -g files; mem --call-graph dwarf
  $norand "$pms" record -g --no-alloc -e page-faults -c 4 -o rec.data -- "$fp" touch 3000 >/dev/null 2>"$tmp/err"
  expect "record -g" 0 $?
  if PERF_CONFIG=/dev/null perf record -q -g -e page-faults -c 4 -o perf.data -- "$fp" touch 3000 \
       >/dev/null 2>&1 </dev/null; then
    files="rec perf"
  else
    echo "perf record -g refused here: not compared"; files=rec
  fi
  for f in $files; do
    "$pms" report -i $f.data --json --top 100000 --pprof $f.pb.gz >$f.json 2>"$tmp/err"; expect "report $f" 0 $?
    "$pms" report -i $f.data --folded >$f.folded 2>"$tmp/err"
    raw $f
    perf script -i $f.data -F tid,ip >$f.perf 2>/dev/null
    $check stacks $f.raw $f.perf || fail=1
    $check traces $f.traces $f.folded || fail=1
    $check cumulative $f.json $f.raw || fail=1
  done
  # --no-inline: the report's functions are the symbols' (inline stacks in
  # the exports: export_inline.sh)
  "$pms" mem --call-graph dwarf --no-inline --no-alloc --engine software --period 4 --quiet --json --top 100000 -o dw.data \
    --pprof dw.pb.gz -- "$nofp" touch 3000 >dw.json 2>"$tmp/err"; expect "mem --call-graph dwarf" 0 $?
  raw dw
  perf script -i dw.data -F tid,ip --no-inline >dw.perf 2>/dev/null
  $check stacks dw.raw dw.perf dwarf || fail=1
  $check cumulative dw.json dw.raw || fail=1
  # 4. merging: the merged pprof holds the files' stacks, labels and
  #    values; its --folded is theirs added up
  "$pms" report -i cp.data -i rec.data --json --top 100000 --pprof m.pb.gz >m.json 2>"$tmp/err"
  expect "report of two files" 0 $?
  raw m
  $check merge m.raw f.raw rec.raw || fail=1
  $check cumulative m.json m.raw || fail=1
  "$pms" report -i cp.data -i rec.data --folded >m.folded 2>/dev/null
  python3 - f.folded rec.folded m.folded <<'PY' || { echo "FAIL: merged --folded is not the files' added up"; fail=1; }
import collections, sys
def rd(p):
    c = collections.Counter()
    for l in open(p):
        s, n = l.rsplit(" ", 1)
        c[s] += int(n)
    return c
a = rd(sys.argv[1]); a.update(rd(sys.argv[2]))
sys.exit(0 if a == rd(sys.argv[3]) and a else 1)
PY
  # ... and the merged JSON's call paths are the files' added up
  python3 - f.json rec.json m.json <<'PY' || { echo "FAIL: merged call paths are not the files' added up"; fail=1; }
import collections, json, sys
def paths(p):
    c = collections.Counter()
    for x in json.load(open(p))["callpaths"]["by_samples"]:
        c[tuple((f["ip"], f["func"]) for f in x["frames"])] += x["samples"]
    return c
a = paths(sys.argv[1]); a.update(paths(sys.argv[2]))
sys.exit(0 if a == paths(sys.argv[3]) and a else 1)
PY
  # 5. the page: its icicle is the JSON's call paths
  chrome=$(command -v chromium || command -v chromium-browser || true)
  if [ -n "$chrome" ]; then
    nonet=""
    unshare -n true 2>/dev/null && nonet="unshare -n"
    # shellcheck disable=SC2086
    timeout 240 $nonet "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/ud" \
      --enable-logging=stderr --v=0 --dump-dom "file://$tmp/cp.html" >cp.dom 2>cp.dom.err </dev/null
    expect "chromium dump-dom (call paths)" 0 $?
    if grep ':CONSOLE' cp.dom.err | grep -vq 'source: chrome://'; then
      echo "FAIL: console messages"; grep ':CONSOLE' cp.dom.err; fail=1
    fi
    $check html cp.json cp.dom || fail=1
    $check icicle cp.json cp.dom cp_leaf_touch,cp_middle,cp_outer,main || fail=1
  else
    echo "chromium is not installed: the page's icicle not checked"
  fi
  ;;
*) echo "export.sh: mode folded, pprof, html or callpath"; exit 2 ;;
esac
exit $fail
