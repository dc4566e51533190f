/* Catalog loaders: kernel pmu-events JSON, Intel perfmon JSON, ARM-software/
 * data pmu JSON, `perf list -j` output; directory walking and CPU selection
 * through mapfile.csv / cpus.json. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "catalog/arm_int.h"
#include "catalog/catalog_int.h"
#include "util/error.h"
#include "util/opts.h"

/* ---- JSON field helpers ---- */

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A number given as a JSON integer or a string ("0x1cd", "1", "0xB7, 0xBB":
 * the first of a list, as perf's jevents.py does).  1 = present, 0 = absent,
 * <0 = malformed. */
static int jnum(json_t *o, const char *key, uint64_t *out, const char *file, size_t idx)
{
	json_t *v = json_object_get(o, key);
	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0)
			return pms_err(PMS_EPARSE, "%s: event #%zu: %s is negative", file, idx, key);
		*out = (uint64_t)i;
		return 1;
	}
	if (json_is_true(v) || json_is_false(v)) {
		*out = json_is_true(v);
		return 1;
	}
	if (!json_is_string(v))
		return pms_err(PMS_EPARSE, "%s: event #%zu: %s is neither a number nor a string",
			       file, idx, key);
	const char *s = json_string_value(v);
	while (*s == ' ')
		s++;
	if (!*s)
		return 0;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	while (*end == ' ')
		end++;
	if (errno || end == s || (*end && *end != ','))
		return pms_err(PMS_EPARSE, "%s: event #%zu: %s=\"%s\" is not a number", file, idx,
			       key, json_string_value(v));
	*out = x;
	return 1;
}

static bool jflag(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_true(v))
		return true;
	if (json_is_integer(v))
		return json_integer_value(v) != 0;
	if (json_is_string(v))
		return strtoull(json_string_value(v), NULL, 0) != 0;
	return false;
}

/* ScaleUnit "<number><unit>" (tools/perf/pmu-events/jevents.py keeps it as
 * text; tools/perf/util/pmu.c convert_scale reads the number with strtod and
 * takes the rest as the unit).  A missing number means scale 1. */
static int scale_unit(json_t *o, const char *file, size_t i, struct pms_cat_event *e,
		      char *unit, size_t size)
{
	const char *su = jstr(o, "ScaleUnit");
	char *end;
	if (!su)
		return 0;
	double v = strtod(su, &end);
	if (end == su)
		v = 1.0;
	if (!(v > 0 && v < 1e300))
		return pms_err(PMS_EPARSE, "%s: event #%zu: ScaleUnit \"%s\" has no positive scale",
			       file, i, su);
	while (*end == ' ')
		end++;
	snprintf(unit, size, "%s", end);
	e->scale = v;
	e->scale_unit = *unit ? unit : NULL;
	return 0;
}

/* ---- Unit -> PMU (tools/perf/pmu-events/jevents.py unit_to_pmu) ---- */

static const struct {
	const char *unit, *pmu;
} unit_pmu[] = {
	{ "CBO", "uncore_cbox" },      { "QPI LL", "uncore_qpi" },
	{ "SBO", "uncore_sbox" },      { "iMPH-U", "uncore_arb" },
	{ "CPU-M-CF", "cpum_cf" },     { "CPU-M-SF", "cpum_sf" },
	{ "PAI-CRYPTO", "pai_crypto" }, { "PAI-EXT", "pai_ext" },
	{ "UPI LL", "uncore_upi" },    { "imx8_ddr", "imx8_ddr" },
	{ "L3PMC", "amd_l3" },         { "DFPMC", "amd_df" },
	{ "UMCPMC", "amd_umc" },       { "cpu_core", "cpu_core" },
	{ "cpu_atom", "cpu_atom" },    { "ali_drw", "ali_drw" },
	{ "arm_cmn", "arm_cmn" },      { "tool", "tool" },
};

