/* Binding cases no fixture machine has: aliases with a "?" parameter, a
 * malformed alias, config4 terms, an alias overridden by the user, a
 * mixed-PMU group, built as an in-memory struct pms_pmus. */
#include "event_t.h"
#include "pmuscope/pmu.h"
#include "pmu/pmu_int.h" /* a PMU list built by hand */

struct fdef {
	const char *name, *spec;
};
struct edef {
	const char *name, *value;
	double scale;
	const char *unit;
};

static struct pms_pmu pmu_arr[3];
static struct pms_pmus pmus = { pmu_arr, 3 };

static void fill(struct pms_pmu *p, const char *name, uint32_t type, enum pms_pmu_kind kind,
		 int max_precise, const char *cpus, const struct fdef *f, size_t nf,
		 const struct edef *e, size_t ne)
{
	memset(p, 0, sizeof(*p));
	p->name = (char *)name;
	p->type = type;
	p->kind = kind;
	p->max_precise = max_precise;
	p->box_index = -1;
	CHECK_OK(pms_cpuset_parse_list(&p->cpus, cpus));
	p->formats = calloc(nf, sizeof(*p->formats));
	for (size_t i = 0; i < nf; i++) {
		CHECK_OK(pms_format_parse(f[i].spec, &p->formats[i]));
		p->formats[i].name = (char *)f[i].name;
	}
	p->nformats = nf;
	p->events = calloc(ne, sizeof(*p->events));
	for (size_t i = 0; i < ne; i++) {
		p->events[i].name = (char *)e[i].name;
		p->events[i].value = (char *)e[i].value;
		p->events[i].scale = e[i].scale;
		p->events[i].unit = (char *)e[i].unit;
	}
	p->nevents = ne;
}

static const struct fdef core_f[] = {
	{ "event", "config:0-7" }, { "umask", "config:8-15" }, { "ldlat", "config1:0-15" },
	{ "x4", "config4:0-7" },   { "chip", "config2:0-3" },
};
static const struct edef core_e[] = {
	{ "mem-loads", "event=0xcd,umask=0x1,ldlat=3", 1.0, NULL },
	{ "per-chip", "event=0x10,chip=?", 1.0, NULL },
	{ "broken", "event=,x", 1.0, NULL },
	{ "nested", "mem-loads", 1.0, NULL },
	{ "self-clash", "event=1,event=2", 1.0, NULL },
	{ "bytes", "event=0x20", 64.0, "bytes" },
	{ "unknown-term", "event=1,bogus=2", 1.0, NULL },
};
static const struct fdef spe_f[] = { { "ts_enable", "config:0" } };

static void setup(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	fill(&pmu_arr[0], "cpu", 4, PMS_PMU_CORE, 2, "", core_f, 5, core_e, 7);
	fill(&pmu_arr[1], "software", 1, PMS_PMU_SOFTWARE, -1, "", NULL, 0, NULL, 0);
	fill(&pmu_arr[2], "arm_spe_0", 9, PMS_PMU_PRECISE, -1, "0-3", spe_f, 1, NULL, 0);
}

