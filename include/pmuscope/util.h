/* Small helpers every front end shares: a child's wait status as the exit
 * code a shell would give.
 *
 * Ownership: nothing here allocates.
 */
#ifndef PMUSCOPE_UTIL_H
#define PMUSCOPE_UTIL_H

#include <stddef.h>

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

PMS_API_END
#ifdef __cplusplus
}
#endif

#endif
