/* ARM uncore config packing: CMN, DSU, DMC-620.  Each device is a table of
 * format fields (name, config word, bit range), so encode, decode, term
 * parsing and formatting share one path. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/uncore_enc.h"
#include "util/error.h"

enum { W_CONFIG = 0, W_CONFIG1 = 1, W_CONFIG2 = 2 };
enum { F_ANY = 0, F_NOT_WP = 1, F_WP = 2 };

struct field {
	const char *name;
	int word;
	uint8_t lo, hi;
	int when; /* CMN: which encoding the field belongs to */
};

/* drivers/perf/arm-cmn.c CMN_CONFIG_* (TYPE 15:0, EVENTID 26:16, OCCUPID
 * 30:27, BYNODEID 31, NODEID 47:32) and the watchpoint sub-encoding
 * CMN_CONFIG_WP_* (COMBINE 30:27, DEV_SEL 50:48, CHN_SEL 55:51, GRP 57:56,
 * EXCLUSIVE 58, CONFIG1 = value, CONFIG2 = mask); seed 004 table
 * "Uncore PMUs" (arm-cmn.c:123-187). */
static const struct field cmn_fields[] = {
	{ "type", W_CONFIG, 0, 15, F_ANY },
	{ "eventid", W_CONFIG, 16, 26, F_ANY },
	{ "occupid", W_CONFIG, 27, 30, F_NOT_WP },
	{ "bynodeid", W_CONFIG, 31, 31, F_ANY },
	{ "nodeid", W_CONFIG, 32, 47, F_ANY },
	{ "wp_combine", W_CONFIG, 27, 30, F_WP },
	{ "wp_dev_sel", W_CONFIG, 48, 50, F_WP },
	{ "wp_chn_sel", W_CONFIG, 51, 55, F_WP },
	{ "wp_grp", W_CONFIG, 56, 57, F_WP },
	{ "wp_exclusive", W_CONFIG, 58, 58, F_WP },
	{ "wp_val", W_CONFIG1, 0, 63, F_WP },
	{ "wp_mask", W_CONFIG2, 0, 63, F_WP },
};
enum { CMN_TYPE, CMN_EVENTID, CMN_OCCUPID, CMN_BYNODEID, CMN_NODEID, CMN_WP_COMBINE,
       CMN_WP_DEV_SEL, CMN_WP_CHN_SEL, CMN_WP_GRP, CMN_WP_EXCLUSIVE, CMN_WP_VAL, CMN_WP_MASK,
       CMN_NFIELDS };

/* drivers/perf/arm_dsu_pmu.c:164: event = config:0-31. */
static const struct field dsu_fields[] = {
	{ "event", W_CONFIG, 0, 31, F_ANY },
};

/* drivers/perf/arm_dmc620_pmu.c ATTR_CFG_FLD_*: mask config:0-44, match
 * config1:0-44, invert config2:0, incr config2:1-2, event config2:3-8,
 * clkdiv2 config2:9. */
static const struct field dmc_fields[] = {
	{ "event", W_CONFIG2, 3, 8, F_ANY },
	{ "clkdiv2", W_CONFIG2, 9, 9, F_ANY },
	{ "invert", W_CONFIG2, 0, 0, F_ANY },
	{ "incr", W_CONFIG2, 1, 2, F_ANY },
	{ "mask", W_CONFIG, 0, 44, F_ANY },
	{ "match", W_CONFIG1, 0, 44, F_ANY },
};
enum { DMC_EVENT, DMC_CLKDIV2, DMC_INVERT, DMC_INCR, DMC_MASK, DMC_MATCH, DMC_NFIELDS };

struct device {
	const char *pmu;
	const struct field *fields;
	size_t nfields;
};

static const struct device devices[] = {
	[PMS_UNCORE_CMN] = { "arm_cmn", cmn_fields, sizeof(cmn_fields) / sizeof(cmn_fields[0]) },
	[PMS_UNCORE_DSU] = { "arm_dsu", dsu_fields, sizeof(dsu_fields) / sizeof(dsu_fields[0]) },
	[PMS_UNCORE_DMC620] = { "arm_dmc620", dmc_fields, sizeof(dmc_fields) / sizeof(dmc_fields[0]) },
};

static const struct device *device_get(enum pms_uncore_device dev)
{
	if ((int)dev < PMS_UNCORE_CMN || (int)dev > PMS_UNCORE_DMC620)
		return NULL;
	return &devices[dev];
}

