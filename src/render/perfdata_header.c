/* The --header text of a perf.data file (script's and report's): its
 * mode, header features and record counts (pmuscope/render_cmd.h). */
#include <inttypes.h>
#include <stdio.h>

#include "pmuscope/perfdata.h"
#include "pmuscope/render_cmd.h"

/* perf-tool record types 64.. (tools/lib/perf/include/perf/event.h). */
static const char *const user_types[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
	"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
	"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
	"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
	"BPF_METADATA", "SCHEDSTAT_CPU", "SCHEDSTAT_DOMAIN",
};

static const char *type_name(unsigned t)
{
	if (t >= 64 && t - 64 < sizeof(user_types) / sizeof(user_types[0]))
		return user_types[t - 64];
	return pms_record_type_name(t);
}

void pms_render_perfdata_header(FILE *o, struct pms_perfdata_reader *r)
{
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
	const char *why;

	fprintf(o, "# mode: %s%s\n", pms_perfdata_reader_is_pipe(r) ? "pipe" : "file",
		pms_perfdata_reader_swapped(r) ? ", foreign byte order" : "");
	if (!pms_perfdata_reader_is_pipe(r))
		fprintf(o, "# attr_size: %" PRIu64 "\n", pms_perfdata_reader_attr_size(r));
	if (in->hostname)
		fprintf(o, "# hostname : %s\n", in->hostname);
	if (in->osrelease)
		fprintf(o, "# os release : %s\n", in->osrelease);
	if (in->version)
		fprintf(o, "# perf version : %s\n", in->version);
	if (in->arch)
		fprintf(o, "# arch : %s\n", in->arch);
	if (in->nr_cpus_avail)
		fprintf(o, "# nrcpus online : %u\n# nrcpus avail : %u\n", in->nr_cpus_online,
			in->nr_cpus_avail);
	if (in->cpudesc)
		fprintf(o, "# cpudesc : %s\n", in->cpudesc);
	if (in->cpuid)
		fprintf(o, "# cpuid : %s\n", in->cpuid);
	if (in->total_mem_kb)
		fprintf(o, "# total memory : %" PRIu64 " kB\n", in->total_mem_kb);
	if (in->ncmdline) {
		fputs("# cmdline :", o);
		for (size_t i = 0; i < in->ncmdline; i++)
			fprintf(o, " %s", in->cmdline[i]);
		fputc('\n', o);
	}
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
		fprintf(o, "# event : name = %s, type = %" PRIu32 ", size = %" PRIu32
			   ", config = 0x%" PRIx64 ", sample_type = 0x%" PRIx64 ", ids = %zu\n",
			a->name ? a->name : "?", a->attr->type, a->recorded_size, (uint64_t)a->attr->config,
			(uint64_t)a->attr->sample_type, a->nids);
	}
	for (size_t i = 0; i < in->ncore_sibs; i++)
		fprintf(o, "# sibling sockets : %s\n", in->core_sibs[i]);
	for (size_t i = 0; i < in->ndie_sibs; i++)
		fprintf(o, "# sibling dies    : %s\n", in->die_sibs[i]);
	for (size_t i = 0; i < in->nthread_sibs; i++)
		fprintf(o, "# sibling threads : %s\n", in->thread_sibs[i]);
	for (size_t i = 0; i < in->nnuma; i++)
		fprintf(o, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n"
			   "# node%u cpu list : %s\n",
			in->numa[i].node, in->numa[i].mem_total_kb, in->numa[i].mem_free_kb,
			in->numa[i].node, in->numa[i].cpus);
	if (in->nmem) {
		fprintf(o, "# memory nodes (nr %zu, block size 0x%" PRIx64 "):\n", in->nmem,
			in->mem_block_size);
		for (size_t i = 0; i < in->nmem; i++) {
			uint64_t set = 0;
			for (uint64_t w = 0; w < (in->mem[i].nbits + 63) / 64; w++)
				set += (uint64_t)__builtin_popcountll(in->mem[i].bitmap[w]);
			fprintf(o, "#    %3" PRIu64 " [%" PRIu64 "M]: %" PRIu64 " blocks\n",
				in->mem[i].node, set * in->mem_block_size >> 20, set);
		}
	}
	for (size_t i = 0; i < in->nhybrid; i++)
		fprintf(o, "# %s cpu list : %s\n", in->hybrid[i].a, in->hybrid[i].b);
	for (size_t i = 0; i < in->npmu_caps; i++) {
		fprintf(o, "# %s pmu capabilities:", in->pmu_caps[i].pmu ? in->pmu_caps[i].pmu : "?");
		for (size_t k = 0; k < in->pmu_caps[i].ncaps; k++)
			fprintf(o, "%s %s=%s", k ? "," : "", in->pmu_caps[i].caps[k].a,
				in->pmu_caps[i].caps[k].b);
		fputc('\n', o);
	}
	if (in->npmu) {
		fputs("# pmu mappings:", o);
		for (size_t i = 0; i < in->npmu; i++)
			fprintf(o, "%s %s = %u", i ? "," : "", in->pmu[i].name, in->pmu[i].type);
		fputc('\n', o);
	}
	for (size_t i = 0; i < in->ngroups; i++)
		fprintf(o, "# group: %s{leader %u, %u members}\n",
			in->groups[i].name ? in->groups[i].name : "", in->groups[i].leader_idx,
			in->groups[i].nr_members);
	if (in->has[0] & (UINT64_C(1) << PMS_PERFDATA_FEAT_CLOCKID))
		fprintf(o, "# clockid frequency: %" PRIu64 " MHz\n",
			in->clockid_res_ns ? 1000 / in->clockid_res_ns : 0);
	if (in->comp_type)
		fprintf(o, "# compressed : %s, level = %u, ratio = %u\n",
			in->comp_type == 1 ? "Zstd" : "Unknown", in->comp_level, in->comp_ratio);
	fprintf(o, "# build ids: %zu\n", in->nbuild_ids);
	fputs("# features:", o);
	for (unsigned f = 0; f < PMS_PERFDATA_FEAT_MAX; f++)
		if (in->has[f / 64] & (UINT64_C(1) << (f % 64))) {
			const char *n = pms_perfdata_feature_name(f);
			if (n)
				fprintf(o, " %s", n);
			else
				fprintf(o, " %u", f);
		}
	fputc('\n', o);
	fprintf(o, "# records: %" PRIu64 ", samples: %" PRIu64 ", skipped: %" PRIu64
		   ", compressed: %" PRIu64 ", lost: %" PRIu64 "%s\n",
		st->records, st->samples, st->bad_records, st->compressed, st->lost,
		st->truncated ? ", data truncated" : "");
	if (st->unfinished || st->bad_features)
		fprintf(o, "# not read: %s%" PRIu64 " features skipped\n",
			st->unfinished ? "unfinished file (recovered to its end), " : "",
			st->bad_features);
	for (unsigned t = 0; t < 128; t++)
		if (st->by_type[t])
			fprintf(o, "#   %-20s %" PRIu64 "\n", type_name(t), st->by_type[t]);
	why = pms_perfdata_reader_nodes_why(r);
	fprintf(o, "# nodes: %s\n", why ? why : "from PHYS_ADDR and MEM_TOPOLOGY");
}
