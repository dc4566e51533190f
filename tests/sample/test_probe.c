/* The engine ladder against the fake kernel's rules on the fixture machines. */
#include "check.h"
#include "sample_helpers.h"

#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/record.h"
#include "pmuscope/sampler.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#define ZEN4_CAPS (FKR_IBS_CAPS_ZEN4 | FKR_IBS_CAPS_OPLDLAT | FKR_IBS_CAPS_OPCNT)

static const struct pms_sampler_attempt *chosen(const struct pms_sampler_attempt *a, size_t n,
						 const char *pmu)
{
	const struct pms_sampler_attempt *last = NULL;
	for (size_t i = 0; i < n; i++)
		if (a[i].chosen && (!pmu || strcmp(a[i].pmu, pmu) == 0))
			last = &a[i];
	return last;
}

/* The last accepted open of attr.type in the fake kernel's log. */
static const struct perf_event_attr *last_ok(struct fk *fk, uint32_t type)
{
	const struct perf_event_attr *a = NULL;
	for (int i = 0; i < fk->nlog; i++)
		if (fk->log[i].attr.type == type && fk->log[i].result >= 0)
			a = &fk->log[i].attr;
	return a;
}

/* Seed 000, E2: ibs_op with IP|ADDR|DATA_SRC|WEIGHT|PHYS_ADDR, filters varied,
 * on a Zen 4 without BIT63 filtering at perf_event_paranoid = -1. */
PMS_TEST(ibs_errno_matrix_of_seed_000)
{
	static const struct {
		int exclude_kernel, exclude_hv;
		uint64_t config2;
		int want; /* fd >= 0 -> 0, else -errno */
	} rows[] = {
		{ 1, 1, 0, -EINVAL },
		{ 1, 0, 0, -EINVAL },
		{ 0, 0, 0, 0 },
		{ 0, 1, 0, -EINVAL },
		{ 1, 0, 1, 0 }, /* swfilt: the recipe */
	};
	struct fk *fk = fk_new();
	struct fkr_machine m = { .paranoid = -1, .perfmon = false, .ibs_op_type = 10,
				 .ibs_caps = ZEN4_CAPS };
	fkr_install(fk, &m);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct perf_event_attr a = { .size = sizeof(a), .type = 10 };
		int fd;
		a.sample_period = 20000;
		a.sample_type = PMS_SAMPLE_IP | PMS_SAMPLE_ADDR | PMS_SAMPLE_DATA_SRC |
				PMS_SAMPLE_WEIGHT | PMS_SAMPLE_PHYS_ADDR;
		a.exclude_kernel = (unsigned)rows[i].exclude_kernel;
		a.exclude_hv = (unsigned)rows[i].exclude_hv;
		a.config2 = rows[i].config2;
		fd = fk_ops(fk)->perf_event_open(fk, &a, 0, -1, -1, 0);
		CHECK_MSG((fd >= 0 ? 0 : fd) == rows[i].want, "row %zu: got %d want %d", i, fd,
			  rows[i].want);
		if (fd >= 0)
			fk_ops(fk)->close(fk, fd);
	}
	/* Other perf_ibs_init rules: ldlat range, period minimum, config mask. */
	{
		struct perf_event_attr a = { .size = sizeof(a), .type = 10 };
		a.sample_period = 0x10000;
		a.config1 = 127;
		CHECK_EQ_INT(fk_ops(fk)->perf_event_open(fk, &a, 0, -1, -1, 0), -EINVAL);
		a.config1 = 2049;
		CHECK_EQ_INT(fk_ops(fk)->perf_event_open(fk, &a, 0, -1, -1, 0), -EINVAL);
		a.config1 = 2048;
		CHECK(fk_ops(fk)->perf_event_open(fk, &a, 0, -1, -1, 0) >= 0);
		a.config1 = 0;
		a.sample_period = 0x80; /* below the op minimum 0x90 */
		CHECK_EQ_INT(fk_ops(fk)->perf_event_open(fk, &a, 0, -1, -1, 0), -EINVAL);
		a.sample_period = 0x10000;
		a.config = 1ULL << 40; /* outside config_mask */
		CHECK_EQ_INT(fk_ops(fk)->perf_event_open(fk, &a, 0, -1, -1, 0), -EINVAL);
	}
	fk_free(fk);
}

