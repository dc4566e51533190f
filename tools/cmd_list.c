/* pmuscope list: the PMUs the kernel exposes, how pmuscope classifies them,
 * and their caps, format terms and event aliases.
 * JSON schema: docs/json-list.md. */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "pmuscope/error.h"
#include "pmuscope/pmu.h"
#include "pmuscope/topo.h"

int cmd_list(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256 };

static const struct cli_opt opts[] = {
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "machine-readable output (schema: docs/json-list.md)" },
	{ 0 },
};

const struct cli_spec cli_spec_list = {
	.name = "list",
	.synopsis = "[--root DIR] list [PATTERN] [--json]",
	.description =
		"List the PMUs in /sys/bus/event_source/devices: type, kind (core,\n"
		"uncore, precise engine, software...), uncore scope, the CPUs they count\n"
		"on or are read from, caps, precise sampling engine (PEBS, IBS, SPE),\n"
		"format terms and event aliases.\n\n"
		"PATTERN: only PMUs whose name contains PATTERN, or matches it as a\n"
		"shell glob when it has * ? or [ (e.g. 'uncore_cha_*').",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 the PMUs cannot be read, 2 usage error.",
};

static bool matches(const char *pattern, const char *name)
{
	if (!pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, name, 0) == 0;
	return strstr(name, pattern) != NULL;
}

/* A CPU set as a malloc'd list string ("" when empty). */
static char *set_str(const struct pms_cpuset *s)
{
	size_t n = pms_cpuset_format(s, NULL, 0);
	char *b = malloc(n + 1);
	if (b)
		pms_cpuset_format(s, b, n + 1);
	return b;
}

static void no_hw_note(char *buf, size_t size, const struct pms_pmus *pmus, bool hv,
		       const char *hv_what)
{
	char names[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < pms_pmus_count(pmus) && len < sizeof(names); i++) {
		int n = snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
				 pms_pmus_at(pmus, i)->name);
		if (n > 0)
			len += (size_t)n;
	}
	snprintf(buf, size,
		 "No hardware PMU is exposed: the kernel lists only PMUs that need no "
		 "counter hardware (%s) and no core PMU (cpu, cpu_core/cpu_atom, armv8_*...), "
		 "uncore PMU or IBS/SPE engine, so hardware events cannot be counted or "
		 "sampled here. %s%s%sThis usually means a virtual machine whose hypervisor "
		 "gives the guest no virtual PMU (KVM/QEMU: start the guest with '-cpu host' "
		 "and the PMU enabled; clouds: use a bare-metal or PMU-enabled instance "
		 "type), or a kernel built without the CPU's PMU driver.",
		 names[0] ? names : "none", hv ? "This system runs under a hypervisor (" : "",
		 hv ? hv_what : "", hv ? "). " : "");
}

static const char *precise_str(const struct pms_pmu *p, char *buf, size_t size)
{
	if (p->engine == PMS_ENG_NONE)
		return "-";
	if (p->engine == PMS_ENG_PEBS)
		snprintf(buf, size, "pebs (max_precise %d)", p->max_precise);
	else
		snprintf(buf, size, "%s", pms_engine_name(p->engine));
	return buf;
}

static void print_text(const struct pms_pmus *pmus, const char *pattern)
{
	for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
		const struct pms_pmu *p = pms_pmus_at(pmus, i);
		char eng[64], *cpus;
		if (!matches(pattern, p->name))
			continue;
		cpus = set_str(&p->cpus);
		printf("%s\n  type %" PRIu32 ", %s", p->name, p->type, pms_pmu_kind_name(p->kind));
		if (p->kind == PMS_PMU_UNCORE)
			printf(", scope %s", pms_scope_name(p->scope));
		if (p->has_cpus)
			printf(", counts on CPUs %s", cpus ? cpus : "?");
		else if (p->has_cpumask)
			printf(", read on CPUs %s", cpus ? cpus : "?");
		printf(", precise: %s", precise_str(p, eng, sizeof(eng)));
		if (p->nr_addr_filters >= 0)
			printf(", %d address filters", p->nr_addr_filters);
		printf("\n");
		free(cpus);
		if (p->has_associated_cpus) {
			char *assoc = set_str(&p->associated_cpus);
			printf("  serves CPUs %s\n", assoc ? assoc : "?");
			free(assoc);
		}
		if (p->ncaps) {
			printf("  caps:");
			for (size_t k = 0; k < p->ncaps; k++)
				printf(" %s=%s", p->caps[k].name, p->caps[k].value);
			printf("\n");
		}
		if (p->nformats) {
			printf("  format:");
			for (size_t k = 0; k < p->nformats; k++) {
				char bits[128];
				pms_format_str(&p->formats[k], bits, sizeof(bits));
				printf(" %s=%s", p->formats[k].name, bits);
			}
			printf("\n");
		}
		if (p->nevents) {
			printf("  events:\n");
			for (size_t k = 0; k < p->nevents; k++) {
				const struct pms_pmu_event *e = &p->events[k];
				printf("    %s/%s/  %s", p->name, e->name, e->value);
				if (e->unit || e->scale != 1.0)
					printf("  (%.6g %s)", e->scale, e->unit ? e->unit : "");
				if (e->per_pkg)
					printf(" per-pkg");
				if (e->snapshot)
					printf(" snapshot");
				printf("\n");
			}
		}
	}
}

