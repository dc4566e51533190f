/* sysfs format terms: "config1:0-7,32-35" -> bit ranges, and value placement.
 *
 * The text is what the kernel's format attributes print (PMU_FORMAT_ATTR in
 * include/linux/perf_event.h emits "config:0-7\n"); perf reads the same files
 * in tools/perf/util/pmu.c.  The parser is strict: anything it does not
 * understand is reported with its column instead of being skipped. */
#include "pmuscope/pmu.h"
#include "util/error.h"

#include <ctype.h>
#include <linux/perf_event.h>
#include <string.h>

/* The attr words a format may name (struct perf_event_attr config..config4,
 * include/uapi/linux/perf_event.h).  "config" with no digit is config0. */
static const struct {
	const char *name;
	enum pms_cfg_field field;
} cfg_fields[] = {
	{ "config", PMS_CFG_CONFIG },   { "config1", PMS_CFG_CONFIG1 },
	{ "config2", PMS_CFG_CONFIG2 }, { "config3", PMS_CFG_CONFIG3 },
	{ "config4", PMS_CFG_CONFIG4 },
};

static int col(const char *text, const char *p)
{
	return (int)(p - text) + 1;
}

/* Length of text without trailing whitespace, for messages. */
static int shown(const char *text)
{
	size_t n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	return n > 64 ? 64 : (int)n;
}

static int parse_bit(const char *text, const char **p, int *out)
{
	const char *start = *p;
	int v = 0;
	if (!isdigit((unsigned char)**p))
		return pms_err(PMS_EPARSE,
			       "format '%.*s': expected a bit number at column %d", shown(text),
			       text, col(text, *p));
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > 63)
			return pms_err(PMS_EPARSE,
				       "format '%.*s': bit number at column %d is above 63",
				       shown(text), text, col(text, start));
		(*p)++;
	}
	*out = v;
	return 0;
}

