/* AMD IBS fetch sampling as an engine (issue 31 row 2), on the fake kernel
 * with the driver's rules (tests/support/fake_rules_ibs.c fkr_ibs_fetch and
 * fkr_ibs_fetch_nmi, from arch/x86/events/amd/ibs.c perf_ibs_init and
 * perf_ibs_handle_irq; torvalds/linux@003c0414, the same in v6.12.95):
 *   fetch_record_view_and_perf  `ibs_fetch//` opened (RAW asked for), random
 *       fetch registers through the fake NMI (Val clear dropped there), the
 *       ring recorded to a perf.data file; the front-end view of the file
 *       counts what the registers say under the valid-bit rules (computed
 *       here from the registers), per function and per line through the
 *       file's MMAP2 records; and `perf report -D` (perf 6.12's
 *       amd-sample-raw.c) on that file prints, sample by sample, the values
 *       pms_ibs_fetch_decode gives and a field exactly when it says the
 *       field is valid;
 *   fetch_user_only_through_swfilt  `ibs_fetch//u`: EINVAL without swfilt
 *       (no BIT63 filtering), retried with swfilt; the NMI drops kernel
 *       fetches (perf_exclude_event), the user ones are recorded;
 *   fetch_acceptance  the config mask (l3missonly on Zen 4 only), period
 *       with raw MaxCnt, exclude_guest. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "../perfdata/perf_tool.h"
#include "../sample/sample_helpers.h"
#include "fake_kernel.h"

#include "pmuscope/error.h"
#include "pmuscope/fetchview.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/recorder.h"
#include "pmuscope/sampler.h"
#include "pmuscope/symbols.h"
#include "pmuscope/topo.h"

#define FETCH_TYPE 9 /* the zen4-ibs fixture's ibs_fetch */
#define OP_TYPE 10
#define CAPS (0x7ffu | FKR_IBS_CAPS_ZEN4 | FKR_IBS_CAPS_FETCHCTLEXTD)
#define NGEN 600
#define PID 777
#define KBASE 0xffffffff81000000ULL

/* Two functions of this binary the fetches are "in" */
__attribute__((noinline)) int pms_t_fetch_hot(int x);
__attribute__((noinline)) int pms_t_fetch_cold(int x);
__attribute__((noinline)) int pms_t_fetch_hot(int x)
{
	return x * 3 + 1;
}
__attribute__((noinline)) int pms_t_fetch_cold(int x)
{
	return x * 5 + 2;
}

static uint64_t rng = 0x1b5f0e7c3a9d2468ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct run {
	struct th_root r;
	struct pms_topo *topo;
	struct pms_sampler *s;
	struct pms_memsrc *src;
	struct pms_recorder *rec;
	int fd;
	char path[600];
	int ev_fd;
};

static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	CHECK_OK(pms_recorder_sample(((struct run *)ud)->rec, x));
	return 0;
}
static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	CHECK_OK(pms_recorder_sideband(((struct run *)ud)->rec, r, attr_idx));
	return 0;
}
static const struct pms_memsrc_callbacks cbs = { on_sample, on_side, NULL };

static int put_rec(struct fk *fk, int fd, struct pms_record *r)
{
	struct pms_sample_layout l;
	unsigned char buf[1024];
	size_t len = 0;
	pms_sample_layout_from_attr(&l, &fk_fd(fk, fd)->attr);
	CHECK_OK(pms_record_encode(&l, r, buf, sizeof(buf), &len));
	return fk_ring_put(fk, fd, buf, len);
}

/* The fake machine (Zen 4 Genoa, family 0x19 model 0x11), the sampler on
 * event, the live source and the recorder on path. */
