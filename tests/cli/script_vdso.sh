#!/usr/bin/env bash
# [vdso] names (issue 30): a program calling clock_gettime in a loop,
# recorded by perf (cpu-clock), whose samples in the vDSO perf 6.12 names
# from the image in its build-id cache (perf record put it there): script
# -F ip,sym,dso prints what perf prints, the vDSO lines named.  The same
# file with the [vdso] build id changed: both say [unknown] (the running
# image is not the recording's; no wrong name).  A live mem run names
# the vDSO from the running kernel's image; so does report's own table.
set -u
pms=${1:?usage: script_vdso.sh PMUSCOPE LOOP}
loop=${2:?usage: script_vdso.sh PMUSCOPE LOOP}
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
f=$tmp/v.data
# perf's build-id cache is the test's: $HOME/.debug (perf record fills it,
# perf script reads it); no perf config (buildid.dir) but where a case
# writes one
export HOME=$tmp/home PERF_CONFIG=/dev/null
mkdir -p "$HOME"

# a few tries: on a loaded host the loop may get few samples
n=0
for iters in 300000 1000000 3000000; do
  perf record -q -e cpu-clock -c 50000 -o "$f" -- "$loop" $iters >/dev/null 2>"$tmp/rerr" || {
    echo "SKIP: perf record failed: $(tail -2 "$tmp/rerr")"; exit 77; }
  perf script -i "$f" -F ip,sym,dso >"$tmp/perf.txt" 2>/dev/null
  n=$(grep -c ' (\[vdso\])$' "$tmp/perf.txt")
  [ "$n" -ge 3 ] && break
done
[ "$n" -ge 1 ] || { echo "SKIP: no sample in [vdso] after three recordings"; exit 77; }
perf buildid-list -i "$f" | grep ' \[vdso\]$' >"$tmp/ids" || { echo "SKIP: perf listed no [vdso] build id"; exit 77; }

"$pms" script -i "$f" -F ip,sym,dso >"$tmp/pms.txt" 2>"$tmp/err"
[ $? = 0 ] || { echo "FAIL: script exit"; cat "$tmp/err"; fail=1; }
if ! cmp -s "$tmp/perf.txt" "$tmp/pms.txt"; then
  echo "FAIL: script -F ip,sym,dso differs from perf's"; diff "$tmp/perf.txt" "$tmp/pms.txt" | head; fail=1
fi
named=$(grep ' (\[vdso\])$' "$tmp/perf.txt" | grep -vc ' \[unknown\] (\[vdso\])$')
echo "$n samples in [vdso], $named named by perf: $(grep ' (\[vdso\])$' "$tmp/pms.txt" | awk '{print $2}' | sort | uniq -c | tr -s ' \n' ' ')"
[ "$named" -ge 1 ] || { echo "FAIL: perf named no [vdso] sample (its build-id cache?)"; fail=1; }
# the default line and call chains name it the same way
for opts in "" "-F comm,tid,ip,sym,symoff,dso"; do
  perf script -i "$f" $opts >"$tmp/p2" 2>/dev/null
  "$pms" script -i "$f" $opts >"$tmp/o2" 2>/dev/null
  cmp -s "$tmp/p2" "$tmp/o2" || { echo "FAIL: script $opts differs"; diff "$tmp/p2" "$tmp/o2" | head -4; fail=1; }
done

# the [vdso] build id made another (one byte flipped where the header
# lists it): perf's cache has no such image and its own copy is rejected;
# this tool must not name it either
id=$(awk '{print $1}' "$tmp/ids")
python3 - "$f" "$tmp/bad.data" "$id" <<'PY' || { echo "FAIL: could not patch the build id"; exit 1; }
import sys
src, dst, hexid = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
bid = bytes.fromhex(hexid)
i = b.rfind(bid)
assert i > 0 and b.count(bid) == 1, 'the id once in the file'
b[i] ^= 0xff
open(dst, 'wb').write(b)
PY
perf script -i "$tmp/bad.data" -F ip,sym,dso >"$tmp/perf_bad.txt" 2>/dev/null
"$pms" script -i "$tmp/bad.data" -F ip,sym,dso >"$tmp/pms_bad.txt" 2>/dev/null
bad=$(grep ' (\[vdso\])$' "$tmp/pms_bad.txt" | grep -vc ' \[unknown\] (\[vdso\])$')
[ "$bad" = 0 ] || { echo "FAIL: $bad [vdso] samples named from an image whose build id is not the file's"; fail=1; }
cmp -s "$tmp/perf_bad.txt" "$tmp/pms_bad.txt" || {
  echo "FAIL: the mismatching file differs from perf's"; diff "$tmp/perf_bad.txt" "$tmp/pms_bad.txt" | head -4; fail=1; }
