/* pmuscope top: a live view of memory samples, as numatop and perf top
 * give: every -d seconds the samples of the last interval by process,
 * thread, data object or function, with latency (where the engine gives
 * it), local/remote and the memory nodes.  The session (pms_session_*)
 * does the sampling; pms_session_interval gives each interval's report.
 * In a terminal: raw keys and the alternate screen, put back at every way
 * out (q, the run's end, signals, errors); --batch: frames on stdout.
 * Rows and frames: top_render.c.  docs/top.md. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opt.h"
#include "mem_render.h"
#include "pmuscope/error.h"
#include "pmuscope/render_cmd.h"
#include "pmuscope/session.h"
#include "pmuscope/top.h"
#include "pmuscope/util.h"

int cmd_top(const struct cli_global *g, int argc, char **argv);

enum { O_ENGINE = 256, O_PERIOD, O_JSON, O_ROWS, O_VIEW, O_SORT, O_NODEMANGLE, O_NOSYMBOLS };

static const struct cli_opt opts[] = {
	{ NULL, 0, 0, NULL, 0, "Target (default: the whole system):" },
	{ "all-cpus", 'a', CLI_NOARG, NULL, 'a', "system-wide (perf top's default)" },
	{ "pid", 'p', CLI_ARG, "PID", 'p', "one process (and its new children) until it exits" },
	{ NULL, 0, 0, NULL, 0, "Sampling:" },
	{ "engine", 0, CLI_ARG, "NAME", O_ENGINE,
	  "ibs, pebs, spe or software (default: the best the\nmachine has, as mem; no damon)" },
	{ "period", 'c', CLI_ARG, "N", O_PERIOD, "sample period (default: the engine's)" },
	{ "freq", 'F', CLI_ARG, "HZ", 'F', "samples per second instead of a period" },
	{ NULL, 0, 0, NULL, 0, "Display:" },
	{ "delay", 'd', CLI_ARG, "SECS", 'd', "seconds between frames (default 2)" },
	{ "iterations", 'n', CLI_ARG, "N", 'n', "stop after N frames (default: until q or the\ntarget's end)" },
	{ "batch", 'b', CLI_NOARG, NULL, 'b',
	  "no terminal control: the frames one after the other on\nstdout, a line of '=' between them "
	  "(also when stdout is\nno terminal)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON,
	  "batch frames as JSON Lines, one object per frame with\nevery view's rows (docs/top.md)" },
	{ "view", 0, CLI_ARG, "VIEW", O_VIEW, "process, thread, object or function (default process)" },
	{ "sort", 's', CLI_ARG, "KEY", O_SORT,
	  "samples, latency, local, remote, remote% or name\n(default samples)" },
	{ "rows", 0, CLI_ARG, "N", O_ROWS, "rows per view (default: the terminal's height; 20\nin batch mode)" },
	{ "no-demangle", 0, CLI_NOARG, NULL, O_NODEMANGLE, "C++/Rust names as in the binary" },
	{ "no-symbols", 0, CLI_NOARG, NULL, O_NOSYMBOLS,
	  "name no code or data (functions are [unknown], objects\nthe mappings): each frame is quicker; a system-wide view\nof a busy machine names hundreds of binaries a frame" },
	{ 0 },
};

const struct cli_spec cli_spec_top = {
	.name = "top",
	.synopsis = "top [OPTIONS]                 the whole system\n"
		    "top [OPTIONS] -p PID          one process\n"
		    "top [OPTIONS] -- COMMAND ...  a command started here",
	.description =
		"A live view of memory samples, as numatop and perf top: every -d seconds\n"
		"the last interval's samples by process, thread, data object or function,\n"
		"with their share, mean latency (engines that give one), local and remote\n"
		"accesses (the memory node against the sampling CPU's) and the memory\n"
		"nodes; the engine, the samples and the losses at the top.\n\n"
		"Keys: p t o f (or Tab) switch the view; s l r n pick the sort (samples,\n"
		"latency, remote share, name), < and > step through the columns; h shows\n"
		"the keys; q quits.  The terminal is put back as it was on q, Ctrl-C, a\n"
		"signal or an error.",
	.opts = opts,
	.footer = "Exit status: 0 (q, Ctrl-C, -n reached, the process ended); with a\n"
		  "COMMAND, its status; 1 failure; 2 usage error.",
	.stop_at_operand = true,
};

struct top_opts {
	enum { TT_SYSTEM, TT_PID, TT_COMMAND } kind;
	pid_t pid;
	char **cmd;
	enum pms_engine engine;
	uint64_t period, freq;
	double delay;
	long frames;
	bool batch, json, demangle, no_symbols;
	enum pms_top_view view;
	enum pms_top_sort sort;
	size_t rows;
};

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	struct cli_parser p;
	long v;
	int c;
	memset(o, 0, sizeof(*o));
	o->delay = 2;
	o->demangle = true;
	o->engine = PMS_ENG_NONE;
	cli_parser_init(&p, &cli_spec_top, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case 'a': o->kind = TT_SYSTEM; break;
		case 'p':
			if (cli_parse_long(p.arg, 1, 0x7fffffff, &v) < 0)
				return cli_bad_arg(&p, "a process id");
			o->pid = (pid_t)v;
			o->kind = TT_PID;
			break;
		case O_ENGINE:
			if (mem_engine_parse(p.arg, &o->engine) < 0)
				return cli_bad_arg(&p, "ibs, pebs, spe or software (top takes samples; "
						       "DAMON gives none)");
			break;
		case O_PERIOD:
			if (cli_parse_long(p.arg, 1, 0x7fffffffffffffffL, &v) < 0)
				return cli_bad_arg(&p, "a positive count");
			o->period = (uint64_t)v;
			break;
		case 'F':
			if (cli_parse_long(p.arg, 1, 1000000, &v) < 0)
				return cli_bad_arg(&p, "samples per second 1..1000000");
			o->freq = (uint64_t)v;
			break;
		case 'd':
			if (cli_parse_double(p.arg, 0.1, 3600, &o->delay) < 0)
				return cli_bad_arg(&p, "seconds 0.1..3600");
			break;
		case 'n':
			if (cli_parse_long(p.arg, 1, 1000000000, &o->frames) < 0)
				return cli_bad_arg(&p, "a frame count >= 1");
			break;
		case 'b': o->batch = true; break;
		case O_JSON: o->json = o->batch = true; break;
		case O_VIEW:
			if (pms_top_view_parse(p.arg, &o->view) < 0)
				return cli_bad_arg(&p, "process, thread, object or function");
			break;
		case O_SORT:
			if (pms_top_sort_parse(p.arg, &o->sort) < 0)
				return cli_bad_arg(&p, "samples, latency, local, remote, remote% or name");
			break;
		case O_ROWS:
			if (cli_parse_long(p.arg, 1, 100000, &v) < 0)
				return cli_bad_arg(&p, "1..100000");
			o->rows = (size_t)v;
			break;
		case O_NODEMANGLE: o->demangle = false; break;
		case O_NOSYMBOLS: o->no_symbols = true; break;
		default: return cli_usage(&cli_spec_top, "'%s' is not an option of top", p.opt);
		}
	}
	if (c != CLI_END)
		return cli_exit_code(c);
	if (p.ind < argc) {
		if (o->kind == TT_PID) {
			fprintf(stderr, "pmuscope: top: a COMMAND cannot be combined with -p\n");
			return CLI_EXIT_USAGE;
		}
		o->kind = TT_COMMAND;
		o->cmd = argv + p.ind;
	}
	if (o->freq && o->period) {
		fprintf(stderr, "pmuscope: top: -F and --period/-c exclude each other\n");
		return CLI_EXIT_USAGE;
	}
	return -1;
}

/* ---- the terminal --------------------------------------------------------- */

