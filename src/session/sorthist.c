/* perf report's histogram by sort keys (pmuscope/sorthist.h): one table of
 * keys (perf's name, its column title, how a sample gives its text), moved
 * from the CLI (tools/report_sort.c keeps the printing), and the keys that
 * need the stream's side-band (comm, sym, dso, symbol_daddr) or the types
 * sink (type, typeoff, typecln). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/perf_event.h>

#include "pmuscope/datasrc.h"
#include "pmuscope/unwind.h"
#include "session/dwpath.h"
#include "session/inlpath.h"
#include "session/sorthist_int.h"
#include "session/symtrack_int.h"
#include "util/error.h"
#include "util/grow.h"

struct ctx {
	struct pms_sorthist *h;
	const struct pms_memsrc_sample *x;
	const struct pms_type_hit *hit;
	const struct pms_frame *fr; /* a frame of the path (sym, dso), NULL: the sample */
	bool carry_k; /* an unmapped frame's level: the last mapped frame's */
};

typedef void (*key_fn)(const struct ctx *c, char *b, size_t n);

/* A mapping's identity as perf 6.12 keeps it for a data address's map
 * (its dso's id from MMAP2: major, minor, inode, inode generation) and its
 * prot and flags: sort__dcacheline_cmp and hist_entry__dcacheline_snprintf
 * read them.  Kept per mapping (start, end, pgoff, inode, path) as the
 * MMAP2 records give them; the mapping holding an address is the side-band
 * tracker's (symtrack_maps). */
struct mapattr {
	uint64_t start, pgoff, kino; /* the key: start - pgoff, inode, path */
	const char *path; /* owned */
	uint32_t maj, min, prot, flags;
	uint64_t ino, gen;
};

struct comm {
	uint32_t tid;
	char name[24];
};

struct row {
	char *text; /* the key values joined by '\t' (chains: row text, '\001', chain) */
	char *disp; /* NULL, or the text printed where a key's identity is not
		     * its text (the first sample's: perf's entry keeps it) */
	uint64_t samples, period, children;
};

/* An open-addressing table of rows by text. */
struct table {
	struct row *rows;
	size_t cap, n;
};

struct sort_key {
	const char *name;  /* as perf's -s takes it */
	const char *title; /* the column title */
	key_fn fn;
	unsigned needs;    /* NEED_* */
	key_fn id;         /* what makes two rows one, NULL: the text */
};
#define NEED_TYPES 1u
#define NEED_NAMES 2u
#define NEED_COMM 4u
#define PID_COMM 8u /* perf's "tid:comm", the thread's last comm, at the end */
#define NEED_MAPATTR 16u

struct pms_sorthist {
	const struct sort_key *sel[PMS_SORTHIST_MAXKEYS];
	size_t nsel;
	unsigned needs;
	struct table t;   /* the rows */
	bool sorted;
	/* call graphs (pms_sorthist_set_callgraph) */
	unsigned cg;
	bool fed;
	struct table chains;
	struct pms_sorthist_chain *outchains;
	struct dwpath dw;          /* DWARF paths */
	struct inlpath inl;        /* their inline stacks (session/inlpath.c) */
	char inlname[512];         /* an inlined frame's "NAME (inlined)" */
	uint64_t inl_base;         /* its function's start in the module ... */
	bool inl_named;            /* ... when code_name named an inlined frame */
	struct pms_sys *sys;
	char (*ftext)[1024];       /* each frame's row text */
	char (*fname)[256];        /* each frame's chain name */
	bool *fcarry;              /* each frame's carried level (ctx.carry_k) */
	char *chainbuf;            /* add_chain's text */
	const char **seen;         /* the rows a sample's frames gave */
	uint64_t with_path;
	struct pms_sorthist_row *out;
	char **outtext; /* the result's texts with "tid:comm" (PID_COMM keys) */
	size_t nouttext;
	uint64_t samples, period;
	/* the side-band's names */
	bool bound;
	const struct pms_perfdata_info *binfo; /* the file bound (NULL live) */
	bool kset, khere; /* the file's kernel judged (sorthist_kernel) */
	struct pms_symtrack *st;
	struct comm *comms; /* by tid, in arrival order (a tid's last wins) */
	size_t ncomms, capcomms;
	bool has_id;          /* a selected key has an identity of its own */
	struct mapattr *attrs; /* NEED_MAPATTR: the MMAP2 mappings seen */
	size_t nattrs, capattrs;
};

/* ---- the keys ------------------------------------------------------------ */

static void k_tgid(const struct ctx *c, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu32, c->x->ms.pid);
}

static void k_tid(const struct ctx *c, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu32, c->x->ms.tid);
}

static void k_cpu(const struct ctx *c, char *b, size_t n)
{
	if (c->x->ms.valid & PMS_MS_CPU)
		snprintf(b, n, "%03" PRIu32, c->x->ms.cpu);
	else
		snprintf(b, n, "-001"); /* perf's "no CPU in the sample" */
}

/* A sample without a data source has the kernel's default, every field
 * N/A (perf_sample_data_init: PERF_MEM_NA), as perf shows it. */
static uint64_t dsrc(const struct ctx *c)
{
	if (c->x->ms.valid & PMS_MS_DATA_SRC)
		return c->x->ms.data_src;
	return PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
	       PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
}

static void k_mem(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_mem(dsrc(c), b, n);
}

static void k_snoop(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_snoop(dsrc(c), b, n);
}

static void k_tlb(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_tlb(dsrc(c), b, n);
}

