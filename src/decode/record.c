/* Non-sample records (MMAP, MMAP2, COMM, FORK, EXIT, LOST, LOST_SAMPLES,
 * THROTTLE, UNTHROTTLE, AUX, ITRACE_START, SWITCH, SWITCH_CPU_WIDE, READ),
 * their sample_id trailer, and the layout helper.  Layouts: the comments on
 * enum perf_event_type in include/uapi/linux/perf_event.h;
 * reference/kernel-abi-facts.md 1.5. */
#include "decode/record_io.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The offsets below are those of struct perf_event_attr (kernel-abi-facts.md
 * 1.7); a field counts only when attr->size covers it. */
#define ATTR_HAS(attr, field)                                                     \
	((attr)->size == 0 ||                                                     \
	 (attr)->size >= offsetof(struct perf_event_attr, field) + sizeof((attr)->field))

void pms_sample_layout_from_attr(struct pms_sample_layout *l,
				 const struct perf_event_attr *attr)
{
	memset(l, 0, sizeof(*l));
	l->sample_type = attr->sample_type;
	l->read_format = attr->read_format;
	l->sample_id_all = attr->sample_id_all;
	if (ATTR_HAS(attr, branch_sample_type))
		l->branch_sample_type = attr->branch_sample_type;
	if (ATTR_HAS(attr, sample_regs_user))
		l->sample_regs_user = attr->sample_regs_user;
	if (ATTR_HAS(attr, sample_regs_intr))
		l->sample_regs_intr = attr->sample_regs_intr;
}

/* Which types carry a sample_id trailer: kernel records other than SAMPLE
 * (perf-tool synthetic types, >= 64, do not). */
static int has_trailer(const struct pms_sample_layout *l, uint32_t type)
{
	return l->sample_id_all && type != PMS_RECORD_SAMPLE &&
	       type < PMS_RECORD_USER_TYPE_START;
}

static size_t trailer_size(const struct pms_sample_layout *l)
{
	return 8u * (size_t)__builtin_popcountll(l->sample_type & PMS_SAMPLE_ID_ALL_MASK);
}

/* struct sample_id, in the order of the perf_event_type comment. */
static int rd_trailer(const struct pms_sample_layout *l, struct pms_rd *r,
		      struct pms_sample_id *id)
{
	uint64_t st = l->sample_type;
	int rc = 0;

	if ((st & PMS_SAMPLE_TID) &&
	    (rc = pms_rd_u32x2(r, "sample_id.pid/tid", &id->pid, &id->tid)) < 0)
		return rc;
	if ((st & PMS_SAMPLE_TIME) && (rc = pms_rd_u64(r, "sample_id.time", &id->time)) < 0)
		return rc;
	if ((st & PMS_SAMPLE_ID) && (rc = pms_rd_u64(r, "sample_id.id", &id->id)) < 0)
		return rc;
	if ((st & PMS_SAMPLE_STREAM_ID) &&
	    (rc = pms_rd_u64(r, "sample_id.stream_id", &id->stream_id)) < 0)
		return rc;
	if ((st & PMS_SAMPLE_CPU) &&
	    (rc = pms_rd_u32x2(r, "sample_id.cpu/res", &id->cpu, &id->cpu_res)) < 0)
		return rc;
	if ((st & PMS_SAMPLE_IDENTIFIER) &&
	    (rc = pms_rd_u64(r, "sample_id.identifier", &id->id)) < 0)
		return rc;
	id->present = st & PMS_SAMPLE_ID_ALL_MASK;
	return 0;
}

static void wr_trailer(const struct pms_sample_layout *l, struct pms_wr *w,
		       const struct pms_sample_id *id)
{
	uint64_t st = l->sample_type;

	if (st & PMS_SAMPLE_TID) {
		pms_wr_u32(w, id->pid);
		pms_wr_u32(w, id->tid);
	}
	if (st & PMS_SAMPLE_TIME)
		pms_wr_u64(w, id->time);
	if (st & PMS_SAMPLE_ID)
		pms_wr_u64(w, id->id);
	if (st & PMS_SAMPLE_STREAM_ID)
		pms_wr_u64(w, id->stream_id);
	if (st & PMS_SAMPLE_CPU) {
		pms_wr_u32(w, id->cpu);
		pms_wr_u32(w, id->cpu_res);
	}
	if (st & PMS_SAMPLE_IDENTIFIER)
		pms_wr_u64(w, id->id);
}

