/* A memory report as pprof's profile.proto (src/export/profile.proto),
 * encoded with protobuf-c and gzip-compressed with zlib: the format
 * `go tool pprof`, Pyroscope and Parca ingest.  The memory dimensions that
 * other converters drop (data source, nodes, remote, data object) become
 * sample labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/profile.pb-c.h"
#include "export/stacks_int.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/export.h"
#include "util/error.h"
#include "util/opts.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__ValueType ValueType;

/* The string table: strings interned through an open-addressing hash. */
struct strtab {
	char **v;
	size_t n, cap;
	size_t *slot; /* index + 1, 0 = empty */
	size_t nslot;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : 1024;
	size_t *slot = calloc(ns, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = (size_t)str_hash(t->v[i]) & (ns - 1);
		while (slot[h])
			h = (h + 1) & (ns - 1);
		slot[h] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

/* Index of s in the table (added if new); -1 when out of memory. */
static int64_t intern(struct strtab *t, const char *s)
{
	if (!s)
		s = "";
	if ((t->n + 1) * 2 > t->nslot && strtab_grow(t) < 0)
		return -1;
	size_t h = (size_t)str_hash(s) & (t->nslot - 1);
	for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
		if (!strcmp(t->v[t->slot[h] - 1], s))
			return (int64_t)(t->slot[h] - 1);
	if (t->n == t->cap) {
		size_t c = t->cap ? t->cap * 2 : 256;
		char **v = realloc(t->v, c * sizeof(*v));
		if (!v)
			return -1;
		t->v = v;
		t->cap = c;
	}
	if (!(t->v[t->n] = strdup(s)))
		return -1;
	t->slot[h] = ++t->n;
	return (int64_t)(t->n - 1);
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slot);
}

/* gzip (RFC 1952) of in, through zlib. */
static int gzip(const uint8_t *in, size_t n, void **out, size_t *len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16 /* gzip wrapper */, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return pms_err(PMS_ENOMEM, "export: pprof: zlib deflateInit2 failed");
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return pms_err(PMS_ENOMEM, "export: pprof: no memory for %zu compressed bytes", cap);
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	int zr = deflate(&z, Z_FINISH);
	size_t got = z.total_out;
	deflateEnd(&z);
	if (zr != Z_STREAM_END) {
		free(buf);
		return pms_err(PMS_EIO, "export: pprof: zlib deflate failed (%d)", zr);
	}
	*out = buf;
	*len = got;
	return 0;
}

#define NLABELS 12

struct build {
	struct strtab st;
	Profile prof;
	ValueType vt[2], period_type;
	ValueType *vtp[2];
	Sample *samples;
	Sample **samplep;
	Label *labels;
	Label **labelp;
	uint64_t *locids;
	int64_t *values;
	Location *locs;
	Location **locp;
	Line *lines;
	Line **linep;
	Line **runp;    /* an inline stack's lines, innermost first */
	size_t *soff;   /* stack j: its location ids from locids[soff[j]] */
	bool *ran;      /* location i has its inline stack's lines */
	Function *funcs;
	Function **funcp;
	size_t nfuncs;
	Mapping *maps;
	Mapping **mapp;
	size_t nmaps;
	int64_t comment;
};

static void build_free(struct build *b)
{
	strtab_free(&b->st);
	free(b->samples);
	free(b->samplep);
	free(b->labels);
	free(b->labelp);
	free(b->locids);
	free(b->values);
	free(b->locs);
	free(b->locp);
	free(b->lines);
	free(b->linep);
	free(b->runp);
	free(b->soff);
	free(b->ran);
	free(b->funcs);
	free(b->funcp);
	free(b->maps);
	free(b->mapp);
}

/* Mapping id of a module (1-based, 0 = none), adding it. */
static int64_t mapping_of(struct build *b, const struct pms_export_pprof_opts *o, const char *module,
			  uint64_t addr, bool has_lines)
{
	if (!module || !*module)
		return 0;
	int64_t name = intern(&b->st, module);
	if (name < 0)
		return -1;
	for (size_t i = 0; i < b->nmaps; i++)
		if (b->maps[i].filename == name) {
			b->maps[i].has_line_numbers |= has_lines;
			return (int64_t)b->maps[i].id;
		}
	Mapping *m = &b->maps[b->nmaps];
	perftools__profiles__mapping__init(m);
	m->id = b->nmaps + 1;
	m->filename = name;
	m->has_functions = true;
	m->has_filenames = has_lines;
	m->has_line_numbers = has_lines;
	const struct pms_map *pm = o->maps ? pms_maps_find(o->maps, addr) : NULL;
	if (pm && !strcmp(pm->path, module)) {
		m->memory_start = pm->start;
		m->memory_limit = pm->end;
		m->file_offset = pm->pgoff;
	}
	for (size_t i = 0; i < o->nbuild_ids; i++) {
		const struct pms_export_build_id *bi = &o->build_ids[i];
		if (!bi->path || strcmp(bi->path, module) || !bi->size || bi->size > 64)
			continue;
		char hex[129];
		for (size_t k = 0; k < bi->size; k++)
			snprintf(hex + 2 * k, 3, "%02x", bi->id[k]);
		if ((m->build_id = intern(&b->st, hex)) < 0)
			return -1;
		break;
	}
	b->mapp[b->nmaps++] = m;
	return (int64_t)m->id;
}

static int64_t function_of(struct build *b, const char *name, const char *file)
{
	int64_t n = intern(&b->st, name), f = intern(&b->st, file);
	if (n < 0 || f < 0)
		return -1;
	/* functions are few next to samples; a linear scan from the end
	 * finds the common case (consecutive sites of one function) at once */
	for (size_t i = b->nfuncs; i > 0; i--)
		if (b->funcs[i - 1].name == n && b->funcs[i - 1].filename == f)
			return (int64_t)b->funcs[i - 1].id;
	Function *fn = &b->funcs[b->nfuncs];
	perftools__profiles__function__init(fn);
	fn->id = b->nfuncs + 1;
	fn->name = n;
	fn->system_name = n;
	fn->filename = f;
	b->funcp[b->nfuncs++] = fn;
	return (int64_t)fn->id;
}

/* Samples with the same locations and labels are one pprof sample with
 * their values summed (what every pprof reader does with them anyway):
 * sort an index by (locations, labels, position) and fold each run into
 * its first member. */
static int sample_key_cmp(const Sample *x, const Sample *y)
{
	if (x->n_location_id != y->n_location_id)
		return x->n_location_id < y->n_location_id ? -1 : 1;
	for (size_t k = 0; k < x->n_location_id; k++)
		if (x->location_id[k] != y->location_id[k])
			return x->location_id[k] < y->location_id[k] ? -1 : 1;
	if (x->n_label != y->n_label)
		return x->n_label < y->n_label ? -1 : 1;
	for (size_t k = 0; k < x->n_label; k++) {
		const Label *a = x->label[k], *b = y->label[k];
		if (a->key != b->key)
			return a->key < b->key ? -1 : 1;
		if (a->str != b->str)
			return a->str < b->str ? -1 : 1;
		if (a->num != b->num)
			return a->num < b->num ? -1 : 1;
	}
	return 0;
}

static int sample_ptr_cmp(const void *pa, const void *pb)
{
	const Sample *x = *(Sample *const *)pa, *y = *(Sample *const *)pb;
	int c = sample_key_cmp(x, y);
	if (c)
		return c;
	return x < y ? -1 : x > y; /* the earlier sample first */
}

static size_t merge_samples(Sample **v, size_t n)
{
	Sample **ord = malloc((n ? n : 1) * sizeof(*ord));
	if (!ord)
		return n; /* unmerged is still correct */
	memcpy(ord, v, n * sizeof(*ord));
	qsort(ord, n, sizeof(*ord), sample_ptr_cmp);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		for (; b < n && !sample_key_cmp(ord[a], ord[b]); b++) {
			for (size_t k = 0; k < ord[a]->n_value; k++)
				ord[a]->value[k] += ord[b]->value[k];
			ord[b]->n_value = 0; /* folded into ord[a] */
		}
		a = b;
	}
	free(ord);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i]->n_value)
			v[k++] = v[i];
	return k;
}

