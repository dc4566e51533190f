/* Test-only helpers: a scratch directory and running the real `perf` tool on
 * files the tests wrote.  perf runs with HOME set to the scratch directory,
 * PERF_CONFIG=/dev/null and no DEBUGINFOD_URLS, so no user configuration,
 * ~/.debug cache or network lookup changes what it prints. */
#ifndef PMS_TESTS_PERFDATA_PERF_TOOL_H
#define PMS_TESTS_PERFDATA_PERF_TOOL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* mkdtemp under $TMPDIR (or /tmp) into buf; NULL on failure. */
static inline char *pt_mkdtemp(char *buf, size_t size)
{
	const char *t = getenv("TMPDIR");
	snprintf(buf, size, "%s/pms-perfdata-XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(buf);
}

/* Remove the files directly inside dir, then dir. */
static inline void pt_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4096];
	if (d) {
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Point perf at a clean environment (see top of file). */
static inline void pt_perf_env(const char *home)
{
	setenv("HOME", home, 1);
	setenv("PERF_CONFIG", "/dev/null", 1);
	unsetenv("DEBUGINFOD_URLS");
	setenv("LC_ALL", "C", 1);
}

/* The first line of `perf --version` into ver, or 0 if perf cannot run. */
static inline int pt_perf_version(char *ver, size_t size)
{
	FILE *p = popen("perf --version 2>/dev/null", "r");
	int ok = 0;
	if (!p)
		return 0;
	if (fgets(ver, (int)size, p)) {
		ver[strcspn(ver, "\n")] = '\0';
		ok = strncmp(ver, "perf version", 12) == 0;
	}
	if (pclose(p) != 0)
		ok = 0;
	return ok;
}

/* Exit status of a shell command (-1 if it did not exit normally). */
static inline int pt_status(int st)
{
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define PT_SKIP_MSG                                                                 \
	"perf is not installed or does not run; install linux-perf from "          \
	"bookworm-backports (perf 6.12) to run this differential test"

#endif
