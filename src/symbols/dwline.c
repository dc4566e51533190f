/* file:line from .debug_line alone (see dwline.h for why).
 *
 * The rules are libdw's (elfutils 0.188, checked address by address against
 * it by tests/symbols/test_dwline.c):
 * - a line program's rows are sorted by address, an end_sequence row before
 *   an ordinary one at the same address, else in the order they were made;
 *   the last row is made an end_sequence row;
 * - an address takes the last row at or below it, unless that row ends a
 *   sequence;
 * - a file name relative to its directory becomes "dir/name" (DWARF 5
 *   directory 0 is the compilation directory, written in the table; DWARF
 *   2-4 take it from the unit DIE, which this reader does not read);
 * - the unit is the one whose address range starts nearest below the
 *   address (libdwfl's .debug_aranges search); when its rows do not hold
 *   the address, the first unit (in section order) with a sequence holding
 *   it (libdwfl's walk of the units' ranges).
 * Every read is bounded by the section; what libdw rejects as invalid data
 * this reader rejects too. */
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/dwline.h"
#include "util/error.h"

struct sec {
	const uint8_t *p;
	size_t n;
	Elf_Scn *scn; /* NULL: given in memory (or absent) */
	bool gnu;     /* .zdebug_ (GNU zlib) rather than SHF_COMPRESSED */
	bool loaded;
};

struct row {
	uint64_t addr;
	uint32_t idx; /* order made: ties keep it */
	uint32_t file;
	int32_t line;
	bool end;
};

struct fent {
	const char *name; /* NULL: a form this reader does not resolve */
	uint64_t dir;
	bool raw; /* libdw's "???" for a missing entry: the name as is */
};

struct prog {
	size_t off; /* unit start in .debug_line */
	unsigned char state; /* 0 not decoded, 1 decoded, 2 failed */
	bool ask;            /* names in forms resolved elsewhere: libdw answers */
	uint16_t version;
	struct row *rows;
	size_t nrows;
	const char **dirs; /* v < 5: dirs[0] is NULL (the unit's comp dir) */
	size_t ndirs;
	struct fent *files; /* files[0]: "???" unless DWARF 5 names entry 0 */
	size_t nfiles, capfiles;
	char **names; /* composed names by file index, made when asked */
};

struct seq {
	uint64_t lo, end; /* lowest and highest row address */
	uint32_t prog;
};

struct pms_dwline {
	struct sec line, line_str, str;
	unsigned asz;
	bool be;
	struct prog *progs;
	size_t nprogs;
	struct seq *seqs;
	size_t nseqs, capseqs;
	uint64_t *maxend; /* maxend[i]: highest end of seqs[0..i] */
	int fd;
	Elf *elf;
};

/* ---- bounded reads ------------------------------------------------------- */

static uint64_t rd(const uint8_t *p, unsigned n, bool be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

/* libdw's LEB128: at most 10 bytes, bounded by end; an unterminated one
 * reads as the type's maximum.  The caller has checked *pp < end. */
static uint64_t uleb(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	size_t max = (size_t)(end - p) < 10 ? (size_t)(end - p) : 10;
	uint64_t v = 0;
	for (size_t i = 0; i < max; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*pp = p + i + 1;
			return v;
		}
	}
	*pp = p + max;
	return UINT64_MAX;
}

static int64_t sleb(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	size_t max = (size_t)(end - p) < 10 ? (size_t)(end - p) : 10;
	uint64_t v = 0;
	for (size_t i = 0; i < max; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			if ((p[i] & 0x40) && 7 * (i + 1) < 64)
				v |= ~(uint64_t)0 << (7 * (i + 1));
			*pp = p + i + 1;
			return (int64_t)v;
		}
	}
	*pp = p + max;
	return INT64_MAX;
}

/* The bytes a value of form takes at p (< end), as libdw sizes forms in a
 * line table header; false for a form libdw refuses there or a value that
 * does not fit. */