/* Writes the PMU for unit into buf; returns NULL for core events. */
static const char *unit_to_pmu(const char *unit, char *buf, size_t size)
{
	if (!unit || !*unit || !strcasecmp(unit, "core") || !strcasecmp(unit, "cpu"))
		return NULL;
	for (size_t i = 0; i < sizeof(unit_pmu) / sizeof(unit_pmu[0]); i++)
		if (!strcmp(unit_pmu[i].unit, unit))
			return unit_pmu[i].pmu;
	/* Units that already name a PMU (hisi_sccl,ddrc; uncore_foo) stay. */
	if (!strncmp(unit, "uncore_", 7) || strchr(unit, ','))
		return unit;
	size_t n = (size_t)snprintf(buf, size, "uncore_%s", unit);
	for (size_t i = 7; i < n && i < size; i++)
		buf[i] = (char)((buf[i] >= 'A' && buf[i] <= 'Z') ? buf[i] - 'A' + 'a' : buf[i]);
	return buf;
}

/* ---- x86-style encodings (kernel JSON and perfmon) ---- */

/* Term names perf gives each JSON field (jevents.py event_fields), in
 * jevents' order.  SampleAfterValue (period=) is kept apart, as
 * pms_cat_event.sample_after, so counting strings carry no period. */
static const struct {
	const char *key, *term;
} x86_terms[] = {
	{ "AnyThread", "any" },     { "PortMask", "ch_mask" }, { "CounterMask", "cmask" },
	{ "EdgeDetect", "edge" },   { "FCMask", "fc_mask" },   { "Invert", "inv" },
	{ "UMask", "umask" },       { "NodeType", "type" },    { "RdWrMask", "rdwrmask" },
	{ "EnAllCores", "enallcores" }, { "EnAllSlices", "enallslices" },
	{ "SliceId", "sliceid" },   { "ThreadMask", "threadmask" },
};

/* MSR-carried terms (jevents.py msrmap). */
static const struct {
	uint64_t msr;
	const char *term;
} msr_terms[] = {
	{ 0x3F6, "ldlat" }, { 0x1A6, "offcore_rsp" }, { 0x1A7, "offcore_rsp" }, { 0x3F7, "frontend" },
};

static void append(char *buf, size_t size, size_t *len, const char *name, uint64_t v)
{
	int n = snprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0,
			 "%s%s=0x%" PRIx64, *len ? "," : "", name, v);
	if (n > 0)
		*len += (size_t)n;
}

static int x86_encode(json_t *o, const char *file, size_t idx, bool perfmon,
		      struct pms_cat_event *e, char *terms, size_t size)
{
	uint64_t code = 0, v = 0, ext = 0;
	size_t len = 0;
	int r;

	terms[0] = '\0';
	if ((r = jnum(o, "EventCode", &code, file, idx)) < 0)
		return r;
	if ((r = jnum(o, "ExtSel", &ext, file, idx)) < 0)
		return r;
	code |= ext << 8;
	e->code = code;
	if ((r = jnum(o, "ConfigCode", &v, file, idx)) < 0)
		return r;
	if (r) {
		append(terms, size, &len, "config", v);
	} else {
		if ((r = jnum(o, "EventidCode", &v, file, idx)) < 0)
			return r;
		if (r && v)
			append(terms, size, &len, "eventid", v);
		else
			append(terms, size, &len, "event", code);
	}
	for (size_t i = 0; i < sizeof(x86_terms) / sizeof(x86_terms[0]); i++) {
		if ((r = jnum(o, x86_terms[i].key, &v, file, idx)) < 0)
			return r;
		if (!strcmp(x86_terms[i].key, "UMask")) {
			/* perfmon keeps the high umask bits apart; the kernel
			 * JSON folds them in above bit 8 (intel/perfmon
			 * scripts/create_perf_json.py). */
			uint64_t hi = 0;
			if (perfmon && (r = jnum(o, "UMaskExt", &hi, file, idx)) < 0)
				return r;
			v |= hi << 8;
			e->umask = v;
		}
		if (v)
			append(terms, size, &len, x86_terms[i].term, v);
	}
	uint64_t msr = 0, msrval = 0;
	if ((r = jnum(o, "MSRIndex", &msr, file, idx)) < 0)
		return r;
	if (msr && (r = jnum(o, "MSRValue", &msrval, file, idx)) < 0)
		return r;
	for (size_t i = 0; msr && i < sizeof(msr_terms) / sizeof(msr_terms[0]); i++)
		if (msr_terms[i].msr == msr)
			append(terms, size, &len, msr_terms[i].term, msrval);
	if ((r = jnum(o, "SampleAfterValue", &e->sample_after, file, idx)) < 0)
		return r;
	if (len >= size)
		return pms_err(PMS_ERANGE, "%s: event #%zu: encoding longer than %zu bytes", file, idx,
			       size - 1);
	return 0;
}

