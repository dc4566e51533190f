/* Differential test: `pmuscope c2c --json` against `perf c2c report --stdio`
 * (perf 6.12) on perf.data files written here with the library's writer
 * (c2c_gen.h: HITM, peer, remote-hit, DRAM, store, locked, blocked and
 * unparsable data sources over a few cache lines, several threads, two
 * nodes; even seeds with perf c2c record's two named events), randomized
 * over seeds and over perf's displays (tot, peer) and --double-cl.  Every global count of "Trace Event Information" and
 * "Global Shared Cache Line Event Information" must be equal, the listed
 * shared lines the same, and per line the node, PA count, HITM/peer, load,
 * store and per-level counts equal; with perf's default display also every
 * row of its Pareto table (per line, the (offset, code address) entries
 * with stores or HITM): mean remote-HITM, local-HITM and load cycles,
 * records, CPU count and CPU nodes.  perf's decoder is the oracle; it was
 * written independently of pmuscope's (src/report/c2c.c). */
#include <jansson.h>
#include <stdlib.h>

#include "../perfdata/perf_tool.h"
#include "c2c_gen.h"

static char dir[256];

/* "  Label   : value" lines of perf's two information blocks. */
struct kv {
	char key[64];
	double val;
};

static size_t perf_info(const char *out, struct kv *kv, size_t max, const char *block)
{
	const char *p = strstr(out, block);
	size_t n = 0;
	if (!p)
		return 0;
	p = strchr(p, '\n');
	/* skip the "====" line after the title */
	p = p ? strchr(p + 1, '\n') : NULL;
	while (p && n < max) {
		p++;
		const char *e = strchr(p, '\n');
		if (!e || e == p)
			break;
		const char *colon = memchr(p, ':', (size_t)(e - p));
		if (!colon)
			break;
		size_t kl = (size_t)(colon - p);
		while (kl && p[kl - 1] == ' ')
			kl--;
		const char *k0 = p;
		while (*k0 == ' ')
			k0++, kl--;
		if (kl >= sizeof(kv[n].key))
			kl = sizeof(kv[n].key) - 1;
		memcpy(kv[n].key, k0, kl);
		kv[n].key[kl] = 0;
		kv[n].val = strtod(colon + 1, NULL);
		n++;
		p = e;
	}
	return n;
}

static double kv_get(const struct kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
	CHECK_MSG(0, "perf printed no \"%s\"", key);
	return -1;
}

static uint64_t js(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	CHECK_MSG(json_is_integer(v), "no integer \"%s\" in pmuscope's JSON", k);
	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : UINT64_MAX;
}

/* perf's node set text: "1", "0-1", "0,2" -> bit mask */
static uint64_t node_mask(const char *s)
{
	uint64_t m = 0;
	while (*s) {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (e == s)
			break;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (long i = a; i <= b && i < 64; i++)
			m |= 1ULL << i;
		s = *e == ',' ? e + 1 : e;
	}
	return m;
}

struct perf_line {
	uint64_t addr;
	char node[32];
	uint64_t v[19]; /* pa_cnt, then the 18 count columns after the percentage */
};

