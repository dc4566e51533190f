/* The exports of a memory report (pmuscope/export.h): call paths per
 * sample, collapsed stacks, and the pprof profile decoded back with
 * protobuf-c after gunzip, every number asserted against the samples put
 * in. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "export/profile.pb-c.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/export.h"
#include "pmuscope/report.h"
#include "report/pathprof_int.h" /* a report tampered with whole */

/* Two functions of this program: their addresses are the sample IPs. */
__attribute__((noinline)) int pms_t_load_a(volatile int *p);
__attribute__((noinline)) int pms_t_load_a(volatile int *p)
{
	return *p + 1;
}
__attribute__((noinline)) int pms_t_load_b(volatile int *p);
__attribute__((noinline)) int pms_t_load_b(volatile int *p)
{
	return *p + 2;
}

/* Callers for the call-path stacks: their return addresses are inside. */
__attribute__((noinline)) int pms_t_caller(volatile int *p);
__attribute__((noinline)) int pms_t_caller(volatile int *p)
{
	return pms_t_load_a(p) + pms_t_load_b(p) + 3;
}
__attribute__((noinline)) int pms_t_outer(volatile int *p);
__attribute__((noinline)) int pms_t_outer(volatile int *p)
{
	return pms_t_caller(p) * 2 + 1;
}

#define DATA 0x10000000ULL

static uint64_t ds(unsigned lvlnum)
{
	struct pms_datasrc d = { 0 };
	d.op = PMS_MEM_OP_LOAD;
	d.lvl = PMS_MEM_LVL_HIT;
	d.lvl_num = lvlnum;
	d.snoop = PMS_MEM_SNOOP_NA;
	d.dtlb = PMS_MEM_TLB_NA;
	return pms_datasrc_pack(&d);
}

static void add(struct pms_memprof *p, uint64_t ip, uint64_t addr, uint64_t src, uint64_t w,
		int mem, int cpu)
{
	struct pms_memsample s = { 0 };
	s.valid = PMS_MS_TIME;
	s.time = 1000;
	if (ip) {
		s.valid |= PMS_MS_IP;
		s.ip = ip;
	}
	if (addr) {
		s.valid |= PMS_MS_ADDR;
		s.addr = addr;
	}
	if (src) {
		s.valid |= PMS_MS_DATA_SRC;
		s.data_src = src;
	}
	if (w) {
		s.valid |= PMS_MS_WEIGHT;
		s.weight = w;
	}
	CHECK_OK(pms_memprof_add_node(p, &s, mem, cpu));
}

struct fixture {
	struct pms_sys *sys;
	struct pms_maps *maps;
	struct pms_symbolizer *sym;
	struct pms_memprof *prof;
	struct pms_memreport *rep;
	char exe[4096];
};

/* Five samples: A twice (L1 local, L3 remote), B once (no source, no
 * weight, node not present), one without an IP, and A's first again. */
static void build(struct fixture *f, bool aggregate)
{
	memset(f, 0, sizeof(*f));
	ssize_t n = readlink("/proc/self/exe", f->exe, sizeof(f->exe) - 1);
	CHECK(n > 0);
	CHECK_OK(pms_sys_new(&f->sys, NULL));
	CHECK_OK(pms_maps_new(&f->maps));
	CHECK_OK(pms_maps_read_proc(f->maps, f->sys, getpid()));
	CHECK_OK(pms_symbolizer_new(f->sys, f->maps, &f->sym));
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.aggregate = aggregate;
	CHECK_OK(pms_memprof_new(NULL, &po, &f->prof));
	CHECK_OK(pms_maps_add(pms_memprof_maps(f->prof), DATA, 1 << 20, 0, 0, false, ""));
	uint64_t a = (uint64_t)(uintptr_t)&pms_t_load_a, b = (uint64_t)(uintptr_t)&pms_t_load_b;
	add(f->prof, a + 1, DATA + 64, ds(PMS_MEM_LVLNUM_L1), 10, 0, 0);
	add(f->prof, a + 2, DATA + 128, ds(PMS_MEM_LVLNUM_L3), 30, 1, 0);
	add(f->prof, b + 1, DATA + 4096, 0, 0, -ENOENT, 1);
	add(f->prof, 0, DATA + 8192, 0, 5, 1, 1);
	/* the first one again: one pprof sample with the first */
	add(f->prof, a + 1, DATA + 72, ds(PMS_MEM_LVLNUM_L1), 20, 0, 0);
	struct pms_memreport_input in = { .engine = PMS_ENG_PEBS, .pmus = "cpu", .label = "t",
					  .notes = "", .data_src = true, .duration_ns = 2000000 };
	CHECK_OK(pms_memprof_report(f->prof, f->sym, &in, &f->rep));
}