static void k_locked(const struct ctx *c, char *b, size_t n)
{
	pms_datasrc_format_lock(dsrc(c), b, n);
}

static void node_text(int node, char *b, size_t n)
{
	if (node >= 0)
		snprintf(b, n, "%d", node);
	else
		snprintf(b, n, "-");
}

static void k_memnode(const struct ctx *c, char *b, size_t n)
{
	node_text(c->x->mem_node, b, n);
}

static void k_node(const struct ctx *c, char *b, size_t n)
{
	node_text(c->x->cpu_node, b, n);
}

/* The comm of tid at the end of the stream, or perf's ":tid" (pid 0 is
 * perf's idle thread "swapper", machine__init). */
static void last_comm(const struct pms_sorthist *h, uint32_t tid, char *b, size_t n)
{
	for (size_t i = h->ncomms; i-- > 0;)
		if (h->comms[i].tid == tid) {
			snprintf(b, n, "%s", h->comms[i].name);
			return;
		}
	if (tid == 0)
		snprintf(b, n, "swapper");
	else
		snprintf(b, n, ":%" PRIu32, tid);
}

/* perf names a thread it has no COMM for ":tid" (thread__new). */
static void k_comm(const struct ctx *c, char *b, size_t n)
{
	const struct pms_sorthist *h = c->h;
	for (size_t i = h->ncomms; i-- > 0;)
		if (h->comms[i].tid == c->x->ms.tid) {
			snprintf(b, n, "%s", h->comms[i].name);
			return;
		}
	last_comm(h, c->x->ms.tid, b, n);
}

static bool kernel_ip(const struct ctx *c)
{
	return (c->x->ms.valid & PMS_MS_KERNEL_IP) != 0;
}

static bool frame_kernel(const struct ctx *c)
{
	return c->fr ? (c->fr->flags & PMS_FRAME_KERNEL) != 0 : kernel_ip(c);
}

/* perf's _hist_entry__sym_snprintf (and __addr_snprintf): "[level] name",
 * "name+0xOFF" for a data object (STT_OBJECT), else the address (in its
 * module where one maps it) as "%-#.16llx" (no "0x" for 0); the level is
 * the sample's mode. */
static void sym_text(bool kernel, const struct pms_symtrack_name *nm, uint64_t addr, char *b,
		     size_t n)
{
	char lvl = kernel ? 'k' : '.';
	if (nm->sym && nm->object)
		snprintf(b, n, "[%c] %s+0x%" PRIx64, lvl, nm->sym, nm->off);
	else if (nm->sym)
		snprintf(b, n, "[%c] %s", lvl, nm->sym);
	else
		snprintf(b, n, "[%c] %#.16" PRIx64, lvl, nm->dso ? nm->map_ip : addr);
}

/* perf's hist_entry__phys_daddr_snprintf: "[level] %-#.*llx" (no "0x"
 * for 0), the level the sample's mode; rows by the address alone
 * (sort__phys_daddr_cmp), as row_of keeps them. */
static void k_phys(const struct ctx *c, char *b, size_t n)
{
	snprintf(b, n, "[%c] %#.16" PRIx64, kernel_ip(c) ? 'k' : '.', c->x->ms.phys_addr);
}

/* A frame of an inline stack (session/inlpath.c): its function, an
 * inlined one's as perf names its fake symbol (sort.c
 * _hist_entry__sym_snprintf, callchain_list__sym_name: "NAME (inlined)"). */
static void inline_name(const struct ctx *c, struct pms_symtrack_name *nm)
{
	uint64_t base = nm->sym ? nm->map_ip - nm->off : 0;
	if (inlpath_name(&c->h->inl, c->fr, nm)) {
		c->h->inl_base = base;
		c->h->inl_named = true;
		snprintf(c->h->inlname, sizeof(c->h->inlname), "%s (inlined)", nm->sym);
		nm->sym = c->h->inlname;
	}
}

static void code_name(const struct ctx *c, struct pms_symtrack_name *nm)
{
	memset(nm, 0, sizeof(*nm));
	if (c->h->st && (c->fr || (c->x->ms.valid & PMS_MS_IP)))
		(void)pms_symtrack_code(c->h->st, c->x->ms.pid, c->fr ? c->fr->ip : c->x->ms.ip,
					frame_kernel(c), false, nm);
	if (c->fr && (c->fr->flags & PMS_FRAME_INLINE))
		inline_name(c, nm);
}

/* A frame's level is its map's ([k] the kernel's); where no map holds it,
 * that of the last mapped frame before it in the walk, else the sample's
 * (perf's fill_callchain_info leaves the walk's al->level as it was); an
 * unnamed frame shows its address, not its offset in the module (perf's
 * al->addr = node->ip there).  id: the row's identity (perf's sort__sym_cmp
 * compares the symbol, not the address in it: a data object's rows are
 * one, printed with the first sample's offset). */