/* A string filling the rest of the body; it must end with a NUL there. */
static int rd_string(struct pms_rd *r, const char *field, const char **out)
{
	const unsigned char *s = r->p + r->pos;
	if (r->pos >= r->end || !memchr(s, '\0', r->end - r->pos))
		return pms_err(PMS_EPARSE,
			       "%s: field %s at byte offset %zu is not NUL-terminated before "
			       "offset %zu",
			       pms_rd_what(r), field, r->pos, r->end);
	*out = (const char *)s;
	r->pos = r->end;
	return 0;
}

/* Strings are written with their NUL and padded to 8 (the kernel aligns
 * them with ALIGN(len + 1, sizeof(u64)) in perf_event_mmap_event() and
 * perf_event_comm_event()). */
static void wr_string(struct pms_wr *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n >= PMS_WR_LIMIT) {
		w->too_big = 1;
		return;
	}
	pms_wr_bytes(w, s ? s : "", n);
	pms_wr_zero(w, 8 - (n & 7));
}

static int rd_pid_tid(struct pms_rd *r, struct pms_rec_pid_tid *o)
{
	return pms_rd_u32x2(r, "pid/tid", &o->pid, &o->tid);
}

static int rd_mmap(struct pms_rd *r, uint32_t type, uint16_t misc, struct pms_rec_mmap *m)
{
	int rc;

	if ((rc = pms_rd_u32x2(r, "pid/tid", &m->pid, &m->tid)) < 0 ||
	    (rc = pms_rd_u64(r, "addr", &m->addr)) < 0 ||
	    (rc = pms_rd_u64(r, "len", &m->len)) < 0 ||
	    (rc = pms_rd_u64(r, "pgoff", &m->pgoff)) < 0)
		return rc;
	if (type == PMS_RECORD_MMAP2) {
		if (misc & PMS_MISC_MMAP_BUILD_ID) {
			/* u8 build_id_size, u8 + u16 reserved, u8 build_id[20]:
			 * the same 24 bytes as maj/min/ino/ino_generation. */
			const void *p = NULL;
			size_t at = r->pos;
			if ((rc = pms_rd_take(r, "build_id", 24, &p)) < 0)
				return rc;
			m->has_build_id = true;
			m->build_id_size = *(const uint8_t *)p;
			if (m->build_id_size > sizeof(m->build_id))
				return pms_err(PMS_EPARSE,
					       "%s: field build_id_size at byte offset %zu is %u, "
					       "more than 20",
					       pms_rd_what(r), at, m->build_id_size);
			memcpy(m->build_id, (const unsigned char *)p + 4, sizeof(m->build_id));
		} else if ((rc = pms_rd_u32x2(r, "maj/min", &m->maj, &m->min)) < 0 ||
			   (rc = pms_rd_u64(r, "ino", &m->ino)) < 0 ||
			   (rc = pms_rd_u64(r, "ino_generation", &m->ino_generation)) < 0) {
			return rc;
		}
		if ((rc = pms_rd_u32x2(r, "prot/flags", &m->prot, &m->flags)) < 0)
			return rc;
	}
	return rd_string(r, "filename", &m->filename);
}

static void wr_mmap(struct pms_wr *w, uint32_t type, uint16_t misc,
		    const struct pms_rec_mmap *m)
{
	pms_wr_u32(w, m->pid);
	pms_wr_u32(w, m->tid);
	pms_wr_u64(w, m->addr);
	pms_wr_u64(w, m->len);
	pms_wr_u64(w, m->pgoff);
	if (type == PMS_RECORD_MMAP2) {
		if (misc & PMS_MISC_MMAP_BUILD_ID) {
			unsigned char b[24] = {0};
			b[0] = m->build_id_size;
			memcpy(b + 4, m->build_id, sizeof(m->build_id));
			pms_wr_bytes(w, b, sizeof(b));
		} else {
			pms_wr_u32(w, m->maj);
			pms_wr_u32(w, m->min);
			pms_wr_u64(w, m->ino);
			pms_wr_u64(w, m->ino_generation);
		}
		pms_wr_u32(w, m->prot);
		pms_wr_u32(w, m->flags);
	}
	wr_string(w, m->filename);
}

