#include "pmuscope/cpuset.h"
#include "util/error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pms_cpuset_fini(struct pms_cpuset *s)
{
	free(s->bits);
	s->bits = NULL;
	s->nwords = 0;
}

void pms_cpuset_clear(struct pms_cpuset *s)
{
	if (s->bits)
		memset(s->bits, 0, s->nwords * sizeof(*s->bits));
}

static int grow(struct pms_cpuset *s, size_t nwords)
{
	uint64_t *nb;
	if (nwords <= s->nwords)
		return 0;
	nb = realloc(s->bits, nwords * sizeof(*nb));
	if (!nb)
		return pms_err(PMS_ENOMEM, "out of memory growing a CPU set");
	memset(nb + s->nwords, 0, (nwords - s->nwords) * sizeof(*nb));
	s->bits = nb;
	s->nwords = nwords;
	return 0;
}

int pms_cpuset_add(struct pms_cpuset *s, int cpu)
{
	int ret;
	if (cpu < 0 || cpu > PMS_CPUSET_MAX)
		return pms_err(PMS_ERANGE, "CPU number %d out of range 0-%d", cpu, PMS_CPUSET_MAX);
	ret = grow(s, (size_t)cpu / 64 + 1);
	if (ret < 0)
		return ret;
	s->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	return 0;
}

int pms_cpuset_add_range(struct pms_cpuset *s, int first, int last)
{
	for (int c = first; c <= last; c++) {
		int ret = pms_cpuset_add(s, c);
		if (ret < 0)
			return ret;
	}
	return 0;
}

