/* The allocation sites' plan of a session's report (pmuscope/session.h,
 * pms_session_site_plan): the advisor's pms_site_plan_new with the
 * session's allocation table naming each sampled block. */
#include "pmuscope/session.h"
#include "util/error.h"

/* A sample's tracked block: [start, end) of the allocation that held addr
 * at `time` (a zero-byte allocation counts one byte). */
static bool block_of(void *ud, uint32_t pid, uint64_t addr, uint64_t time, uint64_t *start,
		     uint64_t *end)
{
	struct pms_alloc_info info;
	if (pms_session_alloc_lookup(ud, pid, addr, time, &info) < 0)
		return false;
	*start = info.addr;
	*end = info.addr + (info.bytes ? info.bytes : 1);
	return true;
}

int pms_session_site_plan(struct pms_session *s, const struct pms_memreport *r,
			  const struct pms_alloc_report *ar, const struct pms_advise_opts *opts,
			  struct pms_site_plan **out)
{
	if (!s || !r || !ar || !out)
		return pms_err(PMS_EINVAL, "pms_session_site_plan: NULL argument");
	return pms_site_plan_new(r, ar->sample_site, ar->nsample_site, block_of, s, opts, out);
}