static void sym_key(const struct ctx *c, char *b, size_t n, bool id)
{
	struct pms_symtrack_name nm;
	c->h->inl_named = false;
	code_name(c, &nm);
	bool inl = c->h->inl_named;
	if (c->fr) /* perf's callchain entry keeps the frame's own address */
		nm.map_ip = c->fr->ip;
	/* a data object's offset: perf's entry address (map-relative, or a
	 * frame's own) less the object's absolute start (a wrapped value in a
	 * module: perf's _hist_entry__sym_snprintf) */
	if (nm.sym && nm.object && nm.dso)
		nm.off = nm.map_ip - ((c->fr ? c->fr->ip : c->x->ms.ip) - nm.off);
	bool k = !c->fr ? kernel_ip(c) : nm.dso ? frame_kernel(c) : c->carry_k;
	if (id && nm.sym && nm.object)
		snprintf(b, n, "[%c] %s\002%s", k ? 'k' : '.', nm.sym, nm.dso ? nm.dso : "");
	else
		sym_text(k, &nm, c->fr ? c->fr->ip : c->x->ms.ip, b, n);
	/* an inlined function's rows: one per function it is inlined into, as
	 * perf keeps its fake symbols apart by their base symbol's range
	 * (sort.c _sort__sym_cmp: equal names, then overlapping ranges) */
	size_t len = strlen(b);
	if (id && inl && len + 20 < n)
		snprintf(b + len, n - len, "\002%" PRIx64, c->h->inl_base);
}

static void k_sym(const struct ctx *c, char *b, size_t n)
{
	sym_key(c, b, n, false);
}

static void k_sym_id(const struct ctx *c, char *b, size_t n)
{
	sym_key(c, b, n, true);
}

/* perf's dso__short_name: the file's base name; "[unknown]" unmapped. */
static void k_dso(const struct ctx *c, char *b, size_t n)
{
	struct pms_symtrack_name nm;
	code_name(c, &nm);
	const char *d = nm.dso;
	if (!d) {
		snprintf(b, n, "[unknown]");
		return;
	}
	const char *base = d[0] == '[' ? NULL : strrchr(d, '/');
	snprintf(b, n, "%s", base ? base + 1 : d);
}

/* perf report --mem-mode names a data address by the symbol holding it:
 * a function's name, a data object's "name+0xOFF" (sym_text), looked up
 * in the sample's own mode only (perf 6.12 ip__resolve_data has no
 * fallback to the other: a kernel-mode fault on a user address stays an
 * address, where perf script names it). */
static void daddr_name(const struct ctx *c, struct pms_symtrack_name *nm)
{
	memset(nm, 0, sizeof(*nm));
	uint64_t a = c->x->ms.addr;
	if (c->h->st && (c->x->ms.valid & PMS_MS_ADDR) && (a >> 63) == kernel_ip(c))
		(void)pms_symtrack_data(c->h->st, c->x->ms.pid, a, nm);
}

static void k_daddr(const struct ctx *c, char *b, size_t n)
{
	struct pms_symtrack_name nm;
	daddr_name(c, &nm);
	nm.dso = NULL; /* perf prints the raw address */
	sym_text(kernel_ip(c), &nm, c->x->ms.addr, b, n);
}

/* ---- dcacheline ---------------------------------------------------------- */

static uint64_t attr_hash(uint64_t base, uint64_t ino)
{
	uint64_t k = base ^ (ino * 0x9e3779b97f4a7c15ULL);
	k ^= k >> 31;
	k *= 0xbf58476d1ce4e5b9ULL;
	return k ^ (k >> 29);
}

/* The slot of the mapping of path at base (start less pgoff: a mapping
 * split by a later one keeps it) with inode ino (the record's, as symtrack
 * keeps it): its own, or a free one. */
static struct mapattr *attr_slot(const struct pms_sorthist *h, uint64_t base, uint64_t ino,
				 const char *path)
{
	size_t j = attr_hash(base, ino) & (h->capattrs - 1);
	while (h->attrs[j].path && (h->attrs[j].start - h->attrs[j].pgoff != base ||
				    h->attrs[j].kino != ino || strcmp(h->attrs[j].path, path)))
		j = (j + 1) & (h->capattrs - 1);
	return &h->attrs[j];
}

static uint64_t le_bytes(const uint8_t *u, int n)
{
	uint64_t v = 0;
	while (n-- > 0)
		v = v << 8 | u[n];
	return v;
}

/* A process's MMAP2: its identity as perf's map and dso keep it (with a
 * build id in the record, perf 6.12's machine__process_mmap2_event still
 * reads the id fields: the build id's bytes in their place). */
static int attr_record(struct pms_sorthist *h, const struct pms_rec_mmap *m)
{
	if (h->nattrs * 2 >= h->capattrs) {
		size_t nc = h->capattrs ? h->capattrs * 2 : 64, oc = h->capattrs;
		struct mapattr *old = h->attrs, *nv = calloc(nc, sizeof(*nv));
		if (!nv)
			return pms_err(PMS_ENOMEM, "sort: out of memory");
		h->attrs = nv;
		h->capattrs = nc;
		for (size_t i = 0; i < oc; i++)
			if (old[i].path)
				*attr_slot(h, old[i].start - old[i].pgoff, old[i].kino, old[i].path) =
					old[i];
		free(old);
	}
	const char *path = m->filename ? m->filename : "";
	struct mapattr *e = attr_slot(h, m->addr - m->pgoff, m->ino, path);
	const char *own = e->path;
	if (!own) {
		if (!(own = strdup(path)))
			return pms_err(PMS_ENOMEM, "sort: out of memory");
		h->nattrs++;
	}
	*e = (struct mapattr){ m->addr, m->pgoff, m->ino, own, m->maj, m->min, m->prot, m->flags,
			       m->ino, m->ino_generation };
	if (m->has_build_id) {
		uint8_t u[20] = { 0 };
		memcpy(u, m->build_id, m->build_id_size <= 20 ? m->build_id_size : 20);
		e->maj = m->build_id_size;
		e->min = (uint32_t)le_bytes(u, 4);
		e->ino = le_bytes(u + 4, 8);
		e->gen = le_bytes(u + 12, 8);
	}
	return 0;
}