static void fixture_free(struct fixture *f)
{
	pms_memreport_free(f->rep);
	pms_memprof_free(f->prof);
	pms_symbolizer_free(f->sym);
	pms_maps_free(f->maps);
	pms_sys_free(f->sys);
}

PMS_TEST(stacks_one_frame_per_sample_with_an_ip)
{
	struct fixture f;
	struct pms_export_stacks *st = NULL;
	build(&f, false);
	CHECK_OK(pms_export_stacks_new(f.rep, NULL, &st));
	CHECK_EQ_U64(pms_export_stacks_sample_count(st), 5);
	CHECK(!pms_export_stacks_callers(st));
	/* a+1, a+2, b+1, none; the fifth is the first's stack */
	CHECK_EQ_U64(pms_export_stacks_count(st), 4);
	CHECK_EQ_U64(pms_export_stacks_of_sample(st, 4), pms_export_stacks_of_sample(st, 0));
	for (size_t i = 0; i < 4; i++)
		CHECK_EQ_U64(pms_export_stacks_depth(st, pms_export_stacks_of_sample(st, i)),
			     i == 3 ? 0 : 1);
	const struct pms_export_frame *a = pms_export_stacks_frame(
		st, pms_export_stacks_frame_index(st, pms_export_stacks_of_sample(st, 0), 0));
	const struct pms_export_frame *b = pms_export_stacks_frame(
		st, pms_export_stacks_frame_index(st, pms_export_stacks_of_sample(st, 2), 0));
	CHECK(a != NULL && b != NULL);
	/* past the ends */
	CHECK_EQ_U64(pms_export_stacks_of_sample(st, 5), (size_t)-1);
	CHECK_EQ_U64(pms_export_stacks_depth(st, 4), 0);
	CHECK_EQ_U64(pms_export_stacks_frame_index(st, 0, 1), (size_t)-1);
	CHECK(pms_export_stacks_frame(st, pms_export_stacks_frame_count(st)) == NULL);
	CHECK(pms_export_stacks_count(NULL) == 0 && pms_export_stacks_frame_count(NULL) == 0 &&
	      pms_export_stacks_sample_count(NULL) == 0 && !pms_export_stacks_callers(NULL));
	if (a && b) {
		CHECK_EQ_STR(a->name, "pms_t_load_a");
		CHECK_EQ_STR(b->name, "pms_t_load_b");
		CHECK_EQ_STR(f.rep->sites[a->site].name, "pms_t_load_a");
		CHECK_EQ_U64(a->addr, (uint64_t)(uintptr_t)&pms_t_load_a + 1);
	}
	/* every sample's object is the anonymous mapping */
	for (size_t i = 0; i < 5; i++)
		CHECK(f.rep->all[i].object >= 0 && !strcmp(f.rep->objects[f.rep->all[i].object].kind, "anon"));
	pms_export_stacks_free(st);
	fixture_free(&f);
}

PMS_TEST(stacks_need_the_kept_samples)
{
	struct fixture f;
	struct pms_export_stacks *st = (void *)1;
	build(&f, true);
	CHECK_EQ_INT(pms_export_stacks_new(f.rep, NULL, &st), PMS_EINVAL);
	CHECK(st == NULL);
	CHECK(strstr(pms_error_last(), "aggregate") != NULL);
	fixture_free(&f);
}

PMS_TEST(folded_by_samples_and_latency)
{
	struct fixture f;
	struct pms_export_stacks *st = NULL;
	char *txt = NULL;
	size_t len = 0;
	build(&f, false);
	CHECK_OK(pms_export_stacks_new(f.rep, NULL, &st));
	CHECK_OK(pms_export_folded(st, PMS_EXPORT_SAMPLES, &txt, &len));
	CHECK_EQ_STR(txt, "[no ip] 1\npms_t_load_a 3\npms_t_load_b 1\n");
	CHECK_EQ_U64(len, strlen(txt));
	free(txt);
	CHECK_OK(pms_export_folded(st, PMS_EXPORT_LATENCY, &txt, &len));
	CHECK_EQ_STR(txt, "[no ip] 5\npms_t_load_a 60\n"); /* B has no latency */
	free(txt);
	pms_export_stacks_free(st);
	fixture_free(&f);
}

PMS_TEST(frame_names_of_unknown_functions_carry_the_module)
{
	char buf[64];
	struct pms_memreport_site s = { 0 };
	s.name = "[unknown]";
	s.module = "/usr/lib/libfoo.so.1";
	CHECK_EQ_STR(pms_export_frame_name(&s, buf, sizeof(buf)), "[unknown] [libfoo.so.1]");
	s.module = "";
	CHECK_EQ_STR(pms_export_frame_name(&s, buf, sizeof(buf)), "[unknown]");
	s.name = "main";
	CHECK_EQ_STR(pms_export_frame_name(&s, buf, sizeof(buf)), "main");
}