static int run_open(struct run *u, const char *event, const char *path)
{
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	memset(u, 0, sizeof(*u));
	u->fd = -1;
	if (th_root_open(&u->r, "zen4-ibs", "0", -1, true) < 0)
		return -1;
	u->r.m.ibs_fetch_type = FETCH_TYPE;
	u->r.m.ibs_op_type = OP_TYPE;
	u->r.m.ibs_caps = CAPS;
	u->r.m.amd_family = 0x19;
	u->r.m.amd_model = 0x11;
	/* one CPU for the topology (HEADER_CPUID comes from it) */
	char cpu0[300];
	snprintf(cpu0, sizeof(cpu0), "%s/sys/devices/system/cpu/cpu0", u->r.dir);
	mkdir(cpu0, 0755);
	CHECK_OK(pms_topo_load(u->r.sys, &u->topo));
	o.target = PMS_TARGET_CPUS;
	o.event = event;
	o.period = 0x10000;
	o.no_fallback = true;
	CHECK_OK(pms_sampler_open(u->r.sys, u->r.pmus, u->topo, &o, &u->s));
	if (!u->s)
		return -1;
	u->ev_fd = th_fd_of_type(u->r.fk, FETCH_TYPE, 0);
	CHECK(u->ev_fd >= 0);
	CHECK_OK(pms_memsrc_open_live(u->s, u->topo, &u->src));
	snprintf(u->path, sizeof(u->path), "%s", path);
	u->fd = open(u->path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(u->fd >= 0);
	if (u->ev_fd < 0 || !u->src || u->fd < 0)
		return -1;
	CHECK_OK(pms_recorder_open(u->fd, u->src, NULL, &u->rec));
	return u->rec ? 0 : -1;
}

static void run_close(struct run *u)
{
	pms_recorder_free(u->rec);
	if (u->fd >= 0)
		close(u->fd);
	pms_memsrc_free(u->src);
	pms_sampler_free(u->s);
	pms_topo_free(u->topo);
	th_root_close(&u->r);
}

/* MMAP2 records for this process's executable mappings, as the kernel
 * writes them for the target (the view names IPs through them). */
static void put_maps(struct run *u)
{
	struct pms_sys *real = NULL;
	struct pms_maps *m = NULL;
	CHECK_OK(pms_sys_new(&real, NULL));
	CHECK_OK(pms_maps_new(&m));
	if (real && m && pms_maps_read_proc(m, real, getpid()) == 0)
		for (size_t i = 0; i < m->n; i++) {
			struct pms_record r;
			if (m->v[i].kind != PMS_MAP_FILE)
				continue; /* mmap_data: file mappings of every kind */
			memset(&r, 0, sizeof(r));
			r.type = PMS_RECORD_MMAP2;
			r.misc = PMS_MISC_USER;
			r.mmap.pid = r.mmap.tid = PID;
			r.mmap.addr = m->v[i].start;
			r.mmap.len = m->v[i].end - m->v[i].start;
			r.mmap.pgoff = m->v[i].pgoff;
			r.mmap.ino = m->v[i].ino;
			r.mmap.prot = m->v[i].exec ? 5 : 1;
			r.mmap.filename = m->v[i].path;
			r.sample_id.pid = r.sample_id.tid = PID;
			r.sample_id.time = 10;
			CHECK_EQ_INT(put_rec(u->r.fk, u->ev_fd, &r), 0);
		}
	pms_maps_free(m);
	pms_sys_free(real);
}

/* Random fetch registers: IbsFetchCtl with every field on and off, Val
 * clear now and then; the fetch in one of the two functions or the kernel. */
static void gen(uint64_t regs[4], int *where)
{
	uint64_t c = 0x1000; /* MaxCnt */
	int w = (int)(rnd() % 8);
	*where = w < 5 ? 0 : w < 7 ? 1 : 2;
	c |= (rnd() & 0xffffULL) << 16;           /* Cnt */
	c |= (uint64_t)(1 + rnd() % 900) << 32;   /* Lat */
	c |= 1ULL << 48;                          /* En */
	if (rnd() % 30)
		c |= 1ULL << 49;                  /* Val */
	c |= (rnd() & 0x1fffULL) << 50;           /* Comp .. L3Miss (50-62) */
	c &= ~(1ULL << 57);                       /* RandEn: not asked */
	regs[0] = c;
	regs[1] = *where == 0   ? (uint64_t)(uintptr_t)&pms_t_fetch_hot + (rnd() % 4)
		  : *where == 1 ? (uint64_t)(uintptr_t)&pms_t_fetch_cold + (rnd() % 4)
				: KBASE + (rnd() % 0x10000);
	regs[2] = (c & (1ULL << 52)) ? 0x100000000ULL + (rnd() % 0x1000000) : 0;
	regs[3] = rnd() & 0xffff;                 /* IcIbsExtdCtl: ITLB refill latency */
}

/* The expected view total from the registers, under the rules the
 * header states (written here from them, not through the library). */
static void expect(struct pms_ibs_fetch_row *t, const uint64_t r[4])
{
	uint64_t c = r[0];
	bool comp = c >> 50 & 1, l1m = c >> 55 & 1, l2m = c >> 56 & 1;
	unsigned pg = (unsigned)(c >> 53 & 3);
	t->samples++;
	if (comp) {
		t->completed++;
		t->lat_sum += c >> 32 & 0xffff;
		t->l2_known++;
		t->l2_miss += c >> 58 & 1;
	}
	t->ic_known++; /* family 0x19 model 0x11: no erratum 1347 */
	t->ic_miss += c >> 51 & 1;
	t->itlb[!l1m ? 0 : !l2m ? 1 : 2]++;
	if (c >> 52 & 1) {
		t->pgsz_known++;
		t->pgsz_4k += pg == 0;
		t->pgsz_2m += pg == 1;
		t->pgsz_1g += pg == 2;
	}
	t->l3_known++;
	t->oc_miss += c >> 60 & 1;
	t->l3_miss += c >> 61 & 1;
	if (l1m) {
		t->itlb_lat_n++;
		t->itlb_lat_sum += r[3] & 0xffff;
	}
}

static void same_row(const struct pms_ibs_fetch_row *a, const struct pms_ibs_fetch_row *b)
{
	CHECK_EQ_U64(a->samples, b->samples);
	CHECK_EQ_U64(a->completed, b->completed);
	CHECK_EQ_U64(a->lat_sum, b->lat_sum);
	CHECK_EQ_U64(a->ic_known, b->ic_known);
	CHECK_EQ_U64(a->ic_miss, b->ic_miss);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_U64(a->itlb[i], b->itlb[i]);
	CHECK_EQ_U64(a->pgsz_known, b->pgsz_known);
	CHECK_EQ_U64(a->pgsz_4k, b->pgsz_4k);
	CHECK_EQ_U64(a->pgsz_2m, b->pgsz_2m);
	CHECK_EQ_U64(a->pgsz_1g, b->pgsz_1g);
	CHECK_EQ_U64(a->l2_known, b->l2_known);
	CHECK_EQ_U64(a->l2_miss, b->l2_miss);
	CHECK_EQ_U64(a->l3_known, b->l3_known);
	CHECK_EQ_U64(a->l3_miss, b->l3_miss);
	CHECK_EQ_U64(a->oc_miss, b->oc_miss);
	CHECK_EQ_U64(a->itlb_lat_n, b->itlb_lat_n);
	CHECK_EQ_U64(a->itlb_lat_sum, b->itlb_lat_sum);
}

/* ---- perf report -D ------------------------------------------------------------- */

struct pfetch {
	bool have;
	char kv[40][2][24];
	int n;
	uint64_t lin;
};

static const char *pget(const struct pfetch *p, const char *key)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->kv[i][0], key))
			return p->kv[i][1];
	return NULL;
}

