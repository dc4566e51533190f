/* A memo of data_src texts: the formatted text of each distinct 64-bit
 * data_src word, kept once.  Printing a file's samples formats the same
 * words again and again; real PEBS, IBS and SPE files carry from a dozen to
 * tens of thousands of distinct words, so a small direct-mapped cache
 * thrashes on the larger ones while this table keeps every word up to its
 * bound (and formats into a scratch buffer past it). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode/datasrc_int.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "util/error.h"

struct memo_slot {
	uint64_t val;
	uint32_t off; /* into text; UINT32_MAX: empty */
	uint32_t len;
};

struct pms_datasrc_memo {
	enum pms_datasrc_memo_kind kind;
	struct memo_slot *slot;
	size_t cap;     /* slots: a power of two, twice the entries bound */
	size_t n, max;  /* entries, their bound */
	char *text;     /* every kept text, back to back (no NUL between) */
	size_t tlen, tcap;
	/* full: lookups and hits in this window, lookups left to format
	 * without looking (a file of a new word a sample misses a table of
	 * megabytes each time: a cache miss, then the formatting anyway) */
	unsigned look, hit, skip;
	char scratch[PMS_DATASRC_PUT_ROOM];
};

int pms_datasrc_memo_new(enum pms_datasrc_memo_kind kind, size_t max_entries,
			 struct pms_datasrc_memo **out)
{
	struct pms_datasrc_memo *m;
	size_t cap = 64;

	if (!out || (kind != PMS_DATASRC_MEMO_TEXT && kind != PMS_DATASRC_MEMO_SCRIPT))
		return pms_err(PMS_EINVAL, "pms_datasrc_memo_new: %s",
				     out ? "kind is PMS_DATASRC_MEMO_TEXT or _SCRIPT" : "out is NULL");
	if (!max_entries)
		max_entries = PMS_DATASRC_MEMO_DEFAULT;
	if (max_entries > (1u << 24))
		max_entries = 1u << 24;
	while (cap < 2 * max_entries)
		cap *= 2;
	m = calloc(1, sizeof(*m));
	if (!m)
		return pms_err(PMS_ENOMEM, "pms_datasrc_memo_new: out of memory");
	m->kind = kind;
	m->max = max_entries;
	/* the table starts small and doubles up to cap as words come */
	m->cap = cap < 1024 ? cap : 1024;
	m->slot = malloc(m->cap * sizeof(*m->slot));
	if (!m->slot) {
		free(m);
		return pms_err(PMS_ENOMEM, "pms_datasrc_memo_new: out of memory");
	}
	for (size_t i = 0; i < m->cap; i++)
		m->slot[i].off = UINT32_MAX;
	*out = m;
	return 0;
}

void pms_datasrc_memo_free(struct pms_datasrc_memo *m)
{
	if (!m)
		return;
	free(m->slot);
	free(m->text);
	free(m);
}

size_t pms_datasrc_memo_size(const struct pms_datasrc_memo *m)
{
	return m ? m->n : 0;
}

static inline size_t hash(uint64_t v, size_t cap)
{
	return (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* val's text in m's scratch (written in place: no copy of it), its length. */
static size_t format(struct pms_datasrc_memo *m, uint64_t val)
{
	return m->kind == PMS_DATASRC_MEMO_SCRIPT ? pms_datasrc_put_script_(val, m->scratch)
						  : pms_datasrc_put_(val, m->scratch);
}

/* Double the table (rehash every kept word).  false when out of memory. */
static bool grow(struct pms_datasrc_memo *m)
{
	size_t cap = m->cap * 2;
	struct memo_slot *s = malloc(cap * sizeof(*s));
	if (!s)
		return false;
	for (size_t i = 0; i < cap; i++)
		s[i].off = UINT32_MAX;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slot[i].off == UINT32_MAX)
			continue;
		size_t j = hash(m->slot[i].val, cap);
		while (s[j].off != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		s[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = s;
	m->cap = cap;
	return true;
}

/* Keep val's text in slot j.  false when the text cannot be kept. */
static bool keep(struct pms_datasrc_memo *m, size_t j, uint64_t val, const char *t, size_t len)
{
	if (m->tlen + len > m->tcap) {
		size_t c = m->tcap ? m->tcap * 2 : 4096;
		while (c < m->tlen + len)
			c *= 2;
		if (c > UINT32_MAX)
			return false;
		char *nt = realloc(m->text, c);
		if (!nt)
			return false;
		m->text = nt;
		m->tcap = c;
	}
	memcpy(m->text + m->tlen, t, len);
	m->slot[j].val = val;
	m->slot[j].off = (uint32_t)m->tlen;
	m->slot[j].len = (uint32_t)len;
	m->tlen += len;
	m->n++;
	return true;
}

static const char *miss(struct pms_datasrc_memo *m, uint64_t val, size_t j, size_t *len)
{
	size_t n = format(m, val);
	if (m->n >= m->max)
		goto scratch;
	if (2 * (m->n + 1) > m->cap) {
		if (!grow(m))
			goto scratch;
		j = hash(val, m->cap);
		while (m->slot[j].off != UINT32_MAX)
			j = (j + 1) & (m->cap - 1);
	}
	if (!keep(m, j, val, m->scratch, n))
		goto scratch;
	*len = n;
	return m->text + m->slot[j].off;
scratch:
	*len = n;
	return m->scratch;
}

/* While the memo is full: a window of MEMO_WINDOW lookups that hit less
 * than one in MEMO_RARE stops the lookups for the next MEMO_SKIP words
 * (formatted each, as a miss is), then looks again.  The texts are the
 * same either way; only where they come from differs. */
#define MEMO_WINDOW 4096u
#define MEMO_RARE 16u
#define MEMO_SKIP 65536u

static const char *lookup(struct pms_datasrc_memo *m, uint64_t val, size_t *len)
{
	size_t j = hash(val, m->cap);
	for (;;) {
		const struct memo_slot *s = &m->slot[j];
		if (s->off == UINT32_MAX)
			return miss(m, val, j, len);
		if (s->val == val) {
			*len = s->len;
			return m->text + s->off;
		}
		j = (j + 1) & (m->cap - 1);
	}
}

const char *pms_datasrc_memo_text(struct pms_datasrc_memo *m, uint64_t val, size_t *len)
{
	if (m->n < m->max)
		return lookup(m, val, len);
	if (m->skip) {
		m->skip--;
		*len = format(m, val);
		return m->scratch;
	}
	const char *t = lookup(m, val, len);
	m->hit += t != m->scratch;
	if (++m->look == MEMO_WINDOW) {
		if (m->hit < MEMO_WINDOW / MEMO_RARE)
			m->skip = MEMO_SKIP;
		m->look = m->hit = 0;
	}
	return t;
}
