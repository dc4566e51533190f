#!/usr/bin/env bash
# report --jobs N on one file (issue 33): the file's data decoded in chunks
# on N threads gives the report of one thread, byte for byte, text and
# JSON, with and without symbols.  Files: perfdata_gen's in every shape the
# split treats otherwise (data in file order; FINISHED_ROUNDs with records
# out of order; timed MMAP2s in the middle; both; data objects in changing
# mappings; frame-pointer call stacks, whose paths each chunk counts and
# the merge joins, in file order and with rounds; DWARF stacks, which are
# read by one thread), a live `mem -o`
# recording, the perf.data files of tests/fixtures, and the real files of
# the shared data (PMS_SHARED_DATA) when there.
set -u
pms=${1:?usage: report_jobs_split.sh PMUSCOPE PERFDATA_GEN}
gen=${2:?usage: report_jobs_split.sh PMUSCOPE PERFDATA_GEN}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PMUSCOPE_NO_DAMON=1

# a sanitizer build (several times slower) reads files a third as long and
# compares --jobs 2 and 4 only, to keep within the test's time on a loaded
# 2-core machine
div=1 jobs="2 3 4"
if ldd "$pms" 2>/dev/null | grep -q 'libasan\|libtsan'; then div=3 jobs="2 4"; fi
files=()
g() { # name, samples, threads, perfdata_gen options
  local n=$1 ns=$(($2 / div)) nt=$3; shift 3
  if "$gen" "$@" "$tmp/$n.data" "$ns" "$nt" >/dev/null 2>&1; then files+=("$tmp/$n.data")
  else echo "FAIL: perfdata_gen $* $n $ns $nt"; fail=1; fi
}
g plain 60000 8
g rounds 60000 8 --rounds=2000
g mid 60000 8 --mmap-every=5000
g both 60000 8 --rounds=1500 --mmap-every=4000
g objs 60000 8 --addr=maps --rounds=3000 --mmap-every=3000 --datasrc=varied
g fp 20000 8 --stack=fp --rounds=2000
g fpq 30000 8 --stack=fp --paths=300 --depth=12
g dwarf 3000 4 --stack=dwarf --stack-size=512
if "$pms" mem --size 8M --quiet -o "$tmp/live.data" >/dev/null 2>&1; then files+=("$tmp/live.data")
else echo "note: no live recording (mem -o failed here)"; fi
for f in "$(dirname "$0")"/../fixtures/*; do
  [ -f "$f" ] && head -c 8 "$f" | grep -q PERFILE && files+=("$f")
done
data=${PMS_SHARED_DATA:-$(dirname "$0")/../../../shared/data}
if [ -d "$data" ]; then
  while IFS= read -r f; do files+=("$f"); done < <(find "$data" -type f -size -40M \
    \( -name 'perf.data*' -o -name '*.perf.data' -o -name '*.data' \) \
    ! -name '*.txt' ! -name '*pb_text' ! -name '*.zlib' | sort)
fi

n=0
for f in "${files[@]}"; do
  for mode in text nosym json; do
    case $mode in
      text) a=() ;;
      nosym) a=(--no-symbols) ;;
      json) a=(--json --no-symbols) ;;
    esac
    "$pms" report "$f" --jobs 1 "${a[@]}" >"$tmp/one" 2>"$tmp/one.err"; r1=$?
    # equal failures are failures too: a sanitizer's report, or a generated
    # or recorded file that does not read
    if grep -q 'runtime error\|Sanitizer' "$tmp/one.err" ||
       { case $f in "$tmp"/*) true;; *) false;; esac && [ "$r1" != 0 ]; }; then
      echo "FAIL: $f ($mode): --jobs 1 exit $r1: $(head -3 "$tmp/one.err")"; fail=1
    fi
    for j in $jobs; do
      "$pms" report "$f" --jobs "$j" "${a[@]}" >"$tmp/many" 2>"$tmp/many.err"; rj=$?
      if [ "$r1" != "$rj" ] || ! cmp -s "$tmp/one" "$tmp/many" || ! cmp -s "$tmp/one.err" "$tmp/many.err" ||
         grep -q 'runtime error\|Sanitizer' "$tmp/many.err"; then
        echo "FAIL: $f ($mode): --jobs $j differs from --jobs 1 (exit $rj vs $r1)"
        diff "$tmp/one" "$tmp/many" | head -5
        fail=1
      fi
      n=$((n + 1))
    done
  done
  # the JSON with symbols too, on the generated and recorded files
  case $f in "$tmp"/*)
    "$pms" report "$f" --jobs 1 --json >"$tmp/one" 2>/dev/null
    "$pms" report "$f" --jobs 2 --json >"$tmp/many" 2>/dev/null
    cmp -s "$tmp/one" "$tmp/many" || { echo "FAIL: $f (json with symbols): --jobs 2 differs"; fail=1; } ;;
  esac
  # the call paths' folded stacks (every distinct path) and the paths with
  # every sample's (--json --samples: kept samples, read by one thread)
  case $f in "$tmp"/fp*)
    # shellcheck disable=SC2086 # a is a word list
    for a in --folded "--json --samples"; do
      "$pms" report "$f" --jobs 1 $a >"$tmp/one" 2>/dev/null
      "$pms" report "$f" --jobs 2 $a >"$tmp/many" 2>/dev/null
      [ -s "$tmp/one" ] && cmp -s "$tmp/one" "$tmp/many" || { echo "FAIL: $f ($a): --jobs 2 differs"; fail=1; }
    done ;;
  esac
done
echo "${#files[@]} files, $n comparisons"
[ "${#files[@]}" -ge 8 ] || { echo "FAIL: too few files"; fail=1; }
exit $fail