static Perftools__Profiles__Profile *decode(const void *gz, size_t len)
{
	size_t cap = 1 << 20, got;
	uint8_t *raw = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof(z));
	CHECK(inflateInit2(&z, 15 + 16) == Z_OK); /* gzip only: the wrapper must be there */
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END);
	got = z.total_out;
	inflateEnd(&z);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, got, raw);
	free(raw);
	return p;
}

static const char *label_str(const Perftools__Profiles__Profile *p,
			     const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(p->string_table[s->label[i]->key], key) && s->label[i]->str)
			return p->string_table[s->label[i]->str];
	return NULL;
}

static int64_t label_num(const Perftools__Profiles__Profile *p,
			 const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(p->string_table[s->label[i]->key], key)) {
			CHECK_EQ_STR(p->string_table[s->label[i]->num_unit], "node");
			return s->label[i]->num;
		}
	return -100;
}

static const char *func_of(const Perftools__Profiles__Profile *p, uint64_t loc)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->id == loc)
			for (size_t k = 0; k < p->n_function; k++)
				if (p->function[k]->id == p->location[i]->line[0]->function_id)
					return p->string_table[p->function[k]->name];
	return NULL;
}

static const char *func_name_of_line(const Perftools__Profiles__Profile *p,
				     const Perftools__Profiles__Line *ln)
{
	for (size_t k = 0; k < p->n_function; k++)
		if (p->function[k]->id == ln->function_id)
			return p->string_table[p->function[k]->name];
	return "";
}

/* The call-path fixture: six samples through a memory report and a
 * kept-samples path collector, as mem and report feed them. */
struct cp_fixture {
	struct fixture f;
	struct pms_pathprof *pp;
	struct pms_pathreport *paths;
};

static void cp_add(struct cp_fixture *c, uint64_t ip, const struct pms_frame *fr, size_t n,
		   uint64_t w)
{
	struct pms_memsrc_sample x;
	memset(&x, 0, sizeof(x));
	x.ms.valid = PMS_MS_TIME | PMS_MS_ADDR | (ip ? PMS_MS_IP : 0) | (w ? PMS_MS_WEIGHT : 0);
	x.ms.ip = ip;
	x.ms.addr = DATA + 64;
	x.ms.weight = w;
	x.mem_node = 0;
	x.cpu_node = 0;
	x.path.frames = fr;
	x.path.n = n;
	x.path.how = n ? PMS_CALLGRAPH_FP : PMS_CALLGRAPH_NONE;
	CHECK_OK(pms_memprof_add_src(c->f.prof, &x));
	CHECK_OK(pms_pathprof_add_src(c->pp, &x, NULL));
}

static void cp_build(struct cp_fixture *c)
{
	struct fixture *f = &c->f;
	memset(c, 0, sizeof(*c));
	ssize_t n = readlink("/proc/self/exe", f->exe, sizeof(f->exe) - 1);
	CHECK(n > 0);
	CHECK_OK(pms_sys_new(&f->sys, NULL));
	CHECK_OK(pms_maps_new(&f->maps));
	CHECK_OK(pms_maps_read_proc(f->maps, f->sys, getpid()));
	CHECK_OK(pms_symbolizer_new(f->sys, f->maps, &f->sym));
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	CHECK_OK(pms_memprof_new(NULL, &po, &f->prof));
	CHECK_OK(pms_maps_add(pms_memprof_maps(f->prof), DATA, 1 << 20, 0, 0, false, ""));
	struct pms_pathprof_opts o = PMS_PATHPROF_OPTS_INIT;
	o.kept_samples = true;
	CHECK_OK(pms_pathprof_new(f->sys, &o, &c->pp));
	uint64_t a = (uint64_t)(uintptr_t)&pms_t_load_a, b = (uint64_t)(uintptr_t)&pms_t_load_b;
	uint64_t cl = (uint64_t)(uintptr_t)&pms_t_caller + 4, ou = (uint64_t)(uintptr_t)&pms_t_outer + 4;
	const struct pms_frame p0[] = { { a + 1, 0 }, { cl, 0 }, { ou, 0 } };
	/* the kernel's first frame is the interrupted IP: after the sampled
	 * one in the same function (dropped), or in another (kept) */
	const struct pms_frame p1[] = { { a + 3, 0 }, { cl, 0 }, { ou, 0 } };
	const struct pms_frame p2[] = { { a + 1, 0 }, { cl, 0 }, { ou, 0 } };
	const struct pms_frame p3[] = { { b + 1, 0 }, { ou, 0 } };
	cp_add(c, a + 1, p0, 3, 10);
	cp_add(c, a + 2, p1, 3, 20);
	cp_add(c, b + 1, p2, 3, 40);
	cp_add(c, 0, p3, 2, 80);     /* no IP: the path's first frame is the leaf */
	cp_add(c, a + 1, NULL, 0, 0); /* no path: its instruction alone */
	cp_add(c, a + 1, p0, 3, 5);  /* the first one's stack */
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE, .pmus = "", .label = "t",
					  .notes = "", .duration_ns = 1000 };
	CHECK_OK(pms_memprof_report(f->prof, f->sym, &in, &f->rep));
	CHECK_OK(pms_pathprof_report(c->pp, f->rep, f->sym, false, &c->paths));
}

