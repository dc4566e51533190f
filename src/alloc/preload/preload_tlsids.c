/* Which modules' TLS blocks each thread recorded (src/alloc/preload/
 * preload.c: tls_one, raw_blocks), by module id: a bit per id, and per late
 * id a fingerprint of the module instance recorded.  Thread-local, in
 * pages mapped for the thread past id 255 (no allocation in a hook).
 * And a late module's static TLS block (static_block). */
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload_int.h"

static __thread uint64_t tl_tls_seen[4]; /* module ids < 256 recorded */
/* ... and ids from 256 on (modules dlopen'ed past the first 255 with TLS:
 * glibc's ids have no such bound), bit id - 256, in pages mapped for the
 * thread at its first such id (no allocation in a hook), grown by mremap,
 * unmapped at its end */
static __thread uint64_t *tl_tls_more;
static __thread size_t tl_tls_more_len; /* bytes mapped */

/* Whether module id's TLS block of this thread was recorded; mark: note it
 * (false: not noted, no memory for the set). */
bool tls_seen(size_t id, bool mark)
{
	if (id < 256) {
		bool was = tl_tls_seen[id / 64] >> (id % 64) & 1;
		if (mark)
			tl_tls_seen[id / 64] |= 1ull << (id % 64);
		return mark || was;
	}
	size_t bit = id - 256, need = (bit / 64 + 1) * 8;
	if (need > tl_tls_more_len) {
		if (!mark)
			return false;
		size_t len = (need + 4095) & ~(size_t)4095;
		long r = tl_tls_more
				 ? syscall(SYS_mremap, tl_tls_more, tl_tls_more_len, len, MREMAP_MAYMOVE)
				 : syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, (off_t)0);
		if (sys_failed(r))
			return false;
		tl_tls_more = (uint64_t *)r;
		tl_tls_more_len = len;
	}
	bool was = tl_tls_more[bit / 64] >> (bit % 64) & 1;
	if (mark)
		tl_tls_more[bit / 64] |= 1ull << (bit % 64);
	return mark || was;
}

/* Which module instance's block this thread recorded under each late id:
 * a fingerprint of its block, its first byte and its name (0: none), in
 * pages mapped for the thread at its first late block, grown by mremap,
 * unmapped at its end (tls_fp_slot). */
static __thread uint64_t *tl_tls_fp;
static __thread size_t tl_tls_fp_len; /* bytes mapped */

void tls_more_free(void)
{
	if (tl_tls_more)
		syscall(SYS_munmap, tl_tls_more, tl_tls_more_len);
	if (tl_tls_fp)
		syscall(SYS_munmap, tl_tls_fp, tl_tls_fp_len);
	tl_tls_more = tl_tls_fp = NULL;
	tl_tls_more_len = tl_tls_fp_len = 0;
}

/* id's fingerprint slot (NULL: no memory for it). */
uint64_t *tls_fp_slot(size_t id)
{
	size_t need = (id + 1) * 8;
	if (need > tl_tls_fp_len) {
		size_t len = (need + 4095) & ~(size_t)4095;
		long r = tl_tls_fp ? syscall(SYS_mremap, tl_tls_fp, tl_tls_fp_len, len, MREMAP_MAYMOVE)
				   : syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, (off_t)0);
		if (sys_failed(r))
			return NULL;
		tl_tls_fp = (uint64_t *)r;
		tl_tls_fp_len = len;
	}
	return &tl_tls_fp[id];
}

/* Module id's TLS block of this thread no longer noted. */
void tls_unsee(size_t id)
{
	if (id < 256)
		tl_tls_seen[id / 64] &= ~(1ull << (id % 64));
	else if ((id - 256) / 64 * 8 < tl_tls_more_len)
		tl_tls_more[(id - 256) / 64] &= ~(1ull << ((id - 256) % 64));
}

void tls_ids_reset(void)
{
	memset(tl_tls_seen, 0, sizeof(tl_tls_seen));
	tl_tls_more = tl_tls_fp = NULL;
	tl_tls_more_len = tl_tls_fp_len = 0;
}

/* Whether the module asks for static TLS (DT_FLAGS' DF_STATIC_TLS: its
 * code uses initial-exec TLS; glibc then gives its block a place in the
 * static area, in every thread, at dlopen). */
static bool mod_static_tls(const struct dl_phdr_info *info)
{
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr +
							       info->dlpi_phdr[i].p_vaddr);
		     d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_FLAGS)
				return (d->d_un.d_val & DF_STATIC_TLS) != 0;
	}
	return false;
}

#if defined(__x86_64__)
struct tls_ix {
	unsigned long module, offset;
};
extern void *__tls_get_addr(struct tls_ix *ti);
#endif

/* This thread's block of a module with static TLS loaded since its dtv
 * was last brought up to date (dl_iterate_phdr then gives none: it reads
 * the dtv, which only the loader's __tls_get_addr updates, and code with
 * initial-exec TLS never calls it): asked of __tls_get_addr, which for a
 * block in the static area allocates none (its place is known) and brings
 * the dtv up to date as the thread's next dynamic TLS access would. */
void *static_block(const struct dl_phdr_info *info, size_t id)
{
#if defined(__x86_64__)
	if (!id || !mod_static_tls(info))
		return NULL;
	struct tls_ix ti = { id, 0 };
	return __tls_get_addr(&ti);
#else
	(void)info;
	(void)id;
	return NULL;
#endif
}