/* What perf knows of the map holding the sample's data address. */
struct dcl {
	struct pms_symtrack_name nm; /* nm.dso NULL: no map */
	uint32_t maj, min, prot, flags;
	uint64_t ino, gen;
};

static void dcl_get(const struct ctx *c, struct dcl *d)
{
	memset(d, 0, sizeof(*d));
	daddr_name(c, &d->nm);
	if (!d->nm.dso || kernel_ip(c) || !c->h->capattrs)
		return;
	const struct pms_map *m = pms_maps_find(symtrack_maps(c->h->st, c->x->ms.pid), c->x->ms.addr);
	if (!m)
		return;
	const struct mapattr *a = attr_slot(c->h, m->start - m->pgoff, m->ino, m->path);
	if (!a->path)
		return; /* an MMAP without MMAP2's fields: perf's are zero */
	d->maj = a->maj;
	d->min = a->min;
	d->prot = a->prot;
	d->flags = a->flags;
	d->ino = a->ino;
	d->gen = a->gen;
}

/* perf 6.12's hist_entry__dcacheline_snprintf: the 64-byte line of the
 * map-relative address (al_addr; the address itself where no map holds
 * it, level [X]), named by the data symbol as _hist_entry__sym_snprintf
 * names it: a data object's offset is the line's map-relative address
 * less the object's start (perf subtracts an absolute address from a
 * relative one: the wrapped 64-bit value is what it prints).  Level [s]
 * for a user sample's address in a shared (MAP_SHARED), not executable
 * mapping of a file (a non-zero id). */
static void k_dcacheline(const struct ctx *c, char *b, size_t n)
{
	struct dcl d;
	dcl_get(c, &d);
	const struct pms_symtrack_name *nm = &d.nm;
	uint64_t a = c->x->ms.addr;
	uint64_t cl = (nm->dso ? nm->map_ip : a) & ~(uint64_t)63;
	char lvl = !nm->dso ? 'X' : kernel_ip(c) ? 'k' : '.';
	if (nm->dso && !kernel_ip(c) && !(d.prot & PROT_EXEC) && (d.flags & MAP_SHARED) &&
	    (d.maj || d.min || d.ino || d.gen))
		lvl = 's';
	if (nm->sym && nm->object)
		snprintf(b, n, "[%c] %s+0x%" PRIx64, lvl, nm->sym, cl - (a - nm->off));
	else if (nm->sym)
		snprintf(b, n, "[%c] %s", lvl, nm->sym);
	else
		snprintf(b, n, "[%c] %#.16" PRIx64, lvl, cl);
}

/* perf 6.12's sort__dcacheline_cmp: one row per sample mode, map or none,
 * the map's id (major, minor, inode, generation), the process for a user
 * address in a private mapping of no file (all zero: anonymous memory,
 * heap, stack), and the line of the map-relative address.  A row prints
 * its first sample's text (k_dcacheline). */
static void k_dcacheline_id(const struct ctx *c, char *b, size_t n)
{
	struct dcl d;
	dcl_get(c, &d);
	uint64_t cl = (d.nm.dso ? d.nm.map_ip : c->x->ms.addr) & ~(uint64_t)63;
	bool anon = d.nm.dso && !kernel_ip(c) && !(d.flags & MAP_SHARED) && !d.maj && !d.min &&
		    !d.ino && !d.gen;
	snprintf(b, n, "%c%c %" PRIx32 ":%" PRIx32 ":%" PRIx64 ":%" PRIx64 " %" PRId64 " %" PRIx64,
		 kernel_ip(c) ? 'k' : 'u', d.nm.dso ? 'm' : '-', d.maj, d.min, d.ino, d.gen,
		 anon ? (int64_t)c->x->ms.pid : (int64_t)-1, cl);
}

static void k_type(const struct ctx *c, char *b, size_t n)
{
	struct pms_type_hit none = { .status = PMS_TYPE_NO_BINARY };
	pms_type_hit_key(c->hit ? c->hit : &none, PMS_TYPE_KEY_TYPE, b, n);
}

static void k_typeoff(const struct ctx *c, char *b, size_t n)
{
	struct pms_type_hit none = { .status = PMS_TYPE_NO_BINARY };
	pms_type_hit_key(c->hit ? c->hit : &none, PMS_TYPE_KEY_TYPEOFF, b, n);
}

static void k_typecln(const struct ctx *c, char *b, size_t n)
{
	struct pms_type_hit none = { .status = PMS_TYPE_NO_BINARY };
	pms_type_hit_key(c->hit ? c->hit : &none, PMS_TYPE_KEY_TYPECLN, b, n);
}

