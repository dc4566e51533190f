/* Every usable hwloc Linux snapshot: the object counts of its expected
 * lstopo output (.console "depth N: COUNT TYPE" lines) against ours.
 * Snapshots restricted by a cgroup/cpuset (hwloc shows only the allowed part)
 * are not listed; per-field exceptions carry the reason. */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/topo.h"
#include "snapshot.h"
#include "topo/topo_int.h" /* a topology built or read whole */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HWLOC "hwloc/tests/hwloc/linux/"

enum { F_PU = 1, F_PACKAGE = 2, F_NUMA = 4, F_L3 = 8, F_DIE = 16 };

static const struct row {
	const char *name;
	unsigned skip; /* fields not compared */
	const char *why;
} rows[] = {
	{ "128arm-2pa2n8cluster4co", 0, NULL },
	{ "128ia64-17n4s2c", 0, NULL },
	{ "16amd64-8n2c", 0, NULL },
	{ "16em64t-4s2c2t", 0, NULL },
	{ "16em64t-4s2c2t-offlines", 0, NULL },
	{ "20em64t-hybrid-1p6c2t+2ca4co1t", 0, NULL },
	{ "256ia64-64n2s2c", 0, NULL },
	{ "256ppc-8n8s4t", 0, NULL }, /* physical_package_id -1: packages from siblings */
	{ "2arm-2c", 0, NULL },
	{ "2pa-pcidomain32bits", 0, NULL },
	{ "2ps3-2t", 0, NULL },
	{ "32intel64-2p8co2t+8ve", 0, NULL },
	{ "64amd64-4s2n4ca2co", 0, NULL },
	{ "64fake-4n2s2ca2c2t", 0, NULL }, /* stale shared_cpu_list: the map wins */
	{ "8em64t-2s2ca2c", 0, NULL },
	{ "8ia64-2n2s2c", 0, NULL },
	{ "fakecpuid1f-64intel64-2p4d2n2c2t", 0, NULL },
	{ "fakeheteromemtiers", 0, NULL },
	{ "memorysidecaches", 0, NULL },
	{ "offline-cpu0-node0", 0, NULL },
	{ "8em64t-2s2ca2c-buggynuma", F_NUMA,
	  "8 nodes each list every CPU; hwloc merges them into one, we keep 8 and "
	  "set numa_overlap" },
	{ "16ia64-8n2s", F_PACKAGE,
	  "core_siblings (one CPU each) contradict physical_package_id; hwloc "
	  "follows core_siblings" },
	{ "8ia64-2s2c2t", F_L3,
	  "index3/shared_cpu_map is all zero; we give each CPU its own L3, hwloc "
	  "attaches it per core" },
	{ "40intel64-4n10c+pci-conflicts", F_PACKAGE | F_L3,
	  "deliberately conflicting package/cache data that hwloc repairs" },
};

/* Parse "depth N:   COUNT TYPE (type #K)" and "Special depth -3: COUNT
 * NUMANode" lines; -1 when TYPE is absent. */
static int console_count(const char *text, const char *type)
{
	const char *p = text;
	char pat[64];
	snprintf(pat, sizeof(pat), " %s (type #", type);
	while ((p = strstr(p, pat)) != NULL) {
		const char *q = p;
		while (q > text && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q > text && q < p && (q[-1] == ' ' || q[-1] == ':'))
			return atoi(q);
		p += strlen(pat);
	}
	return -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void check_row(const struct row *r)
{
	char rel[256], path[512];
	struct snap s;
	struct pms_topo *t = NULL;
	char *con;
	int want, nl3 = 0, ndies = 0, online = 0;

	snprintf(rel, sizeof(rel), HWLOC "%s.tar.bz2", r->name);
	if (snap_open(&s, rel, r->name) < 0) {
		CHECK_MSG(false, "%s: cannot unpack", r->name);
		return;
	}
	snprintf(path, sizeof(path), "%s/" HWLOC "%s.console", pms_t_shared_data(), r->name);
	con = slurp(path);
	CHECK_MSG(con != NULL, "%s: cannot read %s", r->name, path);
	CHECK_MSG(pms_topo_load(s.sys, &t) >= 0, "%s: %s", r->name, pms_error_last());
	if (!con || !t)
		goto out;
	for (size_t i = 0; i < t->ncaches; i++)
		if (t->caches[i].level == 3 && t->caches[i].type != PMS_CACHE_INSTRUCTION)
			nl3++;
	for (size_t i = 0; i < t->npackages; i++)
		ndies += t->packages[i].ndies;
	for (size_t i = 0; i < t->ncpus; i++)
		online += t->cpus[i].online;
#define CMP(flag, type, ours)                                                              \
	do {                                                                               \
		want = console_count(con, type);                                           \
		if (!(r->skip & (flag)) && want >= 0)                                      \
			CHECK_MSG(want == (int)(ours), "%s: %s: console %d, ours %d", r->name,  \
				  type, want, (int)(ours));                                \
	} while (0)
	CMP(F_PU, "PU", online);
	CMP(F_PACKAGE, "Package", t->npackages);
	CMP(F_NUMA, "NUMANode", t->numa_synthetic ? 1 : t->nnodes);
	CMP(F_L3, "L3Cache", nl3);
	CMP(F_DIE, "Die", ndies);
#undef CMP
	if (!strcmp(r->name, "8em64t-2s2ca2c-buggynuma"))
		CHECK(t->numa_overlap);
	else
		CHECK_MSG(!t->numa_overlap, "%s", r->name);
out:
	free(con);
	pms_topo_free(t);
	snap_close(&s);
}

PMS_TEST(hwloc_console_counts)
{
	const char *data = pms_t_shared_data();
	char probe[512];
	if (!data)
		PMS_SKIP("../shared/data not available: the hwloc snapshots are needed");
	snprintf(probe, sizeof(probe), "%s/" HWLOC "memorysidecaches.console", data);
	if (access(probe, R_OK) != 0)
		PMS_SKIP("%s missing", probe);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(&rows[i]);
}

PMS_TEST(console_parser)
{
	const char *c = " depth 1:          2 Package (type #1)\n"
			"  depth 2:        16 L3Cache (type #7)\n"
			"Special depth -3:  4 NUMANode (type #14)\n";
	CHECK_EQ_INT(console_count(c, "Package"), 2);
	CHECK_EQ_INT(console_count(c, "L3Cache"), 16);
	CHECK_EQ_INT(console_count(c, "NUMANode"), 4);
	CHECK_EQ_INT(console_count(c, "Die"), -1);
}

PMS_TEST_MAIN()
