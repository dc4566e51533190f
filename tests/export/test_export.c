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
	CHECK_OK(pms_export_stacks_new(f.rep, &st));
	CHECK_EQ_U64(st->nsamples, 5);
	CHECK_EQ_U64(st->off[5], 4);
	for (size_t i = 0; i < 3; i++)
		CHECK_EQ_U64(st->off[i + 1] - st->off[i], 1);
	CHECK_EQ_U64(st->off[4] - st->off[3], 0);
	CHECK_EQ_STR(f.rep->sites[st->frame[0]].name, "pms_t_load_a");
	CHECK_EQ_STR(f.rep->sites[st->frame[2]].name, "pms_t_load_b");
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
	CHECK_EQ_INT(pms_export_stacks_new(f.rep, &st), PMS_EINVAL);
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
	CHECK_OK(pms_export_stacks_new(f.rep, &st));
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

PMS_TEST(pprof_values_labels_locations_mappings)
{
	struct fixture f;
	struct pms_export_stacks *st = NULL;
	void *gz = NULL;
	size_t len = 0;
	build(&f, false);
	CHECK_OK(pms_export_stacks_new(f.rep, &st));
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
	CHECK(label_str(p, s, "object") != NULL && !strncmp(label_str(p, s, "object"), "anon 0x10000000", 15));
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
	CHECK_OK(pms_export_stacks_new(rep, &st));
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
	CHECK_OK(pms_export_stacks_new(rep, &st));
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

PMS_TEST_MAIN()
