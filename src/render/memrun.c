/* The run-specific parts of `pmuscope mem`'s report (pmuscope/render_cmd.h):
 * the target, the workload, the exit and --verify-node, as JSON members and
 * text the memory report's renderers call back (pms_render_mem_opts'
 * json_run, json_verify, text_verify), and the report's target line. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "pmuscope/render_cmd.h"
#include "pmuscope/util.h"

static const char *sig_name(int sig)
{
	const char *d = sigabbrev_np(sig);
	return d ? d : "?";
}

void pms_render_mem_run_json(struct pms_json *j, const void *ud)
{
	const struct pms_render_mem_run *d = ud;
	pms_json_begin_object(j, "target");
	static const char *const kinds[] = { "workload", "command", "pid", "system" };
	pms_json_str(j, "kind", kinds[d->kind]);
	if (d->pid > 0)
		pms_json_int(j, "pid", d->pid);
	else
		pms_json_null(j, "pid");
	pms_json_begin_array(j, "argv");
	for (char **a = d->cmd; a && *a; a++)
		pms_json_str(j, NULL, *a);
	pms_json_end_array(j);
	pms_json_end_object(j);
	if (d->kind == PMS_RUN_WORKLOAD) {
		pms_json_begin_object(j, "workload");
		pms_json_hex(j, "buffer_start", d->wl.have, d->wl.start);
		pms_json_uint(j, "buffer_size", d->wl.have ? d->wl.size : d->wl_size);
		pms_json_int(j, "threads", d->wl_threads);
		if (d->wl_node >= 0)
			pms_json_int(j, "requested_node", d->wl_node);
		else
			pms_json_null(j, "requested_node");
		if (d->wl.have && d->wl.home >= 0)
			pms_json_int(j, "home_node", d->wl.home);
		else
			pms_json_null(j, "home_node");
		pms_json_end_object(j);
	} else {
		pms_json_null(j, "workload");
	}
	pms_json_begin_object(j, "exit");
	if (!d->oc.have_status) {
		pms_json_str(j, "how", d->pid > 0 && d->kind == PMS_RUN_PID ? "still running" : "none");
		pms_json_null(j, "code");
		pms_json_null(j, "signal");
	} else if (WIFEXITED(d->oc.status)) {
		pms_json_str(j, "how", "exited");
		pms_json_int(j, "code", WEXITSTATUS(d->oc.status));
		pms_json_null(j, "signal");
	} else {
		pms_json_str(j, "how", "signaled");
		pms_json_null(j, "code");
		pms_json_int(j, "signal", WTERMSIG(d->oc.status));
		pms_json_str(j, "signal_name", sig_name(WTERMSIG(d->oc.status)));
		pms_json_bool(j, "core_dumped", WCOREDUMP(d->oc.status));
	}
	pms_json_bool(j, "interrupted", d->oc.interrupted);
	pms_json_bool(j, "timed_out", d->oc.timed_out);
	pms_json_end_object(j);
	pms_json_double(j, "duration_s", d->oc.seconds);
	pms_render_advice_json(j, d->advice, d->after, d->pid, d->cmd);
}

void pms_render_mem_verify_json(struct pms_json *j, const void *ud)
{
	const struct pms_render_mem_run *d = ud;
	pms_json_bool(j, "requested", d->verify);
	if (d->verify && d->wl.have && d->wl.vchecked >= 0) {
		pms_json_str(j, "how", "workload buffer pages: get_mempolicy vs move_pages, in the workload");
		pms_json_int(j, "checked", d->wl.vchecked);
		pms_json_int(j, "disagree", d->wl.vdis);
		pms_json_int(j, "errors", d->wl.verr);
	} else {
		pms_json_str(j, "how", d->verify ? "not possible: get_mempolicy answers only for the "
						   "calling process, and the profiled one is another"
						 : NULL);
		pms_json_null(j, "checked");
		pms_json_null(j, "disagree");
		pms_json_null(j, "errors");
	}
}

void pms_render_mem_verify_text(FILE *out, const void *ud)
{
	const struct pms_render_mem_run *d = ud;
	if (d->verify) {
		if (d->wl.have && d->wl.vchecked >= 0)
			fprintf(out, "  verify: %ld buffer pages, get_mempolicy vs move_pages: %ld disagree, "
			       "%ld errors\n",
			       d->wl.vchecked, d->wl.vdis, d->wl.verr);
		else
			fprintf(out, "  verify: not possible (get_mempolicy answers only for the calling "
			       "process)\n");
	}
}

/* "built-in pointer chase, ..." for the report's first line. */
void pms_render_mem_target(const struct pms_render_mem_run *d, char *buf, size_t size)
{
	size_t k = 0;
	switch (d->kind) {
	case PMS_RUN_WORKLOAD:
	{
		char hs[32];
		snprintf(buf, size, "built-in pointer chase, %s, %d thread(s)",
			 pms_human_size(d->wl_size, hs, sizeof(hs)), d->wl_threads);
	}
		break;
	case PMS_RUN_COMMAND:
		k = (size_t)snprintf(buf, size, "command");
		for (char **a = d->cmd; *a && k < size; a++)
			k += (size_t)snprintf(buf + k, size - k, " %s", *a);
		break;
	case PMS_RUN_PID: snprintf(buf, size, "pid %d", (int)d->pid); break;
	case PMS_RUN_SYSTEM: snprintf(buf, size, "system-wide"); break;
	}
}
