/* perf.data header features: payload formats as perf writes them
 * (tools/perf/util/header.c, write_* / process_* for each HEADER_*).
 * Strings are do_write_string's: u32 len, then len bytes holding the text,
 * its NUL and zero padding.  Counts are checked against the bytes left
 * before anything is allocated. */
#include "reader_int.h"

#include "util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The reader's arena (freed with the reader); here, not in reader.c, so that
 * reader.c builds on this file and not the other way round. */
void *pd_alloc(struct pms_perfdata_reader *r, size_t size)
{
	struct arena_blk *b;
	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = calloc(1, sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = r->arena;
	r->arena = b;
	return b->data;
}

static const char *const feat_names[] = {
	[0] = "RESERVED",       [1] = "TRACING_DATA",   [2] = "BUILD_ID",
	[3] = "HOSTNAME",       [4] = "OSRELEASE",      [5] = "VERSION",
	[6] = "ARCH",           [7] = "NRCPUS",         [8] = "CPUDESC",
	[9] = "CPUID",          [10] = "TOTAL_MEM",     [11] = "CMDLINE",
	[12] = "EVENT_DESC",    [13] = "CPU_TOPOLOGY",  [14] = "NUMA_TOPOLOGY",
	[15] = "BRANCH_STACK",  [16] = "PMU_MAPPINGS",  [17] = "GROUP_DESC",
	[18] = "AUXTRACE",      [19] = "STAT",          [20] = "CACHE",
	[21] = "SAMPLE_TIME",   [22] = "MEM_TOPOLOGY",  [23] = "CLOCKID",
	[24] = "DIR_FORMAT",    [25] = "BPF_PROG_INFO", [26] = "BPF_BTF",
	[27] = "COMPRESSED",    [28] = "CPU_PMU_CAPS",  [29] = "CLOCK_DATA",
	[30] = "HYBRID_TOPOLOGY", [31] = "PMU_CAPS",
};

const char *pms_perfdata_feature_name(unsigned feat)
{
	if (feat < sizeof(feat_names) / sizeof(feat_names[0]))
		return feat_names[feat];
	return NULL;
}

static bool need(struct pd_cur *c, size_t n)
{
	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return false;
	}
	return true;
}

static uint32_t cu32(struct pd_cur *c)
{
	uint32_t v = 0;
	if (!need(c, 4))
		return 0;
	memcpy(&v, c->p + c->pos, 4);
	c->pos += 4;
	return c->swap ? pd_bswap32(v) : v;
}

static uint64_t cu64(struct pd_cur *c)
{
	uint64_t v = 0;
	if (!need(c, 8))
		return 0;
	memcpy(&v, c->p + c->pos, 8);
	c->pos += 8;
	return c->swap ? pd_bswap64(v) : v;
}

static size_t left(const struct pd_cur *c)
{
	return c->bad ? 0 : c->len - c->pos;
}

/* A do_write_string string, copied into the arena (text up to its NUL). */
static const char *cstr(struct pms_perfdata_reader *r, struct pd_cur *c)
{
	uint32_t len = cu32(c);
	const unsigned char *s;
	size_t n;
	char *out;

	if (!need(c, len))
		return NULL;
	s = c->p + c->pos;
	c->pos += len;
	n = strnlen((const char *)s, len);
	out = pd_alloc(r, n + 1);
	if (!out) {
		c->bad = true;
		return NULL;
	}
	memcpy(out, s, n);
	return out;
}

/* nr elements of at least min_each bytes must fit in what is left. */
static void *carray(struct pms_perfdata_reader *r, struct pd_cur *c, uint64_t nr,
		    size_t min_each, size_t elem)
{
	if (c->bad || (min_each && nr > left(c) / min_each) || nr > SIZE_MAX / elem / 2) {
		c->bad = true;
		return NULL;
	}
	return pd_alloc(r, (size_t)nr * elem + 1);
}

static const char **cstrings(struct pms_perfdata_reader *r, struct pd_cur *c, size_t *n)
{
	uint32_t nr = cu32(c);
	const char **v = carray(r, c, nr, 4, sizeof(char *));
	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < nr && !c->bad; i++)
		v[i] = cstr(r, c);
	if (!c->bad)
		*n = nr;
	return v;
}

/* CPU_PMU_CAPS body and one PMU of PMU_CAPS: u32 nr, then name/value
 * string pairs (header.c __write_pmu_caps). */
