/* pmuscope script: one line (or JSON object) per sample of a perf.data file,
 * with data_src in perf's exact `perf script -F data_src` text. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opt.h"
#include "pmuscope/error.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/script.h"
#include "script_cli.h"

int cmd_script(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256, O_HEADER, O_ITRACE, O_NS, O_COMMS, O_PID, O_TID, O_TIME, O_NOINL };

static const struct cli_opt opts[] = {
	{ "input", 'i', CLI_ARG, "FILE", 'i',
	  "the perf.data file; '-' reads a pipe-mode stream from stdin\n"
	  "(default perf.data)" },
	{ "fields", 'F', CLI_ARG, "FIELDS", 'F',
	  "comma-separated: comm pid tid cpu time event ip addr\n"
	  "phys_addr node period weight ins_lat data_src type\n"
	  "callchain (one frame a line after the sample's, as perf)\n"
	  "brstack (perf's FROM/TO/M/X/A/CYCLES/TYPE/SPEC per branch)\n"
	  "(default comm,pid,tid,cpu,time,event,ip,addr,weight,data_src)\n"
	  "data_src is perf script's text: value as %16x, then\n"
	  "|OP ..|LVL ..|SNP ..|TLB ..|LCK ..|BLK .." },
	{ "hide-call-graph", 'G', CLI_NOARG, NULL, 'G',
	  "print the sample's own IP, not its call chain" },
	{ "ns", 0, CLI_NOARG, NULL, O_NS, "times in nanoseconds (perf's --ns)" },
	{ "no-inline", 0, CLI_NOARG, NULL, O_NOINL, "DWARF chains: no inlined frames (perf's)" },
	{ "symbols", 'S', CLI_ARG, "SYM,...", 'S', "only samples whose IP is in one of these functions" },
	{ "comms", 0, CLI_ARG, "COMM,...", O_COMMS, "only samples of these commands" },
	{ "pid", 0, CLI_ARG, "PID,...", O_PID, "only samples of these processes" },
	{ "tid", 0, CLI_ARG, "TID,...", O_TID, "only samples of these threads" },
	{ "cpu", 'C', CLI_ARG, "CPUS", 'C', "only samples taken on these CPUs (0-3,7)" },
	{ "time", 0, CLI_ARG, "START,END", O_TIME,
	  "only samples in [START, END] (seconds.fraction, either may be\n"
	  "empty)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "one JSON object per line per sample (JSON Lines)" },
	{ "header", 0, CLI_NOARG, NULL, O_HEADER, "print the header features and record counts instead" },
	{ "itrace", 0, CLI_ARG, "LETTERS", O_ITRACE,
	  "samples made from an Arm SPE AUX trace, as perf's\n"
	  "--itrace: M memory operations (the default), b\n"
	  "mispredicted branches (ip = PC, addr = branch target,\n"
	  "weight = latency; perf's \"branch-miss\"), or both" },
	{ 0 },
};

const struct cli_spec cli_spec_script = {
	.name = "script",
	.synopsis = "script [-i FILE | FILE] [-F FIELDS] [--json] [--header]",
	.description =
		"Print every sample of a perf.data file (file or pipe mode, either byte\n"
		"order, zstd-compressed records unpacked), one line per sample in file\n"
		"order, fields separated by spaces in the order given.",
	.opts = opts,
	.footer = "Records that do not decode are skipped and counted on stderr, as perf\n"
		  "does.  Exit status: 0 ok, 1 the file cannot be read, 2 usage error.",
};

/* What the options say, applied once they are all in. */
struct args {
	const char *path, *operand, *fields;
	bool have_i, json, header, done;
	unsigned flags;
	const char *farg[8];
	size_t nfarg;
	const char *filt[6]; /* by enum pms_script_filter: the last one given */
};

static int take_itrace(struct args *a, const char *arg)
{
	a->flags &= ~(unsigned)(PMS_SCRIPT_ITRACE_MEM | PMS_SCRIPT_ITRACE_BRANCH);
	for (const char *l = arg; *l; l++) {
		if (*l == 'M')
			a->flags |= PMS_SCRIPT_ITRACE_MEM;
		else if (*l == 'b')
			a->flags |= PMS_SCRIPT_ITRACE_BRANCH;
		else
			return cli_usage(&cli_spec_script, "--itrace '%s': the letters are M (memory) "
					 "and b (mispredicted branches)", arg);
	}
	if (!(a->flags & (PMS_SCRIPT_ITRACE_MEM | PMS_SCRIPT_ITRACE_BRANCH)))
		return cli_usage(&cli_spec_script, "--itrace: give M, b or Mb");
	return 0;
}