static void cp_free(struct cp_fixture *c)
{
	pms_pathreport_free(c->paths);
	pms_pathprof_free(c->pp);
	fixture_free(&c->f);
}

static void stack_names(const struct pms_export_stacks *st, size_t sample, char *buf, size_t cap)
{
	size_t j = pms_export_stacks_of_sample(st, sample), at = 0;
	buf[0] = 0;
	for (size_t k = 0; k < pms_export_stacks_depth(st, j); k++)
		at += (size_t)snprintf(
			buf + at, cap - at, "%s%s", k ? "," : "",
			pms_export_stacks_frame(st, pms_export_stacks_frame_index(st, j, k))->name);
}

PMS_TEST(stacks_of_call_paths_leaf_first)
{
	struct cp_fixture c;
	struct pms_export_stacks *st = NULL;
	char buf[512], *txt = NULL;
	size_t len = 0;
	cp_build(&c);
	CHECK_EQ_U64(pms_pathreport_sample_path_count(c.paths), 6);
	CHECK_OK(pms_export_stacks_new(c.f.rep, c.paths, &st));
	CHECK(pms_export_stacks_callers(st));
	static const char *want[6] = {
		"pms_t_load_a,pms_t_caller,pms_t_outer",
		"pms_t_load_a,pms_t_caller,pms_t_outer",
		"pms_t_load_b,pms_t_load_a,pms_t_caller,pms_t_outer",
		"pms_t_load_b,pms_t_outer",
		"pms_t_load_a",
		"pms_t_load_a,pms_t_caller,pms_t_outer",
	};
	for (size_t i = 0; i < 6; i++) {
		stack_names(st, i, buf, sizeof(buf));
		CHECK_EQ_STR(buf, want[i]);
	}
	CHECK_EQ_U64(pms_export_stacks_of_sample(st, 5), pms_export_stacks_of_sample(st, 0));
	/* another leaf instruction */
	CHECK(pms_export_stacks_of_sample(st, 1) != pms_export_stacks_of_sample(st, 0));
	/* the leaf is the sample's instruction (the report's site), a caller
	 * keeps its return address and is no site */
	size_t j = pms_export_stacks_of_sample(st, 1);
	const struct pms_export_frame *leaf =
		pms_export_stacks_frame(st, pms_export_stacks_frame_index(st, j, 0));
	const struct pms_export_frame *caller =
		pms_export_stacks_frame(st, pms_export_stacks_frame_index(st, j, 1));
	CHECK(leaf != NULL && caller != NULL);
	if (leaf && caller) {
		CHECK_EQ_U64(leaf->addr, (uint64_t)(uintptr_t)&pms_t_load_a + 2);
		CHECK(leaf->site >= 0);
		CHECK_EQ_U64(caller->addr, (uint64_t)(uintptr_t)&pms_t_caller + 4);
		CHECK_EQ_INT(caller->site, -1);
	}
	/* collapsed stacks: root first, equal names add up */
	CHECK_OK(pms_export_folded(st, PMS_EXPORT_SAMPLES, &txt, &len));
	CHECK_EQ_STR(txt, "pms_t_load_a 1\n"
			  "pms_t_outer;pms_t_caller;pms_t_load_a 3\n"
			  "pms_t_outer;pms_t_caller;pms_t_load_a;pms_t_load_b 1\n"
			  "pms_t_outer;pms_t_load_b 1\n");
	free(txt);
	CHECK_OK(pms_export_folded(st, PMS_EXPORT_LATENCY, &txt, &len));
	CHECK_EQ_STR(txt, "pms_t_outer;pms_t_caller;pms_t_load_a 35\n"
			  "pms_t_outer;pms_t_caller;pms_t_load_a;pms_t_load_b 40\n"
			  "pms_t_outer;pms_t_load_b 80\n");
	free(txt);
	pms_export_stacks_free(st);
	cp_free(&c);
}

