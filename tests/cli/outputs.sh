#!/usr/bin/env bash
# Every output pmuscope writes is checked (issue 32): standard output of
# every command on /dev/full, every output file option on /dev/full, on a
# small tmpfs and under an LD_PRELOAD shim failing write/fsync/close at
# chosen calls.  Each failure exits non-zero (74), names the path (or
# "standard output") and the errno, and leaves nothing half-written under
# the target's name: the replaced outputs (--html, --pprof, --report-file,
# --folded FILE, stat -o) are absent, no temporary file is left, and the
# perf.data of -o (written while the run goes, perf's rule) is a readable
# file.  Success paths: output identical to a plain run.
# $1 = pmuscope, $2 = the fault shim (tests/cli/fault_shim.c).
set -u
pms=${1:?usage: outputs.sh PMUSCOPE SHIM}
shim=${2:?usage: outputs.sh PMUSCOPE SHIM}
src=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
tmp=$(mktemp -d)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
bad() { echo "FAIL: $*"; fail=1; }
export PMUSCOPE_NO_DAMON=1 HOME=$tmp
mem_file=$src/tests/fuzz/corpus/memsrc/mem_o_software.data
c2c_file=$src/tests/fuzz/corpus/c2c/mem_o_software.data
[ -f "$mem_file" ] && [ -f "$c2c_file" ] || { echo "SKIP: fixtures missing"; exit 77; }
work='dd if=/dev/zero of=/dev/null bs=1M count=4 2>/dev/null'

# -- standard output on /dev/full, every command -----------------------------
sleep 60 & spid=$!
stdout_cases=(
  "report -i $mem_file" "report --json -i $mem_file" "report --csv -i $mem_file"
  "report --folded -i $mem_file" "script -i $mem_file" "script --json -i $mem_file"
  "c2c -i $c2c_file" "c2c --json -i $c2c_file" "list" "topology" "events" "encode cycles"
  "datasrc 0x1" "help" "--help" "--version" "help report"
  "migrate -p $spid --range 0x1000-0x2000 --to 0"
  "record -e cpu-clock -a --duration 0.2" "record -e cpu-clock --json -- sh -c true"
  "mem --engine software --size 1M" "mem --engine software --json -- sh -c true"
)
for c in "${stdout_cases[@]}"; do
  # shellcheck disable=SC2086
  "$pms" $c >/dev/full 2>"$tmp/err"
  rc=$?
  [ $rc = 74 ] || bad "'$c' > /dev/full: exit $rc, not 74"
  grep -q "writing standard output: No space left on device" "$tmp/err" ||
    { bad "'$c' > /dev/full: no message naming standard output and ENOSPC"; cat "$tmp/err"; }
done
kill $spid 2>/dev/null
# EPIPE is quiet (SIGPIPE ignored as some shells leave it): status kept
(trap '' PIPE; "$pms" script -i "$mem_file" 2>"$tmp/err" | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}" >"$tmp/rc")
[ "$(cat "$tmp/rc")" = 0 ] || bad "script | head with SIGPIPE ignored: exit $(cat "$tmp/rc"), not 0"
[ -s "$tmp/err" ] && { bad "script | head (EPIPE) said something"; cat "$tmp/err"; }

