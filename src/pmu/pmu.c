/* PMU discovery: read /sys/bus/event_source/devices/<pmu> through the kernel seam.
 *
 * The directory layout is the kernel's (Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-*): type, cpumask or cpus, caps/,
 * format/, events/ (with NAME.scale, .unit, .per-pkg, .snapshot) and
 * nr_addr_filters. */
#include "pmuscope/pmu.h"
#include "pmu/classify.h"
#include "pmu/pmu_int.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICES "sys/bus/event_source/devices"

/* Alias side files (tools/perf/util/pmu.c reads the same four suffixes). */
enum side { SIDE_NONE, SIDE_SCALE, SIDE_UNIT, SIDE_PER_PKG, SIDE_SNAPSHOT };
static const struct {
	const char *suffix;
	enum side side;
} sides[] = {
	{ ".scale", SIDE_SCALE },
	{ ".unit", SIDE_UNIT },
	{ ".per-pkg", SIDE_PER_PKG },
	{ ".snapshot", SIDE_SNAPSHOT },
};

static enum side side_of(const char *name, size_t *base_len)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		size_t sl = strlen(sides[i].suffix);
		if (n > sl && strcmp(name + n - sl, sides[i].suffix) == 0) {
			*base_len = n - sl;
			return sides[i].side;
		}
	}
	*base_len = n;
	return SIDE_NONE;
}

static void free_pmu(struct pms_pmu *p)
{
	free(p->name);
	free(p->box);
	pms_cpuset_fini(&p->cpus);
	pms_cpuset_fini(&p->associated_cpus);
	for (size_t i = 0; i < p->nformats; i++)
		free(p->formats[i].name);
	free(p->formats);
	for (size_t i = 0; i < p->nevents; i++) {
		free(p->events[i].name);
		free(p->events[i].value);
		free(p->events[i].unit);
	}
	free(p->events);
	for (size_t i = 0; i < p->ncaps; i++) {
		free(p->caps[i].name);
		free(p->caps[i].value);
	}
	free(p->caps);
}

void pms_pmus_free(struct pms_pmus *pmus)
{
	if (!pmus)
		return;
	for (size_t i = 0; i < pmus->count; i++)
		free_pmu(&pmus->pmus[i]);
	free(pmus->pmus);
	free(pmus);
}

static int path_of(char *buf, size_t size, const char *pmu, const char *sub, const char *leaf)
{
	int n = snprintf(buf, size, DEVICES "/%s%s%s%s%s", pmu, sub ? "/" : "", sub ? sub : "",
			 leaf ? "/" : "", leaf ? leaf : "");
	if (n < 0 || (size_t)n >= size)
		return pms_err(PMS_ERANGE, "path for PMU %s/%s/%s too long", pmu, sub ? sub : "",
			       leaf ? leaf : "");
	return 0;
}

/* List a PMU subdirectory; a missing one is an empty list. */
static int list_sub(const struct pms_sys *sys, const char *pmu, const char *sub,
		    char ***names, size_t *n)
{
	char path[512];
	int ret = path_of(path, sizeof(path), pmu, sub, NULL);
	*names = NULL;
	*n = 0;
	if (ret < 0)
		return ret;
	if (!pms_sys_exists(sys, path))
		return 0;
	return pms_sys_list_dir(sys, path, names, n);
}

static int load_caps(const struct pms_sys *sys, struct pms_pmu *p)
{
	char **names = NULL, path[512];
	size_t n = 0;
	int ret = list_sub(sys, p->name, "caps", &names, &n);
	if (ret < 0 || n == 0)
		goto out;
	p->caps = calloc(n, sizeof(*p->caps));
	if (!p->caps) {
		ret = pms_err(PMS_ENOMEM, "out of memory reading %s caps", p->name);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct pms_pmu_cap *c = &p->caps[p->ncaps];
		if ((ret = path_of(path, sizeof(path), p->name, "caps", names[i])) < 0)
			goto out;
		if ((ret = pms_sys_read_line(sys, path, &c->value)) < 0)
			goto out;
		c->name = names[i];
		names[i] = NULL;
		p->ncaps++;
	}
out:
	pms_sys_names_free(names, n);
	return ret;
}

