/* A live system-wide profile names each process's code from its own
 * mappings (per-process function rows: functions_per_pid): two processes with different programs at the same
 * address each get their own program's function and module, the same
 * answer a symbolizer of that program alone gives (one shared mapping set
 * named both from whichever program was mapped last).  An exec drops a
 * process's mappings. */
#include "check.h"

#include "pmuscope/error.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"
#include "pmuscope/symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE 0x555555554000ULL

static const char *built(const char *rel, char *buf, size_t n, uint64_t *size)
{
	const char *b = pms_t_build_dir();
	struct stat st;
	if (!b)
		return NULL;
	snprintf(buf, n, "%s/%s", b, rel);
	if (stat(buf, &st) < 0)
		return NULL;
	*size = (uint64_t)st.st_size;
	return buf;
}

static int mmap_rec(struct pms_memprof *p, uint32_t pid, const char *path, uint64_t len)
{
	struct pms_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PMS_RECORD_MMAP2;
	rec.mmap.pid = rec.mmap.tid = pid;
	rec.mmap.addr = BASE;
	rec.mmap.len = (len + 4095) & ~4095ULL;
	rec.mmap.prot = PROT_READ | PROT_EXEC;
	rec.mmap.ino = 1;
	rec.mmap.filename = path;
	return pms_memprof_sideband(p, &rec, NULL);
}

/* The program alone: the name of ip, or NULL. */
static int alone(struct pms_sys *sys, const char *path, uint64_t len, uint64_t ip,
		 struct pms_symbolizer **sym, struct pms_symbol *out)
{
	struct pms_maps *m = NULL;
	int rc = pms_maps_new(&m);
	if (rc == 0)
		rc = pms_maps_add(m, BASE, (len + 4095) & ~4095ULL, 0, 1, true, path);
	if (rc == 0)
		rc = pms_symbolizer_new(sys, m, sym);
	pms_maps_free(m);
	if (rc == 0 && pms_symbolizer_code_func(*sym, ip, false, out) < 0)
		out->func = NULL;
	return rc;
}

static const struct pms_memreport_site *row_of(const struct pms_memreport *r, uint32_t pid)
{
	for (size_t i = 0; i < r->ntop_funcs_samples; i++)
		if (r->top_funcs_samples[i].pid == pid)
			return &r->top_funcs_samples[i];
	return NULL;
}

PMS_TEST(each_process_named_from_its_own_mappings)
{
	char a[512], b[512];
	uint64_t la = 0, lb = 0;
	if (!built("tests/sample/pms_touch_pages", a, sizeof(a), &la) ||
	    !built("tests/report/c2c_false_sharing", b, sizeof(b), &lb))
		PMS_SKIP("test programs not built (PMS_BUILD_DIR)");
	struct pms_sys *sys = NULL;
	struct pms_symbolizer *sa = NULL, *sb = NULL, *sym = NULL;
	struct pms_memprof *p = NULL;
	struct pms_memreport *r = NULL;
	struct pms_symbol ya, yb;
	CHECK_OK(pms_sys_new(&sys, NULL));
	if (!sys)
		goto out;
	/* an IP where program a alone has "main" */
	uint64_t ip = 0;
	CHECK_OK(alone(sys, a, la, BASE, &sa, &ya));
	for (uint64_t off = 0; sa && off < la && !ip; off += 2) {
		struct pms_symbol y;
		if (pms_symbolizer_code_func(sa, BASE + off, false, &y) == 0 && y.func &&
		    !strcmp(y.func, "main"))
			ip = BASE + off;
	}
	CHECK(ip != 0);
	if (!ip)
		goto out;
	pms_symbolizer_free(sa);
	sa = NULL;
	CHECK_OK(alone(sys, a, la, ip, &sa, &ya));
	CHECK_OK(alone(sys, b, lb, ip, &sb, &yb));
	CHECK_EQ_STR(ya.func, "main");

	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.functions_per_pid = true;
	CHECK_OK(pms_memprof_new(NULL, &po, &p));
	if (!p)
		goto out;
	CHECK_OK(mmap_rec(p, 100, a, la));
	CHECK_OK(mmap_rec(p, 200, b, lb)); /* last: the shared set says b */
	struct pms_memsample s = { 0 };
	s.valid = PMS_MS_IP | PMS_MS_TID;
	s.engine = PMS_ENG_SOFTWARE;
	s.ip = ip;
	for (int i = 0; i < 3; i++) {
		s.pid = s.tid = 100;
		CHECK_OK(pms_memprof_add(p, &s));
		s.pid = s.tid = 200;
		CHECK_OK(pms_memprof_add(p, &s));
	}
	CHECK(pms_memprof_maps_pid(p, 100) != pms_memprof_maps(p));
	CHECK(pms_memprof_maps_pid(p, 300) == pms_memprof_maps(p)); /* none: the union */
	CHECK_OK(pms_symbolizer_new(sys, pms_memprof_maps(p), &sym));
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE };
	CHECK_OK(pms_memprof_report(p, sym, &in, &r));
	if (!r)
		goto out;
	const struct pms_memreport_site *ra = row_of(r, 100), *rb = row_of(r, 200);
	CHECK(ra && rb);
	if (ra && rb) {
		CHECK_EQ_STR(ra->name, "main");
		CHECK_EQ_STR(ra->module, a);
		CHECK_EQ_STR(rb->name, yb.func ? yb.func : "[unknown]");
		CHECK_EQ_STR(rb->module, b);
		CHECK_EQ_U64(ra->samples, 3);
		CHECK_EQ_U64(rb->samples, 3);
	}
	pms_memreport_free(r);
	r = NULL;

	/* pid 100 execs: its mappings are gone until new ones come */
	struct pms_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PMS_RECORD_COMM;
	rec.misc = PMS_MISC_COMM_EXEC;
	rec.comm.pid = rec.comm.tid = 100;
	rec.comm.comm = "other";
	CHECK_OK(pms_memprof_sideband(p, &rec, NULL));
	CHECK_EQ_INT((int)pms_memprof_maps_pid(p, 100)->n, 0);
	/* a process already running: its proc/PID/maps, read once (this
	 * test's own process) */
	s.pid = s.tid = (uint32_t)getpid();
	CHECK_OK(pms_memprof_add(p, &s));
	CHECK_EQ_INT(pms_memprof_read_maps(p, sys, 1), 1);
	CHECK_EQ_INT(pms_memprof_read_maps(p, sys, 0), 0);
	const struct pms_maps *own = pms_memprof_maps_pid(p, getpid());
	CHECK(own && own->n > 0);
	/* a profile of one process keeps one set */
	struct pms_memprof *q = NULL;
	po.pid = 100;
	CHECK_OK(pms_memprof_new(NULL, &po, &q));
	CHECK_OK(mmap_rec(q, 100, a, la));
	CHECK(pms_memprof_maps_pid(q, 100) == pms_memprof_maps(q));
	CHECK_EQ_INT(pms_memprof_read_maps(q, sys, 0), 0);
	pms_memprof_free(q);
out:
	pms_memreport_free(r);
	pms_symbolizer_free(sym);
	pms_symbolizer_free(sa);
	pms_symbolizer_free(sb);
	pms_memprof_free(p);
	pms_sys_free(sys);
}

PMS_TEST_MAIN()