PMS_TEST(stacks_refuse_paths_of_other_samples)
{
	struct cp_fixture c;
	struct pms_export_stacks *st = (void *)1;
	cp_build(&c);
	c.paths->nsample_path--;
	CHECK_EQ_INT(pms_export_stacks_new(c.f.rep, c.paths, &st), PMS_EINVAL);
	CHECK(st == NULL);
	CHECK(strstr(pms_error_last(), "kept_samples") != NULL);
	c.paths->nsample_path++;
	cp_free(&c);
}

PMS_TEST(pprof_values_labels_locations_mappings)
{
	struct fixture f;
	struct pms_export_stacks *st = NULL;
	void *gz = NULL;
	size_t len = 0;
	build(&f, false);
	CHECK_OK(pms_export_stacks_new(f.rep, NULL, &st));
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
					7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct pms_export_build_id bid = { f.exe, id, sizeof(id) };
	struct pms_export_pprof_opts o = PMS_EXPORT_PPROF_OPTS_INIT;
	o.maps = f.maps;
	o.build_ids = &bid;
	o.nbuild_ids = 1;
	o.host = "hostA";
	o.comment = "test";
	CHECK_OK(pms_export_pprof(st, &o, &gz, &len));
	CHECK(len > 20 && ((uint8_t *)gz)[0] == 0x1f && ((uint8_t *)gz)[1] == 0x8b);
	Perftools__Profiles__Profile *p = decode(gz, len);
	CHECK(p != NULL);
	if (!p)
		goto out;
	CHECK_EQ_STR(p->string_table[0], "");
	CHECK_EQ_U64(p->n_sample_type, 2);
	CHECK_EQ_STR(p->string_table[p->sample_type[0]->type], "samples");
	CHECK_EQ_STR(p->string_table[p->sample_type[0]->unit], "count");
	CHECK_EQ_STR(p->string_table[p->sample_type[1]->type], "latency");
	CHECK_EQ_STR(p->string_table[p->sample_type[1]->unit], "cycles");
	CHECK_EQ_U64(p->duration_nanos, 2000000);
	CHECK_EQ_STR(p->string_table[p->default_sample_type], "samples");
	CHECK_EQ_U64(p->n_comment, 1);
	CHECK_EQ_U64(p->n_sample, 4);
	/* sample 0: A, L1 hit, local; twice (the fifth folded into it) */
	const Perftools__Profiles__Sample *s = p->sample[0];
	CHECK_EQ_U64(s->n_value, 2);
	CHECK_EQ_U64(s->value[0], 2);
	CHECK_EQ_U64(s->value[1], 30);
	CHECK_EQ_U64(s->n_location_id, 1);
	CHECK_EQ_STR(func_of(p, s->location_id[0]), "pms_t_load_a");
	CHECK_EQ_STR(label_str(p, s, "level"), "L1 hit");
	CHECK_EQ_STR(label_str(p, s, "op"), "Load");
	CHECK(label_str(p, s, "snoop") != NULL);
	CHECK_EQ_STR(label_str(p, s, "remote"), "no");
	CHECK_EQ_STR(label_str(p, s, "host"), "hostA");
	CHECK(label_str(p, s, "object") != NULL && !strncmp(label_str(p, s, "object"), "[anon 0x10000000]", 17));
	CHECK_EQ_INT(label_num(p, s, "mem_node"), 0);
	CHECK_EQ_INT(label_num(p, s, "cpu_node"), 0);
	/* sample 1: A, L3 hit, remote */
	s = p->sample[1];
	CHECK_EQ_U64(s->value[1], 30);
	CHECK_EQ_STR(label_str(p, s, "level"), "L3 hit");
	CHECK_EQ_STR(label_str(p, s, "remote"), "yes");
	CHECK_EQ_INT(label_num(p, s, "mem_node"), 1);
	/* sample 2: B, no data source, no weight, node not present */
	s = p->sample[2];
	CHECK_EQ_U64(s->value[1], 0);
	CHECK_EQ_STR(func_of(p, s->location_id[0]), "pms_t_load_b");
	CHECK_EQ_STR(label_str(p, s, "level"), "N/A"); /* every sample has a level */
	CHECK(label_str(p, s, "remote") == NULL);
	CHECK_EQ_INT(label_num(p, s, "mem_node"), -100);
	CHECK_EQ_INT(label_num(p, s, "cpu_node"), 1);
	/* sample 3: no IP, no location */
	CHECK_EQ_U64(p->sample[3]->n_location_id, 0);
	CHECK_EQ_U64(p->sample[3]->value[1], 5);
	/* the program's mapping: its range from the maps, its build id */
	bool found = false;
	for (size_t i = 0; i < p->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = p->mapping[i];
		if (strcmp(p->string_table[m->filename], f.exe))
			continue;
		found = true;
		CHECK_EQ_STR(p->string_table[m->build_id], "deadbeef0102030405060708090a0b0c0d0e0f10");
		uint64_t a = (uint64_t)(uintptr_t)&pms_t_load_a;
		CHECK(m->memory_start <= a && a < m->memory_limit);
		CHECK(m->has_functions);
	}
	CHECK(found);
	perftools__profiles__profile__free_unpacked(p, NULL);
out:
	free(gz);
	pms_export_stacks_free(st);
	fixture_free(&f);
}

