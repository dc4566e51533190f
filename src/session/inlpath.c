/* DWARF call paths with their inline stacks (inlpath.h). */
#include <stdlib.h>
#include <string.h>

#include "session/inlpath.h"
#include "symbols/inline_int.h"
#include "util/error.h"

/* The inline stack of a user frame: nm its symbol and module. */
static size_t stack_of(struct inlpath *p, const struct pms_symtrack_name *nm,
		       const struct pms_inl_frame **fr)
{
	size_t n = 0;
	*fr = NULL;
	/* perf: a frame with a map and a symbol, in a module that is a file
	 * (srcline.c srcline_dso_name: no "[...]" names) */
	if (!nm->sym || !nm->dso || nm->dso[0] != '/')
		return 0;
	if (pms_inline_at(p->c, nm->dso, nm->map_ip, fr, &n) < 0)
		return 0;
	return n;
}

static int grow(struct inlpath *p, size_t need)
{
	if (need <= p->cap)
		return 0;
	size_t cap = p->cap ? p->cap : 2 * PMS_CALLPATH_MAX;
	while (cap < need)
		cap *= 2;
	struct pms_frame *b = realloc(p->buf, cap * sizeof(*b));
	if (!b)
		return pms_err(PMS_ENOMEM, "call path: out of memory");
	p->buf = b;
	p->cap = cap;
	return 0;
}

int inlpath_expand(struct inlpath *p, struct pms_symtrack *st, uint32_t pid,
		   const struct pms_frame *fr, size_t n, const struct pms_frame **out,
		   size_t *nout)
{
	size_t m = 0;
	bool any = false;
	*out = fr;
	*nout = n;
	if (!st || !n || p->failed)
		return 0;
	if (!p->c && pms_inline_new(symtrack_symbolizer(st), &p->c) < 0) {
		p->failed = true;
		return PMS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pms_inl_frame *ifr;
		struct pms_symtrack_name nm;
		size_t k = 0;
		if ((fr[i].flags & PMS_FRAME_DWARF) && !(fr[i].flags & PMS_FRAME_KERNEL)) {
			(void)pms_symtrack_code(st, pid, fr[i].ip, false, false, &nm);
			k = stack_of(p, &nm, &ifr);
		}
		if (grow(p, m + (k ? k : 1) + (n - i - 1)) < 0)
			return PMS_ENOMEM;
		if (!k) {
			p->buf[m++] = fr[i];
			continue;
		}
		any = true;
		for (size_t j = 0; j < k; j++)
			p->buf[m++] = (struct pms_frame){
				fr[i].ip, fr[i].flags | PMS_FRAME_INLINE |
						  (uint32_t)(j << PMS_FRAME_INLINE_SHIFT) };
	}
	if (any) {
		*out = p->buf;
		*nout = m;
	}
	return 0;
}

bool inlpath_name(struct inlpath *p, const struct pms_frame *f, struct pms_symtrack_name *nm)
{
	const struct pms_inl_frame *ifr;
	size_t k = f->flags >> PMS_FRAME_INLINE_SHIFT;
	size_t n = stack_of(p, nm, &ifr);
	if (k >= n)
		return false;
	bool inlined = strcmp(ifr[k].name, nm->sym) != 0;
	nm->sym = ifr[k].name;
	nm->symlen = 0;
	if (k) { /* the innermost keeps the address's own line */
		nm->srcfile = ifr[k].file;
		nm->line = ifr[k].file ? ifr[k].line : 0;
	}
	return inlined;
}

void inlpath_fini(struct inlpath *p)
{
	pms_inline_free(p->c);
	free(p->buf);
	p->c = NULL;
	p->buf = NULL;
	p->cap = 0;
}