static uint64_t field_max(const struct field *f)
{
	unsigned w = (unsigned)(f->hi - f->lo + 1);
	return w >= 64 ? UINT64_MAX : ((UINT64_C(1) << w) - 1);
}

static uint64_t *word_of(struct pms_uncore_config *c, int w)
{
	return w == W_CONFIG ? &c->config : w == W_CONFIG1 ? &c->config1 : &c->config2;
}

static uint64_t word_get(const struct pms_uncore_config *c, int w)
{
	return w == W_CONFIG ? c->config : w == W_CONFIG1 ? c->config1 : c->config2;
}

static int put(const char *pmu, const struct field *f, uint64_t v, struct pms_uncore_config *c)
{
	if (v > field_max(f))
		return pms_err(PMS_ERANGE,
			       "%s: %s=0x%" PRIx64 " does not fit %s:%u-%u (max 0x%" PRIx64 ")", pmu,
			       f->name, v, f->word == W_CONFIG ? "config" : f->word == W_CONFIG1 ? "config1" : "config2",
			       f->lo, f->hi, field_max(f));
	*word_of(c, f->word) |= v << f->lo;
	return 0;
}

static uint64_t get(const struct field *f, const struct pms_uncore_config *c)
{
	return (word_get(c, f->word) >> f->lo) & field_max(f);
}

/* Bits of the config words the fields for `when` cover. */
static void covered(const struct device *d, int when, uint64_t mask[3])
{
	mask[0] = mask[1] = mask[2] = 0;
	for (size_t i = 0; i < d->nfields; i++) {
		const struct field *f = &d->fields[i];
		if (f->when != F_ANY && f->when != when)
			continue;
		mask[f->word] |= field_max(f) << f->lo;
	}
}

static int check_stray(const struct device *d, int when, const struct pms_uncore_config *c)
{
	uint64_t m[3];
	covered(d, when, m);
	for (int w = 0; w < 3; w++) {
		uint64_t stray = word_get(c, w) & ~m[w];
		if (stray)
			return pms_err(PMS_EPARSE,
				       "%s: %s has bits 0x%" PRIx64 " outside the %s layout",
				       d->pmu, w == 0 ? "config" : w == 1 ? "config1" : "config2", stray,
				       when == F_WP ? "watchpoint" : "event");
	}
	return 0;
}

int pms_cmn_encode(const struct pms_cmn_event *ev, struct pms_uncore_config *out)
{
	const struct device *d = &devices[PMS_UNCORE_CMN];
	struct pms_uncore_config c = { 0, 0, 0 };
	bool wp = ev->type == PMS_CMN_TYPE_WP;
	int r = 0;

	if (wp) {
		if (ev->occupid)
			return pms_err(PMS_EINVAL,
				       "arm_cmn: occupid does not apply to watchpoints (type=0x%x); its bits carry wp_combine",
				       PMS_CMN_TYPE_WP);
		if (ev->eventid != PMS_CMN_WP_UP && ev->eventid != PMS_CMN_WP_DOWN)
			return pms_err(PMS_ERANGE,
				       "arm_cmn: watchpoint eventid must be %d (up) or %d (down), not %u",
				       PMS_CMN_WP_UP, PMS_CMN_WP_DOWN, ev->eventid);
	} else if (ev->wp_combine || ev->wp_dev_sel || ev->wp_chn_sel || ev->wp_grp ||
		   ev->wp_exclusive || ev->wp_val || ev->wp_mask) {
		return pms_err(PMS_EINVAL,
			       "arm_cmn: wp_* fields need type=0x%x (watchpoint), not type=0x%x",
			       PMS_CMN_TYPE_WP, ev->type);
	}
	uint64_t v[CMN_NFIELDS] = {
		[CMN_TYPE] = ev->type, [CMN_EVENTID] = ev->eventid, [CMN_OCCUPID] = ev->occupid,
		[CMN_BYNODEID] = ev->bynodeid, [CMN_NODEID] = ev->nodeid,
		[CMN_WP_COMBINE] = ev->wp_combine, [CMN_WP_DEV_SEL] = ev->wp_dev_sel,
		[CMN_WP_CHN_SEL] = ev->wp_chn_sel, [CMN_WP_GRP] = ev->wp_grp,
		[CMN_WP_EXCLUSIVE] = ev->wp_exclusive, [CMN_WP_VAL] = ev->wp_val,
		[CMN_WP_MASK] = ev->wp_mask,
	};
	for (size_t i = 0; i < CMN_NFIELDS && r == 0; i++) {
		if (d->fields[i].when == (wp ? F_NOT_WP : F_WP))
			continue;
		r = put(d->pmu, &d->fields[i], v[i], &c);
	}
	if (r < 0)
		return r;
	*out = c;
	return 0;
}

