/* The catalog object: storage, lookup by name, perf strings. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/arm_int.h"
#include "catalog/catalog_int.h"
#include "util/error.h"
#include "util/grow.h"

int pms_catalog_new(struct pms_catalog **out)
{
	if (!out)
		return pms_err(PMS_EINVAL, "pms_catalog_new: out is NULL");
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "out of memory allocating a catalog");
	return 0;
}

static void event_release(struct pms_cat_event *e)
{
	free((char *)e->name);
	free((char *)e->pmu);
	free((char *)e->unit);
	free((char *)e->terms);
	free((char *)e->desc);
	free((char *)e->long_desc);
	free((char *)e->topic);
	free((char *)e->source);
	free((char *)e->note);
	free((char *)e->scale_unit);
}

void pms_catalog_free(struct pms_catalog *cat)
{
	if (!cat)
		return;
	for (size_t i = 0; i < cat->n; i++)
		event_release(&cat->ev[i]);
	free(cat->ev);
	free(cat);
}

static int dup_str(const char *s, const char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	char *d = strdup(s);
	if (!d)
		return pms_err(PMS_ENOMEM, "out of memory copying catalog text");
	*out = d;
	return 0;
}

int pms_cat_add(struct pms_catalog *cat, const struct pms_cat_event *tmpl)
{
	struct pms_cat_event e = *tmpl;
	int r = 0;

	if (!tmpl->name || !tmpl->terms)
		return pms_err(PMS_EINVAL, "catalog entry without a name or encoding");
	if (pms_grow(&cat->ev, &cat->cap, cat->n + 1, sizeof(*cat->ev), 256, "the catalog") < 0)
		return PMS_ENOMEM;
	e.name = e.pmu = e.unit = e.terms = e.desc = e.long_desc = e.topic = e.source = e.note = NULL;
	e.scale_unit = NULL;
	if ((r = dup_str(tmpl->name, &e.name)) < 0 || (r = dup_str(tmpl->pmu, &e.pmu)) < 0 ||
	    (r = dup_str(tmpl->unit, &e.unit)) < 0 || (r = dup_str(tmpl->terms, &e.terms)) < 0 ||
	    (r = dup_str(tmpl->desc, &e.desc)) < 0 ||
	    (r = dup_str(tmpl->long_desc, &e.long_desc)) < 0 ||
	    (r = dup_str(tmpl->topic, &e.topic)) < 0 || (r = dup_str(tmpl->source, &e.source)) < 0 ||
	    (r = dup_str(tmpl->note, &e.note)) < 0 ||
	    (r = dup_str(tmpl->scale_unit, &e.scale_unit)) < 0) {
		event_release(&e);
		return r;
	}
	cat->ev[cat->n++] = e;
	return 0;
}

void pms_cat_truncate(struct pms_catalog *cat, size_t n)
{
	while (cat->n > n)
		event_release(&cat->ev[--cat->n]);
}

size_t pms_catalog_count(const struct pms_catalog *cat)
{
	return cat ? cat->n : 0;
}

const struct pms_cat_event *pms_catalog_event(const struct pms_catalog *cat, size_t i)
{
	return cat && i < cat->n ? &cat->ev[i] : NULL;
}

/* Does an event of PMU evpmu fit the hint?  A hint names the PMU itself or
 * a numbered sysfs instance of it ("uncore_imc_3" for "uncore_imc"). */
