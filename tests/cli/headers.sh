#!/usr/bin/env bash
# Every public header compiles alone as C11 -pedantic and as C++ (STYLE 13).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${PMS_BUILD_DIR:?}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cxx=$(command -v g++ || command -v clang++ || true)
for h in "$top"/include/pmuscope/*.h; do
  name=$(basename "$h")
  printf '#include "pmuscope/%s"\n#include "pmuscope/%s"\nint pms_header_probe;\n' "$name" "$name" >"$tmp/t.c"
  if ! cc -std=c11 -pedantic -Wall -Wextra -Werror -I"$top/include" -I"$build" -c "$tmp/t.c" -o "$tmp/t.o" 2>"$tmp/err"; then
    echo "FAIL: $name does not compile alone as C11:"; cat "$tmp/err"; fail=1
  fi
  if [ -n "$cxx" ]; then
    cp "$tmp/t.c" "$tmp/t.cc"
    if ! "$cxx" -std=c++17 -Wall -Wextra -Werror -I"$top/include" -I"$build" -c "$tmp/t.cc" -o "$tmp/t.o" 2>"$tmp/err"; then
      echo "FAIL: $name does not compile as C++:"; cat "$tmp/err"; fail=1
    fi
  fi
done
exit $fail
