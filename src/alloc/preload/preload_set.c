/* The tracked-pointer set's storage and its mapping: preload_set.h. */
#include "preload_set.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

unsigned pl_set_bits = 22;
_Atomic uintptr_t *pl_set;
_Atomic uintptr_t *pl_near;
atomic_bool pl_far_used;
_Atomic uint8_t pl_filter[FILTER_SLOTS];

bool pl_set_map(uint64_t rate)
{
	pl_set_bits = rate ? 20 : 22;
	size_t near = ((size_t)1 << PRI_BITS) * sizeof(uintptr_t);
	size_t len = near + SET_SLOTS * sizeof(uintptr_t);
	void *m = (void *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return false;
	/* huge pages where the system gives them on request: the far table
	 * is probed at random, and a 4 KiB page per probe costs a fault and a
	 * TLB miss each (on this VM about 30 % of the bench's tracked cost) */
	syscall(SYS_madvise, m, len, MADV_HUGEPAGE);
	pl_near = m;
	pl_set = (_Atomic uintptr_t *)((char *)m + near);
	return true;
}
