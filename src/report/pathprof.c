/* Memory samples by call path: paths interned as they come, counts per
 * path, then the top lists with every frame named. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/pathprof.h"
#include "report/memprof_int.h"
#include "report/pathprof_int.h"
#include "report/pathprof_merge.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

#define DEFAULT_TOP 10

/* A path's n frames: w[0..n) their ips; when flagged, their flags after
 * them (n uint32_t from w + n), else every flag 0 (a user-space path's
 * usual frames): 8 bytes a frame, not a struct pms_frame's 16 (of 58 MB
 * of frames on 200 K paths, the first touch of the pages was a tenth of
 * the report, issue 33). */
struct path {
	uint64_t *w;
	uint32_t n;
	bool flagged, truncated;
	uint64_t hash;
	uint64_t samples, latency, weighted, resolved, remote;
};

static uint32_t path_flags(const struct path *x, size_t i)
{
	return x->flagged ? ((const uint32_t *)(const void *)(x->w + x->n))[i] : 0;
}

/* The paths' words (struct path), in blocks (one allocation per block, not
 * per path: a file of call stacks has millions of distinct paths).  The
 * first FBLOCK_SMALL blocks are of FBLOCK_WORDS words, allocated; the later
 * ones of 2 MiB, on huge pages where the kernel gives them (mp_big_calloc;
 * this machine gave none, AnonHugePages 0).  A block's bytes:
 * fblock_bytes(its cap). */
struct fblock {
	struct fblock *next;
	size_t used, cap;
	uint64_t w[];
};
#define FBLOCK_WORDS 65536
#define FBLOCK_SMALL 4
#define FBLOCK_BIG ((IPTAB_HUGE - sizeof(struct fblock)) / sizeof(uint64_t))

struct lastbr {
	uint64_t from, to, samples, latency, weighted, mispred;
	bool foreign; /* of a PMS_MS_KERNEL_FOREIGN sample: its kernel ends unnamed */
};

struct pms_pathprof {
	struct pms_pathprof_opts o;
	struct pms_sys *sys; /* for a twin (pathprof_merge.h) */
	struct pms_unwinder *uw;
	struct path *v;
	size_t n, cap;
	/* open addressing: path index + 1 in the low half, 0 empty; the
	 * hash's high half in the high half (a probe reads the path only
	 * when they match) */
	uint64_t *slots; /* mp_big_calloc'd: of megabytes, probed at random */
	size_t nslots;
	struct fblock *blocks; /* the paths' frames, the newest first */
	size_t nblocks;
	uint32_t *of;    /* kept mode: path index + 1 of each sample (0 none) */
	size_t nof, capof;
	uint64_t samples, with_path, without_path, truncated;
	enum pms_callgraph how;
	struct pms_frame buf[PMS_CALLPATH_MAX];
	struct lastbr *br; /* open addressing on (from, to); from == to == 0 empty */
	size_t nbr, capbr;
	uint64_t with_branches;
};

PMS_OPTS_LAYOUT(PMS_PATHPROF_OPTS, struct pms_pathprof_opts,
		PMS_OPTS_END(struct pms_pathprof_opts, kept_samples),
		PMS_OPTS_END(struct pms_pathprof_opts, top_only),
		PMS_OPTS_END(struct pms_pathprof_opts, no_inline));

int pms_pathprof_new(struct pms_sys *sys, const struct pms_pathprof_opts *opts,
		     struct pms_pathprof **out)
{
	struct pms_pathprof_opts o;
	struct pms_pathprof *p;
	int rc;

