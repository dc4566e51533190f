/* A wait status -> a shell's exit code (include/pmuscope/util.h). */
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