PMS_TEST(sources_name_each_samples_host)
{
	struct pms_memprof *prof = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_export_stacks *st = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	void *gz = NULL;
	size_t len = 0;
	CHECK_OK(pms_memprof_new(NULL, &po, &prof));
	add(prof, 0x1000, 0, 0, 0, -1, -1); /* before any source: none */
	CHECK_OK(pms_memprof_set_source(prof, "hostA"));
	add(prof, 0x1000, 0, 0, 0, -1, -1);
	add(prof, 0x1000, 0, 0, 0, -1, -1);
	CHECK_OK(pms_memprof_set_source(prof, "hostB"));
	add(prof, 0x1000, 0, 0, 0, -1, -1);
	CHECK_OK(pms_memprof_set_source(prof, "hostA")); /* continues hostA */
	add(prof, 0x1000, 0, 0, 0, -1, -1);
	CHECK_EQ_INT(pms_memprof_set_source(prof, NULL), PMS_EINVAL);
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE, .pmus = "", .label = "",
					  .notes = "" };
	CHECK_OK(pms_memprof_report(prof, NULL, &in, &rep));
	CHECK_EQ_U64(rep->nsources, 2);
	CHECK_EQ_STR(rep->sources[0].name, "hostA");
	CHECK_EQ_U64(rep->sources[0].samples, 3);
	CHECK_EQ_STR(rep->sources[1].name, "hostB");
	CHECK_EQ_U64(rep->sources[1].samples, 1);
	long want[5] = { -1, 0, 0, 1, 0 };
	for (size_t i = 0; i < 5 && i < rep->nall; i++)
		CHECK_EQ_INT(rep->all[i].source, want[i]);
	CHECK_OK(pms_export_stacks_new(rep, NULL, &st));
	struct pms_export_pprof_opts o = PMS_EXPORT_PPROF_OPTS_INIT;
	o.host = "fallback";
	CHECK_OK(pms_export_pprof(st, &o, &gz, &len));
	Perftools__Profiles__Profile *p = decode(gz, len);
	CHECK(p != NULL);
	if (p) {
		/* same location, labels differ by host: three pprof samples */
		uint64_t a = 0, b = 0, fb = 0;
		CHECK_EQ_U64(p->n_sample, 3);
		for (size_t i = 0; i < p->n_sample; i++) {
			const char *h = label_str(p, p->sample[i], "host");
			uint64_t v = (uint64_t)p->sample[i]->value[0];
			if (h && !strcmp(h, "hostA"))
				a += v;
			else if (h && !strcmp(h, "hostB"))
				b += v;
			else if (h && !strcmp(h, "fallback"))
				fb += v;
		}
		CHECK_EQ_U64(a, 3);
		CHECK_EQ_U64(b, 1);
		CHECK_EQ_U64(fb, 1);
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	/* aggregate mode counts sources too */
	struct pms_memprof *ag = NULL;
	struct pms_memreport *ar = NULL;
	po.aggregate = true;
	CHECK_OK(pms_memprof_new(NULL, &po, &ag));
	CHECK_OK(pms_memprof_set_source(ag, "h1"));
	add(ag, 0x1000, 0, 0, 0, -1, -1);
	CHECK_OK(pms_memprof_report(ag, NULL, &in, &ar));
	CHECK(ar->nsources == 1 && ar->sources[0].samples == 1);
	pms_memreport_free(ar);
	pms_memprof_free(ag);
	free(gz);
	pms_export_stacks_free(st);
	pms_memreport_free(rep);
	pms_memprof_free(prof);
}

PMS_TEST(pprof_of_an_empty_report)
{
	struct pms_memprof *prof = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_export_stacks *st = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	void *gz = NULL;
	size_t len = 0;
	char *txt = NULL;
	CHECK_OK(pms_memprof_new(NULL, &po, &prof));
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE, .pmus = "", .label = "",
					  .notes = "" };
	CHECK_OK(pms_memprof_report(prof, NULL, &in, &rep));
	CHECK_OK(pms_export_stacks_new(rep, NULL, &st));
	CHECK_OK(pms_export_folded(st, PMS_EXPORT_SAMPLES, &txt, &len));
	CHECK_EQ_STR(txt, "");
	CHECK_OK(pms_export_pprof(st, NULL, &gz, &len));
	Perftools__Profiles__Profile *p = decode(gz, len);
	CHECK(p && p->n_sample == 0 && p->n_sample_type == 2);
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
	struct pms_export_pprof_opts bad = PMS_EXPORT_PPROF_OPTS_INIT;
	bad.version = 99;
	void *none = (void *)1;
	CHECK_EQ_INT(pms_export_pprof(st, &bad, &none, &len), PMS_EINVAL);
	CHECK(none == NULL);
	free(txt);
	free(gz);
	pms_export_stacks_free(st);
	pms_memreport_free(rep);
	pms_memprof_free(prof);
}

