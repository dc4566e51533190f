#!/usr/bin/env bash
# pmuscope report/script against perf's fair equivalents on the same
# perf.data files (issue 21).  Not a test: it prints medians and ratios.
#
#   bench/perfdata_bench.sh [BUILD_DIR [SAMPLES [RUNS [SHAPES]]]]
#
# BUILD_DIR (default build) holds pmuscope and bench/perfdata_gen; SAMPLES
# (default 5000000) per generated file; RUNS (default 3) paired runs per
# command; SHAPES (default "bench dso rand varied dsov objs fp dwarf") which files:
#   bench  64 threads mapping libc, IPs in its first MiB (~262 K distinct)
#   dso    300 K distinct IPs over the text of 20 system shared objects
#   rand   like bench, but random snoop/TLB/lock/block bits: distinct
#          data_src words track samples (the report memory shape)
#   varied like bench, with the ~3,200 distinct data_src words pmuscope's
#          PEBS, IBS and SPE decoders make (as real files carry)
#   dsov   dso's random IPs over 20 objects with varied's data_src words
#   objs   dsov with data addresses at random in the 20 objects' mappings
#          (many data objects: every sample looks its object up)
#   fp     frame-pointer callchains (a tree of 20 K paths, up to 24 deep),
#          SAMPLES/5 samples; adds report vs `perf report --no-children`
#   dwarf  DWARF stacks (registers + 2 KiB of stack a sample), SAMPLES/25
#          samples; adds report vs `perf report --no-children`
#   realdwarf  a real DWARF-stack file: `perf record -e cpu-clock -F 4000
#          --call-graph dwarf,4096` of bench/dwarf_work.c (built here with
#          cc), a few thousand samples whatever SAMPLES is; adds report vs
#          `perf report --no-children` (needs perf record to work here)
#   huge   a 10 GB file (140 M samples of the bench shape), report only:
#          report, --no-symbols, script -F ip, peak memory; deleted after
#          (never in the default list: it needs 10 GB in ${TMPDIR:-/tmp})
# Files are generated under ${TMPDIR:-/tmp}/pms-bench-*.data when missing.
# PMS_BENCH_REPORT_ONLY=1 runs only `report`, `perf mem report --sort=mem`,
# `report --no-symbols` and `script -F ip` (the per-sample perf commands
# take minutes a run at 5 M samples); PMS_BENCH_NO_PER_SAMPLE=1 leaves
# out only the per-sample `perf mem report` (the slowest of them);
# PMS_BENCH_SCRIPT_ONLY=1 runs only the `script` commands against `perf
# script` (text and JSON, -F and default fields, sym and dso included).
#
# Paired and interleaved: each run does pmuscope then perf, one after the
# other, so a loaded machine slows both alike; figures are medians of
# RUNS.  "cpu" is user+sys seconds, "wall" elapsed, "rss" peak resident
# (GNU time).  The load average before and after is printed: say it with
# the figures.
set -eu
build=${1:-build}
n=${2:-5000000}
runs=${3:-3}
shapes=${4:-bench dso rand varied dsov objs fp dwarf}
pms=$build/pmuscope
gen=$build/bench/perfdata_gen
[ -x "$pms" ] && [ -x "$gen" ] || { echo "build $build first (ninja -C $build)" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
home=$(mktemp -d); trap 'rm -rf "$home"' EXIT
export HOME=$home PERF_CONFIG=/dev/null LC_ALL=C
unset DEBUGINFOD_URLS
lib=/usr/lib/x86_64-linux-gnu
dsos=
for f in libcrypto.so.3 libpython3.11.so.1.0 libgtk-3.so.0 libperl.so.5.36 libprotobuf.so.32 \
	 libicui18n.so.72 libstdc++.so.6 libgnutls.so.30 libgfortran.so.5 libcapstone.so.4 \
	 libx265.so.199 librsvg-2.so.2 libaom.so.3 libgrpc.so.29 libz3.so.4 libasan.so.8 \
	 libtsan.so.2 libubsan.so.1 liblsan.so.0 libgprofng.so.0 libLLVM-15.so.1 libclang-14.so.14 \
	 libpython3.12.so.1.0 libicuuc.so.72 libxml2.so.2 libsqlite3.so.0 libglib-2.0.so.0 libc.so.6; do
	[ -r "$lib/$f" ] || continue
	[ "$(echo "$dsos" | tr ':' '\n' | grep -c .)" -ge 20 ] && break
	dsos=${dsos:+$dsos:}$(readlink -f "$lib/$f")
done

samples_of() {
	case $1 in
	fp) echo $((n / 5)) ;;
	dwarf) echo $((n / 25)) ;;
	huge) echo 140000000 ;;
	realdwarf) echo rec ;;
	*) echo "$n" ;;
	esac
}
file_of() { echo "${TMPDIR:-/tmp}/pms-bench-$1-$(samples_of "$1").data"; }
make_file() {
	local f m; f=$(file_of "$1"); m=$(samples_of "$1")
	[ -s "$f" ] && return 0
	case $1 in
	bench|huge) "$gen" "$f" "$m" >&2 ;;
	dso) "$gen" "$f" "$m" 64 "$dsos" 300000 >&2 ;;
	rand) "$gen" "$f" "$m" 64 "$lib/libc.so.6" 0 rand >&2 ;;
	varied) "$gen" --datasrc=varied "$f" "$m" >&2 ;;
	dsov) "$gen" --datasrc=varied "$f" "$m" 64 "$dsos" 300000 >&2 ;;
	objs) "$gen" --datasrc=varied --addr=maps "$f" "$m" 64 "$dsos" 300000 >&2 ;;
	fp) "$gen" --stack=fp "$f" "$m" >&2 ;;
	dwarf) "$gen" --stack=dwarf "$f" "$m" >&2 ;;
	realdwarf)
		cc -O2 -g -fno-omit-frame-pointer -o "$home/dwarf_work" "$(dirname "$0")/dwarf_work.c"
		perf record -q -e cpu-clock -F 4000 --call-graph dwarf,4096 -o "$f" \
			"$home/dwarf_work" 40 >/dev/null 2>&1 ;;
	*) echo "unknown shape $1" >&2; exit 2 ;;
	esac
}