static int rd_body(struct pms_rd *r, uint32_t type, uint16_t misc,
		   const struct pms_sample_layout *l, struct pms_record *o)
{
	int rc = 0;

	switch (type) {
	case PMS_RECORD_MMAP:
	case PMS_RECORD_MMAP2:
		return rd_mmap(r, type, misc, &o->mmap);
	case PMS_RECORD_COMM:
		if ((rc = pms_rd_u32x2(r, "pid/tid", &o->comm.pid, &o->comm.tid)) < 0)
			return rc;
		return rd_string(r, "comm", &o->comm.comm);
	case PMS_RECORD_FORK:
	case PMS_RECORD_EXIT:
		if ((rc = pms_rd_u32x2(r, "pid/ppid", &o->fork.pid, &o->fork.ppid)) < 0 ||
		    (rc = pms_rd_u32x2(r, "tid/ptid", &o->fork.tid, &o->fork.ptid)) < 0)
			return rc;
		return pms_rd_u64(r, "time", &o->fork.time);
	case PMS_RECORD_LOST:
		if ((rc = pms_rd_u64(r, "id", &o->lost.id)) < 0)
			return rc;
		return pms_rd_u64(r, "lost", &o->lost.lost);
	case PMS_RECORD_LOST_SAMPLES:
		return pms_rd_u64(r, "lost", &o->lost.lost);
	case PMS_RECORD_THROTTLE:
	case PMS_RECORD_UNTHROTTLE:
		if ((rc = pms_rd_u64(r, "time", &o->throttle.time)) < 0 ||
		    (rc = pms_rd_u64(r, "id", &o->throttle.id)) < 0)
			return rc;
		return pms_rd_u64(r, "stream_id", &o->throttle.stream_id);
	case PMS_RECORD_AUX:
		if ((rc = pms_rd_u64(r, "aux_offset", &o->aux.aux_offset)) < 0 ||
		    (rc = pms_rd_u64(r, "aux_size", &o->aux.aux_size)) < 0)
			return rc;
		return pms_rd_u64(r, "flags", &o->aux.flags);
	case PMS_RECORD_ITRACE_START:
		return rd_pid_tid(r, &o->itrace);
	case PMS_RECORD_SWITCH:
		return 0;
	case PMS_RECORD_SWITCH_CPU_WIDE:
		return pms_rd_u32x2(r, "next_prev_pid/tid", &o->switch_cpu_wide.pid,
				    &o->switch_cpu_wide.tid);
	case PMS_RECORD_READ:
		if ((rc = pms_rd_u32x2(r, "pid/tid", &o->read.pid, &o->read.tid)) < 0)
			return rc;
		return pms_rd_read_format(r, l->read_format, &o->read.values);
	default:
		o->body = r->p + r->pos;
		o->body_len = r->end - r->pos;
		r->pos = r->end;
		return 0;
	}
}

int pms_record_parse(const struct pms_sample_layout *l, const void *rec, size_t len,
		     struct pms_record *out)
{
	struct pms_rd r;
	uint32_t type;
	uint16_t misc, size;
	int rc;

	if ((rc = pms_rd_open(&r, rec, len, &type, &misc, &size)) < 0) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	if (type == PMS_RECORD_SAMPLE) {
		/* the sample fills the union; only the rest is cleared here */
		out->type = type;
		out->misc = misc;
		out->size = size;
		memset((char *)&out->sample + sizeof(out->sample), 0,
		       sizeof(*out) - offsetof(struct pms_record, sample) - sizeof(out->sample));
		return pms_sample_parse_rd(l, &r, misc, &out->sample);
	}
	memset(out, 0, sizeof(*out));
	out->type = type;
	out->misc = misc;
	out->size = size;

