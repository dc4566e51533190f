#!/usr/bin/env bash
# Debug files opened once per process, not once per mapping change (issue
# 33): a 5-process recording (perf record -e page-faults:u -c 1 of a shell
# running ls five times, so each process is named through several mapping
# changes); `pmuscope script` under strace opens no debug file below
# /usr/lib/debug more often than there are processes.  The symbolizer
# reports a changed process's mappings again into its own Dwfl
# (src/symbols/symbolizer.c space_new), the DWARF unwinder into its one
# (src/symbols/unwind.c rebuild).  Before: ld.so's debug file 7 times.
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
strace -f -o "$tmp/st" -e trace=openat "$pms" script -i "$tmp/mp.data" >/dev/null 2>&1 ||
	{ echo "SKIP: strace failed" >&2; exit 77; }
grep -o '"/usr/lib/debug/[^"]*\.debug", O_RDONLY[^=]*= [0-9]' "$tmp/st" | cut -d'"' -f2 |
	sort | uniq -c | sort -rn >"$tmp/counts"
[ -s "$tmp/counts" ] || { echo "SKIP: no debug file opened (libc6-dbg absent)" >&2; exit 77; }
cat "$tmp/counts"
fail=0
while read -r n f; do
	if [ "$n" -gt "$procs" ]; then
		echo "FAIL: $f opened $n times for $procs processes" >&2
		fail=1
	fi
done <"$tmp/counts"
exit $fail
