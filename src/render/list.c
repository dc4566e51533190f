/* `pmuscope list`'s documents (pmuscope/render_cmd.h): the PMUs the kernel
 * exposes with their type, scope, CPUs, sampling engine, caps, format fields
 * and sysfs events, as text or JSON (docs/json-list.md), and why a machine
 * without a hardware PMU has none. */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/render_cmd.h"

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

void pms_render_pmus_no_hw_note(char *buf, size_t size, const struct pms_pmus *pmus, bool hv,
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

size_t pms_render_pmus_matching(const struct pms_pmus *pmus, const char *pattern)
{
	size_t shown = 0;
	for (size_t i = 0; i < pms_pmus_count(pmus); i++)
		shown += matches(pattern, pms_pmus_at(pmus, i)->name);
	return shown;
}

void pms_render_pmus_text(FILE *out, const struct pms_pmus *pmus, const char *pattern)
{
	for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
		const struct pms_pmu *p = pms_pmus_at(pmus, i);
		char eng[64], *cpus;
		if (!matches(pattern, p->name))
			continue;
		cpus = set_str(&p->cpus);
		fprintf(out, "%s\n  type %" PRIu32 ", %s", p->name, p->type, pms_pmu_kind_name(p->kind));
		if (p->kind == PMS_PMU_UNCORE)
			fprintf(out, ", scope %s", pms_scope_name(p->scope));
		if (p->has_cpus)
			fprintf(out, ", counts on CPUs %s", cpus ? cpus : "?");
		else if (p->has_cpumask)
			fprintf(out, ", read on CPUs %s", cpus ? cpus : "?");
		fprintf(out, ", precise: %s", precise_str(p, eng, sizeof(eng)));
		if (p->nr_addr_filters >= 0)
			fprintf(out, ", %d address filters", p->nr_addr_filters);
		fprintf(out, "\n");
		free(cpus);
		if (p->has_associated_cpus) {
			char *assoc = set_str(&p->associated_cpus);
			fprintf(out, "  serves CPUs %s\n", assoc ? assoc : "?");
			free(assoc);
		}
		if (p->ncaps) {
			fprintf(out, "  caps:");
			for (size_t k = 0; k < p->ncaps; k++)
				fprintf(out, " %s=%s", p->caps[k].name, p->caps[k].value);
			fprintf(out, "\n");
		}
		if (p->nformats) {
			fprintf(out, "  format:");
			for (size_t k = 0; k < p->nformats; k++) {
				char bits[128];
				pms_format_str(&p->formats[k], bits, sizeof(bits));
				fprintf(out, " %s=%s", p->formats[k].name, bits);
			}
			fprintf(out, "\n");
		}
		if (p->nevents) {
			fprintf(out, "  events:\n");
			for (size_t k = 0; k < p->nevents; k++) {
				const struct pms_pmu_event *e = &p->events[k];
				fprintf(out, "    %s/%s/  %s", p->name, e->name, e->value);
				if (e->unit || e->scale != 1.0)
					fprintf(out, "  (%.6g %s)", e->scale, e->unit ? e->unit : "");
				if (e->per_pkg)
					fprintf(out, " per-pkg");
				if (e->snapshot)
					fprintf(out, " snapshot");
				fprintf(out, "\n");
			}
		}
	}
}

void pms_render_pmus_json(struct pms_json *j, const struct pms_pmus *pmus, const char *pattern,
			  const char *root, bool has_hw, bool hv, const char *note)
{
	pms_json_begin_object(j, NULL);
	pms_json_int(j, "schema_version", 1);
	pms_json_str(j, "root", root);
	pms_json_str(j, "pattern", pattern);
	pms_json_bool(j, "hardware_pmu", has_hw);
	pms_json_bool(j, "hypervisor", hv);
	pms_json_str(j, "note", note);
	pms_json_begin_array(j, "pmus");
	for (size_t i = 0; i < pms_pmus_count(pmus); i++) {
		const struct pms_pmu *p = pms_pmus_at(pmus, i);
		char *cpus;
		if (!matches(pattern, p->name))
			continue;
		cpus = set_str(&p->cpus);
		pms_json_begin_object(j, NULL);
		pms_json_str(j, "name", p->name);
		pms_json_uint(j, "type", p->type);
		pms_json_str(j, "kind", pms_pmu_kind_name(p->kind));
		pms_json_str(j, "scope", p->kind == PMS_PMU_UNCORE ? pms_scope_name(p->scope) : NULL);
		pms_json_str(j, "engine", p->engine ? pms_engine_name(p->engine) : NULL);
		pms_json_str(j, "cpus", (p->has_cpus || p->has_cpumask) ? cpus : NULL);
		pms_json_str(j, "cpus_file", p->has_cpus ? "cpus" : p->has_cpumask ? "cpumask" : NULL);
		if (p->has_associated_cpus) {
			char *assoc = set_str(&p->associated_cpus);
			pms_json_str(j, "associated_cpus", assoc);
			free(assoc);
		} else {
			pms_json_null(j, "associated_cpus");
		}
		if (p->max_precise >= 0)
			pms_json_int(j, "max_precise", p->max_precise);
		else
			pms_json_null(j, "max_precise");
		if (p->nr_addr_filters >= 0)
			pms_json_int(j, "nr_addr_filters", p->nr_addr_filters);
		else
			pms_json_null(j, "nr_addr_filters");
		pms_json_str(j, "box", p->box);
		if (p->box_index >= 0)
			pms_json_int(j, "box_index", p->box_index);
		else
			pms_json_null(j, "box_index");
		pms_json_begin_object(j, "caps");
		for (size_t k = 0; k < p->ncaps; k++)
			pms_json_str(j, p->caps[k].name, p->caps[k].value);
		pms_json_end_object(j);
		pms_json_begin_array(j, "formats");
		for (size_t k = 0; k < p->nformats; k++) {
			const struct pms_format *f = &p->formats[k];
			char bits[128], mask[24];
			pms_format_str(f, bits, sizeof(bits));
			snprintf(mask, sizeof(mask), "0x%" PRIx64, pms_format_mask(f));
			pms_json_begin_object(j, NULL);
			pms_json_str(j, "name", f->name);
			pms_json_str(j, "field", pms_cfg_field_name(f->field));
			pms_json_str(j, "bits", strchr(bits, ':') ? strchr(bits, ':') + 1 : bits);
			pms_json_int(j, "width", f->width);
			pms_json_str(j, "mask", mask);
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
		pms_json_begin_array(j, "events");
		for (size_t k = 0; k < p->nevents; k++) {
			const struct pms_pmu_event *e = &p->events[k];
			pms_json_begin_object(j, NULL);
			pms_json_str(j, "name", e->name);
			pms_json_str(j, "value", e->value);
			pms_json_str(j, "unit", e->unit);
			pms_json_double(j, "scale", e->scale);
			pms_json_bool(j, "per_pkg", e->per_pkg);
			pms_json_bool(j, "snapshot", e->snapshot);
			pms_json_end_object(j);
		}
		pms_json_end_array(j);
		pms_json_end_object(j);
		free(cpus);
	}
	pms_json_end_array(j);
	pms_json_end_object(j);
}