/* "ibs_fetch_ctl:\t0x...  MaxCnt 65536 Cnt ... L1TlbPgSz 4KB ..." pairs. */
static void pairs(struct pfetch *p, char *text)
{
	char *tok[96];
	int nt = 0;
	for (char *t = strtok(text, " \t\n"); t && nt < 96; t = strtok(NULL, " \t\n"))
		tok[nt++] = t;
	/* the register's hex value first, then name value pairs */
	for (int i = 1; i + 1 < nt && p->n < 40; i += 2) {
		snprintf(p->kv[p->n][0], 24, "%s", tok[i]);
		snprintf(p->kv[p->n][1], 24, "%s", tok[i + 1]);
		p->n++;
	}
}

/* perf's decode of every sample of the file, in file order. */
static size_t perf_fetches(const char *path, const char *dir, struct pfetch *out, size_t max)
{
	char cmd[1400], line[4096];
	struct pfetch cur;
	size_t n = 0;
	FILE *p;
	memset(&cur, 0, sizeof(cur));
	snprintf(cmd, sizeof(cmd), "perf report -D -i '%s' 2>'%s/perf.err'", path, dir);
	if (!(p = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof(line), p)) {
		char *tab = strchr(line, '\t');
		if (strstr(line, "PERF_RECORD_SAMPLE(")) {
			if (n < max)
				out[n++] = cur;
			memset(&cur, 0, sizeof(cur));
			continue;
		}
		if (!tab)
			continue;
		*tab = 0;
		if (!strcmp(line, "ibs_fetch_ctl:")) {
			cur.have = true;
			pairs(&cur, tab + 1);
		} else if (!strcmp(line, "IbsFetchLinAd:")) {
			cur.lin = strtoull(tab + 1, NULL, 16);
		} else if (!strcmp(line, "ic_ibs_ext_ctl:")) {
			pairs(&cur, tab + 1);
		}
	}
	CHECK_EQ_INT(pt_status(pclose(p)), 0);
	return n;
}

