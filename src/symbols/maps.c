/* A process's mappings: sorted, non-overlapping, fed by /proc/PID/maps lines
 * and MMAP2 records (a later mapping replaces what it overlaps, as mmap(2)
 * with MAP_FIXED semantics would). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/symbols.h"
#include "util/error.h"
#include "util/grow.h"

int pms_maps_new(struct pms_maps **out)
{
	if (!out)
		return pms_err(PMS_EINVAL, "maps: NULL out");
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return pms_err(PMS_ENOMEM, "maps: no memory");
	return 0;
}

void pms_maps_free(struct pms_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	free(m);
}

static enum pms_map_kind kind_of(const char *path)
{
	if (!path || !*path)
		return PMS_MAP_ANON;
	if (!strcmp(path, "[heap]"))
		return PMS_MAP_HEAP;
	if (!strncmp(path, "[stack", 6))
		return PMS_MAP_STACK;
	if (path[0] == '[' || !strncmp(path, "//anon", 6))
		return PMS_MAP_SPECIAL;
	return PMS_MAP_FILE;
}

const char *pms_map_kind_name(enum pms_map_kind k)
{
	static const char *const names[] = { "file", "anon", "heap", "stack", "special" };
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static int reserve(struct pms_maps *m, size_t n)
{
	return pms_grow(&m->v, &m->cap, n, sizeof(*m->v), 64, "the mapping list");
}

/* Index of the first mapping that ends above addr (m->n if none): the
 * list is sorted and non-overlapping, so ends are sorted too. */
static size_t first_ending_above(const struct pms_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Cut [start, end) out of every mapping; a mapping straddling it splits.
 * Only the mappings that overlap are visited (a system-wide run feeds every
 * process's MMAP records here: a scan of the whole list per record made
 * the side-band quadratic), and the ones wholly inside go in one move. */
static int cut(struct pms_maps *m, uint64_t start, uint64_t end)
{
	size_t i = first_ending_above(m, start);
	if (i >= m->n || m->v[i].start >= end)
		return 0;
	struct pms_map *p = &m->v[i];
	if (p->start < start && p->end > end) {
		/* split in two */
		int rc = reserve(m, m->n + 1);
		if (rc < 0)
			return rc;
		p = &m->v[i];
		char *dup = strdup(p->path);
		if (!dup)
			return pms_err(PMS_ENOMEM, "maps: no memory");
		memmove(&m->v[i + 2], &m->v[i + 1], (m->n - i - 1) * sizeof(*p));
		m->v[i + 1] = *p;
		m->v[i + 1].path = dup;
		m->v[i + 1].pgoff += end - p->start;
		m->v[i + 1].start = end;
		p->end = start;
		m->n++;
		return 0;
	}
	if (p->start < start) {
		p->end = start; /* its head stays */
		i++;
	}
	/* [i, j): wholly inside; j: maybe its tail stays */
	size_t j = i;
	while (j < m->n && m->v[j].end <= end)
		free(m->v[j++].path);
	if (j > i) {
		memmove(&m->v[i], &m->v[j], (m->n - j) * sizeof(*p));
		m->n -= j - i;
	}
	if (i < m->n && m->v[i].start < end) {
		m->v[i].pgoff += end - m->v[i].start;
		m->v[i].start = end;
	}
	return 0;
}

bool pms_maps_equal(const struct pms_maps *a, const struct pms_maps *b)
{
	if (!a || !b || a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct pms_map *x = &a->v[i], *y = &b->v[i];
		if (x->start != y->start || x->end != y->end || x->pgoff != y->pgoff ||
		    x->ino != y->ino || x->exec != y->exec || x->kind != y->kind ||
		    strcmp(x->path ? x->path : "", y->path ? y->path : ""))
			return false;
	}
	return true;
}

void pms_maps_remove(struct pms_maps *m, uint64_t start, uint64_t len)
{
	if (m && len)
		(void)cut(m, start, start + len);
}

int pms_maps_add(struct pms_maps *m, uint64_t start, uint64_t len, uint64_t pgoff,
		 uint64_t ino, bool exec, const char *path)
{
	if (!m || !len)
		return pms_err(PMS_EINVAL, "maps add: NULL maps or empty range");
	int rc = cut(m, start, start + len);
	if (rc < 0)
		return rc;
	rc = reserve(m, m->n + 1);
	if (rc < 0)
		return rc;
	size_t i = first_ending_above(m, start); /* nothing overlaps now */
	char *dup = strdup(path ? path : "");
	if (!dup)
		return pms_err(PMS_ENOMEM, "maps: no memory");
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(m->v[0]));
	m->v[i] = (struct pms_map){ .start = start, .end = start + len, .pgoff = pgoff,
				    .ino = ino, .exec = exec, .kind = kind_of(dup), .path = dup };
	m->n++;
	return 0;
}

int pms_maps_parse(struct pms_maps *m, const char *text)
{
	if (!m || !text)
		return pms_err(PMS_EINVAL, "maps parse: NULL argument");
	unsigned lineno = 0;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[4352];
		lineno++;
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, l, len);
		line[len] = 0;
		l += nl ? len + 1 : len;
		if (!*line)
			continue;
		uint64_t start, end, off, ino;
		char perms[8];
		unsigned dmaj, dmin;
		int nread = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &off, &dmaj, &dmin, &ino, &nread) < 7 || end <= start)
			return pms_err(PMS_EPARSE, "maps line %u: not 'start-end perms offset dev inode [path]': %.80s",
				       lineno, line);
		const char *path = nread ? line + nread : "";
		int rc = pms_maps_add(m, start, end - start, off, ino, strchr(perms, 'x') != NULL, path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pms_maps_read_proc(struct pms_maps *m, struct pms_sys *sys, pid_t pid)
{
	char rel[64], *text = NULL;
	snprintf(rel, sizeof(rel), "proc/%d/maps", (int)pid);
	int rc = pms_sys_read_file(sys, rel, &text, NULL);
	if (rc < 0)
		return rc;
	rc = pms_maps_parse(m, text);
	free(text);
	return rc;
}

const struct pms_map *pms_maps_find(const struct pms_maps *m, uint64_t addr)
{
	if (!m)
		return NULL;
	size_t lo = first_ending_above(m, addr);
	return lo < m->n && m->v[lo].start <= addr ? &m->v[lo] : NULL;
}
