/* The allocation table (include/pmuscope/alloc.h): the preload's records
 * per process, each allocation with its lifetime [t_alloc, t_free) in
 * CLOCK_MONOTONIC time, so that a sampled address finds the block that held
 * it at the sample's time (a freed and reused address belongs to the
 * allocation live then).  A forked child starts with its parent's live
 * blocks: a lookup in the child that finds nothing of its own asks the
 * parent at the fork's time, unless the child freed that block before.  An
 * exec (a START record for a known pid) ends every block of the process. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/alloc_int.h"
#include "util/error.h"
#include "util/grow.h"

#define SMALL_MAX (256u << 10) /* blocks up to this size are searched near */

/* ---- small hash: uint64 key -> uint64 value ------------------------------ */

static size_t hkey(uint64_t k, size_t cap)
{
	return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static int hmap_grow(struct hmap *h)
{
	size_t ncap = h->cap ? h->cap * 2 : 64;
	struct hent *ne = calloc(ncap, sizeof(*ne));
	if (!ne)
		return pms_err(PMS_ENOMEM, "alloc table: out of memory");
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->e[i].used)
			continue;
		size_t j = hkey(h->e[i].key, ncap);
		while (ne[j].used)
			j = (j + 1) & (ncap - 1);
		ne[j] = h->e[i];
	}
	free(h->e);
	h->e = ne;
	h->cap = ncap;
	return 0;
}

int pms_alloc_hmap_put(struct hmap *h, uint64_t key, uint64_t val)
{
	if ((h->n + 1) * 2 > h->cap && hmap_grow(h) < 0)
		return PMS_ENOMEM;
	size_t j = hkey(key, h->cap);
	while (h->e[j].used && h->e[j].key != key)
		j = (j + 1) & (h->cap - 1);
	if (!h->e[j].used)
		h->n++;
	h->e[j] = (struct hent){ key, val, true };
	return 0;
}

bool pms_alloc_hmap_get(const struct hmap *h, uint64_t key, uint64_t *val)
{
	if (!h->cap)
		return false;
	size_t j = hkey(key, h->cap);
	while (h->e[j].used) {
		if (h->e[j].key == key) {
			if (val)
				*val = h->e[j].val;
			return true;
		}
		j = (j + 1) & (h->cap - 1);
	}
	return false;
}

/* Remove key (backward-shift deletion keeps probe chains whole). */
bool pms_alloc_hmap_del(struct hmap *h, uint64_t key, uint64_t *val)
{
	if (!h->cap)
		return false;
	size_t j = hkey(key, h->cap);
	while (h->e[j].used && h->e[j].key != key)
		j = (j + 1) & (h->cap - 1);
	if (!h->e[j].used)
		return false;
	if (val)
		*val = h->e[j].val;
	size_t i = j;
	for (;;) {
		h->e[i].used = false;
		size_t k = i;
		for (;;) {
			k = (k + 1) & (h->cap - 1);
			if (!h->e[k].used)
				goto out;
			size_t home = hkey(h->e[k].key, h->cap);
			/* move e[k] into the hole i when its home is not in (i, k] */
			if (i <= k ? (home <= i || home > k) : (home <= i && home > k))
				break;
		}
		h->e[i] = h->e[k];
		i = k;
	}
out:
	h->n--;
	return true;
}

void pms_alloc_hmap_free(struct hmap *h)
{
	free(h->e);
	memset(h, 0, sizeof(*h));
}

/* ---- table ---------------------------------------------------------------- */

int pms_alloc_table_new(struct pms_alloc_table **out)
{
	struct pms_alloc_table *t = calloc(1, sizeof(*t));
	if (!t)
		return pms_err(PMS_ENOMEM, "pms_alloc_table_new: out of memory");
	*out = t;
	return 0;
}

void pms_alloc_table_free(struct pms_alloc_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct aproc *p = &t->procs[i];
		free(p->small);
		free(p->large);
		pms_alloc_hmap_free(&p->open);
		pms_alloc_hmap_free(&p->inh_free);
		pms_alloc_hmap_free(&p->ended);
	}
	free(t->procs);
	free(t->allocs);
	free(t->sites);
	free(t->frames);
	pms_alloc_hmap_free(&t->site_map);
	free(t->cal);
	free(t);
}

static struct aproc *proc_get(struct pms_alloc_table *t, uint32_t pid, bool create)
{
	for (size_t i = t->nprocs; i-- > 0;)
		if (t->procs[i].pid == pid && t->procs[i].space == t->space)
			return &t->procs[i];
	if (!create)
		return NULL;
	if (pms_grow(&t->procs, &t->cprocs, t->nprocs + 1, sizeof(*t->procs), 8, "alloc table") < 0)
		return NULL;
	struct aproc *p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->space = t->space;
	t->st.processes++;
	return p;
}