# one NAME CMD...: appends "wall cpu rss" to $home/NAME.  Output goes to
# /dev/null: into a file, each command's O_TRUNC would free the previous
# command's output pages on its own account (1.65 s of system time once
# after an 846 MB output, 0.28 s the next time).
one() {
	local name=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$home/t" "$@" >/dev/null 2>&1 </dev/null || true
	awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' "$home/t" >>"$home/$name"
}
# med NAME COL: the median of a column (1 wall, 2 cpu, 3 rss).
med() { awk -v c="$2" '{print $c}' "$home/$1" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }
show() { # label, pms name, perf name
	printf '  %-44s pmuscope %7.2f s cpu %7.2f s wall %7d kB | perf %7.2f s cpu %7.2f s wall %7d kB | perf/pmuscope cpu %s wall %s rss %s\n' \
		"$1" "$(med "$2" 2)" "$(med "$2" 1)" "$(med "$2" 3)" "$(med "$3" 2)" "$(med "$3" 1)" "$(med "$3" 3)" \
		"$(ratio "$(med "$3" 2)" "$(med "$2" 2)")" "$(ratio "$(med "$3" 1)" "$(med "$2" 1)")" \
		"$(ratio "$(med "$3" 3)" "$(med "$2" 3)")"
}

# script_runs FILE SHAPE: one round of the script commands against perf
# script (text and JSON, -F and default fields, sym and dso; on call-chain
# shapes also -F ip and -F ip,sym, where every frame of a DWARF stack is
# unwound and expanded into its inlined functions); script_show SHAPE:
# their medians and ratios.  The same set in the script-only and the full
# runs.
script_runs() {
	case $2 in fp|dwarf|realdwarf)
		one p_scrip "$pms" script -F ip -i "$1"
		one f_scrip perf script --force -i "$1" -F ip
		one p_scripsym "$pms" script -F ip,sym -i "$1"
		one f_scripsym perf script --force -i "$1" -F ip,sym ;;
	esac
	one p_scr "$pms" script -F ip,addr,data_src,weight -i "$1"
	one f_scr perf script --force -i "$1" -F ip,addr,data_src,weight
	one p_json "$pms" script --json -F ip,addr,data_src,weight -i "$1"
	one p_scrall "$pms" script -i "$1"
	one f_scrall perf script --force -i "$1"
	one p_jsonall "$pms" script --json -i "$1"
	one p_scrsym "$pms" script -F ip,sym,dso -i "$1"
	one f_scrsym perf script --force -i "$1" -F ip,sym,dso
}
script_show() {
	case $1 in fp|dwarf|realdwarf)
		show "script -F ip (call chains)" p_scrip f_scrip
		show "script -F ip,sym (call chains)" p_scripsym f_scripsym ;;
	esac
	show "script -F ip,addr,data_src,weight" p_scr f_scr
	show "script --json -F ... vs perf script -F ..." p_json f_scr
	show "script (default fields)" p_scrall f_scrall
	show "script --json vs perf script" p_jsonall f_scrall
	show "script -F ip,sym,dso" p_scrsym f_scrsym
}

