/* Differential test: AMD IBS raw samples decoded by pmuscope and by perf.
 *
 * For several AMD CPUs (Zen 4 and Zen 5 with the Zen 4 IBS extensions, Zen 3
 * with erratum 1293, Zen 2) a perf.data file is written with the library's
 * writer: an ibs_op and an ibs_fetch attr (PERF_SAMPLE_IDENTIFIER|IP|TID|
 * CPU|PERIOD|RAW), HEADER_ARCH x86_64, HEADER_CPUID "AuthenticAMD,family,
 * model,stepping", PMU_MAPPINGS naming ibs_op/ibs_fetch and, for Zen 4+,
 * PMU_CAPS ibs_op zen4_ibs_extensions=1 (what perf's amd-sample-raw.c needs;
 * perf-oracles.md).  Each file holds random raw samples: op registers with
 * every DataSrc code of the Zen 4 (5-bit) and legacy (3-bit) tables, every
 * IbsOpData3 valid bit on and off, RmtNode, CacheHitSt, latencies, RipInvalid,
 * branch bits, and fetch registers; about 2% have Val clear.
 *
 * `perf report -D` prints perf's own decode of every field.  For every sample
 * the test requires:
 *   - perf prints a decode exactly for the samples the driver keeps (Val set;
 *     pms_ibs_raw_memsample gives PMS_ENOENT for the others);
 *   - every field perf prints equals pms_ibs_op_fields_decode /
 *     pms_ibs_fetch_fields_decode, and the optional lines and fields (IbsOpRip,
 *     ibs_op_data2 under erratum 1293, CacheHitSt, DataSrc, L2Miss, OpMemWidth,
 *     IbsDCLinAd, IbsDCPhysAd, IbsBrTarget, IcMiss, L1TlbPgSz, ...) are
 *     present exactly when pmuscope's fields say so;
 *   - the memory sample (pms_ibs_raw_memsample) has ip = IbsOpRip, addr =
 *     IbsDCLinAd, phys_addr = IbsDCPhysAd, weight = DcMissLat under the
 *     driver's valid-bit rules, evaluated on the fields perf printed;
 *   - its data_src equals the value the kernel builds from the fields perf
 *     printed (perf_ibs_get_mem_lvl and friends, kernel-abi-facts.md 3.2-3.3)
 *     with the level taken from the kernel's table (pms_ibs_data_src_entry
 *     on perf's DataSrc and RmtNode).
 * Known difference kept out of the generated data: with BrnRet set and no
 * IbsBrTarget in the raw data (caps without BRNTRGT), perf reads the 8 bytes
 * after the raw payload as the branch target (amd_dump_ibs_op); likewise the
 * IcIbsExtdCtl line without FETCHCTLEXTD.  Files here always carry those
 * registers (docs/ibs.md). */
#include "check.h"
#include "perf_tool.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/memsample.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>

#define OP_TYPE 11
#define FETCH_TYPE 10
#define SAMPLES_PER_FILE 26000

static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}
static bool chance(unsigned percent)
{
	return rnd() % 100 < percent;
}

struct cpu_case {
	const char *cpuid, *what;
	uint32_t caps;
};

/* caps: AVAIL..OPDATA4 (bits 0-10) + ZEN4 (11) and OPDTLBPGSIZE (19) where
 * the part has them. */
#define CAPS_BASE 0x7ffu
static const struct cpu_case cpus[] = {
	{ "AuthenticAMD,25,17,1", "Zen 4 (Genoa)", CAPS_BASE | PMS_IBS_CAPS_ZEN4 },
	{ "AuthenticAMD,26,2,0", "Zen 5", CAPS_BASE | PMS_IBS_CAPS_ZEN4 | PMS_IBS_CAPS_OPDTLBPGSIZE },
	{ "AuthenticAMD,25,1,1", "Zen 3 (Milan, erratum 1293)", CAPS_BASE },
	{ "AuthenticAMD,23,49,0", "Zen 2 (Rome)", CAPS_BASE },
};

/* ---- generating ----------------------------------------------------------------- */

static void gen_op(const struct cpu_case *cc, struct pms_ibs_op_regs *r)
{
	bool zen4 = cc->caps & PMS_IBS_CAPS_ZEN4;
	unsigned ds = zen4 ? (unsigned)(rnd() % 32) : (unsigned)(rnd() % 8);
	uint64_t d3 = rnd();

	memset(r, 0, sizeof(*r));
	r->op_ctl = (rnd() & 0x07fff0000000ffffULL) | (1ULL << 17) |
		    (chance(98) ? 1ULL << 18 : 0) | (chance(50) ? 1ULL << 19 : 0);
	if (!zen4)
		r->op_ctl &= ~(1ULL << 16);
	r->op_rip = chance(50) ? 0x400000 + (rnd() & 0xfffff) : 0xffffffff81000000ULL + (rnd() & 0xffffff);
	r->op_data = rnd() & 0x1fcffffffffULL;
	if (chance(80))
		r->op_data &= ~(1ULL << 38); /* RipInvalid mostly clear */
	r->op_data2 = (uint64_t)(ds & 7) | ((uint64_t)(ds >> 3) << 6) | (rnd() & 0x330);
	/* IbsOpData3: random bits, with loads, stores and neither in
	 * proportion, and each valid bit on or off. */
	d3 &= ~3ULL;
	switch (rnd() % 4) {
	case 0: case 1: d3 |= 1; break;
	case 2: d3 |= 2; break;
	default: break;
	}
	r->op_data3 = d3 & ~(0x1fULL << 9); /* bits 9-12 reserved */
	r->dc_lin_ad = rnd() & 0x00007fffffffffffULL;
	r->dc_phys_ad = rnd() & 0x000fffffffffffffULL;
	r->br_target = chance(80) ? 0x400000 + (rnd() & 0xfffff) : 0;
	r->op_data4 = 0;
	r->has_br_target = r->has_op_data4 = true;
}