static bool form_len(unsigned form, const uint8_t *p, const uint8_t *end, unsigned offsz,
		     unsigned asz, bool be, size_t *len)
{
	size_t avail = (size_t)(end - p), n;
	const uint8_t *q = p;
	switch (form) {
	case DW_FORM_flag_present:
		n = 0;
		break;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		n = 1;
		break;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		n = 2;
		break;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		n = 3;
		break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4: case DW_FORM_strx4:
	case DW_FORM_addrx4:
		n = 4;
		break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		n = 8;
		break;
	case DW_FORM_data16:
		n = 16;
		break;
	case DW_FORM_addr:
		n = asz;
		break;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_ref_addr:
	case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		n = offsz;
		break;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		if (!avail)
			return false;
		(void)uleb(&q, end);
		n = (size_t)(q - p);
		break;
	case DW_FORM_sdata:
		if (!avail)
			return false;
		(void)sleb(&q, end);
		n = (size_t)(q - p);
		break;
	case DW_FORM_string: {
		const uint8_t *z = avail ? memchr(p, 0, avail) : NULL;
		if (!z)
			return false;
		n = (size_t)(z - p) + 1;
		break;
	}
	case DW_FORM_block1:
		if (avail < 1)
			return false;
		n = 1 + (size_t)p[0];
		break;
	case DW_FORM_block2:
		if (avail < 2)
			return false;
		n = 2 + (size_t)rd(p, 2, be);
		break;
	case DW_FORM_block4:
		if (avail < 4)
			return false;
		n = 4 + (size_t)rd(p, 4, be);
		break;
	case DW_FORM_block: case DW_FORM_exprloc: {
		if (!avail)
			return false;
		uint64_t l = uleb(&q, end);
		if (l > (uint64_t)(end - q))
			return false;
		n = (size_t)(q - p) + (size_t)l;
		break;
	}
	default: /* DW_FORM_indirect, DW_FORM_implicit_const, unknown */
		return false;
	}
	if (n > avail)
		return false;
	*len = n;
	return true;
}

/* Forms libdw takes in a line table header's entry formats. */
static bool form_known(unsigned form)
{
	switch (form) {
	case DW_FORM_indirect: case DW_FORM_implicit_const:
		return false;
	default:
		return (form >= DW_FORM_addr && form <= DW_FORM_addrx4 && form != 0x02) ||
		       form == DW_FORM_GNU_addr_index || form == DW_FORM_GNU_str_index ||
		       form == DW_FORM_GNU_ref_alt || form == DW_FORM_GNU_strp_alt;
	}
}

/* ---- sections ------------------------------------------------------------ */

/* The section's bytes, inflated by libelf when compressed (only this
 * section: libdw would inflate them all). */
static bool sec_load(struct sec *s)
{
	if (s->loaded)
		return s->p != NULL;
	s->loaded = true;
	if (!s->scn)
		return false;
	GElf_Shdr sh;
	if (!gelf_getshdr(s->scn, &sh))
		return false;
	if ((sh.sh_flags & SHF_COMPRESSED) ? elf_compress(s->scn, 0, 0) < 0
					   : s->gnu && elf_compress_gnu(s->scn, 0, 0) < 0)
		return false;
	Elf_Data *d = elf_getdata(s->scn, NULL);
	if (!d || !d->d_buf)
		return false;
	s->p = d->d_buf;
	s->n = d->d_size;
	return true;
}

/* A NUL-terminated string at off in s, or NULL. */
static const char *sec_str(struct sec *s, uint64_t off)
{
	if (!sec_load(s) || off >= s->n)
		return NULL;
	return memchr(s->p + off, 0, s->n - (size_t)off) ? (const char *)s->p + off : NULL;
}

/* ---- line program header --------------------------------------------------- */

struct hdr {
	const uint8_t *uend, *hend, *tables;
	unsigned offsz, version;
	uint8_t min_len, max_ops, def_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *stdlen; /* stdlen[op], op >= 1 */
};

