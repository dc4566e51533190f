#!/usr/bin/env bash
# pmuscope report --types on a written file (typefile) of a PIE program
# built here with -g: the MMAP2 places it at a PIE base, so the load bias
# comes from the mapping and the binary's PT_LOAD; each member's samples,
# loads/stores and the unresolved reasons are checked in the JSON, and the
# text table names the members.  Usage errors of --types.
#   report_types.sh PMUSCOPE TYPEFILE
set -u
pms=${1:?usage: report_types.sh PMUSCOPE TYPEFILE}
tf=${2:?}
fail=0
tmp=$(mktemp -d); trap "rm -rf $tmp" EXIT
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
expect() { if [ "$2" != "$3" ]; then echo "FAIL: $1"; echo "  want: [$2]"; echo "  got:  [$3]"; fail=1; fi; }

cat >"$tmp/p.c" <<'C'
struct in { int x; short y[4]; };
struct rec { long a; struct in b[3]; union { int u; char c[8]; } un; struct rec *next; long tail; };
struct rec g;
__attribute__((noinline)) void touch(struct rec *p, int v)
{
	p->b[2].y[1] = (short)v;
	p->tail += p->a;
	g.b[1].y[2] = 4;
}
int main(void) { static struct rec r; touch(&r, 3); return 0; }
C
gcc -O2 -g -fPIE -pie -o "$tmp/p" "$tmp/p.c" || { echo "FAIL: compile"; exit 1; }
# the executable segment and touch's instructions with a memory operand
read -r off vaddr fsz < <(readelf -lW "$tmp/p" | awk '$1=="LOAD" && / R E / {print $2, $3, $5}')
base=$((0x555555554000))
start=$((base + vaddr))
objdump -d --no-show-raw-insn "$tmp/p" | awk '/<touch>:/,/^$/' |
  awk -F'\t' '/\(/ {sub(":", "", $1); gsub(" ", "", $1); print $1}' >"$tmp/ips"
n=$(wc -l <"$tmp/ips")
# the two stores: p->b[2].y[1] (0x26 off the pointer) and g.b[1].y[2] (RIP-relative)
ip_st=$(objdump -d --no-show-raw-insn "$tmp/p" | awk '/<touch>:/,/^$/' | awk -F'\t' '/,0x26\(/ {sub(":", "", $1); gsub(" ", "", $1); print $1}')
ip_gl=$(objdump -d --no-show-raw-insn "$tmp/p" | awk '/<touch>:/,/^$/' | awk -F'\t' '/,0x[0-9a-f]+\(%rip\)/ {sub(":", "", $1); gsub(" ", "", $1); print $1}')
[ -n "$ip_st" ] && [ -n "$ip_gl" ] || { echo "FAIL: the two stores not found in touch"; exit 1; }
[ "$n" -ge 4 ] || { echo "FAIL: expected >= 4 memory instructions in touch, got $n"; exit 1; }
gaddr=$(nm "$tmp/p" | awk '$3=="g" {print $1}')
{
  while read -r ip; do
    printf '4001 %x 7fff00001000\n' $((base + 0x$ip))
    printf '4002 %x 7fff00001000\n' $((base + 0x$ip))
  done <"$tmp/ips"
  # a global by address (g.b[1].y[2]: offset 8 + 8 + 4 + 4*2 = 28)
  printf '4003 %x %x\n' $((base + 0x$(head -1 "$tmp/ips"))) $((base + 0x$gaddr + 28))
  # an IP in no mapping
  printf '4003 %x 0\n' $((0x10))
  # two threads store to two members of one cache line of struct rec
  # (p->b[2].y[1] and g.b[1].y[2]): false sharing
  printf '4005 %x 7fff00001000 s\n' $((base + 0x$ip_st))
  printf '4006 %x %x s\n' $((base + 0x$ip_gl)) $((base + 0x$gaddr + 28))
} | "$tf" "$tmp/f.data" "$tmp/p" "$(printf '%#x' $start)" "$(printf '%#x' $((fsz)))" "$(printf '%#x' $((off)))" ||
  { echo "FAIL: typefile"; exit 1; }

"$pms" report --types --json -i "$tmp/f.data" >"$tmp/j" 2>"$tmp/err"; expect "json exit" 0 $?
python3 - "$tmp/j" "$n" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2])
rows = {(r["type"], r["member"]): r for r in j["members"]}
bad = []
def want(c, msg):
    if not c: bad.append(msg)