	if (has_trailer(l, type)) {
		size_t ts = trailer_size(l);
		if (l->sample_type & ~PMS_SAMPLE_KNOWN_MASK)
			return pms_err(PMS_ENOTSUP,
				       "%s: sample_type 0x%llx has bits this decoder does not "
				       "know",
				       pms_rd_what(&r), (unsigned long long)l->sample_type);
		if (ts > (size_t)size - 8)
			return pms_err(PMS_EPARSE,
				       "%s: the %zu-byte sample_id trailer does not fit in "
				       "header.size %u",
				       pms_rd_what(&r), ts, size);
		struct pms_rd t = r;
		t.pos = size - ts;
		if ((rc = rd_trailer(l, &t, &out->sample_id)) < 0)
			goto fail;
		r.end = size - ts;
	}
	/* Bytes left between the decoded body and the trailer are tolerated:
	 * newer kernels may append fields, which is why the trailer is
	 * found from the end. */
	if ((rc = rd_body(&r, type, misc, l, out)) < 0)
		goto fail;
	return 0;
fail:
	memset(out, 0, sizeof(*out));
	out->type = type;
	out->misc = misc;
	out->size = size;
	return rc;
}

static int record_write(const struct pms_sample_layout *l, const struct pms_record *r,
			struct pms_wr *w)
{
	int rc;

	pms_wr_header(w, r->type, r->misc);
	switch (r->type) {
	case PMS_RECORD_MMAP:
	case PMS_RECORD_MMAP2:
		wr_mmap(w, r->type, r->misc, &r->mmap);
		break;
	case PMS_RECORD_COMM:
		pms_wr_u32(w, r->comm.pid);
		pms_wr_u32(w, r->comm.tid);
		wr_string(w, r->comm.comm);
		break;
	case PMS_RECORD_FORK:
	case PMS_RECORD_EXIT:
		pms_wr_u32(w, r->fork.pid);
		pms_wr_u32(w, r->fork.ppid);
		pms_wr_u32(w, r->fork.tid);
		pms_wr_u32(w, r->fork.ptid);
		pms_wr_u64(w, r->fork.time);
		break;
	case PMS_RECORD_LOST:
		pms_wr_u64(w, r->lost.id);
		pms_wr_u64(w, r->lost.lost);
		break;
	case PMS_RECORD_LOST_SAMPLES:
		pms_wr_u64(w, r->lost.lost);
		break;
	case PMS_RECORD_THROTTLE:
	case PMS_RECORD_UNTHROTTLE:
		pms_wr_u64(w, r->throttle.time);
		pms_wr_u64(w, r->throttle.id);
		pms_wr_u64(w, r->throttle.stream_id);
		break;
	case PMS_RECORD_AUX:
		pms_wr_u64(w, r->aux.aux_offset);
		pms_wr_u64(w, r->aux.aux_size);
		pms_wr_u64(w, r->aux.flags);
		break;
	case PMS_RECORD_ITRACE_START:
		pms_wr_u32(w, r->itrace.pid);
		pms_wr_u32(w, r->itrace.tid);
		break;
	case PMS_RECORD_SWITCH:
		break;
	case PMS_RECORD_SWITCH_CPU_WIDE:
		pms_wr_u32(w, r->switch_cpu_wide.pid);
		pms_wr_u32(w, r->switch_cpu_wide.tid);
		break;
	case PMS_RECORD_READ:
		pms_wr_u32(w, r->read.pid);
		pms_wr_u32(w, r->read.tid);
		if ((rc = pms_wr_read_format(w, l->read_format, &r->read.values)) < 0)
			return rc;
		break;
	default:
		if (r->body_len && !r->body)
			return pms_err(PMS_EINVAL, "encode %s: body is NULL but body_len is %zu",
				       pms_record_type_name(r->type), r->body_len);
		pms_wr_bytes(w, r->body, r->body_len);
		/* The trailer sits at the end of an 8-byte multiple. */
		pms_wr_zero(w, (8 - (w->pos & 7)) & 7);
		break;
	}
	if (has_trailer(l, r->type)) {
		/* Kernel bodies are u64 multiples, so the trailer starts
		 * aligned; keep that for strings (already padded). */
		pms_wr_zero(w, (8 - (w->pos & 7)) & 7);
		wr_trailer(l, w, &r->sample_id);
	}
	pms_wr_finish(w);
	return 0;
}

