#!/usr/bin/env bash
# Exports of the memory report against the --json report of the same run:
#   export.sh PMUSCOPE folded  collapsed stacks (per-function counts, latency)
#   export.sh PMUSCOPE pprof   `go tool pprof -raw` of --pprof (totals,
#                              per-function counts, label values); 77 without go
#   export.sh PMUSCOPE html    headless Chromium, network off, opens --html:
#                              no console message, a screenshot not blank, the
#                              tables' numbers; 77 without chromium
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
    $check png "$tmp/$p.png" || fail=1
  done
  ;;
*) echo "export.sh: mode folded, pprof or html"; exit 2 ;;
esac
exit $fail