bool pms_cpuset_has(const struct pms_cpuset *s, int cpu)
{
	if (cpu < 0 || (size_t)cpu / 64 >= s->nwords)
		return false;
	return (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int pms_cpuset_count(const struct pms_cpuset *s)
{
	int n = 0;
	for (size_t i = 0; i < s->nwords; i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int pms_cpuset_next(const struct pms_cpuset *s, int from)
{
	if (from < 0)
		from = 0;
	for (size_t w = (size_t)from / 64; w < s->nwords; w++) {
		uint64_t v = s->bits[w];
		if (w == (size_t)from / 64)
			v &= ~UINT64_C(0) << (from % 64);
		if (v)
			return (int)(w * 64) + __builtin_ctzll(v);
	}
	return -1;
}

int pms_cpuset_first(const struct pms_cpuset *s)
{
	return pms_cpuset_next(s, 0);
}

static uint64_t word(const struct pms_cpuset *s, size_t i)
{
	return i < s->nwords ? s->bits[i] : 0;
}

bool pms_cpuset_equal(const struct pms_cpuset *a, const struct pms_cpuset *b)
{
	size_t n = a->nwords > b->nwords ? a->nwords : b->nwords;
	for (size_t i = 0; i < n; i++)
		if (word(a, i) != word(b, i))
			return false;
	return true;
}

bool pms_cpuset_intersects(const struct pms_cpuset *a, const struct pms_cpuset *b)
{
	size_t n = a->nwords < b->nwords ? a->nwords : b->nwords;
	for (size_t i = 0; i < n; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

bool pms_cpuset_subset(const struct pms_cpuset *sub, const struct pms_cpuset *super)
{
	for (size_t i = 0; i < sub->nwords; i++)
		if (sub->bits[i] & ~word(super, i))
			return false;
	return true;
}

int pms_cpuset_copy(struct pms_cpuset *dst, const struct pms_cpuset *src)
{
	int ret;
	pms_cpuset_clear(dst);
	ret = grow(dst, src->nwords);
	if (ret < 0)
		return ret;
	if (src->nwords)
		memcpy(dst->bits, src->bits, src->nwords * sizeof(*src->bits));
	return 0;
}

int pms_cpuset_or(struct pms_cpuset *dst, const struct pms_cpuset *src)
{
	int ret = grow(dst, src->nwords);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < src->nwords; i++)
		dst->bits[i] |= src->bits[i];
	return 0;
}

static int parse_num(const char *text, const char **p, int *out)
{
	long v = 0;
	if (!isdigit((unsigned char)**p))
		return pms_err(PMS_EPARSE, "CPU list '%.64s': expected a number at column %d",
			       text, (int)(*p - text) + 1);
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > PMS_CPUSET_MAX)
			return pms_err(PMS_ERANGE, "CPU list '%.64s': number at column %d exceeds %d",
				       text, (int)(*p - text) + 1, PMS_CPUSET_MAX);
		(*p)++;
	}
	*out = (int)v;
	return 0;
}

int pms_cpuset_parse_list(struct pms_cpuset *s, const char *text)
{
	const char *p = text;
	int ret = 0;

	pms_cpuset_clear(s);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n')
		return 0;
	for (;;) {
		int a, b;
		if ((ret = parse_num(text, &p, &a)) < 0)
			goto fail;
		b = a;
		if (*p == '-') {
			p++;
			if ((ret = parse_num(text, &p, &b)) < 0)
				goto fail;
			if (b < a) {
				ret = pms_err(PMS_EPARSE, "CPU list '%.64s': range %d-%d is backwards",
					      text, a, b);
				goto fail;
			}
		}
		if ((ret = pms_cpuset_add_range(s, a, b)) < 0)
			goto fail;
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != '\0') {
			ret = pms_err(PMS_EPARSE, "CPU list '%.64s': unexpected '%c' at column %d",
				      text, *p, (int)(p - text) + 1);
			goto fail;
		}
		return 0;
	}
fail:
	/* empty and unallocated: a caller that drops the set after a
	 * failed parse (without pms_cpuset_fini) leaks nothing */
	pms_cpuset_fini(s);
	return ret;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int pms_cpuset_parse_mask(struct pms_cpuset *s, const char *text)
{
	const char *p = text, *end;
	int bit = 0, ret;

	pms_cpuset_clear(s);
	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	end = p + strlen(p);
	while (end > p && strchr(" \t\r\n", end[-1]))
		end--;
	for (const char *q = p; q < end; q++)
		if (*q != ',' && hexval(*q) < 0)
			return pms_err(PMS_EPARSE, "CPU mask '%.64s': bad character '%c' at column %d",
				       text, *q, (int)(q - text) + 1);
	/* Walk from the least significant digit. */
	for (const char *q = end; q > p; q--) {
		int v = hexval(q[-1]);
		if (q[-1] == ',')
			continue;
		for (int i = 0; i < 4; i++, bit++) {
			if (!(v >> i & 1))
				continue;
			if (bit > PMS_CPUSET_MAX) {
				pms_cpuset_fini(s);
				return pms_err(PMS_ERANGE, "CPU mask '%.64s' names CPUs above %d",
					       text, PMS_CPUSET_MAX);
			}
			if ((ret = pms_cpuset_add(s, bit)) < 0) {
				pms_cpuset_fini(s);
				return ret;
			}
		}
	}
	return 0;
}

size_t pms_cpuset_format(const struct pms_cpuset *s, char *buf, size_t size)
{
	size_t len = 0;
	int c = pms_cpuset_first(s);
	if (size)
		buf[0] = '\0';
	while (c >= 0) {
		int e = c;
		char tmp[32];
		int n;
		while (pms_cpuset_has(s, e + 1))
			e++;
		if (e == c)
			n = snprintf(tmp, sizeof(tmp), "%s%d", len ? "," : "", c);
		else
			n = snprintf(tmp, sizeof(tmp), "%s%d-%d", len ? "," : "", c, e);
		if (len + (size_t)n < size)
			memcpy(buf + len, tmp, (size_t)n + 1);
		else if (size)
			buf[size - 1] = '\0', buf[len < size ? len : size - 1] = '\0';
		len += (size_t)n;
		c = pms_cpuset_next(s, e + 1);
	}
	return len;
}
