/* pmuscope encode: event strings -> the perf_event_attr(s) they open. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "cli_catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/pmu.h"
#include "pmuscope/pmuv3.h"
#include "pmuscope/ibsfwd.h"

int cmd_encode(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256, O_CATALOG };

static const struct cli_opt encode_opts[] = {
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "machine-readable output" },
	CLI_CATALOG_OPT(O_CATALOG),
	{ 0 },
};

const struct cli_spec cli_spec_encode = {
	.name = "encode",
	.synopsis = "[--root DIR] encode [--json] [--catalog PATH] EVENT...",
	.description =
		"Parse perf-style event strings against this machine's PMUs and print\n"
		"the perf_event_attr each one opens, one line per event:\n"
		"  NAME  PMU  ATTR  cpus=LIST  [group=N [leader]]\n"
		"Generic events on hybrid machines print one line per core PMU.\n"
		"On Arm PMUv3 PMUs a generic event also shows programs=EVENT, what the\n"
		"driver programs (its generic map, PMCEID from events/, the BR_RETIRED ->\n"
		"PC_WRITE_RETIRED fallback), or programs=none with the driver's errno;\n"
		"threshold terms (FEAT_PMUv3_TH) show the PMEVTYPER TH/TC bits.\n"
		"Syntax: cycles:u, r1a8, L1-dcache-load-misses, cpu/event=0x3c,umask=0/pp,\n"
		"cpu/mem-loads,ldlat=30/P, {cycles,instructions}:W (see perf-list(1)),\n"
		"and catalog names: inst_retired, uncore_imc/UNC_M_CAS_COUNT_SCH0.RD/.",
	.opts = encode_opts,
	.footer = "Exit status: 0 ok, 1 an event does not parse or the PMUs cannot be read,\n"
		  "2 usage error.",
};

#define SETBUF 8192

/* Arm PMUv3: what the driver programs for a generic event, and the
 * threshold terms it writes (pmuscope/pmuv3.h). */
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

static void print_json(struct json *j, const struct pms_pmus *pmus, const struct pms_event *e,
		       char *buf)
{
	struct pms_pmuv3_mapping map;
	struct pms_pmuv3_threshold th;
	cli_json_begin_object(j, NULL);
	cli_json_str(j, "name", e->name);
	cli_json_str(j, "pmu", e->pmu);
	cli_json_uint(j, "type", e->attr.type);
	cli_json_uint(j, "config", e->attr.config);
	cli_json_uint(j, "config1", e->attr.config1);
	cli_json_uint(j, "config2", e->attr.config2);
	cli_json_uint(j, "config3", e->attr.config3);
	cli_json_uint(j, "config4", e->config4);
	cli_json_uint(j, e->attr.freq ? "sample_freq" : "sample_period", e->attr.sample_period);
	cli_json_uint(j, "precise_ip", e->attr.precise_ip);
	cli_json_bool(j, "precise_max", e->precise_max);
	pms_event_describe(e, buf, SETBUF);
	cli_json_str(j, "attr", buf);
	pms_cpuset_format(&e->cpus, buf, SETBUF);
	cli_json_str(j, "cpus", pms_cpuset_count(&e->cpus) ? buf : NULL);
	if (e->group >= 0)
		cli_json_int(j, "group", e->group);
	else
		cli_json_null(j, "group");
	cli_json_bool(j, "group_leader", e->group_leader);
	cli_json_bool(j, "weak", e->weak);
	cli_json_bool(j, "sample_read", e->sample_read);
	cli_json_bool(j, "per_pkg", e->per_pkg);
	cli_json_double(j, "scale", e->scale);
	cli_json_str(j, "unit", e->unit);
	pmuv3_facts(pmus, e, &map, &th);
	if (map.status != PMS_PMUV3_NOT_GENERIC) {
		cli_json_begin_object(j, "pmuv3_event");
		cli_json_bool(j, "supported", map.status == PMS_PMUV3_MAPPED);
		if (map.status == PMS_PMUV3_MAPPED)
			cli_json_uint(j, "event", map.event);
		else
			cli_json_null(j, "event");
		cli_json_str(j, "event_name", map.event_name);
		cli_json_str(j, "errno", map.status == PMS_PMUV3_UNSUPPORTED ?
				 (map.kernel_errno == EINVAL ? "EINVAL" : "ENOENT") : NULL);
		cli_json_bool(j, "pmceid_known", map.pmceid_known);
		cli_json_str(j, "rule", map.rule);
		cli_json_end_object(j);
	}
	struct pms_ibs_forward fw;
	if (pms_event_ibs_forward(pmus, &e->attr, &fw) == 0 && fw.status != PMS_IBS_FWD_NONE) {
		cli_json_begin_object(j, "ibs_forward");
		cli_json_bool(j, "forwarded", fw.status == PMS_IBS_FWD_FORWARDED);
		cli_json_uint(j, "type", fw.type);
		cli_json_uint(j, "config", fw.config);
		cli_json_str(j, "errno", fw.status == PMS_IBS_FWD_REFUSED ?
				 (fw.kernel_errno == EOPNOTSUPP ? "EOPNOTSUPP" : "ENOENT") : NULL);
		cli_json_str(j, "rule", fw.why);
		cli_json_end_object(j);
	}
	if (th.applied) {
		cli_json_begin_object(j, "pmuv3_threshold");
		cli_json_uint(j, "threshold", th.threshold);
		cli_json_uint(j, "threshold_max", th.max);
		cli_json_str(j, "compare", pms_pmuv3_compare_name(th.compare));
		cli_json_uint(j, "count", th.count);
		cli_json_uint(j, "evtyper_bits", th.evtyper_bits);
		cli_json_end_object(j);
	}
	cli_json_end_object(j);
}