	if (out)
		*out = NULL;
	if (!sys || !out)
		return pms_err(PMS_EINVAL, "pathprof: NULL argument");
	if ((rc = PMS_OPTS_TAKE("pms_pathprof_new", PMS_PATHPROF_OPTS, opts, &o)) < 0)
		return rc;
	opts = &o;
	p = calloc(1, sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "pathprof: no memory");
	p->o = o;
	p->sys = sys;
	if (!p->o.top)
		p->o.top = DEFAULT_TOP;
	if ((rc = pms_unwinder_new(sys, &p->uw)) < 0) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static size_t fblock_bytes(size_t cap)
{
	return sizeof(struct fblock) + cap * sizeof(uint64_t);
}

void pms_pathprof_free(struct pms_pathprof *p)
{
	if (!p)
		return;
	for (struct fblock *b = p->blocks, *nx; b; b = nx) {
		nx = b->next;
		mp_big_free(b, fblock_bytes(b->cap));
	}
	free(p->v);
	mp_big_free(p->slots, p->nslots * sizeof(*p->slots));
	free(p->of);
	free(p->br);
	pms_unwinder_free(p->uw);
	free(p);
}

/* The hash of f[0..n), and in *any the frames' flags or'ed. */
static uint64_t frames_hash(const struct pms_frame *f, size_t n, uint32_t *any)
{
	uint64_t h = 1469598103934665603ULL ^ n;
	uint32_t fl = 0;
	for (size_t i = 0; i < n; i++) {
		fl |= f[i].flags;
		h ^= f[i].ip + ((uint64_t)f[i].flags << 56);
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	*any = fl;
	return h;
}

/* Whether path a is f[0..n) or, f NULL, path y. */
static bool frames_eq(const struct path *a, const struct pms_frame *f, size_t n,
		      const struct path *y)
{
	if (a->n != n)
		return false;
	if (!f)
		return a->flagged == y->flagged &&
		       !memcmp(a->w, y->w, (n + (a->flagged ? (n + 1) / 2 : 0)) * sizeof(*a->w));
	for (size_t i = 0; i < n; i++)
		if (a->w[i] != f[i].ip || path_flags(a, i) != f[i].flags)
			return false;
	return true;
}

static uint64_t slot_val(uint64_t hash, size_t idx)
{
	return (hash & 0xffffffff00000000ULL) | (uint64_t)(idx + 1);
}

static size_t slot_idx(uint64_t slot)
{
	return (size_t)(uint32_t)slot - 1;
}

/* The slots made ns (a power of two above p->n * 2), every path put back. */
static int rehash_to(struct pms_pathprof *p, size_t ns)
{
	uint64_t *s = mp_big_calloc(ns * sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "pathprof: no memory");
	for (size_t i = 0; i < p->n; i++) {
		size_t h = (size_t)p->v[i].hash & (ns - 1);
		while (s[h])
			h = (h + 1) & (ns - 1);
		s[h] = slot_val(p->v[i].hash, i);
	}
	mp_big_free(p->slots, p->nslots * sizeof(*p->slots));
	p->slots = s;
	p->nslots = ns;
	return 0;
}

static int rehash(struct pms_pathprof *p)
{
	return rehash_to(p, p->nslots ? p->nslots * 2 : 256);
}

/* The slot of the path f[0..n) (or, f NULL, of path y) of hash h: its own,
 * or the empty one where it goes (the slots less than half full). */
static size_t slot_of(const struct pms_pathprof *p, uint64_t h, const struct pms_frame *f, size_t n,
		      const struct path *y)
{
	size_t k = (size_t)h & (p->nslots - 1);
	uint64_t tag = h & 0xffffffff00000000ULL;
	while (p->slots[k]) {
		if ((p->slots[k] & 0xffffffff00000000ULL) == tag) {
			const struct path *x = &p->v[slot_idx(p->slots[k])];
			if (x->hash == h && frames_eq(x, f, n, y))
				break;
		}
		k = (k + 1) & (p->nslots - 1);
	}
	return k;
}

/* Room for n paths in the vector. */
static int reserve_paths(struct pms_pathprof *p, size_t n)
{
	if (n > p->cap) {
		size_t nc = p->cap ? p->cap : 64;
		while (nc < n)
			nc *= 2;
		struct path *v = realloc(p->v, nc * sizeof(*v));
		if (!v)
			return pms_err(PMS_ENOMEM, "pathprof: no memory");
		p->v = v;
		p->cap = nc;
	}
	return 0;
}

/* The index of the path f[0..n), added when new; negative on no memory. */
static long intern(struct pms_pathprof *p, const struct pms_frame *f, size_t n)
{
	uint32_t any;
	uint64_t h = frames_hash(f, n, &any);
	int rc;

	if ((p->n + 1) * 2 > p->nslots && (rc = rehash(p)) < 0)
		return rc;
	size_t k = slot_of(p, h, f, n, NULL);
	if (p->slots[k])
		return (long)slot_idx(p->slots[k]);
	if (p->n == p->cap && (rc = reserve_paths(p, p->cap ? p->cap * 2 : 64)) < 0)
		return rc;
	struct path *x = &p->v[p->n];
	memset(x, 0, sizeof(*x));
	bool flagged = any != 0;
	size_t words = n + (flagged ? (n + 1) / 2 : 0);
	struct fblock *b = p->blocks;
	if (!b || b->cap - b->used < words) {
		size_t cap = p->nblocks < FBLOCK_SMALL ? FBLOCK_WORDS : FBLOCK_BIG;
		if (cap < words)
			cap = words;
		if (!(b = mp_big_calloc(fblock_bytes(cap))))
			return pms_err(PMS_ENOMEM, "pathprof: no memory");
		b->next = p->blocks;
		b->used = 0;
		b->cap = cap;
		p->blocks = b;
		p->nblocks++;
	}
	x->w = b->w + b->used;
	b->used += words;
	for (size_t i = 0; i < n; i++)
		x->w[i] = f[i].ip;
	if (flagged)
		for (size_t i = 0; i < n; i++)
			((uint32_t *)(void *)(x->w + n))[i] = f[i].flags;
	x->n = (uint32_t)n;
	x->flagged = flagged;
	x->hash = h;
	p->slots[k] = slot_val(h, p->n);
	return (long)p->n++;
}

/* Kernel frames fold into one hidden frame when they may not be shown. */
static size_t hide_kernel(struct pms_frame *f, size_t n)
{
	size_t k = 0;
	bool hidden = false;
	for (size_t i = 0; i < n; i++) {
		if (!(f[i].flags & PMS_FRAME_KERNEL)) {
			f[k++] = f[i];
			hidden = false;
			continue;
		}
		if (hidden)
			continue;
		f[k].ip = 0;
		f[k].flags = PMS_FRAME_KERNEL | PMS_FRAME_HIDDEN;
		k++;
		hidden = true;
	}
	return k;
}

static size_t br_slot(const struct lastbr *v, size_t cap, uint64_t from, uint64_t to,
		      bool foreign)
{
	uint64_t h = (from * 0x9e3779b97f4a7c15ULL) ^ (to + (to << 17)) ^ foreign;
	size_t k = (size_t)(h ^ (h >> 31)) & (cap - 1);
	while ((v[k].from || v[k].to) &&
	       (v[k].from != from || v[k].to != to || v[k].foreign != foreign))
		k = (k + 1) & (cap - 1);
	return k;
}

/* Room for n branches, the table at most half full. */
static int br_reserve(struct pms_pathprof *p, size_t n)
{
	if (n * 2 <= p->capbr)
		return 0;
	size_t nc = p->capbr ? p->capbr * 2 : 64;
	while (n * 2 > nc)
		nc *= 2;
	struct lastbr *v = calloc(nc, sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "pathprof: no memory");
	for (size_t i = 0; i < p->capbr; i++)
		if (p->br[i].from || p->br[i].to)
			v[br_slot(v, nc, p->br[i].from, p->br[i].to, p->br[i].foreign)] = p->br[i];
	free(p->br);
	p->br = v;
	p->capbr = nc;
	return 0;
}

/* The sample's most recent branch (entry 0, as the kernel writes them). */
static int add_branch(struct pms_pathprof *p, const struct pms_memsrc_sample *s)
{
	const struct pms_sample *in = &s->rec->sample;
	struct pms_branch b;
	if (!(in->present & PMS_SAMPLE_BRANCH_STACK) || !in->branch.nr)
		return 0;
	b = pms_branch_at(in->branch.entries, 0);
	if (!b.from && !b.to)
		return 0;
	int rc = br_reserve(p, p->nbr + 1);
	if (rc < 0)
		return rc;
	bool foreign = (s->ms.valid & PMS_MS_KERNEL_FOREIGN) != 0;
	struct lastbr *x = &p->br[br_slot(p->br, p->capbr, b.from, b.to, foreign)];
	if (!x->from && !x->to) {
		x->from = b.from;
		x->to = b.to;
		x->foreign = foreign;
		p->nbr++;
	}
	x->samples++;
	if (b.mispred)
		x->mispred++;
	if (s->ms.valid & PMS_MS_WEIGHT) {
		x->latency += s->ms.weight;
		x->weighted++;
	}
	p->with_branches++;
	return 0;
}

static int add_src(struct pms_pathprof *p, const struct pms_memsrc_sample *s,
		   const struct pms_maps *maps);

int pms_pathprof_add_src(struct pms_pathprof *p, const struct pms_memsrc_sample *s,
			 const struct pms_maps *maps)
{
	if (!p || !s)
		return pms_err(PMS_EINVAL, "pathprof: NULL argument");
	p->samples++;
	/* no path, no branch stack, no index to keep: one count (the usual
	 * sample of a file recorded without -g or -b), without the frame
	 * of the full add */
	if (s->path.how == PMS_CALLGRAPH_NONE && !p->o.kept_samples &&
	    (!s->rec || !(s->rec->sample.present & PMS_SAMPLE_BRANCH_STACK))) {
		p->without_path++;
		return 0;
	}
	return add_src(p, s, maps);
}

static __attribute__((noinline)) int add_src(struct pms_pathprof *p,
					     const struct pms_memsrc_sample *s,
					     const struct pms_maps *maps)
{
	const struct pms_frame *f = p->buf;
	size_t n = 0;
	bool cut = false;
	long idx = -1;

	if (s->rec) {
		int rc = add_branch(p, s);
		if (rc < 0)
			return rc;
	}
	if (s->path.how == PMS_CALLGRAPH_DWARF && s->rec && maps) {
		int rc = pms_unwinder_sample(p->uw, maps, &s->rec->sample, p->buf, PMS_CALLPATH_MAX,
					     &n);
		if (rc < 0 && rc != PMS_ENOTSUP)
			return rc;
		cut = rc == 1;
	} else if (s->path.how != PMS_CALLGRAPH_NONE) {
		n = s->path.n < PMS_CALLPATH_MAX ? s->path.n : PMS_CALLPATH_MAX;
		cut = s->path.truncated || s->path.n > PMS_CALLPATH_MAX;
		/* interned from the sample's own frames unless changed below */
		if ((s->ms.valid & PMS_MS_KERNEL_FOREIGN) || p->o.hide_kernel)
			memcpy(p->buf, s->path.frames, n * sizeof(*p->buf));
		else
			f = s->path.frames;
	}
	if (s->ms.valid & PMS_MS_KERNEL_FOREIGN) /* a merged report's file of another kernel */
		for (size_t i = 0; i < n; i++)
			if (p->buf[i].flags & PMS_FRAME_KERNEL)
				p->buf[i].flags |= PMS_FRAME_FOREIGN;
	if (p->o.hide_kernel)
		n = hide_kernel(p->buf, n);
	if (n) {
		if ((idx = intern(p, f, n)) < 0)
			return (int)idx;
		struct path *x = &p->v[idx];
		x->samples++;
		if (s->ms.valid & PMS_MS_WEIGHT) {
			x->latency += s->ms.weight;
			x->weighted++;
		}
		if (s->mem_node >= 0) {
			x->resolved++;
			if (s->cpu_node >= 0 && s->mem_node != s->cpu_node)
				x->remote++;
		}
		if (cut) {
			x->truncated = true;
			p->truncated++;
		}
		p->with_path++;
		if (p->how == PMS_CALLGRAPH_NONE)
			p->how = s->path.how;
	} else {
		p->without_path++;
	}
	if (p->o.kept_samples) {
		int rc = pms_grow(&p->of, &p->capof, p->nof + 1, sizeof(*p->of), 1024,
				  "the samples' path index");
		if (rc < 0)
			return rc;
		p->of[p->nof++] = (uint32_t)(idx + 1);
	}
	return 0;
}

/* ---- merging (pathprof_merge.h) -------------------------------------------- */

int pms_pathprof_twin(const struct pms_pathprof *p, struct pms_pathprof **out)
{
	if (!p)
		return pms_err(PMS_EINVAL, "pathprof: NULL argument");
	return pms_pathprof_new(p->sys, &p->o, out);
}

static int merge_branches(struct pms_pathprof *dst, const struct pms_pathprof *src)
{
	int rc = br_reserve(dst, dst->nbr + src->nbr);
	for (size_t i = 0; rc >= 0 && i < src->capbr; i++) {
		const struct lastbr *b = &src->br[i];
		if (!b->from && !b->to)
			continue;
		struct lastbr *x = &dst->br[br_slot(dst->br, dst->capbr, b->from, b->to, b->foreign)];
		if (!x->from && !x->to) {
			*x = *b;
			dst->nbr++;
			continue;
		}
		x->samples += b->samples;
		x->latency += b->latency;
		x->weighted += b->weighted;
		x->mispred += b->mispred;
	}
	dst->with_branches += src->with_branches;
	return rc;
}

/* Into a dst that has counted nothing: src's counts taken whole (its
 * options, system and unwinder stay). */
static void take_all(struct pms_pathprof *dst, struct pms_pathprof *src)
{
	struct pms_pathprof t = *dst;
	*dst = *src;
	dst->o = t.o;
	dst->sys = t.sys;
	dst->uw = t.uw;
	src->v = t.v;
	src->n = t.n;
	src->cap = t.cap;
	src->slots = t.slots;
	src->nslots = t.nslots;
	src->of = t.of;
	src->nof = t.nof;
	src->capof = t.capof;
	src->br = t.br;
	src->nbr = t.nbr;
	src->capbr = t.capbr;
	src->blocks = t.blocks;
	src->nblocks = t.nblocks;
}

#define MERGE_AHEAD 16
int pms_pathprof_merge(struct pms_pathprof *dst, struct pms_pathprof *src)
{
	if (!dst || !src || dst == src)
		return pms_err(PMS_EINVAL, "pathprof merge: NULL argument or a collector into itself");
	if (dst->o.kept_samples != src->o.kept_samples || dst->o.hide_kernel != src->o.hide_kernel)
		return pms_err(PMS_EINVAL, "pathprof merge: collectors of different options");
	if (!dst->samples && !dst->n && !dst->nof && !dst->nbr) {
		take_all(dst, src);
		return 0;
	}
	int rc = reserve_paths(dst, dst->n + src->n);
	size_t ns = dst->nslots ? dst->nslots : 256;
	while ((dst->n + src->n + 1) * 2 > ns) /* the slots at most half full */
		ns *= 2;
	if (rc >= 0 && ns != dst->nslots) /* one pass, not one per doubling */
		rc = rehash_to(dst, ns);
	uint32_t *to = NULL; /* kept samples: src's path index + 1 -> dst's */
	if (rc >= 0 && src->o.kept_samples && src->n && !(to = calloc(src->n, sizeof(*to))))
		rc = pms_err(PMS_ENOMEM, "pathprof merge: no memory");
	if (rc >= 0 && src->nof)
		rc = pms_grow(&dst->of, &dst->capof, dst->nof + src->nof, sizeof(*dst->of), 1024,
			      "the samples' path index");
	if (rc >= 0)
		rc = merge_branches(dst, src);
	if (rc < 0) {
		free(to);
		return rc;
	}
	for (size_t i = 0; i < src->n; i++) {
		struct path *y = &src->v[i];
		/* src's paths hash anywhere in dst's slots: each fetched
		 * MERGE_AHEAD paths ahead, so the misses overlap */
		if (i + MERGE_AHEAD < src->n)
			__builtin_prefetch(&dst->slots[(size_t)src->v[i + MERGE_AHEAD].hash &
						       (dst->nslots - 1)]);
		size_t k = slot_of(dst, y->hash, NULL, y->n, y);
		if (!dst->slots[k]) {
			dst->v[dst->n] = *y; /* its frames in src's blocks, dst's below */
			dst->slots[k] = slot_val(y->hash, dst->n);
			dst->n++;
		} else {
			struct path *x = &dst->v[slot_idx(dst->slots[k])];
			x->samples += y->samples;
			x->latency += y->latency;
			x->weighted += y->weighted;
			x->resolved += y->resolved;
			x->remote += y->remote;
			x->truncated |= y->truncated;
		}
		if (to)
			to[i] = (uint32_t)slot_idx(dst->slots[k]) + 1;
	}
	/* src's blocks after dst's (the newest first stays dst's) */
	struct fblock **tail = &dst->blocks;
	while (*tail)
		tail = &(*tail)->next;
	*tail = src->blocks;
	src->blocks = NULL;
	dst->nblocks += src->nblocks;
	src->nblocks = 0;
	src->n = 0;
	for (size_t i = 0; i < src->nof; i++)
		dst->of[dst->nof++] = src->of[i] ? to[src->of[i] - 1] : 0;
	free(to);
	dst->samples += src->samples;
	dst->with_path += src->with_path;
	dst->without_path += src->without_path;
	dst->truncated += src->truncated;
	if (dst->how == PMS_CALLGRAPH_NONE)
		dst->how = src->how;
	return 0;
}

/* ---- the report ------------------------------------------------------------ */

static void path_free(struct pms_pathreport_path *x)
{
	for (size_t i = 0; i < x->nframes; i++) {
		free(x->frames[i].func);
		free(x->frames[i].file);
		free(x->frames[i].module);
	}
	free(x->frames);
}

static void paths_free(struct pms_pathreport_path *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		path_free(&v[i]);
	free(v);
}

static void branches_free(struct pms_pathreport_branch *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].from_func);
		free(v[i].to_func);
		free(v[i].to_file);
	}
	free(v);
}

