#!/usr/bin/env bash
# Byte-for-byte comparison of two pmuscope binaries on recorded inputs: every
# file-reading command (report in its forms, merged reports, c2c -i, script)
# over the project's perf.data fixtures (tests/fuzz/corpus/*/*.data) and a
# few small files generated with bench/perfdata_gen into a temporary
# directory (deleted at the end; nothing is written into the tree).  stdout,
# stderr and the exit status of each command must be the same.
#   golden_compare.sh BASE_BIN NEW_BIN [PERFDATA_GEN]
# Exit 0 when all match, 1 on a difference (the first lines of each diff are
# shown), 77 when an input is missing.
# Against the pre-session binary (ae0fc17), 4 of 753 commands differ, on
# purpose: merged aggregate reports (--jobs 1 and 2, text and JSON) now state
# the samples' periods (events, period_min/max), which the old parallel
# decode dropped while the one-after-the-other path kept them.
set -u
base=${1:?usage: golden_compare.sh BASE_BIN NEW_BIN [PERFDATA_GEN]}
new=${2:?usage: golden_compare.sh BASE_BIN NEW_BIN [PERFDATA_GEN]}
top=$(cd "$(dirname "$0")/../.." && pwd)
gen=${3:-$top/build/bench/perfdata_gen}
[ -x "$base" ] && [ -x "$new" ] || { echo "golden_compare: no binary"; exit 77; }
base=$(realpath "$base") new=$(realpath "$new")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PMUSCOPE_NO_DAMON=1 LC_ALL=C

files=()
while IFS= read -r f; do files+=("$f"); done < <(find "$top/tests/fuzz/corpus" -name '*.data' | sort)
# the shared third-party perf.data files (perf_data_converter, perfparser)
shared=${PMS_SHARED_DATA:-$top/../shared/data}
[ -d "$shared" ] || shared=/work/shared/data
if [ -d "$shared" ]; then
	while IFS= read -r f; do files+=("$f"); done < <(find "$shared" -type f \( -name '*.data' \
		-o -name 'perf.data*' \) ! -name '*.txt' ! -name '*.pb_text' ! -name '*.out' | sort)
fi
if [ -x "$gen" ]; then
	"$gen" "$tmp/gen_small.data" 20000 4 >/dev/null 2>&1 && files+=("$tmp/gen_small.data")
	"$gen" "$tmp/gen_dsos.data" 20000 8 /usr/lib/x86_64-linux-gnu/libc.so.6 2000 rand \
		>/dev/null 2>&1 && files+=("$tmp/gen_dsos.data")
	"$gen" "$tmp/gen_two.data" 5000 2 >/dev/null 2>&1 && files+=("$tmp/gen_two.data")
else
	echo "golden_compare: no $gen: fixtures only"
fi
[ ${#files[@]} -gt 0 ] || { echo "golden_compare: no inputs"; exit 77; }

n=0 bad=0
run() { # run NAME ARGS...: both binaries, compare stdout, stderr, status
	local name=$1
	shift
	(cd "$tmp" && "$base" "$@" >"$tmp/b.out" 2>"$tmp/b.err" </dev/null; echo $? >"$tmp/b.rc")
	(cd "$tmp" && "$new" "$@" >"$tmp/n.out" 2>"$tmp/n.err" </dev/null; echo $? >"$tmp/n.rc")
	n=$((n + 1))
	for k in out err rc; do
		if ! cmp -s "$tmp/b.$k" "$tmp/n.$k"; then
			bad=$((bad + 1))
			echo "DIFF ($k): $name: $*"
			diff "$tmp/b.$k" "$tmp/n.$k" | head -8
			return
		fi
	done
}

for f in "${files[@]}"; do
	rel=${f#"$top"/}
	rel=${rel#"$tmp"/}
	run "$rel" report -i "$f"
	run "$rel" report -i "$f" --json
	run "$rel" report -i "$f" --json --samples
	run "$rel" report -i "$f" --csv
	run "$rel" report -i "$f" --header --top 3
	run "$rel" report -i "$f" --no-symbols
	run "$rel" report -i "$f" --advise
	run "$rel" report -i "$f" --advise --json
	run "$rel" report -i "$f" --folded
	run "$rel" c2c -i "$f"
	run "$rel" c2c -i "$f" --json
	run "$rel" script -i "$f"
	run "$rel" script -i "$f" --json
	# pipe mode through stdin
	(cd "$tmp" && "$base" report -i - --json <"$f" >"$tmp/b.out" 2>&1; echo $? >>"$tmp/b.out")
	(cd "$tmp" && "$new" report -i - --json <"$f" >"$tmp/n.out" 2>&1; echo $? >>"$tmp/n.out")
	n=$((n + 1))
	cmp -s "$tmp/b.out" "$tmp/n.out" || { bad=$((bad + 1)); echo "DIFF: $rel: report -i - (stdin)"; }
done
# merged reports: in parallel (--jobs 2), one after the other (--jobs 1),
# the kept-samples path, an unreadable file among them
first=${files[0]}
second=${files[1]:-${files[0]}}
last=${files[${#files[@]}-1]}
for j in 1 2; do
	run merged report --jobs $j -i "$first" -i "$second" -i "$last"
	run merged report --jobs $j -i "$first" -i "$second" -i "$last" --json
done
run merged report -i "$first" -i "$last" --json --samples
run merged report -i "$first" -i "$last" --csv
run merged report -i "$first" -i "$last" --advise
run merged report -i "$first" -i /nonexistent.data -i "$last"
run merged report -i "$first" -i /nonexistent.data -i "$last" --csv
run missing report -i /nonexistent.data
run notdata report -i "$top/README.md"
echo "golden_compare: $n commands, $bad differ"
[ "$bad" -eq 0 ]