int pms_format_parse(const char *text, struct pms_format *f)
{
	const char *p = text, *name_end;
	size_t nlen;
	uint64_t seen = 0;
	int ret, i;

	if (!text || !f)
		return pms_err(PMS_EINVAL, "pms_format_parse: NULL argument");
	f->field = PMS_CFG_CONFIG;
	f->nranges = 0;
	f->width = 0;

	name_end = p;
	while (isalnum((unsigned char)*name_end))
		name_end++;
	nlen = (size_t)(name_end - p);
	if (nlen == 0)
		return pms_err(PMS_EPARSE,
			       "format '%.*s': expected config, config1..config4 at column 1",
			       shown(text), text);
	for (i = 0; i < (int)(sizeof(cfg_fields) / sizeof(cfg_fields[0])); i++)
		if (strlen(cfg_fields[i].name) == nlen && !memcmp(cfg_fields[i].name, p, nlen))
			break;
	if (i == (int)(sizeof(cfg_fields) / sizeof(cfg_fields[0])))
		return pms_err(PMS_EPARSE,
			       "format '%.*s': unknown field '%.*s' at column 1 (expected config, "
			       "config1..config4)",
			       shown(text), text, (int)(nlen > 32 ? 32 : nlen), p);
	f->field = cfg_fields[i].field;
	p = name_end;
	if (*p != ':')
		return pms_err(PMS_EPARSE, "format '%.*s': expected ':' at column %d",
			       shown(text), text, col(text, p));
	p++;

	for (;;) {
		const char *start = p;
		int lo, hi;
		uint64_t m;
		if ((ret = parse_bit(text, &p, &lo)) < 0)
			goto fail;
		hi = lo;
		if (*p == '-') {
			p++;
			if ((ret = parse_bit(text, &p, &hi)) < 0)
				goto fail;
			if (hi < lo) {
				ret = pms_err(PMS_EPARSE,
					      "format '%.*s': range %d-%d at column %d is backwards",
					      shown(text), text, lo, hi, col(text, start));
				goto fail;
			}
		}
		m = (hi == 63 ? ~UINT64_C(0) : ((UINT64_C(1) << (hi + 1)) - 1)) &
		    ~((UINT64_C(1) << lo) - 1);
		if (m & seen) {
			ret = pms_err(PMS_EPARSE,
				      "format '%.*s': range at column %d overlaps an earlier one",
				      shown(text), text, col(text, start));
			goto fail;
		}
		if (f->nranges == PMS_FORMAT_MAX_RANGES) {
			ret = pms_err(PMS_EPARSE,
				      "format '%.*s': more than %d ranges (column %d)", shown(text),
				      text, PMS_FORMAT_MAX_RANGES, col(text, start));
			goto fail;
		}
		seen |= m;
		f->ranges[f->nranges].lo = (uint8_t)lo;
		f->ranges[f->nranges].hi = (uint8_t)hi;
		f->nranges++;
		f->width += hi - lo + 1;
		if (*p == ',') {
			p++;
			continue;
		}
		break;
	}
	/* sysfs text ends with a newline; allow trailing whitespace only. */
	while (*p == '\n' || *p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (*p != '\0') {
		ret = pms_err(PMS_EPARSE, "format '%.*s': unexpected '%c' at column %d",
			      shown(text), text, isprint((unsigned char)*p) ? *p : '?',
			      col(text, p));
		goto fail;
	}
	/* Keep ranges ascending: perf assigns value bits in ascending bit order
	 * (tools/perf/util/pmu.c pmu_format_value), whatever order the text used. */
	for (int a = 1; a < f->nranges; a++)
		for (int b = a; b > 0 && f->ranges[b - 1].lo > f->ranges[b].lo; b--) {
			struct pms_bitrange t = f->ranges[b];
			f->ranges[b] = f->ranges[b - 1];
			f->ranges[b - 1] = t;
		}
	return 0;
fail:
	f->nranges = 0;
	f->width = 0;
	return ret;
}

uint64_t pms_format_mask(const struct pms_format *f)
{
	uint64_t m = 0;
	for (int i = 0; i < f->nranges; i++) {
		int lo = f->ranges[i].lo, hi = f->ranges[i].hi;
		m |= (hi == 63 ? ~UINT64_C(0) : ((UINT64_C(1) << (hi + 1)) - 1)) &
		     ~((UINT64_C(1) << lo) - 1);
	}
	return m;
}

int pms_format_encode(const struct pms_format *f, uint64_t value, uint64_t *word)
{
	int shift = 0;

	if (f->width <= 0 || f->width > 64)
		return pms_err(PMS_EINVAL, "format term '%s' has no bits",
			       f->name ? f->name : "?");
	if (f->width < 64 && (value >> f->width) != 0)
		return pms_err(PMS_ERANGE,
			       "value 0x%llx does not fit format term '%s' (%d bits, max 0x%llx)",
			       (unsigned long long)value, f->name ? f->name : "?", f->width,
			       (unsigned long long)((UINT64_C(1) << f->width) - 1));
	/* Least significant value bits go to the first range (tools/perf/util/
	 * pmu.c pmu_format_value() does the same walk over the format bitmap). */
	for (int i = 0; i < f->nranges; i++) {
		int lo = f->ranges[i].lo, n = f->ranges[i].hi - lo + 1;
		uint64_t part = n == 64 ? value : (value >> shift) & ((UINT64_C(1) << n) - 1);
		*word |= part << lo;
		shift += n;
	}
	return 0;
}

/* Where each field lives in perf_event_attr; config4 has no attr word. */
static __u64 *attr_word(enum pms_cfg_field field, struct perf_event_attr *attr)
{
	switch (field) {
	case PMS_CFG_CONFIG: return &attr->config;
	case PMS_CFG_CONFIG1: return &attr->config1;
	case PMS_CFG_CONFIG2: return &attr->config2;
	case PMS_CFG_CONFIG3: return &attr->config3;
	default: return NULL;
	}
}

int pms_format_attr_get(const struct pms_format *f, const struct perf_event_attr *attr,
			uint64_t *word)
{
	const __u64 *w = f && attr ? attr_word(f->field, (struct perf_event_attr *)attr) : NULL;
	if (!w)
		return pms_err(PMS_ENOTSUP, "format term '%s' is not in config..config3 (the "
					    "words perf_event_attr has)", f && f->name ? f->name : "?");
	*word = *w;
	return 0;
}

int pms_format_attr_set(const struct pms_format *f, struct perf_event_attr *attr,
			uint64_t value)
{
	uint64_t word;
	int r = pms_format_attr_get(f, attr, &word);
	if (r < 0)
		return r;
	word &= ~pms_format_mask(f);
	if ((r = pms_format_encode(f, value, &word)) < 0)
		return r;
	*attr_word(f->field, attr) = word;
	return 0;
}
