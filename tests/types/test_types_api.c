/* The types profile's accessors that only the library called before
 * (issue 27: exported functions are tested or internal): pms_typeprof_hit
 * resolves a sample as pms_typeprof_add does without counting it (nor its
 * cache lookup); pms_typeprof_resolver gives the profile's resolver, whose
 * pms_typeres_layout lists a type a hit named (members in offset order,
 * sizes and padding as this compiler laid them out) and refuses one no hit
 * named; pms_typeres_cache_stats counts the lookups that reached a binary
 * with DWARF and the ones computed (the same IP again: from the cache).
 * The globals of this very program (built with -g) are the data. */
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/types.h"

struct a_in {
	int x;
	short y[3];
};
struct a_rec {
	char c;
	long l;
	struct a_in in[2];
	short s;
	double d;
};
struct a_rec a_global;

__attribute__((noinline)) static void a_touch(int v)
{
	a_global.in[1].x = v;
}

/* This program's path and the executable mapping holding the function
 * (start, file offset), from /proc/self/maps. */
static void self_map(char *exe, size_t len, uint64_t *start, uint64_t *pgoff)
{
	ssize_t n = readlink("/proc/self/exe", exe, len - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	uint64_t ip = (uint64_t)(uintptr_t)&a_touch;
	FILE *f = fopen("/proc/self/maps", "r");
	CHECK(f != NULL);
	char line[4600];
	*start = *pgoff = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s %llx", &lo, &hi, perms, &off) == 4 && ip >= lo &&
		    ip < hi) {
			*start = lo;
			*pgoff = off;
		}
	}
	if (f)
		fclose(f);
	CHECK(*start != 0);
}

PMS_TEST(hit_resolves_without_counting)
{
	char exe[4096];
	struct pms_typeprof_sample s = { 0 };
	struct pms_typeprof *p = NULL;
	struct pms_type_hit h, h2;
	struct pms_typeprof_result res;
	uint64_t lookups, computed;
	a_touch(1);
	self_map(exe, sizeof(exe), &s.map_start, &s.map_pgoff);
	s.path = exe;
	s.ip = (uint64_t)(uintptr_t)&a_touch;
	s.addr = (uint64_t)(uintptr_t)&a_global.in[1].x;
	s.has_addr = true;
	s.store = -1;
	s.mem_node = s.cpu_node = -1;
	CHECK_OK(pms_typeprof_new(&p));
	struct pms_typeres *r = pms_typeprof_resolver(p);
	CHECK(r != NULL);
	CHECK(pms_typeprof_resolver(p) == r); /* the one resolver of the profile */
	pms_typeres_cache_stats(r, &lookups, &computed);
	CHECK_EQ_U64(lookups, 0);
	CHECK_EQ_U64(computed, 0);

	CHECK_OK(pms_typeprof_hit(p, &s, &h));
	CHECK_MSG(h.status == PMS_TYPE_OK, "status %s", pms_type_status_name(h.status));
	CHECK_EQ_STR(h.type, "struct a_rec");
	CHECK_EQ_STR(h.member, "in[1].x");
	CHECK(h.offset == (int64_t)offsetof(struct a_rec, in[1].x));
	CHECK(h.via == PMS_TYPE_VIA_GLOBAL);
	/* not counted: no sample, no lookup */
	CHECK_OK(pms_typeprof_result(p, &res));
	CHECK_EQ_U64(res.total, 0);
	CHECK_EQ_U64(res.n_rows, 0);
	pms_typeres_cache_stats(r, &lookups, &computed);
	CHECK_EQ_U64(lookups, 0);

	/* pms_typeprof_add: the same hit, counted */
	CHECK_OK(pms_typeprof_add(p, &s, &h2));
	CHECK(h2.status == PMS_TYPE_OK && !strcmp(h2.type, h.type) && !strcmp(h2.member, h.member));
	CHECK_OK(pms_typeprof_result(p, &res));
	CHECK_EQ_U64(res.total, 1);
	CHECK_EQ_U64(res.resolved, 1);
	pms_typeres_cache_stats(r, &lookups, &computed);
	CHECK_EQ_U64(lookups, 1);
	/* a hit after it: still one lookup counted */
	CHECK_OK(pms_typeprof_hit(p, &s, &h2));
	pms_typeres_cache_stats(r, &lookups, &computed);
	CHECK_EQ_U64(lookups, 1);

	/* the layout of the type the hit named, through the profile's resolver */
	struct pms_type_field *f = NULL;
	size_t n = 0;
	CHECK_OK(pms_typeres_layout(r, "struct a_rec", &f, &n));
	CHECK_EQ_U64(n, 5);
	if (n == 5) {
		static const char *const names[5] = { "c", "l", "in", "s", "d" };
		const size_t off[5] = { offsetof(struct a_rec, c), offsetof(struct a_rec, l),
					offsetof(struct a_rec, in), offsetof(struct a_rec, s),
					offsetof(struct a_rec, d) };
		const size_t size[5] = { sizeof(a_global.c), sizeof(a_global.l), sizeof(a_global.in),
					 sizeof(a_global.s), sizeof(a_global.d) };
		for (size_t i = 0; i < 5; i++) {
			size_t end = i + 1 < 5 ? off[i + 1] : sizeof(struct a_rec);
			CHECK_EQ_STR(f[i].name, names[i]);
			CHECK_EQ_U64(f[i].offset, off[i]);
			CHECK_EQ_U64(f[i].size, size[i]);
			CHECK_EQ_U64(f[i].hole, end - off[i] - size[i]);
		}
		CHECK_EQ_STR(f[0].type, "char");
		/* DWARF's base type name as the compiler wrote it: gcc "long
		 * int", clang "long" */
		CHECK(f[1].type && (!strcmp(f[1].type, "long int") || !strcmp(f[1].type, "long")));
		CHECK(f[0].hole == 7); /* c, then l aligned to 8 */
	}
	free(f);
	/* a type no hit named */
	CHECK_EQ_INT(pms_typeres_layout(r, "struct a_in_nowhere", &f, &n), PMS_ENOENT);
	CHECK(f == NULL && n == 0);
	pms_typeprof_free(p);
}