int pms_cmn_decode(const struct pms_uncore_config *cfg, struct pms_cmn_event *out)
{
	const struct device *d = &devices[PMS_UNCORE_CMN];
	struct pms_cmn_event e;
	memset(&e, 0, sizeof(e));
	e.type = (uint16_t)get(&d->fields[CMN_TYPE], cfg);
	bool wp = e.type == PMS_CMN_TYPE_WP;
	int r = check_stray(d, wp ? F_WP : F_NOT_WP, cfg);
	if (r < 0)
		return r;
	e.eventid = (uint16_t)get(&d->fields[CMN_EVENTID], cfg);
	e.bynodeid = get(&d->fields[CMN_BYNODEID], cfg) != 0;
	e.nodeid = (uint16_t)get(&d->fields[CMN_NODEID], cfg);
	if (wp) {
		e.wp_combine = (uint8_t)get(&d->fields[CMN_WP_COMBINE], cfg);
		e.wp_dev_sel = (uint8_t)get(&d->fields[CMN_WP_DEV_SEL], cfg);
		e.wp_chn_sel = (uint8_t)get(&d->fields[CMN_WP_CHN_SEL], cfg);
		e.wp_grp = (uint8_t)get(&d->fields[CMN_WP_GRP], cfg);
		e.wp_exclusive = get(&d->fields[CMN_WP_EXCLUSIVE], cfg) != 0;
		e.wp_val = cfg->config1;
		e.wp_mask = cfg->config2;
	} else {
		e.occupid = (uint8_t)get(&d->fields[CMN_OCCUPID], cfg);
	}
	*out = e;
	return 0;
}

int pms_dsu_encode(const struct pms_dsu_event *ev, struct pms_uncore_config *out)
{
	struct pms_uncore_config c = { 0, 0, 0 };
	int r = put("arm_dsu", &dsu_fields[0], ev->event, &c);
	if (r < 0)
		return r;
	*out = c;
	return 0;
}

int pms_dsu_decode(const struct pms_uncore_config *cfg, struct pms_dsu_event *out)
{
	int r = check_stray(&devices[PMS_UNCORE_DSU], F_ANY, cfg);
	if (r < 0)
		return r;
	out->event = (uint32_t)get(&dsu_fields[0], cfg);
	return 0;
}

int pms_dmc620_encode(const struct pms_dmc620_event *ev, struct pms_uncore_config *out)
{
	struct pms_uncore_config c = { 0, 0, 0 };
	uint64_t v[DMC_NFIELDS] = {
		[DMC_EVENT] = ev->eventid, [DMC_CLKDIV2] = ev->clkdiv2, [DMC_INVERT] = ev->invert,
		[DMC_INCR] = ev->incr, [DMC_MASK] = ev->mask, [DMC_MATCH] = ev->match,
	};
	for (size_t i = 0; i < DMC_NFIELDS; i++) {
		int r = put("arm_dmc620", &dmc_fields[i], v[i], &c);
		if (r < 0)
			return r;
	}
	*out = c;
	return 0;
}

int pms_dmc620_decode(const struct pms_uncore_config *cfg, struct pms_dmc620_event *out)
{
	int r = check_stray(&devices[PMS_UNCORE_DMC620], F_ANY, cfg);
	if (r < 0)
		return r;
	out->eventid = (uint8_t)get(&dmc_fields[DMC_EVENT], cfg);
	out->clkdiv2 = get(&dmc_fields[DMC_CLKDIV2], cfg) != 0;
	out->invert = get(&dmc_fields[DMC_INVERT], cfg) != 0;
	out->incr = (uint8_t)get(&dmc_fields[DMC_INCR], cfg);
	out->mask = get(&dmc_fields[DMC_MASK], cfg);
	out->match = get(&dmc_fields[DMC_MATCH], cfg);
	return 0;
}

const char *pms_uncore_device_pmu(enum pms_uncore_device dev)
{
	const struct device *d = device_get(dev);
	return d ? d->pmu : NULL;
}