static bool has_src(const struct pms_memsample *s)
{
	return (s->valid & PMS_MS_DATA_SRC) && s->data_src && s->data_src != PMS_MEM_NA_VALUE;
}

PMS_OPTS_LAYOUT(PMS_EXPORT_PPROF_OPTS, struct pms_export_pprof_opts,
		PMS_OPTS_END(struct pms_export_pprof_opts, comment),
		PMS_OPTS_END(struct pms_export_pprof_opts, nextra_values),
		PMS_OPTS_END(struct pms_export_pprof_opts, ntype_values),
		PMS_OPTS_END(struct pms_export_pprof_opts, nalloc_type_values));

/* The stacks' location ids, leaf first (location id = frame + 1): an
 * inline stack's frames (stacks_int.h inl: together, innermost first, at
 * one address) are one location, pprof's form of inlined calls
 * (profile.proto Location.line: "the last entry represents the caller
 * into which the preceding entries were inlined"): the location of its
 * outermost frame, with a line per frame. */
static bool inlined_into_next(const struct pms_export_stacks *stk, size_t j, size_t k)
{
	size_t fi = stk->frame[k];
	return stk->inl[fi] && k + 1 < stk->off[j + 1] &&
	       stk->inl[stk->frame[k + 1]] == stk->inl[fi] + 1 &&
	       stk->frames[stk->frame[k + 1]].addr == stk->frames[fi].addr;
}