/* The rows of the "Shared Data Cache Line Table". */
static size_t perf_lines(const char *out, struct perf_line *pl, size_t max)
{
	const char *p = strstr(out, "Shared Data Cache Line Table");
	size_t n = 0;
	if (!p)
		return 0;
	/* rows follow the "#\n" that ends the header (after "# Index") */
	p = strstr(p, "# Index");
	p = p ? strstr(p, "\n#\n") : NULL;
	if (!p)
		return 0;
	p += 3;
	while (*p && *p != '\n' && n < max) {
		const char *e = strchr(p, '\n');
		char row[1024];
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len >= sizeof(row))
			len = sizeof(row) - 1;
		memcpy(row, p, len);
		row[len] = 0;
		char *tok[40], *save = NULL;
		int nt = 0;
		for (char *t = strtok_r(row, " ", &save); t && nt < 40; t = strtok_r(NULL, " ", &save))
			tok[nt++] = t;
		/* index address node pa_cnt pct total a b recs loads stores
		 * L1Hit L1Miss N/A FB L1 L2 LclHit LclHitm RmtHit RmtHitm Lcl Rmt */
		CHECK_MSG(nt == 23, "perf line row has %d fields: %s", nt, p);
		if (nt == 23) {
			pl[n].addr = strtoull(tok[1], NULL, 16);
			snprintf(pl[n].node, sizeof(pl[n].node), "%s", tok[2]);
			pl[n].v[0] = strtoull(tok[3], NULL, 10);
			for (int i = 5; i < 23; i++)
				pl[n].v[i - 4] = strtoull(tok[i], NULL, 10);
			n++;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return n;
}

/* One row of perf's "Shared Cache Line Distribution Pareto": an (offset,
 * code address) entry of a line. */
struct perf_off {
	uint64_t line, offset, ip;
	char rmt[16], lcl[16], load[16]; /* mean cycles as perf prints them */
	uint64_t records, cpus;
	uint64_t nodes; /* CPU nodes, bit mask */
};

static size_t perf_pareto(const char *out, struct perf_off *po, size_t max)
{
	const char *p = strstr(out, "Shared Cache Line Distribution Pareto");
	uint64_t line = 0;
	size_t n = 0;
	int dashes = 0;
	if (!p)
		return 0;
	p = strstr(p, "\n#\n");
	p = p ? strstr(p + 3, "\n#\n") : NULL; /* the second "#" line ends the header */
	while (p && *p && n < max) {
		const char *e = strchr(p, '\n');
		char row[1024];
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len >= sizeof(row))
			len = sizeof(row) - 1;
		memcpy(row, p, len);
		row[len] = 0;
		p = e ? e + 1 : p + len;
		char *tok[48], *save = NULL;
		int nt = 0;
		for (char *t = strtok_r(row, " ", &save); t && nt < 48; t = strtok_r(NULL, " ", &save))
			tok[nt++] = t;
		if (!nt || tok[0][0] == '#')
			continue;
		if (!strncmp(tok[0], "-----", 5)) {
			dashes++;
			continue;
		}
		if (dashes % 2 == 1) { /* the line's own row: its address is last */
			line = strtoull(tok[nt - 1], NULL, 16);
			continue;
		}
		/* 5 percentages, offset, node, PA cnt, code address, 3 cycles,
		 * records, cpu cnt, [.], symbol, object, source, CPU nodes */
		CHECK_MSG(nt >= 19, "perf pareto row has %d fields", nt);
		if (nt < 19)
			continue;
		po[n].line = line;
		po[n].offset = strtoull(tok[5], NULL, 16);
		po[n].ip = strtoull(tok[8], NULL, 16);
		snprintf(po[n].rmt, sizeof(po[n].rmt), "%s", tok[9]);
		snprintf(po[n].lcl, sizeof(po[n].lcl), "%s", tok[10]);
		snprintf(po[n].load, sizeof(po[n].load), "%s", tok[11]);
		po[n].records = strtoull(tok[12], NULL, 10);
		po[n].cpus = strtoull(tok[13], NULL, 10);
		po[n].nodes = 0;
		for (int k = 18; k < nt; k++)
			po[n].nodes |= 1ULL << (strtoul(tok[k], NULL, 10) & 63);
		n++;
	}
	return n;
}

/* perf's "%.0f" of a latency mean, "0" without samples */
static void mean_text(json_t *lat, char *buf, size_t n)
{
	json_t *m = json_object_get(lat, "mean");
	snprintf(buf, n, "%.0f", json_is_number(m) ? json_number_value(m) : 0.0);
}

/* Every Pareto row against the listed line's access with that offset and
 * IP; perf lists the accesses with stores or HITM (is_valid_hist_entry). */