static int load_formats(const struct pms_sys *sys, struct pms_pmu *p)
{
	char **names = NULL, path[512], *text = NULL;
	size_t n = 0;
	int ret = list_sub(sys, p->name, "format", &names, &n);
	if (ret < 0 || n == 0)
		goto out;
	p->formats = calloc(n, sizeof(*p->formats));
	if (!p->formats) {
		ret = pms_err(PMS_ENOMEM, "out of memory reading %s formats", p->name);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct pms_format *f = &p->formats[p->nformats];
		if ((ret = path_of(path, sizeof(path), p->name, "format", names[i])) < 0)
			goto out;
		if ((ret = pms_sys_read_file(sys, path, &text, NULL)) < 0)
			goto out;
		if ((ret = pms_format_parse(text, f)) < 0) {
			char msg[1024];
			snprintf(msg, sizeof(msg), "%s", pms_error_last());
			ret = pms_err(ret, "%s/%s: %s", pms_sys_root(sys), path, msg);
			goto out;
		}
		free(text);
		text = NULL;
		f->name = names[i];
		names[i] = NULL;
		p->nformats++;
	}
out:
	free(text);
	pms_sys_names_free(names, n);
	return ret;
}

static struct pms_pmu_event *find_event(struct pms_pmu *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nevents; i++)
		if (strlen(p->events[i].name) == len && !strncmp(p->events[i].name, name, len))
			return &p->events[i];
	return NULL;
}

static int apply_side(const struct pms_sys *sys, const char *path, struct pms_pmu_event *e,
		      enum side side)
{
	char *v = NULL, *end;
	int ret = pms_sys_read_line(sys, path, &v);
	if (ret < 0)
		return ret;
	switch (side) {
	case SIDE_SCALE:
		/* perf parses .scale with strtod in the C locale (tools/perf/util/pmu.c
		 * perf_pmu__parse_scale); the kernel prints e.g. "6.103515625e-5". */
		errno = 0;
		e->scale = strtod(v, &end);
		if (errno || end == v || *end) {
			ret = pms_err(PMS_EPARSE, "%s/%s: expected a number, found '%.40s'",
				      pms_sys_root(sys), path, v);
			e->scale = 1.0;
		}
		break;
	case SIDE_UNIT:
		free(e->unit);
		e->unit = v;
		v = NULL;
		break;
	case SIDE_PER_PKG:
		e->per_pkg = strcmp(v, "0") != 0;
		break;
	case SIDE_SNAPSHOT:
		e->snapshot = strcmp(v, "0") != 0;
		break;
	case SIDE_NONE:
		break;
	}
	free(v);
	return ret;
}

static int load_events(const struct pms_sys *sys, struct pms_pmu *p)
{
	char **names = NULL, path[512];
	size_t n = 0, base;
	int ret = list_sub(sys, p->name, "events", &names, &n);
	if (ret < 0 || n == 0)
		goto out;
	p->events = calloc(n, sizeof(*p->events));
	if (!p->events) {
		ret = pms_err(PMS_ENOMEM, "out of memory reading %s events", p->name);
		goto out;
	}
	/* Aliases first, then the side files that decorate them. */
	for (size_t i = 0; i < n; i++) {
		struct pms_pmu_event *e = &p->events[p->nevents];
		if (side_of(names[i], &base) != SIDE_NONE)
			continue;
		if ((ret = path_of(path, sizeof(path), p->name, "events", names[i])) < 0)
			goto out;
		if ((ret = pms_sys_read_line(sys, path, &e->value)) < 0)
			goto out;
		e->name = names[i];
		names[i] = NULL;
		e->scale = 1.0;
		p->nevents++;
	}
	for (size_t i = 0; i < n; i++) {
		enum side side;
		struct pms_pmu_event *e;
		if (!names[i])
			continue;
		side = side_of(names[i], &base);
		e = find_event(p, names[i], base);
		if (side == SIDE_NONE || !e)
			continue; /* a side file without its alias decorates nothing */
		if ((ret = path_of(path, sizeof(path), p->name, "events", names[i])) < 0)
			goto out;
		if ((ret = apply_side(sys, path, e, side)) < 0)
			goto out;
	}
out:
	pms_sys_names_free(names, n);
	return ret;
}

/* True for the kernel's hex mask form: comma-separated groups of exactly 8
 * hex digits (bitmap_print_to_pagebuf with list=false).  A CPU list never
 * has such groups below PMS_CPUSET_MAX. */
static bool is_hex_mask(const char *t)
{
	size_t run = 0;
	for (; *t; t++) {
		if (*t == ',') {
			if (run != 8)
				return false;
			run = 0;
		} else if (isxdigit((unsigned char)*t)) {
			run++;
		} else {
			return false;
		}
	}
	return run == 8;
}

