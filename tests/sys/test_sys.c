#include "check.h"
#include "fake_kernel.h"
#include "pmuscope/error.h"
#include "pmuscope/sys.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpl[64];

static void write_file(const char *rel, const char *text)
{
	char path[512], dir[512];
	snprintf(path, sizeof(path), "%s/%s", tmpl, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(tmpl) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

PMS_TEST(root_fd_reads_only_below_root)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	char *s = NULL;
	uint64_t v = 0;
	char **names = NULL;
	size_t n = 0;

	snprintf(tmpl, sizeof(tmpl), "/tmp/pms_sys_XXXXXX");
	CHECK(mkdtemp(tmpl) != NULL);
	write_file("sys/bus/event_source/devices/cpu/type", "4\n");
	write_file("sys/bus/event_source/devices/cpu10/type", "0x10\n");
	write_file("sys/bus/event_source/devices/cpu2/type", "-3\n");
	o.root = tmpl;
	CHECK_OK(pms_sys_new(&sys, &o));
	CHECK(!pms_sys_is_live(sys));
	/* the root's directory fd, the one the seam opens files below */
	struct stat rst;
	CHECK(pms_sys_root_fd(sys) >= 0 && fstat(pms_sys_root_fd(sys), &rst) == 0 &&
	      S_ISDIR(rst.st_mode));
	CHECK_OK(pms_sys_read_u64(sys, "/sys/bus/event_source/devices/cpu/type", &v));
	CHECK_EQ_U64(v, 4);
	CHECK_OK(pms_sys_read_u64(sys, "sys/bus/event_source/devices/cpu10/type", &v));
	CHECK_EQ_U64(v, 16);
	CHECK_EQ_INT(pms_sys_read_u64(sys, "sys/bus/event_source/devices/cpu2/type", &v),
		     PMS_EPARSE);
	CHECK(strstr(pms_error_last(), "cpu2/type") != NULL);
	CHECK_OK(pms_sys_read_line(sys, "sys/bus/event_source/devices/cpu/type", &s));
	CHECK_EQ_STR(s, "4");
	free(s);
	CHECK_EQ_INT(pms_sys_read_file(sys, "sys/nope", &s, NULL), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "sys/nope") != NULL);
	CHECK_EQ_INT(pms_error_errno(), ENOENT);
	CHECK(pms_sys_exists(sys, "sys/bus"));
	CHECK(!pms_sys_exists(sys, "proc"));
	CHECK_OK(pms_sys_list_dir(sys, "sys/bus/event_source/devices", &names, &n));
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK_EQ_STR(names[0], "cpu");
		CHECK_EQ_STR(names[1], "cpu2");
		CHECK_EQ_STR(names[2], "cpu10");
	}
	pms_sys_names_free(names, n);
	pms_sys_free(sys);
}

PMS_TEST(default_is_live)
{
	struct pms_sys *sys = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK(pms_sys_is_live(sys));
	CHECK(pms_sys_ops(sys)->perf_event_open == pms_sys_real_ops()->perf_event_open);
	CHECK_EQ_STR(pms_sys_root(sys), "/");
	pms_sys_free(sys);
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = "/definitely/not/here";
	CHECK_EQ_INT(pms_sys_new(&sys, &o), PMS_ENOENT);
	CHECK(sys == NULL);
	CHECK(strstr(pms_error_last(), "/definitely/not/here") != NULL);
	o.root = NULL;
	o.version = 99;
	CHECK_EQ_INT(pms_sys_new(&sys, &o), PMS_EINVAL);
}

static int refuse_cycles(struct fk *fk, const struct perf_event_attr *attr, pid_t pid,
			 int cpu, int group_fd, unsigned long flags)
{
	/* A VM without a virtual PMU: hardware events are ENOENT
	 * (arch/x86/events/core.c x86_pmu_event_init with no x86_pmu). */
	return attr->type == PERF_TYPE_HARDWARE ? -ENOENT : 0;
}