PMS_TEST(ladder_picks_swfilt_for_user_only_on_zen4)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler_attempt *att = NULL;
	enum pms_engine e;
	size_t n = 0;

	if (th_root_open(&r, "zen4-ibs", "0-3", -1, false) < 0)
		goto out;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = ZEN4_CAPS;
	o.target = PMS_TARGET_CHILD;
	o.pid = 4242;
	o.priv = PMS_PRIV_USER;
	o.want_phys = true;
	CHECK_OK(pms_sampler_probe(r.sys, r.pmus, NULL, &o, &e, &att, &n));
	CHECK_EQ_INT(e, PMS_ENG_IBS);
	CHECK(n >= 1);
	CHECK_EQ_INT(att[0].err, 0); /* the first build is already right */
	{
		const struct perf_event_attr *a = last_ok(r.fk, 10);
		CHECK(a != NULL);
		if (a) {
			CHECK_EQ_U64(a->config2 & 1, 1); /* swfilt */
			CHECK_EQ_INT(a->exclude_kernel, 1);
			CHECK_EQ_INT(a->exclude_hv, 0);
			CHECK_EQ_INT(a->exclude_user, 0);
			CHECK(a->sample_type & PMS_SAMPLE_PHYS_ADDR);
			CHECK(a->sample_type & PMS_SAMPLE_DATA_SRC);
			CHECK(a->sample_type & PMS_SAMPLE_WEIGHT_STRUCT);
			CHECK_EQ_U64(a->sample_period & 0xf, 0);
		}
	}
	CHECK(chosen(att, n, "ibs_op") != NULL);
	free(att);
out:
	th_root_close(&r);
}

PMS_TEST(ladder_paranoid2_drops_phys_then_goes_user_only_via_swfilt)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	const struct pms_sampler_attempt *att;
	size_t n = 0;

	if (th_root_open(&r, "zen4-ibs", "0-1", 2, false) < 0)
		goto out;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = ZEN4_CAPS;
	o.pid = 4242;
	o.want_phys = true;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	att = pms_sampler_attempts(s, &n);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK_EQ_INT(att[0].err, EACCES);
		CHECK(strstr(att[1].reason, "PHYS_ADDR refused") != NULL);
		CHECK(strstr(att[1].reason, "perf_event_paranoid=2") != NULL);
		CHECK_EQ_INT(att[1].err, EACCES); /* kernel samples still asked for */
		CHECK(strstr(att[2].reason, "swfilt") != NULL);
		CHECK_EQ_INT(att[2].err, 0);
		CHECK(att[2].chosen);
		CHECK(strstr(att[2].attr, "exclude_kernel") != NULL);
	}
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_IBS);
	CHECK(!info.phys);
	CHECK(info.data_src);
	CHECK(!(info.sample_type & PMS_SAMPLE_PHYS_ADDR));
	CHECK(strstr(info.notes, "no physical addresses") != NULL);
	/* Per CPU with inherit for a child: 2 CPUs -> 2 streams, enable_on_exec. */
	CHECK_EQ_INT(info.nstreams, 2);
	{
		int fd = th_fd_of_type(r.fk, 10, 0);
		struct fk_fd *f = fk_fd(r.fk, fd);
		CHECK(f != NULL);
		if (f) {
			CHECK_EQ_INT(f->attr.inherit, 1);
			CHECK_EQ_INT(f->attr.enable_on_exec, 1);
			CHECK_EQ_INT(f->attr.disabled, 1);
			CHECK_EQ_INT(f->attr.mmap2, 1);
			CHECK_EQ_INT(f->attr.exclude_hv, 0);
			CHECK_EQ_INT(f->pid, 4242);
			CHECK(f->map != NULL);
		}
	}
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(ibs_ldlat_and_l3missonly_terms)
{
	static const struct {
		unsigned ldlat;
		uint64_t config1;
		const char *note;
	} rows[] = {
		{ 64, 0, "outside [128, 2048]" },
		{ 128, 128, NULL },
		{ 2048, 2048, NULL },
		{ 3000, 0, "outside [128, 2048]" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct th_root r;
		struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
		struct pms_sampler *s = NULL;
		struct pms_sampler_info info;

		if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0) {
			th_root_close(&r);
			return;
		}
		r.m.ibs_op_type = 10;
		r.m.ibs_caps = ZEN4_CAPS;
		o.target = PMS_TARGET_CPUS;
		o.ldlat = rows[i].ldlat;
		o.l3missonly = true;
		o.period = 100001; /* not a multiple of 16 */
		CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
		if (s) {
			const struct perf_event_attr *a = last_ok(r.fk, 10);
			pms_sampler_info(s, &info);
			CHECK_MSG(a && a->config1 == rows[i].config1, "row %zu: config1 %llu", i,
				  a ? (unsigned long long)a->config1 : 0ULL);
			CHECK_MSG(a && (a->config & (1ULL << 16)), "row %zu: l3missonly", i);
			CHECK_MSG(a && a->sample_period == 100000, "row %zu: period", i);
			CHECK(strstr(info.notes, "l3missonly") != NULL);
			CHECK(strstr(info.notes, "rounded down") != NULL);
			if (rows[i].note)
				CHECK_MSG(strstr(info.notes, rows[i].note) != NULL, "row %zu: %s", i,
					  info.notes);
		}
		pms_sampler_free(s);
		th_root_close(&r);
	}
}

