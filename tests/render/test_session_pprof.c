/* pms_render_session_pprof (pmuscope/render.h): the pprof profile of a
 * session's report, the same for mem and report.  Over a recorded file:
 * the profile is byte for byte the one pms_export_pprof writes with the
 * options put together by hand (the session's maps, the file's header build
 * ids and host, the sites' labels); decoded back, every sample placed in an
 * allocation site carries its site as alloc_site and its type as
 * alloc_type, counted as placed, and the others carry neither; sites that
 * place another report's samples give no label; NULL arguments are
 * refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "export/profile.pb-c.h"
#include "pmuscope/error.h"
#include "pmuscope/render.h"
#include "pmuscope/session.h"

struct fx {
	struct pms_session *ses;
	struct pms_memreport *rep;
	struct pms_pathreport *prep;
	struct pms_export_stacks *st;
	struct pms_alloc_report ar;
	struct pms_alloc_site sites[2];
	struct pms_alloc_frame frames[3];
	long *sample_site;
	size_t placed[2];
};

/* A session over one corpus file, its report (samples kept) and stacks; an
 * allocation report by hand: site 0 (malloc called by main at a.c:7, called
 * from start; type "struct a") holds every third sample, site 1 (no
 * frames, untyped) the next ones, the rest none. */
static void fx_open(struct fx *f, const char *rel)
{
	char path[4200];
	const char *fx = getenv("PMS_FIXTURES");
	snprintf(path, sizeof(path), "%s/../fuzz/corpus/%s", fx ? fx : "tests/fixtures", rel);
	const char *paths[1] = { path };
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	o.symbols = false;
	memset(f, 0, sizeof(*f));
	CHECK_OK(pms_session_open_files(NULL, paths, 1, &o, &f->ses));
	CHECK_OK(pms_session_run(f->ses));
	CHECK_OK(pms_session_report(f->ses, NULL, &f->rep, &f->prep));
	CHECK(f->rep->nall > 3);
	CHECK_OK(pms_export_stacks_new(f->rep, NULL, &f->st));
	f->frames[0] = (struct pms_alloc_frame){ 0x401000, "malloc", NULL, 0, "" };
	f->frames[1] = (struct pms_alloc_frame){ 0x401234, "main", "/src/a.c", 7, "" };
	f->frames[2] = (struct pms_alloc_frame){ 0x401400, "start", NULL, 0, "" };
	f->sites[0] = (struct pms_alloc_site){ .kind = PMS_ALLOC_MALLOC, .frames = f->frames,
					       .nframes = 3, .node = -1, .type = "struct a",
					       .member = "" };
	f->sites[1] = (struct pms_alloc_site){ .kind = PMS_ALLOC_MALLOC, .node = -1 };
	f->sample_site = calloc(f->rep->nall, sizeof(long));
	CHECK(f->sample_site != NULL);
	for (size_t i = 0; i < f->rep->nall; i++) {
		f->sample_site[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : -1;
		if (f->sample_site[i] >= 0)
			f->placed[f->sample_site[i]]++;
	}
	f->ar = (struct pms_alloc_report){ .sites = f->sites, .nsites = 2,
					   .sample_site = f->sample_site,
					   .nsample_site = f->rep->nall, .types = true };
}

static void fx_close(struct fx *f)
{
	free(f->sample_site);
	pms_export_stacks_free(f->st);
	pms_pathreport_free(f->prep);
	pms_memreport_free(f->rep);
	pms_session_free(f->ses);
}

static Perftools__Profiles__Profile *decode(const void *gz, size_t len)
{
	size_t cap = 8 << 20;
	uint8_t *raw = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof(z));
	CHECK(raw != NULL);
	CHECK(inflateInit2(&z, 15 + 16) == Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END);
	size_t got = z.total_out;
	inflateEnd(&z);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, got, raw);
	free(raw);
	CHECK(p != NULL);
	return p;
}

static const char *label(const Perftools__Profiles__Profile *p,
			 const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(p->string_table[s->label[i]->key], key) && s->label[i]->str)
			return p->string_table[s->label[i]->str];
	return NULL;
}

/* The samples (value 0: samples/count) per value of key: into names[] and
 * counts[] (at most 8 values), and those without the label. */
static size_t by_label(const Perftools__Profiles__Profile *p, const char *key,
		       const char *names[8], int64_t counts[8], int64_t *without)
{
	size_t n = 0;
	*without = 0;
	for (size_t i = 0; i < p->n_sample; i++) {
		const char *v = label(p, p->sample[i], key);
		int64_t c = p->sample[i]->value[0];
		if (!v) {
			*without += c;
			continue;
		}
		size_t k = 0;
		while (k < n && strcmp(names[k], v))
			k++;
		CHECK(k < 8);
		if (k == n) {
			names[n] = v;
			counts[n++] = 0;
		}
		counts[k] += c;
	}
	return n;
}