echo "perfdata_bench: $n samples a file, $runs paired runs, $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pmuscope $("$pms" --version 2>/dev/null | head -1); $(perf --version)"
for shape in $shapes; do
	make_file "$shape"
	f=$(file_of "$shape"); m=$(samples_of "$shape")
	[ "$m" = rec ] && m=$(perf report --force --stats -i "$f" 2>/dev/null |
		awk '/SAMPLE events:/ {print $3; exit}')
	only=${PMS_BENCH_REPORT_ONLY:-0}
	[ "$shape" = huge ] && only=1
	rm -f "$home"/p_* "$home"/f_*
	for _ in $(seq "$runs"); do
		if [ "${PMS_BENCH_SCRIPT_ONLY:-0}" = 1 ]; then
			script_runs "$f" "$shape"
			continue
		fi
		one p_rep "$pms" report "$f"   # the file as an operand, as users type it
		[ "$shape" = huge ] || one f_agg perf mem report --force --stdio --sort=mem -i "$f"
		case $shape in fp|dwarf|realdwarf)
			one f_cg perf report --force --stdio --no-children -i "$f" ;;
		esac
		if [ "$only" = 1 ]; then
			one p_nos "$pms" report --no-symbols -i "$f"
			one p_read "$pms" script -F ip -i "$f"
			continue
		fi
		one p_rep2 "$pms" report "$f"
		[ "${PMS_BENCH_NO_PER_SAMPLE:-0}" = 1 ] || one f_per perf mem report --force --stdio -i "$f"
		one p_nos "$pms" report --no-symbols -i "$f"
		one p_read "$pms" script -F ip -i "$f"
		script_runs "$f" "$shape"
	done
	[ -s "$home/p_rep2" ] && cat "$home/p_rep2" >>"$home/p_rep"
	echo "$shape: $f ($(stat -c %s "$f") bytes, $m samples)"
	if [ "${PMS_BENCH_SCRIPT_ONLY:-0}" = 1 ]; then
		script_show "$shape"
		continue
	fi
	[ "$shape" = huge ] || show "report vs perf mem report --sort=mem" p_rep f_agg
	[ -s "$home/f_cg" ] && show "report vs perf report --no-children" p_rep f_cg
	if [ "$only" != 1 ]; then
	[ -s "$home/f_per" ] && show "report vs perf mem report (per sample)" p_rep f_per
	script_show "$shape"
	fi
	[ "$shape" = huge ] && printf '  report: %.2f s cpu, peak %d kB\n' "$(med p_rep 2)" "$(med p_rep 3)"
	nos=$(med p_nos 2); rd=$(med p_read 2)
	printf '  report --no-symbols: %.2f s cpu = %.1f M samples/s; script -F ip (read+decode+print): %.2f s cpu; ratio %s\n' \
		"$nos" "$(awk -v n="$m" -v t="$nos" 'BEGIN { print (t > 0 ? n / t / 1e6 : 0) }')" "$rd" "$(ratio "$nos" "$rd")"
	if [ "$shape" = huge ]; then rm -f "$f"; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