/* Alder Lake hybrid: cpu_core type 4, cpu_atom type 10 (fixture). */
static void adl_machine(struct th_root *r, int max_precise, bool pdir)
{
	r->m.npebs = 2;
	r->m.pebs[0] = (struct fkr_pebs_pmu){ .type = 4, .max_precise = max_precise,
					      .pdir_mem = pdir, .needs_loads_aux = true,
					      .loads_aux_config = 0x8203,
					      .loads_config = 0x01cd };
	r->m.pebs[1] = (struct fkr_pebs_pmu){ .type = 10, .max_precise = max_precise,
					      .pdir_mem = pdir };
}

PMS_TEST(pebs_precise_ip_falls_back_3_2_1)
{
	static const struct {
		int kernel_max;  /* what x86_pmu_max_precise() says */
		bool pdir;
		unsigned want;   /* precise_ip finally used */
		int refusals;    /* refused opens of cpu_atom/mem-loads */
	} rows[] = {
		{ 3, true, 3, 0 },
		{ 3, false, 2, 1 }, /* PDIR not schedulable for mem events: EINVAL */
		{ 1, false, 1, 2 }, /* EOPNOTSUPP twice */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct th_root r;
		struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
		struct pms_sampler_attempt *att = NULL;
		enum pms_engine e;
		size_t n = 0;
		int refused = 0;

		if (th_root_open(&r, "adl-hybrid", "0-15", -1, true) < 0) {
			th_root_close(&r);
			return;
		}
		adl_machine(&r, rows[i].kernel_max, rows[i].pdir);
		o.pid = 77;
		o.ops = PMS_SAMPLER_LOADS;
		CHECK_OK(pms_sampler_probe(r.sys, r.pmus, NULL, &o, &e, &att, &n));
		CHECK_EQ_INT(e, PMS_ENG_PEBS);
		for (size_t k = 0; k < n; k++)
			if (strcmp(att[k].pmu, "cpu_atom") == 0 && att[k].err)
				refused++;
		CHECK_MSG(refused == rows[i].refusals, "row %zu: %d refusals", i, refused);
		{
			const struct perf_event_attr *a = last_ok(r.fk, 10);
			CHECK_MSG(a && a->precise_ip == rows[i].want, "row %zu: precise_ip %u", i,
				  a ? a->precise_ip : 99);
			CHECK(a && (a->config & 0xffff) == 0x05d0); /* cpu_atom mem-loads */
			CHECK(a && a->config1 == 30);               /* ldlat default */
		}
		CHECK(chosen(att, n, "cpu_atom") != NULL);
		CHECK(chosen(att, n, "cpu_core") != NULL);
		free(att);
		th_root_close(&r);
	}
}