static const struct sort_key keys[] = {
	/* perf's pid key is the thread, printed with its last comm */
	{ "pid", "Pid:Command", k_tid, NEED_COMM | PID_COMM, NULL },
	{ "tid", "Tid", k_tid, 0, NULL },
	{ "tgid", "Tgid", k_tgid, 0, NULL },
	{ "cpu", "CPU", k_cpu, 0, NULL },
	{ "mem", "Memory access", k_mem, 0, NULL },
	{ "snoop", "Snoop", k_snoop, 0, NULL },
	{ "tlb", "TLB access", k_tlb, 0, NULL },
	{ "locked", "Locked", k_locked, 0, NULL },
	{ "dcacheline", "Data Cacheline", k_dcacheline, NEED_NAMES | NEED_MAPATTR,
	  k_dcacheline_id },
	{ "phys_daddr", "Data Physical Address", k_phys, 0, NULL },
	{ "node", "CPU node", k_node, 0, NULL },
	{ "memnode", "Memory node", k_memnode, 0, NULL },
	{ "comm", "Command", k_comm, NEED_COMM, NULL },
	{ "sym", "Symbol", k_sym, NEED_NAMES, k_sym_id },
	{ "dso", "Shared Object", k_dso, NEED_NAMES, NULL },
	{ "symbol_daddr", "Data Symbol", k_daddr, NEED_NAMES, NULL },
	{ "type", "Data Type", k_type, NEED_TYPES, NULL },
	{ "typeoff", "Data Type Offset", k_typeoff, NEED_TYPES, NULL },
	{ "typecln", "Data Type Cacheline", k_typecln, NEED_TYPES, NULL },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

int pms_sorthist_new(const char *list, struct pms_sorthist **out)
{
	char buf[256], names[512];
	size_t len = 0;
	*out = NULL;
	for (size_t i = 0; i < NKEYS && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
					keys[i].name);
	struct pms_sorthist *h = calloc(1, sizeof(*h));
	if (!h)
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct sort_key *k = NULL;
		for (size_t i = 0; i < NKEYS && !k; i++)
			if (!strcmp(keys[i].name, t))
				k = &keys[i];
		if (!k || h->nsel == PMS_SORTHIST_MAXKEYS) {
			free(h);
			return pms_err(PMS_EINVAL, "sort key '%s' %s; the keys: %s", t,
				       !k ? "is unknown" : "is one too many", names);
		}
		h->sel[h->nsel++] = k;
		h->needs |= k->needs;
		h->has_id |= k->id != NULL;
	}
	if (!h->nsel) {
		free(h);
		return pms_err(PMS_EINVAL, "no sort key");
	}
	*out = h;
	return 0;
}

void pms_sorthist_free(struct pms_sorthist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->t.cap; i++) {
		free(h->t.rows[i].text);
		free(h->t.rows[i].disp);
	}
	free(h->t.rows);
	for (size_t i = 0; i < h->capattrs; i++)
		free((char *)h->attrs[i].path);
	free(h->attrs);
	for (size_t i = 0; i < h->chains.cap; i++)
		free(h->chains.rows[i].text);
	free(h->chains.rows);
	free(h->outchains);
	dwpath_fini(&h->dw);
	inlpath_fini(&h->inl);
	free(h->ftext);
	free(h->fname);
	free(h->fcarry);
	free(h->chainbuf);
	free(h->seen);
	free(h->out);
	for (size_t i = 0; i < h->nouttext; i++)
		free(h->outtext[i]);
	free(h->outtext);
	free(h->comms);
	pms_symtrack_free(h->st);
	free(h);
}

/* ---- feeding ------------------------------------------------------------- */

bool sorthist_wants_types(const struct pms_sorthist *h)
{
	return (h->needs & NEED_TYPES) != 0;
}

void sorthist_bind(struct pms_sorthist *h, struct pms_sys *sys,
		   const struct pms_perfdata_info *info)
{
	if (h->bound && h->binfo == info)
		return;
	if (h->bound) {
		/* the next file of a merged report -s: its own side-band and
		 * its own kernel judgment name its samples (the rows made so
		 * far keep their texts) */
		pms_symtrack_free(h->st);
		h->st = NULL;
		inlpath_fini(&h->inl);
		memset(&h->inl, 0, sizeof(h->inl));
		h->kset = false;
	}
	h->bound = true;
	h->binfo = info;
	h->sys = sys;
	/* no names without the seam: the keys print perf's unresolved text */
	if ((h->needs & NEED_NAMES || h->cg) && sys && pms_symtrack_new(sys, info, &h->st) < 0)
		h->st = NULL;
	if (h->kset)
		symtrack_kernel_set(h->st, h->khere);
}

void sorthist_kernel(struct pms_sorthist *h, bool here)
{
	h->kset = true;
	h->khere = here;
	symtrack_kernel_set(h->st, here);
}

static int comm_set(struct pms_sorthist *h, uint32_t tid, const char *name)
{
	for (size_t i = 0; i < h->ncomms; i++)
		if (h->comms[i].tid == tid) {
			snprintf(h->comms[i].name, sizeof(h->comms[i].name), "%s", name);
			return 0;
		}
	int rc = pms_grow(&h->comms, &h->capcomms, h->ncomms + 1, sizeof(*h->comms), 16,
			  "sort: threads");
	if (rc < 0)
		return rc;
	struct comm *c = &h->comms[h->ncomms++];
	c->tid = tid;
	snprintf(c->name, sizeof(c->name), "%s", name);
	return 0;
}

int sorthist_sideband(struct pms_sorthist *h, const struct pms_record *rec)
{
	int rc = 0;
	if (h->st)
		rc = pms_symtrack_record(h->st, rec);
	if (rc >= 0 && (h->needs & NEED_MAPATTR) && rec->type == PMS_RECORD_MMAP2 &&
	    (rec->misc & PMS_MISC_CPUMODE_MASK) != PMS_MISC_KERNEL)
		rc = attr_record(h, &rec->mmap);
	if (rc < 0 || !(h->needs & NEED_COMM))
		return rc;
	if (rec->type == PMS_RECORD_COMM && rec->comm.comm)
		return comm_set(h, rec->comm.tid, rec->comm.comm);
	if (rec->type == PMS_RECORD_FORK) {
		/* a new thread starts with its parent's name (perf's thread__fork) */
		for (size_t i = h->ncomms; i-- > 0;)
			if (h->comms[i].tid == rec->fork.ptid) {
				char name[24];
				memcpy(name, h->comms[i].name, sizeof(name));
				return comm_set(h, rec->fork.tid, name);
			}
	}
	return 0;
}