static int hdr_parse(const struct pms_dwline *d, size_t off, struct hdr *h)
{
	const uint8_t *p = d->line.p + off, *end = d->line.p + d->line.n;
	if (end - p < 4)
		return -1;
	uint64_t ulen = rd(p, 4, d->be);
	p += 4;
	h->offsz = 4;
	if (ulen == 0xffffffffu) {
		if (end - p < 8)
			return -1;
		ulen = rd(p, 8, d->be);
		p += 8;
		h->offsz = 8;
	}
	if (ulen > (uint64_t)(end - p))
		return -1;
	h->uend = p + ulen;
	if (h->uend - p < 2)
		return -1;
	h->version = (unsigned)rd(p, 2, d->be);
	p += 2;
	if (h->version < 2 || h->version > 5)
		return -1;
	if (h->version >= 5) {
		if (h->uend - p < 2 || p[0] != d->asz || p[1] != 0)
			return -1;
		p += 2;
	}
	if ((size_t)(h->uend - p) < h->offsz)
		return -1;
	uint64_t hlen = rd(p, h->offsz, d->be);
	p += h->offsz;
	/* libdw does not bound the header by the unit; this reader does */
	if (hlen > (uint64_t)(h->uend - p))
		return -1;
	h->hend = p + hlen;
	if (h->uend - p < 1)
		return -1;
	h->min_len = *p++;
	h->max_ops = 1;
	if (h->version >= 4) {
		if (h->uend - p < 1 || *p == 0)
			return -1;
		h->max_ops = *p++;
	}
	if (h->uend - p < 4)
		return -1;
	h->def_stmt = p[0];
	h->line_base = (int8_t)p[1];
	h->line_range = p[2];
	h->opcode_base = p[3];
	p += 4;
	if (h->opcode_base == 0) /* libdw steps back a byte here; refuse */
		return -1;
	h->stdlen = p - 1;
	if (h->uend - p < h->opcode_base - 1)
		return -1;
	h->tables = p + h->opcode_base - 1;
	return 0;
}

/* libdw's dwarf_formudata for a directory index. */
static bool form_udata(unsigned form, const uint8_t *p, const uint8_t *end, bool be, uint64_t *v)
{
	switch (form) {
	case DW_FORM_data1: *v = p[0]; return true;
	case DW_FORM_data2: *v = rd(p, 2, be); return true;
	case DW_FORM_data4: *v = rd(p, 4, be); return true;
	case DW_FORM_data8: *v = rd(p, 8, be); return true;
	case DW_FORM_udata: *v = uleb(&p, end); return true;
	default: return false;
	}
}

static bool add_file(struct prog *pr, const char *name, uint64_t dir, bool raw)
{
	if (pr->nfiles == pr->capfiles) {
		size_t cap = pr->capfiles ? pr->capfiles * 2 : 16;
		struct fent *v = realloc(pr->files, cap * sizeof(*v));
		if (!v)
			return false;
		pr->files = v;
		pr->capfiles = cap;
	}
	pr->files[pr->nfiles++] = (struct fent){ name, dir, raw };
	return true;
}

/* A string-valued entry: *s the string, or NULL with *ask set for forms
 * resolved in other sections or files.  false: not a string (invalid). */
static bool entry_str(struct pms_dwline *d, unsigned form, const uint8_t *p, unsigned offsz,
		      bool keep, const char **s, bool *ask)
{
	*s = NULL;
	switch (form) {
	case DW_FORM_string:
		*s = (const char *)p;
		return true;
	case DW_FORM_line_strp:
	case DW_FORM_strp:
		if (keep) {
			*s = sec_str(form == DW_FORM_strp ? &d->str : &d->line_str, rd(p, offsz, d->be));
			return *s != NULL;
		}
		*s = "";
		return true;
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
	case DW_FORM_strx4: case DW_FORM_GNU_str_index: case DW_FORM_strp_sup:
	case DW_FORM_GNU_strp_alt:
		*ask = true;
		return true;
	default:
		return false;
	}
}

/* The directory and file tables (libdw's read_srcfiles).  keep: resolve the
 * names into pr; else only check the structure. */
