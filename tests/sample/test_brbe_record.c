/* Arm BRBE branch stacks recorded live (issue 31 row 3): the fake kernel's
 * PMUv3 with FEAT_BRBE (tests/support/fake_rules_armv8.c, the BRBE
 * acceptance of fake_rules_branch.c) takes `armv8_pmuv3_0/cpu_cycles/ -j
 * any,u,k,save_type,priv`, its overflow writes samples whose branch entries
 * carry what drivers/perf/arm_brbe.c (6.17) fills: perf types through
 * brbe_type_to_perf_type_map (COND, UNCOND, IND, CALL, IND_CALL, RET,
 * SYSCALL, ERET, IRQ for IRQ and TRAP, SERROR, EXTEND_ABI with
 * FAULT_ALGN/DATA/INST as new_type), perf_entry_from_brbe_regset's record
 * shapes (source-only: to 0, no privilege; target-only: from 0, no
 * mispredict flags), cycles and the privilege of the EL.  The sampler and
 * recorder write them to a perf.data file, on which perf 6.12's `script -F
 * brstack` and pmuscope's print the same bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../perfdata/perf_tool.h"
#include "sample_helpers.h"

#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/record.h"
#include "pmuscope/recorder.h"
#include "pmuscope/sampler.h"

#define PMU_TYPE 8 /* the N1 fixture's armv8_pmuv3_0 */
#define NSAMPLES 60

static uint64_t rng = 0x243f6a8885a308d3ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct rec {
	struct pms_recorder *r;
};
static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	CHECK_OK(pms_recorder_sample(((struct rec *)ud)->r, x));
	return 0;
}
static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	CHECK_OK(pms_recorder_sideband(((struct rec *)ud)->r, r, attr_idx));
	return 0;
}

/* perf types of brbe_type_to_perf_type_map (type, new_type) */
static const uint8_t types[][2] = { { 1, 0 },  { 2, 0 },  { 3, 0 },  { 4, 0 },
				    { 5, 0 },  { 6, 0 },  { 7, 0 },  { 11, 0 },
				    { 12, 0 }, { 13, 0 }, { 15, 0 }, { 15, 1 }, { 15, 2 } };

/* One entry as perf_entry_from_brbe_regset fills it. */
static void entry(uint64_t out[3])
{
	unsigned shape = (unsigned)(rnd() % 8), t = (unsigned)(rnd() % 13);
	bool kernel = types[t][0] >= 11; /* exceptions land at EL1 */
	uint64_t from = 0x400000 + (rnd() % 0x1000) * 4;
	uint64_t to = kernel ? 0xffff800080010000ULL + (rnd() % 0x100) * 4
			     : 0x400000 + (rnd() % 0x1000) * 4;
	bool mis = rnd() % 4 == 0;
	uint64_t cycles = rnd() % 3 ? rnd() % 2000 : 0;
	uint64_t priv = kernel ? 2 : 1; /* PERF_BR_PRIV_KERNEL / _USER */
	if (shape == 0) { /* source only: no target, no privilege */
		to = 0;
		priv = 0;
	} else if (shape == 1) { /* target only: no source, no prediction */
		from = 0;
		cycles = 0;
	}
	out[0] = from;
	out[1] = to;
	out[2] = (shape == 1 ? 0 : mis ? 1 : 2) | cycles << 4 | (uint64_t)types[t][0] << 20 |
		 (uint64_t)types[t][1] << 26 | priv << 29;
}

static int run_cmd(const char *cmd, const char *out)
{
	char full[4096];
	snprintf(full, sizeof(full), "%s >'%s' 2>'%s.err'", cmd, out, out);
	return pt_status(system(full));
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;
	size_t cap = 0, len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 > cap && !(b = realloc(b, cap = cap * 2 + 8192)))
			break;
		size_t k = fread(b + len, 1, 4096, f);
		len += k;
		if (!k)
			break;
	}
	fclose(f);
	*n = len;
	return b;
}