/* The options into a; 0, or the exit status (a->done: exit with it). */
static int parse(struct args *a, int argc, char **argv)
{
	struct cli_parser cp;
	int c, rc;
	cli_parser_init(&cp, &cli_spec_script, argc, argv);
	while ((c = cli_next(&cp)) > 0) {
		switch (c) {
		case O_JSON: a->json = true; break;
		case O_HEADER: a->header = true; break;
		case 'i': a->path = cp.arg; a->have_i = true; break;
		case CLI_OPERAND:
			/* `script FILE` as users type it; -i FILE as perf takes it */
			if (a->operand)
				return cli_usage(&cli_spec_script, "one FILE at most ('%s' and '%s')",
						 a->operand, cp.arg);
			a->operand = cp.arg;
			break;
		case 'F':
			a->fields = cp.arg;
			if (a->nfarg == sizeof(a->farg) / sizeof(a->farg[0]))
				return cli_usage(&cli_spec_script, "-F: at most %zu times", a->nfarg);
			a->farg[a->nfarg++] = cp.arg;
			break;
		case 'G': a->flags |= PMS_SCRIPT_HIDE_CHAIN; break;
		case O_NS: a->flags |= PMS_SCRIPT_NS; break;
		case O_NOINL: a->flags |= PMS_SCRIPT_NO_INLINE; break;
		case 'S': a->filt[PMS_SCRIPT_F_SYMBOLS] = cp.arg; break;
		case O_COMMS: a->filt[PMS_SCRIPT_F_COMMS] = cp.arg; break;
		case O_PID: a->filt[PMS_SCRIPT_F_PIDS] = cp.arg; break;
		case O_TID: a->filt[PMS_SCRIPT_F_TIDS] = cp.arg; break;
		case 'C': a->filt[PMS_SCRIPT_F_CPUS] = cp.arg; break;
		case O_TIME: a->filt[PMS_SCRIPT_F_TIME] = cp.arg; break;
		case O_ITRACE:
			if ((rc = take_itrace(a, cp.arg)) != 0)
				return rc;
			break;
		default: return cli_usage(&cli_spec_script, "'%s' is not an argument of script", cp.arg);
		}
	}
	if (c != CLI_END) {
		a->done = true; /* --help, or a usage error said */
		return cli_exit_code(c);
	}
	if (cp.ind < argc)
		return cli_usage(&cli_spec_script, "'%s' is not an argument of script", argv[cp.ind]);
	if (a->operand) {
		if (a->have_i)
			return cli_usage(&cli_spec_script, "'%s': the file is already given by -i",
					 a->operand);
		a->path = a->operand;
	}
	return 0;
}

/* The filters and perf's -F arguments into s; 0, or the exit status. */
static int setup(struct pms_script *s, const struct args *a)
{
	for (int k = 0; k < 6; k++) {
		if (!a->filt[k])
			continue;
		if (pms_script_filter(s, k, a->filt[k]) < 0) {
			if (k == PMS_SCRIPT_F_CPUS)
				return cli_usage(&cli_spec_script, "-C '%s': %s", a->filt[k],
						 pms_error_last());
			if (k == PMS_SCRIPT_F_TIME)
				return cli_usage(&cli_spec_script, "--time '%s': give START,END in "
						 "seconds (either may be empty; perf's percent "
						 "forms are not taken)", a->filt[k]);
			return cli_fail("script");
		}
	}
	for (size_t i = 0; !a->json && i < a->nfarg; i++) {
		int rc = pms_script_fields(s, a->farg[i]);
		if (rc == PMS_ENOTSUP)
			fprintf(stderr, "pmuscope: script: %s\n", pms_error_last());
		else if (rc < 0)
			fprintf(stderr, "%s\n", pms_error_last());
		if (rc < 0)
			return 2;
	}
	return 0;
}

/* What the reader skipped or found corrupt, and the AUX data lost. */
static void problems(struct pms_script *s, const char *path)
{
	struct pms_perfdata_reader *r = pms_script_reader(s);
	const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
	const struct pms_spe_chunk_stats *spe = pms_script_spe_stats(s);
	size_t n = pms_perfdata_reader_nproblems(r), i;
	const char *m;
	for (i = 0; (m = pms_perfdata_reader_problem(r, i)) != NULL; i++)
		fprintf(stderr, "pmuscope: script: %s: warning: %s\n", path, m);
	if (n > i)
		fprintf(stderr, "pmuscope: script: %s: warning: %zu more problems not shown\n", path,
			n - i);
	if (st->bad_records)
		fprintf(stderr, "pmuscope: script: %s: %" PRIu64 " records skipped; last: %s\n",
			path, st->bad_records, pms_perfdata_reader_last_skip(r));
	if (st->unknown_id)
		fprintf(stderr, "pmuscope: script: %s: %" PRIu64
				" samples with an id of no event dropped\n",
			path, st->unknown_id);
	if (spe->cut_chunks || st->aux_truncated || st->aux_partial)
		fprintf(stderr,
			"pmuscope: script: %s: AUX data lost: %" PRIu64 " SPE records cut by "
			"the end of their chunk (%" PRIu64 " bytes) dropped; %" PRIu64
			" AUX records truncated, %" PRIu64 " partial\n",
			path, spe->cut_chunks, spe->cut_bytes, st->aux_truncated, st->aux_partial);
}