static const char *base_topic(const char *path, char *buf, size_t size)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	snprintf(buf, size, "%s", b);
	char *dot = strrchr(buf, '.');
	if (dot)
		*dot = '\0';
	return buf;
}

/* ---- format loaders ---- */

static void arm_tier(struct pms_cat_event *e, bool arch_flag)
{
	struct pms_arm_class c;
	if (pms_arm_classify((uint32_t)e->code, &c) == 0)
		e->tier = c.tier;
	else
		pms_error_clear();
	if (arch_flag)
		e->tier = PMS_TIER_ARCHITECTURAL;
}

/* Kernel tools/perf/pmu-events JSON: an array of events (x86 EventCode/UMask,
 * arm64 ArchStdEvent references, uncore Unit). */
static int load_kernel(struct pms_catalog *cat, json_t *arr, const char *file,
		       const char *pmu_override)
{
	char topic[128], unitbuf[96], terms[512], subuf[64];
	int added = 0;
	bool arm = strstr(file, "arm64") != NULL;

	base_topic(file, topic, sizeof(topic));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		if (!json_is_object(o))
			return pms_err(PMS_EPARSE, "%s: element #%zu is not an object", file, i);
		if (json_object_get(o, "ArchStdEvent")) {
			arm = true;
			break;
		}
	}
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		const char *name = jstr(o, "EventName");
		const char *std = jstr(o, "ArchStdEvent");
		struct pms_cat_event e = { 0 };
		int r;

		if (!name && !std)
			continue; /* metrics and other non-events */
		e.name = name ? name : std;
		e.unit = jstr(o, "Unit");
		e.pmu = e.unit ? unit_to_pmu(e.unit, unitbuf, sizeof(unitbuf)) : pmu_override;
		e.desc = jstr(o, "BriefDescription");
		e.long_desc = jstr(o, "PublicDescription");
		e.topic = topic;
		e.source = file;
		e.format = PMS_CATFMT_KERNEL;
		e.per_pkg = jflag(o, "PerPkg");
		e.experimental = jflag(o, "Experimental");
		e.deprecated = jflag(o, "Deprecated");
		e.uncore = e.pmu && strcmp(e.pmu, "cpu_core") && strcmp(e.pmu, "cpu_atom") &&
			   strcmp(e.pmu, "cpu");
		if ((r = scale_unit(o, file, i, &e, subuf, sizeof(subuf))) < 0)
			return r;
		if (std && !json_object_get(o, "EventCode")) {
			/* Resolved against the architected table, as perf resolves
			 * it against arm64's common-and-microarch.json. */
			const struct pms_arm_event *a = pms_arm_event_by_name(std);
			if (!a)
				return pms_err(PMS_ENOENT,
					       "%s: event #%zu: ArchStdEvent \"%s\" is not an architected ARM event pmuscope knows",
					       file, i, std);
			e.code = a->number;
			snprintf(terms, sizeof(terms), "event=0x%x", a->number);
			if (!e.desc && !e.long_desc)
				e.desc = a->desc;
			arm_tier(&e, a->architectural);
		} else {
			if ((r = x86_encode(o, file, i, false, &e, terms, sizeof(terms))) < 0)
				return r;
			if (arm)
				arm_tier(&e, false);
		}
		e.terms = terms;
		if ((r = pms_cat_add(cat, &e)) < 0)
			return r;
		added++;
	}
	return added;
}

/* Intel perfmon: {"Header": {...}, "Events": [...]}. */
static int load_perfmon(struct pms_catalog *cat, json_t *root, const char *file,
			const char *pmu_override)
{
	json_t *arr = json_object_get(root, "Events");
	char topic[128], unitbuf[96], terms[512];
	int added = 0;

	if (!json_is_array(arr))
		return pms_err(PMS_EPARSE, "%s: perfmon file without an \"Events\" array", file);
	base_topic(file, topic, sizeof(topic));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		struct pms_cat_event e = { 0 };
		int r;
		if (!json_is_object(o))
			return pms_err(PMS_EPARSE, "%s: Events[%zu] is not an object", file, i);
		e.name = jstr(o, "EventName");
		if (!e.name)
			continue;
		e.unit = jstr(o, "Unit");
		e.pmu = e.unit ? unit_to_pmu(e.unit, unitbuf, sizeof(unitbuf)) : pmu_override;
		e.desc = jstr(o, "BriefDescription");
		e.long_desc = jstr(o, "PublicDescription");
		e.topic = topic;
		e.source = file;
		e.format = PMS_CATFMT_PERFMON;
		e.deprecated = jflag(o, "Deprecated");
		e.experimental = strstr(file, "experimental") != NULL;
		e.uncore = e.unit != NULL;
		e.per_pkg = e.uncore; /* perfmon has no PerPkg; uncore counts per package */
		if ((r = x86_encode(o, file, i, true, &e, terms, sizeof(terms))) < 0)
			return r;
		e.terms = terms;
		if ((r = pms_cat_add(cat, &e)) < 0)
			return r;
		added++;
	}
	return added;
}

