/* The CLI's words around the memory report (tools/mem_render.h). */
#include <stdio.h>

#include "mem_render.h"

bool mem_say_unhonoured(const char *cmd, enum pms_engine e,
			const struct pms_sampler_unhonoured *u, size_t n, bool strict, bool say)
{
	for (size_t i = 0; i < n && (say || strict); i++)
		fprintf(stderr, "pmuscope: %s: %s%s is not honoured by the %s engine: %s%s\n", cmd,
			strict ? "error: " : "", u[i].option, pms_engine_name(e), u[i].why,
			strict ? " (--strict)" : "");
	return strict && n;
}

int mem_engine_parse(const char *name, enum pms_engine *e)
{
	enum pms_engine v;
	/* memory engines only: "none" and "ibs_fetch" are no choice */
	if (pms_engine_parse(name, &v) < 0 || v == PMS_ENG_NONE || v == PMS_ENG_IBS_FETCH)
		return -1;
	*e = v;
	return 0;
}

void mem_render_warn_loss(const struct pms_render_mem_opts *m, const struct pms_memreport *r)
{
	char warn[600];
	(void)pms_render_mem_loss(m, r, warn, sizeof(warn));
	if (warn[0])
		fprintf(stderr, "pmuscope: %s: warning: %s\n", m->command, warn);
}