# -- the output file options --------------------------------------------------
# name | command with @ for the path | replaced (r) or perf.data (p)
file_cases=(
  "mem-o|mem --engine software -o @ -- sh -c '$work'|p"
  "mem-report-file|mem --engine software --report-file @ -- sh -c '$work'|r"
  "mem-html|mem --engine software --html @ -- sh -c '$work'|r"
  "mem-pprof|mem --engine software --pprof @ -- sh -c '$work'|r"
  "report-html|report --html @ -i $mem_file|r"
  "report-pprof|report --pprof @ -i $mem_file|r"
  "record-o|record -e page-faults -c 1 -o @ -- sh -c '$work'|p"
  "record-folded|record -e page-faults -c 1 -g --folded @ -- sh -c '$work'|r"
  "stat-o|stat -e task-clock -o @ -- sh -c true|r"
)
run_case() { # command-with-@ path [env...]: exit status; stderr in $tmp/err
  local c=${1//@/$2}
  shift 2
  env ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$@" bash -c "exec \"\$0\" $c" "$pms" >/dev/null 2>"$tmp/err"
}
# after a failure: non-zero, path named, nothing half-written left
check_failed() { # name kind path rc why
  local name=$1 kind=$2 path=$3 rc=$4 why=$5
  [ "$rc" = 74 ] || { bad "$name ($why): exit $rc, not 74"; cat "$tmp/err"; }
  grep -qF "$path" "$tmp/err" || { bad "$name ($why): the message does not name $path"; cat "$tmp/err"; }
  local left
  left=$(find "$(dirname "$path")" -maxdepth 1 -name ".$(basename "$path").*" | head -1)
  [ -z "$left" ] || bad "$name ($why): temporary file left: $left"
  if [ "$kind" = r ]; then
    [ -e "$path" ] && bad "$name ($why): $path left under the target's name"
  elif [ -e "$path" ]; then
    "$pms" report -i "$path" >/dev/null 2>&1 || bad "$name ($why): the perf.data left is not readable"
  fi
  return 0
}
for fc in "${file_cases[@]}"; do
  IFS='|' read -r name cmd kind <<<"$fc"
  # success: a new 0600 file even under umask 000, no temporary left
  (umask 000; run_case "$cmd" "$tmp/ok.$name")
  rc=$?
  [ $rc = 0 ] || { bad "$name: exit $rc"; cat "$tmp/err"; continue; }
  [ "$(stat -c %a "$tmp/ok.$name" 2>/dev/null)" = 600 ] ||
    bad "$name: mode $(stat -c %a "$tmp/ok.$name" 2>/dev/null), not 600"
  [ -z "$(find "$tmp" -maxdepth 1 -name ".ok.$name.*")" ] || bad "$name: temporary file left"
  # /dev/full: ENOSPC on the first write (written in place: a device)
  run_case "$cmd" /dev/full; rc=$?
  [ $rc = 74 ] || { bad "$name -> /dev/full: exit $rc, not 74"; cat "$tmp/err"; }
  grep -q "/dev/full.*No space left on device" "$tmp/err" ||
    { bad "$name -> /dev/full: no path and errno"; cat "$tmp/err"; }
  # the shim: the first, second and third write to a regular file fail;
  # fsync; close
  for n in 1 2 3; do
    rm -f "$tmp/w$n.$name"
    run_case "$cmd" "$tmp/w$n.$name" LD_PRELOAD="$shim" PMS_FAULT_REGULAR=1 PMS_FAULT_WRITE=$n
    rc=$?
    if [ $rc = 0 ]; then
      # fewer writes than n: then the output is whole
      [ -s "$tmp/w$n.$name" ] || bad "$name: write $n failing: exit 0 and no file"
    else
      check_failed "$name" "$kind" "$tmp/w$n.$name" $rc "write $n fails"
    fi
  done
  run_case "$cmd" "$tmp/fs.$name" LD_PRELOAD="$shim" PMS_FAULT_FSYNC=1; rc=$?
  if [ "$kind" = r ]; then
    check_failed "$name" r "$tmp/fs.$name" $rc "fsync fails"
  else
    # perf.data is not synced (as perf): the file is whole
    [ $rc = 0 ] || bad "$name: fsync failing: exit $rc"
  fi
  run_case "$cmd" "$tmp/cl.$name" LD_PRELOAD="$shim" PMS_FAULT_CLOSE=1; rc=$?
  check_failed "$name" "$kind" "$tmp/cl.$name" $rc "close fails"
done

# -- a small tmpfs (root only) ------------------------------------------------
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/small" && mount -t tmpfs -o size=64k tmpfs "$tmp/small" 2>/dev/null; then
  mnt=$tmp/small
  nfull=0
  for fc in "${file_cases[@]}"; do
    IFS='|' read -r name cmd kind <<<"$fc"
    [ "$name" = stat-o ] && continue # 300 bytes: fits
    dd if=/dev/zero of="$mnt/fill" bs=1k count=60 2>/dev/null
    run_case "$cmd" "$mnt/$name"; rc=$?
    if [ $rc = 0 ]; then
      [ -s "$mnt/$name" ] || bad "$name on a full tmpfs: exit 0 and no file" # it fit
    else
      nfull=$((nfull + 1))
      check_failed "$name" "$kind" "$mnt/$name" $rc "tmpfs full"
    fi
    rm -f "$mnt"/* "$mnt"/.??* 2>/dev/null
  done
  [ $nfull -ge 4 ] || bad "only $nfull outputs failed on the full tmpfs"
  # stdout into the full tmpfs: script's whole output does not fit
  dd if=/dev/zero of="$mnt/fill" bs=1k count=60 2>/dev/null
  "$pms" script -i "$mem_file" >"$mnt/script.out" 2>"$tmp/err"; rc=$?
  [ $rc = 74 ] && grep -q "standard output: No space left" "$tmp/err" ||
    { bad "script > full tmpfs: exit $rc"; cat "$tmp/err"; }
else
  echo "note: no tmpfs mount (not root or not allowed): the /dev/full and shim cases stand"
fi

# -- -o moves an existing file to .old (perf's rule), the new one 0600 ----------
echo old >"$tmp/prev.data"; chmod 644 "$tmp/prev.data"
run_case "record -e page-faults -c 1 -o @ -- sh -c true" "$tmp/prev.data" || bad "record -o over a file: exit $?"
[ "$(cat "$tmp/prev.data.old" 2>/dev/null)" = old ] || bad "record -o: the old file is not PATH.old"
[ "$(stat -c %a "$tmp/prev.data")" = 600 ] || bad "record -o over a 0644 file: mode $(stat -c %a "$tmp/prev.data")"

# -- success paths byte-identical to a run without the checked writer ----------
"$pms" script -i "$mem_file" >"$tmp/s1" 2>&1 || bad "script: exit $?"
"$pms" script -i "$mem_file" 2>&1 | cat >"$tmp/s2"
cmp -s "$tmp/s1" "$tmp/s2" || bad "script: file and pipe outputs differ"

[ $fail = 0 ] && echo "outputs: all cases pass"
exit $fail
