/* perf report's -g graph and -g fractal trees (cgtree_int.h; issue 30).
 *
 * A row's chains (frame names joined by ';', each with its samples and
 * period) make perf's call-chain tree: a node is a run of frames where no
 * chain ends and none branches off, so its children begin where chains
 * part or where one ends (perf's callchain_node: hit, the period of the
 * chains that end in it; children_hit, that of the chains that go on).
 * The tree is printed as perf 6.12's ui/stdio/hist.c prints it:
 *  - a row whose chains all begin with one node of the row's whole period
 *    prints that node's frames after a "|" line and "---", with no value
 *    (the first frame left out when it is the row's own symbol), then its
 *    children;
 *  - each child: a line of the "|" of the levels still open, then its
 *    frames, the first after "|--VALUE--" (the last child of a level
 *    without its "|" below it), the others under it;
 *  - graph: values and the threshold in percent of the total period;
 *    fractal: a child's value in percent of its parent's children_hit (of
 *    the row's period at the top), the threshold per parent (ceil of its
 *    children_hit times the threshold), and what the shown children leave
 *    of it as a last "[...]" line;
 *  - children by period (cumulated) descending; perf breaks ties by the
 *    functions' module and address, which the chains do not carry: here by
 *    name;
 *  - at most print_limit children a level (0: all).
 * The text is perf's, written here from its rules (never its code). */
#include "cgtree_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One frame of the trie of chains (uncompressed: perf's nodes are runs of
 * these, see run_end). */
struct tn {
	const char *name;
	size_t len;
	uint64_t hit, count;     /* chains ending here */
	uint64_t cumul, ccount;  /* chains through here, these included */
	long child, last, next;  /* first child, last child, next sibling; -1 */
	long parent;
};

struct tree {
	struct tn *n;
	size_t nn, cap;
	long *slot;   /* (parent, name) -> frame: open addressing, -1 empty */
	size_t nslot; /* a power of two, at least twice the frames */
	FILE *f;
	const struct pms_render_chains *cg;
	uint64_t min_abs; /* graph: the threshold in period */
	bool failed;
};

static size_t slot_of(const struct tree *t, long parent, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)parent * 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	return (size_t)h & (t->nslot - 1);
}

/* Frame name under parent: the one there, else a new last child. */
static long child_of(struct tree *t, long parent, const char *name, size_t len)
{
	size_t i = slot_of(t, parent, name, len);
	for (long k; (k = t->slot[i]) >= 0; i = (i + 1) & (t->nslot - 1)) {
		const struct tn *x = &t->n[k];
		if (x->parent == parent && x->len == len && !memcmp(x->name, name, len))
			return k;
	}
	long k = (long)t->nn++; /* room: the frames were counted */
	t->n[k] = (struct tn){ name, len, 0, 0, 0, 0, -1, -1, -1, parent };
	struct tn *p = &t->n[parent];
	if (p->last >= 0)
		t->n[p->last].next = k;
	else
		p->child = k;
	p->last = k;
	t->slot[i] = k;
	return k;
}

/* One chain into the trie: the frame it ends at. */
static long add_chain(struct tree *t, const struct pms_sorthist_chain *c)
{
	long at = 0;
	t->n[0].cumul += c->period;
	t->n[0].ccount += c->samples;
	for (const char *s = c->text; s;) {
		const char *e = strchr(s, ';');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		at = child_of(t, at, s, len);
		t->n[at].cumul += c->period;
		t->n[at].ccount += c->samples;
		s = e ? e + 1 : NULL;
	}
	t->n[at].hit += c->period;
	t->n[at].count += c->samples;
	return at;
}

/* The trie of row w's chains (each chain's last frame in ends, when not
 * NULL): one pass over the text; false when out of memory. */
