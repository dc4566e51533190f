#!/usr/bin/env bash
# Debug files opened once per process, not once per mapping change (issue
# 33): a 5-process recording (perf record -e page-faults:u -c 1 of a shell
# running ls five times, so each process is named through several mapping
# changes); `pmuscope script` under strace opens no debug file below
# /usr/lib/debug more often than there are processes.  The symbolizer
# reports a changed process's mappings again into its own Dwfl
# (src/symbols/symbolizer.c space_new), the DWARF unwinder into its one
# (src/symbols/unwind.c rebuild).  Before: ld.so's debug file 7 times.
# The same recording with --call-graph dwarf: at most one open more, the
# file's DWARF the inline lookup reads (src/symbols/symbolizer.c
# dwfile_full, once per file); the unwinder opens a module's separate
# debug file (for its CFI) only when that copy has a .debug_frame
# (src/symbols/unwind.c find_debuginfo, pms_sym_debug_cfi).  Before, the
# unwinder's Dwfl opened and inflated it again at each mapping change:
# ld.so's debug file 10 and 11 times for 5 and 6 processes.
# A count of opens, not a timing.
set -u
pms=${1:?usage: debug_opens.sh PMUSCOPE}
case $pms in /*) ;; *) pms=$PWD/$pms ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
command -v strace >/dev/null || { echo "SKIP: no strace" >&2; exit 77; }
ls -d /usr/lib/debug/.build-id >/dev/null 2>&1 || { echo "SKIP: no debug files" >&2; exit 77; }
export HOME=$tmp/home PERF_CONFIG=/dev/null
unset DEBUGINFOD_URLS
mkdir -p "$HOME"
perf record -q -e page-faults:u -c 1 -o "$tmp/mp.data" -- \
	sh -c 'for i in 1 2 3 4 5; do ls /usr/lib >/dev/null; done' >/dev/null 2>&1 ||
	{ echo "SKIP: perf record failed" >&2; exit 77; }
procs=$("$pms" script -F pid -i "$tmp/mp.data" | sort -u | wc -l)
lines=$("$pms" script -F ip,sym -i "$tmp/mp.data" | wc -l)
[ "$procs" -ge 6 ] && [ "$lines" -gt 0 ] || { echo "FAIL: $procs processes, $lines lines" >&2; exit 1; }
# count FILE EXTRA: the debug files `script -i FILE` opens, each at most
# once a process (the processes the file's samples name) and EXTRA more
fail=0
count() {
	local procs
	procs=$("$pms" script -F pid -i "$1" | sort -u | wc -l)
	procs=$((procs + $2))
	strace -f -o "$tmp/st" -e trace=openat "$pms" script -i "$1" >/dev/null 2>&1 ||
		{ echo "SKIP: strace failed" >&2; exit 77; }
	grep -o '"/usr/lib/debug/[^"]*\.debug", O_RDONLY[^=]*= [0-9]' "$tmp/st" | cut -d'"' -f2 |
		sort | uniq -c | sort -rn >"$tmp/counts"
	[ -s "$tmp/counts" ] || { echo "SKIP: no debug file opened (libc6-dbg absent)" >&2; exit 77; }
	echo "$1: at most $procs opens each"
	cat "$tmp/counts"
	while read -r n f; do
		if [ "$n" -gt "$procs" ]; then
			echo "FAIL: $f opened $n times, more than $procs ($1)" >&2
			fail=1
		fi
	done <"$tmp/counts"
}
count "$tmp/mp.data" 0
# DWARF stacks: the unwinder's modules beside the symbolizer's
if perf record -q -e page-faults:u -c 1 --call-graph dwarf,4096 -o "$tmp/dw.data" -- \
	sh -c 'for i in 1 2 3 4 5; do ls /usr/lib >/dev/null; done' >/dev/null 2>&1; then
	n=$("$pms" script -F ip -i "$tmp/dw.data" | wc -l)
	s=$("$pms" script -F pid -i "$tmp/dw.data" | wc -l)
	[ "$n" -gt "$s" ] || { echo "FAIL: no unwound frames ($n lines, $s samples)" >&2; exit 1; }
	count "$tmp/dw.data" 1
else
	echo "dwarf recording failed: that part not checked" >&2
fi
exit $fail