/* cpus / cpumask are printed as CPU lists by most drivers (cpumap_print_to_pagebuf
 * with list=true in drivers/perf/arm_pmu.c, arch/x86/events/intel/uncore.c);
 * a few print hex masks. */
static int load_cpus(const struct pms_sys *sys, struct pms_pmu *p, const char *file,
		     struct pms_cpuset *set)
{
	char path[512], *text = NULL;
	int ret;
	if ((ret = path_of(path, sizeof(path), p->name, file, NULL)) < 0)
		return ret;
	if ((ret = pms_sys_read_line(sys, path, &text)) < 0)
		return ret;
	if (is_hex_mask(text))
		ret = pms_cpuset_parse_mask(set, text);
	else
		ret = pms_cpuset_parse_list(set, text);
	if (ret < 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", pms_error_last());
		ret = pms_err(PMS_EPARSE, "%s/%s: %s", pms_sys_root(sys), path, msg);
	}
	free(text);
	return ret;
}

static int read_int_file(const struct pms_sys *sys, const char *pmu, const char *sub,
			 const char *leaf, int *out)
{
	char path[512];
	uint64_t v;
	int ret;
	if ((ret = path_of(path, sizeof(path), pmu, sub, leaf)) < 0)
		return ret;
	if (!pms_sys_exists(sys, path))
		return 0;
	if ((ret = pms_sys_read_u64(sys, path, &v)) < 0)
		return ret;
	if (v > 0x7fffffff)
		return pms_err(PMS_ERANGE, "%s/%s: value %llu out of range", pms_sys_root(sys),
			       path, (unsigned long long)v);
	*out = (int)v;
	return 0;
}

static int load_one(const struct pms_sys *sys, const char *name, struct pms_pmu *p)
{
	char path[512];
	uint64_t type;
	int ret;

	p->name = strdup(name);
	p->nr_addr_filters = -1;
	p->max_precise = -1;
	p->box_index = -1;
	if (!p->name)
		return pms_err(PMS_ENOMEM, "out of memory loading PMU %s", name);
	if ((ret = path_of(path, sizeof(path), name, "type", NULL)) < 0)
		return ret;
	if ((ret = pms_sys_read_u64(sys, path, &type)) < 0)
		return ret;
	if (type > UINT32_MAX)
		return pms_err(PMS_ERANGE, "%s/%s: type %llu does not fit perf_event_attr.type",
			       pms_sys_root(sys), path, (unsigned long long)type);
	p->type = (uint32_t)type;

	if ((ret = path_of(path, sizeof(path), name, "cpus", NULL)) < 0)
		return ret;
	p->has_cpus = pms_sys_exists(sys, path);
	if ((ret = path_of(path, sizeof(path), name, "cpumask", NULL)) < 0)
		return ret;
	p->has_cpumask = pms_sys_exists(sys, path);
	if (p->has_cpus)
		ret = load_cpus(sys, p, "cpus", &p->cpus);
	else if (p->has_cpumask)
		ret = load_cpus(sys, p, "cpumask", &p->cpus);
	if (ret < 0)
		return ret;
	/* drivers/perf/arm_dsu_pmu.c: the CPUs of the cluster the DSU serves */
	if ((ret = path_of(path, sizeof(path), name, "associated_cpus", NULL)) < 0)
		return ret;
	p->has_associated_cpus = pms_sys_exists(sys, path);
	if (p->has_associated_cpus &&
	    (ret = load_cpus(sys, p, "associated_cpus", &p->associated_cpus)) < 0)
		return ret;

	if ((ret = read_int_file(sys, name, "nr_addr_filters", NULL, &p->nr_addr_filters)) < 0)
		return ret;
	if ((ret = load_caps(sys, p)) < 0)
		return ret;
	if ((ret = read_int_file(sys, name, "caps", "max_precise", &p->max_precise)) < 0)
		return ret;
	if ((ret = load_formats(sys, p)) < 0)
		return ret;
	if ((ret = load_events(sys, p)) < 0)
		return ret;
	return pms_pmu_classify(p);
}

/* The PMU just tried could not be loaded: keep its message, free what it
 * had. */
struct skips {
	char **v;
	size_t n;
};