static bool build(struct tree *t, const struct pms_sorthist_row *w, long *ends)
{
	size_t frames = 1;
	for (size_t i = 0; i < w->nchains; i++) {
		frames++;
		for (const char *s = w->chains[i].text; (s = strchr(s, ';')); s++)
			frames++;
	}
	t->nslot = 16;
	while (t->nslot < 2 * frames)
		t->nslot *= 2;
	t->n = malloc(frames * sizeof(*t->n));
	t->slot = malloc(t->nslot * sizeof(*t->slot));
	if (!t->n || !t->slot)
		return false;
	memset(t->slot, 0xff, t->nslot * sizeof(*t->slot)); /* -1 */
	t->n[0] = (struct tn){ "", 0, 0, 0, 0, 0, -1, -1, -1, -1 };
	t->nn = 1;
	for (size_t i = 0; i < w->nchains; i++) {
		long e = add_chain(t, &w->chains[i]);
		if (ends)
			ends[i] = e;
	}
	return true;
}

static void tree_free(struct tree *t)
{
	free(t->n);
	free(t->slot);
}

int render_cg_cumul(const struct pms_sorthist_row *w, uint64_t *period, uint64_t *samples)
{
	struct tree t = { 0 };
	long *ends = malloc((w->nchains ? w->nchains : 1) * sizeof(*ends));
	bool ok = ends && build(&t, w, ends);
	for (size_t i = 0; ok && i < w->nchains; i++) {
		period[i] = t.n[ends[i]].cumul;
		samples[i] = t.n[ends[i]].ccount;
	}
	free(ends);
	tree_free(&t);
	return ok ? 0 : -1;
}

/* The last frame of the perf node that begins at k: on while no chain
 * ends and exactly one goes on. */
static long run_end(const struct tree *t, long k)
{
	while (!t->n[k].hit && t->n[k].child >= 0 && t->n[t->n[k].child].next < 0)
		k = t->n[k].child;
	return k;
}

static void value(const struct tree *t, uint64_t period, uint64_t count, uint64_t total)
{
	if (t->cg->value == PMS_CG_PERIOD)
		fprintf(t->f, "%" PRIu64, period);
	else if (t->cg->value == PMS_CG_COUNT)
		fprintf(t->f, "%" PRIu64, count);
	else
		fprintf(t->f, "%.2f%%", total ? (double)period * 100.0 / (double)total : 0.0);
}

/* perf's depth mask is an int shifted by the depth */
static unsigned bit(int d)
{
	return 1u << ((unsigned)d & 31u);
}

static void margin(const struct tree *t, int m)
{
	fprintf(t->f, "%*s", 12 + m, "");
}

static int by_cumul(const void *a, const void *b, void *ud)
{
	const struct tree *t = ud;
	const struct tn *x = &t->n[*(const long *)a], *y = &t->n[*(const long *)b];
	if (x->cumul != y->cumul)
		return x->cumul > y->cumul ? -1 : 1;
	size_t l = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, l);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The children of frame p that pass the threshold, by period: a malloc'ed
 * array (NULL with *n 0 when none or out of memory). */
static long *kids(struct tree *t, long p, size_t *n)
{
	uint64_t min = t->min_abs;
	size_t k = 0;
	if (t->cg->mode == PMS_CG_FRACTAL) /* of the node's children_hit */
		min = (uint64_t)ceil((double)(t->n[p].cumul - t->n[p].hit) *
				     (t->cg->threshold / 100.0));
	*n = 0;
	for (long c = t->n[p].child; c >= 0; c = t->n[c].next)
		k++;
	long *v = k ? malloc(k * sizeof(*v)) : NULL;
	if (!v) {
		t->failed |= k != 0;
		return NULL;
	}
	for (long c = t->n[p].child; c >= 0; c = t->n[c].next)
		if (t->n[c].cumul >= min)
			v[(*n)++] = c;
	qsort_r(v, *n, sizeof(*v), by_cumul, t);
	return v;
}

/* One frame line of a child: the levels' "|", "--VALUE--" before the
 * first frame of the node. */