/* Every sample's text or JSON row into o; the pull's status. */
static int emit(struct pms_script *s, struct pms_render_script *js, struct pms_render_out *o)
{
	struct pms_script_sample smp;
	int rc;
	while ((rc = pms_script_next(s, &smp)) > 0) {
		size_t n;
		if (js) {
			pms_render_script_row(js, o, &smp);
			continue;
		}
		n = pms_script_format(s, &smp, o->b + o->n, o->cap - o->n);
		if (n <= o->cap - o->n) {
			o->n += n;
			continue;
		}
		pms_render_out_flush(o);
		if (n <= o->cap) {
			o->n = pms_script_format(s, &smp, o->b, o->cap);
			continue;
		}
		char *big = malloc(n);
		if (big) {
			n = pms_script_format(s, &smp, big, n);
			fwrite(big, 1, n, o->f);
		}
		free(big);
	}
	return rc;
}

int cmd_script(const struct cli_global *g, int argc, char **argv)
{
	struct args a = { .path = "perf.data", .flags = PMS_SCRIPT_ITRACE_MEM };
	struct pms_script *s = NULL;
	struct pms_render_script *js = NULL;
	struct pms_render_out out = { .f = stdout, .b = NULL, .n = 0, .cap = 1 << 17 };
	static char obuf[1 << 20];
	struct pms_sys *sys = NULL;
	int fd = -1, rc, ret;

	if ((ret = parse(&a, argc, argv)) != 0 || a.done)
		return ret;
	a.flags |= a.json ? 0 : PMS_SCRIPT_TEXT | PMS_SCRIPT_SYMBOLS;
	a.flags |= a.header ? PMS_SCRIPT_RECORDS_ONLY : 0;
	if (a.json && (rc = pms_render_script_new(a.fields ? a.fields : "comm,pid,tid,cpu,time,event,"
						  "ip,addr,weight,data_src", &js)) < 0) {
		ret = rc == PMS_EINVAL ? cli_usage(&cli_spec_script, "%s", pms_error_last())
				       : cli_fail("script");
		goto out;
	}
	a.flags |= js && pms_render_script_node(js) ? PMS_SCRIPT_NODE : 0;
	a.flags |= js && pms_render_script_chain(js) ? PMS_SCRIPT_CHAIN | PMS_SCRIPT_SYMBOLS : 0;
	if (pms_script_new(a.flags, &s) < 0) {
		ret = cli_fail("script");
		goto out;
	}
	if ((ret = setup(s, &a)) != 0)
		goto out;
	fd = strcmp(a.path, "-") ? open(a.path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		fprintf(stderr, "pmuscope: script: %s: %s\n", a.path, strerror(errno));
		ret = 1;
		goto out;
	}
	if ((a.flags & PMS_SCRIPT_SYMBOLS) && !a.header && !(sys = cli_open_sys(g))) {
		ret = cli_fail("script");
		goto out;
	}
	if ((rc = pms_script_read(s, fd, sys)) < 0) {
		fprintf(stderr, "pmuscope: script: %s: %s\n", a.path, pms_error_last());
		ret = 1;
		goto out;
	}
	if (!(out.b = malloc(out.cap))) {
		ret = cli_fail("script");
		goto out;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	rc = emit(s, js, &out);
	pms_render_out_flush(&out);
	if (rc == PMS_EINVAL) {
		/* perf's check of the fields against the file's events */
		fflush(stdout);
		fprintf(stderr, "%s\n", pms_error_last());
		ret = 2;
		goto out;
	}
	if (a.header)
		pms_render_perfdata_header(stdout, pms_script_reader(s));
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "pmuscope: script: %s: %s\n", a.path, pms_error_last());
		ret = 1;
	}
	problems(s, a.path);
out:
	pms_script_free(s);
	pms_sys_free(sys);
	pms_render_script_free(js);
	free(out.b);
	if (fd > 0)
		close(fd);
	return ret;
}
