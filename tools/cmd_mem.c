/* pmuscope mem: the memory-access profile with NUMA-node attribution.
 * Records with the best engine the machine offers (IBS, PEBS, SPE, or the
 * labelled software fallback), resolves every sampled data address to its
 * node while the process lives, and prints which instruction touched which
 * data, served from which level, how slowly, and from which node.
 * JSON schema and field meanings: docs/mem.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mem_render.h"
#include "mem_workload.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/numa.h"
#include "pmuscope/recorder.h"
#include "pmuscope/pmu.h"
#include "pmuscope/record.h"
#include "pmuscope/report.h"
#include "pmuscope/sampler.h"
#include "pmuscope/symbols.h"
#include "pmuscope/topo.h"

int cmd_mem(const struct cli_global *g, int argc, char **argv);

static void help(FILE *f)
{
	fprintf(f,
		"usage: pmuscope mem [OPTIONS]                 profile the built-in workload\n"
		"       pmuscope mem [OPTIONS] -- COMMAND ...  profile a command\n"
		"       pmuscope mem [OPTIONS] -p PID          attach to a process\n"
		"       pmuscope mem [OPTIONS] -a              system-wide\n\n"
		"Sample memory accesses with the best precise engine this machine has\n"
		"(AMD IBS, Intel PEBS, Arm SPE; else software page-fault sampling, said\n"
		"so), resolve each data address to its NUMA node while the process\n"
		"lives (batched move_pages, cached per page), and report data-source\n"
		"levels, latency percentiles, home node vs elsewhere, the CPU-node x\n"
		"memory-node matrix, and top instructions, functions and data objects.\n\n"
		"Built-in workload (a dependent pointer chase over a random cycle):\n"
		"  --size BYTES      buffer size (K/M/G suffixes; default 64M)\n"
		"  --node N          bind the buffer to node N (default: first touch)\n"
		"  --threads N       chasing threads (default 1)\n"
		"  --steps N         dependent loads per thread (default: one lap,\n"
		"                    the buffer's word count)\n"
		"Recording:\n"
		"  -p, --pid PID     attach to PID (until it exits, Ctrl-C or --duration)\n"
		"  -a, --all-cpus    system-wide (nodes only from physical addresses)\n"
		"  --duration SEC    stop after SEC seconds\n"
		"  --engine NAME     ibs, pebs, spe or software (default: best available)\n"
		"  --period N        sample period (default: the engine's)\n"
		"  --phys            ask for physical addresses (privileged)\n"
		"  --verify-node     cross-check page nodes with get_mempolicy (built-in\n"
		"                    workload: every buffer page, in the workload itself)\n"
		"Output:\n"
		"  --json            everything as JSON (schema: docs/mem.md)\n"
		"  --samples         with --json: every sample too\n"
		"  --csv             one CSV row per sample\n"
		"  -o FILE           also write the samples as perf.data to FILE\n"
		"  --top N           entries per top list (default 10)\n"
		"  --progress        progress line on stderr (default when it is a terminal)\n"
		"  --quiet           no progress line\n"
		"  --help            this text\n\n"
		"Exit status: the command's exit status; 128+N when a signal N ended it;\n"
		"1 when pmuscope itself failed.\n");
}

/* ---- options ------------------------------------------------------------- */

enum target_kind { T_WORKLOAD, T_COMMAND, T_PID, T_SYSTEM };

struct mem_opts {
	enum target_kind kind;
	struct mem_workload_opts wl;
	pid_t pid;
	double duration;
	enum pms_engine engine;
	uint64_t period;
	bool phys, verify, json, samples, csv, quiet, progress;
	const char *out;
	size_t top;
	char **cmd;
	bool run_workload; /* internal: this process is the workload */
};

static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

enum {
	O_SIZE = 256, O_NODE, O_THREADS, O_STEPS, O_DURATION, O_ENGINE, O_PERIOD, O_PHYS,
	O_VERIFY, O_JSON, O_SAMPLES, O_CSV, O_TOP, O_QUIET, O_PROGRESS, O_HELP, O_RUNWL,
	O_REPORTFD, O_RELEASEFD,
};

