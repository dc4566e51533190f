/* A wait status -> a shell's exit code (include/pmuscope/util.h). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "pmuscope/util.h"

int pms_exit_code(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return -1;
}

int pms_exit_describe(int wait_status, char *buf, size_t size)
{
	if (!buf || !size)
		return pms_exit_code(wait_status);
	buf[0] = 0;
	if (WIFEXITED(wait_status)) {
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(wait_status));
	} else if (WIFSIGNALED(wait_status)) {
		int sig = WTERMSIG(wait_status);
		const char *abbrev = sigabbrev_np(sig);
		snprintf(buf, size, "was killed by SIG%s (signal %d)%s", abbrev ? abbrev : "?", sig,
			 WCOREDUMP(wait_status) ? ", core dumped" : "");
	}
	return pms_exit_code(wait_status);
}