static uint64_t hash(const char *t)
{
	uint64_t v = 1469598103934665603ull;
	for (; *t; t++)
		v = (v ^ (unsigned char)*t) * 1099511628211ull;
	return v;
}

static struct row *slot(struct table *h, const char *text)
{
	if (h->n * 2 >= h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		struct row *nr = calloc(nc, sizeof(*nr));
		if (!nr)
			return NULL;
		for (size_t i = 0; i < h->cap; i++) {
			if (!h->rows[i].text)
				continue;
			size_t j = hash(h->rows[i].text) & (nc - 1);
			while (nr[j].text)
				j = (j + 1) & (nc - 1);
			nr[j] = h->rows[i];
		}
		free(h->rows);
		h->rows = nr;
		h->cap = nc;
	}
	size_t j = hash(text) & (h->cap - 1);
	while (h->rows[j].text && strcmp(h->rows[j].text, text))
		j = (j + 1) & (h->cap - 1);
	if (!h->rows[j].text) {
		if (!(h->rows[j].text = strdup(text)))
			return NULL;
		h->n++;
	}
	return &h->rows[j];
}

static struct row *tfind(const struct table *h, const char *text)
{
	if (!h->cap)
		return NULL;
	size_t j = hash(text) & (h->cap - 1);
	while (h->rows[j].text && strcmp(h->rows[j].text, text))
		j = (j + 1) & (h->cap - 1);
	return h->rows[j].text ? &h->rows[j] : NULL;
}

/* The row of text: perf's sym key compares an unnamed address by the
 * address alone, not its level, and the entry keeps the level it was made
 * with: a row of the same address at the other level is the row.  The same
 * for phys_daddr, which compares the physical address alone. */
static struct row *row_of(struct pms_sorthist *h, char *text)
{
	struct row *r = tfind(&h->t, text);
	if (r)
		return r;
	for (size_t i = 0; i < h->nsel; i++) {
		if (h->sel[i]->fn != k_sym && h->sel[i]->fn != k_phys)
			continue;
		char *t = text;
		for (size_t k = 0; k < i && t; k++)
			t = (t = strchr(t, '\t')) ? t + 1 : NULL;
		if (!t || t[0] != '[' || (t[1] != 'k' && t[1] != '.') || strncmp(t + 2, "] 0", 3))
			break;
		char was = t[1];
		t[1] = was == 'k' ? '.' : 'k';
		r = tfind(&h->t, text);
		t[1] = was;
		if (r)
			return r;
		break;
	}
	return slot(&h->t, text);
}

/* The row text of a sample, or of one frame of its path (fr): what makes
 * two rows one (each key's identity where it has one: disp false), or
 * what is printed (disp true). */
static void row_text_as(const struct ctx *c, char *text, size_t size, bool disp)
{
	char v[512];
	size_t len = 0;
	text[0] = 0;
	for (size_t i = 0; i < c->h->nsel; i++) {
		const struct sort_key *k = c->h->sel[i];
		(!disp && k->id ? k->id : k->fn)(c, v, sizeof(v));
		len += (size_t)snprintf(text + len, size - len, "%s%s", i ? "\t" : "", v);
		if (len >= size)
			len = size - 1;
	}
}

static void row_text(const struct ctx *c, char *text, size_t size)
{
	row_text_as(c, text, size, false);
}

/* A new row's printed text, where a key's identity is not its text: the
 * first sample's (perf's hist entry keeps the one it was made with). */
static int row_disp(const struct ctx *c, struct row *r)
{
	char text[1024];
	if (!c->h->has_id || r->disp)
		return 0;
	row_text_as(c, text, sizeof(text), true);
	if (!(r->disp = strdup(text)))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	return 0;
}

/* ---- call graphs ----------------------------------------------------------- */

int pms_sorthist_set_callgraph(struct pms_sorthist *h, unsigned flags)
{
	if (!h || h->fed ||
	    (flags & ~(PMS_SORTHIST_CHILDREN | PMS_SORTHIST_CHAINS | PMS_SORTHIST_CALLER |
		       PMS_SORTHIST_NO_INLINE)))
		return pms_err(PMS_EINVAL, "pms_sorthist_set_callgraph: %s",
			       !h ? "no histogram" : h->fed ? "after the first sample" : "unknown flags");
	h->cg = flags;
	return 0;
}

/* The sample's whole path, leaf first: the FP callchain as decoded, a DWARF
 * sample's as perf builds it (session/dwpath.c, shared with script); 0
 * frames when it has none.  Out of memory, a DWARF sample keeps the
 * kernel part of its chain. */
static size_t sample_frames(struct pms_sorthist *h, const struct pms_memsrc_sample *x,
			    const struct pms_frame **fr)
{
	size_t n;
	*fr = x->path.frames;
	if (x->path.how == PMS_CALLGRAPH_NONE)
		return 0;
	if (x->path.how != PMS_CALLGRAPH_DWARF || !x->rec)
		return x->path.n;
	h->dw.sys = h->sys;
	h->dw.sym = symtrack_symbolizer(h->st); /* one DWARF per file */
	if (dwpath_frames(&h->dw, symtrack_maps(h->st, x->ms.pid), &x->rec->sample, fr, &n) < 0) {
		*fr = x->path.frames;
		return x->path.n;
	}
	if (!(h->cg & PMS_SORTHIST_NO_INLINE)) /* perf's inline frames */
		(void)inlpath_expand(&h->inl, h->st, x->ms.pid, *fr, n, fr, &n);
	return n;
}

