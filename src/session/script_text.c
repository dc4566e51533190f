/* perf script's text of one sample (pmuscope/script.h pms_script_format):
 * its fields, order and widths, symbols, call chain and branch stack. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/callpath.h"
#include "decode/datasrc_int.h"
#include "pmuscope/memsample.h"
#include "session/script_int.h"
#include "session/symtrack_int.h"
#include "util/fmtnum.h"

/* A sample's text is built in place in the caller's buffer while it has
 * room (printing 5 M samples is most of `pmuscope script`'s time, and a
 * printf a field was most of that), else in the object's scratch, which
 * grows; the caller gets the whole length and calls again when it was cut. */
struct out {
	struct pms_script *s;
	char *b;
	size_t n, cap;
	bool own;
};

/* One sample's line, at most LINE_CAP bytes before its branch stack. */
#define LINE_CAP 8192

/* Room for need more bytes at o->b + o->n (need <= LINE_CAP); when memory
 * runs out the text so far is dropped (the scratch always holds LINE_CAP). */
static void out_room(struct out *o, size_t need)
{
	struct pms_script *s = o->s;
	size_t want;
	char *nb;
	if (o->n + need <= o->cap)
		return;
	want = 2 * (o->n + need);
	if (want > s->scratch_cap && (nb = realloc(s->scratch, want)) != NULL) {
		s->scratch = nb;
		s->scratch_cap = want;
	}
	if (o->n + need > s->scratch_cap)
		o->n = 0;
	if (!o->own && o->n)
		memcpy(s->scratch, o->b, o->n);
	o->b = s->scratch;
	o->cap = s->scratch_cap;
	o->own = true;
}

