#!/usr/bin/env bash
# libpmuscope.so exports exactly the functions the public headers declare:
# no internal symbol (pd_*, pms_err, ...) and no declared function missing.
# Usage: exports.sh PMUSCOPE_CLI LIBPMUSCOPE_SO
# The declarations come from the compiler itself (gcc -aux-info lists every
# prototype with its file), so macros, multi-line declarations and function
# pointer types need no parsing here.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${PMS_BUILD_DIR:?}
so=${2:?usage: exports.sh PMUSCOPE_CLI LIBPMUSCOPE_SO}
gcc=$(command -v gcc || true)
nm=$(command -v nm || true)
if [ -z "$gcc" ] || [ -z "$nm" ]; then
  echo "exports: needs gcc (-aux-info) and nm"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{
  for h in "$top"/include/pmuscope/*.h; do echo "#include \"pmuscope/$(basename "$h")\""; done
  echo "#include \"version.h\""
} >"$tmp/all.c"
"$gcc" -std=c11 -I"$top/include" -I"$build" -aux-info "$tmp/aux" -c "$tmp/all.c" -o "$tmp/all.o" || exit 1
# Lines look like: /* include/pmuscope/sys.h:64:NC */ extern int pms_sys_new (...);
# Keep non-static prototypes from the public headers (version.h is generated).
grep -E '^/\* [^ ]*(include/pmuscope/[a-z0-9_]+\.h|/version\.h):[0-9]+:' "$tmp/aux" |
  grep -v '\*/ static ' |
  sed -E 's/^\/\* [^*]*\*\/ //; s/ \(.*$//; s/.*[ *]//' | sort -u >"$tmp/declared"
"$nm" -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
n_decl=$(wc -l <"$tmp/declared"); n_exp=$(wc -l <"$tmp/exported")
if [ "$n_decl" -lt 50 ]; then
  echo "FAIL: only $n_decl declarations found in the public headers; the extraction broke"; exit 1
fi
fail=0
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$extra" ]; then
  echo "FAIL: exported from $(basename "$so") but declared in no public header (make it static, or declare it in include/pmuscope/ inside PMS_API_BEGIN/END):"
  echo "$extra" | sed 's/^/  /'; fail=1
fi
if [ -n "$missing" ]; then
  echo "FAIL: declared in a public header but not exported (outside PMS_API_BEGIN/END, or not implemented):"
  echo "$missing" | sed 's/^/  /'; fail=1
fi
echo "$n_decl declared, $n_exp exported"
exit $fail
