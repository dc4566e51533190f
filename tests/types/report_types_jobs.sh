#!/usr/bin/env bash
# report --types --jobs N on one file (issue 29's cost): the file's chunks
# on N threads, each with its own types sink over one shared resolver,
# merged in file order, give the report of one thread byte for byte, text
# and JSON (the ip_cache counts included).  Files written by typefile:
# a program built here with -g (structs through pointers, globals found by
# the sampled address, TLS), its executable mapped again at another base in
# the middle of the data (the chunks after it must be given that mapping),
# stores and loads over several threads; and pmuscope itself (many
# functions, many unresolved reasons).
#   report_types_jobs.sh PMUSCOPE TYPEFILE
set -u
pms=${1:?usage: report_types_jobs.sh PMUSCOPE TYPEFILE}
tf=${2:?}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PMUSCOPE_NO_DAMON=1
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }

cat >"$tmp/p.c" <<'C'
struct in { int x; short y[4]; };
struct rec { long a; struct in b[3]; union { int u; char c[8]; } un; struct rec *next; long tail; };
struct pair { long hits; char pad[56]; long misses; };
struct rec g[4];
struct pair gp;
__thread struct pair tp;
__attribute__((noinline)) void touch(struct rec *p, int v)
{
	p->b[2].y[1] = (short)v;
	p->tail += p->a;
	p->next->un.u = v;
	g[v & 3].b[1].y[2] = 4;
	gp.hits++;
	tp.misses += gp.misses;
}
__attribute__((noinline)) long walk(struct rec *p)
{
	long s = 0;
	for (; p; p = p->next)
		s += p->b[1].x + p->un.c[3];
	return s;
}
int main(void) { static struct rec r[2]; r[0].next = &r[1]; touch(r, 3); return (int)walk(r); }
C
gcc -O2 -g -fPIE -pie -o "$tmp/p" "$tmp/p.c" || { echo "FAIL: compile"; exit 1; }

# "TID IP ADDR [s]" lines (and one "mmap" line) for typefile: NS samples
# over the memory instructions of BIN (at most NIP of them), a quarter of
# the addresses in BIN's globals
lines() { # BIN NS NIP
  local bin=$1 ns=$2 nip=$3
  objdump -d --no-show-raw-insn "$bin" |
    awk -F'\t' '/^ *[0-9a-f]+:\t/ && $2 ~ /\(/ && $2 !~ /lea / {sub(":", "", $1); gsub(" ", "", $1); print $1}' \
    >"$tmp/ips"
  nm "$bin" | awk '$2 ~ /^[bBdD]$/ {print $1}' >"$tmp/globals"
  read -r off vaddr fsz < <(readelf -lW "$bin" | awk '$1=="LOAD" && / R E / {print $2, $3, $5}')
  python3 - "$tmp/ips" "$tmp/globals" "$ns" "$nip" "$off" "$vaddr" "$fsz" <<'PY'
import random, sys
ips = [int(x, 16) for x in open(sys.argv[1])]
gl = [int(x, 16) for x in open(sys.argv[2])] or [0]
ns, nip = int(sys.argv[3]), int(sys.argv[4])
off, vaddr, fsz = (int(x, 16) for x in sys.argv[5:8])
random.seed(2929)
ips = random.sample(ips, min(nip, len(ips)))
base = 0x555555554000
for i in range(ns):
    if i == ns // 2:  # the binary mapped again elsewhere: the later samples there
        base = 0x7f1234560000
        print("mmap %x %x %x" % (base + vaddr, fsz, off))
    ip = base + random.choice(ips)
    addr = base + random.choice(gl) + random.randrange(64) if i % 4 == 0 else 0x7fff00001000 + 8 * random.randrange(4096)
    print("%d %x %x%s" % (4001 + random.randrange(4), ip, addr, " s" if random.randrange(3) == 0 else ""))
PY
}
mk() { # NAME BIN NS NIP
  local n=$1 bin=$2
  read -r off vaddr fsz < <(readelf -lW "$bin" | awk '$1=="LOAD" && / R E / {print $2, $3, $5}')
  lines "$bin" "$3" "$4" >"$tmp/$n.lines" &&
    "$tf" "$tmp/$n.data" "$bin" "$(printf '%#x' $((0x555555554000 + vaddr)))" \
      "$(printf '%#x' "$fsz")" "$(printf '%#x' "$off")" <"$tmp/$n.lines" ||
    { echo "FAIL: writing $n.data"; fail=1; return 1; }
}
mk prog "$tmp/p" 40000 1000
mk self "$(readlink -f "$pms")" 20000 600

for f in prog self; do
  for mode in text json; do
    a=(); [ $mode = json ] && a=(--json)
    "$pms" report --types "${a[@]}" --jobs 1 -i "$tmp/$f.data" >"$tmp/one" 2>"$tmp/one.err"
    r1=$?
    if [ $r1 -ne 0 ]; then echo "FAIL: $f $mode --jobs 1: exit $r1"; cat "$tmp/one.err"; fail=1; continue; fi
    if [ $mode = json ]; then
      # the file resolved something, or the comparison says little
      python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j["resolved"] > 0 and j["samples"] > 0 else 1)' "$tmp/one" ||
        { echo "FAIL: $f: nothing resolved"; fail=1; }
    fi
    for j in 2 3 4; do
      "$pms" report --types "${a[@]}" --jobs $j -i "$tmp/$f.data" >"$tmp/n" 2>"$tmp/n.err"
      r=$?
      if [ $r -ne 0 ] || ! cmp -s "$tmp/one" "$tmp/n" || ! cmp -s "$tmp/one.err" "$tmp/n.err"; then
        echo "FAIL: $f $mode --jobs $j (exit $r) differs from --jobs 1:"
        diff "$tmp/one" "$tmp/n" | head -20; diff "$tmp/one.err" "$tmp/n.err" | head -5
        fail=1
      fi
    done
  done
done
[ $fail -eq 0 ] && echo "report --types --jobs 2/3/4 == --jobs 1 (text, JSON) on 2 files"
exit $fail