/* ARM-software/data pmu/<core>.json. */
static int load_armdata(struct pms_catalog *cat, json_t *root, const char *file)
{
	json_t *arr = json_object_get(root, "events");
	const char *cpu = jstr(root, "cpu");
	char terms[32];
	int added = 0;

	if (!json_is_array(arr))
		return pms_err(PMS_EPARSE, "%s: ARM-software/data file without an \"events\" array",
			       file);
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		struct pms_cat_event e = { 0 };
		uint64_t code;
		int r;
		if (!json_is_object(o))
			return pms_err(PMS_EPARSE, "%s: events[%zu] is not an object", file, i);
		e.name = jstr(o, "name");
		/* Some old cores list unnamed IMPDEF bits: nothing to look up. */
		if ((r = jnum(o, "code", &code, file, i)) < 0)
			return r;
		if (!e.name || !r)
			continue;
		e.code = code;
		snprintf(terms, sizeof(terms), "event=0x%" PRIx64, code);
		e.terms = terms;
		e.desc = jstr(o, "description");
		e.topic = cpu;
		e.source = file;
		e.format = PMS_CATFMT_ARMDATA;
		arm_tier(&e, json_is_true(json_object_get(o, "architectural")));
		if ((r = pms_cat_add(cat, &e)) < 0)
			return r;
		added++;
	}
	return added;
}

/* `perf list -j`: objects with EventName, Unit and "Encoding": "pmu/terms/". */
static int load_perflist(struct pms_catalog *cat, json_t *arr, const char *file)
{
	char pmu[128], terms[512], bare[256], subuf[64];
	int added = 0;

	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		struct pms_cat_event e = { 0 };
		int r;
		if (!json_is_object(o))
			return pms_err(PMS_EPARSE, "%s: element #%zu is not an object", file, i);
		e.name = jstr(o, "EventName");
		const char *enc = jstr(o, "Encoding");
		const char *etype = jstr(o, "EventType");
		/* perf's generic events carry no encoding: their name is one
		 * (the event parser knows "page-faults", "cycles", "L1-dcache-loads") */
		if (!enc && e.name && etype &&
		    (!strcmp(etype, "Software event") || !strcmp(etype, "Hardware event") ||
		     !strcmp(etype, "Hardware cache event")))
			enc = e.name;
		if (!e.name || !enc)
			continue; /* tool events and metrics carry no encoding */
		if (etype && !strcmp(etype, "Raw event descriptor"))
			continue; /* syntax templates ("cpu/config=0..0xfff.../modifier") */
		const char *slash = strchr(enc, '/');
		size_t elen = strlen(enc);
		if (slash && elen >= 2 && enc[elen - 1] == '/' && slash != enc + elen - 1) {
			snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - enc), enc);
			snprintf(terms, sizeof(terms), "%.*s", (int)(elen - (size_t)(slash - enc) - 2),
				 slash + 1);
			e.pmu = pmu;
			/* perf lists a tracepoint's id in hex; tracefs (and so
			 * `events`) has it in decimal: one form for both */
			unsigned long long tpid;
			int used = 0;
			if (!strcmp(pmu, "tracepoint") &&
			    sscanf(terms, "config=%lli%n", &tpid, &used) == 1 && !terms[used])
				snprintf(terms, sizeof(terms), "config=%llu", tpid);
			/* Kernel PMU events are listed as "msr/tsc/": keep the bare name. */
			size_t pl = strlen(pmu), nl = strlen(e.name);
			if (nl > pl + 2 && !strncmp(e.name, pmu, pl) && e.name[pl] == '/' &&
			    e.name[nl - 1] == '/') {
				snprintf(bare, sizeof(bare), "%.*s", (int)(nl - pl - 2), e.name + pl + 1);
				e.name = bare;
			}
		} else {
			snprintf(terms, sizeof(terms), "%s", enc);
		}
		e.terms = terms;
		e.unit = jstr(o, "Unit");
		e.topic = jstr(o, "Topic");
		e.desc = jstr(o, "BriefDescription");
		e.long_desc = jstr(o, "PublicDescription");
		e.source = file;
		e.format = PMS_CATFMT_PERFLIST;
		if ((r = scale_unit(o, file, i, &e, subuf, sizeof(subuf))) < 0)
			return r;
		e.uncore = e.pmu && (!strncmp(e.pmu, "uncore_", 7) || !strncmp(e.pmu, "arm_", 4) ||
				     !strncmp(e.pmu, "amd_", 4));
		if ((r = pms_cat_add(cat, &e)) < 0)
			return r;
		added++;
	}
	return added;
}