static bool pmu_fits(const char *evpmu, const char *hint)
{
	if (!hint || !*hint || !evpmu)
		return true;
	if (!strcasecmp(evpmu, hint))
		return true;
	size_t n = strlen(evpmu);
	if (strncasecmp(evpmu, hint, n) || hint[n] != '_' || !hint[n + 1])
		return false;
	for (const char *p = hint + n + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

size_t pms_catalog_lookup_all(const struct pms_catalog *cat, const char *name,
			      const char *pmu_hint, const struct pms_cat_event **out, size_t max)
{
	size_t count = 0;
	if (!cat || !name)
		return 0;
	for (size_t i = 0; i < cat->n; i++) {
		const struct pms_cat_event *e = &cat->ev[i];
		if (strcasecmp(e->name, name) || !pmu_fits(e->pmu, pmu_hint))
			continue;
		if (out && count < max)
			out[count] = e;
		count++;
	}
	return count;
}

size_t pms_cat_event_string(const struct pms_cat_event *ev, const char *pmu, char *buf,
			    size_t size)
{
	int n;
	const char *p = ev->pmu ? ev->pmu : pmu;
	if (p)
		n = snprintf(buf, size, "%s/%s/", p, ev->terms);
	else
		n = snprintf(buf, size, "%s", ev->terms);
	return n < 0 ? 0 : (size_t)n;
}

int pms_catalog_lookup(const struct pms_catalog *cat, const char *name, const char *pmu_hint,
		       struct pms_cat_match *result)
{
	const struct pms_cat_event *first = NULL;

	if (!cat || !name || !result)
		return pms_err(PMS_EINVAL, "pms_catalog_lookup: NULL argument");
	memset(result, 0, sizeof(*result));
	size_t n = pms_catalog_lookup_all(cat, name, pmu_hint, &first, 1);
	if (!n) {
		size_t any = pms_catalog_lookup_all(cat, name, NULL, NULL, 0);
		if (any && pmu_hint)
			return pms_err(PMS_ENOENT,
				       "event \"%s\" is in the catalog but not for PMU \"%s\"; drop the PMU or use another",
				       name, pmu_hint);
		return pms_err(PMS_ENOENT,
			       "event \"%s\" is not in the loaded catalog (%zu events); 'pmuscope events PATTERN' lists names",
			       name, cat->n);
	}
	result->event = first;
	result->nmatches = n;
	/* A hint that is a sysfs instance ("uncore_imc_3") names the PMU to open. */
	const char *pmu = first->pmu;
	if (pmu_hint && *pmu_hint)
		pmu = pmu_hint;
	int len = pmu ? snprintf(result->perf_string, sizeof(result->perf_string), "%s/%s/", pmu,
				 first->terms)
		      : snprintf(result->perf_string, sizeof(result->perf_string), "%s", first->terms);
	if (len < 0 || (size_t)len >= sizeof(result->perf_string))
		return pms_err(PMS_ERANGE, "encoding of \"%s\" is longer than %zu bytes", name,
			       sizeof(result->perf_string) - 1);
	return 0;
}

const char *pms_catalog_format_name(enum pms_catalog_format f)
{
	switch (f) {
	case PMS_CATFMT_KERNEL: return "kernel";
	case PMS_CATFMT_PERFMON: return "perfmon";
	case PMS_CATFMT_ARMDATA: return "arm-data";
	case PMS_CATFMT_PERFLIST: return "perf-list";
	case PMS_CATFMT_BUILTIN: return "built-in";
	case PMS_CATFMT_UNKNOWN: break;
	}
	return "unknown";
}

int pms_catalog_add_arm_common(struct pms_catalog *cat)
{
	int added = 0;
	if (!cat)
		return pms_err(PMS_EINVAL, "pms_catalog_add_arm_common: cat is NULL");
	for (size_t i = 0; i < pms_arm_event_count(); i++) {
		const struct pms_arm_event *a = pms_arm_event_at(i);
		struct pms_arm_class c;
		char terms[32];
		pms_arm_classify(a->number, &c);
		snprintf(terms, sizeof(terms), "event=0x%x", a->number);
		struct pms_cat_event e = {
			.name = a->name, .terms = terms, .code = a->number, .desc = a->desc,
			.topic = c.block->name, .source = "built-in:arm-pmuv3",
			.format = PMS_CATFMT_BUILTIN, .tier = c.tier,
		};
		int r = pms_cat_add(cat, &e);
		if (r < 0)
			return r;
		added++;
	}
	return added;
}

int pms_catalog_add_apple(struct pms_catalog *cat, const char *gen)
{
	int g = pms_apple_gen_index(gen);
	int added = 0;
	if (!cat)
		return pms_err(PMS_EINVAL, "pms_catalog_add_apple: cat is NULL");
	if (g < 0)
		return pms_err(PMS_ENOENT,
			       "unknown Apple generation \"%s\" (known: as1, a14, as3, as4-1, as5)",
			       gen ? gen : "(null)");
	const struct pms_apple_gen *ag = pms_apple_gen_at((size_t)g);
	char source[64];
	snprintf(source, sizeof(source), "built-in:apple-%s (partial)", ag->id);
	for (size_t i = 0; i < pms_apple_event_count(); i++) {
		const struct pms_apple_event *a = pms_apple_event_at(i);
		if (a->number[g] < 0)
			continue;
		uint32_t num = (uint32_t)a->number[g];
		char terms[32];
		snprintf(terms, sizeof(terms), "event=0x%" PRIx32, num);
		struct pms_cat_event e = {
			.name = a->name, .terms = terms, .code = num, .topic = ag->chip,
			.source = source, .format = PMS_CATFMT_BUILTIN,
			.note = pms_apple_linux_expressible(num)
					? NULL
					: "above 0xFF: Linux's apple PMU takes event=config:0-7, so it cannot request this number",
		};
		int r = pms_cat_add(cat, &e);
		if (r < 0)
			return r;
		added++;
	}
	return added;
}

int pms_catalog_select_parse(struct pms_catalog_select *sel, const char *text)
{
	if (!sel || !text || !*text)
		return pms_err(PMS_EINVAL, "empty --cpu value: give a MIDR (0x413fd0c1) or vendor-family-model (GenuineIntel-6-AD)");
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		char *end;
		unsigned long long v = strtoull(text, &end, 16);
		if (*end || end == text + 2 || v > UINT32_MAX)
			return pms_err(PMS_EINVAL, "\"%s\" is not a 32-bit MIDR_EL1 value", text);
		sel->midr = v;
		sel->has_midr = true;
		return 0;
	}
	const char *dash = strchr(text, '-');
	if (!dash || dash == text || !strchr(dash + 1, '-'))
		return pms_err(PMS_EINVAL,
			       "\"%s\" is neither a MIDR (0x413fd0c1) nor vendor-family-model (GenuineIntel-6-AD)",
			       text);
	sel->x86_id = text;
	return 0;
}
