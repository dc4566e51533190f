/* symtrack's names by runs of module offsets (session/symtrack.c): IPs over
 * libc's whole text, asked in a random order (so runs are added between
 * others and a granule's hint goes stale, and offsets past the module's
 * first MiB take the coarse hints), named as the per-IP path names them
 * (want_line: no runs), in a first pass that builds the runs and a second
 * that answers from them; two processes mapping libc at other addresses,
 * asked in turn (a process's last mapping, then the other's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "session/symtrack_int.h"

static uint64_t xs = 88172645463325252ULL;
static uint64_t rnd(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

static int map_into(struct pms_symtrack *t, uint32_t pid, const struct pms_map *m, uint64_t at)
{
	struct pms_record r;
	memset(&r, 0, sizeof(r));
	r.type = PMS_RECORD_MMAP2;
	r.misc = PMS_MISC_USER;
	r.mmap.pid = r.mmap.tid = pid;
	r.mmap.addr = at;
	r.mmap.len = m->end - m->start;
	r.mmap.pgoff = m->pgoff;
	r.mmap.prot = PROT_READ | PROT_EXEC;
	r.mmap.filename = m->path;
	return pms_symtrack_record(t, &r);
}

PMS_TEST(runs_name_as_the_per_ip_path)
{
	struct pms_sys *sys = NULL;
	struct pms_maps *maps = NULL;
	struct pms_symtrack *t = NULL, *u = NULL;
	CHECK_OK(pms_sys_new(&sys, NULL));
	CHECK_OK(pms_maps_new(&maps));
	CHECK_OK(pms_maps_read_proc(maps, sys, getpid()));
	const struct pms_map *m = pms_maps_find(maps, (uint64_t)(uintptr_t)&getpid);
	CHECK(m != NULL && m->path && m->path[0] == '/');
	if (!m || !m->path || m->path[0] != '/')
		goto out;
	CHECK_OK(pms_symtrack_new(sys, NULL, &t));
	CHECK_OK(pms_symtrack_new(sys, NULL, &u));
	/* pid 1001 and 1002 map it 256 MiB apart */
	uint64_t base[2] = { 0x7f0000000000ULL, 0x7f0010000000ULL };
	for (int k = 0; k < 2; k++) {
		CHECK_OK(map_into(t, 1001 + (uint32_t)k, m, base[k]));
		CHECK_OK(map_into(u, 1001 + (uint32_t)k, m, base[k]));
	}
	uint64_t len = m->end - m->start, asked = 0, named = 0, bad = 0;
	for (int pass = 0; pass < 2 && bad < 5; pass++)
		for (int i = 0; i < 20000 && bad < 5; i++) {
			uint64_t x = rnd();
			int k = (int)(x & 1);
			uint64_t ip = base[k] + (x >> 8) % len;
			struct pms_symtrack_name a, b;
			CHECK_OK(pms_symtrack_code(t, 1001 + (uint32_t)k, ip, false, false, &a));
			CHECK_OK(pms_symtrack_code(u, 1001 + (uint32_t)k, ip, false, true, &b));
			asked++;
			named += a.sym != NULL;
			bool same = (a.sym ? b.sym && !strcmp(a.sym, b.sym) && a.off == b.off : !b.sym) &&
				    a.dso && b.dso && !strcmp(a.dso, b.dso) && a.map_ip == b.map_ip &&
				    a.map_ip == ip - base[k] + m->pgoff;
			bad += !same;
			CHECK_MSG(same, "pass %d pid %d offset 0x%llx: %s+%llu (%s), per IP %s+%llu (%s)",
				  pass, 1001 + k, (unsigned long long)(ip - base[k] + m->pgoff),
				  a.sym ? a.sym : "(none)", (unsigned long long)a.off,
				  a.dso ? a.dso : "(none)", b.sym ? b.sym : "(none)",
				  (unsigned long long)b.off, b.dso ? b.dso : "(none)");
		}
	/* most of libc's text is named (a lookup that names nothing fails it) */
	CHECK_MSG(named * 10 > asked * 9, "%llu of %llu named", (unsigned long long)named,
		  (unsigned long long)asked);
out:
	pms_symtrack_free(t);
	pms_symtrack_free(u);
	pms_maps_free(maps);
	pms_sys_free(sys);
}

int main(int argc, char **argv)
{
	return pms_t_run(argc, argv);
}