void pms_pathreport_free(struct pms_pathreport *r)
{
	if (!r)
		return;
	paths_free(r->by_samples, r->nby_samples);
	paths_free(r->by_latency, r->nby_latency);
	paths_free(r->by_remote, r->nby_remote);
	paths_free(r->all, r->nall);
	branches_free(r->branches_by_samples, r->nbranches_by_samples);
	branches_free(r->branches_by_latency, r->nbranches_by_latency);
	free(r->sample_path);
	free(r);
}

static char *dup0(const char *s, int *rc)
{
	char *d;
	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*rc = pms_err(PMS_ENOMEM, "pathreport: no memory");
	return d;
}

static int name_frames(struct pms_pathreport_path *x, const struct path *src,
		       struct pms_symbolizer *sym, bool name_kernel)
{
	int rc = 0;
	x->frames = calloc(src->n ? src->n : 1, sizeof(*x->frames));
	if (!x->frames)
		return pms_err(PMS_ENOMEM, "pathreport: no memory");
	x->nframes = src->n;
	for (size_t i = 0; i < src->n && rc >= 0; i++) {
		struct pms_pathreport_frame *f = &x->frames[i];
		bool kern = path_flags(src, i) & PMS_FRAME_KERNEL;
		struct pms_symbol sy = { 0 };
		f->ip = src->w[i];
		f->flags = path_flags(src, i);
		f->module = dup0(kern ? "[kernel]" : "", &rc);
		if (!sym || (f->flags & (PMS_FRAME_HIDDEN | PMS_FRAME_FOREIGN)) || (kern && !name_kernel) ||
		    !f->ip)
			continue;
		/* A caller's frame holds a return address: the call is the
		 * instruction before it (name ip - 1, as debuggers do). */
		uint64_t at = i ? f->ip - 1 : f->ip;
		if (pms_symbolizer_code(sym, at, kern, &sy) < 0 && !sy.module)
			continue;
		if (sy.module && !kern) {
			free(f->module);
			f->module = dup0(sy.module, &rc);
		}
		if (sy.func) {
			f->func = dup0(sy.func, &rc);
			f->offset = sy.offset + (f->ip - at);
		}
		if (sy.file) {
			f->file = dup0(sy.file, &rc);
			f->line = sy.line;
		}
	}
	return rc;
}