PMS_TEST(brbe_stream_recorded_perf_script_brstack)
{
	char ver[256], dir[512], path[600], cmd[1400], po[700], mo[700];
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_memsrc *src = NULL;
	struct rec rc = { NULL };
	int fd = -1, efd;
	size_t entries = 0;

	if (!pt_perf_version(ver, sizeof(ver)))
		PMS_SKIP(PT_SKIP_MSG);
	if (!pt_mkdtemp(dir, sizeof(dir))) {
		CHECK_MSG(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	pt_perf_env(dir);
	if (th_root_open(&r, "neoverse-n1-spe", "0", -1, true) < 0)
		goto out;
	r.m.narmv8 = 1;
	r.m.armv8[0] = (struct fkr_armv8_pmu){ .type = PMU_TYPE, .pmcr_n = 6 };
	r.m.armv8_brbe_nr = 32;
	o.target = PMS_TARGET_CPUS;
	o.event = "armv8_pmuv3_0/cpu_cycles/";
	o.period = 10007;
	o.no_fallback = true;
	/* -j any,u,k,save_type,priv */
	o.branch_filter = (1ULL << 3) | 1 | 2 | (1ULL << 16) | (1ULL << 18);
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	efd = th_fd_of_type(r.fk, PMU_TYPE, 0);
	CHECK(efd >= 0);
	CHECK_OK(pms_memsrc_open_live(s, NULL, &src));
	snprintf(path, sizeof(path), "%s/brbe.data", dir);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(fd >= 0);
	if (efd < 0 || !src || fd < 0)
		goto out;
	const struct perf_event_attr *a = &fk_fd(r.fk, efd)->attr;
	CHECK(a->sample_type & PMS_SAMPLE_BRANCH_STACK);
	CHECK_EQ_U64(a->branch_sample_type, o.branch_filter);
	/* the fake driver refuses what brbe_branch_attr_valid refuses */
	struct perf_event_attr bad = *a;
	bad.branch_sample_type |= 1ULL << 11; /* call_stack */
	CHECK_EQ_INT(fkr_armv8(r.fk, &r.m.armv8[0], &bad, -1, 0, -1), -EOPNOTSUPP);
	CHECK_OK(pms_recorder_open(fd, src, NULL, &rc.r));
	if (!rc.r)
		goto out;
	for (int i = 0; i < NSAMPLES; i++) {
		uint64_t e[32][3];
		struct pms_record q;
		struct pms_sample_layout l;
		unsigned char buf[2048];
		size_t n = rnd() % 17, len = 0;
		for (size_t k = 0; k < n; k++)
			entry(e[k]);
		entries += n;
		memset(&q, 0, sizeof(q));
		q.type = PMS_RECORD_SAMPLE;
		q.sample.misc = PMS_MISC_USER;
		q.sample.ip = 0x400000 + (rnd() % 0x1000) * 4;
		q.sample.pid = q.sample.tid = 4242;
		q.sample.time = 1000 + (uint64_t)i;
		q.sample.period = 10007;
		q.sample.branch.nr = n;
		q.sample.branch.entries = e;
		pms_sample_layout_from_attr(&l, a);
		CHECK_OK(pms_record_encode(&l, &q, buf, sizeof(buf), &len));
		CHECK_EQ_INT(fk_ring_put(r.fk, efd, buf, len), 0);
	}
	const struct pms_memsrc_callbacks cb = { on_sample, on_side, NULL };
	CHECK(pms_memsrc_poll(src, 0, &cb, &rc) >= 0);
	CHECK_OK(pms_recorder_finish(rc.r, r.sys, NULL, r.pmus));

	snprintf(po, sizeof(po), "%s/perf.txt", dir);
	snprintf(mo, sizeof(mo), "%s/ours.txt", dir);
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F brstack", path);
	CHECK_EQ_INT(run_cmd(cmd, po), 0);
	snprintf(cmd, sizeof(cmd), "'%s' script -i '%s' -F brstack", pms_t_cli(), path);
	CHECK_EQ_INT(run_cmd(cmd, mo), 0);
	size_t np = 0, nm = 0, lines = 0;
	char *pt = slurp(po, &np), *mt = slurp(mo, &nm);
	CHECK(pt && mt);
	if (pt && mt) {
		for (size_t i = 0; i < np; i++)
			lines += pt[i] == '\n';
		CHECK_EQ_U64(lines, NSAMPLES);
		CHECK_EQ_U64(np, nm);
		CHECK_MSG(np == nm && !memcmp(pt, mt, np), "perf and pmuscope brstack differ: "
			  "diff %s %s", po, mo);
		fprintf(stderr, "%d samples, %zu BRBE entries: perf script -F brstack = pmuscope's "
			"(%zu bytes)\n", NSAMPLES, entries, np);
	}
	free(pt);
	free(mt);
out:
	pms_recorder_free(rc.r);
	if (fd >= 0)
		close(fd);
	pms_memsrc_free(src);
	pms_sampler_free(s);
	th_root_close(&r);
	if (!getenv("PMS_T_KEEP"))
		pt_rmdir(dir);
}

PMS_TEST_MAIN()
