/* IPs of a recorded stream named at each point of it (session/symtrack_int.h):
 * per-process mappings kept from the side-band, handed to the symbolizer as
 * a process of its own the first time a lookup needs them after a change. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmuscope/symbols.h"
#include "session/symtrack_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "symbols/kallsyms.h"
#include "symbols/kmodsym.h"
#include "symbols/symbols_int.h"

struct tproc {
	uint32_t pid;
	uint32_t gen;   /* bumped at each change of maps */
	bool stale;     /* the symbolizer has an older copy (or none) */
	/* the mapping user code was last named in, while fgen == gen: its
	 * [fstart, fstart + flen), the module offset of fstart and the module
	 * (t->own index): a sample there goes straight to the module's runs
	 * (the mapping's and module's searches were a third of naming one) */
	uint32_t fgen, fown;
	uint64_t fstart, flen, fpgoff;
	struct pms_maps *maps;  /* everything mapped: names the module */
	struct pms_maps *clean; /* the mappings whose file may be read */
	/* per mapping maps->v[i], valid while modgen == gen: its module,
	 * t->own index + 1 (0: not yet asked; a sample's module without
	 * hashing its path), and whether the module's owner process maps it
	 * alike (maps_alike: 0 not asked, 1 yes, 2 no) while the owner's gen
	 * is qgen (four searches of the maps a lookup, not one a mapping) */
	struct tmapc {
		uint32_t mod, qgen;
		unsigned char alike;
	} *mod;
	size_t nmod;
	uint32_t modgen;
	/* the mapping of an address's 1 MiB granule: maps->v's index + 1
	 * (0: ask maps), valid while mapgen == gen (a search of every
	 * mapping a sample was a tenth of naming it over 20 libraries) */
	uint32_t mapgen;
	uint32_t map1m[256];
};

/* A name looked up, kept for the next sample at the same place: 24 bytes
 * (a table of hundreds of thousands of IPs is read at random, one slot a
 * sample) pointing at the name's record, which the IPs of one function
 * share. */
struct tentry {
	uint64_t ip;        /* the kernel IP, or the offset in the module */
	const char *mod;    /* the module's interned path; NULL: the kernel */
	uint32_t rec;       /* the name: t->r[rec] */
	unsigned char kind; /* 0 user code, 1 kernel, 2 data */
	bool used, line_done;
};

/* A name less what depends on the IP: off and map_ip are the entry's
 * ip less offd and mapd. */
struct trec {
	const char *sym, *dso, *srcfile; /* interned */
	const char *dso_name;            /* the file's info's */
	uint64_t offd, mapd;
	unsigned line;
	bool object;
	uint32_t symlen, dsolen; /* their strlen where it fits, else 0 */
};

struct pms_symtrack {
	struct pms_sys *sys;
	struct pms_symbolizer *sym;
	const struct pms_perfdata_info *info;
	bool kernel_ok;
	/* [vdso]: the running kernel's image is the symbolizer's (vdso_setup);
	 * vdso_default: a mapping whose MMAP2 has no build id may use it */
	bool vdso_default;
	uint8_t vdso_id[20];
	size_t vdso_idlen;
	bool kernel_mapped; /* the file maps the kernel (its MMAP of [kernel.kallsyms]) */
	uint64_t kstart, kend; /* that map (kend 0: to the end) */
	bool kernel_loaded; /* an IP of that map was looked up (perf loads its
			     * symbols then: map__load) */
	/* the module maps (their .ko files' symbols: kmodsym.h), and per map */
	struct pms_kmods *km;
	struct kmod {
		const char *listed; /* perf's dso name: the path the file's build
				     * ids list under this short name (NULL: none) */
		bool tried;
		bool kallsyms; /* first looked up after the kernel map's first
				* lookup: perf's dso__split_kallsyms gave it the
				* kallsyms lines (else its dso was loaded, without
				* a file, and they are discarded) */
	} *mods;
	size_t nmods, capmods;
	struct tproc *p;
	size_t np, capp, last;
	uint32_t pslot[1024]; /* a pid's hash -> its index + 1 (0: ask the list) */
	struct tentry *c;
	size_t ccap, cused;
	struct trec *r;   /* the distinct names */
	size_t rn, rcap;
	uint32_t *rh;     /* their index (open addressing, UINT32_MAX: free) */
	size_t rhcap;
	/* each module's first process to name an address in it: another
	 * process mapping the module alike asks that one's symbolizer copy
	 * (one symbol table a module, not one a process mapping it) */
	struct modown {
		const char *mod; /* interned path */
		uint32_t pid;
		bool owned;
		/* runs of offsets in the module that one name's record names
		 * (pms_sym_code_range), sorted, disjoint: user code without a
		 * line found by a search in a small array */
		struct krange {
			uint64_t lo, hi;
			uint32_t rec;
		} *rv;
		size_t rn, rcap;
		/* per HINT_SHIFT granule of offsets, range_above's last answer
		 * there (0: none): checked against the runs, so an answer an
		 * insertion moved costs a step, not a wrong name */
		uint32_t *hint;
		size_t nhint;
	} *own;
	size_t nown, capown;
	/* names, module paths and source files, interned: a cached name
	 * outlives the process (and the symbolizer's tables) it came from */
	char **str;
	size_t scap, sused;
};