static void pareto(uint64_t seed, const char *pout, json_t *lines)
{
	static struct perf_off po[4096];
	size_t n = perf_pareto(pout, po, 4096), want = 0;
	for (size_t k = 0; k < json_array_size(lines); k++) {
		json_t *offs = json_object_get(json_array_get(lines, k), "offsets");
		for (size_t i = 0; i < json_array_size(offs); i++) {
			json_t *st = json_object_get(json_array_get(offs, i), "stats");
			want += js(st, "store") || js(st, "tot_hitm");
		}
	}
	CHECK_MSG(n > 0, "seed %llu: no Pareto rows parsed", (unsigned long long)seed);
	CHECK_MSG(n == want, "seed %llu: perf's pareto has %zu rows, pmuscope %zu accesses with stores or HITM",
		  (unsigned long long)seed, n, want);
	for (size_t r = 0; r < n; r++) {
		json_t *a = NULL;
		for (size_t k = 0; k < json_array_size(lines) && !a; k++) {
			json_t *l = json_array_get(lines, k);
			if (strtoull(json_string_value(json_object_get(l, "address")), NULL, 16) != po[r].line)
				continue;
			json_t *offs = json_object_get(l, "offsets");
			for (size_t i = 0; i < json_array_size(offs); i++) {
				json_t *x = json_array_get(offs, i);
				if (js(x, "offset") == po[r].offset &&
				    strtoull(json_string_value(json_object_get(x, "ip")), NULL, 16) == po[r].ip)
					a = x;
			}
		}
		CHECK_MSG(a != NULL, "seed %llu: perf's %#llx +%#llx ip %#llx not in pmuscope's",
			  (unsigned long long)seed, (unsigned long long)po[r].line,
			  (unsigned long long)po[r].offset, (unsigned long long)po[r].ip);
		if (!a)
			continue;
		json_t *lat = json_object_get(a, "latency");
		char rmt[32], lcl[32], load[32];
		mean_text(json_object_get(lat, "rmt_hitm"), rmt, sizeof(rmt));
		mean_text(json_object_get(lat, "lcl_hitm"), lcl, sizeof(lcl));
		mean_text(json_object_get(lat, "load"), load, sizeof(load));
		uint64_t nodes = 0;
		json_t *cn = json_object_get(a, "cpu_nodes");
		for (size_t k = 0; k < json_array_size(cn); k++)
			nodes |= 1ULL << json_integer_value(json_array_get(cn, k));
		CHECK_MSG(!strcmp(rmt, po[r].rmt) && !strcmp(lcl, po[r].lcl) && !strcmp(load, po[r].load) &&
			  js(json_object_get(a, "stats"), "tot_recs") == po[r].records &&
			  json_array_size(json_object_get(a, "cpus")) == po[r].cpus && nodes == po[r].nodes,
			  "seed %llu %#llx +%#llx ip %#llx: perf cycles %s/%s/%s records %llu cpus %llu "
			  "nodes %#llx; pmuscope %s/%s/%s %llu %zu %#llx",
			  (unsigned long long)seed, (unsigned long long)po[r].line,
			  (unsigned long long)po[r].offset, (unsigned long long)po[r].ip, po[r].rmt,
			  po[r].lcl, po[r].load, (unsigned long long)po[r].records,
			  (unsigned long long)po[r].cpus, (unsigned long long)po[r].nodes, rmt, lcl, load,
			  (unsigned long long)js(json_object_get(a, "stats"), "tot_recs"),
			  json_array_size(json_object_get(a, "cpus")), (unsigned long long)nodes);
	}
}

static char *slurp(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	if (!f || !buf) {
		free(buf);
		if (f)
			pclose(f);
		return NULL;
	}
	while (n + 1 < cap) {
		size_t k = fread(buf + n, 1, cap - 1 - n, f);
		if (!k)
			break;
		n += k;
	}
	buf[n] = 0;
	int st = pclose(f);
	CHECK_MSG(pt_status(st) == 0, "%s: exit %d", cmd, pt_status(st));
	return buf;
}