PMS_TEST(pebs_mem_loads_aux_pairing)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;

	if (th_root_open(&r, "adl-hybrid", "0,8", -1, true) < 0)
		goto out;
	adl_machine(&r, 3, true);
	/* The rule itself: mem-loads sampling DATA_SRC without the aux leader. */
	{
		struct perf_event_attr a = { .size = sizeof(a), .type = 4, .config = 0x01cd };
		a.sample_type = PMS_SAMPLE_DATA_SRC;
		a.sample_period = 1000;
		CHECK_EQ_INT(fk_ops(r.fk)->perf_event_open(r.fk, &a, 1, 0, -1, 0), -ENODATA);
	}
	o.target = PMS_TARGET_CPUS;
	o.ldlat = 50;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_PEBS);
	CHECK_EQ_STR(info.pmus, "cpu_atom,cpu_core"); /* sysfs order */
	/* CPU 0 (P-core): aux leader + loads + stores; CPU 8 (E-core): loads +
	 * stores; a dummy side-band event on both. */
	CHECK_EQ_INT(info.nstreams, 3 + 2 + 2);
	{
		int lfd = -1, mfd = -1;
		for (int i = 0; i < FK_MAX_FDS; i++) {
			struct fk_fd *f = &r.fk->fds[i];
			if (!f->used || f->attr.type != 4)
				continue;
			if ((f->attr.config & 0xffff) == 0x8203)
				lfd = FK_FD_BASE + i;
			if ((f->attr.config & 0xffff) == 0x01cd)
				mfd = FK_FD_BASE + i;
		}
		CHECK(lfd >= 0 && mfd >= 0);
		for (int i = 0; i < r.fk->nlog; i++)
			if ((r.fk->log[i].attr.config & 0xffff) == 0x01cd && r.fk->log[i].result >= 0) {
				CHECK_EQ_INT(r.fk->log[i].group_fd, lfd);
				CHECK_EQ_U64(r.fk->log[i].attr.config1, 50);
				CHECK_EQ_INT(r.fk->log[i].cpu, 0);
			}
		/* The side-band event is a software dummy on every CPU. */
		CHECK(th_fd_of_type(r.fk, PERF_TYPE_SOFTWARE, 1) >= 0);
	}
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(spe_pa_refused_at_paranoid2_and_min_latency_dropped)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	const struct pms_sampler_attempt *att;
	size_t n = 0;

	if (th_root_open(&r, "neoverse-n1-spe", "0-3", 2, false) < 0)
		goto out;
	r.m.spe_type = 9;
	r.m.spe_cpus = 0xf;
	r.m.spe_filt_lat = false;
	o.pid = 99;
	o.priv = PMS_PRIV_USER;
	o.want_phys = true;
	o.ldlat = 100;
	o.freq = 1000; /* SPE refuses freq: the ladder uses an interval */
	o.aux_pages = 4;
	o.data_pages = 2;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	att = pms_sampler_attempts(s, &n);
	/* IBS and PEBS are absent (one ENOENT entry each), then SPE. */
	CHECK_EQ_INT(n, 5);
	CHECK(n >= 2 && att[0].err == ENOENT && att[1].err == ENOENT);
	att += 2;
	n -= 2;
	if (n >= 3) {
		/* pa_enable first: with it the attr samples PHYS_ADDR, as perf
		 * record's does, and perf_event_open checks that
		 * (perf_allow_kernel) before the PMU's event_init; then
		 * min_latency (EOPNOTSUPP in arm_spe_pmu_event_init). */
		CHECK_EQ_INT(att[0].err, EACCES);
		CHECK(strstr(att[1].reason, "pa_enable refused") != NULL);
		CHECK_EQ_INT(att[1].err, EOPNOTSUPP);
		CHECK(strstr(att[2].reason, "min_latency refused") != NULL);
		CHECK_EQ_INT(att[2].err, 0);
	}
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_SPE);
	CHECK(!info.phys);
	CHECK(strstr(info.notes, "interval") != NULL);
	{
		const struct perf_event_attr *a = last_ok(r.fk, 9);
		CHECK(a && a->freq == 0);
		CHECK(a && a->sample_period == 4096);
		CHECK(a && (a->config & 0x2) == 0);          /* pa_enable off */
		CHECK(a && (a->config & 0x1) == 1);          /* ts_enable */
		CHECK(a && (a->config & (1ULL << 16)));      /* jitter */
		CHECK(a && (a->config & (3ULL << 33)) == (3ULL << 33)); /* load+store filter */
		CHECK(a && a->exclude_kernel == 1);
		CHECK(a && a->config2 == 0);
	}
	/* Each SPE stream has an AUX area. */
	{
		int fd = th_fd_of_type(r.fk, 9, 0);
		struct fk_fd *f = fk_fd(r.fk, fd);
		CHECK(f && f->aux_map && f->aux_map_len == 4 * 4096);
	}
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