static void check_perf(const struct pfetch *p, const struct pms_ibs_fetch *f, size_t i,
		       unsigned *bad)
{
	const char *v;
	bool ok = p->have && p->lin == f->ip;
#define NUM(key, val) ok &= (v = pget(p, key)) && strtoull(v, NULL, 0) == (uint64_t)(val)
#define PRES(key, cond) ok &= (pget(p, key) != NULL) == (cond)
	NUM("Lat", f->lat);
	NUM("Comp", f->comp);
	PRES("IcMiss", f->ic_miss_known);
	if (f->ic_miss_known)
		NUM("IcMiss", f->ic_miss);
	NUM("L1TlbMiss", f->itlb != PMS_ITLB_L1_HIT);
	if (f->itlb != PMS_ITLB_L1_HIT) /* the L2 bit says something after an L1 miss */
		NUM("L2TlbMiss", f->itlb == PMS_ITLB_MISS);
	PRES("L1TlbPgSz", f->pgsz_known);
	if (f->pgsz_known) {
		char want[16];
		snprintf(want, sizeof(want), "%s",
			 f->pgsz_kib == 4 ? "4KB" : f->pgsz_kib == 2048 ? "2MB"
			 : f->pgsz_kib == 1048576 ? "1GB" : "RESERVED");
		ok &= (v = pget(p, "L1TlbPgSz")) && !strcmp(v, want);
	}
	PRES("L2Miss", f->l2_known);
	if (f->l2_known)
		NUM("L2Miss", f->l2_miss);
	PRES("FetchL3Miss", f->l3_known);
	if (f->l3_known) {
		NUM("FetchL3Miss", f->l3_miss);
		NUM("FetchOcMiss", f->oc_miss);
		NUM("L3MissOnly", f->l3_miss_only);
	}
	PRES("IbsItlbRefillLat", f->itlb_lat_known);
	if (f->itlb_lat_known)
		NUM("IbsItlbRefillLat", f->itlb_refill_lat);
#undef NUM
#undef PRES
	if (!ok && *bad < 2)
		for (int k = 0; k < p->n; k++)
			fprintf(stderr, "  perf %s=%s\n", p->kv[k][0], p->kv[k][1]);
	if (!ok && (*bad)++ < 5)
		CHECK_MSG(0, "sample %zu (ip %#" PRIx64 "): perf's decode differs (perf ip %#" PRIx64
			  ", %d fields)", i, f->ip, p->lin, p->n);
}

