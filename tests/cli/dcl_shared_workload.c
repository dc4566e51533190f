/* Workload, not a test: its page faults are judged by tests/cli/report_sort.sh
 * (report -s dcacheline against perf's rows).  A file mapped MAP_SHARED and
 * written by two child processes (perf's [s] level, one row per line for
 * both), and anonymous memory each child writes at the same address (one
 * row per process). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEN (16 * 4096)

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, LEN) < 0)
		return 1;
	volatile char *sh = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	volatile char *an = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
	if (sh == MAP_FAILED || an == MAP_FAILED)
		return 1;
	for (int k = 0; k < 2; k++) { /* the same lines in both */
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			for (int i = 0; i < LEN; i += 4096) {
				sh[i] = 1;
				an[i] = 1;
			}
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
	close(fd);
	return 0;
}
