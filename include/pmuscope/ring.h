/* The perf ring buffer of one event fd: mmap, drain, and (for SPE/PT) the
 * AUX area.
 *
 * The kernel writes records at data_head; pmuscope reads from data_tail and
 * publishes the new tail after it has consumed them (kernel-abi-facts.md
 * §1.3: read data_head then rmb; mb then store data_tail).  A record that
 * straddles the end of the ring is copied into a scratch buffer so callbacks
 * always see one contiguous record.
 *
 * Ownership: pms_ring_open() gives the caller a ring released with
 * pms_ring_free() (which unmaps but does not close the fd: the fd belongs to
 * the caller).  Record pointers passed to callbacks are borrowed and valid
 * only during the callback.
 */
#ifndef PMUSCOPE_RING_H
#define PMUSCOPE_RING_H

#include <stddef.h>
#include <stdint.h>

#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct pms_ring;

/* Map 1 + data_pages pages of fd (data_pages must be a power of two, >= 1). */
int pms_ring_open(struct pms_sys *sys, int fd, size_t data_pages, struct pms_ring **out);
void pms_ring_free(struct pms_ring *ring);

/* Called once per record; return 0 to go on, a negative PMS_E* to stop
 * (the record is then not consumed and the code is returned). */
typedef int (*pms_ring_cb)(void *ud, const void *record, size_t len);

/* Deliver every record between tail and head, then publish the new tail.
 * Returns the number of records delivered, or a negative code: PMS_EPARSE
 * when the ring holds a record whose header is impossible (size < 8, not a
 * multiple of 8, or larger than the ring); the ring is then skipped to head
 * and the bytes dropped are counted in pms_ring_stats. */
int pms_ring_drain(struct pms_ring *ring, pms_ring_cb cb, void *ud);

/* Copy the whole records between tail and head into dst (at most cap bytes;
 * each record contiguous there even where it wrapped in the ring), then
 * publish the new tail, so that the kernel may reuse the space before the
 * records are looked at (perf record's way: copy first, work after).  *len
 * gets the bytes copied.  Returns the number of records copied (0 when the
 * first one does not fit in cap), or PMS_EPARSE as pms_ring_drain: the good
 * records before the impossible header are still copied (*len says how
 * many bytes), the rest is skipped to head and counted. */
int pms_ring_copy(struct pms_ring *ring, void *dst, size_t cap, size_t *len);

/* Bytes written by the kernel and not yet consumed. */
uint64_t pms_ring_pending(const struct pms_ring *ring);

struct pms_ring_stats {
	uint64_t records;       /* delivered */
	uint64_t bytes;         /* consumed */
	uint64_t wrapped;       /* records that straddled the end of the ring */
	uint64_t corrupt_bytes; /* skipped after an impossible header */
	uint64_t aux_bytes;     /* AUX bytes handed out */
	uint64_t aux_wrapped;   /* AUX ranges that straddled the end of the area */
	uint64_t aux_overrun;   /* AUX bytes the kernel overwrote before we read them */
};
void pms_ring_stats(const struct pms_ring *ring, struct pms_ring_stats *out);

/* The mmap'd control page (struct perf_event_mmap_page), for self-monitoring
 * reads and AUX set-up. */
void *pms_ring_user_page(const struct pms_ring *ring);
size_t pms_ring_data_size(const struct pms_ring *ring);

/* ---- AUX area (SPE, PT) ----------------------------------------------------
 * pms_ring_aux_open() writes aux_offset (just past the data area) and aux_size
 * into the user page and maps aux_pages pages there (a power of two, >= 2 for
 * SPE: drivers/perf/arm_spe_pmu.c arm_spe_pmu_setup_aux), read-write so the
 * kernel runs in non-overwrite mode and honours aux_tail
 * (kernel/events/ring_buffer.c rb_alloc_aux: overwrite = !VM_WRITE). */
int pms_ring_aux_open(struct pms_ring *ring, size_t aux_pages);
size_t pms_ring_aux_size(const struct pms_ring *ring);
/* AUX bytes between aux_tail and aux_head (aux_head read with acquire). */
uint64_t pms_ring_aux_pending(const struct pms_ring *ring);

/* Called with one contiguous AUX byte range; offset is its position in the
 * AUX stream (monotonic, like aux_head).  Return 0 or a negative PMS_E*. */
typedef int (*pms_ring_aux_cb)(void *ud, const void *data, size_t len, uint64_t offset);

/* Hand out the AUX bytes [offset, offset + size) named by a PERF_RECORD_AUX
 * as one contiguous range (copied when they straddle the end of the area),
 * then publish aux_tail = offset + size with release semantics.  Bytes the
 * kernel has already overwritten (offset + aux_size < aux_head) are not handed
 * out: the range is cut to what is still intact, the rest counted in
 * aux_overrun.  PMS_ERANGE when the range lies beyond aux_head;
 * PMS_EINVAL without an AUX area.  The tail moves even when cb fails (the
 * bytes were handed out), and cb's code is returned. */
int pms_ring_aux_read(struct pms_ring *ring, uint64_t offset, uint64_t size,
		      pms_ring_aux_cb cb, void *ud);

/* Hand out everything between aux_tail and aux_head as one range (copied
 * when it wraps), then publish aux_tail. */
int pms_ring_aux_drain(struct pms_ring *ring, pms_ring_aux_cb cb, void *ud);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