static void gen_fetch(struct pms_ibs_fetch_regs *r)
{
	memset(r, 0, sizeof(*r));
	r->fetch_ctl = (rnd() & 0x3ffeffffffffffffULL) | (1ULL << 48);
	if (chance(2))
		r->fetch_ctl &= ~(1ULL << 49);
	else
		r->fetch_ctl |= 1ULL << 49;
	r->lin_ad = 0x400000 + (rnd() & 0xfffff);
	r->phys_ad = rnd() & 0x000fffffffffffffULL;
	r->extd_ctl = rnd() & 0xffff;
	r->has_extd_ctl = true;
}

struct sample_gen {
	bool fetch;
	struct pms_ibs_op_regs op;
	struct pms_ibs_fetch_regs fe;
};

static int write_file(const char *path, const struct cpu_case *cc, struct sample_gen *gens,
		      size_t n)
{
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a;
	uint64_t id_op = 1, id_fe = 2;
	struct pms_perfdata_pmu_map pmus[3] = { { 4, "cpu" },
						{ FETCH_TYPE, "ibs_fetch" },
						{ OP_TYPE, "ibs_op" } };
	struct pms_perfdata_str_pair cap = { "zen4_ibs_extensions", "1" };
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644), rc = -1;

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;
	if (pms_perfdata_writer_open(fd, &w) < 0)
		goto out;
	a.type = OP_TYPE;
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id_op, 1));
	a.type = FETCH_TYPE;
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id_fe, 1));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64"));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_CPUID, cc->cpuid));
	CHECK_OK(pms_perfdata_writer_set_nrcpus(w, 8, 8));
	CHECK_OK(pms_perfdata_writer_set_pmu_mappings(w, pmus, 3));
	if (cc->caps & PMS_IBS_CAPS_ZEN4)
		CHECK_OK(pms_perfdata_writer_set_pmu_caps(w, "ibs_op", &cap, 1));
	for (size_t i = 0; i < n; i++) {
		unsigned char b[256];
		size_t k = 0;
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
		uint64_t regs[9];
		size_t nregs;
		uint32_t caps, raw_size, pid = 100 + (uint32_t)(i % 7), cpu = (uint32_t)(i % 8), z = 0;
		uint64_t v;

		if (gens[i].fetch) {
			caps = cc->caps | PMS_IBS_CAPS_FETCHCTLEXTD;
			regs[0] = gens[i].fe.fetch_ctl;
			regs[1] = gens[i].fe.lin_ad;
			regs[2] = gens[i].fe.phys_ad;
			regs[3] = gens[i].fe.extd_ctl;
			nregs = 4;
		} else {
			caps = cc->caps;
			regs[0] = gens[i].op.op_ctl;
			regs[1] = gens[i].op.op_rip;
			regs[2] = gens[i].op.op_data;
			regs[3] = gens[i].op.op_data2;
			regs[4] = gens[i].op.op_data3;
			regs[5] = gens[i].op.dc_lin_ad;
			regs[6] = gens[i].op.dc_phys_ad;
			regs[7] = gens[i].op.br_target;
			regs[8] = gens[i].op.op_data4;
			nregs = 9;
		}
		k = 8;
		v = gens[i].fetch ? id_fe : id_op;
		memcpy(b + k, &v, 8), k += 8;            /* IDENTIFIER */
		v = 0x10000000ULL + i;                   /* IP: the sample's index */
		memcpy(b + k, &v, 8), k += 8;
		memcpy(b + k, &pid, 4), k += 4;          /* TID */
		memcpy(b + k, &pid, 4), k += 4;
		memcpy(b + k, &cpu, 4), k += 4;          /* CPU */
		memcpy(b + k, &z, 4), k += 4;
		v = 100000;
		memcpy(b + k, &v, 8), k += 8;            /* PERIOD */
		raw_size = (uint32_t)(4 + 8 * nregs);    /* 4 + raw_size: a multiple of 8 */
		memcpy(b + k, &raw_size, 4), k += 4;
		memcpy(b + k, &caps, 4), k += 4;
		memcpy(b + k, regs, 8 * nregs), k += 8 * nregs;
		h.size = (uint16_t)k;
		memcpy(b, &h, 8);
		CHECK_OK(pms_perfdata_writer_write(w, b, k));
	}
	CHECK_OK(pms_perfdata_writer_close(w));
	rc = 0;
