#!/usr/bin/env bash
# The output files' permission and symlink matrix (issue 32, item 2), for
# every output option: an existing file of another user, a symlink to it, a
# symlink planted in a sticky world-writable directory pointing at a
# root-only file, a read-only directory, umask 000.  No foreign file is
# written (the inode at the name, or behind the link, keeps its bytes), every
# new file is 0600, -o keeps the old file as PATH.old, stat --append writes
# only to the caller's own regular file.  Runs as root with an unprivileged
# user (nobody) as the other party; skipped when not root.
# $1 = pmuscope.
set -u
pms=${1:?usage: outputs_perms.sh PMUSCOPE}
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a second user owns the victim files)"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
fail=0
tmp=$(mktemp -d /tmp/pms_perms.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
bad() { echo "FAIL: $*"; fail=1; }
export PMUSCOPE_NO_DAMON=1 HOME=$tmp
mem_file=$src/tests/fuzz/corpus/memsrc/mem_o_software.data
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
work='dd if=/dev/zero of=/dev/null bs=1M count=2 2>/dev/null'
cases=(
  "mem-o|mem --engine software -o @ -- sh -c '$work'|p"
  "mem-report-file|mem --engine software --report-file @ -- sh -c '$work'|r"
  "mem-html|mem --engine software --html @ -- sh -c '$work'|r"
  "mem-pprof|mem --engine software --pprof @ -- sh -c '$work'|r"
  "report-html|report --html @ -i $tmp/in.data|r"
  "report-pprof|report --pprof @ -i $tmp/in.data|r"
  "record-o|record -e page-faults -c 1 -o @ -- sh -c '$work'|p"
  "record-folded|record -e page-faults -c 1 -g --folded @ -- sh -c '$work'|r"
  "stat-o|stat -e task-clock -o @ -- sh -c true|r"
  "stat-append|stat -e task-clock --append -o @ -- sh -c true|a"
)
cp "$mem_file" "$tmp/in.data"; chmod 644 "$tmp/in.data"
run() { # [prefix...] -- command-with-@ path
  local pre=()
  while [ "$1" != -- ]; do pre+=("$1"); shift; done
  shift
  local c=${1//@/$2}
  "${pre[@]}" bash -c "exec \"\$0\" $c" "$pms" >/dev/null 2>"$tmp/err"
}
mkdir "$tmp/sticky"; chmod 1777 "$tmp/sticky"
mkdir "$tmp/ro"; chown nobody "$tmp/ro"; chmod 555 "$tmp/ro"
echo "root only" >"$tmp/secret"; chmod 600 "$tmp/secret"
for c in "${cases[@]}"; do
  IFS='|' read -r name cmd kind <<<"$c"
  d=$tmp/$name; mkdir "$d"
  # 1. an existing file of another user (a hard link keeps its inode in view)
  echo victim >"$d/theirs"; chown nobody "$d/theirs"; chmod 644 "$d/theirs"
  ln "$d/theirs" "$d/theirs.keep"
  run -- "$cmd" "$d/theirs"; rc=$?
  if [ "$kind" = a ]; then
    [ $rc = 1 ] && grep -q "belongs to another user" "$tmp/err" || bad "$name onto another user's file: exit $rc, not refused"
  else
    [ $rc = 0 ] || { bad "$name onto another user's file: exit $rc"; cat "$tmp/err"; }
    [ "$(stat -c '%U %a' "$d/theirs")" = "root 600" ] ||
      bad "$name onto another user's file: it is $(stat -c '%U %a' "$d/theirs"), not a new root 0600 file"
  fi
  [ "$(cat "$d/theirs.keep")" = victim ] || bad "$name: wrote into another user's file"
  if [ "$kind" = p ]; then
    [ "$(cat "$d/theirs.old" 2>/dev/null)" = victim ] || bad "$name: the old file is not at .old"
  fi
  # 2. a symlink to it
  echo victim >"$d/v2"; chown nobody "$d/v2"; chmod 644 "$d/v2"
  ln -s "$d/v2" "$d/link"
  run -- "$cmd" "$d/link"; rc=$?
  [ "$(cat "$d/v2")" = victim ] || bad "$name: wrote through a symlink into another user's file"
  if [ "$kind" = a ]; then
    [ $rc = 1 ] || bad "$name onto a symlink: exit $rc, not refused (1)"
  else
    [ $rc = 0 ] || { bad "$name onto a symlink: exit $rc"; cat "$tmp/err"; }
    [ -L "$d/link" ] && bad "$name: the symlink was followed (it is still a link and the output went elsewhere)"
  fi
  # 3. a symlink planted by another user in a sticky world-writable directory
  t=$tmp/sticky/$name
  as_nobody ln -s "$tmp/secret" "$t"
  run -- "$cmd" "$t"; rc=$?
  [ "$(cat "$tmp/secret")" = "root only" ] || { bad "$name: a planted symlink overwrote a root-only file"; echo "root only" >"$tmp/secret"; }
  [ "$(stat -c %a "$tmp/secret")" = 600 ] || bad "$name: the root-only file's mode changed"
  # 4. a read-only directory (the other user writing)
  run as_nobody -- "$cmd" "$tmp/ro/$name"; rc=$?
  [ $rc != 0 ] || bad "$name into a read-only directory: exit 0"
  grep -q "$tmp/ro/$name.*Permission denied" "$tmp/err" ||
    { bad "$name into a read-only directory: path and errno not named"; cat "$tmp/err"; }
  [ -z "$(ls -A "$tmp/ro")" ] || { bad "$name: something written into a read-only directory"; ls -la "$tmp/ro"; }
  # 5. umask 000: a new file is 0600
  (umask 000; run -- "$cmd" "$d/new"); rc=$?
  [ $rc = 0 ] || { bad "$name under umask 000: exit $rc"; cat "$tmp/err"; }
  [ "$(stat -c %a "$d/new" 2>/dev/null)" = 600 ] || bad "$name under umask 000: mode $(stat -c %a "$d/new" 2>/dev/null)"
  [ -z "$(find "$d" "$tmp/sticky" -name '.*.??????')" ] || bad "$name: a temporary file was left"
done
# --append onto the caller's own file: appended
echo first >"$tmp/own"; chmod 600 "$tmp/own"
run -- "stat -e task-clock --append -o @ -- sh -c true" "$tmp/own" || bad "stat --append to one's own file: exit $?"
[ "$(head -1 "$tmp/own")" = first ] && [ "$(wc -l <"$tmp/own")" -gt 2 ] || bad "stat --append did not append"
[ $fail = 0 ] && echo "outputs_perms: all cases pass"
exit $fail
