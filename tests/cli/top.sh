#!/usr/bin/env bash
# pmuscope top (issue 30, item 5): --batch -n 3 prints exactly three frames,
# --json one object per frame, usage errors, a COMMAND's exit status; and
# in a tmux pane (send-keys, capture-pane): rows of a page-faulting process
# within two refreshes, a key changes the view and the sort (the order of
# the rows and the header say so), q and Ctrl-C quit and leave the terminal
# as it was (no alternate screen, the same stty settings, the prompt back).
# Never a fixed sleep as an assertion: every wait polls up to a minute.
set -u
pms=${1:?usage: top.sh PMUSCOPE}
export PMUSCOPE_NO_DAMON=1 # never DAMON on the test host (top has no DAMON path anyway)
tmp=$(mktemp -d)
fail=0
wl=
sock=$tmp/tmux.sock
cleanup() {
  [ -n "$wl" ] && kill "$wl" 2>/dev/null
  command -v tmux >/dev/null && tmux -S "$sock" kill-server 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
bad() { echo "FAIL: $*"; fail=1; }

# The workload: two named threads mapping, writing and unmapping 2 MiB in a
# loop (every page a new first touch: a page-fault sample each), one of
# them five times as often.
cat >"$tmp/wl.py" <<'EOF'
import ctypes, mmap, threading, time
libc = ctypes.CDLL(None)
ones = b"\x01" * (2 << 20)
def run(name, pause):
    libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME
    while True:
        m = mmap.mmap(-1, len(ones))
        m.write(ones)
        m.close()
        time.sleep(pause)
for n, p in (("topwl_zz", 0.01), ("topwl_aa", 0.05)):
    threading.Thread(target=run, args=(n, p), daemon=True).start()
while True:
    time.sleep(1)
EOF
python3 "$tmp/wl.py" & wl=$!
# python3 may be a wrapper (a pyenv shim runs a few programs, then execs it)
for ((i = 0; i < 300; i++)); do
  [ "$(cat /proc/$wl/comm 2>/dev/null)" = python3 ] && [ "$(ls /proc/$wl/task | wc -l)" -ge 3 ] && break
  sleep 0.2
done
[ "$(cat /proc/$wl/comm 2>/dev/null)" = python3 ] || { echo "FAIL: the workload did not start"; exit 1; }

# ---- usage -----------------------------------------------------------------
for a in "--engine damon" "-d 0" "-n 0" "--view nosuch" "--sort nosuch" "-p 1 -- true" "-F 10 -c 10"; do
  # shellcheck disable=SC2086
  "$pms" top $a >/dev/null 2>"$tmp/e"; rc=$?
  [ $rc = 2 ] || bad "top $a: exit $rc, want 2 ($(cat "$tmp/e"))"
done
"$pms" top --help | grep -q -- "--batch" || bad "top --help lacks --batch"

# ---- batch -----------------------------------------------------------------
"$pms" top --batch -n 3 -d 0.5 -p "$wl" >"$tmp/b.txt" 2>"$tmp/b.err"; rc=$?
[ $rc = 0 ] || { bad "--batch -n 3: exit $rc"; cat "$tmp/b.err"; }
n=$(grep -c '^pmuscope top: frame [0-9]*, pid ' "$tmp/b.txt")
[ "$n" = 3 ] || bad "--batch -n 3 printed $n frames, want 3"
n=$(grep -c '^=\{78\}$' "$tmp/b.txt")
[ "$n" = 2 ] || bad "--batch -n 3: $n separators, want 2"
grep -q '^engine: ' "$tmp/b.txt" || bad "--batch: no engine line"
grep -q '^samples: .*lost: ' "$tmp/b.txt" || bad "--batch: no samples/lost line"
grep -Eq "^ +$wl python3 +[0-9]+ " "$tmp/b.txt" || { bad "--batch: no row of pid $wl"; cat "$tmp/b.txt"; }
# not a terminal: batch without asking, and no escape sequence anywhere
"$pms" top -n 1 -d 0.5 -p "$wl" >"$tmp/nt.txt" 2>&1 || bad "top to a pipe: exit $?"
grep -q $'\033' "$tmp/nt.txt" && bad "top to a pipe wrote escape sequences"
grep -q '^pmuscope top: frame 1' "$tmp/nt.txt" || bad "top to a pipe printed no frame"

"$pms" top --json -n 2 -d 0.5 -p "$wl" >"$tmp/j.txt" 2>"$tmp/j.err" || { bad "--json exit $?"; cat "$tmp/j.err"; }
python3 - "$tmp/j.txt" "$wl" <<'EOF' || bad "--json frames"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
pid = int(sys.argv[2])
assert len(lines) == 2, len(lines)
fr = [json.loads(l) for l in lines]
assert [f["frame"] for f in fr] == [1, 2]
for f in fr:
    for k in ("processes", "threads", "objects", "functions"):
        assert isinstance(f[k], list), k
    assert f["samples"] == sum(p["samples"] for p in f["processes"]), f["samples"]
    assert f["engine"]["name"] and "lost" in f and "lost_total" in f
assert any(p["pid"] == pid and p["samples"] > 0 for f in fr for p in f["processes"])
assert any(t["comm"] == "topwl_zz" for f in fr for t in f["threads"])
EOF

# a COMMAND: its exit status is top's
"$pms" top --batch -d 5 -- sh -c 'exit 3' >/dev/null 2>&1; rc=$?
[ $rc = 3 ] || bad "top -- sh -c 'exit 3': exit $rc, want 3"

# -n reached while the COMMAND runs: top ends it and exits 0
"$pms" top --batch -n 1 -d 0.5 -- sleep 600 >/dev/null 2>&1; rc=$?
[ $rc = 0 ] || bad "top -n 1 -- sleep 600: exit $rc, want 0"

# ---- the terminal (tmux) ----------------------------------------------------
if ! command -v tmux >/dev/null; then
  echo "SKIP: the terminal part needs tmux (scripts/deps.sh test installs it)"
  [ $fail = 0 ] && exit 77
  exit $fail
fi
tm() { tmux -S "$sock" "$@"; }
cap() { tm capture-pane -p -t t; }
# wait until the pane shows what grep -E $1 finds (60 s at most)
wait_for() {
  local i
  for ((i = 0; i < 300; i++)); do
    cap | grep -Eq -- "$1" && return 0
    sleep 0.2
  done
  return 1
}
tm -f /dev/null new-session -d -x 160 -y 40 -s t "env PS1='PROMPT\$ ' bash --norc --noprofile" ||
  { bad "tmux new-session"; exit $fail; }
tm set-option -t t remain-on-exit on >/dev/null
wait_for '^PROMPT\$' || bad "the pane's shell gave no prompt"
# The markers are spelt do''ne1 in the command: a command line longer than
# the pane wraps, and a wrapped part that begins "done1" matched ^done1
# before top had quit (an ASan run under load).
tm send-keys -t t "stty -g >$tmp/stty.before; $pms top -p $wl; echo top-exit=\$?; stty -g >$tmp/stty.after; echo do''ne1" Enter

# rows within two refreshes: the first frame that shows the process's row is
# frame 1 or 2 (frames every 2 s; polled every 0.2 s)
first=
for ((i = 0; i < 300; i++)); do
  c=$(cap)
  f=$(printf '%s\n' "$c" | sed -n 's/^pmuscope top: frame \([0-9]*\),.*/\1/p' | head -1)
  if [ -n "$f" ] && printf '%s\n' "$c" | grep -Eq "^ +$wl python3 +[0-9]+ "; then first=$f; break; fi
  [ -n "$f" ] && [ "$f" -gt 2 ] && break
  sleep 0.2
done
[ "$(tm display -p -t t '#{alternate_on}')" = 1 ] || bad "top did not use the alternate screen"
if [ -z "$first" ] || [ "$first" -gt 2 ]; then
  bad "no row of pid $wl within two refreshes (first at frame ${first:-none})"; cap
fi
cap | grep -q '^engine: ' || bad "the screen has no engine line"
cap | grep -q 'lost: ' || bad "the screen has no losses"

# thread view, sorted by samples: the SAMPLES column never grows downwards
tm send-keys -t t t
wait_for '^view: thread +sort: samples' || bad "key t: no thread view"
wait_for '^ +[0-9]+ +[0-9]+ topwl_aa ' && wait_for '^ +[0-9]+ +[0-9]+ topwl_zz ' ||
  bad "thread view: the workload's two threads are not both shown"
rows() { cap | grep -E '^ +[0-9]+ +[0-9]+ [^ ]' ; }
rows | awk '{ print $4 }' >"$tmp/s1"
sort -n -r -c "$tmp/s1" 2>/dev/null || { bad "thread view is not by samples"; cap; }
# n: by name; the header and the order say so (checked on one capture)
tm send-keys -t t n
wait_for '^view: thread +sort: name' || bad "key n: the header does not say sort: name"
cap | grep -q 'COMMAND\*' || bad "key n: the COMMAND column is not marked"
rows | awk '{ print $3 }' >"$tmp/n1"
LC_ALL=C sort -c "$tmp/n1" 2>/dev/null || { bad "sort by name: rows out of order"; cap; }
awk '$0 == "topwl_aa" { a = NR } $0 == "topwl_zz" { z = NR } END { exit !(a && z && a < z) }' "$tmp/n1" ||
  bad "sort by name: topwl_aa is not above topwl_zz"
# s: back to samples
tm send-keys -t t s
wait_for '^view: thread +sort: samples' || bad "key s: the header does not say sort: samples"

# q: quits; the prompt is back, no alternate screen, the same stty settings
tm send-keys -t t q
wait_for '^done1' || { bad "q did not end top"; cap; }
cap | grep -q '^top-exit=0$' || bad "q: exit status $(cap | grep top-exit)"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || bad "q left the alternate screen on"
cap | grep -q '^pmuscope top: frame' && bad "q: the frame is still on the screen"
cmp -s "$tmp/stty.before" "$tmp/stty.after" || bad "q: stty settings changed ($(cat "$tmp/stty.before") -> $(cat "$tmp/stty.after"))"
wait_for '^PROMPT\$ *$' || bad "q: no prompt after top"

# Ctrl-C: the same way out
tm send-keys -t t "clear; $pms top -d 1 -p $wl; echo top-exit=\$?; stty -g >$tmp/stty.after2; echo do''ne2" Enter
wait_for '^pmuscope top: frame' || bad "second top: no frame"
tm send-keys -t t C-c
wait_for '^done2' || { bad "Ctrl-C did not end top"; cap; }
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || bad "Ctrl-C left the alternate screen on"
cmp -s "$tmp/stty.before" "$tmp/stty.after2" || bad "Ctrl-C: stty settings changed"
exit $fail