static void one(uint64_t seed)
{
	char path[512], cmd[1024];
	unsigned nsamples = 0;
	/* seed % 3: 0 perf's default display (tot), 1 --double-cl, 2 peer */
	const char *popt = seed % 3 == 1 ? "--double-cl" : seed % 3 == 2 ? "-d peer" : "";
	const char *qopt = seed % 3 == 1 ? "--double-cl --display tot" : seed % 3 == 2 ? "--display peer" : "";
	snprintf(path, sizeof(path), "%s/c2c-%llu.data", dir, (unsigned long long)seed);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_OK(c2g_file(fd, seed, &nsamples));
	close(fd);

	snprintf(cmd, sizeof(cmd), "perf c2c report --stdio %s -i %s 2>/dev/null </dev/null", popt, path);
	char *pout = slurp(cmd);
	snprintf(cmd, sizeof(cmd), "%s c2c --json --no-symbols %s -i %s", pms_t_cli(), qopt, path);
	char *qout = slurp(cmd);
	if (!pout || !qout) {
		CHECK(0);
		goto out;
	}
	json_error_t err;
	json_t *root = json_loads(qout, 0, &err);
	CHECK_MSG(root != NULL, "pmuscope c2c JSON: %s", err.text);
	if (!root)
		goto out;
	json_t *t = json_object_get(root, "totals"), *sh = json_object_get(root, "shared");
	CHECK_EQ_INT(js(root, "samples"), nsamples);

	struct kv g[64], s[32];
	size_t ng = perf_info(pout, g, 64, "Trace Event Information");
	size_t ns = perf_info(pout, s, 32, "Global Shared Cache Line Event Information");
	CHECK_MSG(ng >= 30 && ns >= 13, "seed %llu: perf printed %zu + %zu information lines",
		  (unsigned long long)seed, ng, ns);
	static const struct {
		const char *label, *a, *b; /* value = a (+ b) */
	} gl[] = {
		{ "Total records", "nr_entries", NULL },
		{ "Locked Load/Store Operations", "locks", NULL },
		{ "Load Operations", "load", NULL },
		{ "Loads - uncacheable", "ld_uncache", NULL },
		{ "Loads - IO", "ld_io", NULL },
		{ "Loads - Miss", "ld_miss", NULL },
		{ "Loads - no mapping", "ld_noadrs", NULL },
		{ "Load Fill Buffer Hit", "ld_fbhit", NULL },
		{ "Load L1D hit", "ld_l1hit", NULL },
		{ "Load L2D hit", "ld_l2hit", NULL },
		{ "Load LLC hit", "ld_llchit", "lcl_hitm" },
		{ "Load Local HITM", "lcl_hitm", NULL },
		{ "Load Remote HITM", "rmt_hitm", NULL },
		{ "Load Remote HIT", "rmt_hit", NULL },
		{ "Load Local DRAM", "lcl_dram", NULL },
		{ "Load Remote DRAM", "rmt_dram", NULL },
		{ "Load MESI State Exclusive", "ld_excl", NULL },
		{ "Load MESI State Shared", "ld_shared", NULL },
		{ "Load LLC Misses", "llc_misses", NULL },
		{ "Load access blocked by data", "blk_data", NULL },
		{ "Load access blocked by address", "blk_addr", NULL },
		{ "Load HIT Local Peer", "lcl_peer", NULL },
		{ "Load HIT Remote Peer", "rmt_peer", NULL },
		{ "Store Operations", "store", NULL },
		{ "Store - uncacheable", "st_uncache", NULL },
		{ "Store - no mapping", "st_noadrs", NULL },
		{ "Store L1D Hit", "st_l1hit", NULL },
		{ "Store L1D Miss", "st_l1miss", NULL },
		{ "Store No available memory level", "st_na", NULL },
		{ "No Page Map Rejects", "nomap", NULL },
		{ "Unable to parse data source", "noparse", NULL },
	};
	for (size_t i = 0; i < sizeof(gl) / sizeof(gl[0]); i++) {
		uint64_t want = (uint64_t)kv_get(g, ng, gl[i].label);
		uint64_t got = js(t, gl[i].a) + (gl[i].b ? js(t, gl[i].b) : 0);
		CHECK_MSG(want == got, "seed %llu: %s: perf %llu, pmuscope %llu",
			  (unsigned long long)seed, gl[i].label, (unsigned long long)want,
			  (unsigned long long)got);
	}
	static const struct {
		const char *label, *a, *b, *c;
	} sl[] = {
		{ "Load HITs on shared lines", "load", NULL, NULL },
		{ "Fill Buffer Hits on shared lines", "ld_fbhit", NULL, NULL },
		{ "L1D hits on shared lines", "ld_l1hit", NULL, NULL },
		{ "L2D hits on shared lines", "ld_l2hit", NULL, NULL },
		{ "LLC hits on shared lines", "ld_llchit", "lcl_hitm", NULL },
		{ "Load hits on peer cache or nodes", "lcl_peer", "rmt_peer", NULL },
		{ "Locked Access on shared lines", "locks", NULL, NULL },
		{ "Blocked Access on shared lines", "blk_data", "blk_addr", NULL },
		{ "Store HITs on shared lines", "store", NULL, NULL },
		{ "Store L1D hits on shared lines", "st_l1hit", NULL, NULL },
		{ "Store No available memory level", "st_na", NULL, NULL },
		{ "Total Merged records", "lcl_hitm", "rmt_hitm", "store" },
	};
	CHECK_EQ_INT(js(root, "shared_lines"), (uint64_t)kv_get(s, ns, "Total Shared Cache Lines"));
	for (size_t i = 0; i < sizeof(sl) / sizeof(sl[0]); i++) {
		uint64_t want = (uint64_t)kv_get(s, ns, sl[i].label);
		uint64_t got = js(sh, sl[i].a) + (sl[i].b ? js(sh, sl[i].b) : 0) +
			       (sl[i].c ? js(sh, sl[i].c) : 0);
		CHECK_MSG(want == got, "seed %llu: %s: perf %llu, pmuscope %llu",
			  (unsigned long long)seed, sl[i].label, (unsigned long long)want,
			  (unsigned long long)got);
	}

	/* the listed lines, by address */
	struct perf_line pl[64];
	size_t np = perf_lines(pout, pl, 64);
	json_t *lines = json_object_get(root, "lines");
	CHECK_MSG(np == json_array_size(lines), "seed %llu: perf lists %zu lines, pmuscope %zu",
		  (unsigned long long)seed, np, json_array_size(lines));
	CHECK(np > 0);
	bool peer = seed % 3 == 2;
	for (size_t i = 0; i < np; i++) {
		json_t *l = NULL;
		for (size_t k = 0; k < json_array_size(lines); k++) {
			json_t *x = json_array_get(lines, k);
			if (strtoull(json_string_value(json_object_get(x, "address")), NULL, 16) == pl[i].addr)
				l = x;
		}
		CHECK_MSG(l != NULL, "seed %llu: perf's line %#llx not listed by pmuscope",
			  (unsigned long long)seed, (unsigned long long)pl[i].addr);
		if (!l)
			continue;
		json_t *st = json_object_get(l, "stats");
		uint64_t mask = 0;
		json_t *mn = json_object_get(l, "mem_nodes");
		for (size_t k = 0; k < json_array_size(mn); k++)
			mask |= 1ULL << json_integer_value(json_array_get(mn, k));
		CHECK_MSG(mask == node_mask(pl[i].node), "seed %llu line %#llx: node %s vs mask %#llx",
			  (unsigned long long)seed, (unsigned long long)pl[i].addr, pl[i].node,
			  (unsigned long long)mask);
		uint64_t got[19] = {
			js(l, "pa_changes"),
			peer ? js(st, "tot_peer") : js(st, "tot_hitm"),
			peer ? js(st, "lcl_peer") : js(st, "lcl_hitm"),
			peer ? js(st, "rmt_peer") : js(st, "rmt_hitm"),
			js(st, "tot_recs"), js(st, "tot_loads"), js(st, "store"),
			js(st, "st_l1hit"), js(st, "st_l1miss"), js(st, "st_na"),
			js(st, "ld_fbhit"), js(st, "ld_l1hit"), js(st, "ld_l2hit"),
			js(st, "ld_llchit"), js(st, "lcl_hitm"), js(st, "rmt_hit"), js(st, "rmt_hitm"),
			js(st, "lcl_dram"), js(st, "rmt_dram"),
		};
		static const char *const col[19] = {
			"PA cnt", "Total", "Lcl", "Rmt", "records", "loads", "stores", "St L1Hit",
			"St L1Miss", "St N/A", "FB", "L1", "L2", "LclHit", "LclHitm", "RmtHit",
			"RmtHitm", "Dram Lcl", "Dram Rmt",
		};
		for (int k = 0; k < 19; k++)
			CHECK_MSG(got[k] == pl[i].v[k], "seed %llu line %#llx %s: perf %llu, pmuscope %llu",
				  (unsigned long long)seed, (unsigned long long)pl[i].addr, col[k],
				  (unsigned long long)pl[i].v[k], (unsigned long long)got[k]);
	}
	/* the per-offset entries (perf's default display only: its Pareto
	 * columns are the HITM ones) */
	if (seed % 3 == 0)
		pareto(seed, pout, lines);
	json_decref(root);
out:
	free(pout);
	free(qout);
	unlink(path);
}

PMS_TEST(c2c_counts_equal_perfs_over_seeds)
{
	char ver[128];
	if (!pms_t_cli())
		PMS_SKIP("PMS_CLI (the built pmuscope) is not set: run through meson test");
	if (!pt_mkdtemp(dir, sizeof(dir)))
		return;
	pt_perf_env(dir);
	if (!pt_perf_version(ver, sizeof(ver))) {
		pt_rmdir(dir);
		PMS_SKIP(PT_SKIP_MSG);
	}
	const char *n = getenv("PMS_C2C_SEEDS");
	uint64_t seeds = n ? strtoull(n, NULL, 10) : 12;
	for (uint64_t s = 1; s <= seeds; s++)
		one(s);
	pt_rmdir(dir);
}

PMS_TEST_MAIN()