static void print_json(const struct pms_pmus *pmus, const char *pattern, const char *root,
		       bool has_hw, bool hv, const char *note)
{
	struct json j;
	cli_json_init(&j, stdout);
	cli_json_begin_object(&j, NULL);
	cli_json_int(&j, "schema_version", 1);
	cli_json_str(&j, "root", root);
	cli_json_str(&j, "pattern", pattern);
	cli_json_bool(&j, "hardware_pmu", has_hw);
	cli_json_bool(&j, "hypervisor", hv);
	cli_json_str(&j, "note", note);
	cli_json_begin_array(&j, "pmus");
	for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
		const struct pms_pmu *p = pms_pmus_at(pmus, i);
		char *cpus;
		if (!matches(pattern, p->name))
			continue;
		cpus = set_str(&p->cpus);
		cli_json_begin_object(&j, NULL);
		cli_json_str(&j, "name", p->name);
		cli_json_uint(&j, "type", p->type);
		cli_json_str(&j, "kind", pms_pmu_kind_name(p->kind));
		cli_json_str(&j, "scope", p->kind == PMS_PMU_UNCORE ? pms_scope_name(p->scope) : NULL);
		cli_json_str(&j, "engine", p->engine ? pms_engine_name(p->engine) : NULL);
		cli_json_str(&j, "cpus", (p->has_cpus || p->has_cpumask) ? cpus : NULL);
		cli_json_str(&j, "cpus_file", p->has_cpus ? "cpus" : p->has_cpumask ? "cpumask" : NULL);
		if (p->has_associated_cpus) {
			char *assoc = set_str(&p->associated_cpus);
			cli_json_str(&j, "associated_cpus", assoc);
			free(assoc);
		} else {
			cli_json_null(&j, "associated_cpus");
		}
		if (p->max_precise >= 0)
			cli_json_int(&j, "max_precise", p->max_precise);
		else
			cli_json_null(&j, "max_precise");
		if (p->nr_addr_filters >= 0)
			cli_json_int(&j, "nr_addr_filters", p->nr_addr_filters);
		else
			cli_json_null(&j, "nr_addr_filters");
		cli_json_str(&j, "box", p->box);
		if (p->box_index >= 0)
			cli_json_int(&j, "box_index", p->box_index);
		else
			cli_json_null(&j, "box_index");
		cli_json_begin_object(&j, "caps");
		for (size_t k = 0; k < p->ncaps; k++)
			cli_json_str(&j, p->caps[k].name, p->caps[k].value);
		cli_json_end_object(&j);
		cli_json_begin_array(&j, "formats");
		for (size_t k = 0; k < p->nformats; k++) {
			const struct pms_format *f = &p->formats[k];
			char bits[128], mask[24];
			pms_format_str(f, bits, sizeof(bits));
			snprintf(mask, sizeof(mask), "0x%" PRIx64, pms_format_mask(f));
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "name", f->name);
			cli_json_str(&j, "field", pms_cfg_field_name(f->field));
			cli_json_str(&j, "bits", strchr(bits, ':') ? strchr(bits, ':') + 1 : bits);
			cli_json_int(&j, "width", f->width);
			cli_json_str(&j, "mask", mask);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_begin_array(&j, "events");
		for (size_t k = 0; k < p->nevents; k++) {
			const struct pms_pmu_event *e = &p->events[k];
			cli_json_begin_object(&j, NULL);
			cli_json_str(&j, "name", e->name);
			cli_json_str(&j, "value", e->value);
			cli_json_str(&j, "unit", e->unit);
			cli_json_double(&j, "scale", e->scale);
			cli_json_bool(&j, "per_pkg", e->per_pkg);
			cli_json_bool(&j, "snapshot", e->snapshot);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		free(cpus);
	}
	cli_json_end_array(&j);
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

int cmd_list(const struct cli_global *g, int argc, char **argv)
{
	const char *pattern = NULL;
	bool json = false, hv = false, has_hw;
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	char hv_what[160] = "", note[1024] = "";
	size_t shown = 0;
	int rc = 0;

	struct cli_parser p;
	int c;
	cli_parser_init(&p, &cli_spec_list, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == O_JSON) {
			json = true;
		} else if (!pattern) {
			pattern = p.arg;
		} else {
			return cli_usage(&cli_spec_list, "one PATTERN only ('%s' is extra)", p.arg);
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	for (int k = p.ind; k < argc; k++) {
		if (pattern)
			return cli_usage(&cli_spec_list, "one PATTERN only ('%s' is extra)", argv[k]);
		pattern = argv[k];
	}
	sys = cli_open_sys(g);
	if (!sys)
		return 1;
	if (pms_pmus_load(sys, &pmus) < 0) {
		rc = cli_fail("cannot list PMUs");
		goto out;
	}
	has_hw = pms_pmus_has_hardware(pmus);
	hv = pms_hypervisor_detect(sys, hv_what, sizeof(hv_what));
	if (!has_hw)
		no_hw_note(note, sizeof(note), pmus, hv, hv_what);
	for (size_t i = 0; i < pms_pmus_count(pmus); i++)
		shown += matches(pattern, pms_pmus_at(pmus, i)->name);

	if (json) {
		print_json(pmus, pattern, pms_sys_root(sys), has_hw, hv, has_hw ? NULL : note);
	} else {
		if (pms_pmus_count(pmus) == 0)
			printf("The kernel lists no PMUs at all (%s/sys/bus/event_source/devices is "
			       "missing or empty): perf_events is not available.\n",
			       strcmp(pms_sys_root(sys), "/") ? pms_sys_root(sys) : "");
		print_text(pmus, pattern);
		if (!has_hw)
			printf("\n%s\n", note);
	}
	if (pattern && shown == 0) {
		fprintf(stderr, "pmuscope: list: no PMU name matches '%s'\n", pattern);
		rc = 1;
	}
out:
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return rc;
}