/* SPE filters the engine programs from the options, each against the fake
 * kernel's arm_spe_pmu_event_init rules (tests/support/fake_rules_spe.c). */
PMS_TEST(spe_event_and_branch_filters_min_latency_from_caps)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	uint64_t ev = (1ULL << 3) | (1ULL << 9); /* L1D_REFILL, LLC_MISS */

	if (th_root_open(&r, "neoverse-n1-spe", "0-3", 2, false) < 0)
		goto out;
	r.m.spe_type = 9;
	r.m.spe_cpus = 0xf;
	r.m.spe_filt_lat = true;
	o.pid = 99;
	o.spe_events = ev;
	o.spe_not_events = 1ULL << 7;
	o.spe_branches = true;
	o.ldlat = 100000; /* above the 12-bit counters (caps/count_size 12) */
	o.aux_pages = 4;
	o.data_pages = 2;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_SPE);
	{
		const struct perf_event_attr *a = last_ok(r.fk, 9);
		CHECK(a && a->config1 == ev);                  /* event_filter */
		CHECK(a && (a->config & (1ULL << 32)));        /* branch_filter */
		CHECK(a && (a->config & (3ULL << 33)) == (3ULL << 33));
		CHECK(a && a->config2 == 4095);                /* min_latency clamped */
	}
	CHECK(strstr(info.notes, "clamped to 4095") != NULL);
	/* N1 is SPEv1p1: no inv_event_filter format. */
	CHECK(strstr(info.notes, "no inv_event_filter term (FEAT_SPEv1p2 absent)") != NULL);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(spe_filters_refused_by_the_cpu_are_dropped)
{
	static const struct {
		bool no_filt_evt;
		uint64_t res0;
		bool no_filt_typ;
	} rows[] = {
		{ true, 0, false },          /* no event filtering at all */
		{ false, 1ULL << 20, false }, /* L2D_MISS is RES0 on this PMSVer */
		{ false, 0, true },          /* no type filtering */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct th_root r;
		struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
		struct pms_sampler *s = NULL;
		struct pms_sampler_info info;
		const struct pms_sampler_attempt *att;
		size_t n = 0;

		if (th_root_open(&r, "neoverse-n1-spe", "0-3", 2, false) < 0) {
			th_root_close(&r);
			return;
		}
		r.m.spe_type = 9;
		r.m.spe_cpus = 0xf;
		r.m.spe_no_filt_evt = rows[i].no_filt_evt;
		r.m.spe_evfr_res0 = rows[i].res0;
		r.m.spe_no_filt_typ = rows[i].no_filt_typ;
		o.pid = 99;
		o.spe_events = (1ULL << 20) | (1ULL << 3);
		o.aux_pages = 4;
		o.data_pages = 2;
		if (rows[i].no_filt_typ) {
			/* Loads+stores need FT: SPE is refused, the ladder goes on. */
			CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
			if (s) {
				pms_sampler_info(s, &info);
				CHECK_MSG(info.engine != PMS_ENG_SPE, "row %zu", i);
			}
		} else {
			CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
			if (s) {
				const struct perf_event_attr *a = last_ok(r.fk, 9);
				bool seen = false;
				pms_sampler_info(s, &info);
				CHECK_EQ_INT(info.engine, PMS_ENG_SPE);
				CHECK_MSG(a && a->config1 == 0, "row %zu: event_filter dropped", i);
				att = pms_sampler_attempts(s, &n);
				for (size_t k = 0; k < n; k++)
					if (att[k].err == EOPNOTSUPP && k + 1 < n &&
					    strstr(att[k + 1].reason, "event_filter refused"))
						seen = true;
				CHECK_MSG(seen, "row %zu: EOPNOTSUPP then a retry without the filter",
					  i);
			}
		}
		pms_sampler_free(s);
		th_root_close(&r);
	}
}