static int cmp_samples(const void *a, const void *b)
{
	const struct path *x = *(const struct path *const *)a, *y = *(const struct path *const *)b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	/* one order whatever the paths' first-seen order (a merge's, or a
	 * top list's selection): the frames themselves last */
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	for (size_t i = 0; i < x->n; i++) {
		if (x->w[i] != y->w[i])
			return x->w[i] < y->w[i] ? -1 : 1;
		uint32_t xf = path_flags(x, i), yf = path_flags(y, i);
		if (xf != yf)
			return xf < yf ? -1 : 1;
	}
	return 0;
}

static int cmp_latency(const void *a, const void *b)
{
	const struct path *x = *(const struct path *const *)a, *y = *(const struct path *const *)b;
	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return cmp_samples(a, b);
}

/* Remote share first (remote / resolved, cross-multiplied), then remote
 * count, then samples. */
static int cmp_remote(const void *a, const void *b)
{
	const struct path *x = *(const struct path *const *)a, *y = *(const struct path *const *)b;
	long double l = (long double)x->remote * (long double)y->resolved;
	long double r = (long double)y->remote * (long double)x->resolved;
	if (l != r)
		return l > r ? -1 : 1;
	if (x->remote != y->remote)
		return x->remote > y->remote ? -1 : 1;
	return cmp_samples(a, b);
}