# perf's build-id cache (issue 30 item 2): an image of another build id
# (the recording's id changed, one byte) put in $HOME/.debug as perf record
# puts one ([vdso]/<id>/vdso and the .build-id link), with
# __vdso_clock_gettime renamed in it: perf names the samples from that
# image; so must script (-F ip,sym,dso), report -s sym,dso and report's
# own table.  Fails where only the running image is taken ([unknown]).
cdir=$(ls -d "$HOME/.debug/[vdso]"/*/ 2>/dev/null | head -1)
if [ -z "$cdir" ] || [ ! -s "$cdir/vdso" ]; then
  echo "FAIL: perf record put no [vdso] image in \$HOME/.debug"; fail=1
elif python3 - "$cdir/vdso" "$HOME/.debug" "$f" "$tmp/cached.data" "$id" <<'PY'
import os, sys
src, dbg, data, out, hexid = sys.argv[1:6]
img = bytearray(open(src, 'rb').read())
old = bytes.fromhex(hexid)
i = img.find(old)
assert i > 0, 'the id in the image'
img[i + 1] ^= 0x5a
new = bytes(img[i:i + 20]).hex()
assert img.count(b'__vdso_clock_gettime\0') == 1
img = img.replace(b'__vdso_clock_gettime\0', b'__vdso_clock_gettimX\0')
os.makedirs(f'{dbg}/[vdso]/{new}')
open(f'{dbg}/[vdso]/{new}/vdso', 'wb').write(img)
os.makedirs(f'{dbg}/.build-id/{new[:2]}', exist_ok=True)
os.symlink(f'../../[vdso]/{new}', f'{dbg}/.build-id/{new[:2]}/{new[2:]}')
b = bytearray(open(data, 'rb').read())
assert b.count(old) == 1
j = b.find(old)
b[j:j + 20] = bytes.fromhex(new)
open(out, 'wb').write(b)
PY
then
  perf script -i "$tmp/cached.data" -F ip,sym,dso >"$tmp/perf_c.txt" 2>/dev/null
  "$pms" script -i "$tmp/cached.data" -F ip,sym,dso >"$tmp/pms_c.txt" 2>/dev/null
  cn=$(grep -c ' __vdso_clock_gettimX (\[vdso\])$' "$tmp/perf_c.txt")
  [ "$cn" -ge 1 ] || { echo "FAIL: perf named no sample from its cache's image"; fail=1; }
  cmp -s "$tmp/perf_c.txt" "$tmp/pms_c.txt" || {
    echo "FAIL: the cached image's file: script differs from perf's"; diff "$tmp/perf_c.txt" "$tmp/pms_c.txt" | head -4; fail=1; }
  perf report -i "$tmp/cached.data" --stdio -n -s sym,dso 2>/dev/null | grep -v '^#' | grep . | sed -E 's/ +/ /g; s/ $//' | sort >"$tmp/perf_cr.txt"
  "$pms" report -i "$tmp/cached.data" -n -s sym,dso 2>/dev/null | grep -v '^#' | grep . | sed -E 's/ +/ /g; s/ $//' | sort >"$tmp/pms_cr.txt"
  cmp -s "$tmp/perf_cr.txt" "$tmp/pms_cr.txt" || {
    echo "FAIL: the cached image's file: report -s sym,dso differs from perf's"; diff "$tmp/perf_cr.txt" "$tmp/pms_cr.txt" | head -4; fail=1; }
  own=$("$pms" report --top 1000 -i "$tmp/cached.data" 2>/dev/null | awk '/ \(\[vdso\]\)$/ && $2 ~ /%$/ {print $(NF-1)}' | sort -u)
  [ "$own" = "__vdso_clock_gettimX" ] || { echo "FAIL: report's table names the cached image's [vdso] rows [$own]"; fail=1; }
  echo "perf's cache: $cn samples named __vdso_clock_gettimX by perf; script and report as perf's"
  # buildid.dir (issue 30 item 4): the cache moved where ~/.perfconfig's
  # [buildid] dir says; perf reads it there with PERF_CONFIG unset (so must
  # pmuscope), and not with PERF_CONFIG=/dev/null ([unknown], as perf)
  mv "$HOME/.debug" "$HOME/moved"
  printf '[buildid]\n\tdir = %s/moved\n' "$HOME" >"$HOME/.perfconfig"
  for pc in unset /dev/null; do
    ( [ $pc = unset ] && unset PERF_CONFIG
      perf script -i "$tmp/cached.data" -F ip,sym,dso 2>/dev/null >"$tmp/perf_d.txt"
      "$pms" script -i "$tmp/cached.data" -F ip,sym,dso 2>/dev/null >"$tmp/pms_d.txt" )
    dn=$(grep -c ' __vdso_clock_gettimX (\[vdso\])$' "$tmp/perf_d.txt")
    { [ $pc = unset ] && [ "$dn" -ge 1 ]; } || { [ $pc != unset ] && [ "$dn" = 0 ]; } ||
      { echo "FAIL: buildid.dir, PERF_CONFIG $pc: perf named $dn samples from the moved cache"; fail=1; }
    cmp -s "$tmp/perf_d.txt" "$tmp/pms_d.txt" || {
      echo "FAIL: buildid.dir, PERF_CONFIG $pc: script differs from perf's"; diff "$tmp/perf_d.txt" "$tmp/pms_d.txt" | head -4; fail=1; }
    echo "buildid.dir, PERF_CONFIG $pc: perf names $dn samples from the moved cache; script as perf's"
  done
  rm -f "$HOME/.perfconfig"
  mv "$HOME/moved" "$HOME/.debug"
else
  echo "FAIL: could not make the cached image"; fail=1
fi
# no build ids in the file (perf record -B): the running image only for a
# recording of this host and kernel.  Here: the [vdso] lines as perf's (the
# kernel's lines differ without a kernel build id: not this test's).  With
# the header's hostname changed: [unknown], where perf takes its own copy
# whatever the host (a deliberate difference, docs/script.md)
perf record -q -B -e cpu-clock -c 50000 -o "$tmp/nb.data" -- "$loop" 1000000 >/dev/null 2>&1
perf script -i "$tmp/nb.data" -F ip,sym,dso 2>/dev/null | grep ' (\[vdso\])$' >"$tmp/nb_perf.txt"
"$pms" script -i "$tmp/nb.data" -F ip,sym,dso 2>/dev/null | grep ' (\[vdso\])$' >"$tmp/nb_pms.txt"
if [ ! -s "$tmp/nb_perf.txt" ]; then
  echo "note: the -B recording has no [vdso] sample; not compared"
else
  cmp -s "$tmp/nb_perf.txt" "$tmp/nb_pms.txt" || {
    echo "FAIL: no build ids, this host: [vdso] lines differ from perf's"; diff "$tmp/nb_perf.txt" "$tmp/nb_pms.txt" | head -4; fail=1; }
  grep -qv ' \[unknown\] (\[vdso\])$' "$tmp/nb_pms.txt" || { echo "FAIL: no build ids, this host: nothing named"; fail=1; }
  if python3 - "$tmp/nb.data" "$tmp/nbh.data" "$(hostname)" <<'PY'
import sys
src, dst, h = sys.argv[1], sys.argv[2], sys.argv[3].encode()
b = bytearray(open(src, 'rb').read())
if not h or b.count(h) != 1:
    sys.exit(1)
i = b.find(h)
b[i:i + len(h)] = bytes(ord('a') if c == ord('z') else c + 1 for c in h)
open(dst, 'wb').write(b)
PY
  then
    other=$("$pms" script -i "$tmp/nbh.data" -F ip,sym,dso 2>/dev/null | grep ' (\[vdso\])$' | grep -vc ' \[unknown\] (\[vdso\])$')
    [ "$other" = 0 ] || { echo "FAIL: no build ids, another host: $other [vdso] samples named"; fail=1; }
    # a merged report of this file (passes the rule) and the other host's
    # (fails it): each file's [vdso] rows as in its own report, in the
    # aggregate and the kept modes (the rule is per file).  Not compared
    # when the two [vdso] mappings overlap (one range: left unnamed).
    vr() { perf script -i "$1" --show-mmap-events 2>/dev/null |
           sed -n 's/.*PERF_RECORD_MMAP2\{0,1\} .*\[\(0x[0-9a-f]*\)(\(0x[0-9a-f]*\)).*\[vdso\]$/\1 \2/p'; }
    if python3 - "$(vr "$f")" "$(vr "$tmp/nbh.data")" <<'PY'
import sys
def ranges(t):
    return [(int(a, 16), int(a, 16) + int(l, 16)) for a, l in (x.split() for x in t.splitlines())]
a, b = ranges(sys.argv[1]), ranges(sys.argv[2])
sys.exit(1 if not a or any(x[0] < y[1] and y[0] < x[1] for x in a for y in b) else 0)
PY
    then
      for m in "" "--samples"; do
        for i in "$f" "$tmp/nbh.data"; do
          # shellcheck disable=SC2086 # m is one option or none
          "$pms" report -i "$i" --json $m --top 100000 >"$tmp/one_$(basename "$i").json" 2>/dev/null
        done
        # shellcheck disable=SC2086
        "$pms" report -i "$tmp/nbh.data" -i "$f" --json $m --top 100000 >"$tmp/merged.json" 2>/dev/null
        python3 - "$tmp/one_$(basename "$f").json" "$tmp/one_nbh.data.json" "$tmp/merged.json" "$m" <<'PY' || fail=1
import collections, json, sys
a, b, m = (json.load(open(x)) for x in sys.argv[1:4])
def vdso(r):
    c = collections.Counter()
    for x in r["top"]["functions_by_samples"]:
        if x.get("module") == "[vdso]":
            c[x["name"]] += x["samples"]
    return c
want, got = vdso(a) + vdso(b), vdso(m)
named = sum(n for k, n in want.items() if k != "[unknown]")
if want != got or not named or not want["[unknown]"]:
    print("FAIL: merged report [%s]: [vdso] rows %r, the files' own %r" % (sys.argv[4], dict(got), dict(want)))
    sys.exit(1)
print("merged [%s]: [vdso] rows %r, as the files' own" % (sys.argv[4], dict(got)))
PY
      done
    else
      echo "note: the two recordings' [vdso] mappings overlap; the merged report not compared"
    fi
  else
    echo "note: the hostname is not once in the -B file; the other-host case not checked"
  fi
fi

# report's own tables (the session's symbolizer): the same names, none for
# the changed id
pnames=$(awk '/ \(\[vdso\]\)$/ {print $2}' "$tmp/perf.txt" | sort -u)
rnames=$("$pms" report --top 1000 -i "$f" 2>/dev/null | awk '/ \(\[vdso\]\)$/ && $2 ~ /%$/ {print $(NF-1)}' | sort -u)
[ -n "$rnames" ] && [ "$rnames" = "$pnames" ] || { echo "FAIL: report names [vdso] rows [$rnames], perf script [$pnames]"; fail=1; }
rbad=$("$pms" report --top 1000 -i "$tmp/bad.data" 2>/dev/null | awk '/ \(\[vdso\]\)$/ && $2 ~ /%$/ {print $(NF-1)}' | sort -u)
[ "$rbad" = "[unknown]" ] || { echo "FAIL: report of the changed id names [vdso] rows [$rbad]"; fail=1; }

# a live run (mem: page faults): the first clock_gettime faults its data
# page in with the IP in the vDSO; named from the running kernel's image,
# as perf record -e page-faults -c 1 names that fault
# (a few tries each: now and then the page is in before the first call)
want= got=
for try in 1 2 3; do
  [ -n "$want" ] || {
    perf record -q -e page-faults -c 1 -o "$tmp/pf.data" -- "$loop" 1000 >/dev/null 2>&1
    want=$(perf script -i "$tmp/pf.data" -F ip,sym,dso 2>/dev/null | awk '/\(\[vdso\]\)$/ {print $2}' | sort -u); }
  [ -n "$got" ] || {
    PMUSCOPE_NO_DAMON=1 "$pms" mem --top 1000 -- "$loop" 1000 >"$tmp/mem.txt" 2>&1
    got=$(awk '/ \(\[vdso\]\)$/ && $2 ~ /%$/ {print $(NF-1)}' "$tmp/mem.txt" | sort -u); }
done
if [ -z "$want" ]; then
  echo "note: perf saw no page fault in [vdso]; the live run is not compared"
elif [ "$got" != "$want" ]; then
  echo "FAIL: mem names the [vdso] fault [$got], perf [$want]"; grep '\[vdso\]' "$tmp/mem.txt"; fail=1
else
  echo "live: mem names the [vdso] fault $got, as perf"
fi
[ $fail = 0 ] && echo "ok: [vdso] names as perf's, none for a mismatching build id"
exit $fail
