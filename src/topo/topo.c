/* CPU, cache and NUMA topology from sysfs/procfs (see include/pmuscope/topo.h).
 *
 * Sources (kernel ABI):
 *  - cpuN/topology/...: drivers/base/topology.c,
 *    Documentation/ABI/stable/sysfs-devices-system-cpu
 *  - cpuN/cache/indexM/...: drivers/base/cacheinfo.c
 *  - cpu/online, cpuN/online: drivers/base/cpu.c
 *  - cpuN/cpu_capacity: drivers/base/arch_topology.c
 *  - cpuN/regs/identification/midr_el1: arch/arm64/kernel/cpuinfo.c
 *  - node/..., nodeN/cpulist|cpumap|distance|memoryM: drivers/base/node.c
 *    (distance lists every *online* node, in node order)
 *  - memory/block_size_bytes (hex, no 0x): drivers/base/memory.c
 */
#include "pmuscope/topo.h"
#include "topo/topo_int.h"
#include "topo/topo_internal.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR "sys/devices/system/cpu"
#define NODE_DIR "sys/devices/system/node"

/* Per-CPU values only needed while loading. */
struct scratch {
	uint64_t *base_khz; /* parallel to topo->cpus */
};

static bool numbered(const char *name, const char *prefix, int *num)
{
	size_t n = strlen(prefix);
	char *end;
	long v;
	if (strncmp(name, prefix, n) != 0 || !isdigit((unsigned char)name[n]))
		return false;
	errno = 0;
	v = strtol(name + n, &end, 10);
	if (errno || *end || v < 0 || v > PMS_CPUSET_MAX)
		return false;
	*num = (int)v;
	return true;
}

/* Read an optional one-line file: 0 and *s = NULL when it is absent, 1 and
 * *s (the caller frees it) when read, or a negative PMS_E*. */
static int read_line_opt(struct pms_sys *sys, const char *path, char **s)
{
	int ret;
	*s = NULL;
	if (!pms_sys_exists(sys, path))
		return 0;
	ret = pms_sys_read_line(sys, path, s);
	return ret < 0 ? ret : 1;
}

/* Read an optional integer file: absent -> *out = def, 0 returned. */
static int read_int_opt(struct pms_sys *sys, const char *path, int def, int *out)
{
	char *s = NULL, *end;
	long v;
	int ret;

	*out = def;
	if ((ret = read_line_opt(sys, path, &s)) <= 0)
		return ret;
	ret = 0;
	if (!s[0]) {
		/* Empty (hwloc's 128ia64-17n4s2c cpu0/online): as if absent. */
		free(s);
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < -1 || v > INT32_MAX)
		ret = pms_err(PMS_EPARSE, "%s: expected an integer, found '%.40s'", path, s);
	else
		*out = (int)v;
	free(s);
	return ret;
}

/* Read an optional hex file ("0x410fd851" or "8000000"): absent -> 0. */
static int read_hex_opt(struct pms_sys *sys, const char *path, uint64_t *out)
{
	char *s = NULL, *end;
	unsigned long long v;
	int ret;

	*out = 0;
	if ((ret = read_line_opt(sys, path, &s)) <= 0)
		return ret;
	ret = 0;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno || end == s || *end || s[0] == '-')
		ret = pms_err(PMS_EPARSE, "%s: expected a hex number, found '%.40s'", path, s);
	else
		*out = v;
	free(s);
	return ret;
}

/* Read a CPU set from list_path or the hex mask mask_path (either may be
 * NULL), the mask first when mask_first.  *found = false (and 0 returned)
 * when neither exists. */
static int read_set_any(struct pms_sys *sys, const char *list_path, const char *mask_path,
			bool mask_first, struct pms_cpuset *set, bool *found)
{
	const char *path = NULL;
	bool has_list = list_path && pms_sys_exists(sys, list_path);
	bool has_mask = mask_path && pms_sys_exists(sys, mask_path);
	char *s = NULL;
	int ret;

	*found = false;
	if (has_mask && (mask_first || !has_list))
		path = mask_path;
	else if (has_list)
		path = list_path;
	if (!path)
		return 0;
	ret = pms_sys_read_file(sys, path, &s, NULL);
	if (ret < 0)
		return ret;
	ret = path == list_path ? pms_cpuset_parse_list(set, s) : pms_cpuset_parse_mask(set, s);
	if (ret < 0)
		ret = pms_err(ret, "%s: %s", path, pms_error_last());
	else
		*found = true;
	free(s);
	return ret;
}

/* The list form first. */
static int read_set_opt(struct pms_sys *sys, const char *list_path, const char *mask_path,
			struct pms_cpuset *set, bool *found)
{
	return read_set_any(sys, list_path, mask_path, false, set, found);
}

