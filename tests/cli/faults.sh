#!/usr/bin/env bash
# Fault matrix for `pmuscope mem -o FILE`: a full disk, SIGPIPE on stdout,
# SIGINT, SIGKILL of pmuscope, a crashing workload.  In every case the file
# is created 0600, is read by `pmuscope report` (after SIGKILL through its
# recovery of an unfinished file, which it says) and by perf where perf is
# here, and the exit status says what happened.  $1 = the pmuscope binary.
set -u
pms=${1:?usage: faults.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/small"
bad() { echo "FAIL: $*"; fail=1; }
export HOME=$tmp PERF_CONFIG=/dev/null
have_perf=0
/usr/bin/perf --version >/dev/null 2>&1 && have_perf=1

# A workload that faults in 4096 pages (software page-fault samples).
touch_pages='dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null'

# samples pmuscope report / perf find in F; checks the mode.
check_file() { # name file [unfinished]
  local name=$1 f=$2
  [ -f "$f" ] || { bad "$name: no file"; return; }
  [ "$(stat -c %a "$f")" = 600 ] || bad "$name: mode $(stat -c %a "$f"), not 600 as perf"
  "$pms" report --json -i "$f" >"$tmp/$name.json" 2>"$tmp/$name.rerr" ||
    { bad "$name: pmuscope report exit $?"; cat "$tmp/$name.rerr"; return; }
  grep -q '"records": [1-9]' "$tmp/$name.json" || { bad "$name: pmuscope report reads no records"; head -c 600 "$tmp/$name.json"; }
  if [ "${3:-}" = unfinished ]; then
    grep -q '"unfinished": true' "$tmp/$name.json" || bad "$name: report JSON does not say unfinished"
    grep -q "warning: the file was not finished" "$tmp/$name.rerr" || { bad "$name: no warning on stderr"; cat "$tmp/$name.rerr"; }
  else
    grep -q '"unfinished": false' "$tmp/$name.json" || bad "$name: report JSON says unfinished"
  fi
  if [ $have_perf = 1 ]; then
    /usr/bin/perf report --stats -i "$f" </dev/null >"$tmp/$name.perf" 2>&1 ||
      { bad "$name: perf report --stats exit $?"; head "$tmp/$name.perf"; return; }
    grep -Eq "SAMPLE events: +[1-9]" "$tmp/$name.perf" ||
      { bad "$name: perf sees no samples"; head -20 "$tmp/$name.perf"; }
  fi
}

# 1. SIGPIPE: the report goes to `head -1`; the file is finished first.
"$pms" mem -o "$tmp/pipe.data" -- sh -c "$touch_pages" 2>"$tmp/pipe.err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 141 ] || [ "$rc" = 0 ] || bad "SIGPIPE: exit $rc"
check_file pipe "$tmp/pipe.data"

# 2. A crashing workload: 128+11, named, file complete.
"$pms" mem -o "$tmp/segv.data" -- sh -c "$touch_pages; kill -SEGV \$\$" >/dev/null 2>"$tmp/segv.err"
rc=$?
[ "$rc" = 139 ] || bad "workload crash: exit $rc, want 139"
grep -q "killed by SIGSEGV" "$tmp/segv.err" || { bad "workload crash not said"; cat "$tmp/segv.err"; }
check_file segv "$tmp/segv.data"

# The pid of pmuscope's child (the workload), to clean up after kills.
child_of() { cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -m1 .; }

# 3. SIGINT: recording stops, the command gets the signal, 130.
"$pms" mem -o "$tmp/int.data" -- sh -c "$touch_pages; exec sleep 60" >/dev/null 2>"$tmp/int.err" &
pid=$!
sleep 3
kill -INT $pid
wait $pid; rc=$?
[ "$rc" = 130 ] || { bad "SIGINT: exit $rc, want 130"; cat "$tmp/int.err"; }
check_file int "$tmp/int.data"

# 4. SIGKILL of pmuscope: the file read back through recovery, said
# unfinished; perf reads the part the last header sync covered (1/s).
"$pms" mem -o "$tmp/kill.data" -- sh -c "$touch_pages; exec sleep 60" >/dev/null 2>"$tmp/kill.err" &
pid=$!
sleep 4
c=$(child_of $pid)
kill -KILL $pid
wait $pid; rc=$?
[ -n "$c" ] && kill -KILL "$c" 2>/dev/null
[ "$rc" = 137 ] || bad "SIGKILL: exit $rc"
check_file kill "$tmp/kill.data" unfinished

# 5. A full disk: a 128 KiB tmpfs in a private mount namespace (root only).
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  unshare -m sh -c "mount -t tmpfs -o size=128k,mode=1777 none '$tmp/small' 2>/dev/null || exit 99
    '$pms' mem -o '$tmp/small/full.data' -- sh -c '$touch_pages; $touch_pages' >/dev/null 2>'$tmp/full.err'
    echo \$? >'$tmp/full.rc'
    cp -p '$tmp/small/full.data' '$tmp/full.data'" 2>/dev/null
  mkdir -p "$tmp/small"
  if [ -f "$tmp/full.rc" ]; then
    rc=$(cat "$tmp/full.rc")
    [ "$rc" = 74 ] || { bad "disk full: exit $rc, want 74"; cat "$tmp/full.err"; }
    grep -q "writing $tmp/small/full.data failed: .*No space left on device" "$tmp/full.err" ||
      { bad "disk full: the message does not name the file and ENOSPC"; cat "$tmp/full.err"; }
    # the features could not be written: said as not finished
    check_file full "$tmp/full.data" unfinished
  else
    echo "note: disk-full case not run (no tmpfs mount in a namespace here)"
  fi
else
  echo "note: disk-full case not run (needs root and unshare -m)"
fi

exit $fail
