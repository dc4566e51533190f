/* Workload, not a test: its TLS block is judged by tests/alloc/check_raw.py (rawie). */
/* A module alloc_raw_prog loads with dlopen whose TLS is initial-exec:
 * glibc places its block in the static TLS area's surplus, at one offset
 * from every thread's pointer, so a thread reaches it without a dtv (a raw
 * clone's thread that has none) and touching it allocates nothing. */
#include <stddef.h>

static __thread char ie_buf[256] __attribute__((tls_model("initial-exec")));

char *alloc_tls_ie_buf(size_t *n);

char *alloc_tls_ie_buf(size_t *n)
{
	*n = sizeof(ie_buf);
	return ie_buf;
}
