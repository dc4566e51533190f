/* pms_session_site_plan (pmuscope/session.h): the advice per allocation
 * site of a session's report, its blocks named by the session's allocation
 * table (pms_session_alloc_lookup).  Over a recorded file with no tracked
 * allocation: every lookup finds none, and the plan is the one
 * pms_site_plan_new makes with a lookup that finds none (sites, samples,
 * actions); NULL arguments are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pmuscope/error.h"
#include "pmuscope/session.h"

static bool none(void *ud, uint32_t pid, uint64_t addr, uint64_t time, uint64_t *start,
		 uint64_t *end)
{
	(void)pid, (void)addr, (void)time, (void)start, (void)end;
	(*(size_t *)ud)++;
	return false;
}

PMS_TEST(plan_as_site_plan_new_with_the_table)
{
	char path[4200];
	const char *fx = getenv("PMS_FIXTURES");
	snprintf(path, sizeof(path), "%s/../fuzz/corpus/c2c/mem_o_software.data",
		 fx ? fx : "tests/fixtures");
	const char *paths[1] = { path };
	struct pms_session_opts o = PMS_SESSION_OPTS_INIT;
	struct pms_session *s = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_pathreport *prep = NULL;
	o.symbols = false;
	CHECK_OK(pms_session_open_files(NULL, paths, 1, &o, &s));
	CHECK_OK(pms_session_run(s));
	CHECK_OK(pms_session_report(s, NULL, &rep, &prep));
	CHECK(rep->nall > 2);
	CHECK(!pms_session_has_alloc(s));
	/* the file holds no tracked allocation: none holds any sample */
	struct pms_alloc_info info;
	for (size_t i = 0; i < rep->nall; i++)
		CHECK(pms_session_alloc_lookup(s, rep->all[i].s.pid, rep->all[i].s.addr,
					       rep->all[i].s.time, &info) == -1);
	/* two sites by hand: even samples in 0, odd in 1 */
	long *ss = calloc(rep->nall, sizeof(*ss));
	CHECK(ss != NULL);
	for (size_t i = 0; i < rep->nall; i++)
		ss[i] = (long)(i % 2);
	struct pms_alloc_report ar = { .sample_site = ss, .nsample_site = rep->nall };
	struct pms_site_plan *p = NULL, *q = NULL;
	size_t calls = 0;
	CHECK_OK(pms_session_site_plan(s, rep, &ar, NULL, &p));
	CHECK_OK(pms_site_plan_new(rep, ss, rep->nall, none, &calls, NULL, &q));
	CHECK(calls > 0);
	CHECK_EQ_U64(p->placed, rep->nall);
	CHECK_EQ_U64(p->placed, q->placed);
	CHECK_EQ_U64(p->nitems, q->nitems);
	CHECK_EQ_U64(p->nitems, 2);
	for (size_t i = 0; i < p->nitems && i < q->nitems; i++) {
		CHECK_EQ_U64(p->items[i].site, q->items[i].site);
		CHECK_EQ_U64(p->items[i].samples, q->items[i].samples);
		CHECK_EQ_U64(p->items[i].samples, (rep->nall + 1 - p->items[i].site) / 2);
		CHECK_EQ_INT(p->items[i].action, q->items[i].action);
		CHECK_EQ_U64(p->items[i].nblocks, 0);
	}
	pms_site_plan_free(q);
	pms_site_plan_free(p);
	p = NULL;
	CHECK_EQ_INT(pms_session_site_plan(NULL, rep, &ar, NULL, &p), PMS_EINVAL);
	CHECK_EQ_INT(pms_session_site_plan(s, NULL, &ar, NULL, &p), PMS_EINVAL);
	CHECK_EQ_INT(pms_session_site_plan(s, rep, NULL, NULL, &p), PMS_EINVAL);
	CHECK_EQ_INT(pms_session_site_plan(s, rep, &ar, NULL, NULL), PMS_EINVAL);
	CHECK(p == NULL);
	free(ss);
	pms_pathreport_free(prep);
	pms_memreport_free(rep);
	pms_session_free(s);
}

PMS_TEST_MAIN()