static int skip_one(struct pms_pmus *pmus, struct skips *sk, const char *name)
{
	char *m = NULL;
	if (asprintf(&m, "%s not read: %s", name, pms_error_last()) < 0)
		return pms_err(PMS_ENOMEM, "out of memory loading PMUs");
	char **v = realloc(sk->v, (sk->n + 1) * sizeof(*v));
	if (!v) {
		free(m);
		return pms_err(PMS_ENOMEM, "out of memory loading PMUs");
	}
	sk->v = v;
	sk->v[sk->n++] = m;
	free_pmu(&pmus->pmus[--pmus->count]);
	memset(&pmus->pmus[pmus->count], 0, sizeof(pmus->pmus[0]));
	pms_error_clear();
	return 0;
}

static int load_all(struct pms_sys *sys, struct skips *each, struct pms_pmus **out)
{
	struct pms_pmus *pmus = NULL;
	char **names = NULL;
	size_t n = 0;
	int ret = 0;

	if (!out)
		return pms_err(PMS_EINVAL, "pms_pmus_load: out is NULL");
	*out = NULL;
	if (!sys)
		return pms_err(PMS_EINVAL, "pms_pmus_load: sys is NULL");
	pmus = calloc(1, sizeof(*pmus));
	if (!pmus)
		return pms_err(PMS_ENOMEM, "out of memory loading PMUs");
	if (pms_sys_exists(sys, DEVICES)) {
		if ((ret = pms_sys_list_dir(sys, DEVICES, &names, &n)) < 0)
			goto out;
	}
	if (n) {
		pmus->pmus = calloc(n, sizeof(*pmus->pmus));
		if (!pmus->pmus) {
			ret = pms_err(PMS_ENOMEM, "out of memory loading %zu PMUs", n);
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* count first, so a half-loaded PMU is still freed */
		ret = load_one(sys, names[i], &pmus->pmus[pmus->count++]);
		if (ret < 0 && each && ret != PMS_ENOMEM)
			ret = skip_one(pmus, each, names[i]);
		if (ret < 0)
			goto out;
	}
	*out = pmus;
	pmus = NULL;
out:
	pms_sys_names_free(names, n);
	pms_pmus_free(pmus);
	return ret;
}

int pms_pmus_load(struct pms_sys *sys, struct pms_pmus **out)
{
	return load_all(sys, NULL, out);
}

int pms_pmus_load_each(struct pms_sys *sys, struct pms_pmus **out, char ***skipped,
		       size_t *nskipped)
{
	struct skips sk = { NULL, 0 };
	if (!skipped || !nskipped)
		return pms_err(PMS_EINVAL, "pms_pmus_load_each: NULL argument");
	int ret = load_all(sys, &sk, out);
	if (ret < 0) {
		pms_sys_names_free(sk.v, sk.n);
		sk.v = NULL;
		sk.n = 0;
	}
	*skipped = sk.v;
	*nskipped = sk.n;
	return ret;
}

const struct pms_pmu *pms_pmu_find(const struct pms_pmus *pmus, const char *name)
{
	if (!pmus || !name)
		return NULL;
	for (size_t i = 0; i < pmus->count; i++)
		if (!strcmp(pmus->pmus[i].name, name))
			return &pmus->pmus[i];
	return NULL;
}

/* "event=0x11" in a sysfs alias -> 0x11; -1 if the alias is not that. */
static long long alias_code(const char *value)
{
	const char *p = value ? strstr(value, "event=") : NULL;
	if (!p || (p != value && p[-1] != ','))
		return -1;
	return strtoll(p + 6, NULL, 0);
}

bool pms_pmu_lists_code(const struct pms_pmu *pmu, uint64_t code)
{
	for (size_t i = 0; pmu && i < pmu->nevents; i++)
		if (alias_code(pmu->events[i].value) == (long long)code)
			return true;
	return false;
}

const struct pms_pmu *pms_pmu_find_type(const struct pms_pmus *pmus, uint32_t type)
{
	if (!pmus)
		return NULL;
	for (size_t i = 0; i < pmus->count; i++)
		if (pmus->pmus[i].type == type)
			return &pmus->pmus[i];
	return NULL;
}

const struct pms_format *pms_pmu_format(const struct pms_pmu *pmu, const char *term)
{
	if (!pmu || !term)
		return NULL;
	for (size_t i = 0; i < pmu->nformats; i++)
		if (!strcmp(pmu->formats[i].name, term))
			return &pmu->formats[i];
	return NULL;
}

const struct pms_pmu_event *pms_pmu_event(const struct pms_pmu *pmu, const char *name)
{
	if (!pmu || !name)
		return NULL;
	for (size_t i = 0; i < pmu->nevents; i++)
		if (!strcmp(pmu->events[i].name, name))
			return &pmu->events[i];
	return NULL;
}

const char *pms_pmu_cap(const struct pms_pmu *pmu, const char *name)
{
	if (!pmu || !name)
		return NULL;
	for (size_t i = 0; i < pmu->ncaps; i++)
		if (!strcmp(pmu->caps[i].name, name))
			return pmu->caps[i].value;
	return NULL;
}

const struct pms_pmu *pms_pmus_core_for_cpu(const struct pms_pmus *pmus, int cpu)
{
	const struct pms_pmu *fallback = NULL;
	size_t nfallback = 0;
	if (!pmus || cpu < 0)
		return NULL;
	for (size_t i = 0; i < pmus->count; i++) {
		const struct pms_pmu *p = &pmus->pmus[i];
		if (p->kind != PMS_PMU_CORE)
			continue;
		if (p->has_cpus) {
			if (pms_cpuset_has(&p->cpus, cpu))
				return p;
		} else {
			fallback = p;
			nfallback++;
		}
	}
	return nfallback == 1 ? fallback : NULL;
}

size_t pms_pmus_count(const struct pms_pmus *pmus)
{
	return pmus ? pmus->count : 0;
}

const struct pms_pmu *pms_pmus_at(const struct pms_pmus *pmus, size_t i)
{
	return pmus && i < pmus->count ? &pmus->pmus[i] : NULL;
}

size_t pms_pmus_core_count(const struct pms_pmus *pmus)
{
	size_t n = 0;
	if (!pmus)
		return 0;
	for (size_t i = 0; i < pmus->count; i++)
		n += pmus->pmus[i].kind == PMS_PMU_CORE;
	return n;
}

bool pms_pmus_has_hardware(const struct pms_pmus *pmus)
{
	if (!pmus)
		return false;
	for (size_t i = 0; i < pmus->count; i++) {
		enum pms_pmu_kind k = pmus->pmus[i].kind;
		if (k == PMS_PMU_CORE || k == PMS_PMU_UNCORE || k == PMS_PMU_PRECISE)
			return true;
	}
	return false;
}

const char *pms_pmu_kind_name(enum pms_pmu_kind kind)
{
	static const char *const names[] = {
		[PMS_PMU_OTHER] = "other",       [PMS_PMU_CORE] = "core",
		[PMS_PMU_UNCORE] = "uncore",     [PMS_PMU_SOFTWARE] = "software",
		[PMS_PMU_TRACEPOINT] = "tracepoint", [PMS_PMU_BREAKPOINT] = "breakpoint",
		[PMS_PMU_PRECISE] = "precise",
	};
	if ((unsigned)kind >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[kind];
}


const char *pms_scope_name(enum pms_uncore_scope scope)
{
	static const char *const names[] = {
		[PMS_SCOPE_NONE] = "none",       [PMS_SCOPE_SYSTEM] = "system",
		[PMS_SCOPE_PACKAGE] = "package", [PMS_SCOPE_DIE] = "die",
		[PMS_SCOPE_CLUSTER] = "cluster", [PMS_SCOPE_CPU] = "cpu",
		[PMS_SCOPE_LLC] = "llc",
	};
	if ((unsigned)scope >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[scope];
}

const char *pms_cfg_field_name(enum pms_cfg_field field)
{
	static const char *const names[] = { "config", "config1", "config2", "config3",
					     "config4" };
	if ((unsigned)field >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[field];
}

size_t pms_format_str(const struct pms_format *f, char *buf, size_t size)
{
	char tmp[256];
	size_t len;
	int n = snprintf(tmp, sizeof(tmp), "%s:", pms_cfg_field_name(f->field));
	len = n > 0 ? (size_t)n : 0;
	for (int i = 0; i < f->nranges && len < sizeof(tmp); i++) {
		if (f->ranges[i].lo == f->ranges[i].hi)
			n = snprintf(tmp + len, sizeof(tmp) - len, "%s%d", i ? "," : "",
				     f->ranges[i].lo);
		else
			n = snprintf(tmp + len, sizeof(tmp) - len, "%s%d-%d", i ? "," : "",
				     f->ranges[i].lo, f->ranges[i].hi);
		if (n > 0)
			len += (size_t)n;
	}
	if (size) {
		size_t c = len < size - 1 ? len : size - 1;
		memcpy(buf, tmp, c);
		buf[c] = '\0';
	}
	return len;
}