static int pmu_caps(struct pms_perfdata_reader *r, struct pd_cur *c, const char *pmu,
		    bool name_after, struct pms_perfdata_pmu_caps *out)
{
	uint32_t nr = cu32(c);
	struct pms_perfdata_str_pair *caps = carray(r, c, nr, 8, sizeof(*caps));
	if (!caps)
		return -1;
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		caps[i].a = cstr(r, c);
		caps[i].b = cstr(r, c);
	}
	out->caps = caps;
	out->ncaps = nr;
	out->pmu = name_after ? cstr(r, c) : pmu;
	return c->bad ? -1 : 0;
}

static int add_pmu_caps(struct pms_perfdata_reader *r, const struct pms_perfdata_pmu_caps *add,
			size_t nadd)
{
	struct pms_perfdata_info *in = &r->info;
	struct pms_perfdata_pmu_caps *v =
		pd_alloc(r, (in->npmu_caps + nadd) * sizeof(*v) + 1);
	if (!v)
		return -1;
	if (in->npmu_caps)
		memcpy(v, in->pmu_caps, in->npmu_caps * sizeof(*v));
	memcpy(v + in->npmu_caps, add, nadd * sizeof(*v));
	in->pmu_caps = v;
	in->npmu_caps += nadd;
	return 0;
}

/* perf_record_header_build_id: header, s32 pid, 24 bytes (20 id bytes, u8
 * size, 3 reserved), filename (tools/lib/perf/include/perf/event.h). */
int pd_build_id_add(struct pms_perfdata_reader *r, const unsigned char *rec, size_t len,
		    bool swap, struct pms_perfdata_build_id *out)
{
	uint16_t misc, size;
	int32_t pid;
	size_t n;
	char *fn;

	if (len < 36)
		return -1;
	memcpy(&misc, rec + 4, 2);
	memcpy(&size, rec + 6, 2);
	memcpy(&pid, rec + 8, 4);
	if (swap) {
		misc = pd_bswap16(misc);
		size = pd_bswap16(size);
		pid = (int32_t)pd_bswap32((uint32_t)pid);
	}
	if (size < 36 || size > len)
		return -1;
	out->pid = pid;
	out->misc = misc;
	memcpy(out->id, rec + 12, 20);
	/* PERF_RECORD_MISC_BUILD_ID_SIZE (bit 15) says the size byte is set. */
	out->size = (misc & 0x8000) && rec[32] <= 20 ? rec[32] : 20;
	n = strnlen((const char *)rec + 36, size - 36);
	fn = pd_alloc(r, n + 1);
	if (!fn)
		return -1;
	memcpy(fn, rec + 36, n);
	out->filename = fn;
	return size;
}

static int build_ids(struct pms_perfdata_reader *r, struct pd_cur *c)
{
	size_t n = 0, cap = c->len / 36 + 1;
	struct pms_perfdata_build_id *v = carray(r, c, cap, 0, sizeof(*v));
	if (!v)
		return -1;
	while (left(c) >= 36 && n < cap) {
		int used = pd_build_id_add(r, c->p + c->pos, left(c), c->swap, &v[n]);
		if (used < 0)
			return -1;
		c->pos += (size_t)used;
		n++;
	}
	r->info.build_ids = v;
	r->info.nbuild_ids = n;
	return 0;
}

/* EVENT_DESC: u32 nr, u32 attr size, then per event the attr, u32 nr_ids,
 * the name, nr_ids u64 ids.  Only the names are kept, matched by order. */
static int event_desc(struct pms_perfdata_reader *r, struct pd_cur *c)
{
	uint32_t nr = cu32(c), sz = cu32(c);
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		uint32_t nids;
		const char *name;
		if (!need(c, sz))
			break;
		c->pos += sz;
		nids = cu32(c);
		name = cstr(r, c);
		if (c->bad || nids > left(c) / 8) {
			c->bad = true;
			break;
		}
		c->pos += (size_t)nids * 8;
		if (i < r->nattrs && name) {
			r->attrs[i].name = (char *)name;
			r->attrs[i].pub.name = name;
		}
	}
	return c->bad ? -1 : 0;
}

/* Over 150 lines on purpose: one flat switch, one short case per perf.data
 * header feature, all reading the one cursor c; a function per feature
 * would spread that cursor over twenty calls without making a case
 * shorter. */