PMS_TEST(fake_ops_route_through_seam)
{
	struct fk *fk = fk_new();
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	struct perf_event_attr a = { 0 };
	o.ops = fk_ops(fk);
	fk->rule = refuse_cycles;
	CHECK_OK(pms_sys_new(&sys, &o));
	CHECK(!pms_sys_is_live(sys));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	CHECK_EQ_INT(pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "cycles"), PMS_ENOENT);
	CHECK(strstr(pms_error_last(), "perf_event_open(cycles") != NULL);
	a.type = PERF_TYPE_SOFTWARE;
	int fd = pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "task-clock");
	CHECK(fd >= FK_FD_BASE);
	CHECK_EQ_INT(fk->nopen, 1);
	CHECK_EQ_INT(pms_sys_perf_event_open(sys, &a, -1, -1, -1, 0, "x"), PMS_EINVAL);
	CHECK_OK(pms_sys_close(sys, fd));
	CHECK_EQ_INT(fk->nopen, 0);
	CHECK_EQ_INT(pms_sys_close(sys, fd), PMS_ESYS);
	CHECK_EQ_INT(fk->nlog, 3);
	pms_sys_free(sys);
	fk_free(fk);
}

PMS_TEST(real_syscalls_on_software_events)
{
	struct pms_sys *sys = NULL;
	struct perf_event_attr a = { 0 };
	uint64_t count = 0;
	CHECK_OK(pms_sys_new(&sys, NULL));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = pms_sys_perf_event_open(sys, &a, 0, -1, -1, 0, "task-clock");
	if (fd < 0) {
		pms_sys_free(sys);
		PMS_SKIP("perf_event_open(task-clock) refused here: %s", pms_error_last());
	}
	volatile unsigned x = 0;
	for (unsigned i = 0; i < 1000000; i++)
		x += i;
	CHECK(x != 0);
	const struct pms_sys_ops *ops = pms_sys_ops(sys);
	CHECK_EQ_INT(ops->read(ops->ud, fd, &count, sizeof(count)), 8);
	CHECK(count > 0);
	CHECK_OK(pms_sys_close(sys, fd));
	pms_sys_free(sys);
}

/* pms_sys_write_file stays below the root: "..", an absolute escape and a
 * symlink out of the root are refused, and nothing outside changes. */
PMS_TEST(write_file_stays_below_root)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	char outside[64], link[600], victim[600], *s = NULL;

	snprintf(tmpl, sizeof(tmpl), "/tmp/pms_sysw_XXXXXX");
	snprintf(outside, sizeof(outside), "/tmp/pms_sysw_out_XXXXXX");
	CHECK(mkdtemp(tmpl) != NULL);
	CHECK(mkdtemp(outside) != NULL);
	write_file("sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "0\n");
	snprintf(victim, sizeof(victim), "%s/nr_kdamonds", outside);
	FILE *f = fopen(victim, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("7\n", f);
		fclose(f);
	}
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/damon/admin/escape", tmpl);
	CHECK(symlink(outside, link) == 0);
	o.root = tmpl;
	CHECK_OK(pms_sys_new(&sys, &o));
	CHECK_OK(pms_sys_write_file(sys, "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "1"));
	CHECK_OK(pms_sys_read_line(sys, "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", &s));
	CHECK_EQ_STR(s, "1");
	free(s);
	CHECK_EQ_INT(pms_sys_write_file(sys, "sys/../../../tmp/x", "1"), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "below") != NULL);
	CHECK(pms_sys_write_file(sys, "sys/kernel/mm/damon/admin/escape/nr_kdamonds", "1") < 0);
	CHECK(pms_sys_write_file(sys, "sys/kernel/mm/damon/admin/kdamonds/missing", "1") < 0);
	CHECK(strstr(pms_error_last(), "missing") != NULL);
	f = fopen(victim, "r");
	char buf[8] = { 0 };
	CHECK(f && fgets(buf, sizeof(buf), f));
	if (f)
		fclose(f);
	CHECK_EQ_STR(buf, "7\n");
	pms_sys_free(sys);
	unlink(victim);
	unlink(link);
	rmdir(outside);
}

PMS_TEST_MAIN()