/* The root's sys/bus as a copy of the fixture's (it is a link to it), with
 * arm_spe_0 given the inv_event_filter format of a FEAT_SPEv1p2 CPU
 * (arm_spe_pmu.c v6.12:208-210, shown by the is_visible rule :244) or a
 * later kernel's inv_data_src_filter (config4:0-63), and the PMUs reloaded. */
static int spe_extra_format(struct th_root *r, const char *term, const char *spec)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "rm '%s/sys/bus' && cp -r '%s/machines/neoverse-n1-spe/sys/bus' '%s/sys/bus' && "
		 "printf '%s\n' > '%s/sys/bus/event_source/devices/arm_spe_0/format/%s'",
		 r->dir, pms_t_fixtures(), r->dir, spec, r->dir, term);
	CHECK_EQ_INT(system(cmd), 0);
	pms_pmus_free(r->pmus);
	r->pmus = NULL;
	CHECK_OK(pms_pmus_load(r->sys, &r->pmus));
	return r->pmus ? 0 : -1;
}

/* inv_event_filter: programmed into config3 where the PMU has the term and
 * the feature; asked for as required, refused with the reason where the
 * format is absent (FEAT_SPEv1p2 missing) or the kernel says EOPNOTSUPP
 * (:740-742); the data-source filter has no 6.12 term, and a later
 * kernel's config4 does not fit this build's attr: refused. */
PMS_TEST(spe_inv_event_and_data_source_filters)
{
	const uint64_t inv = (1ULL << 2) | (1ULL << 19); /* L1D_ACCESS, L2D_ACCESS */
	for (int row = 0; row < 5; row++) {
		struct th_root r;
		struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
		struct pms_sampler *s = NULL;
		struct pms_sampler_info info;
		int rc;

		if (th_root_open(&r, "neoverse-n1-spe", "0-3", -1, true) < 0) {
			th_root_close(&r);
			return;
		}
		r.m.spe_type = 9;
		r.m.spe_cpus = 0xf;
		r.m.spe_inv_filt_evt = row != 2;
		if ((row <= 2 && spe_extra_format(&r, "inv_event_filter", "config3:0-63") < 0) ||
		    (row == 4 && spe_extra_format(&r, "inv_data_src_filter", "config4:0-63") < 0)) {
			th_root_close(&r);
			return;
		}
		o.pid = 99;
		o.aux_pages = 4;
		o.data_pages = 2;
		o.engine = PMS_ENG_SPE;
		o.spe_filters_required = true;
		if (row <= 2)
			o.spe_not_events = inv;
		else
			o.spe_inv_data_src = 1ULL << 0xe; /* DRAM on the common table */
		if (row == 1) { /* not required: the same */
			o.spe_filters_required = false;
		}
		rc = pms_sampler_open(r.sys, r.pmus, NULL, &o, &s);
		if (row <= 1) {
			CHECK_MSG(rc == 0, "row %d: %s", row, pms_error_last());
			const struct perf_event_attr *a = last_ok(r.fk, 9);
			CHECK_MSG(a && a->config3 == inv, "row %d: inv_event_filter in config3", row);
			if (s) {
				pms_sampler_info(s, &info);
				CHECK_EQ_INT(info.engine, PMS_ENG_SPE);
			}
		} else if (row == 2) {
			/* the format is there, the kernel refuses (FnE absent) */
			CHECK_MSG(rc < 0, "row 2 opened");
			CHECK_MSG(strstr(pms_error_last(), "EOPNOTSUPP") != NULL, "row 2: %s",
				  pms_error_last());
		} else {
			CHECK_MSG(rc == PMS_ENOTSUP, "row %d: %d", row, rc);
			CHECK_MSG(strstr(pms_error_last(), "inv_data_src_filter") != NULL &&
					  strstr(pms_error_last(),
						 row == 3 ? "no kernel up to 6.12" : "config4") != NULL,
				  "row %d: %s", row, pms_error_last());
		}
		pms_sampler_free(s);
		th_root_close(&r);
	}
	/* inv_event_filter asked for as required on N1 (SPEv1p1: no term) */
	{
		struct th_root r;
		struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
		struct pms_sampler *s = NULL;
		if (th_root_open(&r, "neoverse-n1-spe", "0-3", -1, true) == 0) {
			r.m.spe_type = 9;
			r.m.spe_cpus = 0xf;
			o.pid = 99;
			o.spe_not_events = inv;
			o.spe_filters_required = true;
			CHECK_EQ_INT(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s), PMS_ENOTSUP);
			CHECK_MSG(strstr(pms_error_last(), "no inv_event_filter format term") &&
					  strstr(pms_error_last(), "FEAT_SPEv1p2"),
				  "%s", pms_error_last());
			pms_sampler_free(s);
		}
		th_root_close(&r);
	}
}