want(j["samples"] == 2 * n + 4, "samples %d != %d" % (j["samples"], 2 * n + 4))
want(j["unresolved"]["no-binary"] == 1, "no-binary %s" % j["unresolved"])
# the per-(binary, IP) cache: every sample with a binary is a lookup (2n +
# 3), each of the n IPs resolved once
c = j.get("ip_cache", {})
want(c.get("lookups") == 2 * n + 3 and c.get("resolved_ips") == n, "ip_cache %s (n %d)" % (c, n))
r = rows.get(("struct rec", "b[2].y[1]"))
want(r and r["samples"] == 3 and r["stores"] == 1 and r["loads"] == 2 and r["offset"] == 38
     and r["size"] == 2 and r["threads"] == 3 and r["writer_threads"] == 1, "b[2].y[1] row %s" % r)
l0 = [l for l in j["cache_lines"] if l["type"] == "struct rec" and l["line"] == 0]
want(l0 and l0[0]["false_sharing"] and l0[0]["writer_threads"] == 2 and l0[0]["written_members"] == 2,
     "line 0 %s" % l0)
# loads: the data source says load for every sample of this file
want(rows.get(("struct rec", "tail")) and rows[("struct rec", "tail")]["offset"] == 64, "tail row")
want(rows.get(("struct rec", "a")), "a row")
g = rows.get(("struct rec", "b[1].y[2]"))
want(g and g["via"].get("global", 0) >= 1, "global row %s" % g)
# the pahole-like layout: members in order, the hole after the union
lay = [l for l in j["layouts"] if l["type"] == "struct rec"]
want(lay and [f["name"] for f in lay[0]["fields"]] == ["a", "b", "un", "next", "tail"],
     "layout %s" % lay)
if lay:
    f = {x["name"]: x for x in lay[0]["fields"]}
    want(f["un"]["offset"] == 44 and f["un"]["hole"] == 4 and f["b"]["samples"] == 7
         and f["tail"]["offset"] == 64 and f["next"]["samples"] == 0, "layout fields %s" % f)
# advice: two threads write elements of the one array b on line 0 (pad
# the elements); the hot members a, b, tail fit one line when put first
adv = {a["kind"]: a for a in j.get("advice", []) if a["type"] == "struct rec"}
p = adv.get("pad")
want(p and p["elements"] and p["members"] == ["b"] and p["cache_line"] == 0
     and p["writer_threads"] == 2, "pad advice %s" % p)
h = adv.get("hot-cold")
want(h and sorted(h["members"]) == ["a", "b", "tail"] and h["lines_before"] == 2
     and h["lines_after"] == 1 and h["layout"][0]["name"] == "b", "hot-cold advice %s" % h)
want("per-node" not in adv, "per-node advice without nodes")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
"$pms" report --types -i "$tmp/f.data" >"$tmp/t" 2>&1; expect "text exit" 0 $?
grep -q "struct rec +0x26 (b\[2\].y\[1\])" "$tmp/t" || { echo "FAIL: text row"; cat "$tmp/t"; fail=1; }
grep -q -- "--- cache line 1 (offset 0x40) ---" "$tmp/t" || { echo "FAIL: layout text"; fail=1; }
grep -q "no-binary" "$tmp/t" || { echo "FAIL: text reasons"; fail=1; }
grep -q "struct rec: pad the elements: 2 threads write elements of one array on cache line 0" "$tmp/t" ||
  { echo "FAIL: advice text"; fail=1; }
"$pms" report --types --csv -i "$tmp/f.data" >/dev/null 2>&1; expect "--types --csv usage" 2 $?
grep -q "struct rec: cache-line 0  2 members written by 2 threads" "$tmp/t" ||
  { echo "FAIL: false sharing text"; cat "$tmp/t"; fail=1; }
# the same two stores by one thread: no false sharing
{
  printf '4005 %x 7fff00001000 s\n' $((base + 0x$ip_st))
  printf '4005 %x %x s\n' $((base + 0x$ip_gl)) $((base + 0x$gaddr + 28))
} | "$tf" "$tmp/g.data" "$tmp/p" "$(printf '%#x' $start)" "$(printf '%#x' $((fsz)))" "$(printf '%#x' $((off)))"
"$pms" report --types --json -i "$tmp/g.data" | python3 -c '
import json, sys
j = json.load(sys.stdin)
l = [l for l in j["cache_lines"] if l["line"] == 0]
pad = [a for a in j["advice"] if a["kind"] == "pad"]
sys.exit(0 if l and not l[0]["false_sharing"] and l[0]["written_members"] == 2 and not pad else 1)' ||
  { echo "FAIL: one writer flagged"; fail=1; }
exit $fail