static int inline_runs(struct build *b, const struct pms_export_stacks *stk)
{
	size_t nframes = stk->off[stk->nstacks], q = 0, nr = 0;
	b->soff = calloc(stk->nstacks + 1, sizeof(*b->soff));
	b->runp = calloc(nframes + 1, sizeof(*b->runp));
	b->ran = calloc(stk->nframes + 1, sizeof(*b->ran));
	if (!b->soff || !b->runp || !b->ran)
		return -1;
	for (size_t j = 0; j < stk->nstacks; j++) {
		b->soff[j] = q;
		for (size_t k = stk->off[j]; k < stk->off[j + 1]; k++) {
			size_t fi = stk->frame[k], c = k;
			if (inlined_into_next(stk, j, k))
				continue; /* a line of a location further on */
			while (c > stk->off[j] && inlined_into_next(stk, j, c - 1))
				c--;
			bool run = c < k && stk->inl[stk->frame[c]] == 1; /* innermost to outermost */
			if (run && !b->ran[fi]) {
				for (size_t t = c; t <= k; t++)
					b->runp[nr + t - c] = &b->lines[stk->frame[t]];
				b->locs[fi].line = &b->runp[nr];
				b->locs[fi].n_line = k - c + 1;
				nr += k - c + 1;
				b->ran[fi] = true;
			}
			for (size_t t = c; !run && t < k; t++) /* not a whole stack: one each */
				b->locids[q++] = stk->frame[t] + 1;
			b->locids[q++] = fi + 1;
		}
	}
	b->soff[stk->nstacks] = q;
	return 0;
}

/* Over 150 lines: the protobuf-c message built in one order (string
 * table, mappings, functions, locations, samples) with one cleanup path
 * for every allocation; not split this round (issue 29 edits this file's
 * labels in parallel). */