static int load_json(struct pms_catalog *cat, json_t *root, const char *file,
		     const char *pmu_override)
{
	if (json_is_object(root)) {
		const char *type = jstr(root, "_type");
		if (json_object_get(root, "Events") && json_object_get(root, "Header"))
			return load_perfmon(cat, root, file, pmu_override);
		if (type && !strcmp(type, "Events"))
			return load_armdata(cat, root, file);
		if (type && !strcmp(type, "CPUs"))
			return 0; /* cpus.json: consulted for selection only */
		return pms_err(PMS_EPARSE,
			       "%s: a JSON object that is neither Intel perfmon ({\"Header\",\"Events\"}) nor ARM-software/data (\"_type\": \"Events\")",
			       file);
	}
	if (!json_is_array(root))
		return pms_err(PMS_EPARSE, "%s: top level is neither an array nor an object", file);
	json_t *first = json_array_get(root, 0);
	if (json_is_object(first) &&
	    (json_object_get(first, "Encoding") || json_object_get(first, "EventType")))
		return load_perflist(cat, root, file);
	return load_kernel(cat, root, file, pmu_override);
}

static int parse_error(const char *file, const json_error_t *err)
{
	return pms_err(PMS_EPARSE, "%s:%d:%d: malformed JSON: %s", file, err->line, err->column,
		       err->text);
}

int pms_catalog_load_buffer(struct pms_catalog *cat, const char *name, const char *data,
			    size_t len)
{
	json_error_t err;
	if (!cat || !name || (!data && len))
		return pms_err(PMS_EINVAL, "pms_catalog_load_buffer: NULL argument");
	json_t *root = json_loadb(data ? data : "", len, JSON_REJECT_DUPLICATES, &err);
	if (!root)
		return parse_error(name, &err);
	size_t n0 = cat->n;
	int r = load_json(cat, root, name, NULL);
	json_decref(root);
	if (r < 0)
		pms_cat_truncate(cat, n0);
	return r;
}

int pms_cat_load_file(struct pms_catalog *cat, const char *path, const char *pmu_override)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root) {
		if (err.line < 0 || err.position == 0) {
			FILE *f = fopen(path, "r");
			if (!f)
				return pms_err_errno(PMS_ENOENT, errno, "cannot open catalog %s", path);
			fclose(f);
		}
		return parse_error(path, &err);
	}
	int r = load_json(cat, root, path, pmu_override);
	json_decref(root);
	return r;
}

/* ---- directories and selection ---- */

static int join(char *buf, size_t size, const char *a, const char *sep, const char *b)
{
	int n = snprintf(buf, size, "%s%s%s", a, sep, b);
	if (n < 0 || (size_t)n >= size)
		return pms_err(PMS_ERANGE, "catalog path too long: %s%s%s", a, sep, b);
	return 0;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir's entries ending in suffix (NULL = all but dot files). */
static int list_names(const char *dir, const char *suffix, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *de;
	int r = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return pms_err_errno(PMS_ENOENT, errno, "cannot open catalog directory %s", dir);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.')
			continue;
		if (suffix && (l < strlen(suffix) || strcmp(de->d_name + l - strlen(suffix), suffix)))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 32;
			char **nv = realloc(v, cap * sizeof(*nv));
			if (!nv) {
				r = pms_err(PMS_ENOMEM, "out of memory listing %s", dir);
				goto out;
			}
			v = nv;
		}
		if (!(v[cnt] = strdup(de->d_name))) {
			r = pms_err(PMS_ENOMEM, "out of memory listing %s", dir);
			goto out;
		}
		cnt++;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_str);
	*out = v;
	*n = cnt;
	v = NULL;
	cnt = 0;