/* The running kernel's build id (0 bytes: none). */
static size_t kernel_build_id(struct pms_sys *sys, uint8_t id[20])
{
	size_t n = 0;
	if (pms_kernel_build_id(sys, id, &n) < 0) {
		pms_error_clear();
		return 0;
	}
	return n;
}

/* The build id the file lists for path (symtrack_int.h). */
const struct pms_perfdata_build_id *symtrack_listed_id(const struct pms_perfdata_info *in,
						       const char *path)
{
	for (size_t i = 0; in && i < in->nbuild_ids; i++)
		if (in->build_ids[i].filename && !strcmp(in->build_ids[i].filename, path))
			return &in->build_ids[i];
	return NULL;
}

static bool ids_equal(const struct pms_perfdata_build_id *b, const uint8_t *id, size_t n)
{
	size_t m = b->size && b->size <= 20 ? b->size : 20;
	/* a 20-byte slot holds a shorter id padded with zeros */
	while (m > n && !b->id[m - 1])
		m--;
	return m == n && !memcmp(b->id, id, n);
}

/* Whether info lists the running kernel's build id (symtrack_int.h). */
bool symtrack_kernel_here(struct pms_sys *sys, const struct pms_perfdata_info *info)
{
	const struct pms_perfdata_build_id *k = symtrack_listed_id(info, "[kernel.kallsyms]");
	uint8_t id[20];
	size_t n;
	return k && (n = kernel_build_id(sys, id)) && ids_equal(k, id, n);
}

/* The vDSO image for a file's [vdso] mappings (symtrack_int.h). */
int symtrack_vdso_image(struct pms_sys *sys, const struct pms_perfdata_info *info, void **img,
			size_t *len, bool *fits)
{
	const struct pms_perfdata_build_id *b = symtrack_listed_id(info, "[vdso]");
	const struct pms_perfdata_build_id *k = symtrack_listed_id(info, "[kernel.kallsyms]");
	struct pms_host_facts h;
	uint8_t kid[20];
	size_t kidlen = k ? kernel_build_id(sys, kid) : 0;
	bool here = info && info->hostname && info->osrelease &&
		    pms_host_facts_read(sys, &h) == 0 && h.has_hostname && h.has_osrelease &&
		    !strcmp(h.hostname, info->hostname) && !strcmp(h.osrelease, info->osrelease) &&
		    (!k || (kidlen && ids_equal(k, kid, kidlen)));
	/* with no id listed the image is still given, for MMAP2 ids to match */
	int rc = pms_vdso_image_pick(sys, b ? b->id : NULL,
				     b ? (b->size && b->size <= 20 ? b->size : 20) : 0, !b || here,
				     img, len);
	*fits = rc == 0 && (b || here);
	return rc;
}

/* The symbolizer's vDSO image for this file, and its build id. */
static void vdso_setup(struct pms_symtrack *t, const struct pms_perfdata_info *info)
{
	void *img = NULL;
	size_t len = 0;
	bool fits = false;
	int rc = symtrack_vdso_image(t->sys, info, &img, &len, &fits);
	if (rc == 0 && pms_symbolizer_set_vdso(t->sym, img, len) == 0 &&
	    pms_elf_image_build_id(img, len, t->vdso_id, &t->vdso_idlen) < 0)
		t->vdso_idlen = 0;
	t->vdso_default = fits;
	free(img);
	pms_error_clear(); /* no image: [vdso] addresses stay unnamed */
}

/* Whether the [vdso] mapping of rec may be named from the image. */
static bool vdso_fits(const struct pms_symtrack *t, const struct pms_rec_mmap *m)
{
	if (!m->has_build_id)
		return t->vdso_default;
	size_t n = m->build_id_size <= 20 ? m->build_id_size : 20;
	while (n > t->vdso_idlen && !m->build_id[n - 1])
		n--;
	return t->vdso_idlen && n == t->vdso_idlen && !memcmp(m->build_id, t->vdso_id, n);
}

int pms_symtrack_new(struct pms_sys *sys, const struct pms_perfdata_info *info,
		     struct pms_symtrack **out)
{
	struct pms_maps *none = NULL;
	struct pms_symtrack *t;
	int rc;
	if (!out || !sys)
		return pms_err(PMS_EINVAL, "symtrack: NULL argument");
	*out = NULL;
	if (!(t = calloc(1, sizeof(*t))))
		return pms_err(PMS_ENOMEM, "symtrack: no memory");
	t->sys = sys;
	t->info = info;
	if ((rc = pms_maps_new(&none)) < 0 || (rc = pms_symbolizer_new(sys, none, &t->sym)) < 0) {
		pms_maps_free(none);
		free(t);
		return rc;
	}
	pms_maps_free(none);
	if ((rc = pms_kmods_new(sys, &t->km)) < 0) {
		pms_symbolizer_free(t->sym);
		free(t);
		return rc;
	}
	/* the file's module maps, not the running kernel's, name its IPs */
	pms_symbolizer_set_kmods(t->sym, t->km);
	/* kernel names from this machine's kallsyms: only for its kernel */
	t->kernel_ok = pms_symbolizer_kernel_visible(t->sym) && symtrack_kernel_here(sys, info);
	vdso_setup(t, info);
	*out = t;
	return 0;
}