out:
	pms_perfdata_writer_free(w);
	close(fd);
	return rc;
}

/* ---- perf's output ---------------------------------------------------------------- */

#define MAXKV 64
struct kv {
	char key[32];
	long long val;
};

struct psample {
	uint64_t ip; /* the record's IP: the sample's index */
	bool have_op_ctl, have_rip, have_data, have_data2, have_data3, have_lin, have_phys,
		have_brt, have_fetch_ctl, have_fetch_lin, have_fetch_phys, have_extd;
	uint64_t rip, lin, phys, brt, fetch_lin, fetch_phys;
	struct kv kv[MAXKV];
	size_t nkv;
	char pgsz[16];
};

static void add_pairs(struct psample *s, char *rest)
{
	char *tok[64];
	size_t n = 0;
	for (char *t = strtok(rest, " \t\n"); t && n < 64; t = strtok(NULL, " \t\n"))
		tok[n++] = t;
	/* tok[0] is the register value in hex. */
	for (size_t i = 1; i + 1 < n; i++) {
		char *k = tok[i], *v = tok[i + 1];
		if (!((k[0] >= 'A' && k[0] <= 'Z') || (k[0] >= 'a' && k[0] <= 'z')))
			continue;
		if (!strcmp(k, "L1TlbPgSz")) {
			snprintf(s->pgsz, sizeof(s->pgsz), "%s", v);
			i++;
			continue;
		}
		if (!((v[0] >= '0' && v[0] <= '9') || v[0] == '-'))
			continue;
		if (s->nkv < MAXKV) {
			snprintf(s->kv[s->nkv].key, sizeof(s->kv[0].key), "%s", k);
			s->kv[s->nkv].val = strtoll(v, NULL, 10);
			s->nkv++;
		}
		i++;
	}
}

static bool get(const struct psample *s, const char *key, long long *v)
{
	for (size_t i = 0; i < s->nkv; i++)
		if (!strcmp(s->kv[i].key, key)) {
			*v = s->kv[i].val;
			return true;
		}
	return false;
}

static int perf_dump(const char *path, const char *errpath, struct psample *out, size_t n)
{
	char cmd[2048], line[4096];
	struct psample cur;
	FILE *p;

	memset(&cur, 0, sizeof(cur));
	snprintf(cmd, sizeof(cmd), "perf report -D -i '%s' 2>'%s'", path, errpath);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *tab = strchr(line, '\t');
		if (strstr(line, "PERF_RECORD_SAMPLE(")) {
			/* "... PERF_RECORD_SAMPLE(IP, 0x2): 100/100: 0x10000007 period: ..." */
			char *q = strstr(line, ": 0x");
			uint64_t ip = q ? strtoull(q + 2, NULL, 16) : 0;
			if (ip >= 0x10000000ULL && ip - 0x10000000ULL < n) {
				cur.ip = ip;
				out[ip - 0x10000000ULL] = cur;
			} else {
				CHECK_MSG(0, "perf -D sample line without a known ip: %s", line);
			}
			memset(&cur, 0, sizeof(cur));
			continue;
		}
		if (!tab)
			continue;
		*tab = '\0';
		if (!strcmp(line, "ibs_op_ctl:"))
			cur.have_op_ctl = true, add_pairs(&cur, tab + 1);
		else if (!strcmp(line, "IbsOpRip:"))
			cur.have_rip = true, cur.rip = strtoull(tab + 1, NULL, 16);
		else if (!strcmp(line, "ibs_op_data:"))
			cur.have_data = true, add_pairs(&cur, tab + 1);
		else if (!strcmp(line, "ibs_op_data2:"))
			cur.have_data2 = true, add_pairs(&cur, tab + 1);
		else if (!strcmp(line, "ibs_op_data3:"))
			cur.have_data3 = true, add_pairs(&cur, tab + 1);
		else if (!strcmp(line, "IbsDCLinAd:"))
			cur.have_lin = true, cur.lin = strtoull(tab + 1, NULL, 16);
		else if (!strcmp(line, "IbsDCPhysAd:"))
			cur.have_phys = true, cur.phys = strtoull(tab + 1, NULL, 16);
		else if (!strcmp(line, "IbsBrTarget:"))
			cur.have_brt = true, cur.brt = strtoull(tab + 1, NULL, 16);
		else if (!strcmp(line, "ibs_fetch_ctl:"))
			cur.have_fetch_ctl = true, add_pairs(&cur, tab + 1);
		else if (!strcmp(line, "IbsFetchLinAd:"))
			cur.have_fetch_lin = true, cur.fetch_lin = strtoull(tab + 1, NULL, 16);
		else if (!strcmp(line, "IbsFetchPhysAd:"))
			cur.have_fetch_phys = true, cur.fetch_phys = strtoull(tab + 1, NULL, 16);
		else if (!strcmp(line, "ic_ibs_ext_ctl:"))
			cur.have_extd = true, add_pairs(&cur, tab + 1);
	}
	return pt_status(pclose(p));
}