/* Everything a signal handler needs to put the terminal back. */
/* A frame as one JSON line (docs/top.md). */
static int top_render_json(FILE *f, const struct pms_top_frame *fr, const struct pms_memreport *r,
			   size_t max_rows)
{
	struct pms_json j;
	pms_json_init(&j, f);
	j.pretty = false; /* JSON Lines: one frame per line */
	int rc = pms_render_top_json(&j, fr, r, max_rows);
	cli_json_finish(&j);
	return rc;
}

static struct termios term_saved;
static volatile sig_atomic_t term_on, term_redraw, term_stop_sig;
static struct pms_session *volatile term_ses;
static struct sigaction old_act[NSIG];
static bool term_handlers; /* term_setup's handlers are in */

static const char enter_seq[] = "\033[?1049h\033[?25l\033[H\033[2J";
static const char leave_seq[] = "\033[?25h\033[?1049l";

static void write_all(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* async-signal safe: write and tcsetattr */
static void term_leave(void)
{
	if (!term_on)
		return;
	term_on = 0;
	write_all(leave_seq, sizeof(leave_seq) - 1);
	(void)tcsetattr(STDIN_FILENO, TCSANOW, &term_saved);
}

static int term_enter(void)
{
	struct termios raw = term_saved;
	/* keys one by one, not echoed; Ctrl-C and Ctrl-Z stay signals */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) < 0)
		return -1;
	term_on = 1;
	write_all(enter_seq, sizeof(enter_seq) - 1);
	return 0;
}