/* IbsOpCntCtl: counted ops with IBS_CAPS_OPCNT; without it the kernel's op
 * config mask lacks bit 19 (EINVAL) and the ladder retries counting cycles. */
PMS_TEST(ibs_count_ops_option)
{
	for (int with = 1; with >= 0; with--) {
		struct th_root r;
		struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
		struct pms_sampler *s = NULL;
		struct pms_sampler_info info;
		const struct pms_sampler_attempt *att;
		size_t n = 0;

		if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0) {
			th_root_close(&r);
			return;
		}
		r.m.ibs_op_type = 10;
		r.m.ibs_caps = with ? ZEN4_CAPS : (ZEN4_CAPS & ~FKR_IBS_CAPS_OPCNT);
		o.target = PMS_TARGET_CPUS;
		o.ibs_count_ops = true;
		CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
		if (s) {
			const struct perf_event_attr *a = last_ok(r.fk, 10);
			pms_sampler_info(s, &info);
			CHECK_EQ_INT(info.engine, PMS_ENG_IBS);
			CHECK_MSG(a && !!(a->config & (1ULL << 19)) == with, "with OPCNT %d", with);
			att = pms_sampler_attempts(s, &n);
			if (!with) {
				bool seen = false;
				for (size_t k = 0; k < n; k++)
					if (strstr(att[k].reason, "cnt_ctl refused (EINVAL)"))
						seen = true;
				CHECK(seen);
			}
			/* Where no SPE PMU exists, the reason names the higher-EL case. */
			for (size_t k = 0; k < n; k++)
				if (att[k].engine == PMS_ENG_SPE)
					CHECK(strstr(att[k].reason, "higher exception level") != NULL);
		}
		pms_sampler_free(s);
		th_root_close(&r);
	}
}

