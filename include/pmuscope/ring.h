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

#ifdef __cplusplus
extern "C" {
#endif

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

/* Bytes written by the kernel and not yet consumed. */
uint64_t pms_ring_pending(const struct pms_ring *ring);

struct pms_ring_stats {
	uint64_t records;       /* delivered */
	uint64_t bytes;         /* consumed */
	uint64_t wrapped;       /* records that straddled the end of the ring */
	uint64_t corrupt_bytes; /* skipped after an impossible header */
};
void pms_ring_stats(const struct pms_ring *ring, struct pms_ring_stats *out);

/* The mmap'd control page (struct perf_event_mmap_page), for self-monitoring
 * reads and AUX set-up. */
void *pms_ring_user_page(const struct pms_ring *ring);
size_t pms_ring_data_size(const struct pms_ring *ring);

#ifdef __cplusplus
}
#endif
#endif