static int tables_parse(struct pms_dwline *d, const struct hdr *h, struct prog *pr, bool keep,
			size_t *ndirs_out)
{
	const uint8_t *p = h->tables, *end = h->hend;
	size_t ndirs = 0;
	bool ask = false;
	if (h->version < 5) {
		const uint8_t *q = p;
		while (q < end && *q) {
			const uint8_t *z = memchr(q, 0, (size_t)(end - q));
			if (!z)
				return -1;
			ndirs++;
			q = z + 1;
		}
		if (q >= end)
			return -1;
		ndirs++;
		if (keep && !(pr->dirs = calloc(ndirs, sizeof(*pr->dirs))))
			return -1;
		for (size_t n = 1; n < ndirs; n++) {
			if (keep)
				pr->dirs[n] = (const char *)p;
			p += strlen((const char *)p) + 1;
		}
		p++;
		if (keep && !add_file(pr, "???", 0, true))
			return -1;
		if (p >= end)
			return -1;
		while (p < end && *p) {
			const uint8_t *z = memchr(p, 0, (size_t)(end - p));
			if (!z)
				return -1;
			const char *name = (const char *)p;
			p = z + 1;
			if (p >= end)
				return -1;
			uint64_t dir = uleb(&p, end);
			if (dir >= ndirs || p >= end)
				return -1;
			(void)uleb(&p, end);
			if (p >= end)
				return -1;
			(void)uleb(&p, end);
			if (keep && !add_file(pr, name, dir, false))
				return -1;
		}
		if (p >= end || *p)
			return -1;
		p++;
	} else {
		for (int pass = 0; pass < 2; pass++) {
			uint16_t forms[256];
			int path = -1, idx = -1;
			if (end - p < 1)
				return -1;
			unsigned nforms = *p++;
			for (unsigned i = 0; i < nforms; i++) {
				if (end - p < 1)
					return -1;
				uint16_t desc = (uint16_t)uleb(&p, end);
				if (end - p < 1)
					return -1;
				forms[i] = (uint16_t)uleb(&p, end);
				if (!form_known(forms[i]))
					return -1;
				if (desc == DW_LNCT_path)
					path = (int)i;
				else if (pass == 1 && desc == DW_LNCT_directory_index)
					idx = (int)i;
			}
			if (nforms > 0 && (path < 0 || (pass == 1 && idx < 0)))
				return -1;
			if (end - p < 1)
				return -1;
			uint64_t count = uleb(&p, end);
			if (nforms == 0 && count != 0)
				return -1;
			if (nforms != 0 && count > (uint64_t)(end - p) / nforms)
				return -1;
			if (pass == 0) {
				ndirs = (size_t)count;
				if (keep && ndirs && !(pr->dirs = calloc(ndirs, sizeof(*pr->dirs))))
					return -1;
			} else if (keep && count == 0 && !add_file(pr, "???", 0, true)) {
				return -1;
			}
			for (uint64_t n = 0; n < count; n++) {
				const char *s = NULL;
				uint64_t dir = UINT64_MAX;
				bool got = false;
				for (unsigned m = 0; m < nforms; m++) {
					size_t len;
					if (!form_len(forms[m], p, end, h->offsz, d->asz, d->be, &len))
						return -1;
					if ((int)m == path) {
						bool a = false;
						if (!entry_str(d, forms[m], p, h->offsz, keep, &s, &a))
							return -1;
						got = true;
						ask |= a;
					} else if ((int)m == idx && !form_udata(forms[m], p, end, d->be, &dir)) {
						dir = UINT64_MAX;
					}
					p += len;
				}
				if (!got || (pass == 1 && dir == UINT64_MAX))
					return -1;
				if (pass == 0) {
					if (keep)
						pr->dirs[n] = s;
				} else {
					if (dir >= ndirs)
						return -1;
					if (keep && !add_file(pr, s, dir, false))
						return -1;
				}
			}
		}
	}
	if (p != h->hend)
		return -1;
	if (pr)
		pr->ask |= ask;
	*ndirs_out = ndirs;
	return 0;
}

/* ---- the line program --------------------------------------------------------- */

struct run {
	struct pms_dwline *d;
	struct prog *pr; /* rows wanted (decode) */
	uint32_t pidx;
	size_t caprows;
	bool inseq;
	uint64_t lo, hi;
};

static bool seq_push(struct pms_dwline *d, uint64_t lo, uint64_t hi, uint32_t prog)
{
	if (d->nseqs == d->capseqs) {
		size_t cap = d->capseqs ? d->capseqs * 2 : 1024;
		struct seq *v = realloc(d->seqs, cap * sizeof(*v));
		if (!v)
			return false;
		d->seqs = v;
		d->capseqs = cap;
	}
	d->seqs[d->nseqs++] = (struct seq){ lo, hi, prog };
	return true;
}

