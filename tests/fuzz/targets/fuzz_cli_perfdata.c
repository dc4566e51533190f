/* libFuzzer target for the CLI's file paths: the input is a perf.data file
 * that `pmuscope report` (text, --json and --fetch) and `pmuscope script`
 * (samples and --header) read, through the real command code (tools/, with
 * main() renamed pms_cli_main by the build).  This reaches what the library
 * target does not: the report builder fed from a file, the NUMA_TOPOLOGY
 * cpu lists, the renderers.  Bad input must end in an exit status, never a
 * crash, hang or leak.  Run with -close_fd_mask=3 to keep the commands'
 * output out of the fuzzer's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int pms_cli_main(int argc, char **argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("perf.data", MFD_CLOEXEC);
		if (fd < 0)
			return 0;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return 0;
	{
		/* --no-symbols: names come from this machine, not the input */
		char *a[] = { "pmuscope", "report", "--no-symbols", "-i", path, NULL };
		char *b[] = { "pmuscope", "report", "--no-symbols", "--json", "--samples", "-i", path, NULL };
		char *c[] = { "pmuscope", "script", "-i", path, NULL };
		char *d[] = { "pmuscope", "script", "--header", "-i", path, NULL };
		/* the IBS fetch view's own read (file and pipe mode) */
		char *e[] = { "pmuscope", "report", "--fetch", "-i", path, NULL };
		pms_cli_main(5, a);
		pms_cli_main(7, b);
		pms_cli_main(4, c);
		pms_cli_main(5, d);
		pms_cli_main(5, e);
	}
	fflush(stdout);
	return 0;
}