/* The file's kernel as judged by the per-file rule (symtrack_int.h). */
void symtrack_kernel_set(struct pms_symtrack *t, bool here)
{
	if (t)
		t->kernel_ok = pms_symbolizer_kernel_visible(t->sym) && here;
}

void pms_symtrack_free(struct pms_symtrack *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->np; i++) {
		pms_maps_free(t->p[i].maps);
		pms_maps_free(t->p[i].clean);
		free(t->p[i].mod);
	}
	free(t->p);
	for (size_t i = 0; i < t->nown; i++) {
		free(t->own[i].rv);
		free(t->own[i].hint);
	}
	free(t->own);
	free(t->c);
	free(t->r);
	free(t->rh);
	pms_kmods_free(t->km);
	free(t->mods);
	for (size_t i = 0; i < t->scap; i++)
		free(t->str[i]);
	free(t->str);
	pms_symbolizer_free(t->sym);
	free(t);
}

static struct tproc *proc_get(struct pms_symtrack *t, uint32_t pid, bool make)
{
	size_t h = (pid * 2654435761u) >> 22;
	if (t->last < t->np && t->p[t->last].pid == pid)
		return &t->p[t->last];
	if (t->pslot[h] && t->p[t->pslot[h] - 1].pid == pid)
		return &t->p[t->last = t->pslot[h] - 1];
	for (size_t i = 0; i < t->np; i++)
		if (t->p[i].pid == pid) {
			if (i < UINT32_MAX)
				t->pslot[h] = (uint32_t)i + 1;
			return &t->p[t->last = i];
		}
	if (!make)
		return NULL;
	if (pms_grow(&t->p, &t->capp, t->np + 1, sizeof(*t->p), 8, "symtrack: processes") < 0)
		return NULL;
	struct tproc *p = &t->p[t->np];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->stale = true;
	if (pms_maps_new(&p->maps) < 0 || pms_maps_new(&p->clean) < 0) {
		pms_maps_free(p->maps);
		return NULL;
	}
	if (t->np < UINT32_MAX)
		t->pslot[h] = (uint32_t)t->np + 1;
	t->last = t->np++;
	return p;
}

/* Whether the file at path may be read for names: the file lists no build
 * id for it, or this machine's file has that id. */
static bool readable(const struct pms_symtrack *t, const char *path)
{
	const struct pms_perfdata_build_id *b = symtrack_listed_id(t->info, path);
	uint8_t id[20];
	size_t n = 0;
	if (!b)
		return true;
	/* the file below the root, as it is read (perf's --symfs) */
	const char *root = pms_sys_root(t->sys);
	char full[4096];
	int k = snprintf(full, sizeof(full), "%s%s", root && strcmp(root, "/") ? root : "", path);
	return k > 0 && (size_t)k < sizeof(full) && pms_elf_build_id(full, id, &n) == 0 &&
	       ids_equal(b, id, n);
}

static int add_map(struct pms_symtrack *t, struct tproc *p, const struct pms_record *rec)
{
	const struct pms_rec_mmap *m = &rec->mmap;
	bool exec = rec->type == PMS_RECORD_MMAP2 ? (m->prot & PROT_EXEC) != 0
						  : !(rec->misc & PMS_MISC_MMAP_DATA);
	const char *path = m->filename ? m->filename : "";
	uint64_t ino = rec->type == PMS_RECORD_MMAP2 ? m->ino : 0;
	int rc;
	p->gen++; /* before any change: an error part way leaves it bumped */
	p->stale = true;
	if ((rc = pms_maps_add(p->maps, m->addr, m->len, m->pgoff, ino, exec, path)) < 0)
		return rc;
	if ((path[0] == '/' && !readable(t, path)) || (!strcmp(path, "[vdso]") && !vdso_fits(t, m))) {
		pms_maps_remove(p->clean, m->addr, m->len);
	} else {
		/* the symbolizer places an ELF by the mapping of its offset 0:
		 * stand one in below the text where none is known (not for
		 * "//anon": its pgoff is its address, and a stand-in from 0
		 * would cover, and drop, every file mapped below it: a -d or
		 * DWARF recording's main binary went unnamed) */
		if (m->pgoff && m->pgoff <= m->addr && path[0] == '/' && path[1] != '/' &&
		    !pms_maps_find(p->clean, m->addr - m->pgoff) &&
		    (rc = pms_maps_add(p->clean, m->addr - m->pgoff, m->pgoff, 0, ino, false, path)) < 0)
			return rc;
		if ((rc = pms_maps_add(p->clean, m->addr, m->len, m->pgoff, ino, exec, path)) < 0)
			return rc;
	}
	return 0;
}