static bool emit(struct run *r, uint64_t addr, uint32_t file, int64_t line, bool end)
{
	if (r->pr) {
		struct prog *pr = r->pr;
		if (pr->nrows == r->caprows) {
			size_t cap = r->caprows ? r->caprows * 2 : 256;
			struct row *v = realloc(pr->rows, cap * sizeof(*v));
			if (!v)
				return false;
			pr->rows = v;
			r->caprows = cap;
		}
		pr->rows[pr->nrows] = (struct row){ addr, (uint32_t)pr->nrows, file, (int32_t)line, end };
		pr->nrows++;
		return true;
	}
	if (!r->inseq) {
		r->lo = r->hi = addr;
		r->inseq = true;
	} else {
		r->lo = addr < r->lo ? addr : r->lo;
		r->hi = addr > r->hi ? addr : r->hi;
	}
	if (end) {
		r->inseq = false;
		return seq_push(r->d, r->lo, r->hi, r->pidx);
	}
	return true;
}

/* Run the program (libdw's read_srclines state machine): index its
 * sequences, or (r->pr) make its rows.  -1: invalid or out of memory. */
static int run_program(struct run *r, const struct hdr *h, size_t ndirs)
{
	const uint8_t *p = h->hend, *end = h->uend;
	uint64_t addr = 0;
	uint32_t op_index = 0, file = 1, column = 0, isa = 0;
	int64_t line = 1;
#define ADVANCE(adv)                                                                              \
	do {                                                                                      \
		uint32_t t_ = op_index + (uint32_t)(adv);                                         \
		addr += (uint32_t)(h->min_len * (t_ / h->max_ops));                               \
		op_index = t_ % h->max_ops;                                                       \
	} while (0)
#define NEWLINE(e)                                                                                \
	do {                                                                                      \
		if (column > 0xffff || isa > 0xff || line != (int32_t)line)                      \
			return -1;                                                                \
		if (!emit(r, addr, file, line, (e)))                                              \
			return -1;                                                                \
	} while (0)
	while (p < end) {
		unsigned op = *p++;
		if (op >= h->opcode_base) {
			if (h->line_range == 0)
				return -1;
			line += h->line_base + (int)((op - h->opcode_base) % h->line_range);
			ADVANCE((op - h->opcode_base) / h->line_range);
			NEWLINE(false);
		} else if (op == 0) {
			if (end - p < 2)
				return -1;
			unsigned len = *p++;
			if ((size_t)(end - p) < len)
				return -1;
			unsigned sub = *p++;
			switch (sub) {
			case DW_LNE_end_sequence:
				NEWLINE(true);
				addr = 0;
				op_index = 0;
				file = 1;
				line = 1;
				column = 0;
				isa = 0;
				break;
			case DW_LNE_set_address:
				op_index = 0;
				if ((size_t)(end - p) < r->d->asz)
					return -1;
				addr = rd(p, r->d->asz, r->d->be);
				p += r->d->asz;
				break;
			case DW_LNE_define_file: {
				const uint8_t *z = memchr(p, 0, (size_t)(end - p));
				if (!z)
					return -1;
				const char *name = (const char *)p;
				p = z + 1;
				if (p >= end)
					return -1;
				uint32_t dir = (uint32_t)uleb(&p, end);
				if (dir >= ndirs || p >= end)
					return -1;
				(void)uleb(&p, end);
				if (p >= end)
					return -1;
				(void)uleb(&p, end);
				if (r->pr && !add_file(r->pr, name, dir, false))
					return -1;
				break;
			}
			case DW_LNE_set_discriminator:
				/* libdw checks the standard opcode length at index 4 */
				if ((size_t)(end - h->stdlen) <= 4 || h->stdlen[4] != 1 || p >= end)
					return -1;
				(void)uleb(&p, end);
				break;
			default:
				if ((size_t)(end - (p - 1)) < len)
					return -1;
				p = p - 1 + len;
				break;
			}
		} else if (op <= DW_LNS_set_isa) {
			uint8_t want = (op == DW_LNS_advance_pc || op == DW_LNS_advance_line ||
					op == DW_LNS_set_file || op == DW_LNS_set_column ||
					op == DW_LNS_fixed_advance_pc || op == DW_LNS_set_isa);
			if (h->stdlen[op] != want)
				return -1;
			if (want && p >= end)
				return -1;
			switch (op) {
			case DW_LNS_copy:
				NEWLINE(false);
				break;
			case DW_LNS_advance_pc:
				ADVANCE((uint32_t)uleb(&p, end));
				break;
			case DW_LNS_advance_line:
				line += (int32_t)(uint32_t)(uint64_t)sleb(&p, end);
				break;
			case DW_LNS_set_file:
				file = (uint32_t)uleb(&p, end);
				break;
			case DW_LNS_set_column:
				column = (uint32_t)uleb(&p, end);
				break;
			case DW_LNS_const_add_pc:
				if (h->line_range == 0)
					return -1;
				ADVANCE((255 - h->opcode_base) / h->line_range);
				break;
			case DW_LNS_fixed_advance_pc:
				if (end - p < 2)
					return -1;
				addr += rd(p, 2, r->d->be);
				p += 2;
				op_index = 0;
				break;
			case DW_LNS_set_isa:
				isa = (uint32_t)uleb(&p, end);
				break;
			default: /* negate_stmt, basic_block, prologue_end, epilogue_begin */
				break;
			}
		} else {
			for (unsigned n = h->stdlen[op]; n > 0; n--) {
				if (p >= end)
					return -1;
				(void)uleb(&p, end);
			}
		}
	}
#undef ADVANCE
#undef NEWLINE
	if (!r->pr && r->inseq && !seq_push(r->d, r->lo, r->hi, r->pidx))
		return -1;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Make the rows and tables of program i (once). */
static bool prog_decode(struct pms_dwline *d, struct prog *pr)
{
	if (pr->state)
		return pr->state == 1;
	pr->state = 2;
	struct hdr h;
	size_t ndirs = 0;
	struct run r = { d, pr, 0, 0, false, 0, 0 };
	if (hdr_parse(d, pr->off, &h) < 0 || tables_parse(d, &h, pr, true, &ndirs) < 0 ||
	    run_program(&r, &h, ndirs) < 0)
		return false;
	pr->ndirs = ndirs;
	if (pr->nrows) {
		qsort(pr->rows, pr->nrows, sizeof(*pr->rows), row_cmp);
		pr->rows[pr->nrows - 1].end = true;
	}
	if (pr->nfiles && !(pr->names = calloc(pr->nfiles, sizeof(*pr->names))))
		return false;
	pr->state = 1;
	return true;
}

/* The name of file index f of pr: dir/name unless absolute. */
static int file_name(struct prog *pr, uint32_t f, const char **out)
{
	if (f >= pr->nfiles)
		return PMS_DWLINE_NONE; /* libdw: invalid file index, no name */
	const struct fent *e = &pr->files[f];
	if (!e->name)
		return PMS_DWLINE_ASK;
	if (e->raw || e->name[0] == '/') {
		*out = e->name;
		return PMS_DWLINE_FOUND;
	}
	const char *dir = e->dir < pr->ndirs ? pr->dirs[e->dir] : NULL;
	if (!dir) /* DWARF 2-4 directory 0: the unit DIE's DW_AT_comp_dir */
		return PMS_DWLINE_ASK;
	if (!pr->names[f]) {
		size_t dl = strlen(dir), nl = strlen(e->name);
		char *s = malloc(dl + nl + 2);
		if (!s)
			return PMS_DWLINE_ASK;
		memcpy(s, dir, dl);
		s[dl] = '/';
		memcpy(s + dl + 1, e->name, nl + 1);
		pr->names[f] = s;
	}
	*out = pr->names[f];
	return PMS_DWLINE_FOUND;
}

/* libdw's search in one unit's rows. */
static int prog_find(struct pms_dwline *d, uint32_t i, uint64_t addr, const char **file, int *line)
{
	struct prog *pr = &d->progs[i];
	if (!prog_decode(d, pr) || !pr->nrows)
		return PMS_DWLINE_NONE;
	size_t l = 0, u = pr->nrows - 1;
	while (l < u) {
		size_t mid = u - (u - l) / 2;
		if (addr < pr->rows[mid].addr)
			u = mid - 1;
		else
			l = mid;
	}
	const struct row *rw = &pr->rows[l];
	if (rw->addr > addr || rw->end)
		return PMS_DWLINE_NONE;
	if (pr->ask)
		return PMS_DWLINE_ASK;
	int rc = file_name(pr, rw->file, file);
	if (rc == PMS_DWLINE_FOUND)
		*line = rw->line;
	return rc;
}

int pms_dwline_find(struct pms_dwline *d, uint64_t addr, const char **file, int *line)
{
	if (!d || !d->nseqs || !file || !line || addr < d->seqs[0].lo)
		return PMS_DWLINE_NONE;
	/* the sequence starting nearest below addr (the first unit of those
	 * starting there), as libdwfl's .debug_aranges search */
	size_t lo = 0, hi = d->nseqs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->seqs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo - 1, k1 = k;
	while (k1 > 0 && d->seqs[k1 - 1].lo == d->seqs[k].lo)
		k1--;
	uint32_t first = d->seqs[k1].prog;
	int rc = prog_find(d, first, addr, file, line);
	if (rc != PMS_DWLINE_NONE)
		return rc;
	/* else the first unit holding addr in a sequence (libdwfl's walk) */
	uint32_t best = UINT32_MAX;
	for (size_t j = k + 1; j-- > 0 && d->maxend[j] > addr;)
		if (d->seqs[j].lo <= addr && addr < d->seqs[j].end && d->seqs[j].prog < best)
			best = d->seqs[j].prog;
	if (best == UINT32_MAX || best == first)
		return PMS_DWLINE_NONE;
	return prog_find(d, best, addr, file, line);
}

static int seq_cmp(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Index every program of d->line. */
static int index_build(struct pms_dwline *d)
{
	size_t cap = 0, off = 0;
	while (off < d->line.n) {
		struct hdr h;
		size_t ndirs = 0;
		struct prog probe = { 0 }; /* forms resolved elsewhere show in the header */
		if (hdr_parse(d, off, &h) < 0 || tables_parse(d, &h, &probe, false, &ndirs) < 0)
			return pms_err(PMS_EPARSE, ".debug_line: malformed line program header at 0x%zx",
				       off);
		if (d->nprogs == cap) {
			cap = cap ? cap * 2 : 64;
			struct prog *v = realloc(d->progs, cap * sizeof(*v));
			if (!v)
				return pms_err(PMS_ENOMEM, ".debug_line: no memory");
			d->progs = v;
		}
		if (d->nprogs >= UINT32_MAX - 1)
			return pms_err(PMS_EPARSE, ".debug_line: too many line programs");
		struct prog *pr = &d->progs[d->nprogs];
		memset(pr, 0, sizeof(*pr));
		pr->off = off;
		pr->version = (uint16_t)h.version;
		pr->ask = probe.ask;
		struct run r = { d, NULL, (uint32_t)d->nprogs, 0, false, 0, 0 };
		d->nprogs++;
		if (run_program(&r, &h, ndirs) < 0)
			return pms_err(PMS_EPARSE, ".debug_line: malformed line program at 0x%zx (or no memory)",
				       off);
		off = (size_t)(h.uend - d->line.p);
	}
	if (d->nseqs) {
		qsort(d->seqs, d->nseqs, sizeof(*d->seqs), seq_cmp);
		if (!(d->maxend = malloc(d->nseqs * sizeof(*d->maxend))))
			return pms_err(PMS_ENOMEM, ".debug_line: no memory");
		uint64_t m = 0;
		for (size_t i = 0; i < d->nseqs; i++) {
			m = d->seqs[i].end > m ? d->seqs[i].end : m;
			d->maxend[i] = m;
		}
	}
	return 0;
}

static struct pms_dwline *dwline_alloc(void)
{
	struct pms_dwline *d = calloc(1, sizeof(*d));
	if (d)
		d->fd = -1;
	return d;
}

int pms_dwline_new(const struct pms_dwline_mem *m, struct pms_dwline **out)
{
	if (out)
		*out = NULL;
	if (!m || !out || (m->addr_size != 4 && m->addr_size != 8))
		return pms_err(PMS_EINVAL, "dwline: NULL argument or address size not 4 or 8");
	struct pms_dwline *d = dwline_alloc();
	if (!d)
		return pms_err(PMS_ENOMEM, "dwline: no memory");
	d->line = (struct sec){ m->line, m->line ? m->line_size : 0, NULL, false, true };
	d->line_str = (struct sec){ m->line_str, m->line_str ? m->line_str_size : 0, NULL, false, true };
	d->str = (struct sec){ m->str, m->str ? m->str_size : 0, NULL, false, true };
	d->asz = m->addr_size;
	d->be = m->big_endian;
	int rc = d->line.p ? index_build(d) : 0;
	if (rc < 0) {
		pms_dwline_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

static bool sec_named(const char *name, const char *what, bool *gnu)
{
	if (!strncmp(name, ".debug_", 7) && !strcmp(name + 7, what)) {
		*gnu = false;
		return true;
	}
	if (!strncmp(name, ".zdebug_", 8) && !strcmp(name + 8, what)) {
		*gnu = true;
		return true;
	}
	return false;
}

bool pms_dwline_elf_has_dwarf(Elf *elf)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		bool gnu;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (sec_named(name, "info", &gnu) || sec_named(name, "line", &gnu) ||
		    sec_named(name, "frame", &gnu))
			return true;
	}
	return false;
}

int pms_dwline_open(const char *path, struct pms_dwline **out)
{
	struct pms_dwline *d = NULL;
	int rc;
	if (out)
		*out = NULL;
	if (!path || !out)
		return pms_err(PMS_EINVAL, "dwline: NULL argument");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pms_err(PMS_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	if (!(d = dwline_alloc()))
		return pms_err(PMS_ENOMEM, "dwline: no memory");
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		rc = pms_err(PMS_ENOENT, "%s: cannot open it for its line table", path);
		goto out;
	}
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF || !gelf_getehdr(d->elf, &eh) ||
	    elf_getshdrstrndx(d->elf, &shstrndx) < 0) {
		rc = pms_err(PMS_EPARSE, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		rc = pms_err(PMS_ENOTSUP, "%s: not an executable or shared object (relocations apply)",
			     path);
		goto out;
	}
	d->asz = gelf_getclass(d->elf) == ELFCLASS64 ? 8 : 4;
	d->be = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(d->elf, scn)) != NULL) {
		GElf_Shdr sh;
		bool gnu;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(d->elf, shstrndx, sh.sh_name)))
			continue;
		struct sec *s = sec_named(name, "line", &gnu)	    ? &d->line
				: sec_named(name, "line_str", &gnu) ? &d->line_str
				: sec_named(name, "str", &gnu)	    ? &d->str
								    : NULL;
		if (s && !s->scn) {
			s->scn = scn;
			s->gnu = gnu;
		}
	}
	if (!d->line.scn) {
		rc = pms_err(PMS_ENOENT, "%s: no .debug_line section", path);
		goto out;
	}
	if (!sec_load(&d->line)) {
		rc = pms_err(PMS_EPARSE, "%s: .debug_line: %s", path, elf_errmsg(-1));
		goto out;
	}
	if ((rc = index_build(d)) < 0)
		goto out;
	*out = d;
	d = NULL;
	rc = 0;
out:
	pms_dwline_free(d);
	return rc;
}

size_t pms_dwline_nseqs(const struct pms_dwline *d)
{
	return d ? d->nseqs : 0;
}

void pms_dwline_seq(const struct pms_dwline *d, size_t i, uint64_t *lo, uint64_t *end)
{
	*lo = d->seqs[i].lo;
	*end = d->seqs[i].end;
}

void pms_dwline_free(struct pms_dwline *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nprogs; i++) {
		struct prog *pr = &d->progs[i];
		free(pr->rows);
		free(pr->dirs);
		free(pr->files);
		for (size_t f = 0; pr->names && f < pr->nfiles; f++)
			free(pr->names[f]);
		free(pr->names);
	}
	free(d->progs);
	free(d->seqs);
	free(d->maxend);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}
