/* The preload's reads of /proc/self/maps (src/alloc/preload/preload.c):
 * the mapping that holds a raw thread's stack, and the stack mappings of
 * threads that share their creator's TLS, noted by tid. */
#undef _FILE_OFFSET_BITS
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload_int.h"

/* The mapping that holds address sp, from /proc/self/maps (read with
 * system calls into a small buffer on the stack: no allocation, no lock):
 * [lo, hi), and whether it is an anonymous mapping with no name.  Used only
 * off the paths of glibc's own threads (a raw clone's stack), once per
 * thread, or per record of a thread that shares its creator's TLS. */
bool stack_vma(uintptr_t sp, uintptr_t *lo, uintptr_t *hi, bool *anon)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[512];
	int field = 0; /* start, end, perms, offset, dev, inode, name */
	uintptr_t a = 0, e = 0;
	uint64_t ino = 0;
	bool named = false, found = false;
	for (;;) {
		long n = syscall(SYS_read, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long i = 0; i < n; i++) {
			char c = buf[i];
			unsigned v = c >= 'a' ? (unsigned)(c - 'a' + 10) : (unsigned)(c - '0');
			if (c == '\n') {
				if (field >= 5 && sp >= a && sp < e) {
					*lo = a;
					*hi = e;
					*anon = !ino && !named;
					found = true;
					goto out;
				}
				field = 0;
				a = e = 0;
				ino = 0;
				named = false;
			} else if (field == 0) {
				if (c == '-')
					field = 1;
				else
					a = a * 16 + v;
			} else if (field == 1) {
				if (c == ' ')
					field = 2;
				else
					e = e * 16 + v;
			} else if (field < 5) {
				field += c == ' ';
			} else if (field == 5) {
				if (c == ' ')
					field = 6;
				else
					ino = ino * 10 + v;
			} else if (c != ' ') {
				named = true;
			}
		}
	}
out:
	syscall(SYS_close, fd);
	return found;
}

/* The top of the stack mapping of a thread that shares another's TLS
 * (who()), read from /proc/self/maps once per thread: noted here by tid
 * (these threads have no state of their own to keep it in) and used again
 * while the thread's stack pointer lies in the mapping noted. */
#define SHARED_STACKS 16
#define SHARED_BUSY UINT32_MAX
static struct shared_stack {
	_Atomic uint32_t tid; /* 0: free; SHARED_BUSY: being written */
	_Atomic uintptr_t lo, hi;
} shared_stacks[SHARED_STACKS];
static atomic_uint shared_next;

uintptr_t shared_stack_hi(uint32_t tid, uintptr_t sp)
{
	for (size_t i = 0; i < SHARED_STACKS; i++) {
		struct shared_stack *e = &shared_stacks[i];
		if (atomic_load_explicit(&e->tid, memory_order_acquire) != tid)
			continue;
		uintptr_t lo = atomic_load_explicit(&e->lo, memory_order_relaxed);
		uintptr_t hi = atomic_load_explicit(&e->hi, memory_order_relaxed);
		if (atomic_load_explicit(&e->tid, memory_order_acquire) == tid && sp - lo < hi - lo)
			return hi;
	}
	uintptr_t lo = 0, hi = 0;
	bool anon;
	if (!stack_vma(sp, &lo, &hi, &anon))
		return 0;
	/* noted in the next entry, unless another thread writes it now */
	struct shared_stack *e = &shared_stacks[atomic_fetch_add(&shared_next, 1) % SHARED_STACKS];
	uint32_t old = atomic_load(&e->tid);
	if (old != SHARED_BUSY && atomic_compare_exchange_strong(&e->tid, &old, SHARED_BUSY)) {
		atomic_store_explicit(&e->lo, lo, memory_order_relaxed);
		atomic_store_explicit(&e->hi, hi, memory_order_relaxed);
		atomic_store_explicit(&e->tid, tid, memory_order_release);
	}
	return hi;
}