/* The first k of ord[0..n) in cmp's order (a total one), in that order at
 * ord's start; the others after them in no order.  A top list needs no
 * more: a sort of every distinct path (millions in a file of call stacks)
 * was most of the report's time. */
static void top_of(struct path **ord, size_t n, size_t k, int (*cmp)(const void *, const void *))
{
	if (k >= n || k > 64 || n < 4 * k) {
		qsort(ord, n, sizeof(*ord), cmp);
		return;
	}
	/* ord[0..k): a heap, the last of them in cmp's order at its root */
	for (size_t i = k; i-- > 0;)
		for (size_t j = i, c; (c = 2 * j + 1) < k; j = c) {
			if (c + 1 < k && cmp(&ord[c + 1], &ord[c]) > 0)
				c++;
			if (cmp(&ord[c], &ord[j]) <= 0)
				break;
			struct path *t = ord[j];
			ord[j] = ord[c];
			ord[c] = t;
		}
	for (size_t i = k; i < n; i++) {
		if (cmp(&ord[i], &ord[0]) >= 0)
			continue;
		struct path *t = ord[0];
		ord[0] = ord[i];
		ord[i] = t;
		for (size_t j = 0, c; (c = 2 * j + 1) < k; j = c) {
			if (c + 1 < k && cmp(&ord[c + 1], &ord[c]) > 0)
				c++;
			if (cmp(&ord[c], &ord[j]) <= 0)
				break;
			t = ord[j];
			ord[j] = ord[c];
			ord[c] = t;
		}
	}
	qsort(ord, k, sizeof(*ord), cmp);
}