PMS_TEST(labels_and_options_as_by_hand)
{
	struct fx f;
	fx_open(&f, "c2c/mem_o_software.data");
	void *buf = NULL, *want = NULL;
	size_t len = 0, wlen = 0;
	CHECK_OK(pms_render_session_pprof(f.ses, f.rep, &f.ar, f.st, "note", &buf, &len));

	/* by hand: what mem and report each put together before */
	struct pms_export_pprof_opts po = PMS_EXPORT_PPROF_OPTS_INIT;
	const struct pms_perfdata_info *info =
		pms_perfdata_reader_info(pms_session_reader(f.ses, 0));
	struct pms_export_build_id *ids = NULL;
	size_t nids = 0;
	CHECK_OK(pms_export_build_ids(NULL, &info, 1, &ids, &nids));
	const char **sites = calloc(f.rep->nall, sizeof(*sites));
	const char **types = calloc(f.rep->nall, sizeof(*types));
	CHECK(sites && types);
	/* a site's label as the sites table names it: its first frame with a
	 * source file, that frame's function and its caller; without frames
	 * the allocation's kind */
	for (size_t i = 0; i < f.rep->nall; i++) {
		sites[i] = f.sample_site[i] == 0   ? "a.c:7 (main <- start)"
			   : f.sample_site[i] == 1 ? "[malloc]"
						   : NULL;
		types[i] = f.sample_site[i] == 0 ? "struct a" : NULL;
	}
	po.comment = "note";
	po.maps = pms_memprof_maps(pms_session_profile(f.ses));
	po.host = info->hostname;
	po.build_ids = ids;
	po.nbuild_ids = nids;
	po.extra_key = "alloc_site";
	po.extra_values = sites;
	po.nextra_values = f.rep->nall;
	po.alloc_type_values = types;
	po.nalloc_type_values = f.rep->nall;
	CHECK_OK(pms_export_pprof(f.st, &po, &want, &wlen));
	CHECK_EQ_U64(len, wlen);
	CHECK(len == wlen && !memcmp(buf, want, len));

	/* decoded: the labels counted as placed */
	Perftools__Profiles__Profile *p = decode(buf, len);
	const char *names[8];
	int64_t counts[8], without;
	CHECK_EQ_U64(by_label(p, "alloc_site", names, counts, &without), 2);
	size_t k = strcmp(names[0], "[malloc]") ? 0 : 1; /* in the profile's order */
	CHECK_EQ_STR(names[k], "a.c:7 (main <- start)");
	CHECK_EQ_U64(counts[k], f.placed[0]);
	CHECK_EQ_STR(names[1 - k], "[malloc]");
	CHECK_EQ_U64(counts[1 - k], f.placed[1]);
	CHECK_EQ_U64(without, f.rep->nall - f.placed[0] - f.placed[1]);
	CHECK_EQ_U64(by_label(p, "alloc_type", names, counts, &without), 1);
	CHECK_EQ_STR(names[0], "struct a");
	CHECK_EQ_U64(counts[0], f.placed[0]);
	/* no types sink: no type or member label */
	CHECK_EQ_U64(by_label(p, "type", names, counts, &without), 0);
	CHECK_EQ_U64(by_label(p, "member", names, counts, &without), 0);
	if (info->hostname) {
		CHECK_EQ_U64(by_label(p, "host", names, counts, &without), 1);
		CHECK_EQ_STR(names[0], info->hostname);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(buf);
	free(want);
	free(sites);
	free(types);
	free(ids);
	fx_close(&f);
}

PMS_TEST(sites_of_another_report_give_no_label)
{
	struct fx f;
	fx_open(&f, "c2c/mem_o_software.data");
	void *buf = NULL;
	size_t len = 0;
	const char *names[8];
	int64_t counts[8], without;
	f.ar.nsample_site = f.rep->nall - 1; /* placed another report's samples */
	CHECK_OK(pms_render_session_pprof(f.ses, f.rep, &f.ar, f.st, NULL, &buf, &len));
	Perftools__Profiles__Profile *p = decode(buf, len);
	CHECK_EQ_U64(by_label(p, "alloc_site", names, counts, &without), 0);
	CHECK_EQ_U64(by_label(p, "alloc_type", names, counts, &without), 0);
	CHECK_EQ_U64(without, f.rep->nall);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(buf);
	buf = NULL;
	/* no sites at all: the same profile */
	void *none = NULL;
	size_t nlen = 0;
	CHECK_OK(pms_render_session_pprof(f.ses, f.rep, NULL, f.st, NULL, &none, &nlen));
	CHECK_OK(pms_render_session_pprof(f.ses, f.rep, &f.ar, f.st, NULL, &buf, &len));
	CHECK(len == nlen && !memcmp(buf, none, len));
	free(none);
	free(buf);

	CHECK_EQ_INT(pms_render_session_pprof(NULL, f.rep, NULL, f.st, NULL, &buf, &len),
		     PMS_EINVAL);
	CHECK_EQ_INT(pms_render_session_pprof(f.ses, NULL, NULL, f.st, NULL, &buf, &len),
		     PMS_EINVAL);
	CHECK_EQ_INT(pms_render_session_pprof(f.ses, f.rep, NULL, NULL, NULL, &buf, &len),
		     PMS_EINVAL);
	CHECK_EQ_INT(pms_render_session_pprof(f.ses, f.rep, NULL, f.st, NULL, NULL, &len),
		     PMS_EINVAL);
	fx_close(&f);
}

PMS_TEST_MAIN()
