/* Workload, not a test: its TLS samples are judged by tests/alloc/check_threads.py. */
/* A module alloc_threads_prog loads with dlopen: its TLS block is a
 * late-loaded module's (glibc allocates it per thread at the thread's first
 * access, from the loader), named by the preload as this module's TLS. */
#include <stddef.h>

#define MOD_BUF (192 << 10)

static __thread char mod_buf[MOD_BUF];

char *alloc_tls_mod_buf(size_t *n);

char *alloc_tls_mod_buf(size_t *n)
{
	*n = sizeof(mod_buf);
	return mod_buf;
}