PMS_TEST(fetch_record_view_and_perf)
{
	char ver[256], dir[512], path[600];
	struct run u;
	uint64_t regs[NGEN][4];
	bool kept[NGEN];
	struct pms_ibs_fetch_row want = { 0 }, want_fn[2] = { { 0 } };
	struct pms_ibs_fetch_view *v = NULL, *vl = NULL;
	struct pms_sys *real = NULL;
	size_t nkept = 0;
	bool perf = pt_perf_version(ver, sizeof(ver));

	if (!pt_mkdtemp(dir, sizeof(dir))) {
		CHECK_MSG(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	pt_perf_env(dir);
	snprintf(path, sizeof(path), "%s/fetch.data", dir);
	if (run_open(&u, "ibs_fetch//", path) < 0)
		goto out;
	/* what was opened: ibs_fetch, RAW, the period; the plan says it */
	const struct perf_event_attr *a = &fk_fd(u.r.fk, u.ev_fd)->attr;
	CHECK(a->sample_type & PMS_SAMPLE_RAW);
	CHECK_EQ_U64(a->sample_period, 0x10000);
	struct pms_sampler_info info;
	pms_sampler_info(u.s, &info);
	CHECK_MSG(strstr(info.notes, "samples AMD IBS fetches") != NULL, "%s", info.notes);
	put_maps(&u);
	for (size_t i = 0; i < NGEN; i++) {
		int where, rc;
		gen(regs[i], &where);
		rc = fkr_ibs_fetch_nmi(u.r.fk, &u.r.m, u.ev_fd, regs[i], PID, 0, 100 + i);
		CHECK(rc >= 0);
		kept[i] = rc == 1;
		CHECK_EQ_INT(kept[i], (regs[i][0] >> 49 & 1) != 0); /* Val */
		if (!kept[i])
			continue;
		nkept++;
		expect(&want, regs[i]);
		if (where < 2)
			expect(&want_fn[where], regs[i]);
		if (i % 50 == 49)
			CHECK(pms_memsrc_poll(u.src, 0, &cbs, &u) >= 0);
	}
	CHECK(pms_memsrc_poll(u.src, 0, &cbs, &u) >= 0);
	CHECK_OK(pms_recorder_finish(u.rec, u.r.sys, u.topo, u.r.pmus));

	/* the view of the file */
	CHECK_OK(pms_sys_new(&real, NULL));
	CHECK_OK(pms_ibs_fetch_view_file(real, u.fd, false, &v));
	CHECK_OK(pms_ibs_fetch_view_file(real, u.fd, true, &vl));
	if (!v || !vl)
		goto out;
	/* the fake NMI dropped them: never in the file */
	CHECK_EQ_U64(pms_ibs_fetch_view_dropped(v), 0);
	CHECK_EQ_U64(pms_ibs_fetch_view_bad(v), 0);
	CHECK(pms_ibs_fetch_view_cpuid(v) != NULL);
	same_row(pms_ibs_fetch_view_total(v), &want);
	same_row(pms_ibs_fetch_view_total(vl), &want);
	CHECK(pms_ibs_fetch_view_row(v, pms_ibs_fetch_view_count(v)) == NULL);
	static const char *const fn[2] = { "pms_t_fetch_hot", "pms_t_fetch_cold" };
	for (int k = 0; k < 2; k++) {
		const struct pms_ibs_fetch_row *w = NULL;
		for (size_t i = 0; i < pms_ibs_fetch_view_count(v); i++)
			if (!strcmp(pms_ibs_fetch_view_row(v, i)->func, fn[k]))
				w = pms_ibs_fetch_view_row(v, i);
		CHECK_MSG(w != NULL, "no row for %s", fn[k]);
		if (w)
			same_row(w, &want_fn[k]);
		/* by line: rows of this file's lines for the function, adding up */
		uint64_t lines = 0;
		for (size_t i = 0; i < pms_ibs_fetch_view_count(vl); i++) {
			const struct pms_ibs_fetch_row *r = pms_ibs_fetch_view_row(vl, i);
			if (!strcmp(r->func, fn[k])) {
				CHECK_MSG(r->file && strstr(r->file, "test_ibs_fetch.c"),
					  "%s: line row file %s", fn[k], r->file ? r->file : "(none)");
				CHECK(r->line > 0);
				lines += r->samples;
			}
		}
		CHECK_EQ_U64(lines, want_fn[k].samples);
	}
	size_t nr = pms_ibs_fetch_view_count(v);
	CHECK(nr > 0 && pms_ibs_fetch_view_row(v, 0)->samples >=
				pms_ibs_fetch_view_row(v, nr - 1)->samples);

	/* perf 6.12's decode of the same file, sample by sample */
	if (!perf) {
		fprintf(stderr, "skip perf part: %s\n", PT_SKIP_MSG);
		goto out;
	}
	struct pfetch *pf = calloc(NGEN, sizeof(*pf));
	unsigned bad = 0;
	size_t np = pf ? perf_fetches(u.path, dir, pf, NGEN) : 0, j = 0;
	CHECK_EQ_U64(np, nkept);
	struct pms_ibs_cpu cpu = { 0x19, 0x11, 0 };
	for (size_t i = 0; i < NGEN && j < np; i++) {
		unsigned char raw[36];
		uint32_t caps = CAPS;
		struct pms_ibs_fetch f;
		if (!kept[i])
			continue;
		memcpy(raw, &caps, 4);
		memcpy(raw + 4, regs[i], 32);
		CHECK_OK(pms_ibs_fetch_decode(raw, sizeof(raw), &cpu, &f));
		check_perf(&pf[j++], &f, i, &bad);
	}
	CHECK_EQ_INT(bad, 0);
	fprintf(stderr, "%zu fetch samples recorded; perf report -D agrees on %zu\n", nkept,
		j - bad);
	free(pf);
out:
	pms_ibs_fetch_view_free(v);
	pms_ibs_fetch_view_free(vl);
	pms_sys_free(real);
	run_close(&u);
	if (!getenv("PMS_T_KEEP")) {
		unlink(path);
		pt_rmdir(dir);
	}
}

PMS_TEST(fetch_user_only_through_swfilt)
{
	struct run u;
	char path[] = "/tmp/pms-fetch-u-XXXXXX";
	int tmp = mkstemp(path);
	struct pms_ibs_fetch_view *v = NULL;
	struct pms_sys *real = NULL;
	size_t na = 0, refused = 0;

	CHECK(tmp >= 0);
	if (tmp >= 0)
		close(tmp);
	if (run_open(&u, "ibs_fetch//u", path) < 0)
		goto out;
	const struct perf_event_attr *a = &fk_fd(u.r.fk, u.ev_fd)->attr;
	CHECK(a->exclude_kernel);
	CHECK_EQ_INT(a->exclude_hv, 0);
	CHECK_EQ_U64(a->config2 & 1, 1);
	const struct pms_sampler_attempt *at = pms_sampler_attempts(u.s, &na);
	for (size_t i = 0; i < na; i++)
		refused += at[i].err == EINVAL;
	CHECK_EQ_INT(refused, 1);
	uint64_t user[4] = { (1ULL << 49) | (1ULL << 48) | (40ULL << 32),
			     (uint64_t)(uintptr_t)&pms_t_fetch_hot, 0, 0 };
	uint64_t kern[4] = { (1ULL << 49) | (1ULL << 48) | (40ULL << 32), KBASE + 0x40, 0, 0 };
	CHECK_EQ_INT(fkr_ibs_fetch_nmi(u.r.fk, &u.r.m, u.ev_fd, kern, PID, 0, 50), 0);
	CHECK_EQ_INT(fkr_ibs_fetch_nmi(u.r.fk, &u.r.m, u.ev_fd, user, PID, 0, 51), 1);
	CHECK_EQ_INT(fkr_ibs_fetch_nmi(u.r.fk, &u.r.m, u.ev_fd, kern, PID, 0, 52), 0);
	CHECK(pms_memsrc_poll(u.src, 0, &cbs, &u) >= 0);
	CHECK_OK(pms_recorder_finish(u.rec, u.r.sys, u.topo, u.r.pmus));
	CHECK_OK(pms_sys_new(&real, NULL));
	CHECK_OK(pms_ibs_fetch_view_file(real, u.fd, false, &v));
	if (v)
		CHECK_EQ_U64(pms_ibs_fetch_view_total(v)->samples, 1);
	CHECK(pms_ibs_fetch_view_total(NULL) == NULL && pms_ibs_fetch_view_count(NULL) == 0 &&
	      pms_ibs_fetch_view_row(NULL, 0) == NULL && pms_ibs_fetch_view_cpuid(NULL) == NULL &&
	      pms_ibs_fetch_view_dropped(NULL) == 0 && pms_ibs_fetch_view_bad(NULL) == 0);
out:
	pms_ibs_fetch_view_free(v);
	pms_sys_free(real);
	run_close(&u);
	unlink(path);
}

/* perf_ibs_init on ibs_fetch: the config mask (IBS_FETCH_L3MISSONLY only
 * with the Zen 4 extensions), raw MaxCnt with a period, exclude_guest. */
PMS_TEST(fetch_acceptance)
{
	struct fkr_machine m;
	struct perf_event_attr a;
	memset(&m, 0, sizeof(m));
	m.ibs_fetch_type = FETCH_TYPE;
	m.ibs_caps = CAPS;
	memset(&a, 0, sizeof(a));
	a.type = FETCH_TYPE;
	a.sample_period = 0x10000;
	CHECK_EQ_INT(fkr_ibs_fetch(&m, &a), 0);
	a.config = 1ULL << 59; /* l3missonly */
	CHECK_EQ_INT(fkr_ibs_fetch(&m, &a), 0);
	m.ibs_caps = 0x7ff;
	CHECK_EQ_INT(fkr_ibs_fetch(&m, &a), -EINVAL);
	a.config = 0x1000; /* MaxCnt and a period */
	CHECK_EQ_INT(fkr_ibs_fetch(&m, &a), -EINVAL);
	a.sample_period = 0;
	CHECK_EQ_INT(fkr_ibs_fetch(&m, &a), 0);
	a.exclude_guest = 1;
	CHECK_EQ_INT(fkr_ibs_fetch(&m, &a), -EINVAL);
}

PMS_TEST_MAIN()