int pd_feature_parse(struct pms_perfdata_reader *r, unsigned feat, const unsigned char *p,
		     size_t len, uint64_t file_off)
{
	struct pms_perfdata_info *in = &r->info;
	struct pd_cur c = { p, len, 0, r->swap, false };
	int rc = 0;

	switch (feat) {
	case PMS_PERFDATA_FEAT_HOSTNAME:
		in->hostname = cstr(r, &c);
		break;
	case PMS_PERFDATA_FEAT_OSRELEASE:
		in->osrelease = cstr(r, &c);
		break;
	case PMS_PERFDATA_FEAT_VERSION:
		in->version = cstr(r, &c);
		break;
	case PMS_PERFDATA_FEAT_ARCH:
		in->arch = cstr(r, &c);
		break;
	case PMS_PERFDATA_FEAT_CPUDESC:
		in->cpudesc = cstr(r, &c);
		break;
	case PMS_PERFDATA_FEAT_CPUID:
		in->cpuid = cstr(r, &c);
		break;
	case PMS_PERFDATA_FEAT_NRCPUS:
		in->nr_cpus_avail = cu32(&c);
		in->nr_cpus_online = cu32(&c);
		break;
	case PMS_PERFDATA_FEAT_TOTAL_MEM:
		in->total_mem_kb = cu64(&c);
		break;
	case PMS_PERFDATA_FEAT_CMDLINE:
		in->cmdline = cstrings(r, &c, &in->ncmdline);
		break;
	case PMS_PERFDATA_FEAT_EVENT_DESC:
		rc = event_desc(r, &c);
		break;
	case PMS_PERFDATA_FEAT_CPU_TOPOLOGY: {
		/* core siblings, thread siblings; then (perf >= 4.x) core and
		 * socket id per available CPU; then die siblings and die ids. */
		uint32_t *core, *sock, *die;
		size_t ncpu = in->nr_cpus_avail;
		in->core_sibs = cstrings(r, &c, &in->ncore_sibs);
		in->thread_sibs = cstrings(r, &c, &in->nthread_sibs);
		if (c.bad || left(&c) == 0)
			break;
		core = carray(r, &c, ncpu, 8, sizeof(uint32_t));
		sock = carray(r, &c, ncpu, 8, sizeof(uint32_t));
		if (!core || !sock)
			break;
		for (size_t i = 0; i < ncpu; i++) {
			core[i] = cu32(&c);
			sock[i] = cu32(&c);
		}
		in->core_id = core;
		in->socket_id = sock;
		in->ncpu_topo = ncpu;
		if (c.bad || left(&c) == 0)
			break;
		in->die_sibs = cstrings(r, &c, &in->ndie_sibs);
		die = carray(r, &c, ncpu, 4, sizeof(uint32_t));
		if (!die)
			break;
		for (size_t i = 0; i < ncpu; i++)
			die[i] = cu32(&c);
		in->die_id = die;
		break;
	}
	case PMS_PERFDATA_FEAT_NUMA_TOPOLOGY: {
		uint32_t nr = cu32(&c);
		struct pms_perfdata_numa_node *v = carray(r, &c, nr, 24, sizeof(*v));
		if (!v)
			break;
		for (uint32_t i = 0; i < nr && !c.bad; i++) {
			v[i].node = cu32(&c);
			v[i].mem_total_kb = cu64(&c);
			v[i].mem_free_kb = cu64(&c);
			v[i].cpus = cstr(r, &c);
		}
		in->numa = v;
		in->nnuma = c.bad ? 0 : nr;
		break;
	}
	case PMS_PERFDATA_FEAT_MEM_TOPOLOGY: {
		uint64_t nr;
		struct pms_perfdata_mem_node *v;
		in->mem_version = cu64(&c);
		in->mem_block_size = cu64(&c);
		nr = cu64(&c);
		v = carray(r, &c, nr, 24, sizeof(*v));
		if (!v)
			break;
		for (uint64_t i = 0; i < nr && !c.bad; i++) {
			uint64_t words;
			uint64_t *bm;
			v[i].node = cu64(&c);
			v[i].size = cu64(&c);
			v[i].nbits = cu64(&c);
			words = (v[i].nbits + 63) / 64;
			if (v[i].nbits > UINT64_MAX - 63)
				c.bad = true;
			bm = carray(r, &c, words, 8, sizeof(uint64_t));
			if (!bm)
				break;
			for (uint64_t w = 0; w < words; w++)
				bm[w] = cu64(&c);
			v[i].bitmap = bm;
		}
		in->mem = v;
		in->nmem = c.bad ? 0 : (size_t)nr;
		break;
	}
	case PMS_PERFDATA_FEAT_PMU_MAPPINGS: {
		uint32_t nr = cu32(&c);
		struct pms_perfdata_pmu_map *v = carray(r, &c, nr, 8, sizeof(*v));
		if (!v)
			break;
		for (uint32_t i = 0; i < nr && !c.bad; i++) {
			v[i].type = cu32(&c);
			v[i].name = cstr(r, &c);
		}
		in->pmu = v;
		in->npmu = c.bad ? 0 : nr;
		break;
	}
	case PMS_PERFDATA_FEAT_GROUP_DESC: {
		uint32_t nr = cu32(&c);
		struct pms_perfdata_group *v = carray(r, &c, nr, 12, sizeof(*v));
		if (!v)
			break;
		for (uint32_t i = 0; i < nr && !c.bad; i++) {
			v[i].name = cstr(r, &c);
			v[i].leader_idx = cu32(&c);
			v[i].nr_members = cu32(&c);
		}
		in->groups = v;
		in->ngroups = c.bad ? 0 : nr;
		break;
	}
	case PMS_PERFDATA_FEAT_HYBRID_TOPOLOGY: {
		uint32_t nr = cu32(&c);
		struct pms_perfdata_str_pair *v = carray(r, &c, nr, 8, sizeof(*v));
		if (!v)
			break;
		for (uint32_t i = 0; i < nr && !c.bad; i++) {
			v[i].a = cstr(r, &c);
			v[i].b = cstr(r, &c);
		}
		in->hybrid = v;
		in->nhybrid = c.bad ? 0 : nr;
		break;
	}
	case PMS_PERFDATA_FEAT_CPU_PMU_CAPS: {
		struct pms_perfdata_pmu_caps pc;
		if (pmu_caps(r, &c, "cpu", false, &pc) == 0)
			add_pmu_caps(r, &pc, 1);
		break;
	}
	case PMS_PERFDATA_FEAT_PMU_CAPS: {
		uint32_t nr = cu32(&c);
		struct pms_perfdata_pmu_caps *v = carray(r, &c, nr, 8, sizeof(*v));
		if (!v)
			break;
		for (uint32_t i = 0; i < nr && !c.bad; i++)
			pmu_caps(r, &c, NULL, true, &v[i]);
		if (!c.bad)
			add_pmu_caps(r, v, nr);
		break;
	}
	case PMS_PERFDATA_FEAT_BUILD_ID:
		rc = build_ids(r, &c);
		break;
	case PMS_PERFDATA_FEAT_CLOCKID:
		in->clockid_res_ns = cu64(&c);
		break;
	case PMS_PERFDATA_FEAT_COMPRESSED:
		in->comp_version = cu32(&c);
		in->comp_type = cu32(&c);
		in->comp_level = cu32(&c);
		in->comp_ratio = cu32(&c);
		in->comp_mmap_len = cu32(&c);
		break;
	default:
		break; /* kept as "present" only */
	}
	if (rc < 0 || c.bad) {
		const char *name = pms_perfdata_feature_name(feat);
		r->stats.bad_features++;
		return pms_err(PMS_EPARSE,
			       "perf.data: feature %u (%s) at offset %" PRIu64 " (%zu bytes): its "
			       "payload is truncated or inconsistent near byte %zu; the feature is "
			       "left out",
			       feat, name ? name : "?", file_off, len, c.pos);
	}
	in->has[feat / 64] |= UINT64_C(1) << (feat % 64);
	return 0;
}

int pms_perfdata_reader_alloc_records(const struct pms_perfdata_reader *r, const void **p,
				      size_t *len)
{
	if (!(r->info.has[PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC / 64] &
	      (UINT64_C(1) << (PMS_PERFDATA_FEAT_PMUSCOPE_ALLOC % 64))) ||
	    !r->buf)
		return PMS_ENOENT;
	*p = r->buf + r->alloc_off;
	*len = (size_t)r->alloc_len;
	return 0;
}