/* ---- the kernel's data_src, from the fields perf printed ------------------------------
 * arch/x86/events/amd/ibs.c perf_ibs_parse_ld_st_data (kernel-abi-facts.md
 * 3.2, 3.3).  The level comes from the library's table
 * (pms_ibs_data_src_entry), applied to perf's DataSrc and RmtNode. */

#define F(name) fld(s, name)
static long long fld(const struct psample *s, const char *key)
{
	long long v = 0;
	CHECK_MSG(get(s, key, &v), "perf printed no %s for sample %" PRIx64, key, s->ip);
	return v;
}

static uint64_t kernel_data_src(const struct psample *s, const struct cpu_case *cc)
{
	bool zen4 = cc->caps & PMS_IBS_CAPS_ZEN4;
	unsigned fam = 0, model = 0;
	long long ds = 0, rmt = 0, chs = 0, l2miss = 0;
	bool ld = F("LdOp"), st = F("StOp"), erratum;
	uint64_t lvl, v;
	unsigned op = ld ? PMS_MEM_OP_LOAD : PMS_MEM_OP_STORE;
	unsigned snoop = PMS_MEM_SNOOP_NA, tlb = PMS_MEM_TLB_NA, lock = PMS_MEM_LOCK_NA;

	(void)st;
	sscanf(cc->cpuid, "%*[^,],%u,%u", &fam, &model);
	erratum = fam == 0x19 && model < 0x10;
	if (s->have_data2) {
		(void)get(s, "DataSrc", &ds);
		rmt = F("RmtNode");
		(void)get(s, "CacheHitSt", &chs);
	}
	(void)get(s, "L2Miss", &l2miss);
	/* Level (perf_ibs_get_mem_lvl). */
	if (F("DcUcMemAcc") && ds != 7)
		lvl = PMS_MEM_S(LVL, UNC) | PMS_MEM_S(LVL, HIT) | PMS_MEM_S(LVLNUM, UNC);
	else if (!F("DcMiss"))
		lvl = PMS_MEM_S(LVL, L1) | PMS_MEM_S(LVL, HIT) | PMS_MEM_S(LVLNUM, L1);
	else if (!(erratum && (F("SwPf") || F("DcMissNoMabAlloc"))) && !F("L2Miss"))
		lvl = PMS_MEM_S(LVL, L2) | PMS_MEM_S(LVL, HIT) | PMS_MEM_S(LVLNUM, L2);
	else if (ld && pms_ibs_data_src_entry(zen4, (unsigned)ds, rmt))
		lvl = pms_ibs_data_src_entry(zen4, (unsigned)ds, rmt);
	else if (F("DcMissNoMabAlloc"))
		lvl = PMS_MEM_S(LVL, LFB) | PMS_MEM_S(LVL, HIT) | PMS_MEM_S(LVLNUM, LFB);
	else
		lvl = PMS_MEM_S(LVL, NA) | PMS_MEM_S(LVLNUM, NA);
	/* Snoop (perf_ibs_get_mem_snoop): CacheHitSt is not trusted on family
	 * 0x19 models 0x00-0x0f and 0x20-0x5f. */
	{
		bool trusted = !(fam == 0x19 && (model <= 0x0f || (model >= 0x20 && model <= 0x5f)));
		bool l1l2 = (lvl >> PMS_MEM_LVL_SHIFT) & (PMS_MEM_LVL_L1 | PMS_MEM_LVL_L2);
		bool code = zen4 ? (ds == 1 || ds == 2 || ds == 5) : ds == 2;
		if (trusted && ld && !l1l2 && s->have_data2 && !chs && code)
			snoop = PMS_MEM_SNOOP_HITM;
	}
	/* TLB (perf_ibs_get_tlb_lvl). */
	if (F("DcLinAddrValid") &&
	    (!(cc->caps & PMS_IBS_CAPS_OPDTLBPGSIZE) || F("DcPhyAddrValid")))
		tlb = !F("DcL1TlbMiss") ? PMS_MEM_TLB_L1 | PMS_MEM_TLB_HIT
		      : !F("DcL2TlbMiss") ? PMS_MEM_TLB_L2 | PMS_MEM_TLB_HIT
					  : PMS_MEM_TLB_L2 | PMS_MEM_TLB_MISS;
	if (F("DcLockedOp"))
		lock = PMS_MEM_LOCK_LOCKED;
	(void)l2miss;
	v = PMS_MEM_NA_VALUE & ~(0x1fULL | (0x3fffULL << PMS_MEM_LVL_SHIFT) |
				(0xfULL << PMS_MEM_LVLNUM_SHIFT) | (0x1fULL << PMS_MEM_SNOOP_SHIFT) |
				(0x7fULL << PMS_MEM_TLB_SHIFT) | (0x3ULL << PMS_MEM_LOCK_SHIFT));
	v |= op | lvl | ((uint64_t)snoop << PMS_MEM_SNOOP_SHIFT) |
	     ((uint64_t)tlb << PMS_MEM_TLB_SHIFT) | ((uint64_t)lock << PMS_MEM_LOCK_SHIFT);
	return v;
}