static int list_of(struct path **ord, size_t n, size_t top, struct pms_symbolizer *sym,
		   bool name_kernel, struct pms_pathreport_path **out, size_t *nout)
{
	size_t k = n < top ? n : top;
	int rc = 0;
	*out = calloc(k ? k : 1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "pathreport: no memory");
	*nout = k;
	for (size_t i = 0; i < k && rc >= 0; i++) {
		struct pms_pathreport_path *x = &(*out)[i];
		const struct path *s = ord[i];
		x->samples = s->samples;
		x->latency = s->latency;
		x->weighted = s->weighted;
		x->resolved = s->resolved;
		x->remote = s->remote;
		x->truncated = s->truncated;
		rc = name_frames(x, s, sym, name_kernel);
	}
	return rc;
}

static int br_by_samples(const void *a, const void *b)
{
	const struct lastbr *x = *(const struct lastbr *const *)a, *y = *(const struct lastbr *const *)b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from ? 1 : (x->to < y->to ? -1 : x->to > y->to);
}

static int br_by_latency(const void *a, const void *b)
{
	const struct lastbr *x = *(const struct lastbr *const *)a, *y = *(const struct lastbr *const *)b;
	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return br_by_samples(a, b);
}

static int br_list(struct lastbr **ord, size_t n, size_t top, struct pms_symbolizer *sym,
		   bool name_kernel, struct pms_pathreport_branch **out, size_t *nout)
{
	size_t k = n < top ? n : top;
	int rc = 0;
	*out = calloc(k ? k : 1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "pathreport: no memory");
	*nout = k;
	for (size_t i = 0; i < k && rc >= 0; i++) {
		struct pms_pathreport_branch *b = &(*out)[i];
		const struct lastbr *s = ord[i];
		b->from = s->from;
		b->to = s->to;
		b->samples = s->samples;
		b->latency = s->latency;
		b->weighted = s->weighted;
		b->mispredicted = s->mispred;
		for (int end = 0; end < 2 && sym; end++) {
			uint64_t a = end ? s->to : s->from;
			bool kern = a >= (1ULL << 63);
			struct pms_symbol sy = { 0 };
			if ((kern && (!name_kernel || s->foreign)) ||
			    pms_symbolizer_code(sym, a, kern, &sy) < 0 || !sy.func)
				continue;
			if (end) {
				b->to_func = dup0(sy.func, &rc);
				b->to_file = dup0(sy.file, &rc);
				b->to_line = sy.line;
			} else {
				b->from_func = dup0(sy.func, &rc);
			}
		}
	}
	return rc;
}

