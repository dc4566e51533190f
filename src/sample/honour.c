/* Which sampling options each engine honours: one table (issue 30 item 3),
 * so a command never accepts an option that changes nothing without saying
 * so.  A row names the option as perf mem / pmuscope mem spell it, the
 * engines that apply it, and what the others do instead.  Facts from the
 * engines' builders in probe.c: PEBS picks the mem-loads or mem-stores
 * event and writes its ldlat term; SPE writes load_filter / store_filter
 * and min_latency; IBS tags every op (no operation filter) and takes ldlat
 * where the PMU has caps/ldlat; the software engine samples page faults,
 * which have no operation and no latency. */
#include "pmuscope/sampler.h"

#include <stddef.h>

#define ENG(e) (1u << (e))

struct honour_row {
	const char *option;
	unsigned engines; /* ENG(...) of each engine that honours it */
	bool (*given)(const struct pms_sampler_opts *o);
	const char *why;  /* what an engine outside `engines` does instead */
};

static bool loads_only(const struct pms_sampler_opts *o)
{
	return o->ops == PMS_SAMPLER_LOADS;
}

static bool stores_only(const struct pms_sampler_opts *o)
{
	return o->ops == PMS_SAMPLER_STORES;
}

static bool ldlat(const struct pms_sampler_opts *o)
{
	return o->ldlat != 0;
}

static bool spe_filter(const struct pms_sampler_opts *o)
{
	return o->spe_events || o->spe_not_events || o->spe_inv_data_src;
}

static bool l3missonly(const struct pms_sampler_opts *o)
{
	return o->l3missonly;
}

static bool count_ops(const struct pms_sampler_opts *o)
{
	return o->ibs_count_ops;
}

static const struct honour_row rows[] = {
	{ "-t load", ENG(PMS_ENG_PEBS) | ENG(PMS_ENG_SPE), loads_only,
	  "stores are sampled too (only PEBS and SPE filter by operation)" },
	{ "-t store", ENG(PMS_ENG_PEBS) | ENG(PMS_ENG_SPE), stores_only,
	  "loads are sampled too (only PEBS and SPE filter by operation)" },
	{ "--ldlat", ENG(PMS_ENG_PEBS) | ENG(PMS_ENG_SPE) | ENG(PMS_ENG_IBS), ldlat,
	  "no latency filter (PEBS, SPE and IBS with caps/ldlat have one)" },
	{ "--spe-*-filter", ENG(PMS_ENG_SPE), spe_filter, "an Arm SPE filter" },
	{ "l3missonly", ENG(PMS_ENG_IBS), l3missonly, "an AMD IBS filter" },
	{ "ibs count ops", ENG(PMS_ENG_IBS), count_ops, "an AMD IBS period unit" },
};

size_t pms_sampler_unhonoured(enum pms_engine engine, const struct pms_sampler_opts *o,
			      struct pms_sampler_unhonoured *out, size_t max)
{
	size_t n = 0;
	if (!o || engine == PMS_ENG_NONE || engine == PMS_ENG_OVERFLOW)
		return 0; /* overflow sampling takes none of the memory options */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if ((rows[i].engines & ENG(engine)) || !rows[i].given(o))
			continue;
		if (out && n < max) {
			out[n].option = rows[i].option;
			out[n].why = rows[i].why;
		}
		n++;
	}
	return n;
}
