/* Data addresses -> the object they belong to, by the truth of their
 * mapping (include/pmuscope/symbols.h: pms_data_object): an ELF object
 * symbol only when the address lies inside its size, else the section of
 * the file; the kernel's names for the rest. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/symbols.h"
#include "symbols/symbols_int.h"
#include "util/error.h"

const char *pms_dataobj_kind_name(enum pms_dataobj_kind k)
{
	static const char *const names[] = { "unmapped", "global", "segment", "heap",
					     "stack",    "anon",   "special" };
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

/* The first mapping that ends above addr (maps->n if none). */
static size_t map_index(const struct pms_maps *maps, uint64_t addr)
{
	size_t lo = 0, hi = maps->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (maps->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* addr in file mapping fm (of module mod): its object symbol, else its
 * section's part of [lo, hi) (the mapping), else the gap between sections.
 * false when the file cannot be read. */
static bool in_file(struct pms_symbolizer *s, Dwfl_Module *mod, uint64_t addr, uint64_t lo,
		    uint64_t hi, struct pms_dataobj *out)
{
	const char *sec = NULL;
	uint64_t slo = 0, shi = 0;
	int r = pms_sym_data_section(s, mod, addr, &sec, &slo, &shi);
	if (r < 0)
		return false;
	out->kind = PMS_DOBJ_SEGMENT;
	out->section = sec;
	out->start = slo > lo ? slo : lo;
	out->end = shi < hi ? shi : hi;
	uint64_t ss = 0, sz = 0;
	const char *sym = pms_sym_data_symbol(s, mod, addr, &ss, &sz);
	if (sym) {
		out->kind = PMS_DOBJ_GLOBAL;
		out->symbol = sym;
		out->start = ss;
		out->end = ss + sz;
	}
	return true;
}

int pms_data_object(struct pms_symbolizer *s, pid_t pid, const struct pms_maps *maps,
		    uint64_t addr, struct pms_dataobj *out)
{
	if (!maps || !out)
		return pms_err(PMS_EINVAL, "data object: NULL argument");
	memset(out, 0, sizeof(*out));
	size_t i = map_index(maps, addr);
	if (i >= maps->n || maps->v[i].start > addr) {
		out->kind = PMS_DOBJ_UNMAPPED;
		out->start = i ? maps->v[i - 1].end : 0;
		out->end = i < maps->n ? maps->v[i].start : UINT64_MAX;
		return 0;
	}
	const struct pms_map *m = &maps->v[i];
	out->start = m->start;
	out->end = m->end;
	out->module = m->path;
	switch (m->kind) {
	case PMS_MAP_FILE: {
		out->kind = PMS_DOBJ_SEGMENT;
		Dwfl_Module *mod = s ? pms_sym_data_module(s, pid, m->start, m->end) : NULL;
		if (mod)
			(void)in_file(s, mod, addr, m->start, m->end, out);
		return 0;
	}
	case PMS_MAP_HEAP:
		out->kind = PMS_DOBJ_HEAP;
		return 0;
	case PMS_MAP_STACK:
		out->kind = PMS_DOBJ_STACK;
		return 0;
	case PMS_MAP_SPECIAL:
		out->kind = PMS_DOBJ_SPECIAL;
		return 0;
	case PMS_MAP_ANON:
	default:
		break;
	}
	out->kind = PMS_DOBJ_ANON;
	/* the rest of a file's .bss: anonymous memory right after its last
	 * file-backed page */
	const struct pms_map *f = i ? &maps->v[i - 1] : NULL;
	if (s && f && f->kind == PMS_MAP_FILE && f->end == m->start) {
		Dwfl_Module *mod = pms_sym_data_module(s, pid, f->start, f->end);
		struct pms_dataobj o = *out;
		o.module = f->path;
		if (mod && in_file(s, mod, addr, m->start, m->end, &o) && o.section)
			*out = o;
	}
	return 0;
}

const char *pms_dataobj_format(const struct pms_dataobj *o, char *buf, size_t size)
{
	const char *mod = o->module ? o->module : "", *base = strrchr(mod, '/');
	base = base ? base + 1 : mod;
	switch (o->kind) {
	case PMS_DOBJ_UNMAPPED:
		snprintf(buf, size, "[unmapped]");
		break;
	case PMS_DOBJ_GLOBAL:
		snprintf(buf, size, "%s", o->symbol);
		break;
	case PMS_DOBJ_SEGMENT:
		if (o->section)
			snprintf(buf, size, "%s %s", *base ? base : "?", o->section);
		else
			snprintf(buf, size, "%s @0x%" PRIx64, *base ? base : "?", o->start);
		break;
	case PMS_DOBJ_ANON:
		snprintf(buf, size, "[anon 0x%" PRIx64 "]", o->start);
		break;
	default:
		snprintf(buf, size, "%s", *mod ? mod : "[anon]");
		break;
	}
	return buf;
}