static void on_fatal(int sig)
{
	int e = errno;
	term_leave();
	/* the handler found before (the default, or a sanitizer's) gets it */
	sigaction(sig, &old_act[sig], NULL);
	errno = e;
	if (sig == SIGABRT)
		raise(sig);
	/* a fault returns to the faulting instruction, which raises it again */
}

static void on_stop_sig(int sig)
{
	term_stop_sig = sig;
	if (term_ses)
		pms_session_stop(term_ses, sig);
}

static void on_tstp(int sig)
{
	int e = errno;
	(void)sig;
	term_leave();
	/* stop as the default would; SIGCONT brings the view back */
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	errno = e;
}

static void on_cont(int sig)
{
	int e = errno;
	(void)sig;
	if (!term_on && term_enter() == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_tstp;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTSTP, &sa, NULL);
	}
	term_redraw = 1;
	errno = e;
}

static void on_winch(int sig)
{
	(void)sig;
	term_redraw = 1;
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, &old_act[sig]);
}

static void unhandle(int sig)
{
	sigaction(sig, &old_act[sig], NULL);
}

static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

/* Raw keys and the alternate screen; every way out puts them back (the
 * run's own handlers stop it on SIGINT and SIGTERM, and the loop ends). */
static int term_setup(void)
{
	if (tcgetattr(STDIN_FILENO, &term_saved) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		handle(fatal_sigs[i], on_fatal);
	handle(SIGTSTP, on_tstp);
	handle(SIGCONT, on_cont);
	handle(SIGWINCH, on_winch);
	term_handlers = true;
	atexit(term_leave);
	return term_enter();
}

static void term_teardown(void)
{
	term_leave();
	if (!term_handlers)
		return;
	term_handlers = false;
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		unhandle(fatal_sigs[i]);
	unhandle(SIGTSTP);
	unhandle(SIGCONT);
	unhandle(SIGWINCH);
}

static void term_size(int *w, int *h)
{
	struct winsize ws;
	*w = 80;
	*h = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*w = ws.ws_col;
		*h = ws.ws_row;
	}
}

/* ---- the loop ------------------------------------------------------------- */

struct top_state {
	struct top_opts *o;
	struct pms_session *ses;
	struct pms_top_frame fr;
	struct pms_memreport *rep; /* the last interval's */
	bool term, quit, per_pid;
	double last_t;
	uint64_t lost_prev;
	const char *message;
	char target[256];
};

static const char help_text[] =
	"keys: p process, t thread, o object, f function, Tab next view; s samples, l latency, "
	"r remote%, n name, < > step the sort; q quit";

/* One key: true when it changed what is shown. */
static bool key_press(struct top_state *st, int k)
{
	static const char views[] = "ptof";
	const char *v = k ? strchr(views, k) : NULL;
	st->message = NULL;
	if (v) {
		st->fr.view = (enum pms_top_view)(v - views);
	} else if (k == '\t') {
		st->fr.view = (enum pms_top_view)((st->fr.view + 1) % PMS_TOP_NVIEWS);
	} else if (k == 's') {
		st->fr.sort = PMS_TOP_BY_SAMPLES;
	} else if (k == 'l') {
		st->fr.sort = PMS_TOP_BY_LATENCY;
	} else if (k == 'r') {
		st->fr.sort = PMS_TOP_BY_RMT_SHARE;
	} else if (k == 'n') {
		st->fr.sort = PMS_TOP_BY_NAME;
	} else if (k == '>' || k == '.') {
		st->fr.sort = (enum pms_top_sort)((st->fr.sort + 1) % PMS_TOP_NSORTS);
	} else if (k == '<' || k == ',') {
		st->fr.sort = (enum pms_top_sort)((st->fr.sort + PMS_TOP_NSORTS - 1) % PMS_TOP_NSORTS);
	} else if (k == 'q' || k == 'Q') {
		st->quit = true;
		return false;
	} else if (k == 'h' || k == '?') {
		st->message = help_text;
	} else {
		st->message = "unknown key (h: the keys)";
	}
	return true;
}

/* The keys typed since the last look; true when a redraw is due. */
static bool read_keys(struct top_state *st)
{
	unsigned char buf[64];
	bool redraw = false;
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
	while (!st->quit && poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && !st->quit; i++) {
			if (buf[i] == 0x1b)
				break; /* an escape sequence (arrows, ...): none is a key here */
			redraw |= key_press(st, buf[i]);
		}
	}
	return redraw;
}