/* perf's callchain_list__sym_name: the function, else the address. */
static void frame_name(const struct ctx *c, const struct pms_symtrack_name *nm, char *b,
		       size_t n)
{
	if (nm->sym)
		snprintf(b, n, "%s", nm->sym);
	else
		snprintf(b, n, "%#" PRIx64, c->fr->ip);
}

/* Add the chain of frames [from, to] (stepping by dir) to row text's chains. */
static int add_chain(struct pms_sorthist *h, const char *text, size_t nf, long from, long dir,
		     uint64_t period)
{
	/* one buffer for every chain: the row text and PMS_CALLPATH_MAX names */
	size_t cap = 1024 + PMS_CALLPATH_MAX * sizeof(*h->fname), len;
	if (!h->chainbuf && !(h->chainbuf = malloc(cap)))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	char *b = h->chainbuf;
	len = (size_t)snprintf(b, cap, "%s\001", text);
	for (long i = from, k = 0; i >= 0 && (size_t)i < nf; i += dir, k++)
		len += (size_t)snprintf(b + len, cap - len, "%s%s", k ? ";" : "", h->fname[i]);
	struct row *r = slot(&h->chains, b);
	if (!r)
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	r->samples++;
	r->period += period;
	return 0;
}

/* perf's cumulative entries (hist_entry_iter cumulative_iter_ops): the
 * sample's own row got its self period; each other distinct row of its
 * frames (walked in the chains' order, recursion counted once) gets the
 * period in its children. */
static int sorthist_cg_sample(struct pms_sorthist *h, const struct ctx *c0, const char *self,
			      uint64_t period)
{
	const struct pms_frame *fr;
	size_t nf = sample_frames(h, c0->x, &fr);
	if (!nf)
		return 0;
	h->with_path++;
	if (nf > PMS_CALLPATH_MAX)
		nf = PMS_CALLPATH_MAX;
	if (!h->ftext && !(h->ftext = malloc(PMS_CALLPATH_MAX * sizeof(*h->ftext))))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	if (!h->fname && !(h->fname = malloc(PMS_CALLPATH_MAX * sizeof(*h->fname))))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	if (!h->seen && !(h->seen = malloc(PMS_CALLPATH_MAX * sizeof(*h->seen))))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	if (!h->fcarry && !(h->fcarry = malloc(PMS_CALLPATH_MAX * sizeof(*h->fcarry))))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	bool caller = (h->cg & PMS_SORTHIST_CALLER) != 0;
	bool carry = kernel_ip(c0);
	for (size_t k = 0; k < nf; k++) { /* in the walk's order */
		size_t i = caller ? nf - 1 - k : k;
		struct ctx c = *c0;
		struct pms_symtrack_name nm;
		c.fr = &fr[i];
		c.carry_k = h->fcarry[i] = carry;
		row_text(&c, h->ftext[i], sizeof(h->ftext[i]));
		code_name(&c, &nm);
		frame_name(&c, &nm, h->fname[i], sizeof(h->fname[i]));
		if (nm.dso)
			carry = frame_kernel(&c);
	}
	int rc = 0;
	if (h->cg & PMS_SORTHIST_CHAINS)
		rc = add_chain(h, self, nf, caller ? (long)nf - 1 : 0, caller ? -1 : 1, period);
	if (!(h->cg & PMS_SORTHIST_CHILDREN))
		return rc;
	size_t nseen = 0;
	for (size_t k = 0; k < nf && rc >= 0; k++) {
		size_t i = caller ? nf - 1 - k : k;
		struct row *r = row_of(h, h->ftext[i]);
		if (!r)
			return pms_err(PMS_ENOMEM, "sort: out of memory");
		if (h->has_id) {
			struct ctx c = *c0;
			c.fr = &fr[i];
			c.carry_k = h->fcarry[i];
			if ((rc = row_disp(&c, r)) < 0)
				return rc;
		}
		bool seen = r->text == self; /* row texts stay where they are */
		for (size_t j = 0; j < nseen && !seen; j++)
			seen = h->seen[j] == r->text;
		if (seen)
			continue;
		h->seen[nseen++] = r->text;
		r->children += period;
		if (h->cg & PMS_SORTHIST_CHAINS)
			rc = add_chain(h, r->text, nf, (long)i, caller ? -1 : 1, period);
	}
	return rc;
}

int sorthist_sample(struct pms_sorthist *h, const struct pms_memsrc_sample *x,
		    const struct pms_type_hit *hit)
{
	char text[1024];
	const struct ctx c = { h, x, hit, NULL, false };
	h->fed = true;
	row_text(&c, text, sizeof(text));
	struct row *r = row_of(h, text);
	if (!r || row_disp(&c, r) < 0)
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	uint64_t period = x->ms.period ? x->ms.period : 1;
	r->samples++;
	r->period += period;
	h->samples++;
	h->period += period;
	if (h->cg & PMS_SORTHIST_CHILDREN)
		r->children += period;
	return h->cg ? sorthist_cg_sample(h, &c, r->text, period) : 0;
}

/* ---- the result ------------------------------------------------------------ */


/* A row's text with each pid field ("tid") as perf prints it, "tid:comm"
 * (hist_entry__thread_snprintf: the thread's comm when printed). */