static int idx_push(size_t **v, size_t *n, size_t *cap, size_t x)
{
	if (pms_grow(v, cap, *n + 1, sizeof(**v), 64, "alloc table") < 0)
		return PMS_ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

static uint64_t frames_hash(const uint64_t *f, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ f[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

/* A thread's stack or TLS block is a site of its own per thread. */
static uint32_t per_thread(const struct pms_alloc_rec *r)
{
	return r->kind == PMS_ALLOC_THREAD_STACK || r->kind == PMS_ALLOC_TLS ? r->tid : 0;
}

/* The site of a call path: found by its frames (a chain of equal hashes is
 * walked through next_same). */
static long site_of(struct pms_alloc_table *t, const struct pms_alloc_rec *r, const uint64_t *f)
{
	uint64_t h = frames_hash(f, r->nframes) ^ per_thread(r), v;
	long first = -1;
	if (pms_alloc_hmap_get(&t->site_map, h, &v)) {
		for (long i = (long)v; i >= 0; i = t->sites[i].next_same) {
			struct asite *s = &t->sites[i];
			if (s->nframes == r->nframes && s->space == t->space &&
			    s->tid == per_thread(r) &&
			    !memcmp(t->frames + s->frames, f, r->nframes * sizeof(*f)))
				return i;
		}
		first = (long)v;
	}
	if (pms_grow(&t->sites, &t->csites, t->nsites + 1, sizeof(*t->sites), 64, "alloc sites") < 0)
		return PMS_ENOMEM;
	if (pms_grow(&t->frames, &t->cframes, t->nframes + r->nframes, sizeof(*t->frames), 1024,
		     "alloc sites") < 0)
		return PMS_ENOMEM;
	struct asite *s = &t->sites[t->nsites];
	memset(s, 0, sizeof(*s));
	s->frames = t->nframes;
	s->nframes = r->nframes;
	s->pid = r->pid;
	s->space = t->space;
	s->tid = per_thread(r);
	s->kind = r->kind;
	s->next_same = first;
	memcpy(t->frames + t->nframes, f, r->nframes * sizeof(*f));
	t->nframes += r->nframes;
	if (pms_alloc_hmap_put(&t->site_map, h, t->nsites) < 0)
		return PMS_ENOMEM;
	return (long)t->nsites++;
}

/* End the open block of p at addr (time t): true when there was one. */
static bool close_block(struct pms_alloc_table *t, struct aproc *p, uint64_t addr, uint64_t time)
{
	uint64_t v;
	if (!pms_alloc_hmap_del(&p->open, addr, &v))
		return false;
	t->allocs[v].t_free = time;
	return true;
}

static int on_free(struct pms_alloc_table *t, struct aproc *p, uint64_t addr, uint64_t time)
{
	t->st.frees++;
	/* records merged by time: a free stamped (before the real free) after
	 * another thread stamped (before its real malloc) the allocation that
	 * got the address back belongs to the block before, which that
	 * allocation already ended (the first free of the address after it) */
	if (pms_alloc_hmap_del(&p->ended, addr, NULL))
		return 0;
	if (close_block(t, p, addr, time))
		return 0;
	if (p->parent) {
		/* a block inherited at the fork, freed in the child */
		if (!pms_alloc_hmap_get(&p->inh_free, addr, NULL))
			return pms_alloc_hmap_put(&p->inh_free, addr, time);
		return 0;
	}
	t->st.unmatched_frees++;
	return 0;
}

static int on_alloc(struct pms_alloc_table *t, struct aproc *p, const struct pms_alloc_rec *r,
		    const uint64_t *f)
{
	int rc;
	if ((r->kind == PMS_ALLOC_REALLOC || r->kind == PMS_ALLOC_REALLOCARRAY ||
	     r->kind == PMS_ALLOC_MREMAP) &&
	    r->old_addr && (rc = on_free(t, p, r->old_addr, r->time)) < 0)
		return rc;
	/* a block still open at this address ends here: its free was stamped
	 * later (another thread's, racing this allocation's stamp), or lost */
	if (close_block(t, p, r->addr, r->time) &&
	    (rc = pms_alloc_hmap_put(&p->ended, r->addr, 1)) < 0)
		return rc;
	long site = site_of(t, r, f);
	if (site < 0)
		return (int)site;
	int e = pms_grow(&t->allocs, &t->callocs, t->nallocs + 1, sizeof(*t->allocs), 256,
			 "alloc table");
	if (e < 0)
		return e;
	size_t i = t->nallocs;
	t->allocs[i] = (struct pms_alloc_info){ r->pid, r->tid, r->addr, r->bytes, r->time,
						UINT64_MAX, r->kind, site };
	struct asite *s = &t->sites[site];
	s->allocs++;
	s->bytes += r->bytes;
	s->est_bytes += (double)r->weight;
	s->est_count += r->bytes ? (double)r->weight / (double)r->bytes : 1.0;
	if ((rc = pms_alloc_hmap_put(&p->open, r->addr, i)) < 0)
		return rc;
	rc = r->bytes <= SMALL_MAX ? idx_push(&p->small, &p->nsmall, &p->csmall, i)
				   : idx_push(&p->large, &p->nlarge, &p->clarge, i);
	if (rc < 0)
		return pms_err(PMS_ENOMEM, "alloc table: out of memory");
	p->sorted = false;
	t->nallocs++;
	t->st.allocs++;
	if (r->flags & PMS_ALLOC_F_SAMPLED)
		t->st.sampled++;
	else
		t->st.always++;
	return 0;
}

static int on_start(struct pms_alloc_table *t, struct aproc *p, const struct pms_alloc_rec *r,
		    bool fresh)
{
	if (r->kind == PMS_ALLOC_FORK) {
		t->st.forks++;
		p->parent = (uint32_t)r->old_addr;
		p->fork_time = r->time;
		p->exec_time = 0;
		return 0;
	}
	if (fresh)
		return 0;
	/* exec: the old image's blocks end now, the parent's are gone */
	t->st.execs++;
	for (size_t i = 0; i < p->open.cap; i++)
		if (p->open.e[i].used)
			t->allocs[p->open.e[i].val].t_free = r->time;
	pms_alloc_hmap_free(&p->open);
	pms_alloc_hmap_free(&p->ended);
	p->exec_time = r->time;
	return 0;
}

int pms_alloc_table_feed_one(struct pms_alloc_table *t, const struct pms_alloc_rec *r,
			     const uint64_t *f)
{
	if (r->kind == PMS_ALLOC_CLOCK)
		return 0; /* the stream's calibration point: no process event */
	bool fresh = !proc_get(t, r->pid, false);
	struct aproc *p = proc_get(t, r->pid, true);
	if (!p)
		return pms_err(PMS_ENOMEM, "alloc table: out of memory");
	t->st.records++;
	switch (r->kind) {
	case PMS_ALLOC_FREE:
	case PMS_ALLOC_MUNMAP:
		return on_free(t, p, r->addr, r->time);
	case PMS_ALLOC_START:
	case PMS_ALLOC_FORK:
		return on_start(t, p, r, fresh);
	default:
		return on_alloc(t, p, r, f);
	}
}

int pms_alloc_table_set_space(struct pms_alloc_table *t, uint32_t space)
{
	if (!t)
		return pms_err(PMS_EINVAL, "pms_alloc_table_set_space: no table");
	t->space = space;
	return 0;
}

long pms_alloc_table_feed(struct pms_alloc_table *t, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t off = 0;
	while (len - off >= sizeof(struct pms_alloc_rec)) {
		struct pms_alloc_rec r;
		memcpy(&r, b + off, sizeof(r));
		if (r.size != sizeof(r) + (size_t)r.nframes * 8 || r.nframes > PMS_ALLOC_MAX_FRAMES ||
		    !r.kind || r.kind >= PMS_ALLOC_KIND_MAX)
			return pms_err(PMS_EINVAL,
				       "allocation stream: malformed record at byte %zu (size %u, "
				       "kind %u, %u frames)",
				       off, (unsigned)r.size, (unsigned)r.kind, (unsigned)r.nframes);
		if (len - off < r.size)
			break;
		uint64_t f[PMS_ALLOC_MAX_FRAMES];
		memcpy(f, b + off + sizeof(r), (size_t)r.nframes * 8);
		int rc = pms_alloc_table_feed_one(t, &r, f);
		if (rc < 0)
			return rc;
		off += r.size;
	}
	return (long)off;
}

void pms_alloc_table_stats(const struct pms_alloc_table *t, struct pms_alloc_stats *out)
{
	*out = t->st;
}

size_t pms_alloc_table_count(const struct pms_alloc_table *t)
{
	return t->nallocs;
}

size_t pms_alloc_table_nsites(const struct pms_alloc_table *t)
{
	return t->nsites;
}

void pms_alloc_table_site(const struct pms_alloc_table *t, size_t i, struct pms_alloc_site_key *out)
{
	const struct asite *s = &t->sites[i];
	*out = (struct pms_alloc_site_key){ s->pid,   t->frames + s->frames, s->nframes,
					    s->kind,  s->allocs,		 s->bytes,
					    s->est_bytes, s->est_count,		 s->space,
					    s->tid };
}