/* "28160K" -> bytes. */
static int read_size_opt(struct pms_sys *sys, const char *path, uint64_t *out)
{
	char *s = NULL, *end;
	unsigned long long v;
	int ret;

	*out = 0;
	if ((ret = read_line_opt(sys, path, &s)) <= 0)
		return ret;
	ret = 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		ret = pms_err(PMS_EPARSE, "%s: expected a size like 32K, found '%.40s'", path, s);
	else if (*end == 'K' || *end == 'k')
		*out = v << 10;
	else if (*end == 'M')
		*out = v << 20;
	else if (*end == 'G')
		*out = v << 30;
	else
		*out = v;
	free(s);
	return ret;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static struct pms_topo_cpu *find_cpu(const struct pms_topo *t, int cpu)
{
	size_t lo = 0, hi = t->ncpus;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->cpus[mid].cpu == cpu)
			return &t->cpus[mid];
		if (t->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- CPUs ------------------------------------------------------------- */

static int list_cpus(struct pms_sys *sys, struct pms_topo *t)
{
	char **names = NULL;
	size_t n = 0;
	int *ids = NULL;
	size_t nids = 0;
	int ret;

	ret = pms_sys_list_dir(sys, CPU_DIR, &names, &n);
	if (ret < 0)
		return pms_err(ret, "cannot list the CPUs: %s (is the root a machine snapshot?)",
			       pms_error_last());
	ids = calloc(n ? n : 1, sizeof(*ids));
	if (!ids) {
		ret = pms_err(PMS_ENOMEM, "out of memory listing CPUs");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int id;
		if (numbered(names[i], "cpu", &id))
			ids[nids++] = id;
	}
	if (!nids) {
		ret = pms_err(PMS_ENOENT, "%s/%s has no cpuN directories", pms_sys_root(sys),
			      CPU_DIR);
		goto out;
	}
	qsort(ids, nids, sizeof(*ids), cmp_int);
	t->cpus = calloc(nids, sizeof(*t->cpus));
	if (!t->cpus) {
		ret = pms_err(PMS_ENOMEM, "out of memory listing CPUs");
		goto out;
	}
	for (size_t i = 0; i < nids; i++) {
		struct pms_topo_cpu *c = &t->cpus[i];
		c->cpu = ids[i];
		c->package = c->die = c->cluster = c->core = c->node = c->l3 = -1;
		c->core_type = -1;
	}
	t->ncpus = nids;
out:
	free(ids);
	pms_sys_names_free(names, n);
	return ret;
}

static int load_online(struct pms_sys *sys, struct pms_topo *t)
{
	bool found;
	char path[128];
	int ret = read_set_opt(sys, CPU_DIR "/online", NULL, &t->online, &found);
	if (ret < 0 || found)
		goto mark;
	/* No global file: per-CPU online files; CPUs without one (often cpu0,
	 * which cannot be unplugged) are online. */
	for (size_t i = 0; i < t->ncpus; i++) {
		int v;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/online", t->cpus[i].cpu);
		if ((ret = read_int_opt(sys, path, 1, &v)) < 0)
			return ret;
		if (v && (ret = pms_cpuset_add(&t->online, t->cpus[i].cpu)) < 0)
			return ret;
	}
mark:
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < t->ncpus; i++)
		t->cpus[i].online = pms_cpuset_has(&t->online, t->cpus[i].cpu);
	return 0;
}

static int add_cache(struct pms_topo *t, const struct pms_topo_cache *c)
{
	struct pms_topo_cache *nc;
	for (size_t i = 0; i < t->ncaches; i++)
		if (t->caches[i].level == c->level && t->caches[i].type == c->type &&
		    pms_cpuset_equal(&t->caches[i].cpus, &c->cpus))
			return 0;
	nc = realloc(t->caches, (t->ncaches + 1) * sizeof(*nc));
	if (!nc)
		return pms_err(PMS_ENOMEM, "out of memory adding a cache");
	t->caches = nc;
	memset(&nc[t->ncaches], 0, sizeof(*nc));
	nc[t->ncaches] = *c;
	nc[t->ncaches].cpus.bits = NULL;
	nc[t->ncaches].cpus.nwords = 0;
	t->ncaches++;
	return pms_cpuset_copy(&nc[t->ncaches - 1].cpus, &c->cpus);
}

static int load_caches(struct pms_sys *sys, struct pms_topo *t, int cpu)
{
	char dir[128], path[192];
	char **names = NULL;
	size_t n = 0;
	struct pms_topo_cache c;
	int ret;

	memset(&c, 0, sizeof(c));
	snprintf(dir, sizeof(dir), CPU_DIR "/cpu%d/cache", cpu);
	if (!pms_sys_exists(sys, dir))
		return 0;
	if ((ret = pms_sys_list_dir(sys, dir, &names, &n)) < 0)
		return ret;
	for (size_t i = 0; i < n; i++) {
		int idx;
		bool found;
		char *type = NULL;
		if (!numbered(names[i], "index", &idx))
			continue;
		snprintf(path, sizeof(path), "%s/%s/level", dir, names[i]);
		if ((ret = read_int_opt(sys, path, -1, &c.level)) < 0)
			goto out;
		if (c.level < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, names[i]);
		c.type = PMS_CACHE_UNIFIED;
		if (pms_sys_exists(sys, path)) {
			if ((ret = pms_sys_read_line(sys, path, &type)) < 0)
				goto out;
			if (!strcmp(type, "Data"))
				c.type = PMS_CACHE_DATA;
			else if (!strcmp(type, "Instruction"))
				c.type = PMS_CACHE_INSTRUCTION;
			free(type);
		}
		snprintf(path, sizeof(path), "%s/%s/id", dir, names[i]);
		if ((ret = read_int_opt(sys, path, -1, &c.id)) < 0)
			goto out;
		snprintf(path, sizeof(path), "%s/%s/size", dir, names[i]);
		if ((ret = read_size_opt(sys, path, &c.size)) < 0)
			goto out;
		{
			char lp[192], mp[192];
			/* The mask first, as hwloc reads it: hand-made snapshots
			 * (hwloc's 64fake-4n2s2ca2c2t) carry stale lists. */
			snprintf(lp, sizeof(lp), "%s/%s/shared_cpu_list", dir, names[i]);
			snprintf(mp, sizeof(mp), "%s/%s/shared_cpu_map", dir, names[i]);
			if ((ret = read_set_any(sys, lp, mp, true, &c.cpus, &found)) < 0)
				goto out;
		}
		if (!found || !pms_cpuset_has(&c.cpus, cpu)) {
			pms_cpuset_clear(&c.cpus);
			if ((ret = pms_cpuset_add(&c.cpus, cpu)) < 0)
				goto out;
		}
		if ((ret = add_cache(t, &c)) < 0)
			goto out;
	}
out:
	pms_cpuset_fini(&c.cpus);
	pms_sys_names_free(names, n);
	return ret;
}

static int load_cpu(struct pms_sys *sys, struct pms_topo *t, struct pms_topo_cpu *c,
		    uint64_t *base_khz)
{
	char path[192], p2[192];
	bool found;
	int ret, cap;

	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/physical_package_id", c->cpu);
	if ((ret = read_int_opt(sys, path, -1, &c->package)) < 0)
		return ret;
	if (c->package < 0) {
		/* ppc64 reports physical_package_id -1 (hwloc's 256ppc-8n8s4t):
		 * name the package after the lowest CPU of its sibling set. */
		struct pms_cpuset pk = { 0 };
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/package_cpus_list", c->cpu);
		snprintf(p2, sizeof(p2), CPU_DIR "/cpu%d/topology/core_siblings_list", c->cpu);
		if (!pms_sys_exists(sys, path))
			snprintf(path, sizeof(path), "%s", p2);
		ret = read_set_opt(sys, path, NULL, &pk, &found);
		if (ret >= 0 && found && pms_cpuset_has(&pk, c->cpu))
			c->package = pms_cpuset_first(&pk);
		pms_cpuset_fini(&pk);
		if (ret < 0)
			return ret;
	}
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/die_id", c->cpu);
	if ((ret = read_int_opt(sys, path, -1, &c->die)) < 0)
		return ret;
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/cluster_id", c->cpu);
	if ((ret = read_int_opt(sys, path, -1, &c->cluster)) < 0)
		return ret;
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/core_id", c->cpu);
	if ((ret = read_int_opt(sys, path, -1, &c->core)) < 0)
		return ret;
	/* core_cpus_list is the newer name for thread_siblings_list. */
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/thread_siblings_list", c->cpu);
	snprintf(p2, sizeof(p2), CPU_DIR "/cpu%d/topology/core_cpus_list", c->cpu);
	if ((ret = read_set_opt(sys, path, p2, &c->smt_siblings, &found)) < 0)
		return ret;
	if (!found || pms_cpuset_count(&c->smt_siblings) == 0)
		if ((ret = pms_cpuset_add(&c->smt_siblings, c->cpu)) < 0)
			return ret;
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpu_capacity", c->cpu);
	if ((ret = read_int_opt(sys, path, 0, &cap)) < 0)
		return ret;
	c->capacity = cap > 0 ? (unsigned)cap : 0;
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/regs/identification/midr_el1", c->cpu);
	if ((ret = read_hex_opt(sys, path, &c->midr)) < 0)
		return ret;
	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpufreq/base_frequency", c->cpu);
	{
		int khz;
		if ((ret = read_int_opt(sys, path, 0, &khz)) < 0)
			return ret;
		*base_khz = khz > 0 ? (uint64_t)khz : 0;
	}
	return load_caches(sys, t, c->cpu);
}

static int cmp_cache(const void *a, const void *b)
{
	const struct pms_topo_cache *x = a, *y = b;
	int fx, fy;
	if (x->level != y->level)
		return x->level - y->level;
	if (x->type != y->type)
		return (int)x->type - (int)y->type;
	fx = pms_cpuset_first(&x->cpus);
	fy = pms_cpuset_first(&y->cpus);
	return (fx > fy) - (fx < fy);
}

static void number_caches(struct pms_topo *t)
{
	if (t->ncaches)
		qsort(t->caches, t->ncaches, sizeof(*t->caches), cmp_cache);
	for (size_t i = 0; i < t->ncaches; i++) {
		struct pms_topo_cache *c = &t->caches[i];
		if (i && c->level == c[-1].level && c->type == c[-1].type)
			c->logical = c[-1].logical + 1;
		else
			c->logical = 0;
		if (c->level != 3 || c->type == PMS_CACHE_INSTRUCTION)
			continue;
		t->nl3 = c->logical + 1;
		for (int cpu = pms_cpuset_first(&c->cpus); cpu >= 0;
		     cpu = pms_cpuset_next(&c->cpus, cpu + 1)) {
			struct pms_topo_cpu *tc = find_cpu(t, cpu);
			if (tc && tc->online)
				tc->l3 = c->logical;
		}
	}
}

/* ---- NUMA nodes --------------------------------------------------------- */

static int parse_distances(const char *path, const char *text, struct pms_topo_node *nd,
			   size_t nnodes)
{
	const char *p = text;
	size_t n = 0;
	int *v = calloc(nnodes ? nnodes : 1, sizeof(*v));
	if (!v)
		return pms_err(PMS_ENOMEM, "out of memory reading %s", path);
	for (;;) {
		char *end;
		long d;
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		errno = 0;
		d = strtol(p, &end, 10);
		if (end == p || errno || d < 0 || d > 255) {
			free(v);
			return pms_err(PMS_EPARSE, "%s: bad distance at column %d", path,
				       (int)(p - text) + 1);
		}
		if (n < nnodes)
			v[n] = (int)d;
		n++;
		p = end;
	}
	if (n != nnodes) {
		/* The file disagrees with the node directories (offline nodes in
		 * a hand-edited snapshot); keep no distances rather than wrong ones. */
		free(v);
		return 0;
	}
	nd->distances = v;
	nd->ndistances = n;
	return 0;
}

/* "Node 0 MemTotal:       16318484 kB" -> bytes; 0 when the key is absent. */
static uint64_t meminfo_bytes(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;
	return p ? strtoull(p + strlen(key), NULL, 10) * 1024 : 0;
}

static int load_node(struct pms_sys *sys, struct pms_topo *t, struct pms_topo_node *nd,
		     const struct pms_cpuset *has_cpu, const struct pms_cpuset *has_mem,
		     bool have_has_cpu, bool have_has_mem)
{
	char dir[96], lp[128], mp[128];
	char **names = NULL, *text = NULL;
	size_t n = 0, nb = 0;
	bool found;
	int ret;

	snprintf(dir, sizeof(dir), NODE_DIR "/node%d", nd->id);
	snprintf(lp, sizeof(lp), "%s/cpulist", dir);
	snprintf(mp, sizeof(mp), "%s/cpumap", dir);
	if ((ret = read_set_opt(sys, lp, mp, &nd->cpus, &found)) < 0)
		return ret;
	/* A node whose cpulist holds online CPUs has CPUs even where a
	 * hand-edited snapshot's has_cpu says otherwise. */
	nd->has_cpu = pms_cpuset_intersects(&nd->cpus, &t->online) ||
		      (have_has_cpu && pms_cpuset_has(has_cpu, nd->id));
	nd->has_memory = have_has_mem ? pms_cpuset_has(has_mem, nd->id) : true;

	snprintf(lp, sizeof(lp), "%s/distance", dir);
	if (pms_sys_exists(sys, lp)) {
		if ((ret = pms_sys_read_file(sys, lp, &text, NULL)) < 0)
			return ret;
		ret = parse_distances(lp, text, nd, t->nnodes);
		free(text);
		if (ret < 0)
			return ret;
	}

	snprintf(lp, sizeof(lp), "%s/meminfo", dir);
	if (pms_sys_exists(sys, lp)) {
		if ((ret = pms_sys_read_file(sys, lp, &text, NULL)) < 0)
			return ret;
		nd->mem_total = meminfo_bytes(text, "MemTotal:");
		nd->mem_free = meminfo_bytes(text, "MemFree:");
		free(text);
	}

	if ((ret = pms_sys_list_dir(sys, dir, &names, &n)) < 0)
		return ret;
	for (size_t i = 0; i < n; i++) {
		int b;
		if (numbered(names[i], "memory", &b))
			nb++;
	}
	if (nb) {
		nd->mem_blocks = calloc(nb, sizeof(*nd->mem_blocks));
		if (!nd->mem_blocks) {
			ret = pms_err(PMS_ENOMEM, "out of memory reading %s", dir);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			/* Block numbers can exceed PMS_CPUSET_MAX: parse directly. */
			if (strncmp(names[i], "memory", 6) || !isdigit((unsigned char)names[i][6]))
				continue;
			nd->mem_blocks[nd->nmem_blocks++] = strtoull(names[i] + 6, NULL, 10);
		}
		qsort(nd->mem_blocks, nd->nmem_blocks, sizeof(uint64_t), cmp_u64);
	}
out:
	pms_sys_names_free(names, n);
	return ret;
}

static int load_nodes(struct pms_sys *sys, struct pms_topo *t)
{
	char **names = NULL;
	size_t n = 0, cnt = 0;
	struct pms_cpuset has_cpu = { 0 }, has_mem = { 0 };
	bool have_cpu = false, have_mem = false;
	int ret = 0;

	if (pms_sys_exists(sys, NODE_DIR)) {
		if ((ret = pms_sys_list_dir(sys, NODE_DIR, &names, &n)) < 0)
			return ret;
		for (size_t i = 0; i < n; i++) {
			int id;
			if (numbered(names[i], "node", &id))
				cnt++;
		}
	}
	if (cnt == 0) {
		/* Kernels without CONFIG_NUMA: one node holds everything. */
		t->nodes = calloc(1, sizeof(*t->nodes));
		if (!t->nodes) {
			ret = pms_err(PMS_ENOMEM, "out of memory");
			goto out;
		}
		t->nnodes = 1;
		t->numa_synthetic = true;
		t->nodes[0].has_cpu = t->nodes[0].has_memory = true;
		for (size_t i = 0; i < t->ncpus; i++)
			if ((ret = pms_cpuset_add(&t->nodes[0].cpus, t->cpus[i].cpu)) < 0)
				goto out;
		goto out;
	}
	if ((ret = read_set_opt(sys, NODE_DIR "/has_cpu", NULL, &has_cpu, &have_cpu)) < 0)
		goto out;
	if ((ret = read_set_opt(sys, NODE_DIR "/has_memory", NULL, &has_mem, &have_mem)) < 0)
		goto out;
	t->nodes = calloc(cnt, sizeof(*t->nodes));
	if (!t->nodes) {
		ret = pms_err(PMS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int id;
		if (numbered(names[i], "node", &id))
			t->nodes[t->nnodes++].id = id; /* natural sort: ascending */
	}
	for (size_t i = 0; i < t->nnodes; i++)
		if ((ret = load_node(sys, t, &t->nodes[i], &has_cpu, &has_mem, have_cpu,
				     have_mem)) < 0)
			goto out;
out:
	pms_cpuset_fini(&has_cpu);
	pms_cpuset_fini(&has_mem);
	pms_sys_names_free(names, n);
	if (ret >= 0)
		for (size_t i = 0; i < t->nnodes; i++) {
			const struct pms_cpuset *s = &t->nodes[i].cpus;
			for (int c = pms_cpuset_first(s); c >= 0; c = pms_cpuset_next(s, c + 1)) {
				struct pms_topo_cpu *tc = find_cpu(t, c);
				if (tc && tc->node >= 0)
					t->numa_overlap = true;
				else if (tc)
					tc->node = t->nodes[i].id;
			}
		}
	return ret;
}

/* ---- packages and SNC ---------------------------------------------------- */

static int count_distinct(int *v, size_t n)
{
	int k = 0;
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_int);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			k++;
	return k;
}

static int build_packages(struct pms_topo *t)
{
	int *ids = NULL, *tmp = NULL, *l3nodes = NULL;
	size_t nids = 0;
	int ret = 0;

	ids = calloc(t->ncpus, sizeof(*ids));
	tmp = calloc(t->ncpus, sizeof(*tmp));
	if (!ids || !tmp) {
		ret = pms_err(PMS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->ncpus; i++)
		if (t->cpus[i].online && t->cpus[i].package >= 0)
			ids[nids++] = t->cpus[i].package;
	t->npackages = (size_t)count_distinct(ids, nids);
	t->packages = calloc(t->npackages ? t->npackages : 1, sizeof(*t->packages));
	if (!t->packages) {
		ret = pms_err(PMS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0, k = 0; i < nids; i++)
		if (i == 0 || ids[i] != ids[i - 1])
			t->packages[k++].id = ids[i];
	t->snc = 1;
	for (size_t p = 0; p < t->npackages; p++) {
		struct pms_topo_package *pk = &t->packages[p];
		size_t nd = 0, nl = 0;
		pk->snc = 1;
		for (size_t i = 0; i < t->ncpus; i++) {
			const struct pms_topo_cpu *c = &t->cpus[i];
			if (!c->online || c->package != pk->id)
				continue;
			if ((ret = pms_cpuset_add(&pk->cpus, c->cpu)) < 0)
				goto out;
			if (c->node >= 0 && (ret = pms_cpuset_add(&pk->nodes, c->node)) < 0)
				goto out;
			tmp[nd++] = c->die;
		}
		pk->ndies = count_distinct(tmp, nd);
		for (size_t i = 0; i < t->ncpus; i++)
			if (t->cpus[i].online && t->cpus[i].package == pk->id &&
			    t->cpus[i].l3 >= 0)
				tmp[nl++] = t->cpus[i].l3;
		pk->nl3 = count_distinct(tmp, nl);
		/* SNC = NUMA nodes per L3 (the rule perf uses: L3 shared CPUs over
		 * node CPUs, tools/perf/arch/x86/util/pmu.c); counted as distinct
		 * nodes among each L3's online CPUs so offline CPUs do not skew it. */
		for (size_t i = 0; i < nl; i++) {
			int l3 = tmp[i], k = 0;
			if (i && tmp[i - 1] == l3)
				continue;
			free(l3nodes);
			l3nodes = calloc(t->ncpus, sizeof(*l3nodes));
			if (!l3nodes) {
				ret = pms_err(PMS_ENOMEM, "out of memory");
				goto out;
			}
			for (size_t j = 0; j < t->ncpus; j++)
				if (t->cpus[j].online && t->cpus[j].l3 == l3 && t->cpus[j].node >= 0)
					l3nodes[k++] = t->cpus[j].node;
			k = count_distinct(l3nodes, (size_t)k);
			if (k > pk->snc)
				pk->snc = k;
		}
		if (pk->snc > t->snc)
			t->snc = pk->snc;
	}
out:
	free(ids);
	free(tmp);
	free(l3nodes);
	return ret;
}

static int node_index(const struct pms_topo *t, int id)
{
	for (size_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return (int)i;
	return -1;
}

/* SNC siblings must be closer to each other than to any other package's
 * node, and closer than REMOTE_DISTANCE (20, include/linux/topology.h): fake
 * NUMA in a VM puts several nodes under one L3 at distance 20. */
#define REMOTE_DISTANCE 20
static bool check_snc_distances(const struct pms_topo *t)
{
	if (t->snc <= 1)
		return false;
	for (size_t p = 0; p < t->npackages; p++) {
		const struct pms_topo_package *pk = &t->packages[p];
		int worst_in = -1, best_out = REMOTE_DISTANCE;
		for (int a = pms_cpuset_first(&pk->nodes); a >= 0;
		     a = pms_cpuset_next(&pk->nodes, a + 1)) {
			for (size_t j = 0; j < t->nnodes; j++) {
				int b = t->nodes[j].id, d = pms_topo_distance(t, a, b);
				bool same = pms_cpuset_has(&pk->nodes, b);
				if (d < 0)
					return false;
				if (!t->nodes[j].has_cpu)
					continue; /* memory-only tiers are far by design */
				if (same && d > worst_in)
					worst_in = d;
				if (!same && d < best_out)
					best_out = d;
			}
		}
		if (worst_in >= best_out)
			return false;
	}
	return true;
}

/* ---- core types ------------------------------------------------------------ */

/* MIDR_EL1 implementer [31:24] + architecture [19:16] + part [15:4]; variant
 * and revision are dropped so steppings of one core are one type
 * (arch/arm64/include/asm/cputype.h). */
#define MIDR_TYPE_MASK UINT64_C(0xff0ffff0)

enum key_kind { KEY_NONE, KEY_MIDR, KEY_CAPACITY, KEY_BASE_FREQ };

static uint64_t cpu_key(const struct pms_topo_cpu *c, uint64_t base_khz, enum key_kind k)
{
	switch (k) {
	case KEY_MIDR: return c->midr & MIDR_TYPE_MASK;
	case KEY_CAPACITY: return c->capacity;
	case KEY_BASE_FREQ: return base_khz;
	default: return 0;
	}
}

static int cmp_type(const void *a, const void *b)
{
	const struct pms_topo_core_type *x = a, *y = b;
	if (x->capacity != y->capacity)
		return x->capacity < y->capacity ? -1 : 1;
	if (x->base_khz != y->base_khz)
		return x->base_khz < y->base_khz ? -1 : 1;
	if (x->midr != y->midr)
		return x->midr < y->midr ? -1 : 1;
	return 0;
}

static int build_core_types(struct pms_topo *t, const uint64_t *base_khz)
{
	enum key_kind kind = KEY_NONE;
	bool any_midr = false, cap_varies = false, freq_varies = false;
	unsigned cap0 = 0;
	uint64_t f0 = 0;
	bool first = true;
	int ret = 0;

	for (size_t i = 0; i < t->ncpus; i++) {
		const struct pms_topo_cpu *c = &t->cpus[i];
		if (!c->online)
			continue;
		if (c->midr)
			any_midr = true;
		if (first) {
			cap0 = c->capacity;
			f0 = base_khz[i];
			first = false;
		}
		if (c->capacity != cap0)
			cap_varies = true;
		if (base_khz[i] != f0)
			freq_varies = true;
	}
	/* MIDR names the core; without it cpu_capacity (arm64), then the
	 * cpufreq base frequency (x86 hybrid, as hwloc's cpukinds do). */
	if (any_midr)
		kind = KEY_MIDR;
	else if (cap_varies)
		kind = KEY_CAPACITY;
	else if (freq_varies)
		kind = KEY_BASE_FREQ;

	for (size_t i = 0; i < t->ncpus; i++) {
		struct pms_topo_cpu *c = &t->cpus[i];
		uint64_t key;
		size_t j;
		if (!c->online)
			continue;
		key = cpu_key(c, base_khz[i], kind);
		for (j = 0; j < t->ncore_types; j++) {
			const struct pms_topo_core_type *ct = &t->core_types[j];
			int c0 = pms_cpuset_first(&ct->cpus);
			if (cpu_key(find_cpu(t, c0), base_khz[find_cpu(t, c0) - t->cpus], kind) ==
			    key)
				break;
		}
		if (j == t->ncore_types) {
			struct pms_topo_core_type *nt =
				realloc(t->core_types, (j + 1) * sizeof(*nt));
			if (!nt)
				return pms_err(PMS_ENOMEM, "out of memory");
			t->core_types = nt;
			memset(&nt[j], 0, sizeof(*nt));
			nt[j].capacity = c->capacity;
			if (kind == KEY_MIDR) {
				nt[j].midr = key;
				nt[j].name = pms_midr_core_name(c->midr);
			}
			if (kind == KEY_BASE_FREQ)
				nt[j].base_khz = base_khz[i];
			t->ncore_types++;
		}
		if (c->capacity && c->capacity < t->core_types[j].capacity)
			t->core_types[j].capacity = c->capacity;
		if ((ret = pms_cpuset_add(&t->core_types[j].cpus, c->cpu)) < 0)
			return ret;
	}
	if (t->ncore_types > 1)
		qsort(t->core_types, t->ncore_types, sizeof(*t->core_types), cmp_type);
	for (size_t j = 0; j < t->ncore_types; j++) {
		const struct pms_cpuset *s = &t->core_types[j].cpus;
		t->core_types[j].index = (int)j;
		for (int c = pms_cpuset_first(s); c >= 0; c = pms_cpuset_next(s, c + 1))
			find_cpu(t, c)->core_type = (int)j;
	}
	return 0;
}

/* ---- load / free ---------------------------------------------------------- */

int pms_topo_load(struct pms_sys *sys, struct pms_topo **out)
{
	struct pms_topo *t = NULL;
	uint64_t *base_khz = NULL;
	int ret;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_topo_load: out is NULL");
	*out = NULL;
	if (!sys)
		return pms_err(PMS_EINVAL, "pms_topo_load: sys is NULL");
	t = calloc(1, sizeof(*t));
	if (!t)
		return pms_err(PMS_ENOMEM, "pms_topo_load: out of memory");
	t->family = t->model = t->stepping = -1;
	if ((ret = list_cpus(sys, t)) < 0)
		goto out;
	if ((ret = load_online(sys, t)) < 0)
		goto out;
	base_khz = calloc(t->ncpus, sizeof(*base_khz));
	if (!base_khz) {
		ret = pms_err(PMS_ENOMEM, "pms_topo_load: out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->ncpus; i++) {
		/* Offline CPUs keep stale or no topology files: skip them. */
		if (!t->cpus[i].online)
			continue;
		if ((ret = load_cpu(sys, t, &t->cpus[i], &base_khz[i])) < 0)
			goto out;
	}
	number_caches(t);
	if ((ret = load_nodes(sys, t)) < 0)
		goto out;
	if ((ret = read_hex_opt(sys, "sys/devices/system/memory/block_size_bytes",
				&t->mem_block_size)) < 0)
		goto out;
	if ((ret = build_packages(t)) < 0)
		goto out;
	t->snc_distances_agree = check_snc_distances(t);
	if ((ret = build_core_types(t, base_khz)) < 0)
		goto out;
	if ((ret = pms_topo_read_cpuinfo(sys, t)) < 0)
		goto out;
	pms_hypervisor_detect(sys, t->hypervisor, sizeof(t->hypervisor));
	*out = t;
	t = NULL;
	ret = 0;
out:
	free(base_khz);
	pms_topo_free(t);
	return ret;
}

void pms_topo_free(struct pms_topo *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncpus; i++)
		pms_cpuset_fini(&t->cpus[i].smt_siblings);
	free(t->cpus);
	pms_cpuset_fini(&t->online);
	for (size_t i = 0; i < t->ncaches; i++)
		pms_cpuset_fini(&t->caches[i].cpus);
	free(t->caches);
	for (size_t i = 0; i < t->nnodes; i++) {
		pms_cpuset_fini(&t->nodes[i].cpus);
		free(t->nodes[i].distances);
		free(t->nodes[i].mem_blocks);
	}
	free(t->nodes);
	for (size_t i = 0; i < t->npackages; i++) {
		pms_cpuset_fini(&t->packages[i].cpus);
		pms_cpuset_fini(&t->packages[i].nodes);
	}
	free(t->packages);
	for (size_t i = 0; i < t->ncore_types; i++)
		pms_cpuset_fini(&t->core_types[i].cpus);
	free(t->core_types);
	free(t->model_name);
	free(t);
}

/* ---- lookups ---------------------------------------------------------------- */

const struct pms_topo_cpu *pms_topo_cpu(const struct pms_topo *t, int cpu)
{
	return t ? find_cpu(t, cpu) : NULL;
}

const struct pms_topo_node *pms_topo_node(const struct pms_topo *t, int node)
{
	int i = t ? node_index(t, node) : -1;
	return i < 0 ? NULL : &t->nodes[i];
}

size_t pms_topo_node_count(const struct pms_topo *t)
{
	return t ? t->nnodes : 0;
}

const struct pms_topo_node *pms_topo_node_at(const struct pms_topo *t, size_t i)
{
	return t && i < t->nnodes ? &t->nodes[i] : NULL;
}

/* Count and i-th row of one of the topology's arrays. */
#define TOPO_ROWS(what, type, arr, n)                                              \
	size_t pms_topo_##what##_count(const struct pms_topo *t)                  \
	{                                                                          \
		return t ? t->n : 0;                                               \
	}                                                                          \
	const struct type *pms_topo_##what##_at(const struct pms_topo *t, size_t i) \
	{                                                                          \
		return t && i < t->n ? &t->arr[i] : NULL;                          \
	}
TOPO_ROWS(cpu, pms_topo_cpu, cpus, ncpus)
TOPO_ROWS(cache, pms_topo_cache, caches, ncaches)
TOPO_ROWS(package, pms_topo_package, packages, npackages)
TOPO_ROWS(core_type, pms_topo_core_type, core_types, ncore_types)
#undef TOPO_ROWS

const struct pms_cpuset *pms_topo_online(const struct pms_topo *t)
{
	static const struct pms_cpuset none;
	return t ? &t->online : &none;
}

const char *pms_topo_vendor(const struct pms_topo *t)
{
	return t ? t->vendor : "";
}

int pms_topo_family(const struct pms_topo *t)
{
	return t ? t->family : -1;
}

int pms_topo_model(const struct pms_topo *t)
{
	return t ? t->model : -1;
}

int pms_topo_stepping(const struct pms_topo *t)
{
	return t ? t->stepping : -1;
}

const char *pms_topo_model_name(const struct pms_topo *t)
{
	return t ? t->model_name : NULL;
}

const char *pms_topo_hypervisor(const struct pms_topo *t)
{
	return t ? t->hypervisor : "";
}

int pms_topo_l3_count(const struct pms_topo *t)
{
	return t ? t->nl3 : 0;
}

int pms_topo_snc(const struct pms_topo *t)
{
	return t ? t->snc : 0;
}

bool pms_topo_snc_distances_agree(const struct pms_topo *t)
{
	return t && t->snc_distances_agree;
}

bool pms_topo_numa_synthetic(const struct pms_topo *t)
{
	return t && t->numa_synthetic;
}

bool pms_topo_numa_overlap(const struct pms_topo *t)
{
	return t && t->numa_overlap;
}

uint64_t pms_topo_mem_block_size(const struct pms_topo *t)
{
	return t ? t->mem_block_size : 0;
}

const struct pms_topo_package *pms_topo_package(const struct pms_topo *t, int package)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->npackages; i++)
		if (t->packages[i].id == package)
			return &t->packages[i];
	return NULL;
}

int pms_topo_node_of_cpu(const struct pms_topo *t, int cpu)
{
	const struct pms_topo_cpu *c = pms_topo_cpu(t, cpu);
	return c ? c->node : -1;
}

int pms_topo_distance(const struct pms_topo *t, int from, int to)
{
	int a = t ? node_index(t, from) : -1, b = t ? node_index(t, to) : -1;
	if (a < 0 || b < 0 || (size_t)b >= t->nodes[a].ndistances)
		return -1;
	return t->nodes[a].distances[b];
}

int pms_topo_node_of_phys(const struct pms_topo *t, uint64_t paddr)
{
	uint64_t block;
	if (!t)
		return pms_err(PMS_EINVAL, "pms_topo_node_of_phys: topo is NULL");
	if (!t->mem_block_size)
		return pms_err(PMS_ENOTSUP,
			       "physical address 0x%llx: memory block size unknown "
			       "(no sys/devices/system/memory/block_size_bytes)",
			       (unsigned long long)paddr);
	block = paddr / t->mem_block_size;
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct pms_topo_node *n = &t->nodes[i];
		if (n->nmem_blocks &&
		    bsearch(&block, n->mem_blocks, n->nmem_blocks, sizeof(uint64_t), cmp_u64))
			return n->id;
	}
	return pms_err(PMS_ENOENT,
		       "physical address 0x%llx (memory block %llu) is in no node's memory blocks",
		       (unsigned long long)paddr, (unsigned long long)block);
}

int pms_topo_package_node(const struct pms_topo *t, int package, int d)
{
	const struct pms_topo_package *pk = pms_topo_package(t, package);
	int order[64], n = 0;
	if (!pk || d < 0)
		return -1;
	/* Nodes of the package ordered by their lowest CPU. */
	for (int node = pms_cpuset_first(&pk->nodes); node >= 0 && n < 64;
	     node = pms_cpuset_next(&pk->nodes, node + 1))
		order[n++] = node;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			const struct pms_topo_node *x = pms_topo_node(t, order[j - 1]);
			const struct pms_topo_node *y = pms_topo_node(t, order[j]);
			int fx = pms_cpuset_first(&x->cpus), fy = pms_cpuset_first(&y->cpus);
			if (fx <= fy)
				break;
			int tmp = order[j];
			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	return d < n ? order[d] : -1;
}

const char *pms_cache_type_name(enum pms_cache_type type)
{
	switch (type) {
	case PMS_CACHE_DATA: return "data";
	case PMS_CACHE_INSTRUCTION: return "instruction";
	default: return "unified";
	}
}

/* Only the identity: the same readers as pms_topo_load, for snapshots and
 * callers that need no more than who the CPU is. */
int pms_topo_load_cpuid(struct pms_sys *sys, struct pms_topo **out)
{
	struct pms_topo *t = NULL;
	char path[128];
	int ret;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_topo_load_cpuid: out is NULL");
	*out = NULL;
	if (!sys)
		return pms_err(PMS_EINVAL, "pms_topo_load_cpuid: sys is NULL");
	t = calloc(1, sizeof(*t));
	if (!t)
		return pms_err(PMS_ENOMEM, "pms_topo_load_cpuid: out of memory");
	t->family = t->model = t->stepping = -1;
	if (list_cpus(sys, t) < 0)
		pms_error_clear(); /* no cpuN directories: no MIDRs, cpuinfo still tells */
	for (size_t i = 0; i < t->ncpus; i++) {
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/regs/identification/midr_el1",
			 t->cpus[i].cpu);
		if ((ret = read_hex_opt(sys, path, &t->cpus[i].midr)) < 0)
			goto out;
	}
	if ((ret = pms_topo_read_cpuinfo(sys, t)) < 0)
		goto out;
	pms_hypervisor_detect(sys, t->hypervisor, sizeof(t->hypervisor));
	*out = t;
	t = NULL;
	ret = 0;
out:
	pms_topo_free(t);
	return ret;
}