static int report_branches(struct pms_pathprof *p, struct pms_pathreport *r,
			   struct pms_symbolizer *sym, bool name_kernel)
{
	struct lastbr **ord;
	size_t n = 0, nl = 0;
	int rc;
	r->with_branches = p->with_branches;
	ord = calloc(p->nbr ? p->nbr : 1, sizeof(*ord));
	if (!ord)
		return pms_err(PMS_ENOMEM, "pathreport: no memory");
	for (size_t i = 0; i < p->capbr; i++)
		if (p->br[i].from || p->br[i].to)
			ord[n++] = &p->br[i];
	qsort(ord, n, sizeof(*ord), br_by_samples);
	rc = br_list(ord, n, p->o.top, sym, name_kernel, &r->branches_by_samples,
		     &r->nbranches_by_samples);
	if (rc >= 0) {
		qsort(ord, n, sizeof(*ord), br_by_latency);
		while (nl < n && ord[nl]->weighted)
			nl++;
		rc = br_list(ord, nl, p->o.top, sym, name_kernel, &r->branches_by_latency,
			     &r->nbranches_by_latency);
	}
	free(ord);
	return rc;
}

/* Each kept sample's path as 1 + its rank in ord (the order of r->all). */
static int sample_paths(struct pms_pathprof *p, struct path *const *ord, struct pms_pathreport *r)
{
	uint32_t *rank = calloc(p->n ? p->n : 1, sizeof(*rank));
	r->sample_path = calloc(p->nof ? p->nof : 1, sizeof(*r->sample_path));
	if (!rank || !r->sample_path) {
		free(rank);
		return pms_err(PMS_ENOMEM, "pathreport: no memory for %zu samples' paths", p->nof);
	}
	for (size_t i = 0; i < p->n; i++)
		rank[ord[i] - p->v] = (uint32_t)(i + 1);
	for (size_t i = 0; i < p->nof; i++)
		r->sample_path[i] = p->of[i] ? rank[p->of[i] - 1] : 0;
	r->nsample_path = p->nof;
	free(rank);
	return 0;
}

int pms_pathprof_report(struct pms_pathprof *p, const struct pms_memreport *mem,
			struct pms_symbolizer *sym, bool name_kernel, struct pms_pathreport **out)
{
	struct pms_pathreport *r = NULL;
	struct path **ord = NULL;
	size_t nrem = 0;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!p || !out)
		return pms_err(PMS_EINVAL, "pathreport: NULL argument");
	r = calloc(1, sizeof(*r));
	if (!r)
		return pms_err(PMS_ENOMEM, "pathreport: no memory");
	/* Kept samples: nodes as the memory report resolved them. */
	if (p->o.kept_samples && mem && mem->nall == p->nof) {
		for (size_t i = 0; i < p->n; i++)
			p->v[i].resolved = p->v[i].remote = 0;
		for (size_t i = 0; i < p->nof; i++) {
			const struct pms_memreport_sample *x = &mem->all[i];
			if (!p->of[i] || x->mem_node < 0)
				continue;
			struct path *s = &p->v[p->of[i] - 1];
			s->resolved++;
			if (x->cpu_node >= 0 && x->mem_node != x->cpu_node)
				s->remote++;
		}
	}
	r->how = p->how;
	r->samples = p->samples;
	r->with_path = p->with_path;
	r->without_path = p->without_path;
	r->truncated = p->truncated;
	r->distinct = p->n;
	pms_unwinder_stats(p->uw, &r->unwind);
	ord = calloc(p->n ? p->n : 1, sizeof(*ord));
	if (!ord) {
		rc = pms_err(PMS_ENOMEM, "pathreport: no memory");
		goto out;
	}
	for (size_t i = 0; i < p->n; i++)
		ord[i] = &p->v[i];
	/* every path in order only for `all` and the kept samples' ranks */
	bool every = p->o.kept_samples || !p->o.top_only;
	top_of(ord, p->n, every ? p->n : p->o.top, cmp_samples);
	if (p->o.kept_samples && (rc = sample_paths(p, ord, r)) < 0)
		goto out;
	if ((rc = list_of(ord, p->n, p->o.top_only ? 0 : p->n, sym, name_kernel, &r->all,
			  &r->nall)) < 0 ||
	    (rc = list_of(ord, p->n, p->o.top, sym, name_kernel, &r->by_samples,
			  &r->nby_samples)) < 0)
		goto out;
	/* the weighted paths' prefix of the latency order, to the top's */
	top_of(ord, p->n, p->o.top, cmp_latency);
	size_t nlat = 0;
	while (nlat < p->n && nlat < p->o.top && ord[nlat]->weighted)
		nlat++;
	if ((rc = list_of(ord, nlat, p->o.top, sym, name_kernel, &r->by_latency,
			  &r->nby_latency)) < 0)
		goto out;
	/* Remote share: only paths with a resolved sample. */
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].resolved)
			ord[nrem++] = &p->v[i];
	top_of(ord, nrem, p->o.top, cmp_remote);
	if ((rc = list_of(ord, nrem, p->o.top, sym, name_kernel, &r->by_remote,
			  &r->nby_remote)) < 0)
		goto out;
	if ((rc = report_branches(p, r, sym, name_kernel)) < 0)
		goto out;
	*out = r;
	r = NULL;
out:
	free(ord);
	pms_pathreport_free(r);
	return rc;
}