int pms_export_pprof(const struct pms_export_stacks *stk, const struct pms_export_pprof_opts *opts,
		     void **out, size_t *len)
{
	struct pms_export_pprof_opts o;
	struct build b;
	uint8_t *packed = NULL;
	int rc = 0;
	memset(&b, 0, sizeof(b));
	if (out)
		*out = NULL;
	if ((rc = PMS_OPTS_TAKE("pms_export_pprof", PMS_EXPORT_PPROF_OPTS, opts, &o)) < 0)
		return rc;
	if (!stk || !out || !len)
		return pms_err(PMS_EINVAL, "export: pprof: NULL argument");
	const struct pms_memreport *r = stk->report;
	size_t n = stk->nsamples, nframes = stk->off[stk->nstacks], nlocs = stk->nframes;
	b.samples = calloc(n ? n : 1, sizeof(*b.samples));
	b.samplep = calloc(n ? n : 1, sizeof(*b.samplep));
	b.labels = calloc(n * NLABELS + 1, sizeof(*b.labels));
	b.labelp = calloc(n * NLABELS + 1, sizeof(*b.labelp));
	b.locids = calloc(nframes + 1, sizeof(*b.locids));
	b.values = calloc(2 * n + 1, sizeof(*b.values));
	b.locs = calloc(nlocs + 1, sizeof(*b.locs));
	b.locp = calloc(nlocs + 1, sizeof(*b.locp));
	b.lines = calloc(nlocs + 1, sizeof(*b.lines));
	b.linep = calloc(nlocs + 1, sizeof(*b.linep));
	b.funcs = calloc(nlocs + 1, sizeof(*b.funcs));
	b.funcp = calloc(nlocs + 1, sizeof(*b.funcp));
	b.maps = calloc(nlocs + 1, sizeof(*b.maps));
	b.mapp = calloc(nlocs + 1, sizeof(*b.mapp));
	if (!b.samples || !b.samplep || !b.labels || !b.labelp || !b.locids || !b.values ||
	    !b.locs || !b.locp || !b.lines || !b.linep || !b.funcs || !b.funcp || !b.maps || !b.mapp)
		goto nomem;
	if (intern(&b.st, "") != 0)
		goto nomem;

	/* Sample types and label keys. */
	int64_t k_samples = intern(&b.st, "samples"), k_count = intern(&b.st, "count"),
		k_latency = intern(&b.st, "latency"), k_cycles = intern(&b.st, "cycles"),
		k_level = intern(&b.st, "level"), k_snoop = intern(&b.st, "snoop"),
		k_op = intern(&b.st, "op"), k_object = intern(&b.st, "object"),
		k_remote = intern(&b.st, "remote"), k_mem = intern(&b.st, "mem_node"),
		k_cpu = intern(&b.st, "cpu_node"), k_node = intern(&b.st, "node"),
		k_host = intern(&b.st, "host"), k_yes = intern(&b.st, "yes"),
		k_no = intern(&b.st, "no"), v_host = o.host ? intern(&b.st, o.host) : 0,
		k_extra = o.extra_key && o.extra_values ? intern(&b.st, o.extra_key) : 0,
		k_type = intern(&b.st, "type"), k_member = intern(&b.st, "member"),
		k_atype = o.alloc_type_values ? intern(&b.st, "alloc_type") : 0;
	if (k_samples < 0 || k_count < 0 || k_latency < 0 || k_cycles < 0 || k_level < 0 ||
	    k_snoop < 0 || k_op < 0 || k_object < 0 || k_remote < 0 || k_mem < 0 || k_cpu < 0 ||
	    k_node < 0 || k_host < 0 || k_yes < 0 || k_no < 0 || v_host < 0 || k_extra < 0 ||
	    k_type < 0 || k_member < 0 || k_atype < 0)
		goto nomem;

	/* Locations: one per frame of the stacks (location id = frame + 1). */
	for (size_t i = 0; i < nlocs; i++) {
		const struct pms_export_frame *s = &stk->frames[i];
		Location *l = &b.locs[i];
		Line *ln = &b.lines[i];
		perftools__profiles__location__init(l);
		perftools__profiles__line__init(ln);
		l->id = i + 1;
		l->address = s->addr;
		int64_t mid = mapping_of(&b, &o, s->module, s->addr, s->file != NULL);
		int64_t fid = function_of(&b, s->name, s->file);
		if (mid < 0 || fid < 0)
			goto nomem;
		l->mapping_id = (uint64_t)mid;
		ln->function_id = (uint64_t)fid;
		ln->line = s->line;
		b.linep[i] = ln;
		l->line = &b.linep[i];
		l->n_line = 1;
		b.locp[i] = l;
	}

	/* Samples: their stacks' frames leaf first, and their labels. */
	if (inline_runs(&b, stk) < 0)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		const struct pms_memreport_sample *x = &r->all[i];
		const struct pms_memsample *s = &x->s;
		Sample *sm = &b.samples[i];
		Label *lb = &b.labels[i * NLABELS];
		Label **lp = &b.labelp[i * NLABELS];
		size_t nl = 0;
		char txt[128];
		size_t j = stk->stack[i];
		perftools__profiles__sample__init(sm);
		sm->location_id = &b.locids[b.soff[j]];
		sm->n_location_id = b.soff[j + 1] - b.soff[j];
		b.values[2 * i] = 1;
		b.values[2 * i + 1] = (s->valid & PMS_MS_WEIGHT) ? (int64_t)s->weight : 0;
		sm->value = &b.values[2 * i];
		sm->n_value = 2;
#define STR_LABEL(kk, val)                                                                        \
	do {                                                                                       \
		perftools__profiles__label__init(&lb[nl]);                                          \
		lb[nl].key = (kk);                                                                 \
		if ((lb[nl].str = (val)) < 0)                                                       \
			goto nomem;                                                                 \
		lp[nl] = &lb[nl];                                                                   \
		nl++;                                                                               \
	} while (0)
#define NUM_LABEL(kk, val)                                                                        \
	do {                                                                                       \
		perftools__profiles__label__init(&lb[nl]);                                          \
		lb[nl].key = (kk);                                                                 \
		lb[nl].num = (val);                                                                 \
		lb[nl].num_unit = k_node;                                                           \
		lp[nl] = &lb[nl];                                                                   \
		nl++;                                                                               \
	} while (0)
		/* every sample has a level, "N/A" without a data source, as
		 * in the report (report.h levels) and perf */
		pms_datasrc_format_mem(has_src(s) ? s->data_src : PMS_MEM_NA_VALUE, txt, sizeof(txt));
		STR_LABEL(k_level, intern(&b.st, txt));
		if (has_src(s)) {
			pms_datasrc_format_snoop(s->data_src, txt, sizeof(txt));
			STR_LABEL(k_snoop, intern(&b.st, txt));
			STR_LABEL(k_op, intern(&b.st, pms_datasrc_stat_op(s->data_src)));
		}
		if (x->object >= 0 && (size_t)x->object < r->nobjects)
			STR_LABEL(k_object, intern(&b.st, r->objects[x->object].name));
		if (k_extra && i < o.nextra_values && o.extra_values[i] && o.extra_values[i][0])
			STR_LABEL(k_extra, intern(&b.st, o.extra_values[i]));
		if (i < o.ntype_values && o.type_values && o.type_values[i] && o.type_values[i][0])
			STR_LABEL(k_type, intern(&b.st, o.type_values[i]));
		if (i < o.ntype_values && o.member_values && o.member_values[i] &&
		    o.member_values[i][0])
			STR_LABEL(k_member, intern(&b.st, o.member_values[i]));
		if (k_atype && i < o.nalloc_type_values && o.alloc_type_values[i] &&
		    o.alloc_type_values[i][0])
			STR_LABEL(k_atype, intern(&b.st, o.alloc_type_values[i]));
		if (x->mem_node >= 0)
			NUM_LABEL(k_mem, x->mem_node);
		if (x->cpu_node >= 0)
			NUM_LABEL(k_cpu, x->cpu_node);
		if (x->mem_node >= 0 && x->cpu_node >= 0)
			STR_LABEL(k_remote, x->mem_node != x->cpu_node ? k_yes : k_no);
		if (x->source >= 0 && (size_t)x->source < r->nsources)
			STR_LABEL(k_host, intern(&b.st, r->sources[x->source].name));
		else if (o.host)
			STR_LABEL(k_host, v_host);
#undef STR_LABEL
#undef NUM_LABEL
		sm->label = lp;
		sm->n_label = nl;
		b.samplep[i] = sm;
	}

	Profile *p = &b.prof;
	perftools__profiles__profile__init(p);
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&b.vt[i]);
		b.vtp[i] = &b.vt[i];
	}
	b.vt[0].type = k_samples;
	b.vt[0].unit = k_count;
	b.vt[1].type = k_latency;
	b.vt[1].unit = k_cycles;
	perftools__profiles__value_type__init(&b.period_type);
	b.period_type = b.vt[0];
	p->sample_type = b.vtp;
	p->n_sample_type = 2;
	p->period_type = &b.period_type;
	p->default_sample_type = k_samples; /* pprof's default is the last type */
	p->period = 1;
	p->sample = b.samplep;
	p->n_sample = merge_samples(b.samplep, n);
	p->location = b.locp;
	p->n_location = nlocs;
	p->function = b.funcp;
	p->n_function = b.nfuncs;
	p->mapping = b.mapp;
	p->n_mapping = b.nmaps;
	p->time_nanos = o.time_ns;
	p->duration_nanos = o.duration_ns ? o.duration_ns : (int64_t)r->duration_ns;
	if (o.comment) {
		if ((b.comment = intern(&b.st, o.comment)) < 0)
			goto nomem;
		p->comment = &b.comment;
		p->n_comment = 1;
	}
	p->string_table = b.st.v;
	p->n_string_table = b.st.n;

	size_t sz = perftools__profiles__profile__get_packed_size(p);
	packed = malloc(sz ? sz : 1);
	if (!packed)
		goto nomem;
	if (perftools__profiles__profile__pack(p, packed) != sz) {
		rc = pms_err(PMS_EIO, "export: pprof: protobuf-c packed a different size than it said");
		goto out;
	}
	rc = gzip(packed, sz, out, len);
	goto out;
nomem:
	rc = pms_err(PMS_ENOMEM, "export: pprof: no memory for %zu samples", n);
out:
	free(packed);
	build_free(&b);
	return rc;
}