/* ---- comparing one sample --------------------------------------------------------------- */

#define EQ(key, want)                                                                       \
	do {                                                                                \
		long long got_ = 0;                                                         \
		bool ok_ = get(s, key, &got_) && got_ == (long long)(want);                 \
		fields++;                                                                   \
		if (!ok_ && (*bad)++ < 20)                                                  \
			CHECK_MSG(0, "%s sample %zu: %s: perf %lld, pmuscope %lld", cc->what, i, \
				  key, got_, (long long)(want));                            \
	} while (0)
#define PRESENT(cond, want, label)                                                          \
	do {                                                                                \
		fields++;                                                                   \
		if ((bool)(cond) != (bool)(want) && (*bad)++ < 20)                          \
			CHECK_MSG(0, "%s sample %zu: %s printed by perf: %d, by pmuscope's " \
				  "fields: %d", cc->what, i, label, (int)(bool)(cond),     \
				  (int)(bool)(want));                                       \
	} while (0)

static uint64_t fields;

static void compare_op(const struct cpu_case *cc, size_t i, const struct sample_gen *g,
		       const struct psample *s, unsigned *bad, uint64_t *checked_ds)
{
	struct pms_ibs_cpu cpu;
	struct pms_ibs_op_fields f;
	struct pms_memsample ms;
	unsigned char raw[4 + 9 * 8];
	uint64_t regs[9] = { g->op.op_ctl, g->op.op_rip, g->op.op_data, g->op.op_data2,
			     g->op.op_data3, g->op.dc_lin_ad, g->op.dc_phys_ad, g->op.br_target,
			     g->op.op_data4 };
	long long ds = 0;
	int rc;

	CHECK_OK(pms_ibs_cpu_from_cpuid(cc->cpuid, cc->caps, &cpu));
	memcpy(raw, &cc->caps, 4);
	memcpy(raw + 4, regs, sizeof(regs));
	CHECK_OK(pms_ibs_op_fields_decode(&g->op, &cpu, &f));
	rc = pms_ibs_raw_memsample(raw, sizeof(raw), false, &cpu, &ms);
	/* perf decodes exactly the samples with En and Val; the driver keeps
	 * those with Val (En is always set here). */
	PRESENT(s->have_op_ctl, f.en && f.val, "a decode");
	CHECK_EQ_INT(rc == PMS_ENOENT, !f.val);
	if (!s->have_op_ctl || rc < 0)
		return;
	EQ("MaxCnt", f.max_cnt);
	PRESENT(get(s, "L3MissOnly", &ds), f.zen4, "L3MissOnly");
	if (f.zen4)
		EQ("L3MissOnly", f.l3_miss_only);
	EQ("En", f.en);
	EQ("Val", f.val);
	EQ("CntCtl", f.cnt_ctl);
	EQ("CurCnt", f.cur_cnt);
	PRESENT(s->have_rip, !f.rip_invalid, "IbsOpRip");
	if (s->have_rip) {
		fields++;
		CHECK_EQ_U64(s->rip, g->op.op_rip);
		/* The sample's ip is IbsOpRip (RIPINVALIDCHK is in these caps). */
		CHECK((ms.valid & PMS_MS_IP) && ms.ip == s->rip);
	} else {
		CHECK(!(ms.valid & PMS_MS_IP));
	}
	EQ("CompToRetCtr", f.comp_to_ret_ctr);
	EQ("TagToRetCtr", f.tag_to_ret_ctr);
	EQ("BrnRet", f.brn_ret);
	PRESENT(get(s, "OpReturn", &ds), f.brn_ret, "OpReturn");
	if (f.brn_ret) {
		EQ("OpReturn", f.op_return);
		EQ("OpBrnTaken", f.brn_taken);
		EQ("OpBrnMisp", f.brn_misp);
	}
	EQ("RipInvalid", f.rip_invalid);
	EQ("BrnFuse", f.brn_fuse);
	EQ("Microcode", f.microcode);
	PRESENT(s->have_data2, f.data2_valid, "ibs_op_data2");
	if (s->have_data2) {
		bool hitst = f.zen4 ? (f.data_src == 1 || f.data_src == 2 || f.data_src == 5)
				    : f.data_src == 2;
		bool named = f.data_src != 0 && (f.zen4 ? f.data_src < 13 : f.data_src < 8);
		EQ("RmtNode", f.rmt_node);
		PRESENT(get(s, "CacheHitSt", &ds), hitst, "CacheHitSt");
		if (hitst)
			EQ("CacheHitSt", f.cache_hit_st);
		PRESENT(get(s, "DataSrc", &ds), named, "DataSrc");
		if (named)
			EQ("DataSrc", f.data_src);
	}
	EQ("LdOp", f.ld_op);
	EQ("StOp", f.st_op);
	EQ("DcL1TlbMiss", f.dc_l1tlb_miss);
	EQ("DcL2TlbMiss", f.dc_l2tlb_miss);
	EQ("DcL1TlbHit2M", f.dc_l1tlb_hit_2m);
	EQ("DcL1TlbHit1G", f.dc_l1tlb_hit_1g);
	EQ("DcL2TlbHit2M", f.dc_l2tlb_hit_2m);
	EQ("DcMiss", f.dc_miss);
	EQ("DcMisAcc", f.dc_mis_acc);
	EQ("DcWcMemAcc", f.dc_wc_mem_acc);
	EQ("DcUcMemAcc", f.dc_uc_mem_acc);
	EQ("DcLockedOp", f.dc_locked_op);
	EQ("DcMissNoMabAlloc", f.dc_miss_no_mab_alloc);
	EQ("DcLinAddrValid", f.dc_lin_addr_valid);
	EQ("DcPhyAddrValid", f.dc_phy_addr_valid);
	EQ("DcL2TlbHit1G", f.dc_l2tlb_hit_1g);
	EQ("SwPf", f.sw_pf);
	PRESENT(get(s, "L2Miss", &ds), f.l2_miss_valid, "L2Miss");
	if (f.l2_miss_valid) {
		EQ("L2Miss", f.l2_miss);
		EQ("OpDcMissOpenMemReqs", f.op_dc_miss_open_mem_reqs);
	}
	PRESENT(get(s, "OpMemWidth", &ds), f.op_mem_width != 0, "OpMemWidth");
	if (f.op_mem_width)
		EQ("OpMemWidth", f.op_mem_width);
	EQ("DcMissLat", f.dc_miss_lat);
	EQ("TlbRefillLat", f.tlb_refill_lat);
	PRESENT(s->have_lin, f.dc_lin_addr_valid, "IbsDCLinAd");
	PRESENT(s->have_phys, f.dc_phy_addr_valid, "IbsDCPhysAd");
	PRESENT(s->have_brt, f.brn_ret && g->op.br_target, "IbsBrTarget");
	if (s->have_brt)
		CHECK_EQ_U64(s->brt, g->op.br_target);

	/* The memory sample under the driver's valid-bit rules, evaluated on
	 * the fields perf printed. */
	{
		bool ldst = F("LdOp") || F("StOp");
		bool want_addr = ldst && s->have_lin, want_phys = ldst && s->have_phys;
		bool want_w = F("LdOp") && F("DcMiss");
		fields += 4;
		CHECK_EQ_INT(!!(ms.valid & PMS_MS_ADDR), want_addr);
		if (want_addr)
			CHECK_EQ_U64(ms.addr, s->lin);
		CHECK_EQ_INT(!!(ms.valid & PMS_MS_PHYS), want_phys);
		if (want_phys)
			CHECK_EQ_U64(ms.phys_addr, s->phys);
		CHECK_EQ_INT(!!(ms.valid & PMS_MS_WEIGHT), want_w);
		if (want_w)
			CHECK_EQ_U64(ms.weight, (uint64_t)F("DcMissLat"));
		CHECK_EQ_INT(!!(ms.valid & PMS_MS_DATA_SRC), ldst);
		if (ldst) {
			uint64_t want = kernel_data_src(s, cc);
			if (ms.data_src != want && (*bad)++ < 20)
				CHECK_MSG(0, "%s sample %zu: data_src pmuscope %" PRIx64
					  ", kernel rule on perf's fields %" PRIx64, cc->what, i,
					  ms.data_src, want);
			(*checked_ds)++;
		}
	}
}