static char *pid_text(const struct pms_sorthist *h, const char *text)
{
	char out[1024], comm[24];
	size_t len = 0, i = 0;
	for (const char *t = text; t; i++) {
		const char *tab = strchr(t, '\t');
		int flen = tab ? (int)(tab - t) : (int)strlen(t);
		if (i < h->nsel && (h->sel[i]->needs & PID_COMM)) {
			last_comm(h, (uint32_t)strtoul(t, NULL, 10), comm, sizeof(comm));
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%.*s:%s",
						i ? "\t" : "", flen, t, comm);
		} else {
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%.*s",
						i ? "\t" : "", flen, t);
		}
		if (len >= sizeof(out))
			len = sizeof(out) - 1;
		t = tab ? tab + 1 : NULL;
	}
	return strdup(out);
}

static int row_cmp(const void *a, const void *b)
{
	const struct pms_sorthist_row *x = a, *y = b;
	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	int r = strcmp(x->text, y->text);
	if (r || x->chains == y->chains)
		return r;
	/* one text, two rows (an inlined function's, row_text): chains are in
	 * their rows' hidden order */
	return !x->chains ? -1 : !y->chains ? 1 : x->chains < y->chains ? -1 : 1;
}

/* The chains, row text then period descending then chain text: a row's
 * are contiguous (their texts start "row text\001"). */
static int chain_cmp(const void *a, const void *b)
{
	const struct pms_sorthist_chain *x = a, *y = b;
	const char *u = strchr(x->text, '\001'), *v = strchr(y->text, '\001');
	size_t lu = (size_t)(u - x->text), lv = (size_t)(v - y->text);
	int r = memcmp(x->text, y->text, lu < lv ? lu : lv);
	if (r || lu != lv)
		return r ? r : lu < lv ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(u, v);
}

static int chains_result(struct pms_sorthist *h)
{
	free(h->outchains);
	h->outchains = NULL;
	if (!h->chains.n)
		return 0;
	if (!(h->outchains = calloc(h->chains.n, sizeof(*h->outchains))))
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < h->chains.cap; i++)
		if (h->chains.rows[i].text)
			h->outchains[k++] = (struct pms_sorthist_chain){
				h->chains.rows[i].text, h->chains.rows[i].samples,
				h->chains.rows[i].period };
	qsort(h->outchains, k, sizeof(*h->outchains), chain_cmp);
	return 0;
}

/* Row text's chains, found among those sorted by chain_cmp. */
static size_t row_chains(const struct pms_sorthist *h, const char *text,
			 const struct pms_sorthist_chain **out)
{
	size_t lo = 0, hi = h->chains.n, len = strlen(text);
	*out = NULL;
	while (lo < hi) { /* the first chain whose row text is >= text */
		size_t mid = (lo + hi) / 2;
		const char *t = h->outchains[mid].text, *e = strchr(t, '\001');
		size_t lt = (size_t)(e - t);
		int r = memcmp(t, text, lt < len ? lt : len);
		if (r < 0 || (!r && lt < len))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t n = 0;
	while (lo + n < h->chains.n) {
		const char *t = h->outchains[lo + n].text;
		if (strncmp(t, text, len) || t[len] != '\001')
			break;
		n++;
	}
	*out = n ? &h->outchains[lo] : NULL;
	return n;
}

int pms_sorthist_result(struct pms_sorthist *h, struct pms_sorthist_result *out)
{
	memset(out, 0, sizeof(*out));
	free(h->out);
	for (size_t i = 0; i < h->nouttext; i++)
		free(h->outtext[i]);
	free(h->outtext);
	h->outtext = NULL;
	h->nouttext = 0;
	if (!(h->out = calloc(h->t.n ? h->t.n : 1, sizeof(*h->out))))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	bool pid = false;
	for (size_t i = 0; i < h->nsel; i++)
		pid |= (h->sel[i]->needs & PID_COMM) != 0;
	if (pid && !(h->outtext = calloc(h->t.n ? h->t.n : 1, sizeof(*h->outtext))))
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	if (chains_result(h) < 0)
		return pms_err(PMS_ENOMEM, "sort: out of memory");
	size_t k = 0;
	for (size_t i = 0; i < h->t.cap; i++) {
		if (!h->t.rows[i].text)
			continue;
		const char *text = h->t.rows[i].text;
		const struct pms_sorthist_chain *ch = NULL;
		size_t nch = row_chains(h, text, &ch);
		if (h->t.rows[i].disp)
			text = h->t.rows[i].disp;
		if (pid) {
			if (!(h->outtext[h->nouttext] = pid_text(h, text)))
				return pms_err(PMS_ENOMEM, "sort: out of memory");
			text = h->outtext[h->nouttext++];
		}
		h->out[k++] = (struct pms_sorthist_row){ text, h->t.rows[i].samples,
							 h->t.rows[i].period, h->t.rows[i].children,
							 ch, nch };
	}
	/* the rows have their chains: each chain's text past its row's */
	for (size_t i = 0; i < h->chains.n; i++)
		h->outchains[i].text = strchr(h->outchains[i].text, '\001') + 1;
	if (k)
		qsort(h->out, k, sizeof(*h->out), row_cmp);
	out->rows = h->out;
	out->n_rows = k;
	for (size_t i = 0; i < h->nsel; i++)
		out->titles[i] = h->sel[i]->title;
	out->nkeys = h->nsel;
	out->samples = h->samples;
	out->period = h->period;
	out->with_path = h->with_path;
	out->children = (h->cg & PMS_SORTHIST_CHILDREN) != 0;
	return 0;
}