int pms_record_encode(const struct pms_sample_layout *l, const struct pms_record *r,
		      void *buf, size_t cap, size_t *len)
{
	struct pms_wr w = {NULL, 0, 0};
	const char *name = pms_record_type_name(r->type);
	int rc;

	*len = 0;
	if (r->type == PMS_RECORD_SAMPLE)
		return pms_sample_encode(l, &r->sample, buf, cap, len);
	if (has_trailer(l, r->type) && (l->sample_type & ~PMS_SAMPLE_KNOWN_MASK))
		return pms_err(PMS_ENOTSUP, "encode %s: sample_type 0x%llx has unknown bits",
			       name, (unsigned long long)l->sample_type);
	if ((rc = record_write(l, r, &w)) < 0)
		return rc;
	*len = w.pos;
	if (w.too_big || w.pos > PMS_RECORD_MAX_SIZE)
		return pms_err(PMS_ERANGE,
			       "encode %s: the record would exceed the %u-byte limit of "
			       "header.size",
			       name, PMS_RECORD_MAX_SIZE);
	if (w.pos > cap || !buf)
		return pms_err(PMS_ERANGE, "encode %s: needs %zu bytes, buffer has %zu", name,
			       w.pos, cap);
	w.p = (unsigned char *)buf;
	w.pos = 0;
	return record_write(l, r, &w);
}

int pms_record_peek_id(const struct pms_sample_layout *l, const void *rec, size_t len,
		       uint64_t *id)
{
	struct pms_rd r;
	uint32_t type;
	uint16_t misc, size;
	uint64_t st = l->sample_type;
	size_t at;
	int rc;

	*id = 0;
	if ((rc = pms_rd_open(&r, rec, len, &type, &misc, &size)) < 0)
		return rc;
	if (type == PMS_RECORD_SAMPLE) {
		/* IDENTIFIER is first; ID follows IP, TID, TIME and ADDR. */
		if (st & PMS_SAMPLE_IDENTIFIER)
			at = 8;
		else if (st & PMS_SAMPLE_ID)
			at = 8 + 8u * (size_t)__builtin_popcountll(
					      st & (PMS_SAMPLE_IP | PMS_SAMPLE_TID |
						    PMS_SAMPLE_TIME | PMS_SAMPLE_ADDR));
		else
			return pms_err(PMS_ENOENT, "SAMPLE: sample_type 0x%llx has no ID or "
						   "IDENTIFIER", (unsigned long long)st);
		if (at + 8 > size)
			return pms_err(PMS_EPARSE, "SAMPLE: id at byte offset %zu is past "
						   "header.size %u", at, size);
	} else if (has_trailer(l, type)) {
		/* IDENTIFIER is last in the trailer; ID precedes STREAM_ID and
		 * CPU. */
		size_t back;
		if (st & PMS_SAMPLE_IDENTIFIER)
			back = 8;
		else if (st & PMS_SAMPLE_ID)
			back = 8 + 8u * (size_t)__builtin_popcountll(
					       st & (PMS_SAMPLE_STREAM_ID | PMS_SAMPLE_CPU));
		else
			return pms_err(PMS_ENOENT, "%s: sample_type 0x%llx has no ID or "
						   "IDENTIFIER", pms_rd_what(&r), (unsigned long long)st);
		if (trailer_size(l) > (size_t)size - 8)
			return pms_err(PMS_EPARSE, "%s: sample_id trailer does not fit in "
						   "header.size %u", pms_rd_what(&r), size);
		at = size - back;
	} else {
		return pms_err(PMS_ENOENT, "%s: records of this type carry no id without "
					   "sample_id_all", pms_rd_what(&r));
	}
	*id = pms_u64_at(r.p, at / 8);
	return 0;
}