static void frame_line(const struct tree *t, int depth, unsigned mask, bool first,
		       uint64_t period, uint64_t count, uint64_t total, const char *name,
		       size_t len, int m)
{
	margin(t, m);
	for (int i = 0; i < depth; i++) {
		fputc(mask & bit(i) ? '|' : ' ', t->f);
		if (first && i == depth - 1) {
			fputs("--", t->f);
			value(t, period, count, total);
			fputs("--", t->f);
		} else {
			fputs("          ", t->f);
		}
	}
	fprintf(t->f, "%.*s\n", (int)len, name);
}

/* The children of frame p (the last frame of a node) at depth; whether it
 * printed a line. */
static bool children(struct tree *t, long p, uint64_t total, int depth, unsigned mask, int m)
{
	size_t n, shown = 0;
	long *v = kids(t, p, &n);
	uint64_t remaining = total, cumul_count = 0;
	unsigned nmask = mask;
	for (size_t i = 0; i < n; i++) {
		const struct tn *c = &t->n[v[i]];
		remaining -= c->cumul;
		cumul_count += c->ccount;
		if (i + 1 == n && (t->cg->mode != PMS_CG_FRACTAL || !remaining))
			nmask &= ~bit(depth - 1);
		margin(t, m); /* the line above: the levels as they were */
		for (int d = 0; d < depth; d++)
			fputs(mask & bit(d) ? "|          " : "           ", t->f);
		fputc('\n', t->f);
		long k = v[i], end = run_end(t, k);
		for (bool first = true;; first = false) {
			frame_line(t, depth, nmask, first, c->cumul, c->ccount, total, t->n[k].name,
				   t->n[k].len, m);
			if (k == end)
				break;
			k = t->n[k].child;
		}
		uint64_t sub = t->cg->mode == PMS_CG_FRACTAL ? c->cumul - t->n[end].hit : total;
		children(t, end, sub, depth + 1, nmask | bit(depth), m);
		if (++shown == (size_t)t->cg->print_limit)
			break;
	}
	if (t->cg->mode == PMS_CG_FRACTAL && remaining && remaining != total) {
		uint64_t rcount = 0;
		if (t->cg->value == PMS_CG_COUNT) {
			/* the parent's children_count less the shown ones' */
			uint64_t pc = t->n[p].ccount - t->n[p].count;
			if (n && pc <= cumul_count) {
				free(v);
				return true;
			}
			rcount = n ? pc - cumul_count : 0;
		}
		nmask &= ~bit(depth - 1);
		frame_line(t, depth, nmask, true, remaining, rcount, total, "[...]", 5, m);
		free(v);
		return true;
	}
	free(v);
	return n > 0;
}

void render_cg_tree(FILE *f, const struct pms_sorthist_row *w,
		    const struct pms_sorthist_result *r, const struct pms_render_chains *cg,
		    bool skip_first)
{
	struct tree t = { .f = f, .cg = cg };
	uint64_t parent = r->children ? w->children : w->period, total = r->period;
	int m = 0;
	long root = 0;
	bool printed = false;
	if (!w->nchains || !build(&t, w, NULL))
		goto out;
	t.min_abs = (uint64_t)((double)r->period * (cg->threshold / 100.0));
	size_t n;
	long *v = kids(&t, 0, &n);
	/* one root node of the whole period: its frames without a value */
	if (n == 1 && t.n[v[0]].cumul == parent) {
		long k = v[0], end = run_end(&t, k);
		size_t shown = 0;
		for (size_t i = 0;; i++, k = t.n[k].child) {
			if (!(i == 0 && skip_first)) {
				margin(&t, m);
				if (!printed) {
					fputs("|\n", f);
					margin(&t, m);
					fputs("---", f);
					m += 3;
					printed = true;
				}
				fprintf(f, "%.*s\n", (int)t.n[k].len, t.n[k].name);
				if (++shown == (size_t)cg->print_limit)
					break;
			}
			if (k == end)
				break;
		}
		root = end;
	}
	free(v);
	if (cg->mode == PMS_CG_FRACTAL)
		total = parent;
	/* perf ends a tree with an empty line, none after nothing */
	if (children(&t, root, total, 1, 1, m) || printed)
		fputc('\n', f);
out:
	tree_free(&t);
}