static size_t put(char *buf, size_t cap, size_t at, const char *s, size_t len)
{
	if (at < cap) {
		size_t k = cap - at - 1 < len ? cap - at - 1 : len;
		memcpy(buf + at, s, k);
		buf[at + k] = 0;
	}
	return at + len;
}

size_t pms_pathreport_folded(const struct pms_pathreport_path *path, char *buf, size_t cap)
{
	size_t at = 0;
	if (cap && buf)
		buf[0] = 0;
	else
		cap = 0;
	if (!path)
		return 0;
	for (size_t i = path->nframes; i-- > 0;) {
		const struct pms_pathreport_frame *f = &path->frames[i];
		char tmp[64];
		const char *name = f->func;
		if (!name) {
			if (f->flags & PMS_FRAME_HIDDEN)
				name = "[kernel]";
			else {
				const char *m = f->module && *f->module ? strrchr(f->module, '/') : NULL;
				snprintf(tmp, sizeof(tmp), "%s%s0x%" PRIx64,
					 m ? m + 1 : (f->module ? f->module : ""),
					 f->module && *f->module ? "+" : "", f->ip);
				name = tmp;
			}
		}
		if (i + 1 != path->nframes)
			at = put(buf, cap, at, ";", 1);
		/* ';' separates frames in the folded format: none inside a name. */
		for (const char *c = name; *c; c++)
			at = put(buf, cap, at, *c == ';' ? ":" : c, 1);
	}
	return at;
}

/* Accessors of the opaque report (pathprof.h). */
enum pms_callgraph pms_pathreport_how(const struct pms_pathreport *r)
{
	return r ? r->how : PMS_CALLGRAPH_NONE;
}

uint64_t pms_pathreport_samples(const struct pms_pathreport *r)
{
	return r ? r->samples : 0;
}

uint64_t pms_pathreport_with_path(const struct pms_pathreport *r)
{
	return r ? r->with_path : 0;
}

uint64_t pms_pathreport_without_path(const struct pms_pathreport *r)
{
	return r ? r->without_path : 0;
}

uint64_t pms_pathreport_truncated(const struct pms_pathreport *r)
{
	return r ? r->truncated : 0;
}

size_t pms_pathreport_distinct(const struct pms_pathreport *r)
{
	return r ? r->distinct : 0;
}

uint64_t pms_pathreport_with_branches(const struct pms_pathreport *r)
{
	return r ? r->with_branches : 0;
}

const struct pms_unwinder_stats *pms_pathreport_unwind(const struct pms_pathreport *r)
{
	return r ? &r->unwind : NULL;
}

static const struct pms_pathreport_path *path_list(const struct pms_pathreport *r,
						   enum pms_pathreport_order which, size_t *n)
{
	*n = 0;
	if (!r)
		return NULL;
	switch (which) {
	case PMS_PATHS_BY_SAMPLES: *n = r->nby_samples; return r->by_samples;
	case PMS_PATHS_BY_LATENCY: *n = r->nby_latency; return r->by_latency;
	case PMS_PATHS_BY_REMOTE: *n = r->nby_remote; return r->by_remote;
	case PMS_PATHS_ALL: *n = r->nall; return r->all;
	}
	return NULL;
}

size_t pms_pathreport_path_count(const struct pms_pathreport *r, enum pms_pathreport_order which)
{
	size_t n;
	path_list(r, which, &n);
	return n;
}

const struct pms_pathreport_path *pms_pathreport_path_at(const struct pms_pathreport *r,
							 enum pms_pathreport_order which, size_t i)
{
	size_t n;
	const struct pms_pathreport_path *v = path_list(r, which, &n);
	return v && i < n ? &v[i] : NULL;
}

static const struct pms_pathreport_branch *branch_list(const struct pms_pathreport *r,
						       enum pms_pathreport_branch_order which,
						       size_t *n)
{
	*n = 0;
	if (!r)
		return NULL;
	switch (which) {
	case PMS_BRANCHES_BY_SAMPLES: *n = r->nbranches_by_samples; return r->branches_by_samples;
	case PMS_BRANCHES_BY_LATENCY: *n = r->nbranches_by_latency; return r->branches_by_latency;
	}
	return NULL;
}

size_t pms_pathreport_branch_count(const struct pms_pathreport *r,
				   enum pms_pathreport_branch_order which)
{
	size_t n;
	branch_list(r, which, &n);
	return n;
}

const struct pms_pathreport_branch *pms_pathreport_branch_at(const struct pms_pathreport *r,
							     enum pms_pathreport_branch_order which,
							     size_t i)
{
	size_t n;
	const struct pms_pathreport_branch *v = branch_list(r, which, &n);
	return v && i < n ? &v[i] : NULL;
}

bool pms_pathreport_kept(const struct pms_pathreport *r)
{
	return r && r->sample_path;
}

size_t pms_pathreport_sample_path_count(const struct pms_pathreport *r)
{
	return r && r->sample_path ? r->nsample_path : 0;
}

uint32_t pms_pathreport_sample_path(const struct pms_pathreport *r, size_t i)
{
	return r && r->sample_path && i < r->nsample_path ? r->sample_path[i] : 0;
}