static int parse_opts(int argc, char **argv, struct mem_opts *o)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "node", required_argument, NULL, O_NODE },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "steps", required_argument, NULL, O_STEPS },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "period", required_argument, NULL, O_PERIOD },
		{ "phys", no_argument, NULL, O_PHYS },
		{ "verify-node", no_argument, NULL, O_VERIFY },
		{ "json", no_argument, NULL, O_JSON },
		{ "samples", no_argument, NULL, O_SAMPLES },
		{ "csv", no_argument, NULL, O_CSV },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, O_TOP },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "help", no_argument, NULL, O_HELP },
		{ "run-workload", no_argument, NULL, O_RUNWL },
		{ "report-fd", required_argument, NULL, O_REPORTFD },
		{ "release-fd", required_argument, NULL, O_RELEASEFD },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;
	memset(o, 0, sizeof(*o));
	o->wl.size = 64u << 20;
	o->wl.node = -1;
	o->wl.threads = 1;
	o->wl.report_fd = -1;
	o->wl.release_fd = -1;
	o->kind = T_WORKLOAD;
	o->top = 10;
	o->engine = PMS_ENG_NONE;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:ao:", lo, NULL)) != -1) {
		switch (c) {
		case O_SIZE:
			if (parse_size(optarg, &o->wl.size) < 0 || o->wl.size < 16) {
				fprintf(stderr, "pmuscope: mem: --size '%s': want bytes >= 16 (K/M/G suffixes)\n", optarg);
				return -1;
			}
			break;
		case O_NODE:
			if (parse_long(optarg, 0, 1023, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: --node '%s': want a node number 0..1023\n", optarg);
				return -1;
			}
			o->wl.node = (int)v;
			break;
		case O_THREADS:
			if (parse_long(optarg, 1, 1024, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: --threads '%s': want 1..1024\n", optarg);
				return -1;
			}
			o->wl.threads = (int)v;
			break;
		case O_STEPS:
			if (parse_long(optarg, 1, 0x7fffffffffffffffL, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: --steps '%s': want a positive count\n", optarg);
				return -1;
			}
			o->wl.steps = (uint64_t)v;
			break;
		case 'p':
			if (parse_long(optarg, 1, 0x7fffffff, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: -p '%s': want a process id\n", optarg);
				return -1;
			}
			o->pid = (pid_t)v;
			o->kind = T_PID;
			break;
		case 'a':
			o->kind = T_SYSTEM;
			break;
		case O_DURATION: {
			char *end;
			o->duration = strtod(optarg, &end);
			if (end == optarg || *end || o->duration <= 0) {
				fprintf(stderr, "pmuscope: mem: --duration '%s': want seconds > 0\n", optarg);
				return -1;
			}
			break;
		}
		case O_ENGINE:
			if (mem_engine_parse(optarg, &o->engine) < 0) {
				fprintf(stderr, "pmuscope: mem: --engine '%s': want ibs, pebs, spe or software\n",
					optarg);
				return -1;
			}
			break;
		case O_PERIOD:
			if (parse_long(optarg, 1, 0x7fffffffffffffffL, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: --period '%s': want a positive count\n", optarg);
				return -1;
			}
			o->period = (uint64_t)v;
			break;
		case O_PHYS: o->phys = true; break;
		case O_VERIFY: o->verify = true; break;
		case O_JSON: o->json = true; break;
		case O_SAMPLES: o->samples = true; break;
		case O_CSV: o->csv = true; break;
		case 'o': o->out = optarg; break;
		case O_TOP:
			if (parse_long(optarg, 1, 100000, &v) < 0) {
				fprintf(stderr, "pmuscope: mem: --top '%s': want 1..100000\n", optarg);
				return -1;
			}
			o->top = (size_t)v;
			break;
		case O_QUIET: o->quiet = true; break;
		case O_PROGRESS: o->progress = true; break;
		case O_HELP: help(stdout); return 1;
		case O_RUNWL: o->run_workload = true; break;
		case O_REPORTFD:
			if (parse_long(optarg, 0, 1 << 20, &v) < 0)
				return -1;
			o->wl.report_fd = (int)v;
			break;
		case O_RELEASEFD:
			if (parse_long(optarg, 0, 1 << 20, &v) < 0)
				return -1;
			o->wl.release_fd = (int)v;
			break;
		default:
			fprintf(stderr, "pmuscope: mem: unknown option '%s' (try --help)\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		if (o->kind != T_WORKLOAD) {
			fprintf(stderr, "pmuscope: mem: a COMMAND cannot be combined with -p or -a\n");
			return -1;
		}
		o->kind = T_COMMAND;
		o->cmd = argv + optind;
	}
	if (o->json + o->csv > 1) {
		fprintf(stderr, "pmuscope: mem: --json and --csv exclude each other\n");
		return -1;
	}
	return 0;
}

/* ---- recording ----------------------------------------------------------- */

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

struct rec_ctx {
	struct pms_memprof *prof;
	struct pms_numa_oracle *oracle;
	struct pms_recorder *rec; /* -o: the perf.data file */
	int werr;                 /* first perf.data write error */
};

static int on_sample(void *ud, const struct pms_memsrc_sample *x)
{
	struct rec_ctx *c = ud;
	int rc = pms_memprof_add_src(c->prof, x);
	if (rc < 0)
		return rc;
	if (c->rec && !c->werr && (rc = pms_recorder_sample(c->rec, x)) < 0)
		c->werr = rc;
	return 0;
}

static int on_sideband(void *ud, const struct pms_record *rec, size_t attr_idx)
{
	struct rec_ctx *c = ud;
	int rc = pms_memprof_sideband(c->prof, rec, c->oracle);
	if (rc < 0)
		return rc;
	if (c->rec && !c->werr && (rc = pms_recorder_sideband(c->rec, rec, attr_idx)) < 0)
		c->werr = rc;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the workload child told us on its report pipe. */
struct wl_info {
	bool have;
	bool done; /* the chase finished; the workload waits for release */
	uint64_t start, size;
	int home;
	int threads;
	long vchecked, vdis, verr;
};

static void read_wl_pipe(int fd, char *buf, size_t *len, size_t cap, struct wl_info *wi)
{
	if (fd < 0 || wi->done)
		return;
	ssize_t n = read(fd, buf + *len, cap - 1 - *len);
	if (n <= 0)
		return;
	*len += (size_t)n;
	buf[*len] = 0;
	if (!wi->have && strchr(buf, '\n') &&
	    sscanf(buf, "buffer %" SCNx64 " %" SCNx64 " home %d threads %d verify %ld %ld %ld",
		   &wi->start, &wi->size, &wi->home, &wi->threads, &wi->vchecked, &wi->vdis,
		   &wi->verr) == 7)
		wi->have = true;
	if (strstr(buf, "\ndone\n"))
		wi->done = true;
}

struct outcome {
	bool have_status;
	int status;       /* wait status */
	bool interrupted; /* Ctrl-C / SIGTERM reached pmuscope */
	int stop_signal;
	bool timed_out;   /* --duration */
	bool target_gone; /* -p: the process went away */
	double seconds;
};

static const char *sig_name(int sig)
{
	const char *d = sigabbrev_np(sig);
	return d ? d : "?";
}

/* ---- output: the run-specific parts (the rest is mem_render.c) -------- */

struct run_desc {
	const struct mem_opts *o;
	pid_t pid;
	const struct wl_info *wl;
	const struct outcome *oc;
	const struct pms_sampler_info *info;
};

static void mem_json_run(struct json *j, const void *ud)
{
	const struct run_desc *d = ud;
	cli_json_begin_object(j, "target");
	static const char *const kinds[] = { "workload", "command", "pid", "system" };
	cli_json_str(j, "kind", kinds[d->o->kind]);
	if (d->pid > 0)
		cli_json_int(j, "pid", d->pid);
	else
		cli_json_null(j, "pid");
	cli_json_begin_array(j, "argv");
	for (char **a = d->o->cmd; a && *a; a++)
		cli_json_str(j, NULL, *a);
	cli_json_end_array(j);
	cli_json_end_object(j);
	if (d->o->kind == T_WORKLOAD) {
		cli_json_begin_object(j, "workload");
		mem_render_json_hex(j, "buffer_start", d->wl->have, d->wl->start);
		cli_json_uint(j, "buffer_size", d->wl->have ? d->wl->size : d->o->wl.size);
		cli_json_int(j, "threads", d->o->wl.threads);
		if (d->o->wl.node >= 0)
			cli_json_int(j, "requested_node", d->o->wl.node);
		else
			cli_json_null(j, "requested_node");
		if (d->wl->have && d->wl->home >= 0)
			cli_json_int(j, "home_node", d->wl->home);
		else
			cli_json_null(j, "home_node");
		cli_json_end_object(j);
	} else {
		cli_json_null(j, "workload");
	}
	cli_json_begin_object(j, "exit");
	if (!d->oc->have_status) {
		cli_json_str(j, "how", d->pid > 0 && d->o->kind == T_PID ? "still running" : "none");
		cli_json_null(j, "code");
		cli_json_null(j, "signal");
	} else if (WIFEXITED(d->oc->status)) {
		cli_json_str(j, "how", "exited");
		cli_json_int(j, "code", WEXITSTATUS(d->oc->status));
		cli_json_null(j, "signal");
	} else {
		cli_json_str(j, "how", "signaled");
		cli_json_null(j, "code");
		cli_json_int(j, "signal", WTERMSIG(d->oc->status));
		cli_json_str(j, "signal_name", sig_name(WTERMSIG(d->oc->status)));
		cli_json_bool(j, "core_dumped", WCOREDUMP(d->oc->status));
	}
	cli_json_bool(j, "interrupted", d->oc->interrupted);
	cli_json_bool(j, "timed_out", d->oc->timed_out);
	cli_json_end_object(j);
	cli_json_double(j, "duration_s", d->oc->seconds);

}

static void mem_json_verify(struct json *j, const void *ud)
{
	const struct run_desc *d = ud;
	cli_json_bool(j, "requested", d->o->verify);
	if (d->o->verify && d->wl->have && d->wl->vchecked >= 0) {
		cli_json_str(j, "how", "workload buffer pages: get_mempolicy vs move_pages, in the workload");
		cli_json_int(j, "checked", d->wl->vchecked);
		cli_json_int(j, "disagree", d->wl->vdis);
		cli_json_int(j, "errors", d->wl->verr);
	} else {
		cli_json_str(j, "how", d->o->verify ? "not possible: get_mempolicy answers only for the "
						   "calling process, and the profiled one is another"
						 : NULL);
		cli_json_null(j, "checked");
		cli_json_null(j, "disagree");
		cli_json_null(j, "errors");
	}
}

static void mem_text_verify(const void *ud)
{
	const struct run_desc *d = ud;
	const struct mem_opts *o = d->o;
	if (o->verify) {
		if (d->wl->have && d->wl->vchecked >= 0)
			printf("  verify: %ld buffer pages, get_mempolicy vs move_pages: %ld disagree, "
			       "%ld errors\n",
			       d->wl->vchecked, d->wl->vdis, d->wl->verr);
		else
			printf("  verify: not possible (get_mempolicy answers only for the calling "
			       "process)\n");
	}
}

/* "built-in pointer chase, ..." for the report's first line. */
static void mem_target_text(const struct run_desc *d, char *buf, size_t size)
{
	const struct mem_opts *o = d->o;
	size_t k = 0;
	switch (o->kind) {
	case T_WORKLOAD:
		snprintf(buf, size, "built-in pointer chase, %zu bytes, %d thread(s)", o->wl.size,
			 o->wl.threads);
		break;
	case T_COMMAND:
		k = (size_t)snprintf(buf, size, "command");
		for (char **a = o->cmd; *a && k < size; a++)
			k += (size_t)snprintf(buf + k, size - k, " %s", *a);
		break;
	case T_PID: snprintf(buf, size, "pid %d", (int)d->pid); break;
	case T_SYSTEM: snprintf(buf, size, "system-wide"); break;
	}
}

/* ---- main ---------------------------------------------------------------- */

static char *self_exe(const char *fallback)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return strdup(fallback);
	buf[n] = 0;
	return strdup(buf);
}

int cmd_mem(const struct cli_global *g, int argc, char **argv)
{
	struct mem_opts o;
	int prc = parse_opts(argc, argv, &o);
	if (prc != 0)
		return prc < 0 ? 1 : 0;
	if (o.run_workload) {
		o.wl.verify = o.verify;
		return mem_workload_run(&o.wl);
	}

	int rc = 1, exit_code = 1;
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	struct pms_child *child = NULL;
	struct pms_sampler *smp = NULL;
	struct pms_memsrc *src = NULL;
	struct pms_numa_oracle *oracle = NULL;
	struct pms_memprof *prof = NULL;
	struct pms_symbolizer *sym = NULL;
	struct pms_memreport *rep = NULL;
	struct rec_ctx *ctx = calloc(1, sizeof(*ctx));
	struct wl_info wi = { 0 };
	struct outcome oc = { 0 };
	struct pms_sampler_info info = { 0 };
	char *exe = NULL, *wl_argv[16] = { 0 }, argbuf[6][32];
	int pipefd[2] = { -1, -1 }, relfd[2] = { -1, -1 }, outfd = -1;
	char pipebuf[256];
	size_t pipelen = 0;
	pid_t pid = -1;
	struct sigaction sa, old_int, old_term;
	bool handlers = false;

	if (!ctx) {
		fprintf(stderr, "pmuscope: mem: out of memory\n");
		return 1;
	}
	sys = cli_open_sys(g);
	if (!sys)
		goto out;
	if (!pms_sys_is_live(sys)) {
		fprintf(stderr, "pmuscope: mem: records this machine only; --root %s is a snapshot\n",
			pms_sys_root(sys));
		goto out;
	}
	if (pms_pmus_load(sys, &pmus) < 0) {
		cli_fail("mem: PMU discovery");
		goto out;
	}
	if (pms_topo_load(sys, &topo) < 0) {
		cli_fail("mem: topology");
		goto out;
	}

	/* Catch SIGINT/SIGTERM before the command is forked: a caught signal
	 * is reset to its default at exec, so the command can be interrupted
	 * even where pmuscope was started with SIGINT ignored (a background
	 * job of a non-interactive shell). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	handlers = true;

	/* The target. */
	if (o.kind == T_WORKLOAD || o.kind == T_COMMAND) {
		char **cargv = o.cmd;
		if (o.kind == T_WORKLOAD) {
			if (pipe(pipefd) < 0 || pipe(relfd) < 0) {
				fprintf(stderr, "pmuscope: mem: pipe: %s\n", strerror(errno));
				goto out;
			}
			fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
			fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
			fcntl(relfd[1], F_SETFD, FD_CLOEXEC);
			exe = self_exe(g->prog);
			int k = 0;
			wl_argv[k++] = exe;
			wl_argv[k++] = (char *)"mem";
			wl_argv[k++] = (char *)"--run-workload";
			snprintf(argbuf[0], sizeof(argbuf[0]), "%zu", o.wl.size);
			wl_argv[k++] = (char *)"--size";
			wl_argv[k++] = argbuf[0];
			snprintf(argbuf[1], sizeof(argbuf[1]), "%d", o.wl.threads);
			wl_argv[k++] = (char *)"--threads";
			wl_argv[k++] = argbuf[1];
			if (o.wl.node >= 0) {
				snprintf(argbuf[2], sizeof(argbuf[2]), "%d", o.wl.node);
				wl_argv[k++] = (char *)"--node";
				wl_argv[k++] = argbuf[2];
			}
			if (o.wl.steps) {
				snprintf(argbuf[3], sizeof(argbuf[3]), "%" PRIu64, o.wl.steps);
				wl_argv[k++] = (char *)"--steps";
				wl_argv[k++] = argbuf[3];
			}
			snprintf(argbuf[4], sizeof(argbuf[4]), "%d", pipefd[1]);
			wl_argv[k++] = (char *)"--report-fd";
			wl_argv[k++] = argbuf[4];
			snprintf(argbuf[5], sizeof(argbuf[5]), "%d", relfd[0]);
			wl_argv[k++] = (char *)"--release-fd";
			wl_argv[k++] = argbuf[5];
			if (o.verify)
				wl_argv[k++] = (char *)"--verify-node";
			wl_argv[k] = NULL;
			cargv = wl_argv;
		}
		if (pms_child_spawn(sys, cargv, &child) < 0) {
			cli_fail("mem: starting the command");
			goto out;
		}
		pid = pms_child_pid(child);
		if (pipefd[1] >= 0) {
			close(pipefd[1]);
			pipefd[1] = -1;
		}
		if (relfd[0] >= 0) {
			close(relfd[0]);
			relfd[0] = -1;
		}
	} else if (o.kind == T_PID) {
		pid = o.pid;
	}

	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.target = o.kind == T_SYSTEM ? PMS_TARGET_CPUS
		    : o.kind == T_PID  ? PMS_TARGET_PID
				       : PMS_TARGET_CHILD;
	so.pid = pid;
	so.period = o.period;
	so.want_phys = o.phys;
	so.engine = o.engine;
	if (pms_sampler_open(sys, pmus, topo, &so, &smp) < 0) {
		cli_fail("mem: no sampling engine could be opened");
		goto out;
	}
	pms_sampler_info(smp, &info);
	if (pms_memsrc_open_live(smp, topo, &src) < 0) {
		cli_fail("mem: sample source");
		goto out;
	}

	struct pms_numa_opts no = PMS_NUMA_OPTS_INIT;
	no.pid = pid > 0 ? pid : 0;
	no.page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (pms_numa_oracle_new(sys, topo, &no, &oracle) < 0) {
		cli_fail("mem: node oracle");
		goto out;
	}
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.pid = pid > 0 ? pid : 0;
	po.top = o.top;
	po.home_name = "workload buffer (pointer chase)";
	if (pms_memprof_new(topo, &po, &prof) < 0) {
		cli_fail("mem: profile");
		goto out;
	}
	ctx->prof = prof;
	/* System-wide samples come from many processes: one pid's oracle would
	 * answer wrongly for the others, so only physical addresses resolve. */
	ctx->oracle = o.kind == T_SYSTEM ? NULL : oracle;
	if (o.out) {
		outfd = open(o.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (outfd < 0) {
			fprintf(stderr, "pmuscope: mem: -o %s: %s\n", o.out, strerror(errno));
			goto out;
		}
		/* perf.data gets the same rule as the report: no kernel
		 * addresses for a caller that proc/kallsyms hides them from */
		struct pms_recorder_opts ro = PMS_RECORDER_OPTS_INIT;
		struct pms_maps *none = NULL;
		struct pms_symbolizer *probe = NULL;
		if (pms_maps_new(&none) == 0 && pms_symbolizer_new(sys, none, &probe) == 0)
			ro.hide_kernel_ips = !pms_symbolizer_kernel_visible(probe);
		else
			ro.hide_kernel_ips = true;
		pms_symbolizer_free(probe);
		pms_maps_free(none);
		if (pms_recorder_open(outfd, src, &ro, &ctx->rec) < 0) {
			cli_fail("mem: perf.data");
			goto out;
		}
	}

	if (child && pms_child_start(child) < 0) {
		cli_fail("mem: running the command");
		pms_child_wait(child, false, NULL);
		goto out;
	}
	if (!child && pms_sampler_enable(smp) < 0) {
		cli_fail("mem: enabling the sampler");
		goto out;
	}

	struct pms_memsrc_callbacks cb = { on_sample, on_sideband };
	bool show_progress = !o.quiet && (o.progress || isatty(2));
	double t0 = now_s(), last_progress = t0;
	bool forwarded = false, killed = false, done = false;
	double forwarded_at = 0;
	while (!done) {
		int pr = pms_memsrc_poll(src, 100, &cb, ctx);
		if (pr < 0 && !stop_sig) {
			cli_fail("mem: reading samples");
			break;
		}
		read_wl_pipe(pipefd[0], pipebuf, &pipelen, sizeof(pipebuf), &wi);
		if (wi.done && relfd[1] >= 0) {
			/* the workload finished and waits: drain what is left
			 * while its pages still exist, then let it exit */
			(void)pms_memsrc_poll(src, 0, &cb, ctx);
		}
		/* While the process lives: its mappings, then the nodes. */
		if (pid > 0 && o.kind != T_SYSTEM)
			(void)pms_maps_read_proc(pms_memprof_maps(prof), sys, pid);
		(void)pms_memprof_resolve(prof, ctx->oracle);
		if (wi.done && relfd[1] >= 0) {
			close(relfd[1]);
			relfd[1] = -1;
		}
		double t = now_s();
		if (show_progress && t - last_progress >= 1.0) {
			struct pms_memsrc_stats st;
			pms_memsrc_stats(src, &st);
			fprintf(stderr, "\rpmuscope mem: %.0f s, %zu samples, %" PRIu64 " lost   ",
				t - t0, pms_memprof_count(prof), st.lost + st.lost_samples);
			last_progress = t;
		}
		if (stop_sig && !oc.interrupted) {
			oc.interrupted = true;
			oc.stop_signal = stop_sig;
		}
		if (o.duration > 0 && t - t0 >= o.duration && !oc.timed_out) {
			oc.timed_out = true;
			if (child)
				kill(pid, SIGINT);
		}
		if (child) {
			if (oc.interrupted && !forwarded) {
				kill(pid, oc.stop_signal);
				forwarded = true;
				forwarded_at = t;
			} else if (forwarded && t - forwarded_at > 5.0 && !killed) {
				/* it did not stop on the forwarded signal */
				kill(pid, SIGKILL);
				killed = true;
			}
			int st;
			if (pms_child_wait(child, true, &st) == 0) {
				oc.have_status = true;
				oc.status = st;
				done = true;
			}
		} else {
			if (oc.interrupted || oc.timed_out)
				done = true;
			if (o.kind == T_PID && kill(pid, 0) < 0 && errno == ESRCH) {
				oc.target_gone = true;
				done = true;
			}
		}
	}
	oc.seconds = now_s() - t0;
	if (show_progress)
		fprintf(stderr, "\n");
	pms_sampler_disable(smp);
	(void)pms_memsrc_poll(src, 0, &cb, ctx);
	read_wl_pipe(pipefd[0], pipebuf, &pipelen, sizeof(pipebuf), &wi);
	(void)pms_memprof_resolve(prof, ctx->oracle);

	/* The report. */
	struct pms_memsrc_stats sst;
	struct pms_memsrc_info si;
	struct pms_numa_stats nst;
	pms_memsrc_info(src, &si);
	pms_memsrc_stats(src, &sst);
	pms_numa_oracle_stats(oracle, &nst);
	if (wi.have) /* the workload said where its buffer is and on which node */
		pms_memprof_set_home(prof, wi.home, wi.start, wi.start + wi.size);
	if (pms_symbolizer_new(sys, pms_memprof_maps(prof), &sym) < 0)
		sym = NULL; /* names are a nicety: the numbers stand without them */
	struct pms_memreport_input in = {
		.numa = &nst, .verify_requested = o.verify, .duration_ns = (uint64_t)(oc.seconds * 1e9),
	};
	pms_memreport_input_from_src(&in, &si, &sst);
	if (pms_memprof_report(prof, sym, &in, &rep) < 0) {
		cli_fail("mem: building the report");
		goto out;
	}
	struct run_desc d = { &o, pid, &wi, &oc, &info };
	char target[512];
	mem_target_text(&d, target, sizeof(target));
	struct mem_render mr = {
		.command = "mem", .target_text = target, .seconds = oc.seconds,
		.sample_type = info.sample_type, .samples = o.samples, .oracle = true,
		.json_run = mem_json_run, .json_verify = mem_json_verify,
		.text_verify = mem_text_verify, .ud = &d,
	};
	if (o.json)
		mem_render_json(&mr, rep);
	else if (o.csv)
		mem_render_csv(rep);
	else
		mem_render_text(&mr, rep);
	fflush(stdout);
	if (ctx->rec) {
		int wrc = ctx->werr;
		if (!wrc)
			wrc = pms_recorder_finish(ctx->rec, sys, topo, pmus);
		if (wrc < 0)
			cli_fail("mem: writing perf.data");
		else
			fprintf(stderr, "pmuscope: mem: wrote %" PRIu64 " records to %s\n",
				pms_recorder_records(ctx->rec), o.out);
	}

	/* Exit status: what happened to the workload. */
	exit_code = 0;
	if (oc.have_status) {
		if (WIFEXITED(oc.status)) {
			exit_code = WEXITSTATUS(oc.status);
			if (exit_code)
				fprintf(stderr, "pmuscope: mem: the command exited with status %d\n",
					exit_code);
		} else if (WIFSIGNALED(oc.status)) {
			int s = WTERMSIG(oc.status);
			exit_code = 128 + s;
			fprintf(stderr, "pmuscope: mem: the command was killed by SIG%s (signal %d)%s\n",
				sig_name(s), s, WCOREDUMP(oc.status) ? ", core dumped" : "");
		}
	} else if (oc.interrupted) {
		exit_code = 128 + oc.stop_signal;
	}
	rc = 0;
out:
	if (handlers) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	pms_recorder_free(ctx->rec);
	if (outfd >= 0)
		close(outfd);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (relfd[0] >= 0)
		close(relfd[0]);
	if (relfd[1] >= 0)
		close(relfd[1]);
	pms_memreport_free(rep);
	pms_symbolizer_free(sym);
	pms_memprof_free(prof);
	pms_numa_oracle_free(oracle);
	pms_memsrc_free(src);
	pms_sampler_free(smp);
	pms_child_free(child);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	free(exe);
	free(ctx);
	return rc < 0 || rc == 1 ? 1 : exit_code;
}