PMS_TEST(pprof_locations_are_the_call_paths)
{
	struct cp_fixture c;
	struct pms_export_stacks *st = NULL;
	void *gz = NULL;
	size_t len = 0;
	cp_build(&c);
	CHECK_OK(pms_export_stacks_new(c.f.rep, c.paths, &st));
	CHECK_OK(pms_export_pprof(st, NULL, &gz, &len));
	Perftools__Profiles__Profile *p = decode(gz, len);
	CHECK(p != NULL);
	if (p) {
		/* flat (leaf) and cumulative (anywhere in the stack, once per
		 * sample) counts per function */
		const char *fn[4] = { "pms_t_load_a", "pms_t_load_b", "pms_t_caller", "pms_t_outer" };
		int64_t flat[4] = { 0 }, cum[4] = { 0 }, total = 0;
		for (size_t i = 0; i < p->n_sample; i++) {
			const Perftools__Profiles__Sample *s = p->sample[i];
			total += s->value[0];
			for (int k = 0; k < 4; k++) {
				bool in = false;
				for (size_t q = 0; q < s->n_location_id; q++)
					in |= !strcmp(func_of(p, s->location_id[q]), fn[k]);
				if (in)
					cum[k] += s->value[0];
				if (s->n_location_id && !strcmp(func_of(p, s->location_id[0]), fn[k]))
					flat[k] += s->value[0];
			}
		}
		CHECK_EQ_INT(total, 6);
		CHECK_EQ_INT(flat[0], 4);
		CHECK_EQ_INT(flat[1], 2);
		CHECK_EQ_INT(flat[2], 0);
		CHECK_EQ_INT(cum[0], 5);
		CHECK_EQ_INT(cum[1], 2);
		CHECK_EQ_INT(cum[2], 4);
		CHECK_EQ_INT(cum[3], 5);
		/* one location per frame: the caller's at its return address */
		CHECK_EQ_U64(p->n_location, pms_export_stacks_frame_count(st));
		bool found = false;
		for (size_t i = 0; i < p->n_location; i++)
			if (p->location[i]->address == (uint64_t)(uintptr_t)&pms_t_caller + 4)
				found = !strcmp(func_of(p, p->location[i]->id), "pms_t_caller");
		CHECK(found);
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	free(gz);
	pms_export_stacks_free(st);
	cp_free(&c);
}

/* Frame k of path x made an inline stack of two (session/inlpath.c's
 * form: innermost first, both at its ip, PMS_FRAME_INLINE with the depth):
 * inner, then the frame itself. */
static void inline_pair(struct pms_pathreport_path *x, size_t k, const char *inner)
{
	struct pms_pathreport_frame *v = calloc(x->nframes + 1, sizeof(*v));
	CHECK(v != NULL);
	if (!v)
		return;
	memcpy(v, x->frames, (k + 1) * sizeof(*v));
	memcpy(v + k + 1, x->frames + k, (x->nframes - k) * sizeof(*v));
	v[k].func = strdup(inner);
	v[k].file = NULL;
	v[k].module = strdup(v[k + 1].module);
	v[k].flags |= PMS_FRAME_INLINE;
	v[k + 1].flags |= PMS_FRAME_INLINE | (1u << PMS_FRAME_INLINE_SHIFT);
	free(x->frames);
	x->frames = v;
	x->nframes++;
}

/* Inline stacks in the call paths (issue 30): where the path's first
 * frame is one at the leaf's address it stands for the leaf; pprof makes
 * each stack one location with a line per function, innermost first. */
PMS_TEST(inline_stacks_in_stacks_and_pprof)
{
	struct cp_fixture c;
	struct pms_export_stacks *st = NULL;
	char buf[512], *txt = NULL;
	void *gz = NULL;
	size_t len = 0;
	cp_build(&c);
	uint64_t a = (uint64_t)(uintptr_t)&pms_t_load_a;
	struct pms_pathreport *r = c.paths;
	for (size_t i = 0; i < r->nall; i++)
		if (r->all[i].nframes == 3 && r->all[i].frames[0].ip == a + 1) {
			inline_pair(&r->all[i], 1, "pms_t_inl_caller");
			inline_pair(&r->all[i], 0, "pms_t_inl");
		}
	CHECK_OK(pms_export_stacks_new(c.f.rep, c.paths, &st));
	stack_names(st, 0, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "pms_t_inl,pms_t_load_a,pms_t_inl_caller,pms_t_caller,pms_t_outer");
	/* another leaf: the path's stack kept whole as its callers */
	stack_names(st, 2, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "pms_t_load_b,pms_t_inl,pms_t_load_a,pms_t_inl_caller,pms_t_caller,"
			  "pms_t_outer");
	CHECK_OK(pms_export_folded(st, PMS_EXPORT_SAMPLES, &txt, &len));
	CHECK(txt && strstr(txt, "\npms_t_outer;pms_t_caller;pms_t_inl_caller;pms_t_load_a;"
				  "pms_t_inl 2\n"));
	CHECK_OK(pms_export_pprof(st, NULL, &gz, &len));
	Perftools__Profiles__Profile *p = decode(gz, len);
	CHECK(p != NULL);
	size_t seen = 0;
	for (size_t i = 0; p && i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = p->sample[i];
		const Perftools__Profiles__Location *l0 = NULL, *l1 = NULL;
		for (size_t q = 0; q < p->n_location; q++) {
			if (sm->n_location_id > 1 && p->location[q]->id == sm->location_id[0])
				l0 = p->location[q];
			if (sm->n_location_id > 1 && p->location[q]->id == sm->location_id[1])
				l1 = p->location[q];
		}
		if (!l0 || l0->n_line != 2)
			continue;
		/* samples 0 and 5: three locations, the first two of two lines */
		seen += (size_t)sm->value[0];
		CHECK_EQ_U64(sm->n_location_id, 3);
		CHECK_EQ_U64(l0->address, a + 1);
		CHECK_EQ_STR(func_name_of_line(p, l0->line[0]), "pms_t_inl");
		CHECK_EQ_STR(func_name_of_line(p, l0->line[1]), "pms_t_load_a");
		CHECK(l1 && l1->n_line == 2);
		if (l1 && l1->n_line == 2) {
			CHECK_EQ_STR(func_name_of_line(p, l1->line[0]), "pms_t_inl_caller");
			CHECK_EQ_STR(func_name_of_line(p, l1->line[1]), "pms_t_caller");
		}
	}
	CHECK_EQ_U64(seen, 2);
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	free(txt);
	pms_export_stacks_free(st);
	cp_free(&c);
}

PMS_TEST_MAIN()

/* Version 3's labels "type" and "member" (issue 29): one per report sample
 * where given; samples that differ only by them are separate pprof samples. */
PMS_TEST(pprof_type_and_member_labels)
{
	struct pms_memprof *prof = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_export_stacks *st = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	void *gz = NULL;
	size_t len = 0;
	CHECK_OK(pms_memprof_new(NULL, &po, &prof));
	for (int i = 0; i < 5; i++)
		add(prof, 0x1000, 0, 0, 0, -1, -1);
	struct pms_memreport_input in = { .engine = PMS_ENG_SOFTWARE, .pmus = "", .label = "",
					  .notes = "" };
	CHECK_OK(pms_memprof_report(prof, NULL, &in, &rep));
	CHECK_EQ_U64(rep->nall, 5);
	CHECK_OK(pms_export_stacks_new(rep, NULL, &st));
	/* the fifth sample is past ntype_values: no labels */
	const char *types[4] = { "struct rec", "struct rec", "struct rec", NULL };
	const char *members[4] = { "b[2].y[1]", "b[2].y[1]", "tail", "" };
	struct pms_export_pprof_opts o = PMS_EXPORT_PPROF_OPTS_INIT;
	o.type_values = types;
	o.member_values = members;
	o.ntype_values = 4;
	CHECK_OK(pms_export_pprof(st, &o, &gz, &len));
	Perftools__Profiles__Profile *p = decode(gz, len);
	CHECK(p != NULL);
	if (p) {
		uint64_t by = 0, tail = 0, none = 0;
		CHECK_EQ_U64(p->n_sample, 3);
		for (size_t i = 0; i < p->n_sample; i++) {
			const char *t = label_str(p, p->sample[i], "type");
			const char *m = label_str(p, p->sample[i], "member");
			uint64_t v = (uint64_t)p->sample[i]->value[0];
			if (t && !strcmp(t, "struct rec") && m && !strcmp(m, "b[2].y[1]"))
				by += v;
			else if (t && !strcmp(t, "struct rec") && m && !strcmp(m, "tail"))
				tail += v;
			else if (!t && !m)
				none += v;
		}
		CHECK_EQ_U64(by, 2);
		CHECK_EQ_U64(tail, 1);
		CHECK_EQ_U64(none, 2);
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	free(gz);
	pms_export_stacks_free(st);
	pms_memreport_free(rep);
	pms_memprof_free(prof);
}