static int draw(struct top_state *st)
{
	struct pms_top_table t;
	int w = 0, h = 0;
	size_t rows = st->o->rows ? st->o->rows : 20;
	st->fr.message = st->message;
	if (st->o->json)
		return top_render_json(stdout, &st->fr, st->rep, rows);
	if (pms_top_table_build(&t, st->rep, st->fr.view, st->per_pid) < 0)
		return -1;
	pms_top_table_sort(&t, st->fr.sort);
	if (st->term) {
		term_size(&w, &h);
		if (!st->o->rows)
			rows = h > 7 ? (size_t)h - 6 : 1;
		fputs("\033[H", stdout);
		pms_top_render_text(stdout, &st->fr, st->rep, &t, rows, w, true, (size_t)h);
		fputs("\033[J", stdout);
	} else {
		if (st->fr.number > 1)
			printf("%s\n", "==============================================================================");
		pms_top_render_text(stdout, &st->fr, st->rep, &t, rows, 0, false, 0);
	}
	pms_top_table_free(&t);
	fflush(stdout);
	return 0;
}

static void draw_waiting(struct top_state *st)
{
	int w, h;
	char line[512];
	term_size(&w, &h);
	snprintf(line, sizeof(line), "pmuscope top: %s; the first frame in %.1f s (h: keys, q: quit)",
		 st->target, st->o->delay);
	fputs("\033[H", stdout);
	fprintf(stdout, "%.*s\033[K", w, line);
	if (st->message)
		fprintf(stdout, "\n%.*s\033[K", w, st->message);
	fputs("\033[J", stdout);
	fflush(stdout);
}

/* The interval since the last frame becomes a frame. */
static int next_frame(struct top_state *st, double t)
{
	struct pms_memreport *rep = NULL;
	int rc = pms_session_interval(st->ses, t - st->last_t, &rep);
	if (rc < 0)
		return cli_fail("top: the interval's report");
	pms_memreport_free(st->rep);
	st->rep = rep;
	uint64_t lost = rep->stats.lost + rep->stats.lost_samples;
	st->fr.number++;
	st->fr.seconds = t;
	st->fr.interval = t - st->last_t;
	st->fr.samples_total += rep->samples;
	st->fr.lost = lost - st->lost_prev;
	st->fr.lost_total = lost;
	st->lost_prev = lost;
	st->last_t = t;
	if (draw(st) < 0) {
		fprintf(stderr, "pmuscope: top: out of memory\n");
		return 1;
	}
	return 0;
}

/* Until q, -n frames, the run's end or a signal.  0, or the exit code of
 * a failure (said). */
static int run_loop(struct top_state *st)
{
	double next = st->o->delay;
	bool waited_draw = st->term;
	for (;;) {
		int sr = pms_session_step(st->ses);
		if (sr < 0)
			return cli_fail("top: reading samples");
		bool redraw = false;
		if (st->term) {
			redraw = read_keys(st) || term_redraw;
			term_redraw = 0;
		}
		if (st->quit || sr == 0)
			break;
		double t = pms_session_elapsed(st->ses);
		if (t >= next) {
			int rc = next_frame(st, t);
			if (rc)
				return rc;
			next += st->o->delay;
			if (next <= t)
				next = t + st->o->delay;
			if (st->o->frames && st->fr.number >= (unsigned long)st->o->frames)
				break;
		} else if (redraw || waited_draw) {
			waited_draw = false;
			if (st->rep)
				(void)draw(st);
			else
				draw_waiting(st);
		}
	}
	/* batch: what the last part-interval held, when the target ended */
	if (!st->term && !st->quit && (!st->o->frames || st->fr.number < (unsigned long)st->o->frames) &&
	    pms_memprof_count(pms_session_profile(st->ses)))
		return next_frame(st, pms_session_elapsed(st->ses));
	return 0;
}

static void target_text(const struct top_opts *o, char *buf, size_t size)
{
	if (o->kind == TT_SYSTEM) {
		snprintf(buf, size, "system-wide");
	} else if (o->kind == TT_PID) {
		snprintf(buf, size, "pid %d", (int)o->pid);
	} else {
		size_t len = (size_t)snprintf(buf, size, "command:");
		for (char **a = o->cmd; *a && len < size; a++)
			len += (size_t)snprintf(buf + len, size - len, " %s", *a);
	}
}