out:
	for (size_t i = 0; i < cnt; i++)
		free(v[i]);
	free(v);
	closedir(d);
	return r;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int load_dir_json(struct pms_catalog *cat, const char *dir, int depth)
{
	char **names;
	size_t n;
	int total = 0;
	int r = list_names(dir, NULL, &names, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r >= 0; i++) {
		char p[4096];
		if ((r = join(p, sizeof(p), dir, "/", names[i])) < 0)
			break;
		size_t l = strlen(names[i]);
		if (is_dir(p)) {
			char mf[4096];
			/* A subtree with its own mapfile is chosen by CPU, not loaded whole. */
			if (depth < 4 && join(mf, sizeof(mf), p, "/", "mapfile.csv") == 0 && !is_file(mf))
				r = load_dir_json(cat, p, depth + 1);
			else
				r = 0;
		} else if (l > 5 && !strcmp(names[i] + l - 5, ".json") && strcmp(names[i], "cpus.json") &&
			   !strstr(names[i], "schema") && !strstr(names[i], "metric")) {
			r = pms_cat_load_file(cat, p, NULL);
		} else {
			r = 0;
		}
		if (r > 0)
			total += r;
	}
	free_names(names, n);
	return r < 0 ? r : total;
}

/* Split a CSV line in place (no quoting in these mapfiles). */
static size_t csv_split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;
	while (n < max) {
		f[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	char *nl = strpbrk(f[n - 1], "\r\n");
	if (nl)
		*nl = '\0';
	return n;
}

/* Does the mapfile's Family-model regex match the identity fully, with or
 * without a stepping suffix (perf's ids are vendor-family-model-stepping)? */
/* Does the mapfile's Family-model regex match id fully? */
static bool x86_id_matches(const char *pattern, const char *id)
{
	char pat[512];
	regex_t re;
	bool ok;

	snprintf(pat, sizeof(pat), "^(%s)$", pattern);
	if (regcomp(&re, pat, REG_EXTENDED | REG_ICASE | REG_NOSUB))
		return false;
	ok = !regexec(&re, id, 0, NULL, 0);
	regfree(&re);
	return ok;
}

/* perf's x86 ids are vendor-family-model-stepping, and mapfile rows match
 * with or without the stepping ("GenuineIntel-6-55-[01234]" for SKX,
 * "GenuineIntel-6-AD" for GNR).  Choose the form of id the mapfile knows:
 * id as given, then without its stepping; an id without a stepping tries
 * steppings 0-F in order, so "GenuineIntel-6-55" picks SKX and
 * "GenuineIntel-6-55-7" CLX. */
static bool pick_x86_id(FILE *f, const char *id, char *out, size_t size)
{
	char cands[18][96], line[1024];
	size_t nc = 0;
	int dashes = 0;

	for (const char *c = id; *c; c++)
		dashes += *c == '-';
	snprintf(cands[nc++], sizeof(cands[0]), "%.80s", id);
	if (dashes >= 3) {
		snprintf(cands[nc], sizeof(cands[0]), "%.80s", id);
		*strrchr(cands[nc], '-') = '\0';
		nc++;
	} else {
		for (int st = 0; st < 16; st++)
			snprintf(cands[nc++], sizeof(cands[0]), "%.80s-%X", id, st);
	}
	for (size_t i = 0; i < nc; i++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			char *fld[8];
			if (line[0] == '#' || line[0] == '\n' || (line[0] == '0' && line[1] == 'x'))
				continue;
			if (csv_split(line, fld, 8) < 3 || !strcmp(fld[0], "Family-model"))
				continue;
			if (x86_id_matches(fld[0], cands[i])) {
				size_t l = strlen(cands[i]);
				rewind(f);
				if (l >= size)
					return false;
				memcpy(out, cands[i], l + 1);
				return true;
			}
		}
	}
	rewind(f);
	return false;
}

#define MIDR_MATCH_MASK 0xFF0FFFF0u /* ignore variant [23:20] and revision [3:0] */