static const struct field *find_field(const struct device *d, const char *name, size_t len)
{
	for (size_t i = 0; i < d->nfields; i++)
		if (strlen(d->fields[i].name) == len && !strncmp(d->fields[i].name, name, len))
			return &d->fields[i];
	/* DMC-620's selector is called eventid in Arm's documentation. */
	if (d == &devices[PMS_UNCORE_DMC620] && len == 7 && !strncmp(name, "eventid", 7))
		return &d->fields[DMC_EVENT];
	return NULL;
}

int pms_uncore_parse(enum pms_uncore_device dev, const char *terms,
		     struct pms_uncore_config *out)
{
	const struct device *d = device_get(dev);
	struct pms_uncore_config c = { 0, 0, 0 };
	bool seen_wp = false, seen_notwp = false;
	uint64_t type = 0;

	if (!d)
		return pms_err(PMS_EINVAL, "unknown uncore device %d", (int)dev);
	if (!terms)
		return pms_err(PMS_EINVAL, "%s: no terms", d->pmu);
	const char *p = terms;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t nlen = eq ? (size_t)(eq - p) : len;
		const struct field *f = find_field(d, p, nlen);
		size_t col = (size_t)(p - terms) + 1;
		if (!f)
			return pms_err(PMS_EINVAL, "%s: unknown term \"%.*s\" at column %zu", d->pmu,
				       (int)nlen, p, col);
		uint64_t v = 1;
		if (eq) {
			char buf[32];
			size_t vlen = len - nlen - 1;
			if (vlen == 0 || vlen >= sizeof(buf))
				return pms_err(PMS_EPARSE, "%s: bad value for %s at column %zu", d->pmu,
					       f->name, col);
			memcpy(buf, eq + 1, vlen);
			buf[vlen] = '\0';
			char *e;
			errno = 0;
			v = strtoull(buf, &e, 0);
			if (*e || errno || buf[0] == '-')
				return pms_err(PMS_EPARSE, "%s: %s=\"%s\" is not a number (column %zu)",
					       d->pmu, f->name, buf, col);
		}
		if (word_get(&c, f->word) & (field_max(f) << f->lo))
			return pms_err(PMS_EINVAL, "%s: %s given twice (or overlaps another term), column %zu",
				       d->pmu, f->name, col);
		int r = put(d->pmu, f, v, &c);
		if (r < 0)
			return r;
		if (f->when == F_WP)
			seen_wp = true;
		if (f->when == F_NOT_WP)
			seen_notwp = true;
		if (dev == PMS_UNCORE_CMN && !strcmp(f->name, "type"))
			type = v;
		p = end ? end + 1 : p + len;
	}
	if (dev == PMS_UNCORE_CMN) {
		if (seen_wp && type != PMS_CMN_TYPE_WP)
			return pms_err(PMS_EINVAL, "arm_cmn: wp_* terms need type=0x%x (watchpoint)",
				       PMS_CMN_TYPE_WP);
		if (seen_notwp && type == PMS_CMN_TYPE_WP)
			return pms_err(PMS_EINVAL,
				       "arm_cmn: occupid does not apply to watchpoints (type=0x%x)",
				       PMS_CMN_TYPE_WP);
	}
	*out = c;
	return 0;
}

int pms_uncore_format(enum pms_uncore_device dev, const struct pms_uncore_config *cfg,
		      char *buf, size_t size)
{
	const struct device *d = device_get(dev);
	size_t len = 0;
	int when = F_ANY;

	if (!d)
		return pms_err(PMS_EINVAL, "unknown uncore device %d", (int)dev);
	if (dev == PMS_UNCORE_CMN)
		when = get(&cmn_fields[CMN_TYPE], cfg) == PMS_CMN_TYPE_WP ? F_WP : F_NOT_WP;
	int r = check_stray(d, when, cfg);
	if (r < 0)
		return r;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < d->nfields; i++) {
		const struct field *f = &d->fields[i];
		if (f->when != F_ANY && f->when != when)
			continue;
		uint64_t v = get(f, cfg);
		/* Always show the selector (and CMN's eventid: 0 is a real event). */
		if (!v && i != 0 && !(dev == PMS_UNCORE_CMN && i == CMN_EVENTID))
			continue;
		int n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
				 "%s%s=0x%" PRIx64, len ? "," : "", f->name, v);
		if (n > 0)
			len += (size_t)n;
	}
	return (int)len;
}
