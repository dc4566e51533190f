/* The machine facts read in one place (sys.h): pms_sys_perf_paranoid and
 * pms_host_facts_read, on a written root and on this machine (where they
 * must agree with uname()). */
#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/sys", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/%s", root, rel);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static struct pms_sys *open_root(void)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = root;
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

static void rm(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/%s", root, rel);
	unlink(path);
}

static void cleanup(void)
{
	static const char *const dirs[] = { "/proc/sys/kernel", "/proc/sys", "/proc", "" };
	char path[512];
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		rmdir(path);
	}
}

PMS_TEST(paranoid_from_the_file)
{
	int level = 99;
	snprintf(root, sizeof(root), "/tmp/pms_facts_XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	struct pms_sys *sys = open_root();
	CHECK(pms_sys_perf_paranoid(sys, &level) < 0); /* no file */
	CHECK(strstr(pms_error_last(), "perf_event_paranoid") != NULL);
	CHECK_EQ_INT(level, 99);
	put("perf_event_paranoid", "2\n");
	CHECK_OK(pms_sys_perf_paranoid(sys, &level));
	CHECK_EQ_INT(level, 2);
	put("perf_event_paranoid", "-1\n");
	CHECK_OK(pms_sys_perf_paranoid(sys, &level));
	CHECK_EQ_INT(level, -1);
	put("perf_event_paranoid", "many\n");
	CHECK_EQ_INT(pms_sys_perf_paranoid(sys, &level), PMS_EPARSE);
	CHECK_EQ_INT(level, -1);
	CHECK_EQ_INT(pms_sys_perf_paranoid(NULL, &level), PMS_EINVAL);
	rm("perf_event_paranoid");
	pms_sys_free(sys);
	cleanup();
}

PMS_TEST(host_facts_from_the_files)
{
	struct pms_host_facts h;
	snprintf(root, sizeof(root), "/tmp/pms_facts_XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	struct pms_sys *sys = open_root();
	CHECK_OK(pms_host_facts_read(sys, &h));
	CHECK(!h.has_hostname && !h.has_osrelease && !h.has_arch);
	CHECK_EQ_STR(h.hostname, "");
	put("hostname", "bench-7\nsecond line\n");
	put("osrelease", "6.12.0-test\n");
	CHECK_OK(pms_host_facts_read(sys, &h));
	CHECK(h.has_hostname && h.has_osrelease && !h.has_arch);
	CHECK_EQ_STR(h.hostname, "bench-7");
	CHECK_EQ_STR(h.osrelease, "6.12.0-test");
	CHECK_EQ_STR(pms_error_last(), ""); /* a missing fact is no error */
	put("arch", "aarch64\n");
	CHECK_OK(pms_host_facts_read(sys, &h));
	CHECK(h.has_arch);
	CHECK_EQ_STR(h.arch, "aarch64");
	CHECK_EQ_INT(pms_host_facts_read(NULL, &h), PMS_EINVAL);
	rm("hostname");
	rm("osrelease");
	rm("arch");
	pms_sys_free(sys);
	cleanup();
}

PMS_TEST(live_facts_are_unames)
{
	struct pms_sys *sys = NULL;
	struct pms_host_facts h;
	struct utsname u;
	int level;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK(uname(&u) == 0);
	CHECK_OK(pms_host_facts_read(sys, &h));
	if (h.has_hostname)
		CHECK_EQ_STR(h.hostname, u.nodename);
	if (h.has_osrelease)
		CHECK_EQ_STR(h.osrelease, u.release);
	if (h.has_arch)
		CHECK_EQ_STR(h.arch, u.machine);
	if (pms_sys_perf_paranoid(sys, &level) == 0)
		CHECK(level >= -1 && level <= 4);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
