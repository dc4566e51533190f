/* Where DAMON sits in the engine ladder: after IBS/PEBS/SPE, before the
 * software page-fault fallback (include/pmuscope/damon.h). */
#include "pmuscope/damon.h"
#include "pmuscope/sampler.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int pms_damon_choose(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, bool *use_damon, char *reason,
		     size_t reason_len)
{
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	struct pms_sampler_attempt *att = NULL;
	struct pms_damon_probe pr;
	enum pms_engine eng = PMS_ENG_NONE;
	size_t n = 0;
	int ret;

	if (!sys || !use_damon || !reason || !reason_len)
		return pms_err(PMS_EINVAL, "pms_damon_choose: NULL argument");
	*use_damon = false;
	reason[0] = '\0';
	so.target = PMS_TARGET_PID;
	so.pid = getpid();
	/* a failed probe means no engine at all, which leaves DAMON too */
	if (pmus && topo && pms_sampler_probe(sys, pmus, topo, &so, &eng, &att, &n) < 0)
		eng = PMS_ENG_NONE;
	free(att);
	if (eng != PMS_ENG_NONE && eng != PMS_ENG_SOFTWARE) {
		snprintf(reason, reason_len, "a precise engine opens; DAMON not needed");
		return 0;
	}
	if ((ret = pms_damon_probe(sys, &pr)) < 0)
		return ret;
	*use_damon = pr.usable;
	snprintf(reason, reason_len, "%s; %s",
		 eng == PMS_ENG_SOFTWARE ? "no precise engine (IBS/PEBS/SPE) opens here"
					 : "no sampling engine opens here",
		 pr.usable ? "DAMON is usable, so its access frequencies replace first-touch "
			     "page faults"
			   : pr.reason);
	return 0;
}
