/* Small helpers every front end shares: a child's wait status as the exit
 * code a shell would give.
 *
 * Ownership: nothing here allocates.
 */
#ifndef PMUSCOPE_UTIL_H
#define PMUSCOPE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* A wait status (waitpid's *wstatus) as a shell's exit code: the code the
 * process gave exit() when it exited, 128 + N when signal N ended it.  A
 * status that is neither (a stop or continue report, which waitpid gives
 * only with WUNTRACED or WCONTINUED) returns -1. */
int pms_exit_code(int wait_status);

/* The same status in words for a front end's message, written into buf
 * (always terminated): "exited with status 3", "was killed by SIGSEGV
 * (signal 11), core dumped", "" for a stop report.  Returns
 * pms_exit_code(wait_status). */
int pms_exit_describe(int wait_status, char *buf, size_t size);

/* bytes for people into buf: "512 bytes", "4 KiB", "1.5 GiB" (binary
 * units, one decimal unless whole).  Returns buf. */
const char *pms_human_size(uint64_t bytes, char *buf, size_t size);
/* A size as people write it: a number (0x ok) with an optional K, M or G
 * (binary) and i/iB/B after it, at most 1 TiB: 0, or -1. */
int pms_parse_size(const char *s, size_t *out);
/* perf record -m's ring size: a power-of-two page count, or a size
 * (pms_parse_size) rounded up to one: 0, -1 a bad size, -2 a bad count. */
int pms_parse_mmap_pages(const char *s, size_t page_size, size_t *pages);
/* A list of bit numbers 0-63 ("0,3,8-11") as a mask: 0, or -1 (none or
 * one above 63). */
int pms_parse_bit_list(const char *s, uint64_t *mask);

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