static int open_session(const struct cli_global *g, struct top_opts *o, struct pms_sys *sys,
			const struct pms_pmus *pmus, const struct pms_topo *topo,
			struct pms_session **ses)
{
	struct pms_sampler_opts so = PMS_SAMPLER_OPTS_INIT;
	so.engine = o->engine;
	so.period = o->period;
	so.freq = o->freq;
	struct pms_liverun_opts lo = PMS_LIVERUN_OPTS_INIT;
	lo.target = o->kind == TT_SYSTEM ? PMS_LIVERUN_SYSTEM
		    : o->kind == TT_PID  ? PMS_LIVERUN_PID
					 : PMS_LIVERUN_COMMAND;
	lo.argv = o->cmd;
	lo.pid = o->pid;
	lo.sampler = &so;
	lo.resolve = true;
	lo.catch_signals = true;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	po.functions_per_pid = o->kind == TT_SYSTEM;
	struct pms_session_opts sopt = PMS_SESSION_OPTS_INIT;
	sopt.profile_opts = &po;
	sopt.demangle = o->demangle;
	sopt.symbols = !o->no_symbols;
	(void)g;
	if (pms_session_open_live(sys, pmus, topo, &lo, &sopt, ses) < 0) {
		char hint[512];
		fprintf(stderr, "pmuscope: top: %s\n", pms_error_last());
		if (pms_session_permission_hint(sys, &lo, hint, sizeof(hint)))
			fprintf(stderr, "pmuscope: top: %s%s\n", hint,
				o->kind == TT_SYSTEM ? "; or watch one process: top -p PID" : "");
		return 1;
	}
	return 0;
}

int cmd_top(const struct cli_global *g, int argc, char **argv)
{
	struct top_opts o;
	struct pms_sys *sys = NULL;
	struct pms_pmus *pmus = NULL;
	struct pms_topo *topo = NULL;
	struct top_state st;
	bool stop_handlers = false;
	int rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.term = !o.batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	st.per_pid = o.kind == TT_SYSTEM;
	st.fr.view = o.view;
	st.fr.sort = o.sort;
	st.fr.per_pid = st.per_pid;
	st.fr.keys = st.term;
	target_text(&o, st.target, sizeof(st.target));
	st.fr.target = st.target;
	rc = 1;
	if (!(sys = cli_open_sys(g)))
		goto out;
	if (!pms_sys_is_live(sys)) {
		fprintf(stderr, "pmuscope: top: watches this machine only; --root %s is a snapshot\n",
			pms_sys_root(sys));
		goto out;
	}
	if (pms_pmus_load(sys, &pmus) < 0 || pms_topo_load(sys, &topo) < 0) {
		cli_fail("top: PMU and topology discovery");
		goto out;
	}
	if (open_session(g, &o, sys, pmus, topo, &st.ses))
		goto out;
	term_ses = st.ses;
	handle(SIGHUP, on_stop_sig);
	handle(SIGQUIT, on_stop_sig);
	stop_handlers = true;
	if (st.term && term_setup() < 0) {
		fprintf(stderr, "pmuscope: top: cannot set the terminal up: %s; try --batch\n",
			strerror(errno));
		goto out;
	}
	if (pms_session_start(st.ses) < 0) {
		term_teardown();
		rc = o.kind == TT_COMMAND ? cli_exec_failed("top", o.cmd[0]) : cli_fail("top: starting");
		goto out;
	}
	rc = run_loop(&st);
	term_teardown();
	struct pms_liverun_result res;
	pms_session_result(st.ses, &res);
	/* q or -n with the command still running: top ends it (SIGTERM, as
	 * a Ctrl-C would) and its status is not top's */
	bool ended_by_top = o.kind == TT_COMMAND && !res.have_status;
	if (ended_by_top)
		pms_session_stop(st.ses, SIGTERM);
	(void)pms_session_finish(st.ses);
	pms_session_result(st.ses, &res);
	if (ended_by_top)
		res.have_status = false;
	if (!rc && res.target_gone && o.kind == TT_PID)
		fprintf(stderr, "pmuscope: top: process %d is gone\n", (int)o.pid);
	if (!rc && res.have_status)
		rc = pms_exit_code(res.status);
out:
	term_teardown();
	if (stop_handlers) {
		unhandle(SIGHUP);
		unhandle(SIGQUIT);
	}
	term_ses = NULL;
	pms_memreport_free(st.rep);
	pms_session_free(st.ses);
	pms_topo_free(topo);
	pms_pmus_free(pmus);
	pms_sys_free(sys);
	return rc;
}