static const char *pgsz_name(bool erratum, unsigned v)
{
	static const char *const norm[] = { "4KB", "2MB", "1GB", "RESERVED" };
	static const char *const e1347[] = { "4KB", "16KB", "2MB", "1GB" };
	return erratum ? e1347[v & 3] : norm[v & 3];
}

static void compare_fetch(const struct cpu_case *cc, size_t i, const struct sample_gen *g,
			  const struct psample *s, unsigned *bad)
{
	struct pms_ibs_cpu cpu;
	struct pms_ibs_fetch_fields f;
	struct pms_memsample ms;
	unsigned char raw[4 + 4 * 8];
	uint32_t caps = cc->caps | PMS_IBS_CAPS_FETCHCTLEXTD;
	uint64_t regs[4] = { g->fe.fetch_ctl, g->fe.lin_ad, g->fe.phys_ad, g->fe.extd_ctl };
	bool zen4 = cc->caps & PMS_IBS_CAPS_ZEN4, erratum;
	long long tmp;
	int rc;

	CHECK_OK(pms_ibs_cpu_from_cpuid(cc->cpuid, caps, &cpu));
	erratum = cpu.family == 0x19 && cpu.model < 0x10;
	memcpy(raw, &caps, 4);
	memcpy(raw + 4, regs, sizeof(regs));
	CHECK_OK(pms_ibs_fetch_fields_decode(&g->fe, &f));
	rc = pms_ibs_raw_memsample(raw, sizeof(raw), true, &cpu, &ms);
	PRESENT(s->have_fetch_ctl, f.en && f.val, "a fetch decode");
	CHECK_EQ_INT(rc == PMS_ENOENT, !f.val);
	if (!s->have_fetch_ctl || rc < 0)
		return;
	EQ("MaxCnt", f.max_cnt);
	EQ("Cnt", f.cnt);
	EQ("Lat", f.lat);
	EQ("En", f.en);
	EQ("Val", f.val);
	EQ("Comp", f.comp);
	PRESENT(get(s, "IcMiss", &tmp), !erratum, "IcMiss");
	if (!erratum)
		EQ("IcMiss", f.ic_miss);
	EQ("PhyAddrValid", f.phy_addr_valid);
	PRESENT(s->pgsz[0], f.phy_addr_valid, "L1TlbPgSz");
	if (f.phy_addr_valid && strcmp(s->pgsz, pgsz_name(erratum, f.l1tlb_pgsz)) && (*bad)++ < 20)
		CHECK_MSG(0, "%s sample %zu: L1TlbPgSz perf %s, pmuscope %u", cc->what, i, s->pgsz,
			  f.l1tlb_pgsz);
	EQ("L1TlbMiss", f.l1tlb_miss);
	EQ("L2TlbMiss", f.l2tlb_miss);
	EQ("RandEn", f.rand_en);
	PRESENT(get(s, "L2Miss", &tmp), f.comp, "fetch L2Miss");
	if (f.comp)
		EQ("L2Miss", f.l2_miss);
	PRESENT(get(s, "L3MissOnly", &tmp), zen4, "fetch L3MissOnly");
	if (zen4) {
		EQ("L3MissOnly", f.l3_miss_only);
		EQ("FetchOcMiss", f.oc_miss);
		EQ("FetchL3Miss", f.l3_miss);
	}
	EQ("IbsItlbRefillLat", f.itlb_refill_lat);
	fields += 2;
	CHECK(s->have_fetch_lin && (ms.valid & PMS_MS_IP) && ms.ip == s->fetch_lin);
	PRESENT(s->have_fetch_phys, f.phy_addr_valid, "IbsFetchPhysAd");
	CHECK_EQ_INT(!!(ms.valid & PMS_MS_PHYS), s->have_fetch_phys);
	if (s->have_fetch_phys)
		CHECK_EQ_U64(ms.phys_addr, s->fetch_phys);
	CHECK(!(ms.valid & PMS_MS_DATA_SRC));
}