static void out_put(struct out *o, const char *s, size_t n)
{
	out_room(o, n);
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

struct line {
	char *b;
	size_t n;
};

/* s (n bytes) right-aligned in width; the line is cut 64 bytes before
 * its end. */
static inline __attribute__((always_inline)) void l_strn(struct line *l, const char *s, size_t n,
							 size_t width)
{
	size_t cap = LINE_CAP - 64;
	size_t room = l->n < cap ? cap - l->n : 0;
	if (n > room)
		n = room;
	if (width > n) {
		size_t pad = width - n;
		if (l->n + n + pad > cap)
			pad = cap > l->n + n ? cap - l->n - n : 0;
		memset(l->b + l->n, ' ', pad);
		l->n += pad;
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void l_str(struct line *l, const char *s, size_t width)
{
	l_strn(l, s, strlen(s), width);
}

/* The digits of v in base 10. */
static inline size_t ndec(uint64_t v)
{
	size_t n = 1;
	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* v in base 16 or 10 (perf's %16lx, %7u; '0' pad: %03u, %06lu) right-aligned
 * in width, written in place; nothing when it would not leave the newline's
 * room (only after a capped string). */
static inline __attribute__((always_inline)) void l_pnum(struct line *l, uint64_t v, bool hex,
							 size_t width, char pad)
{
	size_t n = hex ? (size_t)(67 - __builtin_clzll(v | 1)) / 4 : ndec(v);
	size_t w = width > n ? width : n;
	char *p;
	if (l->n + w + 2 > LINE_CAP)
		return;
	if (width > n) {
		/* perf's widths are at most 16: one store, not a memset call
		 * (the digits overwrite what is past the pad) */
		if (width <= 16 && l->n + 16 <= LINE_CAP)
			memcpy(l->b + l->n, pad == ' ' ? "                " : "0000000000000000", 16);
		else
			memset(l->b + l->n, pad, width - n);
	}
	l->n += w;
	p = l->b + l->n;
	if (hex)
		(void)pms_fmt_hex(p, v);
	else
		(void)pms_fmt_dec(p, v);
}

static inline __attribute__((always_inline)) void l_num(struct line *l, uint64_t v, unsigned base,
							size_t width)
{
	l_pnum(l, v, base == 16, width, ' ');
}

static inline __attribute__((always_inline)) void l_zero(struct line *l, uint64_t v, size_t width)
{
	l_pnum(l, v, false, width, '0');
}

static void l_chr(struct line *l, char c)
{
	if (l->n + 2 < LINE_CAP)
		l->b[l->n++] = c;
}


/* perf's names (tools/perf/util/branch.c branch_type_name, branch_new_type_name,
 * branch_spec_desc) of the perf_branch_entry type, new_type and spec fields
 * (include/uapi/linux/perf_event.h PERF_BR_*). */
const char *pms_script_branch_type(const struct pms_branch *b)
{
	static const char *const types[] = { "", "COND", "UNCOND", "IND", "CALL", "IND_CALL",
					     "RET", "SYSCALL", "SYSRET", "COND_CALL", "COND_RET",
					     "ERET", "IRQ", "SERROR", "NO_TX" };
	static const char *const new_types[] = { "FAULT_ALGN", "FAULT_DATA", "FAULT_INST",
						 "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5" };
	if (b->type == 15) /* PERF_BR_EXTEND_ABI */
		return b->new_type < 8 ? new_types[b->new_type] : "";
	return b->type < 15 ? types[b->type] : "";
}

const char *pms_script_branch_spec(const struct pms_branch *b)
{
	/* builtin-script.c print_bstack_flags: "-" for spec 0 (N/A) */
	static const char *const spec[] = { "-", "SPEC_WRONG_PATH", "NON_SPEC_CORRECT_PATH",
					    "SPEC_CORRECT_PATH" };
	return spec[b->spec & 3];
}

/* One branch as perf script -F brstack prints it (builtin-script.c
 * perf_sample__fprintf_brstack: " FROM/TO/M|P|-/X|-/A|-/CYCLES/TYPE/SPEC "). */
static void br_text(char *buf, size_t n, const struct pms_branch *b)
{
	snprintf(buf, n, " 0x%" PRIx64 "/0x%" PRIx64 "/%c/%c/%c/%u/%s/%s ", b->from, b->to,
		 b->mispred ? 'M' : b->predicted ? 'P' : '-', b->in_tx ? 'X' : '-',
		 b->abort ? 'A' : '-', (unsigned)b->cycles, pms_script_branch_type(b),
		 pms_script_branch_spec(b));
}


/* sym[+off] (dso) of one address, as perf prints a symbol and a DSO
 * (inlined: the line's length stays in a register). */
static inline __attribute__((always_inline)) void pf_symdso(struct line *l, const struct pms_symtrack_name *n, unsigned f)
{
	if (f & PF_SYM) {
		l_chr(l, ' ');
		if (n->sym) {
			l_strn(l, n->sym, n->symlen ? n->symlen : strlen(n->sym), 0);
			if (f & PF_SYMOFF) {
				l_strn(l, "+0x", 3, 0);
				l_num(l, n->off, 16, 0);
			}
		} else {
			l_strn(l, "[unknown]", 9, 0);
		}
	}
	if (f & PF_DSO) {
		l_strn(l, " (", 2, 0);
		if (n->dso_name)
			l_str(l, n->dso_name, 0);
		else if (n->dso)
			l_strn(l, n->dso, n->dsolen ? n->dsolen : strlen(n->dso), 0);
		else
			l_strn(l, "[unknown]", 9, 0);
		l_chr(l, ')');
	}
	if ((f & PF_SRCLINE) && n->srcfile && n->line) {
		const char *b = strrchr(n->srcfile, '/');
		l_strn(l, "\n  ", 3, 0);
		l_str(l, b ? b + 1 : n->srcfile, 0);
		l_chr(l, ':');
		l_num(l, n->line, 10, 0);
	} else if ((f & PF_SRCLINE) && n->dso) {
		/* perf's line for an address without one: module[offset] */
		const char *b = n->dso[0] == '[' ? NULL : strrchr(n->dso, '/');
		l_strn(l, "\n  ", 3, 0);
		l_str(l, b ? b + 1 : n->dso, 0);
		l_chr(l, '[');
		l_num(l, n->map_ip, 16, 0);
		l_chr(l, ']');
	}
}

static bool kernel_ip(const struct pms_sample *s)
{
	unsigned m = s->misc & PMS_MISC_CPUMODE_MASK;
	return m == PMS_MISC_KERNEL || m == PMS_MISC_GUEST_KERNEL || m == PMS_MISC_HYPERVISOR;
}

/* A frame of an inline stack (session/inlpath.c), as perf prints a
 * callchain node (util/evsel_fprintf.c sample__fprintf_callchain): an
 * inlined function's symbol without its dso, the node's own srcline, then
 * " (inlined)" (with -F ip alone too); f 0 (-F callchain): the address. */
static void pf_inline_frame(struct line *l, struct pms_script *pf, const struct pms_sample *s,
			    const struct pms_frame *fr, unsigned f)
{
	struct pms_symtrack_name nm;
	if (!f)
		return;
	(void)pms_symtrack_code(pf->st, s->pid, fr->ip, false, (f & PF_SRCLINE) != 0, &nm);
	bool inl = inlpath_name(&pf->inl, fr, &nm);
	pf_symdso(l, &nm, inl ? f & ~PF_DSO : f);
	if (inl)
		l_strn(l, " (inlined)", 10, 0);
}

/* The sample's call chain, one frame a line (perf's "\t%16lx sym+off (dso)"). */
static void pf_chain(struct out *o, struct pms_script *pf, const struct pms_sample *s,
		     const struct pms_frame *fr, size_t n, unsigned f)
{
	for (size_t i = 0; i < n; i++) {
		struct line l;
		struct pms_symtrack_name nm = { 0 };
		out_room(o, LINE_CAP);
		l.b = o->b + o->n;
		l.n = 0;
		l_chr(&l, '\t');
		l_num(&l, fr[i].ip, 16, 16);
		if (fr[i].flags & PMS_FRAME_INLINE) {
			pf_inline_frame(&l, pf, s, &fr[i], f);
		} else if (f & (PF_SYM | PF_DSO | PF_SRCLINE)) {
			(void)pms_symtrack_code(pf->st, s->pid, fr[i].ip,
						(fr[i].flags & PMS_FRAME_KERNEL) != 0,
						(f & PF_SRCLINE) != 0, &nm);
			pf_symdso(&l, &nm, f);
		}
		l_chr(&l, '\n');
		o->n += l.n;
	}
}

/* perf's name of a sample's event, made once an event (a few a file;
 * beyond the cache, each time into nb). */
static const char *pf_evname(struct pms_script *pf, const struct pms_perfdata_attr *a, char *nb,
			     size_t *len)
{
	for (size_t i = 0; i < pf->npfev; i++)
		if (pf->pfev[i].a == a) {
			*len = pf->pfevlen[i];
			return pf->pfev[i].name;
		}
	const char *n = pms_script_pf_event_name_(a, nb, 64);
	*len = strlen(n);
	if (pf->npfev == sizeof(pf->pfev) / sizeof(pf->pfev[0]) || *len >= sizeof(pf->pfev[0].name))
		return n;
	struct script_evname *e = &pf->pfev[pf->npfev];
	e->a = a;
	memcpy(e->name, n, *len + 1);
	pf->pfevlen[pf->npfev++] = *len;
	return e->name;
}

/* perf_sample__fprintf_start and the period and event name after it. */
static inline __attribute__((always_inline)) void pf_head(struct line *lp, struct pms_script *pf,
		    const struct pms_script_sample *smp, unsigned f, bool chain)
{
	const struct pms_perfdata_event *ev = smp->ev;
	const struct pms_sample *s = &ev->rec.sample;
	struct line l = *lp;
	if (f & PF_COMM) {
		char tb[16];
		/* perf names a thread without a COMM ":TID", the idle one swapper */
		const char *cn = smp->comm ? smp->comm : tb;
		size_t cl = smp->comm ? strlen(smp->comm)
			    : !s->tid ? (size_t)snprintf(tb, sizeof(tb), "swapper")
				      : (size_t)snprintf(tb, sizeof(tb), ":%d", (int)s->tid);
		l_strn(&l, cn, cl, (f & (PF_IP | PX_CHAIN)) && chain ? 0 : 16);
		l_chr(&l, ' ');
	}
	if ((f & PF_PID) && (f & PF_TID)) {
		l_num(&l, s->pid, 10, 7);
		l_chr(&l, '/');
		size_t st = l.n;
		l_num(&l, s->tid, 10, 0);
		while (l.n - st < 7)
			l_chr(&l, ' ');
		l_chr(&l, ' ');
	} else if (f & (PF_PID | PF_TID)) {
		l_num(&l, (f & PF_PID) ? s->pid : s->tid, 10, 7);
		l_chr(&l, ' ');
	}
	if (f & PF_CPU) {
		l_chr(&l, '[');
		l_zero(&l, s->cpu, 3);
		l_strn(&l, "] ", 2, 0);
	}
	if (f & PF_TIME) {
		/* perf's "%5lu.%09lu: " (--ns) or "%12s: " of "%lu.%06lu",
		 * written in place (two snprintf a sample were a tenth of a
		 * default `script`) */
		uint64_t sec = s->time / 1000000000u, ns = s->time % 1000000000u;
		if (pf->flags & PMS_SCRIPT_NS) {
			l_num(&l, sec, 10, 5);
			l_chr(&l, '.');
			l_zero(&l, ns, 9);
		} else {
			l_num(&l, sec, 10, 5); /* "sec.uuuuuu" right-aligned in 12 */
			l_chr(&l, '.');
			l_zero(&l, ns / 1000u, 6);
		}
		l_strn(&l, ": ", 2, 0);
	}
	if (f & PF_PERIOD) {
		/* perf: the event's sample_period when the samples carry none */
		l_num(&l, (s->present & PMS_SAMPLE_PERIOD) || ev->attr->attr->freq
				  ? s->period : ev->attr->attr->sample_period, 10, 10);
		l_chr(&l, ' ');
	}
	if (f & PF_EVENT) {
		char nb[64];
		size_t nl;
		const char *en = pf_evname(pf, ev->attr, nb, &nl);
		l_strn(&l, en, nl, (size_t)pf->name_width);
		l_strn(&l, ": ", 2, 0);
	}
	*lp = l;
}

/* perf's inline stacks in a DWARF path (session/inlpath.c), unless
 * --no-inline; true. */
static bool chain_inlines(struct pms_script *pf, const struct pms_sample *s,
			  const struct pms_frame **frp, size_t *nfr)
{
	if (!(pf->flags & PMS_SCRIPT_NO_INLINE))
		(void)inlpath_expand(&pf->inl, pf->st, s->pid, *frp, *nfr, frp, nfr);
	return true;
}

/* The sample's call chain as printed (script_int.h). */
bool pms_script_chain_(struct pms_script *pf, const struct pms_sample *s, struct pms_frame *fr,
		       const struct pms_frame **frp, size_t *nfr)
{
	*frp = fr;
	*nfr = 0;
	if (!(s->present & PMS_SAMPLE_CALLCHAIN))
		return false;
	if (dwpath_applies(s))
		/* --call-graph dwarf: the kernel part, then the user frames
		 * unwound from the stack copy, as report -g (session/dwpath.c);
		 * an empty path prints no frame, as perf's empty cursor */
		return dwpath_frames(&pf->dw, pf->st ? symtrack_maps(pf->st, s->pid) : NULL, s, frp,
				     nfr) >= 0 &&
		       chain_inlines(pf, s, frp, nfr);
	if (pms_callpath_from_chain(s->callchain, s->callchain_nr, true, fr, PMS_CALLPATH_MAX,
				    nfr) < 0)
		return false;
	if (!*nfr && (s->present & PMS_SAMPLE_IP)) { /* perf: the IP alone */
		fr[0].ip = s->ip;
		fr[0].flags = kernel_ip(s) ? PMS_FRAME_KERNEL : 0;
		*nfr = 1;
	}
	return true;
}

/* One sample as perf script prints it (nothing when -S drops it). */
static void print_perf(struct out *o, struct pms_script *pf, const struct pms_script_sample *smp)
{
	const struct pms_perfdata_event *ev = smp->ev;
	const struct pms_sample *s = &ev->rec.sample;
	int node = smp->node;
	unsigned f;
	struct pms_frame fr[PMS_CALLPATH_MAX];
	const struct pms_frame *frp = fr;
	size_t nfr = 0;
	bool chain = false;
	struct pms_symtrack_name nm = { 0 };
	struct line l;
	/* the fields of the last sample's event type, kept (most files have
	 * one) */
	if (ev->attr->attr->type != pf->f_type || !pf->f_set) {
		pf->f_type = ev->attr->attr->type;
		pf->f_fields = pf->o[pms_script_ot_of_(pf->f_type)].fields;
		pf->f_set = true;
	}
	f = pf->f_fields;
	if (!f)
		return;
	if ((f & (PF_IP | PX_CHAIN)) && pf->use_chain)
		chain = pms_script_chain_(pf, s, fr, &frp, &nfr);
	if ((f & (PF_SYM | PF_DSO | PF_SRCLINE)) && (f & PF_IP) && !chain)
		(void)pms_symtrack_code(pf->st, s->pid, s->ip, kernel_ip(s), (f & PF_SRCLINE) != 0,
					&nm);
	/* its text is read at the line's end: fetched while the head is made */
	if (nm.sym)
		__builtin_prefetch(nm.sym);
	if (pf->nlist[0]) { /* -S: the sample's own symbol */
		struct pms_symtrack_name sn;
		bool keep = false;
		(void)pms_symtrack_code(pf->st, s->pid, s->ip, kernel_ip(s), false, &sn);
		for (size_t i = 0; i < pf->nlist[0] && sn.sym; i++)
			keep |= !strcmp(pf->list[0][i], sn.sym);
		if (!keep)
			return;
	}
	out_room(o, LINE_CAP);
	l.b = o->b + o->n;
	l.n = 0;
	pf_head(&l, pf, smp, f, chain);
	if (f & PF_ADDR) {
		const struct perf_event_attr *at = ev->attr->attr;
		l_num(&l, s->addr, 16, 16);
		/* perf names the addr of page faults (sample_addr_correlates_sym) */
		if (at->type == 1 && (at->config == 2 || at->config == 5 || at->config == 6) &&
		    (f & (PF_SYM | PF_DSO))) {
			struct pms_symtrack_name an;
			(void)pms_symtrack_data(pf->st, s->pid, s->addr, &an);
			pf_symdso(&l, &an, f & (PF_SYM | PF_SYMOFF | PF_DSO));
		}
	}
	if (f & PF_DSRC) {
		size_t n;
		if (l.n + PMS_DATASRC_PUT_ROOM + PMS_DATASRC_TEXT_MAX < LINE_CAP - 64) {
			/* written in place, padded to the longest so far */
			n = pms_datasrc_put_script_(s->data_src, l.b + l.n);
			l.n += n;
			if (n > pf->dsrc_max)
				pf->dsrc_max = n;
			/* the pad: 32 bytes stored (the 64 spare cover them), not
			 * a memset call */
			if (pf->dsrc_max - n <= 32)
				memcpy(l.b + l.n, "                                ", 32);
			else
				memset(l.b + l.n, ' ', pf->dsrc_max - n);
			l.n += pf->dsrc_max - n;
		} else {
			char t[PMS_DATASRC_PUT_ROOM];
			n = pms_datasrc_put_script_(s->data_src, t);
			if (n > pf->dsrc_max)
				pf->dsrc_max = n;
			l_strn(&l, t, n, 0);
			while (n++ < pf->dsrc_max)
				l_chr(&l, ' ');
		}
	}
	if (f & PF_WEIGHT)
		l_num(&l, (s->present & PMS_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1_dw : s->weight, 10, 16);
	if (f & PF_INSLAT)
		l_num(&l, s->weight_var2_w, 10, 16);
	if (f & PF_RETLAT)
		l_num(&l, s->weight_var3_w, 10, 16);
	if ((f & PF_IP) || ((f & PX_CHAIN) && chain)) {
		l_chr(&l, chain ? '\n' : ' ');
		if (!chain) {
			l_num(&l, s->ip, 16, 16);
			pf_symdso(&l, &nm, f);
		}
	}
	o->n += l.n;
	if (chain)
		pf_chain(o, pf, s, frp, nfr, (f & PX_CHAIN) && !(f & PF_IP) ? 0 : f);
	if ((f & PF_BRSTACK) && (s->present & PMS_SAMPLE_BRANCH_STACK))
		for (uint64_t k = 0; k < s->branch.nr; k++) {
			char b[160];
			struct pms_branch br = pms_branch_at(s->branch.entries, (size_t)k);
			br_text(b, sizeof(b), &br);
			out_put(o, b, strlen(b));
		}
	out_room(o, 64);
	l.b = o->b + o->n;
	l.n = 0;
	if (f & PF_PHYS)
		l_num(&l, s->phys_addr, 16, 16);
	if (f & PX_NODE) {
		l_chr(&l, ' ');
		if (node >= 0)
			l_num(&l, (uint64_t)node, 10, 0);
		else
			l_chr(&l, '-');
	}
	if (f & PX_TYPE)
		l_strn(&l, " SAMPLE", 7, 0);
	l_chr(&l, '\n');
	o->n += l.n;
}


size_t pms_script_format(struct pms_script *s, const struct pms_script_sample *smp, char *buf,
			 size_t size)
{
	struct out o = { .s = s, .b = buf, .n = 0, .cap = size, .own = false };
	if (!s->scratch) {
		if (!(s->scratch = malloc(2 * LINE_CAP)))
			return 0;
		s->scratch_cap = 2 * LINE_CAP;
	}
	print_perf(&o, s, smp);
	if (o.own)
		memcpy(buf, o.b, o.n < size ? o.n : size);
	return o.n;
}