static void print_text(const struct pms_pmus *pmus, const struct pms_event *e, char *buf)
{
	struct pms_pmuv3_mapping map;
	struct pms_pmuv3_threshold th;
	pms_event_describe(e, buf, SETBUF);
	printf("%s\t%s\t%s", e->name, e->pmu ? e->pmu : "-", buf);
	pms_cpuset_format(&e->cpus, buf, SETBUF);
	printf("\tcpus=%s", pms_cpuset_count(&e->cpus) ? buf : "all");
	if (e->group >= 0)
		printf("\tgroup=%d%s", e->group, e->group_leader ? " leader" : "");
	if (e->weak)
		printf(" weak");
	if (e->scale != 1.0 || e->unit)
		printf("\tscale=%g unit=%s", e->scale, e->unit ? e->unit : "");
	pmuv3_facts(pmus, e, &map, &th);
	if (map.status == PMS_PMUV3_MAPPED)
		printf("\tprograms=0x%04x%s%s (%s%s)", map.event, map.event_name ? " " : "",
		       map.event_name ? map.event_name : "", map.rule,
		       map.pmceid_known ? "" : "; events/ empty: PMCEID not known");
	else if (map.status == PMS_PMUV3_UNSUPPORTED)
		printf("\tprograms=none (%s: %s)", map.kernel_errno == EINVAL ? "EINVAL" : "ENOENT",
		       map.rule);
	struct pms_ibs_forward fw;
	if (pms_event_ibs_forward(pmus, &e->attr, &fw) == 0 && fw.status == PMS_IBS_FWD_FORWARDED)
		printf("\tforwarded=ibs_op type=%u config=0x%llx (%s)", fw.type,
		       (unsigned long long)fw.config, fw.why);
	else if (fw.status == PMS_IBS_FWD_REFUSED)
		printf("\tforwarded=none (%s: %s)", fw.kernel_errno == EOPNOTSUPP ? "EOPNOTSUPP" : "ENOENT",
		       fw.why);
	if (th.applied)
		printf("\tthreshold=%u/%u %s count=%u evtyper_th_tc=0x%016llx", th.threshold, th.max,
		       pms_pmuv3_compare_name(th.compare), th.count,
		       (unsigned long long)th.evtyper_bits);
	putchar('\n');
}

int cmd_encode(const struct cli_global *g, int argc, char **argv)
{
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_event_list **lists = NULL;
	struct pms_catalog *cat = NULL;
	struct pms_event_parse_opts opts = PMS_EVENT_PARSE_OPTS_INIT;
	const char *catalog = NULL;
	bool json_out = false;
	int first = 1, rc = 1;
	char *buf = NULL;

	struct cli_parser p;
	int c, nev = 0;
	cli_parser_init(&p, &cli_spec_encode, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case O_JSON: json_out = true; break;
		case O_CATALOG: catalog = p.arg; break;
		case CLI_OPERAND: argv[1 + nev++] = (char *)p.arg; break;
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	for (int k = p.ind; k < argc; k++)
		argv[1 + nev++] = argv[k];
	argc = 1 + nev;
	if (first >= argc)
		return cli_usage(&cli_spec_encode, "give at least one EVENT");
	if (!(sys = cli_open_sys(g)))
		return 1;
	if (pms_pmus_load(sys, &pmus) < 0) {
		rc = cli_fail("cannot load PMUs");
		goto out;
	}
	if (cli_catalog_open("encode", sys, pmus, catalog, &cat))
		goto out;
	opts.catalog = cat;
	opts.sys = sys;
	lists = calloc((size_t)argc, sizeof(*lists));
	buf = malloc(SETBUF);
	if (!lists || !buf) {
		fprintf(stderr, "pmuscope: encode: out of memory\n");
		goto out;
	}
	/* parse everything first so an error prints nothing on stdout */
	for (int i = first; i < argc; i++)
		if (pms_event_parse_ex(pmus, argv[i], &opts, &lists[i]) < 0) {
			rc = cli_fail("encode");
			goto out;
		}
	if (json_out) {
		struct json j;
		cli_json_init(&j, stdout);
		cli_json_begin_object(&j, NULL);
		cli_json_begin_array(&j, "events");
		for (int i = first; i < argc; i++)
			for (size_t e = 0; e < lists[i]->count; e++)
				print_json(&j, pmus, &lists[i]->events[e], buf);
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	} else {
		for (int i = first; i < argc; i++)
			for (size_t e = 0; e < lists[i]->count; e++)
				print_text(pmus, &lists[i]->events[e], buf);
	}
	rc = 0;
out:
	for (int i = 0; lists && i < argc; i++)
		pms_event_list_free(lists[i]);
	free(lists);
	free(buf);
	pms_catalog_free(cat);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return rc;
}