static int load_mapfile(struct pms_catalog *cat, const char *dir,
			const struct pms_catalog_select *sel)
{
	char path[4096], line[1024];
	if (join(path, sizeof(path), dir, "/", "mapfile.csv") < 0)
		return PMS_ERANGE;
	FILE *f = fopen(path, "r");
	int total = 0, r = 0;
	bool perfmon = false, matched = false;

	if (!f)
		return pms_err_errno(PMS_ENOENT, errno, "cannot open %s", path);
	char x86_id[96] = "";
	if (sel && sel->x86_id && !pick_x86_id(f, sel->x86_id, x86_id, sizeof(x86_id)))
		x86_id[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *fld[8];
		if (line[0] == '#' || line[0] == '\n')
			continue;
		size_t n = csv_split(line, fld, 8);
		if (n < 3)
			continue;
		if (!strcmp(fld[0], "Family-model")) {
			perfmon = n >= 7; /* perfmon adds Core Type ... Core Role Name */
			continue;
		}
		bool hit;
		if (fld[0][0] == '0' && (fld[0][1] == 'x' || fld[0][1] == 'X')) {
			if (!sel || !sel->has_midr)
				continue;
			uint64_t m = strtoull(fld[0], NULL, 16);
			hit = ((uint32_t)m & MIDR_MATCH_MASK) == ((uint32_t)sel->midr & MIDR_MATCH_MASK);
		} else {
			if (!x86_id[0])
				continue;
			hit = x86_id_matches(fld[0], x86_id);
		}
		if (!hit)
			continue;
		const char *type = n >= 4 ? fld[3] : "core";
		if (strstr(type, "metric") || strstr(type, "retire latency"))
			continue;
		matched = true;
		char p[4096];
		if (perfmon || fld[2][0] == '/') {
			const char *pmu = NULL;
			char pmubuf[64];
			if (!strcmp(type, "hybridcore") && n >= 7 && fld[6][0]) {
				snprintf(pmubuf, sizeof(pmubuf), "cpu_%s", fld[6]);
				for (char *c = pmubuf; *c; c++)
					*c = (char)((*c >= 'A' && *c <= 'Z') ? *c - 'A' + 'a' : *c);
				pmu = pmubuf;
			}
			if ((r = join(p, sizeof(p), dir, fld[2][0] == '/' ? "" : "/", fld[2])) < 0)
				break;
			if (!is_file(p))
				continue; /* a partial checkout: the row's file is absent */
			r = pms_cat_load_file(cat, p, pmu);
		} else {
			if ((r = join(p, sizeof(p), dir, "/", fld[2])) < 0)
				break;
			if (!is_dir(p))
				continue;
			r = load_dir_json(cat, p, 3);
		}
		if (r < 0)
			break;
		total += r;
	}
	fclose(f);
	if (r < 0)
		return r;
	if (!matched) {
		if (sel && sel->has_midr)
			return pms_err(PMS_ENOENT, "%s has no row for MIDR 0x%08" PRIx64, path, sel->midr);
		if (sel && sel->x86_id)
			return pms_err(PMS_ENOENT, "%s has no row for %s", path, sel->x86_id);
		return pms_err(PMS_ENOENT,
			       "%s selects files by CPU: give one (--cpu 0x413fd0c1 or GenuineIntel-6-AD)",
			       path);
	}
	return total;
}

/* ARM-software/data: pmu/<core>.json whose "cpuid" is implementer<<12 | part. */
static int load_armdata_dir(struct pms_catalog *cat, const char *dir,
			    const struct pms_catalog_select *sel)
{
	char pdir[4096];
	char **names;
	size_t n;
	int r;

	if (!sel || !sel->has_midr)
		return pms_err(PMS_ENOENT,
			       "%s is an ARM-software/data checkout: give a MIDR (--cpu 0x413fd0c1) to pick a core",
			       dir);
	uint32_t midr = (uint32_t)sel->midr;
	uint32_t want = ((midr >> 24) & 0xFF) << 12 | ((midr >> 4) & 0xFFF);
	if ((r = join(pdir, sizeof(pdir), dir, "/", "pmu")) < 0)
		return r;
	if ((r = list_names(pdir, ".json", &names, &n)) < 0)
		return r;
	r = pms_err(PMS_ENOENT, "%s: no pmu/*.json has cpuid 0x%x (MIDR 0x%08x)", dir, want, midr);
	for (size_t i = 0; i < n; i++) {
		char p[4096];
		json_error_t err;
		int jr = join(p, sizeof(p), pdir, "/", names[i]);
		if (jr < 0) {
			r = jr;
			break;
		}
		json_t *root = json_load_file(p, 0, &err);
		if (!root) {
			r = parse_error(p, &err);
			break;
		}
		const char *cpuid = jstr(root, "cpuid");
		if (cpuid && strtoul(cpuid, NULL, 16) == want) {
			pms_error_clear();
			r = load_json(cat, root, p, NULL);
			json_decref(root);
			break;
		}
		json_decref(root);
	}
	free_names(names, n);
	return r;
}

