#!/usr/bin/env bash
# report -s type / typeoff / typecln against perf report -s KEY (perf 6.12 as
# the oracle, issue 30 item 4, issue 29) on a written memory-sample file
# (typefile) of a program built here with -g: the same rows, with the same
# sample counts; the keys together; the rows are the same live and from
# files because both go through the session's types sink.
#   sort_types.sh PMUSCOPE TYPEFILE
set -u
pms=${1:?usage: sort_types.sh PMUSCOPE TYPEFILE}
tf=${2:?}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "SKIP: no perf"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }

cat >"$tmp/p.c" <<'C'
struct in { int x; short y[4]; };
struct rec { long a; struct in b[3]; union { int u; char c[8]; } un; struct rec *next; long tail; char pad[64]; long far; };
struct rec g;
__attribute__((noinline)) void touch(struct rec *p, int v)
{
	p->b[2].y[1] = (short)v;
	p->tail += p->a;
	p->far = v;
	g.b[1].y[2] = 4;
	g.un.u = v;
}
int main(void) { static struct rec r; touch(&r, 3); return 0; }
C
gcc -O2 -g -fPIE -pie -o "$tmp/p" "$tmp/p.c" || { echo "FAIL: compile"; exit 1; }
read -r off vaddr fsz < <(readelf -lW "$tmp/p" | awk '$1=="LOAD" && / R E / {print $2, $3, $5}')
base=$((0x555555554000))
start=$((base + vaddr))
# every instruction of touch with a memory operand, a few times each, from
# two threads; the data address is the RIP-relative target where there is
# one (perf and pmuscope then agree by construction of the sample)
objdump -d --no-show-raw-insn "$tmp/p" | awk '/<touch>:/,/^$/' |
  awk -F'\t' '/\(/ {sub(":", "", $1); gsub(" ", "", $1); print $1}' >"$tmp/ips"
[ "$(wc -l <"$tmp/ips")" -ge 4 ] || { echo "FAIL: too few memory instructions in touch"; exit 1; }
{
  k=0
  while read -r ip; do
    k=$((k + 1))
    for r in $(seq 1 $((k % 3 + 1))); do
      printf '%d %x 7fff00001000\n' $((4001 + r % 2)) $((base + 0x$ip))
    done
  done <"$tmp/ips"
  printf '4003 %x 0\n' $((0x10)) # an IP in no mapping: (unknown)
} | "$tf" "$tmp/f.data" "$tmp/p" "$(printf '%#x' $start)" "$(printf '%#x' $((fsz)))" "$(printf '%#x' $((off)))" ||
  { echo "FAIL: typefile"; exit 1; }

rows() { # perf|pms KEY: "VALUE<TAB>SAMPLES", sorted
  if [ "$1" = perf ]; then perf report -i "$tmp/f.data" --stdio -n -s "$2" 2>/dev/null
  else "$pms" report -i "$tmp/f.data" -n -s "$2" 2>/dev/null; fi | grep -v '^#' | grep . |
    sed -E 's/^ *[0-9.]+% +([0-9]+) +(.*[^ ]) *$/\2\t\1/' | sed -E 's/  +/ /g' | sort
}
any=0
for k in type typeoff typecln type,typeoff; do
  rows perf $k >"$tmp/pr"; rows pms $k >"$tmp/mr"
  grep -qv '^(unknown)' "$tmp/pr" && any=1
  diff "$tmp/pr" "$tmp/mr" >"$tmp/d" || { echo "FAIL: -s $k differs from perf (perf <, pmuscope >):"; cat "$tmp/d"; fail=1; }
done
[ $any = 1 ] || { echo "SKIP: perf names no type in this file"; exit 77; }
# the column titles are perf's
"$pms" report -i "$tmp/f.data" -s type,typeoff,typecln | grep -q '^# Overhead  Data Type  Data Type Offset  Data Type Cacheline$' ||
  { echo "FAIL: titles"; fail=1; }
exit $fail
