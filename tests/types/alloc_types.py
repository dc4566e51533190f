#!/usr/bin/env python3
"""C++ `new T`: the allocation's call site names the type (issue 29).

A C++ program with `new T` sites of several kinds (stored into a local, into
a member, an array, a constructor with arguments, returned at once) is built
with g++ and clang++ at -O0 and -O2 (-g, non-PIE).  Every call to operator
new / operator new[] in it (objdump) is a site; its expected type comes from
the `// new: T` comment on the call's source line (addr2line).  typeprobe's
`alloc` mode (pms_typeres_alloc_type) names the type from the return
address.  Prints a table per compiler x level: sites, named right, wrong,
unresolved; fails on any wrong name, and when -O0 names fewer than all.

usage: alloc_types.py TYPEPROBE"""
import os, re, shutil, subprocess, sys, tempfile

SRC = r'''
struct Node { long key; int v[4]; Node *next; };
struct Pair { int a, b; Pair(int x, int y) : a(x), b(y) {} };
struct Tree { Node *root; Pair *p; long n; };
struct Big { char name[40]; double w[8]; Big() { for (int i = 0; i < 8; i++) w[i] = i; } };
struct Base { virtual ~Base() {} long id; };
struct Derived : Base { int extra[3]; };
__attribute__((noinline)) void use(void *p) { asm volatile("" :: "r"(p) : "memory"); }
__attribute__((noinline)) Node *mk_node(long k)
{
	Node *n = new Node; // new: Node
	n->key = k;
	n->next = nullptr;
	return n;
}
__attribute__((noinline)) Tree *mk_tree()
{
	Tree *t = new Tree(); // new: Tree
	t->root = new Node(); // new: Node
	t->p = new Pair(1, 2); // new: Pair
	t->n = 1;
	return t;
}
__attribute__((noinline)) Big *mk_big() { return new Big; } // new: Big
__attribute__((noinline)) long arrays(int k)
{
	Node *a = new Node[8]; // new: Node
	a[3].key = k;
	use(a);
	Pair *p = new Pair(3, k); // new: Pair
	use(p);
	return a[3].key + p->b;
}
__attribute__((noinline)) Base *mk_derived(long id)
{
	Derived *d = new Derived; // new: Derived
	d->id = id;
	d->extra[1] = 2;
	return d;
}
int main()
{
	Tree *t = mk_tree();
	Node *n = mk_node(4);
	Big *b = mk_big();
	Base *d = mk_derived(5);
	use(t); use(n); use(b); use(d);
	return (int)arrays(2) == 0;
}
'''

def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)

def main():
    probe = sys.argv[1]
    comps = [c for c in ("g++", "clang++") if shutil.which(c)]
    if not comps or not shutil.which("objdump") or not shutil.which("addr2line"):
        print("SKIP: no C++ compiler / binutils"); return 77
    lines = SRC.split("\n")
    want_of = {}
    for i, ln in enumerate(lines, 1):
        m = re.search(r"// new: (\w+)", ln)
        if m:
            want_of[i] = m.group(1)
    bad = 0
    work = tempfile.mkdtemp()
    try:
        src = os.path.join(work, "a.cc")
        open(src, "w").write(SRC)
        print("%-8s %-4s %6s %6s %6s %11s" % ("compiler", "opt", "sites", "right", "wrong", "unresolved"))
        for cc in comps:
            for opt in ("-O0", "-O2"):
                exe = os.path.join(work, "a_%s%s" % (cc, opt))
                r = run([cc, opt, "-g", "-fno-pie", "-no-pie", "-o", exe, src])
                if r.returncode:
                    print("compile failed:", cc, opt, r.stderr[:1000]); return 1
                dis = run(["objdump", "-d", "--no-show-raw-insn", "-C", exe]).stdout.split("\n")
                sites = []  # (call ip, return ip)
                for k, ln in enumerate(dis):
                    if re.search(r"\tcall\s+[0-9a-f]+ <operator new(\[\])?\(unsigned long\)@plt>", ln):
                        ip = int(ln.split(":")[0], 16)
                        nxt = next((d for d in dis[k + 1:] if re.match(r"^\s*[0-9a-f]+:\t", d)), None)
                        if nxt:
                            sites.append((ip, int(nxt.split(":")[0], 16)))
                a2l = run(["addr2line", "-e", exe] + ["%x" % s[0] for s in sites]).stdout.splitlines()
                probe_in = "".join("%s 0 %x alloc\n" % (exe, s[1]) for s in sites)
                out = run([probe], input=probe_in).stdout.split("\n")
                right = wrong = unres = 0
                for (ip, ret), loc, res in zip(sites, a2l, out):
                    line = int(loc.rsplit(":", 1)[1].split()[0]) if ":" in loc and loc.rsplit(":", 1)[1][:1].isdigit() else 0
                    want = want_of.get(line)
                    if want is None:
                        continue  # a call not on a marked line (none expected)
                    got = res.split("\t")[1] if res.startswith("ok ") else None
                    if got is None:
                        unres += 1
                        print("  unresolved %s %s line %d want %s: %s" % (cc, opt, line, want, res))
                    elif got in (want, "struct " + want):
                        right += 1
                    else:
                        wrong += 1
                        print("  WRONG %s %s line %d want %s got %s" % (cc, opt, line, want, got))
                n = right + wrong + unres
                print("%-8s %-4s %6d %6d %6d %11d" % (cc, opt, n, right, wrong, unres))
                if wrong or n == 0 or (opt == "-O0" and right != n):
                    bad = 1
    finally:
        shutil.rmtree(work)
    return bad

sys.exit(main())