static int bias_cb(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)size;
	*(uint64_t *)ud = info->dlpi_addr; /* the first is the program */
	return 1;
}

PMS_TEST(cache_stats_count_lookups_and_computed)
{
	char exe[4096];
	uint64_t start, pgoff, lookups = 1, computed = 1, bias = 0;
	uint64_t ip = (uint64_t)(uintptr_t)&a_touch;
	struct pms_typeres *r = NULL;
	struct pms_type_hit h;
	self_map(exe, sizeof(exe), &start, &pgoff);
	dl_iterate_phdr(bias_cb, &bias);
	CHECK_OK(pms_typeres_new(&r));
	pms_typeres_cache_stats(r, &lookups, &computed);
	CHECK_EQ_U64(lookups, 0);
	CHECK_EQ_U64(computed, 0);
	/* no binary: not a lookup the cache sees */
	CHECK_OK(pms_typeres_lookup(r, "/nonexistent/bin", 0, 1, 0, false, &h));
	CHECK(h.status == PMS_TYPE_NO_BINARY);
	pms_typeres_cache_stats(r, &lookups, &computed);
	CHECK_EQ_U64(lookups, 0);
	/* twice the same IP: counted twice, computed once */
	for (int k = 0; k < 2; k++) {
		CHECK_OK(pms_typeres_lookup(r, exe, bias, ip, (uint64_t)(uintptr_t)&a_global.s, true, &h));
		CHECK_MSG(h.status == PMS_TYPE_OK, "status %s", pms_type_status_name(h.status));
		CHECK_EQ_STR(h.member, "s");
	}
	pms_typeres_cache_stats(r, &lookups, &computed);
	CHECK_EQ_U64(lookups, 2);
	CHECK_EQ_U64(computed, 1);
	pms_typeres_free(r);
}

PMS_TEST_MAIN()
