/* Records the reader does not know (issue 32): a type that is neither a
 * kernel record type nor one of perf's own (64..83), as a retyped or
 * corrupt record reads.  perf refuses such a file ("failed to process
 * type: N"); the reader skips the record, counts it by type
 * (stats.unknown_type, stats.bad_records) and says so once per type at the
 * end of the data, with the count and the first offset.  A record of a
 * fixed-size kernel type (LOST, THROTTLE, FORK, ...) whose size is not that
 * type's (a SAMPLE retyped LOST would read as trillions lost) is skipped and
 * said the same way. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope/record.h"
#include "reader_int.h"

/* perf's own record types (tools/lib/perf/include/perf/event.h:
 * PERF_RECORD_HEADER_ATTR = 64 .. PERF_RECORD_COMPRESSED2 = 83). */
#define PD_USER_FIRST 64
#define PD_USER_LAST 83

bool pd_type_known(uint32_t type)
{
	if (type == PMS_RECORD_SAMPLE) /* most records: no name lookup */
		return true;
	if (type >= PD_USER_FIRST)
		return type <= PD_USER_LAST;
	return type != 0 && strcmp(pms_record_type_name(type), "UNKNOWN") != 0;
}

/* The body bytes of a fixed-size kernel record type (before its sample_id
 * trailer; include/uapi/linux/perf_event.h), -1 for a type of variable size. */
static long fixed_body(uint32_t type)
{
	switch (type) {
	case PMS_RECORD_SWITCH: return 0;
	case PMS_RECORD_BPF_EVENT: return 16;      /* type, flags, id, tag[8] */
	case PMS_RECORD_LOST: return 16;           /* id, lost */
	case PMS_RECORD_EXIT:
	case PMS_RECORD_FORK: return 24;           /* pid, ppid, tid, ptid, time */
	case PMS_RECORD_THROTTLE:
	case PMS_RECORD_UNTHROTTLE: return 24;     /* time, id, stream_id */
	case PMS_RECORD_AUX: return 24;            /* offset, size, flags */
	case PMS_RECORD_ITRACE_START: return 8;    /* pid, tid */
	case PMS_RECORD_LOST_SAMPLES: return 8;    /* lost */
	case PMS_RECORD_SWITCH_CPU_WIDE: return 8; /* next/prev pid, tid */
	case PMS_RECORD_AUX_OUTPUT_HW_ID: return 8;
	default: return -1;
	}
}

/* A string after fixed bytes of the body: the kernel and perf pad it with
 * NULs to the next u64 (kernel/events/core.c perf_event_comm_event and
 * perf_event_mmap_event; perf's synthesized COMM and MMAP the same), so
 * the record's size follows from the string's length. */
static bool string_fits(const unsigned char *p, size_t len, size_t fixed, size_t trailer)
{
	if (len < 8 + fixed + trailer)
		return false;
	size_t room = len - 8 - fixed - trailer;
	const unsigned char *s = p + 8 + fixed;
	size_t n = strnlen((const char *)s, room);
	return n < room && ((n + 1 + 7) & ~(size_t)7) == room;
}

bool pd_size_fits(const struct pms_sample_layout *l, uint32_t type, const unsigned char *p,
		  size_t len)
{
	if (type == PMS_RECORD_SAMPLE) /* of variable size (the decoder checks it) */
		return true;
	long body = fixed_body(type);
	size_t trailer = l->sample_id_all
				 ? 8u * (size_t)__builtin_popcountll(l->sample_type &
								    PMS_SAMPLE_ID_ALL_MASK)
				 : 0;
	switch (type) {
	case PMS_RECORD_COMM:
		return string_fits(p, len, 8, trailer);   /* pid, tid, comm */
	case PMS_RECORD_MMAP:
		return string_fits(p, len, 32, trailer);  /* pid, tid, addr, len, pgoff */
	case PMS_RECORD_MMAP2:
		/* pid, tid, addr, len, pgoff, maj/min/ino/ino_gen or build id,
		 * prot, flags, filename */
		return string_fits(p, len, 64, trailer);
	case PMS_RECORD_KSYMBOL:
		return string_fits(p, len, 16, trailer);  /* addr, len, type, flags, name */
	case PMS_RECORD_CGROUP:
		return string_fits(p, len, 8, trailer);   /* id, path */
	case PMS_RECORD_NAMESPACES: {
		/* pid, tid, nr, nr x {dev, ino} */
		uint64_t nr;
		if (len < 8 + 16 + trailer)
			return false;
		memcpy(&nr, p + 16, 8);
		return nr <= (len - 24 - trailer) / 16 && len == 24 + nr * 16 + trailer;
	}
	case PMS_RECORD_CALLCHAIN_DEFERRED: {
		uint64_t nr; /* nr, nr ips */
		if (len < 16 + trailer)
			return false;
		memcpy(&nr, p + 8, 8);
		return nr <= (len - 16 - trailer) / 8 && len == 16 + nr * 8 + trailer;
	}
	case PMS_RECORD_TEXT_POKE: {
		/* addr, old_len, new_len, the bytes padded to a u64 */
		uint16_t ol, nl;
		if (len < 20 + trailer)
			return false;
		memcpy(&ol, p + 16, 2);
		memcpy(&nl, p + 18, 2);
		return len == 16 + (((size_t)4 + ol + nl + 7) & ~(size_t)7) + trailer;
	}
	case PMS_RECORD_READ:
		if (l->read_format & PMS_READ_GROUP)
			return true; /* as many values as the group has */
		/* pid, tid, value and one u64 per read_format field */
		return len == 8 + 16 + 8 * (size_t)__builtin_popcountll(l->read_format & 0x17) +
				      trailer;
	default:
		break;
	}
	if (body < 0)
		return true;
	return len == 8 + (size_t)body + trailer;
}

void pd_unknown_record(struct pms_perfdata_reader *r, uint32_t type, uint64_t off, bool badsize)
{
	size_t i;
	if (!badsize)
		r->stats.unknown_type++;
	r->stats.bad_records++;
	for (i = 0; i < r->nunknown; i++)
		if (r->unknown[i].type == type && r->unknown[i].badsize == badsize)
			break;
	if (i == r->nunknown) {
		if (i == PD_MAX_UNKNOWN) {
			r->unknown_other++; /* said in one sentence after the others */
			return;
		}
		r->unknown[i].type = type;
		r->unknown[i].badsize = badsize;
		r->unknown[i].first_off = off;
		r->nunknown++;
	}
	r->unknown[i].n++;
	r->unknown_said = false;
	snprintf(r->skipmsg, sizeof(r->skipmsg), "record %s (type %" PRIu32 ") at offset %" PRIu64
		 " skipped: %s", pms_record_type_name(type), type, off,
		 badsize ? "its size is not that type's" : "unknown type");
}
