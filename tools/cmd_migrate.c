/* pmuscope migrate: move the pages of an address range of a live process to
 * a node (or interleave them over several), in batches of move_pages
 * through the seam, and say how many moved, how many failed and why. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opt.h"
#include "mem_advise.h"
#include "pmuscope/advise.h"
#include "pmuscope/error.h"
#include "pmuscope/topo.h"

int cmd_migrate(const struct cli_global *g, int argc, char **argv);

enum { O_RANGE = 256, O_TO, O_BATCH, O_JSON, O_NOCAP };

static const struct cli_opt opts[] = {
	{ "pid", 'p', CLI_ARG, "PID", 'p', "the process whose pages move (required)" },
	{ "range", 0, CLI_ARG, "START-END", O_RANGE,
	  "the address range [START, END), hex (0x...) or decimal (required)" },
	{ "to", 0, CLI_ARG, "NODE[,NODE...]", O_TO,
	  "the target node; several: interleave the pages over them\n(page i to the i-th node, "
	  "round robin)" },
	{ "batch", 0, CLI_ARG, "N", O_BATCH, "pages per move_pages call (default 512)" },
	{ "no-capacity-check", 0, CLI_NOARG, NULL, O_NOCAP,
	  "move even when the pages exceed the target's free memory\n(the kernel then "
	  "fails the rest with ENOMEM)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "the result as JSON" },
	{ 0 },
};

const struct cli_spec cli_spec_migrate = {
	.name = "migrate",
	.synopsis = "migrate -p PID --range START-END --to NODE[,NODE...] [--json]",
	.description =
		"Move the pages of [START, END) of process PID to NODE with move_pages(2), in\n"
		"batches: each batch is queried, the pages not on their target are moved, and\n"
		"the batch is queried again.  Prints pages moved, already there, not present\n"
		"(never touched or not mapped), and failed, counted by the errno the kernel\n"
		"gave (EBUSY: pinned or in use; EACCES: shared with another process; ENOMEM:\n"
		"the node is full; EPERM: not your process).  Before moving, the pages to move\n"
		"are checked against the target's free memory (refused if they do not fit).\n"
		"`pmuscope mem --advise` prints these command lines for its advice.",
	.opts = opts,
	.footer = "Exit status: 0 when every present page is on its target; 1 when some\n"
		  "failed or nothing could be moved; 2 usage error.",
	.stop_at_operand = false,
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || strchr(s, '-'))
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *dash = strchr(s, '-');
	char a[64];
	if (!dash || (size_t)(dash - s) >= sizeof(a))
		return -1;
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = 0;
	if (parse_u64(a, start) < 0 || parse_u64(dash + 1, end) < 0 || *end <= *start)
		return -1;
	return 0;
}

static int parse_nodes(const char *s, int *nodes, size_t cap, size_t *n)
{
	*n = 0;
	while (*s) {
		long v;
		char buf[16];
		size_t len = strcspn(s, ",");
		if (!len || len >= sizeof(buf) || *n == cap)
			return -1;
		memcpy(buf, s, len);
		buf[len] = 0;
		if (cli_parse_long(buf, 0, 1023, &v) < 0)
			return -1;
		nodes[(*n)++] = (int)v;
		s += len;
		if (*s == ',' && !*++s)
			return -1;
	}
	return *n ? 0 : -1;
}

int cmd_migrate(const struct cli_global *g, int argc, char **argv)
{
	struct cli_parser p;
	long v;
	int c, rc = CLI_EXIT_FAIL;
	pid_t pid = 0;
	uint64_t start = 0, end = 0;
	int nodes[64];
	size_t nnodes = 0, batch = 0;
	bool json = false, nocap = false, have_range = false;
	cli_parser_init(&p, &cli_spec_migrate, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case 'p':
			if (cli_parse_long(p.arg, 1, 0x7fffffff, &v) < 0)
				return cli_bad_arg(&p, "a process id");
			pid = (pid_t)v;
			break;
		case O_RANGE:
			if (parse_range(p.arg, &start, &end) < 0)
				return cli_bad_arg(&p, "START-END with START < END (0x... or decimal)");
			have_range = true;
			break;
		case O_TO:
			if (parse_nodes(p.arg, nodes, 64, &nnodes) < 0)
				return cli_bad_arg(&p, "a node number 0..1023, or a comma list of them");
			break;
		case O_BATCH:
			if (cli_parse_long(p.arg, 1, 65536, &v) < 0)
				return cli_bad_arg(&p, "pages per call 1..65536");
			batch = (size_t)v;
			break;
		case O_NOCAP: nocap = true; break;
		case O_JSON: json = true; break;
		case CLI_OPERAND:
			return cli_usage(&cli_spec_migrate, "unexpected operand '%s'", p.arg);
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	if (!pid || !have_range || !nnodes)
		return cli_usage(&cli_spec_migrate, "-p PID, --range START-END and --to NODE are required");

	struct pms_sys *sys = cli_open_sys(g);
	struct pms_topo *topo = NULL;
	if (!sys)
		return CLI_EXIT_FAIL;
	if (!pms_sys_is_live(sys)) {
		fprintf(stderr, "pmuscope: migrate: moves pages of this machine only; --root %s is a "
				"snapshot\n", pms_sys_root(sys));
		goto out;
	}
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		fprintf(stderr, "pmuscope: migrate: no process %d\n", (int)pid);
		goto out;
	}
	if (pms_topo_load(sys, &topo) < 0) {
		cli_fail("migrate: topology");
		goto out;
	}
	for (size_t i = 0; i < nnodes; i++)
		if (!pms_topo_node(topo, nodes[i])) {
			fprintf(stderr, "pmuscope: migrate: node %d does not exist here (pmuscope "
					"topology lists the nodes)\n", nodes[i]);
			goto out;
		}
	struct pms_migrate_opts mo = PMS_MIGRATE_OPTS_INIT;
	long ps = sysconf(_SC_PAGESIZE);
	mo.page_size = ps > 0 ? (size_t)ps : 4096;
	mo.batch = batch;
	mo.topo = nocap ? NULL : topo;
	struct pms_migrate_result res;
	int mr = pms_migrate_range(sys, pid, start, end, nodes, nnodes, &mo, &res);
	if (json) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		pms_json_begin_object(&j, NULL);
		pms_json_int(&j, "pid", pid);
		char b[32];
		snprintf(b, sizeof(b), "0x%" PRIx64, start);
		pms_json_str(&j, "start", b);
		snprintf(b, sizeof(b), "0x%" PRIx64, end);
		pms_json_str(&j, "end", b);
		pms_json_begin_array(&j, "to");
		for (size_t i = 0; i < nnodes; i++)
			pms_json_int(&j, NULL, nodes[i]);
		pms_json_end_array(&j);
		pms_render_migrate_json(&j, "result", &res);
		pms_json_str(&j, "error", mr < 0 ? pms_error_last() : NULL);
		cli_json_finish(&j);
	} else {
		printf("pid %d 0x%" PRIx64 "-0x%" PRIx64 ": ", (int)pid, start, end);
		pms_migrate_render_text(stdout, &res, nodes, nnodes);
	}
	if (mr < 0) {
		cli_fail("migrate");
		if (pms_error_errno() == EPERM)
			fprintf(stderr, "pmuscope: migrate: moving another user's pages needs the "
					"right to ptrace the process (same user or CAP_SYS_PTRACE)\n");
		goto out;
	}
	if (res.failed) {
		fprintf(stderr, "pmuscope: migrate: %" PRIu64 " of %" PRIu64 " pages failed to move\n",
			res.failed, res.pages);
		goto out;
	}
	rc = CLI_EXIT_OK;
out:
	pms_topo_free(topo);
	pms_sys_free(sys);
	return rc;
}
