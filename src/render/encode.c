/* `pmuscope encode`'s rows (pmuscope/render_cmd.h): an event's
 * perf_event_attr, its CPUs and group, and what the kernel will program for
 * it (the ARM PMUv3 generic mapping and threshold, the IBS forward), as a
 * text line or a JSON object. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/ibsfwd.h"
#include "pmuscope/pmuv3.h"
#include "pmuscope/render_cmd.h"

static void pmuv3_facts(const struct pms_pmus *pmus, const struct pms_event *e,
			struct pms_pmuv3_mapping *map, struct pms_pmuv3_threshold *th)
{
	const struct pms_pmu *pmu = e->pmu ? pms_pmu_find(pmus, e->pmu) : NULL;
	memset(map, 0, sizeof(*map));
	memset(th, 0, sizeof(*th));
	if (!pmu || !pms_pmu_is_pmuv3(pmu))
		return;
	pms_pmuv3_map_generic(pmu, e->attr.type, e->attr.config, map);
	if (pms_pmuv3_threshold(pmu, &e->attr, th) < 0)
		memset(th, 0, sizeof(*th));
}

void pms_render_event_json(struct pms_json *j, const struct pms_pmus *pmus,
			   const struct pms_event *e, char *buf, size_t len)
{
	struct pms_pmuv3_mapping map;
	struct pms_pmuv3_threshold th;
	pms_json_begin_object(j, NULL);
	pms_json_str(j, "name", e->name);
	pms_json_str(j, "pmu", e->pmu);
	pms_json_uint(j, "type", e->attr.type);
	pms_json_uint(j, "config", e->attr.config);
	pms_json_uint(j, "config1", e->attr.config1);
	pms_json_uint(j, "config2", e->attr.config2);
	pms_json_uint(j, "config3", e->attr.config3);
	pms_json_uint(j, "config4", e->config4);
	pms_json_uint(j, e->attr.freq ? "sample_freq" : "sample_period", e->attr.sample_period);
	pms_json_uint(j, "precise_ip", e->attr.precise_ip);
	pms_json_bool(j, "precise_max", e->precise_max);
	pms_event_describe(e, buf, len);
	pms_json_str(j, "attr", buf);
	pms_cpuset_format(&e->cpus, buf, len);
	pms_json_str(j, "cpus", pms_cpuset_count(&e->cpus) ? buf : NULL);
	if (e->group >= 0)
		pms_json_int(j, "group", e->group);
	else
		pms_json_null(j, "group");
	pms_json_bool(j, "group_leader", e->group_leader);
	pms_json_bool(j, "weak", e->weak);
	pms_json_bool(j, "sample_read", e->sample_read);
	pms_json_bool(j, "per_pkg", e->per_pkg);
	pms_json_double(j, "scale", e->scale);
	pms_json_str(j, "unit", e->unit);
	pmuv3_facts(pmus, e, &map, &th);
	if (map.status != PMS_PMUV3_NOT_GENERIC) {
		pms_json_begin_object(j, "pmuv3_event");
		pms_json_bool(j, "supported", map.status == PMS_PMUV3_MAPPED);
		if (map.status == PMS_PMUV3_MAPPED)
			pms_json_uint(j, "event", map.event);
		else
			pms_json_null(j, "event");
		pms_json_str(j, "event_name", map.event_name);
		pms_json_str(j, "errno", map.status == PMS_PMUV3_UNSUPPORTED ?
				 (map.kernel_errno == EINVAL ? "EINVAL" : "ENOENT") : NULL);
		pms_json_bool(j, "pmceid_known", map.pmceid_known);
		pms_json_str(j, "rule", map.rule);
		pms_json_end_object(j);
	}
	struct pms_ibs_forward fw;
	if (pms_event_ibs_forward(pmus, &e->attr, &fw) == 0 && fw.status != PMS_IBS_FWD_NONE) {
		pms_json_begin_object(j, "ibs_forward");
		pms_json_bool(j, "forwarded", fw.status == PMS_IBS_FWD_FORWARDED);
		pms_json_uint(j, "type", fw.type);
		pms_json_uint(j, "config", fw.config);
		pms_json_str(j, "errno", fw.status == PMS_IBS_FWD_REFUSED ?
				 (fw.kernel_errno == EOPNOTSUPP ? "EOPNOTSUPP" : "ENOENT") : NULL);
		pms_json_str(j, "rule", fw.why);
		pms_json_end_object(j);
	}
	if (th.applied) {
		pms_json_begin_object(j, "pmuv3_threshold");
		pms_json_uint(j, "threshold", th.threshold);
		pms_json_uint(j, "threshold_max", th.max);
		pms_json_str(j, "compare", pms_pmuv3_compare_name(th.compare));
		pms_json_uint(j, "count", th.count);
		pms_json_uint(j, "evtyper_bits", th.evtyper_bits);
		pms_json_end_object(j);
	}
	pms_json_end_object(j);
}

void pms_render_event_text(FILE *out, const struct pms_pmus *pmus, const struct pms_event *e,
			   char *buf, size_t len)
{
	struct pms_pmuv3_mapping map;
	struct pms_pmuv3_threshold th;
	pms_event_describe(e, buf, len);
	fprintf(out, "%s\t%s\t%s", e->name, e->pmu ? e->pmu : "-", buf);
	pms_cpuset_format(&e->cpus, buf, len);
	fprintf(out, "\tcpus=%s", pms_cpuset_count(&e->cpus) ? buf : "all");
	if (e->group >= 0)
		fprintf(out, "\tgroup=%d%s", e->group, e->group_leader ? " leader" : "");
	if (e->weak)
		fprintf(out, " weak");
	if (e->scale != 1.0 || e->unit)
		fprintf(out, "\tscale=%g unit=%s", e->scale, e->unit ? e->unit : "");
	pmuv3_facts(pmus, e, &map, &th);
	if (map.status == PMS_PMUV3_MAPPED)
		fprintf(out, "\tprograms=0x%04x%s%s (%s%s)", map.event, map.event_name ? " " : "",
		       map.event_name ? map.event_name : "", map.rule,
		       map.pmceid_known ? "" : "; events/ empty: PMCEID not known");
	else if (map.status == PMS_PMUV3_UNSUPPORTED)
		fprintf(out, "\tprograms=none (%s: %s)", map.kernel_errno == EINVAL ? "EINVAL" : "ENOENT",
		       map.rule);
	struct pms_ibs_forward fw;
	if (pms_event_ibs_forward(pmus, &e->attr, &fw) == 0 && fw.status == PMS_IBS_FWD_FORWARDED)
		fprintf(out, "\tforwarded=ibs_op type=%u config=0x%llx (%s)", fw.type,
		       (unsigned long long)fw.config, fw.why);
	else if (fw.status == PMS_IBS_FWD_REFUSED)
		fprintf(out, "\tforwarded=none (%s: %s)", fw.kernel_errno == EOPNOTSUPP ? "EOPNOTSUPP" : "ENOENT",
		       fw.why);
	if (th.applied)
		fprintf(out, "\tthreshold=%u/%u %s count=%u evtyper_th_tc=0x%016llx", th.threshold, th.max,
		       pms_pmuv3_compare_name(th.compare), th.count,
		       (unsigned long long)th.evtyper_bits);
	fputc('\n', out);
}
