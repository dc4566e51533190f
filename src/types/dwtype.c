/* DWARF type walking for type resolution: names, sizes, pointees and the
 * member at a byte offset through nested structs, unions and arrays. */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "types/types_int.h"

bool ty_type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

bool ty_peel(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die cur = *type;
	for (int i = 0; i < 32; i++) {
		int tag = dwarf_tag(&cur);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type) {
			*out = cur;
			return true;
		}
		Dwarf_Die next;
		if (!ty_type_of(&cur, &next))
			return false; /* const void */
		cur = next;
	}
	return false;
}

uint64_t ty_size(Dwarf_Die *type)
{
	Dwarf_Die t;
	if (!ty_peel(type, &t))
		return 0;
	Dwarf_Word sz;
	if (dwarf_aggregate_size(&t, &sz) == 0)
		return sz;
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type)
		return 8;
	return 0;
}

bool ty_pointee(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die t;
	if (!ty_peel(type, &t))
		return false;
	int tag = dwarf_tag(&t);
	if (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type && tag != DW_TAG_reference_type)
		return false;
	return ty_type_of(&t, out);
}

void ty_name(Dwarf_Die *type, char *buf, size_t len)
{
	Dwarf_Die t = *type;
	const char *q = "";
	int tag = dwarf_tag(&t);
	/* a typedef keeps its own name (as perf prints it) */
	while (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type) {
		Dwarf_Die n;
		if (!ty_type_of(&t, &n)) {
			snprintf(buf, len, "void");
			return;
		}
		t = n;
		tag = dwarf_tag(&t);
	}
	const char *name = dwarf_diename(&t);
	switch (tag) {
	case DW_TAG_structure_type: q = "struct "; break;
	case DW_TAG_union_type: q = "union "; break;
	case DW_TAG_enumeration_type: q = "enum "; break;
	case DW_TAG_class_type: q = "class "; break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type: {
		Dwarf_Die n;
		char inner[200];
		if (ty_type_of(&t, &n))
			ty_name(&n, inner, sizeof(inner));
		else
			snprintf(inner, sizeof(inner), "void");
		snprintf(buf, len, "%s%s", inner, tag == DW_TAG_pointer_type ? "*" : "&");
		return;
	}
	case DW_TAG_array_type: {
		Dwarf_Die n;
		char inner[200];
		if (ty_type_of(&t, &n))
			ty_name(&n, inner, sizeof(inner));
		else
			snprintf(inner, sizeof(inner), "?");
		snprintf(buf, len, "%s[]", inner);
		return;
	}
	default: break;
	}
	snprintf(buf, len, "%s%s", q, name ? name : "(anon)");
}

static bool member_offset(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a)) {
		*off = 0; /* union members */
		return true;
	}
	if (dwarf_formudata(&a, &w) != 0)
		return false;
	*off = w;
	return true;
}

static void append(char *path, size_t len, const char *fmt, const char *s, uint64_t idx)
{
	size_t used = strlen(path);
	if (used + 1 >= len)
		return;
	if (s)
		snprintf(path + used, len - used, fmt, used ? "." : "", s);
	else
		snprintf(path + used, len - used, "[%" PRIu64 "]", idx);
}

/* Descend one level: the child of t (struct/union member or array element)
 * that covers offset; false when t is a leaf or offset is in a hole. */
static bool step(Dwarf_Die *t, uint64_t *offset, unsigned want_size, char *path, size_t len,
		 uint64_t *base, Dwarf_Die *child)
{
	int tag = dwarf_tag(t);
	if (tag == DW_TAG_array_type) {
		Dwarf_Die el;
		if (!ty_type_of(t, &el))
			return false;
		uint64_t es = ty_size(&el);
		if (!es)
			return false;
		uint64_t idx = *offset / es;
		uint64_t total = ty_size(t);
		if (total && *offset >= total)
			return false;
		append(path, len, NULL, NULL, idx);
		*base += idx * es;
		*offset -= idx * es;
		*child = el;
		return true;
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type)
		return false;
	Dwarf_Die m;
	if (dwarf_child(t, &m) != 0)
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		uint64_t mo;
		Dwarf_Die mt;
		if (!member_offset(&m, &mo) || !ty_type_of(&m, &mt))
			continue;
		if (*offset < mo) /* (its size not needed) */
			continue;
		uint64_t ms = ty_size(&mt);
		if (*offset >= mo + (ms ? ms : 1))
			continue;
		/* a union: the first member that can hold an access of want_size */
		if (tag == DW_TAG_union_type && want_size && ms < want_size)
			continue;
		const char *n = dwarf_diename(&m);
		if (n)
			append(path, len, "%s%s", n, 0);
		*base += mo;
		*offset -= mo;
		*child = mt;
		return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

bool ty_member_at(Dwarf_Die *type, uint64_t offset, unsigned want_size, char *path, size_t len,
		  uint64_t *moff, uint64_t *msize, Dwarf_Die *leaf)
{
	Dwarf_Die t;
	path[0] = 0;
	if (!ty_peel(type, &t))
		return false;
	uint64_t total = ty_size(&t);
	if (total && offset >= total)
		return false;
	uint64_t base = 0, size = total;
	Dwarf_Die cur = t;
	*leaf = t;
	for (int depth = 0; depth < 32; depth++) {
		/* a whole-register load of exactly this object: stop here */
		if (want_size && offset == 0 && size == want_size && depth > 0)
			break;
		Dwarf_Die child, pc;
		uint64_t off2 = offset, base2 = base;
		size_t plen = strlen(path);
		if (!step(&cur, &off2, want_size, path, len, &base2, &child) ||
		    !ty_peel(&child, &pc)) {
			path[plen] = 0;
			break;
		}
		*leaf = child;
		cur = pc;
		offset = off2;
		base = base2;
		size = ty_size(&pc);
	}
	*moff = base;
	*msize = size;
	return true;
}