static int copy_maps(struct pms_maps *to, const struct pms_maps *from)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct pms_map *m = &from->v[i];
		int rc = pms_maps_add(to, m->start, m->end - m->start, m->pgoff, m->ino, m->exec,
				      m->path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A kernel module's map, named as perf names it (pms_kmod_short_name),
 * its .ko read (at its first lookup) with the build id the file lists for
 * its path. */
static int add_module(struct pms_symtrack *t, const struct pms_rec_mmap *m)
{
	int rc = pms_grow(&t->mods, &t->capmods, t->nmods + 1, sizeof(*t->mods), 8,
			  "symtrack: modules");
	if (rc < 0)
		return rc;
	const struct pms_perfdata_build_id *b = symtrack_listed_id(t->info, m->filename);
	if ((rc = pms_kmods_add(t->km, m->addr, m->addr + m->len, m->filename, b ? b->id : NULL,
				b ? (b->size && b->size <= 20 ? b->size : 20) : 0)) < 0)
		return rc;
	struct kmod *k = &t->mods[t->nmods++];
	memset(k, 0, sizeof(*k));
	const char *name = pms_kmods_name(t->km, t->nmods - 1);
	/* perf's module dso: the one the build-id table made, found by its
	 * short name (machine.c machine__addnew_module_map ->
	 * dsos__findnew_module_dso, dsos__find with cmp_short), named by the
	 * listed path (header.c __event_process_build_id ->
	 * machine__findnew_dso_id; dso__set_module_info sets the short name
	 * only); else a dso named "[module]" (dso__new(m->name)) */
	char sn[64];
	for (size_t i = 0; t->info && i < t->info->nbuild_ids && !k->listed; i++) {
		const char *f = t->info->build_ids[i].filename;
		if (!f || (t->info->build_ids[i].misc & PMS_MISC_CPUMODE_MASK) != PMS_MISC_KERNEL)
			continue;
		pms_kmod_short_name(f, sn, sizeof(sn));
		if (!strcmp(sn, name) && strcmp(f, "[kernel.kallsyms]"))
			k->listed = f;
	}
	return 0;
}

int pms_symtrack_record(struct pms_symtrack *t, const struct pms_record *rec)
{
	struct tproc *p, *pp;
	switch (rec->type) {
	case PMS_RECORD_MMAP:
	case PMS_RECORD_MMAP2:
		if ((rec->misc & PMS_MISC_CPUMODE_MASK) == PMS_MISC_KERNEL || !rec->mmap.len ||
		    rec->mmap.pid == UINT32_MAX) {
			/* the kernel's own maps: named through kallsyms; without
			 * its MMAP perf has no kernel map at all */
			if (rec->mmap.filename && !strncmp(rec->mmap.filename, "[kernel.kallsyms]", 17)) {
				t->kernel_mapped = true;
				t->kstart = rec->mmap.addr;
				t->kend = rec->mmap.addr + rec->mmap.len;
			} else if (rec->mmap.filename && rec->mmap.len) {
				return add_module(t, &rec->mmap);
			}
			return 0;
		}
		if (!(p = proc_get(t, rec->mmap.pid, true)))
			return pms_err(PMS_ENOMEM, "symtrack: no memory");
		return add_map(t, p, rec);
	case PMS_RECORD_FORK:
		/* a new process starts with its parent's mappings */
		if (rec->fork.pid == rec->fork.ppid || !(pp = proc_get(t, rec->fork.ppid, false)))
			return 0;
		{
			size_t ppi = (size_t)(pp - t->p);
			if (!(p = proc_get(t, rec->fork.pid, true)))
				return pms_err(PMS_ENOMEM, "symtrack: no memory");
			pp = &t->p[ppi];
			p->gen++;
			p->stale = true;
			pms_maps_remove(p->maps, 0, UINT64_MAX);
			pms_maps_remove(p->clean, 0, UINT64_MAX);
			int rc;
			if ((rc = copy_maps(p->maps, pp->maps)) < 0 ||
			    (rc = copy_maps(p->clean, pp->clean)) < 0)
				return rc;
		}
		return 0;
	case PMS_RECORD_COMM:
		if (!(rec->misc & PMS_MISC_COMM_EXEC) || !(p = proc_get(t, rec->comm.pid, false)))
			return 0;
		pms_maps_remove(p->maps, 0, UINT64_MAX);
		pms_maps_remove(p->clean, 0, UINT64_MAX);
		p->gen++;
		p->stale = true;
		return 0;
	default:
		return 0;
	}
}

static uint64_t mix(uint64_t k)
{
	k ^= k >> 31;
	k *= 0xbf58476d1ce4e5b9ULL;
	return k ^ (k >> 29);
}

static uint64_t shash(const char *p)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

/* The one copy of string p (NULL stays NULL; NULL too without memory). */
static const char *intern(struct pms_symtrack *t, const char *p)
{
	if (!p)
		return NULL;
	if ((t->sused + 1) * 2 > t->scap) {
		size_t cap = t->scap ? t->scap * 2 : 256;
		char **n = calloc(cap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < t->scap; i++) {
			if (!t->str[i])
				continue;
			size_t h = shash(t->str[i]) & (cap - 1);
			while (n[h])
				h = (h + 1) & (cap - 1);
			n[h] = t->str[i];
		}
		free(t->str);
		t->str = n;
		t->scap = cap;
	}
	size_t h = shash(p) & (t->scap - 1);
	while (t->str[h] && strcmp(t->str[h], p))
		h = (h + 1) & (t->scap - 1);
	if (!t->str[h]) {
		if (!(t->str[h] = strdup(p)))
			return NULL;
		t->sused++;
	}
	return t->str[h];
}

static struct tentry *slot(struct pms_symtrack *t, const char *mod, uint64_t ip,
			   unsigned char kind)
{
	if ((t->cused + 1) * 2 > t->ccap) {
		size_t cap = t->ccap ? t->ccap * 2 : 4096;
		struct tentry *n = calloc(cap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < t->ccap; i++) {
			if (!t->c[i].used)
				continue;
			size_t h = mix(t->c[i].ip ^ (uintptr_t)t->c[i].mod ^ t->c[i].kind) & (cap - 1);
			while (n[h].used)
				h = (h + 1) & (cap - 1);
			n[h] = t->c[i];
		}
		free(t->c);
		t->c = n;
		t->ccap = cap;
	}
	size_t h = mix(ip ^ (uintptr_t)mod ^ kind) & (t->ccap - 1);
	while (t->c[h].used && !(t->c[h].ip == ip && t->c[h].mod == mod && t->c[h].kind == kind))
		h = (h + 1) & (t->ccap - 1);
	return &t->c[h];
}

/* m's module (one of p's maps), its t->own index; -1 without memory. */
static int64_t own_of(struct pms_symtrack *t, const char *mod)
{
	for (size_t i = 0; i < t->nown; i++)
		if (t->own[i].mod == mod)
			return (int64_t)i;
	if (t->nown >= UINT32_MAX - 1 ||
	    pms_grow(&t->own, &t->capown, t->nown + 1, sizeof(*t->own), 8, "symtrack: modules") < 0) {
		pms_error_clear();
		return -1;
	}
	t->own[t->nown] = (struct modown){ .mod = mod };
	return (int64_t)t->nown++;
}

/* p's mapping holding ip (NULL: none). */
static const struct pms_map *proc_map(struct tproc *p, uint64_t ip)
{
	size_t h = (size_t)(((ip >> 20) * 0x9e3779b97f4a7c15ULL) >> 56);
	const struct pms_map *m;
	uint32_t i;
	if (p->mapgen != p->gen) {
		memset(p->map1m, 0, sizeof(p->map1m));
		p->mapgen = p->gen;
	}
	i = p->map1m[h];
	if (i && i <= p->maps->n && (m = &p->maps->v[i - 1])->start <= ip && ip < m->end)
		return m;
	m = pms_maps_find(p->maps, ip);
	if (m && (size_t)(m - p->maps->v) < UINT32_MAX)
		p->map1m[h] = (uint32_t)(m - p->maps->v) + 1;
	return m;
}

static struct modown *map_mod(struct pms_symtrack *t, struct tproc *p, const struct pms_map *m)
{
	size_t i = (size_t)(m - p->maps->v);
	const char *mod;
	int64_t k;
	if (p->modgen != p->gen || !p->mod || i >= p->nmod) {
		size_t n = p->maps->n;
		if (n > p->nmod) {
			struct tmapc *v = realloc(p->mod, n * sizeof(*v));
			if (!v) {
				mod = intern(t, m->path[0] ? m->path : "//anon");
				k = mod ? own_of(t, mod) : -1;
				return k < 0 ? NULL : &t->own[k];
			}
			p->mod = v;
			p->nmod = n;
		}
		memset(p->mod, 0, p->nmod * sizeof(*p->mod));
		p->modgen = p->gen;
	}
	if (!p->mod[i].mod) {
		mod = intern(t, m->path[0] ? m->path : "//anon");
		if (!mod || (k = own_of(t, mod)) < 0)
			return NULL;
		p->mod[i].mod = (uint32_t)k + 1;
	}
	return &t->own[p->mod[i].mod - 1];
}

/* The number of runs of v[0, n) starting at or below key (sorted,
 * disjoint). */
static size_t range_above_in(const struct krange *v, size_t n, uint64_t key)
{
	size_t base = 0;
	if (!n)
		return 0;
	/* the answer is in [base, base + n]: halve n, moving base by a
	 * conditional move, not a branch (a sample's search was a
	 * mispredicted branch a level: most of naming it) */
	while (n > 1) {
		size_t half = n / 2;
		/* both halves' next probes fetched while this one compares */
		__builtin_prefetch(&v[base + half / 2]);
		__builtin_prefetch(&v[base + half + half / 2]);
		base = v[base + half].lo <= key ? base + half : base;
		n -= half;
	}
	return base + (v[base].lo <= key);
}

static size_t range_above(const struct modown *o, uint64_t key)
{
	return range_above_in(o->rv, o->rn, key);
}

/* Offsets a fine hint covers (512 bytes: a few functions) over a module's
 * first MiB, then a coarse one (32 KiB) to its 64th MiB; 4,096 hints (16
 * KB) a module at most. */
#define HINT_SHIFT 9
#define HINT_FINE ((size_t)1 << 11)
#define HINT_COARSE_SHIFT 15
#define HINT_MAX (HINT_FINE + ((size_t)1 << 11))

/* The hint slot of key, HINT_MAX when none covers it. */
static size_t hint_of(uint64_t key)
{
	if (key < ((uint64_t)HINT_FINE << HINT_SHIFT))
		return (size_t)(key >> HINT_SHIFT);
	key >>= HINT_COARSE_SHIFT;
	return key < HINT_MAX - HINT_FINE ? HINT_FINE + (size_t)key : HINT_MAX;
}

/* range_above from a, a wrong answer near the right one: probes a step,
 * two, four... away from it, then the search of what they bracket (a
 * granule's last answer is a few runs from the next one's: a few probes
 * in one or two cache lines, not a search of the whole module's runs). */
static size_t range_gallop(const struct krange *v, size_t n, size_t a, uint64_t key)
{
	size_t lo, hi, d; /* the answer is in [lo, hi] */
	if (a && v[a - 1].lo > key) {
		hi = a - 1;
		for (d = 1;; d *= 2) {
			if (d > hi) {
				lo = 0;
				break;
			}
			if (v[hi - d].lo <= key) {
				lo = hi - d + 1;
				break;
			}
			hi -= d;
		}
	} else {
		lo = a + 1; /* v[a].lo <= key */
		for (d = 1;; d *= 2) {
			if (lo + d - 1 >= n) {
				hi = n;
				break;
			}
			if (v[lo + d - 1].lo > key) {
				hi = lo + d - 1;
				break;
			}
			lo += d;
		}
	}
	return lo + range_above_in(v + lo, hi - lo, key);
}

/* range_above, starting from the answer last given in key's granule
 * (a sample's search of a module's runs was a fifth of `script -F
 * ip,sym,dso`): that answer when it still brackets key, a step or two
 * from it, else probes outward from it. */
static size_t range_above_hinted(struct modown *o, uint64_t key)
{
	const struct krange *v = o->rv;
	size_t g = hint_of(key), a;
	if (g >= HINT_MAX)
		return range_above(o, key);
	if (g >= o->nhint) {
		size_t n = o->nhint ? o->nhint : 256;
		uint32_t *h;
		while (n <= g)
			n *= 2;
		if (n > HINT_MAX)
			n = HINT_MAX;
		if (!(h = realloc(o->hint, n * sizeof(*h))))
			return range_above(o, key);
		memset(h + o->nhint, 0, (n - o->nhint) * sizeof(*h));
		o->hint = h;
		o->nhint = n;
	}
	a = o->hint[g];
	if (a && a <= o->rn) {
		/* a runs start at or below key: v[a - 1].lo <= key < v[a].lo */
		if (v[a - 1].lo > key || (a < o->rn && v[a].lo <= key))
			a = range_gallop(v, o->rn, a, key);
	} else {
		a = range_above(o, key);
	}
	if (a <= UINT32_MAX)
		o->hint[g] = (uint32_t)a;
	return a;
}

/* The record of the run holding key in o's runs, or -1. */
static int64_t range_find(struct modown *o, uint64_t key)
{
	size_t lo = range_above_hinted(o, key);
	return lo && key < o->rv[lo - 1].hi ? (int64_t)o->rv[lo - 1].rec : -1;
}

/* The run [lo, hi) (holding key, which no run holds yet) kept, cut where
 * it meets its neighbours. */
static void range_add(struct modown *o, uint64_t key, uint64_t lo, uint64_t hi, uint32_t rec)
{
	size_t at = range_above_hinted(o, key);
	if (at && o->rv[at - 1].hi > lo)
		lo = o->rv[at - 1].hi;
	if (at < o->rn && o->rv[at].lo < hi)
		hi = o->rv[at].lo;
	if (lo >= hi ||
	    pms_grow(&o->rv, &o->rcap, o->rn + 1, sizeof(*o->rv), 64, "symtrack: runs") < 0) {
		pms_error_clear();
		return;
	}
	memmove(&o->rv[at + 1], &o->rv[at], (o->rn - at) * sizeof(*o->rv));
	o->rv[at] = (struct krange){ lo, hi, rec };
	o->rn++;
}

static bool same_map(const struct pms_map *a, const struct pms_map *b)
{
	if (!a || !b)
		return a == b;
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->ino == b->ino && a->exec == b->exec && a->kind == b->kind &&
	       !strcmp(a->path, b->path);
}

/* Whether q maps m's module as p does: the same mapping, readable alike,
 * and the same mapping at the module's offset 0 (where the symbolizer
 * places the file). */
static bool maps_alike(const struct tproc *p, const struct tproc *q, const struct pms_map *m)
{
	uint64_t base = m->start - (m->pgoff <= m->start ? m->pgoff : 0);
	return same_map(m, pms_maps_find(q->maps, m->start)) &&
	       same_map(pms_maps_find(p->clean, m->start), pms_maps_find(q->clean, m->start)) &&
	       same_map(pms_maps_find(p->clean, base), pms_maps_find(q->clean, base)) &&
	       same_map(pms_maps_find(p->maps, base), pms_maps_find(q->maps, base));
}

/* The process whose symbolizer copy names an address of p in m (module
 * o): the module's first such process when it maps the module alike,
 * else p (the first for the module becomes its owner). */
static struct tproc *answerer(struct pms_symtrack *t, struct tproc *p, const struct pms_map *m,
			      struct modown *o)
{
	if (!o->owned) {
		o->owned = true;
		o->pid = p->pid;
		return p;
	}
	if (o->pid == p->pid)
		return p;
	/* no new process: t->p stays where it is */
	struct tproc *q = proc_get(t, o->pid, false);
	size_t i = (size_t)(m - p->maps->v);
	struct tmapc *c = p->modgen == p->gen && i < p->nmod ? &p->mod[i] : NULL;
	bool alike;
	if (!q)
		return p;
	if (c && c->alike && c->qgen == q->gen)
		return c->alike == 1 ? q : p;
	alike = maps_alike(p, q, m);
	if (c) {
		c->alike = alike ? 1 : 2;
		c->qgen = q->gen;
	}
	return alike ? q : p;
}

static uint64_t rec_hash(const struct trec *r)
{
	return mix((uintptr_t)r->sym ^ mix((uintptr_t)r->dso ^ mix(r->offd ^ mix(r->mapd))) ^
		   (uintptr_t)r->srcfile ^ ((uint64_t)r->line << 1) ^ r->object);
}

static bool rec_eq(const struct trec *a, const struct trec *b)
{
	return a->sym == b->sym && a->dso == b->dso && a->dso_name == b->dso_name &&
	       a->srcfile == b->srcfile &&
	       a->offd == b->offd && a->mapd == b->mapd && a->line == b->line &&
	       a->object == b->object;
}

/* The index of n's record for an entry at key (made the first time);
 * -1 without memory. */
static int64_t rec_id(struct pms_symtrack *t, const struct pms_symtrack_name *n, uint64_t key)
{
	/* no symbol: offset 0 (the entries of a run without one share it) */
	struct trec r = { n->sym,      n->dso,	       n->srcfile, n->dso_name,
			  n->sym ? key - n->off : 0, key - n->map_ip, n->line, n->object,
			  0,	       0 };
	if ((t->rn + 1) * 2 > t->rhcap) {
		size_t cap = t->rhcap ? t->rhcap * 2 : 1024;
		uint32_t *h = malloc(cap * sizeof(*h));
		if (!h)
			return -1;
		memset(h, 0xff, cap * sizeof(*h));
		for (size_t i = 0; i < t->rn; i++) {
			size_t j = rec_hash(&t->r[i]) & (cap - 1);
			while (h[j] != UINT32_MAX)
				j = (j + 1) & (cap - 1);
			h[j] = (uint32_t)i;
		}
		free(t->rh);
		t->rh = h;
		t->rhcap = cap;
	}
	size_t j = rec_hash(&r) & (t->rhcap - 1);
	for (; t->rh[j] != UINT32_MAX; j = (j + 1) & (t->rhcap - 1))
		if (rec_eq(&t->r[t->rh[j]], &r))
			return t->rh[j];
	if (t->rn >= UINT32_MAX - 1 ||
	    pms_grow(&t->r, &t->rcap, t->rn + 1, sizeof(*t->r), 256, "symtrack: names") < 0) {
		pms_error_clear();
		return -1;
	}
	size_t sl = r.sym ? strlen(r.sym) : 0, dl = r.dso ? strlen(r.dso) : 0;
	r.symlen = sl < UINT32_MAX ? (uint32_t)sl : 0;
	r.dsolen = dl < UINT32_MAX ? (uint32_t)dl : 0;
	t->r[t->rn] = r;
	t->rh[j] = (uint32_t)t->rn;
	return (int64_t)t->rn++;
}

/* A module's IP named as perf 6.12 names it without the module's file:
 * from the kallsyms lines tagged with the module's name, which
 * dso__split_kallsyms moves to the module's dso (their ends fixed over
 * the whole table first, symbols__fixup_end); a line of another module or
 * of the core kernel names nothing here. */
static void kmod_name(struct pms_symtrack *t, uint64_t ip, const char *mod,
		      struct pms_symtrack_name *n)
{
	struct pms_symbol s;
	if (pms_symbolizer_code_pid(t->sym, 0, ip, true, false, &s) == 0 && s.func && s.module &&
	    !strcmp(s.module, mod)) {
		n->sym = intern(t, s.func);
		n->off = s.offset;
		n->object = s.object;
	}
}

/* The kernel's name of ip (its modules: their .ko, else kallsyms when this
 * is its kernel). */
static void kernel_name(struct pms_symtrack *t, uint64_t ip, struct pms_symtrack_name *n)
{
	struct pms_symbol s;
	long i = pms_kmods_at(t->km, ip);
	if (i >= 0) {
		/* the module's .ko, read at its first lookup (perf's dso__load
		 * of a module dso); without one kallsyms' lines, when they were
		 * split off to it (struct kmod's kallsyms) */
		struct kmod *k = &t->mods[i];
		if (!k->tried) {
			k->tried = true;
			k->kallsyms = t->kernel_loaded;
		}
		const struct pms_kmsyms *ks = pms_kmods_syms(t->km, (size_t)i);
		/* interned: a cached name outlives nothing it points into */
		n->dso = intern(t, pms_kmods_name(t->km, (size_t)i));
		n->dso_name = k->listed;
		n->map_ip = ip - pms_kmods_start(t->km, (size_t)i);
		if (ks) {
			n->map_ip += pms_kmsyms_pgoff(ks);
			n->sym = intern(t, pms_kmsyms_find(ks, n->map_ip, &n->off, &n->object));
		} else if (t->kernel_ok && k->kallsyms)
			kmod_name(t, ip, n->dso, n);
		return;
	}
	/* perf's kernel map: the MMAP's range (machine__set_kernel_mmap; a
	 * zero-sized one reaches to the end) */
	if (!t->kernel_mapped || ip < t->kstart || (t->kend > t->kstart && ip >= t->kend))
		return;
	n->dso = "[kernel.kallsyms]";
	n->map_ip = ip;
	t->kernel_loaded = true;
	if (t->kernel_ok && pms_symbolizer_code_pid(t->sym, 0, ip, true, false, &s) == 0 && s.func) {
		n->sym = intern(t, s.func);
		n->off = s.offset;
		n->object = s.object;
	}
}

static void from_rec(const struct trec *r, uint64_t key, struct pms_symtrack_name *out)
{
	out->sym = r->sym;
	out->off = r->sym ? key - r->offd : 0;
	out->dso = r->dso;
	out->dso_name = r->dso_name;
	out->srcfile = r->srcfile;
	out->line = r->line;
	out->map_ip = key - r->mapd;
	out->object = r->object;
	out->symlen = r->symlen;
	out->dsolen = r->dsolen;
}

static int named(struct pms_symtrack *t, uint32_t pid, uint64_t ip, unsigned kind,
		 bool want_line, struct pms_symtrack_name *out)
{
	struct pms_symbol s;
	struct tproc *p = NULL;
	const struct pms_map *m = NULL;
	struct modown *o = NULL;
	const char *mod = NULL;
	uint64_t key = ip, rlo = 0, rhi = 0;
	bool run = kind == 0 && !want_line; /* user code: the module's runs */
	int64_t ri;
	memset(out, 0, sizeof(*out));
	if (run && (p = proc_get(t, pid, false)) && p->fgen == p->gen && ip - p->fstart < p->flen) {
		key = ip - p->fstart + p->fpgoff;
		if ((ri = range_find(&t->own[p->fown], key)) >= 0) {
			from_rec(&t->r[ri], key, out);
			return 0;
		}
	}
	if (kind != 1) {
		/* names depend on the module and the offset in it: one entry
		 * serves every process mapping that module */
		if (!(p = proc_get(t, pid, false)) || !(m = proc_map(p, ip)))
			return 0;
		if (!(o = map_mod(t, p, m)))
			return 0;
		mod = o->mod;
		key = ip - m->start + m->pgoff;
		if (kind == 2 && m->kind != PMS_MAP_FILE) {
			/* perf names a data address by its map's file only: the
			 * anonymous tail of a module's .bss stays an address;
			 * anonymous memory, [heap] and [stack] are identity maps
			 * to perf (map__new), [vdso] is not */
			out->dso = mod;
			out->map_ip = m->kind == PMS_MAP_SPECIAL ? key : ip;
			return 0;
		}
		if (run) {
			p->fgen = p->gen;
			p->fown = (uint32_t)(o - t->own);
			p->fstart = m->start;
			p->flen = m->end - m->start;
			p->fpgoff = m->pgoff;
			if ((ri = range_find(o, key)) >= 0) {
				from_rec(&t->r[ri], key, out);
				return 0;
			}
		}
	}
	struct tentry *e = slot(t, mod, key, (unsigned char)kind);
	if (e && e->used && (e->line_done || !want_line)) {
		from_rec(&t->r[e->rec], key, out);
		return 0;
	}
	if (kind == 1) {
		kernel_name(t, ip, out);
	} else {
		out->dso = mod;
		out->map_ip = key;
		p = answerer(t, p, m, o);
		if (p->stale && pms_symbolizer_add_process(t->sym, (pid_t)p->pid, p->clean) == 0)
			p->stale = false;
		/* perf's symbols reach to the next one when they have no size:
		 * the nearest symbol below names a data address too (the code
		 * rule); the symbol holding it where the module says none
		 * precedes it */
		int rc = p->stale ? -1
			 : run	  ? pms_sym_code_range(t->sym, (pid_t)p->pid, ip, &s, &rlo, &rhi)
				  : pms_symbolizer_code_pid(t->sym, (pid_t)p->pid, ip, false,
							    want_line && kind == 0, &s);
		if (rc < 0 && kind == 2 && !p->stale)
			rc = pms_symbolizer_data_pid(t->sym, (pid_t)p->pid, ip, &s);
		if (rc == 0) {
			out->sym = intern(t, s.func);
			out->off = s.offset;
			out->object = s.object;
			out->srcfile = intern(t, s.file);
			out->line = s.line > 0 ? (unsigned)s.line : 0;
		}
	}
	ri = e ? rec_id(t, out, key) : -1;
	if (ri >= 0 && rlo < rhi) {
		/* the run, in this mapping, as offsets in the module */
		uint64_t lo = rlo > m->start ? rlo : m->start, hi = rhi < m->end ? rhi : m->end;
		if (lo <= ip && ip < hi) {
			range_add(o, key, lo - m->start + m->pgoff, hi - m->start + m->pgoff,
				  (uint32_t)ri);
			return 0;
		}
	}
	if (ri >= 0) {
		if (!e->used)
			t->cused++;
		*e = (struct tentry){ .ip = key, .mod = mod, .rec = (uint32_t)ri, .used = true,
				      .kind = (unsigned char)kind, .line_done = want_line };
	}
	return 0;
}

int pms_symtrack_code(struct pms_symtrack *t, uint32_t pid, uint64_t ip, bool kernel,
		      bool want_line, struct pms_symtrack_name *out)
{
	return named(t, pid, ip, kernel ? 1 : 0, want_line, out);
}

int pms_symtrack_data(struct pms_symtrack *t, uint32_t pid, uint64_t addr,
		      struct pms_symtrack_name *out)
{
	return named(t, pid, addr, (addr >> 63) ? 1 : 2, false, out);
}

struct pms_symbolizer *symtrack_symbolizer(struct pms_symtrack *t)
{
	return t ? t->sym : NULL;
}

const struct pms_maps *symtrack_maps(struct pms_symtrack *t, uint32_t pid)
{
	struct tproc *p = t ? proc_get(t, pid, false) : NULL;
	return p ? p->maps : NULL;
}