static const struct ev_row rows[] = {
	{ "cpu/per-chip,chip=2/", 0, "cpu:type=4,config=0x10,config2=0x2" },
	{ "cpu/chip=3,per-chip/", 0, "cpu:type=4,config=0x10,config2=0x3" },
	{ "cpu/per-chip/", PMS_EPARSE, "PMU 'cpu' needs a value for term 'chip' (add 'chip=N') at column 1" },
	{ "per-chip", PMS_EPARSE, "needs a value for term 'chip'" },
	{ "cpu/broken/", PMS_EPARSE, "alias 'broken' of PMU 'cpu' has malformed text 'event=,x' (at its column 7) at column 5" },
	{ "cpu/nested/", PMS_ENOENT, "in alias 'nested' of PMU 'cpu' ('mem-loads'): unknown term 'mem-loads' for PMU 'cpu'" },
	{ "cpu/self-clash/", PMS_EPARSE, "in alias 'self-clash' of PMU 'cpu' ('event=1,event=2'): term 'event=0x2'" },
	{ "cpu/unknown-term/", PMS_ENOENT, "unknown term 'bogus'" },
	{ "cpu/x4=0xff/", 0, "cpu:type=4,config=0x0,config4=0xff" },
	{ "cpu/config4=0x1234/", 0, "cpu:type=4,config=0x0,config4=0x1234" },
	{ "cpu/x4=0x100/", PMS_ERANGE, "(config4:0-7, 8 bits) at column 5" },
	{ "cpu/mem-loads,event=0xd0,umask=0,ldlat=0/", 0, "cpu:type=4,config=0xd0" },
	/* the user's terms win over the alias in either order; two user terms clash */
	{ "cpu/event=0xd0,mem-loads/", 0, "cpu:type=4,config=0x1d0,config1=0x3" },
	{ "cpu/event=0xd0,mem-loads,event=0xd1/", PMS_EPARSE, "term 'event=0xd1'" },
	{ "cpu/mem-loads,mem-loads/", 0, "cpu:type=4,config=0x1cd,config1=0x3" },
	{ "cycles:P", 0, "cpu:type=0,config=0x0,precise_ip=2 P" },
	{ "cpu/event=1/P", 0, "cpu:type=4,config=0x1,precise_ip=2 P" },
	{ "arm_spe_0/ts_enable/P", 0, "arm_spe_0:type=9,config=0x1@0-3 P" },
	{ "cpu/event=1,time=1,inherit/", 0, "cpu:type=4,config=0x1,sample_type=0x4,inherit" },
	{ "cpu/event=1,time=2/", PMS_EPARSE, "term 'time' takes 0 or 1, not '2'" },
	{ "cpu/event=1,no-inherit=1/", PMS_EPARSE, "term 'no-inherit' takes no value" },
	{ "cpu/event=1,name/", PMS_EPARSE, "term 'name' needs a value at column 13" },
	{ "cpu/cycles,config=1/", PMS_EPARSE, "term 'config' cannot be combined with generic event 'cycles'" },
	{ "cpu/event=1,cycles/", PMS_EPARSE, "generic event 'cycles' cannot be combined with config terms such as 'event'" },
	{ "arm_spe_0/cycles/", PMS_ENOENT, "unknown term 'cycles' for PMU 'arm_spe_0' (format terms: ts_enable)" },
	{ "software/cycles/", PMS_ENOENT, "(format terms: none)" },
	/* one core PMU: a group of mixed PMUs is not split */
	{ "{cpu/event=1/,arm_spe_0//}", 0, "cpu:type=4,config=0x1 g0L ; arm_spe_0:type=9,config=0x0@0-3 g0" },
	{ "{bytes,cs}:D", 0, "cpu:type=4,config=0x20,pinned g0L ; type=1,config=0x3 g0" },
};

PMS_TEST(in_memory_rows)
{
	setup();
	ev_run_rows(&pmus, "in-memory", rows, sizeof(rows) / sizeof(rows[0]));
}

PMS_TEST(alias_scale_unit_and_names)
{
	struct pms_event_list *l = NULL;
	setup();
	CHECK_OK(pms_event_parse(&pmus, "cpu/bytes,name=\"my bytes\"/,bytes", &l));
	if (!l)
		return;
	CHECK_EQ_INT(pms_event_list_count(l), 2);
	CHECK_EQ_STR(pms_event_list_at(l, 0)->name, "my bytes");
	CHECK(pms_event_list_at(l, 0)->scale == 64.0);
	CHECK_EQ_STR(pms_event_list_at(l, 0)->unit, "bytes");
	CHECK_EQ_STR(pms_event_list_at(l, 1)->name, "bytes");
	CHECK_EQ_STR(pms_event_list_at(l, 1)->unit, "bytes");
	pms_event_list_free(l);
}

PMS_TEST_MAIN()
