/* libFuzzer target for the event-string parser.  Input: the event string
 * (first byte even: parsed against a small in-memory hybrid machine; odd:
 * against no PMUs; bit 1 set: with a small catalog of core, hybrid, uncore,
 * alias-shadowed, too-wide and malformed entries).  On success the result must be consistent: names set,
 * every group has exactly one leader, every event describes. */
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmu/pmu_int.h" /* a PMU list built by hand */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fmt_def {
	const char *name, *spec;
};
struct ev_def {
	const char *name, *value;
};

static const struct fmt_def core_fmts[] = {
	{ "event", "config:0-7,32-35" }, { "umask", "config:8-15" },  { "edge", "config:18" },
	{ "inv", "config:23" },          { "cmask", "config:24-31" }, { "ldlat", "config1:0-15" },
	{ "frontend", "config1:0-23" },  { "offcore_rsp", "config1:0-63" },
	{ "wide", "config4:0-63" },      { "chip", "config2:0-3" },
};
static const struct ev_def core_evs[] = {
	{ "cpu-cycles", "event=0x3c" },
	{ "mem-loads", "event=0xcd,umask=0x1,ldlat=3" },
	{ "per-chip", "event=0x10,chip=?" },
	{ "broken", "event=,=" },
	{ "with-period", "event=0xc0,period=1000" },
};
static const struct fmt_def unc_fmts[] = { { "event", "config:0-7" }, { "umask", "config:8-15" } };
static const struct ev_def unc_evs[] = { { "clockticks", "event=0xff" } };

/* kernel pmu-events rows, then `perf list -j` rows with free-form encodings */
static const char cat_kernel[] =
	"[{\"EventName\": \"cat_core\", \"EventCode\": \"0x11\"},"
	" {\"EventName\": \"cat_hyb\", \"EventCode\": \"0x12\", \"Unit\": \"cpu_core\"},"
	" {\"EventName\": \"cat_hyb\", \"EventCode\": \"0x13\", \"UMask\": \"0x1\", \"Unit\": \"cpu_atom\"},"
	" {\"EventName\": \"cat_unc\", \"EventCode\": \"0x14\", \"Unit\": \"box\", \"PerPkg\": \"1\"},"
	" {\"EventName\": \"mem-loads\", \"EventCode\": \"0x99\"},"
	" {\"EventName\": \"cat_wide\", \"EventCode\": \"0x12345\"},"
	" {\"EventName\": \"cat_gone\", \"EventCode\": \"0x1\", \"Unit\": \"IMC\"}]";
static const char cat_perflist[] =
	"[{\"EventName\": \"cat_bad\", \"Encoding\": \"cpu_core/event=,=/\"},"
	" {\"EventName\": \"cat_nest\", \"Encoding\": \"cpu_core/cat_core,mem-loads/\"},"
	" {\"EventName\": \"cat_chip\", \"Encoding\": \"cpu_core/per-chip,period=7/\"}]";
static struct pms_catalog *cat;

static struct pms_pmu pmu_arr[4];
static struct pms_pmus pmus = { pmu_arr, 4 };

static void fill(struct pms_pmu *p, const char *name, uint32_t type, enum pms_pmu_kind kind,
		 const char *cpus, const struct fmt_def *f, size_t nf, const struct ev_def *e,
		 size_t ne)
{
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	p->type = type;
	p->kind = kind;
	p->max_precise = kind == PMS_PMU_CORE ? 3 : -1;
	p->nr_addr_filters = -1;
	p->box_index = -1;
	if (kind == PMS_PMU_UNCORE) {
		p->box = strdup("uncore_box");
		p->box_index = (int)type & 1;
	}
	pms_cpuset_parse_list(&p->cpus, cpus);
	p->formats = calloc(nf, sizeof(*p->formats));
	for (size_t i = 0; i < nf; i++) {
		pms_format_parse(f[i].spec, &p->formats[i]);
		p->formats[i].name = strdup(f[i].name);
	}
	p->nformats = nf;
	p->events = calloc(ne, sizeof(*p->events));
	for (size_t i = 0; i < ne; i++) {
		p->events[i].name = strdup(e[i].name);
		p->events[i].value = strdup(e[i].value);
		p->events[i].scale = 1.0;
	}
	p->nevents = ne;
}

static void setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	fill(&pmu_arr[0], "cpu_atom", 10, PMS_PMU_CORE, "8-15", core_fmts, 6, core_evs, 2);
	fill(&pmu_arr[1], "cpu_core", 4, PMS_PMU_CORE, "0-7", core_fmts,
	     sizeof(core_fmts) / sizeof(core_fmts[0]), core_evs,
	     sizeof(core_evs) / sizeof(core_evs[0]));
	fill(&pmu_arr[2], "uncore_box_0", 20, PMS_PMU_UNCORE, "0", unc_fmts, 2, unc_evs, 1);
	fill(&pmu_arr[3], "uncore_box_1", 21, PMS_PMU_UNCORE, "0", unc_fmts, 2, unc_evs, 1);
	if (pms_catalog_new(&cat) < 0 ||
	    pms_catalog_load_buffer(cat, "fuzz-kernel.json", cat_kernel, sizeof(cat_kernel) - 1) != 7 ||
	    pms_catalog_load_buffer(cat, "fuzz-perflist.json", cat_perflist,
				    sizeof(cat_perflist) - 1) != 3)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_event_list *l = NULL;
	char *text, desc[512];
	int rc;

	if (size < 1 || size > 4096)
		return 0;
	setup();
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	struct pms_event_parse_opts opts = PMS_EVENT_PARSE_OPTS_INIT;
	opts.catalog = (data[0] & 2) ? cat : NULL;
	rc = pms_event_parse_ex((data[0] & 1) ? NULL : &pmus, text, &opts, &l);
	if (rc < 0) {
		if (l != NULL || !*pms_error_last())
			abort();
	} else {
		int ngroups = pms_event_list_groups(l);
		size_t count = pms_event_list_count(l);
		int *leaders = calloc((size_t)ngroups + 1, sizeof(int));
		if (!leaders || count == 0 || pms_event_list_at(l, count))
			abort();
		for (size_t i = 0; i < count; i++) {
			const struct pms_event *e = pms_event_list_at(l, i);
			if (!e || !e->name || e->group >= ngroups || e->group < -1)
				abort();
			if (e->group >= 0 && e->group_leader)
				leaders[e->group]++;
			if (pms_event_describe(e, desc, sizeof(desc)) == 0)
				abort();
		}
		for (int g = 0; g < ngroups; g++)
			if (leaders[g] != 1)
				abort();
		free(leaders);
	}
	pms_event_list_free(l);
	free(text);
	return 0;
}
