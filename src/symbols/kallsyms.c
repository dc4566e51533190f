/* proc/kallsyms read only as far as needed: kallsyms.h. */
#include "symbols/kallsyms.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/lastle.h"
#include "sys/sys_int.h"

#define KREAD_CHUNK ((size_t)64 << 10)

void pms_ktab_init(struct pms_ktab *t, const struct pms_sys *sys)
{
	memset(t, 0, sizeof(*t));
	t->sys = sys;
	t->sorted = t->core_sorted = true;
}

void pms_ktab_free(struct pms_ktab *t)
{
	if (!t)
		return;
	pms_sys_stream_close(t->f);
	free(t->buf);
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	for (size_t i = 0; i < t->grpcap; i++)
		free(t->grpname[i]);
	free(t->grpname);
	memset(t, 0, sizeof(*t));
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq; /* file order */
}

/* The types perf keeps from kallsyms (tools/perf/util/symbol.c
 * symbol_type__filter): code, data and bss of either case, and the
 * exact-case u (unique global), l and N; not r/R (read-only data), a/A
 * (absolute) nor U. */
static bool kept_type(char c)
{
	return (c && strchr("tTwWdDbB", c)) || c == 'u' || c == 'l' || c == 'N';
}

/* Keep the tag of the group just begun (t->grp), "[module]". */
static void name_group(struct pms_ktab *t)
{
	if (t->grp > t->grpcap) {
		size_t cap = t->grpcap ? t->grpcap * 2 : 64;
		while (cap < t->grp)
			cap *= 2;
		char **v = realloc(t->grpname, cap * sizeof(*v));
		if (!v)
			return; /* the group stays unnamed: its lines name no module */
		memset(v + t->grpcap, 0, (cap - t->grpcap) * sizeof(*v));
		t->grpname = v;
		t->grpcap = cap;
	}
	char *nm = malloc(strlen(t->mod) + 2);
	if (nm) {
		sprintf(nm, "%s]", t->mod);
		t->grpname[t->grp - 1] = nm;
	}
}

const char *pms_ktab_module(const struct pms_ktab *t, const struct ksym *k)
{
	if (!k || !k->grp || k->grp > t->grpcap)
		return NULL;
	return t->grpname[k->grp - 1];
}

/* One line "ADDR TYPE NAME[\t[MODULE]]" (NUL-terminated), parsed by hand:
 * sscanf was most of a short run's instructions here. */
static void parse_line(struct pms_ktab *t, const char *l)
{
	char *end;
	uint64_t a = strtoull(l, &end, 16);
	if (end == l || !a)
		return;
	t->visible = true;
	const char *tag = strchr(end, '[');
	char type;
	const char *name;
	size_t nlen = 0;
	while (*end == ' ' || *end == '\t')
		end++;
	type = *end;
	if (type)
		end++;
	while (*end == ' ' || *end == '\t')
		end++;
	name = end;
	while (name[nlen] && name[nlen] != ' ' && name[nlen] != '\t' && name[nlen] != '\r')
		nlen++;
	if (nlen > 255)
		nlen = 255;
	if (!nlen || !kept_type(type))
		return;
	/* the kept lines' order: "\t[module]" (and [bpf], [__builtin__ftrace])
	 * tags the lines after the core kernel's, which come in address order */
	if (a < t->last)
		t->sorted = false;
	else
		t->last = a;
	if (!tag && !t->core_done) {
		if (a < t->core_last)
			t->core_sorted = false;
		else
			t->core_last = a;
	} else if (tag) {
		t->core_done = true;
	}
	uint32_t grp = 0;
	if (tag) { /* a run of one module's lines: one group */
		size_t tl = strcspn(tag, "]\r");
		if (tl >= sizeof(t->mod))
			tl = sizeof(t->mod) - 1;
		if (!t->grp || strncmp(t->mod, tag, tl) || t->mod[tl]) {
			memcpy(t->mod, tag, tl);
			t->mod[tl] = 0;
			t->grp++;
			name_group(t);
		}
		grp = t->grp;
	}
	if (t->n == t->vcap) {
		size_t cap = t->vcap ? t->vcap * 2 : 4096;
		struct ksym *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return; /* the table stays as read: lookups above go unnamed */
		t->v = v;
		t->vcap = cap;
	}
	char *nm = strndup(name, nlen);
	if (nm) {
		t->v[t->n] = (struct ksym){ a, nm, (uint32_t)t->n, grp,
					    !strchr("tTwW", type) };
		t->n++;
	}
}

/* The end: the table is whole; sorted when the file was not in order. */
static void finish(struct pms_ktab *t)
{
	if (t->len) { /* a last line without its newline */
		t->buf[t->len] = 0;
		parse_line(t, t->buf);
		t->len = 0;
	}
	t->eof = true;
	pms_sys_stream_close(t->f);
	t->f = NULL;
	if (t->n && !t->sorted)
		qsort(t->v, t->n, sizeof(*t->v), ksym_cmp);
}

/* Read and parse one more chunk; false at the end (or on an error: a
 * table that cannot be read is taken as read this far). */
static bool read_more(struct pms_ktab *t)
{
	if (t->eof)
		return false;
	if (!t->started) {
		t->started = true;
		if (pms_sys_stream_open(t->sys, "proc/kallsyms", &t->f) < 0) {
			pms_error_clear();
			t->eof = true;
			return false;
		}
	}
	if (t->cap - t->len < KREAD_CHUNK + 1) {
		size_t cap = t->len + KREAD_CHUNK + 1;
		char *b = realloc(t->buf, cap);
		if (!b) {
			finish(t);
			return false;
		}
		t->buf = b;
		t->cap = cap;
	}
	ssize_t r = pms_sys_stream_read(t->f, t->buf + t->len, KREAD_CHUNK);
	if (r <= 0) {
		if (r < 0)
			pms_error_clear();
		finish(t);
		return false;
	}
	t->len += (size_t)r;
	char *l = t->buf, *end = t->buf + t->len, *nl;
	while ((nl = memchr(l, '\n', (size_t)(end - l))) != NULL) {
		*nl = 0;
		parse_line(t, l);
		l = nl + 1;
	}
	t->len = (size_t)(end - l);
	memmove(t->buf, l, t->len);
	return true;
}

bool pms_ktab_visible(struct pms_ktab *t)
{
	while (!t->visible && read_more(t))
		;
	return t->visible;
}

const struct ksym *pms_ktab_find(struct pms_ktab *t, uint64_t ip)
{
	/* the core kernel's lines in order so far, from a symbol at or
	 * below ip to a line above it: no later line lies between them */
	while (!(t->core_sorted && t->n && t->v[0].addr <= ip && t->core_last > ip) &&
	       read_more(t))
		;
	size_t lo = pms_last_le(t->v, t->n, sizeof(*t->v), offsetof(struct ksym, addr), ip);
	if (lo == SIZE_MAX)
		return NULL;
	/* the last of the core kernel or of a module: zero long for perf's
	 * fixup_end, which gives it up to the page boundary past the next
	 * page; ip above that is in no symbol (perf: no symbol, [unknown]) */
	if (lo + 1 == t->n || t->v[lo + 1].grp != t->v[lo].grp) {
		uint64_t a = t->v[lo].addr, end = ((a + 4096) | 4095) + 1;
		if (!(a & 4095))
			end = a + 4096;
		if (end > a && ip >= end)
			return NULL;
	}
	return &t->v[lo];
}