PMS_TEST(ibs_raw_matches_perf_report_dump)
{
	char ver[256], dir[512], path[600], errpath[600];
	uint64_t total = 0, ops = 0, fetches = 0, checked_ds = 0, reread = 0, cli_checked = 0;
	unsigned bad = 0;

	if (!pt_perf_version(ver, sizeof(ver)))
		PMS_SKIP(PT_SKIP_MSG);
	if (!pt_mkdtemp(dir, sizeof(dir))) {
		CHECK_MSG(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	pt_perf_env(dir);
	snprintf(errpath, sizeof(errpath), "%s/perf.err", dir);
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
		const struct cpu_case *cc = &cpus[c];
		struct sample_gen *gens = calloc(SAMPLES_PER_FILE, sizeof(*gens));
		struct psample *ps = calloc(SAMPLES_PER_FILE, sizeof(*ps));
		struct pms_perfdata_reader *r = NULL;
		struct pms_perfdata_event ev;
		int rc, fd;

		if (!gens || !ps)
			abort();
		rng_state = 0x2545f4914f6cdd1dULL + c * 0x9e3779b97f4a7c15ULL;
		for (size_t i = 0; i < SAMPLES_PER_FILE; i++) {
			gens[i].fetch = rnd() % 8 == 0;
			if (gens[i].fetch)
				gen_fetch(&gens[i].fe);
			else
				gen_op(cc, &gens[i].op);
		}
		snprintf(path, sizeof(path), "%s/ibs-%zu.data", dir, c);
		CHECK_EQ_INT(write_file(path, cc, gens, SAMPLES_PER_FILE), 0);
		rc = perf_dump(path, errpath, ps, SAMPLES_PER_FILE);
		CHECK_MSG(rc == 0, "perf report -D on %s (%s) exited %d; see %s", path, cc->what, rc,
			  errpath);
		for (size_t i = 0; i < SAMPLES_PER_FILE; i++) {
			CHECK_MSG(ps[i].ip == 0x10000000ULL + i, "%s: perf did not print sample %zu",
				  cc->what, i);
			if (gens[i].fetch) {
				compare_fetch(cc, i, &gens[i], &ps[i], &bad);
				fetches++;
			} else {
				compare_op(cc, i, &gens[i], &ps[i], &bad, &checked_ds);
				ops++;
			}
			total++;
		}
		/* `pmuscope script` fills these raw-only samples through the one
		 * converter: its addr, phys_addr, weight and data_src equal
		 * pms_ibs_raw_memsample's for every op sample. */
		if (pms_t_cli()) {
			char cmd[2048], line[1024];
			FILE *p;
			size_t lines = 0;
			snprintf(cmd, sizeof(cmd),
				 "'%s' script -i '%s' -F ip,addr,phys_addr,weight,data_src 2>'%s'",
				 pms_t_cli(), path, errpath);
			p = popen(cmd, "r");
			while (p && fgets(line, sizeof(line), p)) {
				unsigned long long ip, addr, phys, w, ds;
				size_t i;
				struct pms_ibs_cpu cpu;
				struct pms_memsample m;
				unsigned char raw[4 + 9 * 8];
				/* perf's order: addr, data_src (value, text), weight,
				 * ip, phys_addr */
				const char *tail = line + strlen(line);
				for (int k = 0; k < 3 && tail > line; k++) { /* the last three words */
					while (tail > line && (tail[-1] == ' ' || tail[-1] == '\n'))
						tail--;
					while (tail > line && tail[-1] != ' ')
						tail--;
				}
				if (sscanf(line, "%llx %llx", &addr, &ds) != 2 ||
				    sscanf(tail, "%llu %llx %llx", &w, &ip, &phys) != 3) {
					CHECK_MSG(0, "pmuscope script line: %s", line);
					continue;
				}
				lines++;
				i = (size_t)(ip - 0x10000000ULL);
				if (i >= SAMPLES_PER_FILE || gens[i].fetch)
					continue;
				memcpy(raw, &cc->caps, 4);
				memcpy(raw + 4, &gens[i].op.op_ctl, 8);
				memcpy(raw + 12, &gens[i].op.op_rip, 8);
				memcpy(raw + 20, &gens[i].op.op_data, 8);
				memcpy(raw + 28, &gens[i].op.op_data2, 8);
				memcpy(raw + 36, &gens[i].op.op_data3, 8);
				memcpy(raw + 44, &gens[i].op.dc_lin_ad, 8);
				memcpy(raw + 52, &gens[i].op.dc_phys_ad, 8);
				memcpy(raw + 60, &gens[i].op.br_target, 8);
				memcpy(raw + 68, &gens[i].op.op_data4, 8);
				CHECK_OK(pms_ibs_cpu_from_cpuid(cc->cpuid, 0, &cpu));
				if (pms_ibs_raw_memsample(raw, sizeof(raw), false, &cpu, &m) < 0)
					memset(&m, 0, sizeof(m));
				if ((addr != ((m.valid & PMS_MS_ADDR) ? m.addr : 0) ||
				     phys != ((m.valid & PMS_MS_PHYS) ? m.phys_addr : 0) ||
				     w != ((m.valid & PMS_MS_WEIGHT) ? m.weight : 0) ||
				     ds != ((m.valid & PMS_MS_DATA_SRC) ? m.data_src : 0)) &&
				    bad++ < 20)
					CHECK_MSG(0, "%s sample %zu: pmuscope script %s", cc->what, i, line);
				cli_checked++;
			}
			CHECK(p && pt_status(pclose(p)) == 0);
			CHECK_EQ_INT(lines, SAMPLES_PER_FILE);
		}
		/* The library's reader hands back the raw payloads as written. */
		fd = open(path, O_RDONLY);
		CHECK_OK(pms_perfdata_reader_open_fd(fd, &r));
		while (r && (rc = pms_perfdata_next(r, &ev)) > 0) {
			size_t i;
			if (ev.rec.type != PMS_RECORD_SAMPLE)
				continue;
			i = (size_t)(ev.rec.sample.ip - 0x10000000ULL);
			CHECK(i < SAMPLES_PER_FILE);
			if (i >= SAMPLES_PER_FILE)
				continue;
			CHECK_EQ_INT(ev.attr->attr->type, gens[i].fetch ? FETCH_TYPE : OP_TYPE);
			CHECK_EQ_INT(ev.rec.sample.raw_size, gens[i].fetch ? 36 : 76);
			if (!gens[i].fetch) {
				struct pms_ibs_op_regs rr;
				uint32_t caps = 0;
				CHECK_OK(pms_ibs_op_raw_parse(ev.rec.sample.raw, ev.rec.sample.raw_size,
							      &rr, &caps));
				CHECK_EQ_U64(rr.op_data3, gens[i].op.op_data3);
				CHECK_EQ_U64(caps, cc->caps);
			}
			reread++;
		}
		pms_perfdata_reader_free(r);
		if (fd >= 0)
			close(fd);
		free(gens);
		free(ps);
	}
	fprintf(stderr,
		"IBS: %" PRIu64 " samples (%" PRIu64 " op, %" PRIu64 " fetch) compared with perf "
		"report -D, %" PRIu64 " field values, %" PRIu64 " data_src values checked "
		"against the kernel rule; %" PRIu64 " re-read through pms_perfdata_reader\n",
		total, ops, fetches, fields, checked_ds, reread);
	if (pms_t_cli())
		fprintf(stderr, "IBS: pmuscope script matched the library on %" PRIu64 " op samples\n",
			cli_checked);
	CHECK_EQ_INT(bad, 0);
	CHECK(total >= 100000);
	CHECK_EQ_INT(reread, total);
	pt_rmdir(dir);
}

PMS_TEST_MAIN()