PMS_TEST(vm_without_pmu_falls_back_with_every_attempt_logged)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	const struct pms_sampler_attempt *att;
	size_t n = 0;

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		goto out;
	o.pid = 5;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	att = pms_sampler_attempts(s, &n);
	CHECK_EQ_INT(n, 4);
	if (n == 4) {
		CHECK_EQ_INT(att[0].engine, PMS_ENG_IBS);
		CHECK_EQ_INT(att[0].err, ENOENT);
		CHECK_EQ_INT(att[1].engine, PMS_ENG_PEBS);
		CHECK_EQ_INT(att[2].engine, PMS_ENG_SPE);
		CHECK_EQ_INT(att[3].engine, PMS_ENG_SOFTWARE);
		CHECK_EQ_INT(att[3].err, 0);
		CHECK(att[3].chosen);
	}
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.engine, PMS_ENG_SOFTWARE);
	CHECK(!info.data_src);
	CHECK(strstr(info.label, "FALLBACK") != NULL);
	CHECK(strstr(info.label, "3 precise-engine attempt(s) refused") != NULL);
	{
		const struct perf_event_attr *a = last_ok(r.fk, PERF_TYPE_SOFTWARE);
		CHECK(a && a->config == PERF_COUNT_SW_PAGE_FAULTS);
		CHECK(a && a->sample_period == 1);
		CHECK(a && (a->sample_type & PMS_SAMPLE_ADDR));
		/* asked for, though the kernel fills PERF_MEM_NA: a -o file perf
		 * mem report accepts */
		CHECK(a && (a->sample_type & PMS_SAMPLE_DATA_SRC));
	}
	pms_sampler_free(s);
	s = NULL;
	/* Only IBS asked for: no fallback, and the error lists the attempt. */
	o.engine = PMS_ENG_IBS;
	CHECK_EQ_INT(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s), PMS_ENOTSUP);
	CHECK(s == NULL);
	CHECK(strstr(pms_error_last(), "ibs_op") != NULL);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(pid_target_opens_every_listed_thread_on_every_cpu)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler *s = NULL;
	struct pms_sampler_info info;
	char path[600];
	int seen[2] = { 0, 0 };

	if (th_root_open(&r, "vm-nopmu", "0-1", 2, true) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/proc/4242", r.dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/4242/task", r.dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/4242/task/4242", r.dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/4242/task/4250", r.dir);
	mkdir(path, 0755);
	o.target = PMS_TARGET_PID;
	o.pid = 4242;
	CHECK_OK(pms_sampler_open(r.sys, r.pmus, NULL, &o, &s));
	if (!s)
		goto out;
	pms_sampler_info(s, &info);
	CHECK_EQ_INT(info.nstreams, 4); /* 2 threads x 2 CPUs */
	for (int i = 0; i < FK_MAX_FDS; i++) {
		struct fk_fd *f = &r.fk->fds[i];
		if (!f->used)
			continue;
		CHECK(f->pid == 4242 || f->pid == 4250);
		CHECK(f->cpu == 0 || f->cpu == 1);
		CHECK_EQ_INT(f->attr.inherit, 1);
		CHECK_EQ_INT(f->attr.enable_on_exec, 0); /* a running process */
		seen[f->pid == 4250]++;
	}
	CHECK_EQ_INT(seen[0], 2);
	CHECK_EQ_INT(seen[1], 2);
	CHECK_OK(pms_sampler_enable(s));
	for (int i = 0; i < FK_MAX_FDS; i++)
		if (r.fk->fds[i].used)
			CHECK_EQ_U64(r.fk->fds[i].ioctl_last, PERF_EVENT_IOC_ENABLE);
out:
	pms_sampler_free(s);
	th_root_close(&r);
}

PMS_TEST(old_kernel_without_weight_struct)
{
	struct th_root r;
	struct pms_sampler_opts o = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler_attempt *att = NULL;
	enum pms_engine e;
	size_t n = 0;

	if (th_root_open(&r, "zen4-ibs", "0", -1, true) < 0)
		goto out;
	r.m.ibs_op_type = 10;
	r.m.ibs_caps = ZEN4_CAPS;
	r.m.no_weight_struct = true;
	o.pid = 3;
	CHECK_OK(pms_sampler_probe(r.sys, r.pmus, NULL, &o, &e, &att, &n));
	CHECK_EQ_INT(e, PMS_ENG_IBS);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		CHECK_EQ_INT(att[0].err, EINVAL);
		CHECK(strstr(att[1].reason, "WEIGHT_STRUCT") != NULL);
		CHECK_EQ_INT(att[1].err, 0);
	}
	free(att);
out:
	th_root_close(&r);
}

PMS_TEST_MAIN()