static int catalog_load(struct pms_catalog *cat, const char *path,
			const struct pms_catalog_select *sel);

int pms_catalog_load_for_pmu(struct pms_catalog *cat, const char *path,
			     const struct pms_catalog_select *sel, const char *pmu)
{
	size_t first = cat ? cat->n : 0;
	int r = pms_catalog_load(cat, path, sel);
	if (r < 0 || !pmu)
		return r;
	for (size_t i = first; i < cat->n; i++) {
		if (cat->ev[i].pmu)
			continue;
		if (!(cat->ev[i].pmu = strdup(pmu))) {
			pms_cat_truncate(cat, first);
			return pms_err(PMS_ENOMEM, "out of memory copying catalog text");
		}
	}
	return (int)(cat->n - first);
}

PMS_OPTS_LAYOUT(PMS_CATALOG_SELECT, struct pms_catalog_select,
		PMS_OPTS_END(struct pms_catalog_select, apple_gen));

int pms_catalog_load(struct pms_catalog *cat, const char *path,
		     const struct pms_catalog_select *sel)
{
	struct pms_catalog_select s;
	if (!cat || !path)
		return pms_err(PMS_EINVAL, "pms_catalog_load: NULL argument");
	int v = PMS_OPTS_TAKE("pms_catalog_load", PMS_CATALOG_SELECT, sel, &s);
	if (v < 0)
		return v;
	size_t n0 = cat->n;
	int r = catalog_load(cat, path, sel ? &s : NULL); /* NULL: every row, as the INIT value */
	if (r < 0)
		pms_cat_truncate(cat, n0);
	return r;
}

static int catalog_load(struct pms_catalog *cat, const char *path,
			const struct pms_catalog_select *sel)
{
	char p[4096], pm[4096];
	int r;
	if (sel && sel->apple_gen)
		return pms_catalog_add_apple(cat, sel->apple_gen);
	if (!is_dir(path))
		return pms_cat_load_file(cat, path, NULL);
	if ((r = join(p, sizeof(p), path, "/", "mapfile.csv")) < 0)
		return r;
	if (is_file(p))
		return load_mapfile(cat, path, sel);
	if ((r = join(p, sizeof(p), path, "/", "cpus.json")) < 0 ||
	    (r = join(pm, sizeof(pm), path, "/", "pmu")) < 0)
		return r;
	if (is_file(p) && is_dir(pm))
		return load_armdata_dir(cat, path, sel);
	/* A kernel tree's pmu-events/arch: pick the architecture the identity names. */
	if (sel && (sel->x86_id || sel->has_midr)) {
		const char *arch = sel->x86_id ? "x86" : "arm64";
		if ((r = join(pm, sizeof(pm), path, "/", arch)) < 0 ||
		    (r = join(p, sizeof(p), pm, "/", "mapfile.csv")) < 0)
			return r;
		if (is_file(p))
			return load_mapfile(cat, pm, sel);
	}
	static const char *const arches[] = { "x86", "arm64" };
	for (size_t i = 0; i < 2; i++) {
		if ((r = join(p, sizeof(p), path, "/", arches[i])) < 0 ||
		    (r = join(pm, sizeof(pm), p, "/", "mapfile.csv")) < 0)
			return r;
		if (is_file(pm) && !(sel && (sel->x86_id || sel->has_midr)))
			return pms_err(PMS_ENOENT,
				       "%s is a pmu-events/arch tree: its mapfile.csv files select by CPU; give one (--cpu 0x413fd0c1 or GenuineIntel-6-AD)",
				       path);
	}
	return load_dir_json(cat, path, 0);
}
