/* The sampler: open the planned events per CPU (per thread through inherit),
 * map their rings, drain them and turn records into pms_memsample values and
 * side-band callbacks. */
#include "sample/sampler_int.h"
#include "util/error.h"
#include "util/grow.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/event.h"
#include "pmuscope/ring.h"
#include "pmuscope/spe.h"

#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct stream {
	int fd;
	int ev;  /* index into plan.ev */
	int cpu;
	struct pms_ring *ring;
	struct pms_sample_layout layout;
	/* SPE: bytes after the last complete record of the previous AUX chunk,
	 * and the MIDR of the stream's CPU for the data-source tables. */
	uint8_t *carry;
	size_t ncarry, capcarry;
	bool carry_whole; /* carry holds records left by a callback stop */
	/* The task of the AUX data being decoded: the AUX record's sample_id.
	 * The driver ends an AUX transaction at sched-out or from its IRQ, both
	 * in the context of the task the per-task event ran for. */
	bool aux_tid_valid;
	uint32_t aux_pid, aux_tid;
	uint32_t midr;
	uint64_t id; /* PERF_EVENT_IOC_ID, when the events carry IDENTIFIER */
	/* Adaptation (adapt.c's part of the sampler, below): */
	uint64_t period; /* sample_period (or sample_freq) the event was opened with */
	unsigned gen;    /* adaptations made before it was opened */
	pid_t root;      /* the task it was opened on; -1 per CPU */
	bool retired;    /* disabled by an adaptation: drained once more, closed */
	uint64_t kept, lost; /* records read / lost (PERF_RECORD_LOST) */
	uint64_t nsamples;   /* samples delivered */
	bool hup;            /* poll said POLLHUP: its task is gone */
	unsigned fill_pct;   /* the fullest the ring was when a drain began */
	unsigned rate_pct;   /* the most it received between two polls, % */
	uint64_t last_written; /* bytes written into it at the last poll */
	bool rate_known;
};

struct root_slot {
	int32_t tid, root; /* tid 0: empty */
};

struct stage {
	unsigned char *buf;
	size_t pos, len, cap;
};

struct pms_sampler {
	struct pms_sys *sys;
	struct pms_sampler_opts o;
	struct smp_plan plan;
	struct stream *st;
	size_t nst;
	struct pollfd *pfd;
	struct pms_sampler_stats stats;
	struct pms_ibs_cpu ibs_cpu;
	const struct pms_topo *id; /* CPU identity: the caller's topo or own_id */
	struct pms_topo *own_id;
	char pmus[160];
	char label[256];
	/* Records copied out of the rings and not yet looked at: chunks of a
	 * struct stage_chunk and its stream's records.  The copier (the drain
	 * thread of a live sampler, and poll itself) appends to `in` under mu;
	 * poll swaps it with `out` once out's records are all handed out. */
	struct stage in, out;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* the copier put records in `in` */
	pthread_t thr;
	bool thr_on;
	int thr_stop;       /* atomic */
	struct pollfd *tpfd; /* the drain thread's own poll set */
	size_t ntpfd, captpfd;
	unsigned tpver;     /* the stream set tpfd was built from */
	uint64_t thr_hup;   /* under mu */
	/* pms_sampler_wake: an eventfd polled with the rings (by the drain
	 * thread, or by poll_in_place), -1 without one; the drain thread
	 * sets woken (under mu) when it fired, and the poller's wait ends */
	int wake_fd;
	bool woken;
	/* Records go through the stage (the drain thread's, or a test's
	 * copier: pms_smp_stage_on).  The stream set then changes only under
	 * mu, by the poller; fdver counts those changes. */
	bool staged;
	unsigned fdver;     /* under mu */
	size_t nst_pub;     /* the streams the copier may read (under mu) */
	bool st_unlocked;   /* adapt_now is opening streams without mu */
	int adapt_hint;     /* atomic: the copier found a ring filling */
	bool disabled;      /* pms_sampler_disable: no more adaptation */
	/* The bytes of the AUX record being read, for the source's aux hook. */
	uint8_t *auxbuf;
	size_t auxlen, auxcap;
	bool aux_acc;
	/* Adaptation to loss (opts.adapt) */
	size_t pages;          /* ring data pages of the current generation */
	unsigned gen;
	bool adapt_ok;         /* the plan can be reopened (no groups, no AUX) */
	struct pms_sampler_adaptation *adapt;
	size_t nadapt;
	uint64_t dups;         /* samples dropped as a second lineage's */
	struct root_slot *roots; /* tid -> the task whose events sample it */
	size_t caproots, nroots;
	uint64_t events;       /* sum of the delivered samples' periods */
	uint64_t unreported_lost; /* found by retired_lost */
	uint64_t t_open;       /* mono_ns() at open */
};

/* A run of one stream's records in a stage. */
struct stage_chunk {
	uint32_t stream;
	uint32_t len; /* bytes of records after this header */
};

/* The most the stage holds (records copied out and not yet converted):
 * beyond it the rings keep the rest and the kernel counts what it cannot
 * write (PERF_RECORD_LOST), as it would without the stage. */
#define STAGE_MAX ((size_t)64 << 20)
/* An emptied stage larger than this is freed, not kept for reuse. */
#define STAGE_KEEP ((size_t)1 << 20)

static void drain_thread_start(struct pms_sampler *s);
static void drain_thread_stop(struct pms_sampler *s);

/* ---- opening ---------------------------------------------------------------- */

static int add_sideband_event(struct smp_plan *p)
{
	struct smp_event *ev;
	if (p->nev >= SMP_MAX_EVENTS)
		return pms_err(PMS_ERANGE, "too many events for one sampler");
	ev = &p->ev[p->nev++];
	memset(ev, 0, sizeof(*ev));
	ev->engine = p->engine;
	ev->role = SMP_ROLE_SIDEBAND;
	ev->leader = -1;
	ev->ok = true;
	snprintf(ev->pmu_name, sizeof(ev->pmu_name), "software");
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_DUMMY;
	ev->attr.disabled = 1;
	ev->attr.sample_id_all = 1;
	ev->attr.sample_type = PMS_SAMPLE_TID | PMS_SAMPLE_TIME | PMS_SAMPLE_CPU;
	ev->attr.exclude_kernel = p->ev[0].attr.exclude_kernel;
	ev->attr.exclude_user = p->ev[0].attr.exclude_user;
	return 0;
}

static bool covers_all(const struct smp_plan *p, const struct smp_event *ev)
{
	for (int c = pms_cpuset_first(&p->cpus); c >= 0; c = pms_cpuset_next(&p->cpus, c + 1))
		if (!pms_smp_event_on_cpu(ev, c))
			return false;
	return true;
}

static void set_sideband_bits(struct perf_event_attr *a)
{
	/* MMAP2 (with data mappings) names code and data; COMM/FORK/EXIT
	 * track processes (include/uapi/linux/perf_event.h attr bits). */
	a->mmap = 1;
	a->mmap2 = 1;
	a->mmap_data = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
}

/* The CPU identity the decoders need comes from the topology (the one
 * reader, src/topo); a caller without one gets just its identity part. */
static void load_identity(struct pms_sampler *s, const struct pms_topo *topo)
{
	s->id = topo;
	if (!topo && pms_topo_load_cpuid(s->sys, &s->own_id) == 0)
		s->id = s->own_id;
	pms_error_clear();
	memset(&s->ibs_cpu, 0, sizeof(s->ibs_cpu));
	if (s->id && s->id->family >= 0 && s->id->model >= 0) {
		s->ibs_cpu.family = (unsigned)s->id->family;
		s->ibs_cpu.model = (unsigned)s->id->model;
	}
}

static int map_ring(struct pms_sampler *s, struct stream *st, size_t pages)
{
	int ret;
	/* Shrink on refusal: unprivileged users hit perf_event_mlock_kb. */
	for (;;) {
		ret = pms_ring_open(s->sys, st->fd, pages, &st->ring);
		if (ret >= 0 || pages <= 1 || (ret != PMS_EPERM && ret != PMS_ENOMEM))
			return ret;
		pages /= 2;
	}
}

static void label_build(struct pms_sampler *s)
{
	struct smp_plan *p = &s->plan;
	size_t len = 0;

	s->pmus[0] = 0;
	for (int i = 0; i < p->nev; i++) {
		if (p->ev[i].role == SMP_ROLE_SIDEBAND || p->ev[i].role == SMP_ROLE_AUX_LEADER)
			continue;
		if (strstr(s->pmus, p->ev[i].pmu_name))
			continue;
		len += (size_t)snprintf(s->pmus + len, sizeof(s->pmus) - len, "%s%s",
					len ? "," : "", p->ev[i].pmu_name);
		if (len >= sizeof(s->pmus))
			break;
	}
	if (p->engine == PMS_ENG_SOFTWARE) {
		size_t refused = 0;
		for (size_t a = 0; a < p->natt; a++)
			if (p->att[a].engine != PMS_ENG_SOFTWARE && p->att[a].err)
				refused++;
		snprintf(s->label, sizeof(s->label),
			 "FALLBACK: software page-fault samples (first touch of each page: code "
			 "and data address, no data source, no latency); %zu precise-engine "
			 "attempt(s) refused, see the attempts",
			 refused);
	} else {
		snprintf(s->label, sizeof(s->label), "%s on %s", pms_engine_label(p->engine),
			 s->pmus);
	}
}

/* MIDR_EL1 of a CPU (the topology's), 0 when unknown: the SPE data-source
 * tables are chosen by it (kernel-abi-facts §4.1). */
static uint32_t cpu_midr(const struct pms_sampler *s, int cpu)
{
	const struct pms_topo_cpu *c = s->id ? pms_topo_cpu(s->id, cpu) : NULL;
	return c ? (uint32_t)c->midr : 0;
}

/* The threads to attach to: every task of an existing process (an event on
 * a pid follows that one thread; inherit only covers threads created later),
 * the single pid of a child waiting before exec, or -1 for CPU-wide. */
static int target_tids(struct pms_sampler *s, pid_t **out, size_t *n)
{
	char path[64], **names = NULL;
	size_t count = 0;
	pid_t *t;

	*out = NULL;
	*n = 0;
	if (s->o.target == PMS_TARGET_PID) {
		snprintf(path, sizeof(path), "proc/%d/task", (int)s->o.pid);
		if (pms_sys_list_dir(s->sys, path, &names, &count) < 0)
			count = 0; /* a fake root: the pid alone */
	}
	t = calloc(count ? count : 1, sizeof(*t));
	if (!t) {
		pms_sys_names_free(names, count);
		return pms_err(PMS_ENOMEM, "out of memory for the thread list");
	}
	if (count == 0) {
		t[0] = s->o.target == PMS_TARGET_CPUS ? -1 : s->o.pid;
		*n = 1;
	} else {
		for (size_t i = 0; i < count; i++) {
			char *end;
			long v = strtol(names[i], &end, 10);
			if (*end == 0 && v > 0)
				t[(*n)++] = (pid_t)v;
		}
	}
	pms_sys_names_free(names, count);
	*out = t;
	return 0;
}

/* Ring data pages: the caller's, else perf record's default of 512 KiB
 * (tools/perf/util/evlist.c, perf_event_mlock_kb's 516 KiB less the user
 * page): the ring perf keeps the same workload's samples in. */
static bool adaptable(const struct smp_plan *p);

static size_t ring_pages(const struct pms_sampler *s)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t bytes = 512 << 10, n;
	/* With adaptation, the first rings must also hold what comes before
	 * the first poll (a loaded machine may not run the poller for tens of
	 * milliseconds): 4 MiB each, 64 MiB over all CPUs at most, never
	 * less than perf's 512 KiB. */
	if (s->o.adapt && adaptable(&s->plan)) {
		int ncpu = pms_cpuset_count(&s->plan.cpus);
		size_t per = ncpu > 0 ? (size_t)(64 << 20) / (size_t)ncpu : bytes;
		bytes = per > (4 << 20) ? (4 << 20) : per < bytes ? bytes : per;
		for (size_t p = 1;; p *= 2)
			if (p * 2 > bytes) {
				bytes = p;
				break;
			}
	}
	n = psz > 0 && (size_t)psz <= bytes ? bytes / (size_t)psz : 1;
	return s->o.data_pages ? s->o.data_pages : n;
}

/* Open the plan's events on each of tids x each CPU, appending streams with
 * rings of pages data pages. */
static int open_gen(struct pms_sampler *s, const pid_t *tids, size_t ntids, size_t pages)
{
	struct smp_plan *p = &s->plan;
	size_t cap = s->nst;
	int ret = 0;

	for (size_t ti = 0; ti < ntids; ti++)
	for (int cpu = pms_cpuset_first(&p->cpus); cpu >= 0;
	     cpu = pms_cpuset_next(&p->cpus, cpu + 1)) {
		pid_t pid = tids[ti];
		int fds[SMP_MAX_EVENTS];
		for (int i = 0; i < p->nev; i++) {
			struct smp_event *ev = &p->ev[i];
			struct stream *st;
			char what[160];
			int gfd = -1, fd;

			fds[i] = -1;
			if (!pms_smp_event_on_cpu(ev, cpu))
				continue;
			if (ev->leader >= 0) {
				gfd = fds[ev->leader];
				if (gfd < 0)
					continue;
			}
			snprintf(what, sizeof(what), "perf_event_open(%s, pid %d, cpu %d)",
				 ev->pmu_name, (int)pid, cpu);
			fd = pms_sys_perf_event_open(s->sys, &ev->attr, pid, cpu, gfd,
						     PERF_FLAG_FD_CLOEXEC, what);
			if (fd < 0) {
				/* A thread that exited since the task list was read. */
				if ((ntids > 1 || s->gen) && pms_error_errno() == ESRCH)
					break;
				return fd;
			}
			fds[i] = fd;
			uint64_t id = 0;
			if (ev->attr.sample_type & PMS_SAMPLE_IDENTIFIER) {
				const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
				int r = ops->ioctl(ops->ud, fd, PERF_EVENT_IOC_ID,
						   (unsigned long)(uintptr_t)&id);
				if (r < 0) {
					pms_sys_close(s->sys, fd);
					return pms_err_errno(0, -r, "PERF_EVENT_IOC_ID on %s", what);
				}
			}
			if (s->nst == cap) {
				size_t n = cap ? cap * 2 : 16;
				struct stream *ns;
				/* the copier reads streams [0, nst_pub) under mu */
				if (s->st_unlocked)
					pthread_mutex_lock(&s->mu);
				ns = realloc(s->st, n * sizeof(*ns));
				if (ns)
					s->st = ns;
				if (s->st_unlocked)
					pthread_mutex_unlock(&s->mu);
				if (!ns) {
					pms_sys_close(s->sys, fd);
					return pms_err(PMS_ENOMEM, "out of memory for sampler streams");
				}
				cap = n;
			}
			st = &s->st[s->nst++];
			memset(st, 0, sizeof(*st));
			st->fd = fd;
			st->id = id;
			st->ev = i;
			st->cpu = cpu;
			st->period = ev->attr.freq ? ev->attr.sample_freq : ev->attr.sample_period;
			st->gen = s->gen;
			st->root = s->o.target == PMS_TARGET_CPUS ? -1 : pid;
			pms_sample_layout_from_attr(&st->layout, &ev->attr);
			if ((ret = map_ring(s, st, pages)) < 0)
				return ret;
			if (ev->engine == PMS_ENG_SPE && ev->role != SMP_ROLE_SIDEBAND) {
				size_t ap = s->o.aux_pages ? s->o.aux_pages : 128;
				if ((ret = pms_ring_aux_open(st->ring, ap)) < 0)
					return ret;
				st->midr = cpu_midr(s, cpu);
			}
		}
	}
	return 0;
}

static int open_streams(struct pms_sampler *s)
{
	size_t ntids = 0;
	pid_t *tids = NULL;
	int ret;

	if ((ret = target_tids(s, &tids, &ntids)) < 0)
		return ret;
	s->pages = ring_pages(s);
	ret = open_gen(s, tids, ntids, s->pages);
	free(tids);
	return ret;
}

static void close_streams(struct pms_sampler *s)
{
	/* Members before leaders: close in reverse order of opening. */
	for (size_t i = s->nst; i-- > 0;) {
		free(s->st[i].carry);
		pms_ring_free(s->st[i].ring);
		pms_sys_close(s->sys, s->st[i].fd);
	}
	free(s->st);
	s->st = NULL;
	s->nst = 0;
}

static int no_engine_error(const struct smp_plan *p)
{
	char msg[1024];
	size_t len = 0;

	len += (size_t)snprintf(msg, sizeof(msg), "no sampling engine could be opened:");
	for (size_t a = 0; a < p->natt && len < sizeof(msg); a++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, " [%s%s%s: %s]",
					pms_engine_label(p->att[a].engine),
					p->att[a].pmu[0] ? " " : "", p->att[a].pmu,
					p->att[a].reason);
	return pms_err(PMS_ENOTSUP, "%s", msg);
}


static uint64_t mono_ns(void);

static int build_pfd(struct pms_sampler *s)
{
	/* the rings, then the wake eventfd (-1: none) */
	struct pollfd *p = realloc(s->pfd, (s->nst + 1) * sizeof(*p));
	if (!p)
		return pms_err(PMS_ENOMEM, "out of memory for poll fds");
	s->pfd = p;
	for (size_t i = 0; i < s->nst; i++) {
		s->pfd[i].fd = s->st[i].hup ? -1 : s->st[i].fd;
		s->pfd[i].events = POLLIN;
		s->pfd[i].revents = 0;
	}
	s->pfd[s->nst] = (struct pollfd){ s->wake_fd, POLLIN, 0 };
	return 0;
}

static void note_append(struct smp_plan *p, const char *text)
{
	size_t len = strlen(p->notes);
	snprintf(p->notes + len, sizeof(p->notes) - len, "%s%s", len ? "; " : "", text);
}

/* A plan the adaptation can reopen event by event: no groups (a member's
 * group fd would have to be reopened with it) and no AUX areas. */
static bool adaptable(const struct smp_plan *p)
{
	for (int i = 0; i < p->nev; i++)
		if (p->ev[i].leader >= 0 || p->ev[i].role == SMP_ROLE_AUX_LEADER ||
		    p->ev[i].engine == PMS_ENG_SPE)
			return false;
	return true;
}

int pms_sampler_open(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_sampler_opts *opts,
		     struct pms_sampler **out)
{
	struct pms_sampler *s;
	int ret;
	uint32_t wake;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "out of memory for a sampler");
	s->sys = sys;
	s->wake_fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->o = (struct pms_sampler_opts)PMS_SAMPLER_OPTS_INIT;
	/* A version 1 caller's struct ends before callgraph, a version 2
	 * caller's before exclude_pid, a version 3 one before spe_inv_data_src,
	 * a version 4 one before adapt (util/opts.h). */
	if (opts)
		memcpy(&s->o, opts,
		       opts->version >= 5   ? sizeof(*opts)
		       : opts->version == 4 ? offsetof(struct pms_sampler_opts, adapt)
		       : opts->version == 3 ? offsetof(struct pms_sampler_opts, spe_inv_data_src)
		       : opts->version == 2 ? offsetof(struct pms_sampler_opts, exclude_pid)
					    : offsetof(struct pms_sampler_opts, callgraph));
	s->o.cpus = (struct pms_cpuset){ 0 }; /* borrowed only during the plan */
	ret = pms_smp_plan(sys, pmus, topo, opts, &s->plan);
	if (ret < 0)
		goto out;
	if ((ret = pms_smp_callgraph(&s->plan, &s->o)) < 0)
		goto out;
	/* A DWARF sample carries a stack copy (8 KiB by default): a ring of
	 * 64 pages holds only about thirty of them. */
	if (s->o.callgraph == PMS_CALLGRAPH_DWARF && !s->o.data_pages)
		s->o.data_pages = 512;
	if (s->plan.engine == PMS_ENG_NONE) {
		ret = no_engine_error(&s->plan);
		goto out;
	}
	if (s->o.data_pages && (s->o.data_pages & (s->o.data_pages - 1))) {
		ret = pms_err(PMS_EINVAL, "data_pages %zu is not a power of two", s->o.data_pages);
		goto out;
	}
	/* Side-band on the main event when it runs on every CPU, else on a
	 * dummy software event that does. */
	if (covers_all(&s->plan, &s->plan.ev[0]) && s->plan.ev[0].role == SMP_ROLE_MAIN) {
		set_sideband_bits(&s->plan.ev[0].attr);
	} else {
		for (int i = 0; i < s->plan.nev; i++)
			if (s->plan.ev[i].role == SMP_ROLE_MAIN)
				s->plan.ev[i].role = SMP_ROLE_EXTRA;
		if ((ret = add_sideband_event(&s->plan)) < 0)
			goto out;
		set_sideband_bits(&s->plan.ev[s->plan.nev - 1].attr);
	}
	/* Several events: every record says which one wrote it
	 * (PERF_SAMPLE_IDENTIFIER, at a fixed place in every record, and with
	 * sample_id_all in side-band records too), so a recording can tell
	 * them apart (perf refuses a file of several events without ids). */
	/* SPE too: perf's decoder numbers its synthesized events after the
	 * SPE event's first id (tools/perf/util/arm-spe.c
	 * arm_spe_synth_events), so a recording needs one. */
	if (s->plan.nev > 1 || s->plan.engine == PMS_ENG_SPE)
		for (int i = 0; i < s->plan.nev; i++)
			s->plan.ev[i].attr.sample_type |= PMS_SAMPLE_IDENTIFIER;
	wake = s->o.wakeup_bytes;
	if (!wake)
		wake = (uint32_t)(ring_pages(s) * (size_t)sysconf(_SC_PAGESIZE) / 4);
	for (int i = 0; i < s->plan.nev; i++) {
		struct perf_event_attr *a = &s->plan.ev[i].attr;
		bool member = s->plan.ev[i].leader >= 0;
		/* Wake the poller only once a watermark of bytes is waiting. */
		a->watermark = 1;
		a->wakeup_watermark = wake;
		if (s->o.target != PMS_TARGET_CPUS)
			a->inherit = 1; /* children of the target too */
		if (s->o.target == PMS_TARGET_CHILD && !member)
			a->enable_on_exec = 1; /* starts at the exec of the waiting child */
		a->disabled = member ? 0 : 1;
	}
	if (s->plan.engine == PMS_ENG_IBS || s->plan.engine == PMS_ENG_SPE)
		load_identity(s, topo);
	/* Adaptation closes rings whose last loss the kernel may not have
	 * reported yet (it writes a LOST record only before a later record,
	 * ring_buffer.c:190-191, 248-256): read() with PERF_FORMAT_LOST (Linux
	 * 6.0) gives the event's count of lost records (lost_samples,
	 * ring_buffer.c:264) at close.  read_format does not change the
	 * sample records without PERF_SAMPLE_READ. */
	if (s->o.adapt && adaptable(&s->plan))
		for (int i = 0; i < s->plan.nev; i++) {
			struct perf_event_attr *at = &s->plan.ev[i].attr;
			at->read_format |= PERF_FORMAT_LOST;
			/* a software event at period 1 keeps PERIOD when it may
			 * adapt (it costs nothing there: every event overflows
			 * anyway): a recording's attr then says every sample
			 * carries its period, the reopened events' included */
			if (at->type == PERF_TYPE_SOFTWARE && !at->freq && at->sample_period == 1)
				at->sample_type |= PERF_SAMPLE_PERIOD;
		}
	if ((ret = open_streams(s)) < 0 && s->o.adapt && pms_error_errno() == EINVAL) {
		/* a kernel before 6.0: without the count at close */
		close_streams(s);
		for (int i = 0; i < s->plan.nev; i++)
			s->plan.ev[i].attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		ret = open_streams(s);
	}
	if (ret < 0)
		goto out;
	/* eventfd is not a perf syscall (not in the seam's ops table): a live
	 * context only; without one, a wake is ignored */
	if (pms_sys_is_live(sys))
		s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if ((ret = build_pfd(s)) < 0)
		goto out;
	s->adapt_ok = s->o.adapt && adaptable(&s->plan);
	s->t_open = mono_ns();
	if (s->o.adapt && !s->adapt_ok)
		note_append(&s->plan, "no adaptation to loss: the events form groups or "
				      "have AUX areas, which this sampler does not reopen");
	label_build(s);
	s->nst_pub = s->nst;
	/* The copier runs from here on: a child target's events enable
	 * themselves at its exec, with no call of ours. */
	drain_thread_start(s);
	*out = s;
	s = NULL;
	ret = 0;
out:
	pms_sampler_free(s);
	return ret;
}

void pms_sampler_free(struct pms_sampler *s)
{
	if (!s)
		return;
	drain_thread_stop(s);
	close_streams(s);
	free(s->in.buf);
	free(s->out.buf);
	free(s->tpfd);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->auxbuf);
	free(s->pfd);
	free(s->adapt);
	free(s->roots);
	pms_smp_plan_fini(&s->plan);
	pms_topo_free(s->own_id);
	free(s);
}

static int ioctl_all(struct pms_sampler *s, unsigned long req, const char *what)
{
	const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
	for (size_t i = 0; i < s->nst; i++) {
		int r;
		if (s->plan.ev[s->st[i].ev].leader >= 0)
			continue; /* group members follow their leader */
		r = ops->ioctl(ops->ud, s->st[i].fd, req, 0);
		if (r < 0)
			return pms_err_errno(0, -r, "%s on fd %d (%s, cpu %d)", what, s->st[i].fd,
					     s->plan.ev[s->st[i].ev].pmu_name, s->st[i].cpu);
	}
	return 0;
}

int pms_sampler_enable(struct pms_sampler *s)
{
	__atomic_store_n(&s->disabled, false, __ATOMIC_RELAXED);
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
}

int pms_sampler_disable(struct pms_sampler *s)
{
	/* no adaptation after this: it would open enabled events */
	__atomic_store_n(&s->disabled, true, __ATOMIC_RELAXED); /* the copier reads it */
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE");
}

/* ---- draining ---------------------------------------------------------------- */

struct drain_ctx {
	struct pms_sampler *s;
	struct stream *st;
	const struct pms_sampler_callbacks *cb;
	const struct smp_hooks *h; /* the memory-sample source's, or NULL */
	void *ud;
	int stop; /* a callback's negative code */
};

static bool root_keep(struct pms_sampler *s, int32_t tid, pid_t root);
static bool adapt_due(struct pms_sampler *s);
/* on_record's stop that asks poll_impl to adapt and drain on (not a code
 * any caller sees) */
#define SMP_ADAPT_STOP (-100000)

static bool priv_ok(const struct pms_sampler *s, const struct pms_sample *in)
{
	if (s->o.priv == PMS_PRIV_USER)
		return in->cpumode == PMS_MISC_USER;
	if (s->o.priv == PMS_PRIV_KERNEL)
		return in->cpumode == PMS_MISC_KERNEL;
	return true;
}

static int on_sample(struct drain_ctx *c, const struct pms_record *r)
{
	struct pms_sampler *s = c->s;
	const struct pms_sample *in = &r->sample;
	const struct smp_event *ev = &s->plan.ev[c->st->ev];
	struct pms_memconv_ctx cx;
	struct pms_memsample m;
	unsigned flags = 0;

	if (ev->role == SMP_ROLE_AUX_LEADER || ev->role == SMP_ROLE_SIDEBAND ||
	    (ev->filter_priv && !priv_ok(s, in))) {
		s->stats.samples_dropped++;
		return 0;
	}
	if (s->o.exclude_pid > 0 && (in->present & PMS_SAMPLE_TID) &&
	    in->pid == (uint32_t)s->o.exclude_pid) {
		s->stats.samples_excluded++;
		return 0;
	}
	/* adaptation: one lineage per task in a generation (adapt_now) */
	if (c->st->gen && c->st->gen == s->gen && (c->st->layout.sample_type & PMS_SAMPLE_TID) &&
	    !root_keep(s, (int32_t)in->tid, c->st->root)) {
		s->dups++;
		return 0;
	}
	memset(&cx, 0, sizeof(cx));
	cx.engine = ev->engine;
	cx.sample_type = c->st->layout.sample_type;
	/* the period of the events that wrote it (adaptation changes it) */
	cx.fixed_period = ev->attr.freq ? 0 : c->st->period;
	if (ev->engine == PMS_ENG_IBS) {
		/* the RAW registers cross-check the kernel's fields */
		cx.ibs_cpu = &s->ibs_cpu;
		cx.ibs_ldlat = (unsigned)(ev->attr.config1 & 0xfff);
	}
	if (pms_memsample_from_sample(in, &cx, &m, &flags) < 0) {
		s->stats.parse_errors++;
		return 0;
	}
	if (flags & PMS_MEMCONV_RAW_CHECKED)
		s->stats.ibs_raw_checked++;
	if (flags & PMS_MEMCONV_RAW_MISMATCH)
		s->stats.ibs_raw_mismatch++;
	s->stats.samples++;
	c->st->nsamples++;
	s->events += m.period;
	if (c->h && c->h->sample)
		return c->h->sample(c->ud, &m, r, c->st->ev);
	if (c->cb && c->cb->sample)
		return c->cb->sample(c->ud, &m);
	return 0;
}

/* SPE timestamps are counter ticks; the user page gives the conversion to
 * perf time when cap_user_time_zero is set (include/uapi/linux/perf_event.h,
 * the time_zero comment; kernel-abi-facts §1.3), read as perf record reads
 * it for PERF_RECORD_TIME_CONV (tools/perf/util/tsc.c perf_read_tsc_conversion:
 * under the seqlock). */
static void ring_time_conv(const struct stream *st, struct pms_spe_time_conv *tc)
{
	const volatile struct perf_event_mmap_page *pg = pms_ring_user_page(st->ring);
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint64_t caps = pg->capabilities;
		tc->time_mult = pg->time_mult;
		tc->time_shift = pg->time_shift;
		tc->time_zero = pg->time_zero;
		tc->time_cycles = pg->time_cycles;
		tc->time_mask = pg->time_mask;
		tc->cap_user_time_zero = (caps >> 4) & 1;
		tc->cap_user_time_short = (caps >> 5) & 1;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (pg->lock == seq && !(seq & 1))
			break;
	}
}

static bool spe_time(const struct stream *st, uint64_t cyc, uint64_t *ns)
{
	struct pms_spe_time_conv tc;
	ring_time_conv(st, &tc);
	return pms_spe_time_to_perf(&tc, cyc, ns);
}

int pms_smp_time_conv(const struct pms_sampler *s, struct pms_spe_time_conv *out)
{
	for (size_t i = 0; i < s->nst; i++)
		if (s->plan.ev[s->st[i].ev].engine == PMS_ENG_SPE &&
		    s->plan.ev[s->st[i].ev].role != SMP_ROLE_SIDEBAND) {
			ring_time_conv(&s->st[i], out);
			return out->cap_user_time_zero ? 0 : PMS_ENOENT;
		}
	return PMS_ENOENT;
}

/* Keep the AUX bytes being read for the source's aux hook. */
static int aux_keep(struct pms_sampler *s, const void *data, size_t len)
{
	if (s->auxlen + len > s->auxcap) {
		size_t n = (s->auxlen + len) * 2;
		uint8_t *q = realloc(s->auxbuf, n);
		if (!q)
			return pms_err(PMS_ENOMEM, "out of memory keeping %zu AUX bytes", len);
		s->auxbuf = q;
		s->auxcap = n;
	}
	memcpy(s->auxbuf + s->auxlen, data, len);
	s->auxlen += len;
	return 0;
}

static int carry_keep(struct stream *st, const uint8_t *p, size_t n)
{
	/* One record is at most 2 KiB (PMSIDR_EL1.MaxSize, arm_spe_pmu.c); a
	 * longer tail is not a record in progress. */
	if (n > 4096)
		return PMS_ERANGE;
	if (n == 0) {
		st->ncarry = 0;
		return 0;
	}
	if (n > st->capcarry) {
		uint8_t *q = realloc(st->carry, n);
		if (!q)
			return PMS_ENOMEM;
		st->carry = q;
		st->capcarry = n;
	}
	memmove(st->carry, p, n);
	st->ncarry = n;
	return 0;
}

static int on_aux_bytes(void *ud, const void *data, size_t len, uint64_t offset)
{
	struct drain_ctx *c = ud;
	struct pms_sampler *s = c->s;
	struct stream *st = c->st;
	struct pms_spe_reader rd;
	struct pms_spe_record rec;
	const uint8_t *buf = data;
	size_t n = len;
	int r;

	(void)offset;
	if (s->aux_acc && len && aux_keep(s, data, len) < 0)
		s->stats.aux_decode_errors++;
	s->stats.aux_bytes += len;
	st->carry_whole = false;
	if (st->ncarry && len == 0) {
		buf = st->carry;
		n = st->ncarry;
	} else if (st->ncarry) {
		/* Prepend the record cut at the end of the previous chunk. */
		size_t need = st->ncarry + len;
		if (need > st->capcarry) {
			uint8_t *q = realloc(st->carry, need);
			if (!q)
				return pms_err(PMS_ENOMEM, "out of memory joining AUX chunks");
			st->carry = q;
			st->capcarry = need;
		}
		memcpy(st->carry + st->ncarry, data, len);
		buf = st->carry;
		n = need;
	}
	pms_spe_reader_init(&rd, buf, n);
	while ((r = pms_spe_record_next(&rd, &rec)) != 0) {
		struct pms_memsample m;
		uint64_t ns;
		if (r < 0) {
			s->stats.aux_decode_errors++;
			continue;
		}
		if (pms_spe_record_memsample(&rec, st->midr, false, &m) < 0) {
			s->stats.aux_decode_errors++;
			continue;
		}
		/* A memory sample is a load/store/atomic record, as perf's
		 * --itrace=M and the recorded source take them. */
		if (!pms_spe_record_is_mem(&rec)) {
			s->stats.samples_dropped++;
			continue;
		}
		if (!(m.valid & PMS_MS_CPU)) {
			m.valid |= PMS_MS_CPU;
			m.cpu = (uint32_t)st->cpu;
		}
		/* A CONTEXT packet (CONTEXTIDR_EL1: the kernel writes the pid
		 * there, PMSCR_EL1.CX) names the task, as the recorded source
		 * takes it (pms_spe_chunk_decode); else the AUX record's task. */
		if ((rec.valid & PMS_SPE_R_CONTEXT) && !(m.valid & PMS_MS_TID)) {
			m.valid |= PMS_MS_TID;
			m.pid = m.tid = rec.context;
		}
		if (st->aux_tid_valid && !(m.valid & PMS_MS_TID)) {
			m.valid |= PMS_MS_TID;
			m.pid = st->aux_pid;
			m.tid = st->aux_tid;
		}
		if (s->o.exclude_pid > 0 && (m.valid & PMS_MS_TID) &&
		    m.pid == (uint32_t)s->o.exclude_pid) {
			s->stats.samples_excluded++;
			continue;
		}
		if (m.valid & PMS_MS_TIME) {
			if (spe_time(st, m.time, &ns))
				m.time = ns;
			else {
				m.valid &= ~(uint32_t)PMS_MS_TIME;
				m.time = 0;
			}
		}
		m.period = s->plan.ev[st->ev].attr.sample_period;
		s->stats.samples++;
		if (c->h && c->h->sample)
			r = c->h->sample(c->ud, &m, NULL, st->ev);
		else if (c->cb && c->cb->sample)
			r = c->cb->sample(c->ud, &m);
		else
			r = 0;
		if (r < 0) {
			/* Keep the rest for the next poll. */
			c->stop = r;
			if (carry_keep(st, buf + rd.pos, n - rd.pos) < 0)
				s->stats.aux_decode_errors++;
			else
				st->carry_whole = st->ncarry > 0;
			return 0;
		}
	}
	if (carry_keep(st, buf + (n - rd.left), rd.left) < 0) {
		s->stats.aux_decode_errors++;
		st->ncarry = 0;
	}
	return 0;
}

static int on_record(void *ud, const void *rec, size_t len)
{
	struct drain_ctx *c = ud;
	struct pms_sampler *s = c->s;
	struct pms_record r;
	int ret = 0;

	if (c->stop)
		return c->stop; /* leave the rest for the next poll */
	s->stats.records++;
	c->st->kept++;
	/* A long drain of one ring while the others fill: look at them now
	 * and then (adapt_due), and stop to adapt when one is near full. */
	if (s->adapt_ok && !(c->st->kept & 255) && c->st->gen == s->gen && !c->st->retired &&
	    (s->staged ? __atomic_load_n(&s->adapt_hint, __ATOMIC_ACQUIRE) != 0 : adapt_due(s)))
		c->stop = SMP_ADAPT_STOP; /* this record is consumed below */
	if (pms_record_parse(&c->st->layout, rec, len, &r) < 0) {
		s->stats.parse_errors++;
		return 0;
	}
	switch (r.type) {
	case PMS_RECORD_SAMPLE:
		ret = on_sample(c, &r);
		break;
	case PMS_RECORD_MMAP:
	case PMS_RECORD_MMAP2:
	case PMS_RECORD_COMM:
	case PMS_RECORD_FORK:
	case PMS_RECORD_EXIT:
		s->stats.sideband++;
		if (c->h && c->h->sideband)
			ret = c->h->sideband(c->ud, &r, c->st->ev);
		else if (c->cb && c->cb->sideband)
			ret = c->cb->sideband(c->ud, &r);
		break;
	case PMS_RECORD_LOST:
		s->stats.lost_records++;
		s->stats.lost += r.lost.lost;
		c->st->lost += r.lost.lost;
		goto accounting;
	case PMS_RECORD_LOST_SAMPLES:
		s->stats.lost_samples += r.lost.lost;
		goto accounting;
	case PMS_RECORD_THROTTLE:
		s->stats.throttle++;
		goto accounting;
	case PMS_RECORD_UNTHROTTLE:
		s->stats.unthrottle++;
	accounting:
		/* the memory-sample source passes these on (a recorder writes
		 * them); the public callbacks never had them */
		if (c->h && c->h->sideband)
			ret = c->h->sideband(c->ud, &r, c->st->ev);
		break;
	case PMS_RECORD_AUX:
		s->stats.aux_records++;
		if (r.aux.flags & PMS_AUX_FLAG_TRUNCATED)
			s->stats.aux_truncated++;
		if (r.aux.flags & PMS_AUX_FLAG_OVERWRITE)
			s->stats.aux_overwrite++;
		if (r.aux.flags & PMS_AUX_FLAG_PARTIAL)
			s->stats.aux_partial++;
		if (r.aux.flags & PMS_AUX_FLAG_COLLISION)
			s->stats.aux_collision++;
		c->st->aux_tid_valid = (r.sample_id.present & PMS_SAMPLE_TID) != 0;
		c->st->aux_pid = r.sample_id.pid;
		c->st->aux_tid = r.sample_id.tid;
		s->auxlen = 0;
		s->aux_acc = c->h && c->h->aux;
		if (r.aux.aux_size && pms_ring_aux_size(c->st->ring) &&
		    pms_ring_aux_read(c->st->ring, r.aux.aux_offset, r.aux.aux_size, on_aux_bytes,
				      c) < 0)
			s->stats.aux_decode_errors++;
		if (s->aux_acc) {
			struct pms_spe_time_conv tc;
			struct pms_memsrc_aux a = {
				.rec = &r, .data = s->auxbuf, .len = s->auxlen,
				.attr_idx = (size_t)c->st->ev, .idx = (uint32_t)(c->st - s->st),
				.cpu = c->st->cpu >= 0 ? (uint32_t)c->st->cpu : UINT32_MAX,
				.tid = UINT32_MAX, .tc = NULL,
			};
			ring_time_conv(c->st, &tc);
			if (tc.cap_user_time_zero)
				a.tc = &tc;
			s->aux_acc = false;
			ret = c->h->aux(c->ud, &a);
		}
		/* After truncation or data loss the next chunk does not continue
		 * the record cut at the end of this one. */
		if (r.aux.flags & (PMS_AUX_FLAG_TRUNCATED | PMS_AUX_FLAG_PARTIAL))
			c->st->ncarry = 0;
		break;
	default:
		break;
	}
	/* Accounting records go to the sideband callback too, so that a
	 * recording keeps them (perf report --stats shows the loss). */
	if ((r.type == PMS_RECORD_LOST || r.type == PMS_RECORD_LOST_SAMPLES ||
	     r.type == PMS_RECORD_THROTTLE || r.type == PMS_RECORD_UNTHROTTLE) &&
	    c->cb && c->cb->sideband)
		ret = c->cb->sideband(c->ud, &r);
	if (ret < 0)
		c->stop = ret; /* this record is consumed; the next one stops */
	return 0;
}

/* ---- adaptation to loss (opts.adapt) ------------------------------------------
 * PERF_EVENT_IOC_PERIOD changes only the event it is given
 * (kernel/events/core.c:6089-6096 -> _perf_event_period, 6009-6030), not the
 * events inherited from it, which copy the period once, when their task is
 * forked (inherit_event: perf_event_alloc from the top parent's attr,
 * core.c:13706-13713; in freq mode its hw period, 13752-13760).  A running
 * child's threads would keep the old period.  So the sampler reopens: new events (larger
 * period, larger rings) on every task of the target, found through
 * /proc/PID/task and /proc/PID/task/TID/children, with inherit for the tasks
 * they fork; then PERF_EVENT_IOC_DISABLE on the old events, which reaches
 * every event inherited from them (_perf_ioctl, core.c:6178-6180 ->
 * perf_event_for_each_child, 5938-5950), and ENABLE on the new ones; the old
 * rings are drained and closed (closing frees the inherited events,
 * perf_event_release_kernel).  A task forked while the new events were being
 * opened may miss them (a second walk opens events on it) or get them twice,
 * from its creator and directly: its samples are then kept from one lineage
 * only (the task's own events, else the first seen), by the ring they come
 * from -- inherited events write into their parent's ring (ring_buffer.c:
 * 171-172). */

struct tidset {
	pid_t *v;
	size_t n, cap;
};

static int tid_add(struct tidset *t, pid_t v)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i] == v)
			return 0;
	int rc = pms_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v), 32, "the task list");
	if (rc < 0)
		return rc;
	t->v[t->n++] = v;
	return 1;
}

/* The target's tasks now: the threads of the target process and of every
 * descendant process (CONFIG_PROC_CHILDREN's children files), which the
 * first events reach by inheritance. */
static int walk_tasks(struct pms_sampler *s, struct tidset *out)
{
	struct tidset procs = { NULL, 0, 0 };
	int ret = tid_add(&procs, s->o.pid);

	for (size_t pi = 0; ret >= 0 && pi < procs.n && pi < 65536; pi++) {
		char path[96], **names = NULL;
		size_t count = 0;
		snprintf(path, sizeof(path), "proc/%d/task", (int)procs.v[pi]);
		if (pms_sys_list_dir(s->sys, path, &names, &count) < 0)
			continue; /* gone since its parent listed it */
		for (size_t i = 0; ret >= 0 && i < count; i++) {
			char *end, *text = NULL;
			long tid = strtol(names[i], &end, 10);
			if (*end || tid <= 0)
				continue;
			if ((ret = tid_add(out, (pid_t)tid)) < 0)
				break;
			snprintf(path, sizeof(path), "proc/%d/task/%ld/children", (int)procs.v[pi],
				 tid);
			if (pms_sys_read_file(s->sys, path, &text, NULL) < 0)
				continue;
			for (char *q = text;;) {
				long c = strtol(q, &end, 10);
				if (end == q)
					break;
				if (c > 0 && (ret = tid_add(&procs, (pid_t)c)) < 0)
					break;
				q = end;
			}
			free(text);
		}
		pms_sys_names_free(names, count);
	}
	if (ret >= 0 && out->n == 0)
		ret = tid_add(out, s->o.pid); /* a root without /proc: the pid alone */
	free(procs.v);
	pms_error_clear();
	return ret < 0 ? ret : 0;
}

static struct root_slot *root_find(struct pms_sampler *s, int32_t tid, bool add)
{
	if (add && (s->nroots + 1) * 2 > s->caproots) {
		size_t ncap = s->caproots ? s->caproots * 2 : 64;
		struct root_slot *n = calloc(ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < s->caproots; i++) {
			size_t h;
			if (!s->roots[i].tid)
				continue;
			for (h = ((uint32_t)s->roots[i].tid * 2654435761u) & (ncap - 1); n[h].tid;
			     h = (h + 1) & (ncap - 1))
				;
			n[h] = s->roots[i];
		}
		free(s->roots);
		s->roots = n;
		s->caproots = ncap;
	}
	if (!s->caproots)
		return NULL;
	for (size_t h = ((uint32_t)tid * 2654435761u) & (s->caproots - 1);;
	     h = (h + 1) & (s->caproots - 1)) {
		if (s->roots[h].tid == tid)
			return &s->roots[h];
		if (!s->roots[h].tid) {
			if (!add)
				return NULL;
			s->roots[h].tid = tid;
			s->roots[h].root = 0;
			s->nroots++;
			return &s->roots[h];
		}
	}
}

/* Whether a sample of task tid that came from events opened on root is
 * from the one lineage kept for that task in this generation. */
static bool root_keep(struct pms_sampler *s, int32_t tid, pid_t root)
{
	struct root_slot *r;
	if (tid <= 0 || root <= 0)
		return true;
	r = root_find(s, tid, true);
	if (!r)
		return true; /* out of memory: keep */
	if (!r->root)
		r->root = root;
	return r->root == root;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* PERF_EVENT_IOC_ENABLE / DISABLE on streams [from, to). */
static void ioctl_range(struct pms_sampler *s, size_t from, size_t to, unsigned long req)
{
	const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
	for (size_t i = from; i < to; i++)
		(void)ops->ioctl(ops->ud, s->st[i].fd, req, 0);
}

static void close_from(struct pms_sampler *s, size_t from)
{
	for (size_t i = s->nst; i-- > from;) {
		free(s->st[i].carry);
		pms_ring_free(s->st[i].ring);
		pms_sys_close(s->sys, s->st[i].fd);
	}
	s->nst = from;
}

/* Open the next generation with a period factor times larger, switch to
 * it and retire the current one.  On failure the current one runs on and
 * adaptation stops (noted). */
struct adapt_why {
	uint64_t kept, lost;
	unsigned fill, rate;
};

static int adapt_now(struct pms_sampler *s, const struct adapt_why *w)
{
	uint64_t kept = w->kept, lost = w->lost;
	unsigned fill = w->fill;
	struct smp_plan *p = &s->plan;
	struct perf_event_attr saved[SMP_MAX_EVENTS];
	struct pms_sampler_adaptation a, *na;
	struct tidset tids = { NULL, 0, 0 };
	long psz = sysconf(_SC_PAGESIZE);
	size_t maxpages = psz > 0 ? (size_t)(4 << 20) / (size_t)psz : 1024;
	size_t first = s->nst, old_n = 0;
	uint64_t factor = 2, t0, t1;
	unsigned old_gen = s->gen;
	int ret;

	memset(&a, 0, sizeof(a));
	/* Keep the records the drain can take: scale by (kept + lost) / kept,
	 * twice that for headroom; a ring 3/4 full: 4, a full one (>= 95 %):
	 * 8; a ring that received r % of its size between two polls: enough
	 * to bring r to 1/8 (the next interval may be far longer: the caller
	 * resolves nodes between polls); a power of two from 2 to 64. */
	factor = fill >= 95 ? 8 : fill >= 75 ? 4 : 2;
	while (factor < 64 && lost && (!kept || factor * kept < 2 * (kept + lost)))
		factor *= 2;
	while (factor < 64 && w->rate > 12 * factor)
		factor *= 2;
	for (int i = 0; i < p->nev; i++) {
		struct perf_event_attr *at = &p->ev[i].attr;
		saved[i] = *at;
		if (p->ev[i].role == SMP_ROLE_MAIN || p->ev[i].role == SMP_ROLE_EXTRA) {
			if (!a.new_period) {
				a.freq = at->freq;
				a.old_period = at->freq ? at->sample_freq : at->sample_period;
			}
			if (at->freq)
				at->sample_freq = at->sample_freq / factor ? at->sample_freq / factor : 1;
			else if (at->sample_period < (1ULL << 40))
				at->sample_period *= factor;
			if (!a.new_period)
				a.new_period = at->freq ? at->sample_freq : at->sample_period;
			/* A software event sampling PERIOD without freq overflows
			 * on every event (kernel/events/core.c:10079-10081
			 * perf_swevent_event): the new events leave PERIOD out and
			 * each sample takes its stream's period (as build_sw). */
			if (at->type == PERF_TYPE_SOFTWARE && !at->freq && at->sample_period > 1)
				at->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
		}
		at->disabled = 1;
		at->enable_on_exec = 0;
	}
	a.old_pages = s->pages;
	a.new_pages = s->pages * 2 <= maxpages ? s->pages * 2 : s->pages;
	a.kept = kept;
	a.lost = lost;
	a.fill_pct = fill;
	a.rate_pct = w->rate;
	for (size_t i = 0; i < s->nst; i++)
		old_n += s->st[i].gen == old_gen && !s->st[i].retired;
	a.old_streams = old_n;
	if (s->staged) {
		/* Staged (the caller holds mu): the copier goes on copying the
		 * old rings while the new events are opened and mapped (tens
		 * of ms on a loaded machine, when the old rings fill fastest).
		 * It reads streams [0, nst_pub) only; this appends after them
		 * and moves the array only under mu (open_gen). */
		s->nst_pub = s->nst;
		s->st_unlocked = true;
		pthread_mutex_unlock(&s->mu);
	}
	if (s->o.target == PMS_TARGET_CPUS)
		ret = tid_add(&tids, -1);
	else
		ret = walk_tasks(s, &tids);
	s->gen = old_gen + 1;
	if (ret >= 0)
		ret = open_gen(s, tids.v, tids.n, a.new_pages);
	if (ret < 0)
		goto fail;
	/* This generation's lineages: each task with events of its own. */
	if (s->roots)
		memset(s->roots, 0, s->caproots * sizeof(*s->roots));
	s->nroots = 0;
	for (size_t i = 0; s->o.target != PMS_TARGET_CPUS && i < tids.n; i++) {
		struct root_slot *r = root_find(s, tids.v[i], true);
		if (r)
			r->root = tids.v[i];
	}
	t0 = mono_ns();
	for (size_t i = 0; i < first; i++)
		if (s->st[i].gen == old_gen && !s->st[i].retired)
			ioctl_range(s, i, i + 1, PERF_EVENT_IOC_DISABLE);
	ioctl_range(s, first, s->nst, PERF_EVENT_IOC_ENABLE);
	t1 = mono_ns();
	/* Tasks forked from one whose new events were not yet open. */
	for (int round = 0; s->o.target != PMS_TARGET_CPUS && round < 3; round++) {
		struct tidset now = { NULL, 0, 0 }, fresh = { NULL, 0, 0 };
		size_t n0 = s->nst;
		if (walk_tasks(s, &now) < 0) {
			free(now.v);
			break;
		}
		for (size_t i = 0; i < now.n; i++) {
			bool known = false;
			for (size_t k = 0; k < tids.n && !known; k++)
				known = tids.v[k] == now.v[i];
			if (!known && (tid_add(&fresh, now.v[i]) < 0 || tid_add(&tids, now.v[i]) < 0))
				break;
		}
		free(now.v);
		if (!fresh.n) {
			free(fresh.v);
			break;
		}
		if (open_gen(s, fresh.v, fresh.n, a.new_pages) < 0)
			pms_error_clear(); /* gone again: nothing to sample */
		for (size_t i = 0; i < fresh.n; i++) {
			struct root_slot *r = root_find(s, fresh.v[i], true);
			if (r)
				r->root = fresh.v[i];
		}
		ioctl_range(s, n0, s->nst, PERF_EVENT_IOC_ENABLE);
		free(fresh.v);
	}
	if (s->st_unlocked) {
		pthread_mutex_lock(&s->mu);
		s->st_unlocked = false;
	}
	for (size_t i = 0; i < first; i++)
		if (s->st[i].gen == old_gen)
			s->st[i].retired = true;
	s->nst_pub = s->nst;
	s->fdver++; /* the copier's poll set follows */
	a.at_ns = t1 - s->t_open; /* old_samples: when the old streams close */
	a.gap_ns = t1 - t0;
	a.new_streams = s->nst - first;
	a.tasks = s->o.target == PMS_TARGET_CPUS ? 0 : tids.n;
	na = realloc(s->adapt, (s->nadapt + 1) * sizeof(*na));
	if (na) {
		s->adapt = na;
		s->adapt[s->nadapt++] = a;
	}
	s->pages = a.new_pages;
	free(tids.v);
	return build_pfd(s);
fail:
	if (s->st_unlocked) {
		pthread_mutex_lock(&s->mu);
		s->st_unlocked = false;
	}
	close_from(s, first);
	s->nst_pub = s->nst;
	s->fdver++;
	s->gen = old_gen;
	for (int i = 0; i < p->nev; i++)
		p->ev[i].attr = saved[i];
	{
		char msg[256];
		snprintf(msg, sizeof(msg), "adaptation to loss stopped: %s", pms_error_last());
		note_append(p, msg);
	}
	s->adapt_ok = false;
	free(tids.v);
	return ret;
}

/* Adapt when this generation lost more than 2 % of its records (at least
 * 64), or when one of its rings is 3/4 full.  Called before a drain (the
 * sooner the workload writes into larger rings at a larger period, the less
 * it loses while the old rings are read) and after it (the LOST records
 * it read). */
static void note_fill(struct stream *st)
{
	size_t sz = pms_ring_data_size(st->ring);
	uint64_t pend = pms_ring_pending(st->ring);
	if (sz) {
		unsigned pct = pend >= sz ? 100 : (unsigned)(pend * 100 / sz);
		if (pct > st->fill_pct)
			st->fill_pct = pct;
	}
}

/* How much a ring received since the start of the last poll, in % of its
 * size; interval: this is the start of a poll. */
static void note_rate(struct stream *st, bool interval)
{
	const struct perf_event_mmap_page *pg = pms_ring_user_page(st->ring);
	size_t sz = pms_ring_data_size(st->ring);
	/* data_head: every byte the kernel wrote into the ring so far */
	uint64_t written = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	if (st->rate_known && sz) {
		uint64_t d = written - st->last_written;
		unsigned pct = d >= sz ? 100 : (unsigned)(d * 100 / sz);
		if (pct > st->rate_pct)
			st->rate_pct = pct;
	}
	if (interval || !st->rate_known) {
		st->last_written = written;
		st->rate_known = true;
	}
}

/* A ring this full (%) when it is read calls for a change.  In place: 3/4.
 * Staged: the copier wakes when a quarter is written (the watermark), so a
 * ring found half full means the copier came a quarter ring late: the
 * machine does not give it the CPU often enough for this rate. */
static unsigned fill_trigger(const struct pms_sampler *s)
{
	return s->staged ? 50 : 75;
}

/* This generation's counts, fullest ring and fastest ring; whether it
 * needs a change. */
static bool adapt_state(struct pms_sampler *s, bool interval, struct adapt_why *w)
{
	memset(w, 0, sizeof(*w));
	if (!s->adapt_ok || s->nadapt >= 8 || s->disabled)
		return false;
	for (size_t i = 0; i < s->nst; i++) {
		struct stream *st = &s->st[i];
		if (st->gen != s->gen || st->retired)
			continue;
		note_fill(st);
		note_rate(st, interval);
		w->kept += st->kept;
		w->lost += st->lost;
		if (st->fill_pct > w->fill)
			w->fill = st->fill_pct;
		if (st->rate_pct > w->rate)
			w->rate = st->rate_pct;
	}
	return (w->lost >= 64 && w->lost * 50 > w->kept + w->lost) || w->fill >= fill_trigger(s) ||
	       w->rate >= 25;
}

static bool adapt_due(struct pms_sampler *s)
{
	struct adapt_why w;
	/* a look costs a pass over the streams: not for thousands of them */
	return s->nst <= 1024 && adapt_state(s, false, &w);
}

/* interval: at the start of a poll (the rates are measured then) */
static void adapt_check(struct pms_sampler *s, bool interval)
{
	struct adapt_why w;
	if (adapt_state(s, interval, &w))
		(void)adapt_now(s, &w); /* a failure is noted, not fatal */
}

/* The records a retired stream lost that no LOST record reported: the
 * event's lost count (PERF_FORMAT_LOST) less the LOST records read. */
static void retired_lost(struct pms_sampler *s, struct stream *st)
{
	const struct pms_sys_ops *ops = pms_sys_ops(s->sys);
	const struct perf_event_attr *a = &s->plan.ev[st->ev].attr;
	uint64_t v[8];
	size_t n = 1;
	ssize_t r;

	if (!(a->read_format & PERF_FORMAT_LOST))
		return;
	n += !!(a->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	     !!(a->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(a->read_format & PERF_FORMAT_ID);
	r = ops->read(ops->ud, st->fd, v, (n + 1) * sizeof(v[0]));
	if (r != (ssize_t)((n + 1) * sizeof(v[0])) || v[n] <= st->lost)
		return;
	s->stats.lost += v[n] - st->lost;
	s->unreported_lost += v[n] - st->lost;
	st->lost = v[n];
}

/* Before draining stream i (the drain of the others took time): adapt
 * when its ring is 3/4 full. */
static void adapt_check_one(struct pms_sampler *s, size_t i)
{
	struct stream *st = &s->st[i];
	if (!s->adapt_ok || s->nadapt >= 8 || s->disabled || st->gen != s->gen || st->retired)
		return;
	note_fill(st);
	if (st->fill_pct >= 75)
		adapt_check(s, false);
}

/* After a drain: adapt on the loss it found, then drain the retired
 * streams (disabled: nothing more comes) and close them.  Returns the
 * records read, or a stop code. */
static int adapt_poll(struct pms_sampler *s, const struct pms_sampler_callbacks *cb,
		      const struct smp_hooks *h, void *ud)
{
	size_t w = 0;
	int total = 0;

	adapt_check(s, false); /* the loss this drain found */
	for (size_t i = 0; i < s->nst; i++) {
		struct drain_ctx c = { s, &s->st[i], cb, h, ud, 0 };
		int r;
		if (!s->st[i].retired)
			continue;
		r = pms_ring_drain(s->st[i].ring, on_record, &c);
		if (c.stop)
			return c.stop;
		if (r > 0)
			total += r;
	}
	for (size_t i = 0; i < s->nst; i++) {
		if (s->st[i].retired) {
			/* samples drained after the change, at the old period */
			if (s->nadapt && s->st[i].gen + 1 == s->gen)
				s->adapt[s->nadapt - 1].old_samples += s->st[i].nsamples;
			retired_lost(s, &s->st[i]);
			/* streams_hup counts the open streams whose task is gone */
			if (s->st[i].hup)
				s->stats.streams_hup--;
			free(s->st[i].carry);
			pms_ring_free(s->st[i].ring);
			pms_sys_close(s->sys, s->st[i].fd);
			continue;
		}
		s->st[w++] = s->st[i];
	}
	if (w != s->nst) {
		s->nst = w;
		s->fdver++;
		int r = build_pfd(s);
		if (r < 0)
			return r;
	}
	return total;
}

/* Copy what the rings hold into g and give the space back to the kernel at
 * once (perf record's order: copy, publish the tail, work after): the
 * conversion, the caller's callbacks and whatever it does between polls
 * then no longer decide how full the rings get.  Caller holds s->mu.
 * Returns whether anything was copied.  With adaptation, each ring of the
 * current generation has its fill noted first; one found past the trigger
 * asks the poller to adapt (adapt_hint), which it looks at every 256
 * records it hands out. */
static bool stage_fetch(struct pms_sampler *s, struct stage *g)
{
	bool any = false;
	bool look = s->adapt_ok && s->nadapt < 8 && !__atomic_load_n(&s->disabled, __ATOMIC_RELAXED);

	/* streams past nst_pub are being opened by adapt_now */
	for (size_t i = 0; i < s->nst_pub; i++) {
		struct stage_chunk ch = { (uint32_t)i, 0 };
		uint64_t pend = pms_ring_pending(s->st[i].ring);
		size_t need, room, got = 0;
		int r;

		if (!pend)
			continue;
		if (look && !s->st[i].retired) { /* the current generation */
			note_fill(&s->st[i]);
			if (s->st[i].fill_pct >= fill_trigger(s))
				__atomic_store_n(&s->adapt_hint, 1, __ATOMIC_RELEASE);
		}
		need = g->len + sizeof(ch) + (size_t)pend;
		if (need > g->cap && g->cap < STAGE_MAX) {
			size_t n = g->cap ? g->cap : (size_t)64 << 10;
			unsigned char *p;
			while (n < need && n < STAGE_MAX)
				n *= 2;
			if (n > STAGE_MAX)
				n = STAGE_MAX;
			p = realloc(g->buf, n);
			if (p) {
				g->buf = p;
				g->cap = n;
			}
		}
		if (g->cap < g->len + sizeof(ch) + 8)
			continue; /* no room: the ring keeps it */
		room = g->cap - g->len - sizeof(ch);
		r = pms_ring_copy(s->st[i].ring, g->buf + g->len + sizeof(ch), room, &got);
		if (r == PMS_EPARSE)
			pms_error_clear(); /* counted in the ring's corrupt_bytes */
		if (!got)
			continue;
		ch.len = (uint32_t)got;
		memcpy(g->buf + g->len, &ch, sizeof(ch));
		g->len += sizeof(ch) + got;
		any = true;
	}
	return any;
}

/* The drain thread's poll set, rebuilt when the stream set changed
 * (adaptation opens and closes streams).  Caller holds s->mu. */
static void tpfd_build(struct pms_sampler *s)
{
	s->ntpfd = 0;
	/* the streams, then the wake eventfd at ntpfd */
	if (pms_grow(&s->tpfd, &s->captpfd, s->nst_pub + 1, sizeof(*s->tpfd), 16,
		     "the drain thread's poll set") < 0) {
		pms_error_clear(); /* it copies every 50 ms without one */
		return;
	}
	for (size_t i = 0; i < s->nst_pub; i++) {
		/* a retired stream is disabled: nothing comes to wait for */
		s->tpfd[i].fd = s->st[i].hup || s->st[i].retired ? -1 : s->st[i].fd;
		s->tpfd[i].events = POLLIN;
		s->tpfd[i].revents = 0;
	}
	s->tpfd[s->nst_pub] = (struct pollfd){ s->wake_fd, POLLIN, 0 };
	s->ntpfd = s->nst_pub;
	s->tpver = s->fdver;
}

/* Read the wake eventfd empty (its counter back to 0). */
static bool wake_clear(struct pms_sampler *s)
{
	uint64_t v;
	return s->wake_fd >= 0 && read(s->wake_fd, &v, sizeof(v)) == (ssize_t)sizeof(v);
}

void pms_sampler_wake(struct pms_sampler *s)
{
	/* async-signal safe: one write(2); a counter already at its maximum
	 * (EAGAIN) is awake anyway */
	if (s && s->wake_fd >= 0) {
		uint64_t one = 1;
		ssize_t w = write(s->wake_fd, &one, sizeof(one));
		(void)w;
	}
}

/* The drain thread of a live sampler: wakes when a ring passes its
 * watermark and copies every ring out, whatever the poller is busy with
 * (node lookups, writing, reporting), as perf record's reader does.  It
 * reads the stream set only under mu; the poller changes it (adaptation)
 * only under mu. */
static void *drain_thread(void *arg)
{
	struct pms_sampler *s = arg;

	/* A ring fills in tens of milliseconds when the sampled processes
	 * keep every CPU busy; the copier then has to run soon after its
	 * wake-up, or the kernel drops.  Where the process may raise its
	 * priority (CAP_SYS_NICE, or RLIMIT_NICE), this thread alone takes
	 * nice - 5 (a nice value is per thread on Linux: setpriority on a
	 * thread id, kernel/sys.c); else it stays as it is.  It sleeps in
	 * poll() between copies, so it takes little CPU from the rest. */
	errno = 0;
	int nv = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && nv > -20)
		(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nv - 5 < -20 ? -20 : nv - 5);

	while (!__atomic_load_n(&s->thr_stop, __ATOMIC_ACQUIRE)) {
		unsigned ver;
		size_t n;
		int r;
		uint64_t hup = 0;

		pthread_mutex_lock(&s->mu);
		if (s->tpver != s->fdver || !s->tpfd)
			tpfd_build(s);
		ver = s->tpver;
		n = s->ntpfd;
		pthread_mutex_unlock(&s->mu);
		/* A bounded wait: the stop flag is looked at every 50 ms.  An
		 * fd the poller closed meanwhile answers POLLNVAL: the set
		 * changed, so this round's answers are not taken.  The wake
		 * eventfd (pms_sampler_wake) is the last entry. */
		r = poll(s->tpfd, s->tpfd ? (nfds_t)n + 1 : 0, 50);
		bool woke = r > 0 && s->tpfd && (s->tpfd[n].revents & POLLIN) && wake_clear(s);
		pthread_mutex_lock(&s->mu);
		if (woke)
			s->woken = true;
		for (size_t i = 0; r > 0 && ver == s->fdver && i < n; i++)
			if (s->tpfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				s->tpfd[i].fd = -1;
				s->st[i].hup = true;
				hup++;
			}
		s->thr_hup += hup;
		if (stage_fetch(s, &s->in) || hup || woke)
			pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

static void drain_thread_start(struct pms_sampler *s)
{
	/* System-wide too: every process's side-band records then reach the
	 * caller, whose mapping tables are per process and binary-searched
	 * (src/symbols/maps.c), so a busy machine's stream no longer
	 * outruns it; the stage's bound (STAGE_MAX) stays the limit. */
	if (s->thr_on || !s->nst || !pms_sys_is_live(s->sys))
		return;
	/* Adaptation (opts.adapt) works on the staged records too: the
	 * poller opens and retires streams under mu, the thread's poll set
	 * follows (fdver), retired streams close once their records are
	 * handed out (stage_sweep). */
	__atomic_store_n(&s->thr_stop, 0, __ATOMIC_RELEASE);
	s->staged = true; /* before the thread reads it */
	s->thr_on = pthread_create(&s->thr, NULL, drain_thread, s) == 0;
	if (!s->thr_on)
		s->staged = false;
}

static void drain_thread_stop(struct pms_sampler *s)
{
	if (!s->thr_on)
		return;
	__atomic_store_n(&s->thr_stop, 1, __ATOMIC_RELEASE);
	pthread_join(s->thr, NULL);
	s->thr_on = false;
}

/* Adapt now if due (the poller, under mu).  Returns whether it did. */
static bool stage_adapt(struct pms_sampler *s, bool interval)
{
	size_t n = s->nadapt;
	__atomic_store_n(&s->adapt_hint, 0, __ATOMIC_RELEASE);
	adapt_check(s, interval);
	return s->nadapt != n;
}

/* Close the retired streams whose records are all handed out: the ring is
 * empty (disabled: nothing more comes) and no chunk of it is staged.  The
 * staged chunks' stream numbers follow the compaction.  Caller (the
 * poller) holds mu. */
static void stage_sweep(struct pms_sampler *s)
{
	struct stage *gs[2] = { &s->in, &s->out };
	unsigned char *busy = NULL;
	uint32_t *map = NULL;
	size_t w = 0, nclose = 0;

	for (size_t i = 0; i < s->nst; i++)
		nclose += s->st[i].retired;
	if (!nclose)
		return;
	busy = calloc(s->nst, 1);
	map = calloc(s->nst, sizeof(*map));
	if (!busy || !map)
		goto out; /* next time */
	for (int k = 0; k < 2; k++)
		for (size_t p = gs[k]->pos; p < gs[k]->len;) {
			struct stage_chunk ch;
			memcpy(&ch, gs[k]->buf + p, sizeof(ch));
			if (ch.stream < s->nst)
				busy[ch.stream] = 1;
			p += sizeof(ch) + ch.len;
		}
	nclose = 0;
	for (size_t i = 0; i < s->nst; i++) {
		struct stream *st = &s->st[i];
		if (st->retired && !busy[i] && pms_ring_pending(st->ring) == 0) {
			/* samples handed out after the change, at the old period */
			if (s->nadapt && st->gen + 1 == s->gen)
				s->adapt[s->nadapt - 1].old_samples += st->nsamples;
			retired_lost(s, st);
			if (st->hup)
				s->stats.streams_hup--;
			free(st->carry);
			pms_ring_free(st->ring);
			pms_sys_close(s->sys, st->fd);
			map[i] = UINT32_MAX;
			nclose++;
			continue;
		}
		map[i] = (uint32_t)w;
		s->st[w++] = s->st[i];
	}
	if (!nclose)
		goto out;
	s->nst = s->nst_pub = w;
	s->fdver++;
	for (int k = 0; k < 2; k++)
		for (size_t p = gs[k]->pos; p < gs[k]->len;) {
			struct stage_chunk ch;
			memcpy(&ch, gs[k]->buf + p, sizeof(ch));
			ch.stream = map[ch.stream];
			memcpy(gs[k]->buf + p, &ch, sizeof(ch));
			p += sizeof(ch) + ch.len;
		}
	if (build_pfd(s) < 0)
		pms_error_clear(); /* the staged poll does not use it */
out:
	free(busy);
	free(map);
}

/* Hand out's records out.  A callback's stop leaves the records after the
 * one it stopped on for the next poll; the adaptation's stop (the copier
 * found a ring filling) adapts and goes on.  Returns the records handed
 * out, or the stop code. */
static int stage_run(struct pms_sampler *s, const struct pms_sampler_callbacks *cb,
		     const struct smp_hooks *h, void *ud)
{
	struct stage *g = &s->out;
	int total = 0;

	while (g->pos < g->len) {
		struct stage_chunk ch;
		size_t p, end;
		bool again = false;

		memcpy(&ch, g->buf + g->pos, sizeof(ch));
		p = g->pos + sizeof(ch);
		end = p + ch.len;
		struct drain_ctx c = { s, &s->st[ch.stream], cb, h, ud, 0 };
		while (p < end) {
			struct perf_event_header hd;
			memcpy(&hd, g->buf + p, sizeof(hd));
			on_record(&c, g->buf + p, hd.size);
			p += hd.size;
			total++;
			if (c.stop) {
				/* The rest of the chunk stays: its header goes
				 * in the last bytes of the record just used. */
				if (p < end) {
					ch.len = (uint32_t)(end - p);
					memcpy(g->buf + p - sizeof(ch), &ch, sizeof(ch));
					g->pos = p - sizeof(ch);
				} else {
					g->pos = end;
				}
				if (c.stop != SMP_ADAPT_STOP)
					return c.stop;
				/* s->st may move: the chunk is read again */
				pthread_mutex_lock(&s->mu);
				(void)stage_adapt(s, false);
				pthread_mutex_unlock(&s->mu);
				again = true;
				break;
			}
		}
		if (!again)
			g->pos = end;
	}
	g->pos = g->len = 0;
	/* A backlog's buffer goes back once it is handed out: it would
	 * otherwise stay resident through the caller's report. */
	if (g->cap > STAGE_KEEP) {
		free(g->buf);
		g->buf = NULL;
		g->cap = 0;
	}
	return total;
}

/* Refill out from in (and from the rings): waits up to timeout_ms for the
 * copier when nothing is staged.  With adaptation, this is where the
 * poller looks at the current generation (loss, fill, rate since the last
 * refill), adapts, and closes the retired streams it is done with. */
static void stage_refill(struct pms_sampler *s, int timeout_ms)
{
	struct stage t;

	pthread_mutex_lock(&s->mu);
	if (s->thr_on && timeout_ms != 0 && s->in.len == 0 && !s->woken) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		if (timeout_ms > 0) {
			ts.tv_sec += timeout_ms / 1000;
			ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		} else {
			pthread_cond_wait(&s->cv, &s->mu);
		}
	}
	s->woken = false; /* a wake ends one wait */
	s->stats.streams_hup += s->thr_hup;
	s->thr_hup = 0;
	(void)stage_fetch(s, &s->in);
	if ((s->adapt_ok || s->nadapt) && s->nst) {
		/* the old rings' last records come with this refill */
		if (stage_adapt(s, true))
			(void)stage_fetch(s, &s->in);
		stage_sweep(s);
	}
	/* out is empty here: it takes in's records, in keeps out's buffer */
	t = s->out;
	s->out = s->in;
	s->in = t;
	s->in.pos = s->in.len = 0;
	pthread_mutex_unlock(&s->mu);
}

/* Without a drain thread (fake contexts): each ring's
 * records are handed out where they lie, then its tail is published. */
static int poll_in_place(struct pms_sampler *s, int timeout_ms,
			 const struct pms_sampler_callbacks *cb, const struct smp_hooks *h,
			 void *ud)
{
	int total = 0;

	if (timeout_ms != 0 && s->nst && pms_sys_is_live(s->sys)) {
		/* poll() is not in the seam's ops table; fake contexts drain
		 * without waiting. */
		/* the rings and the wake eventfd after them */
		int r = poll(s->pfd, (nfds_t)s->nst + 1, timeout_ms);
		if (r < 0 && errno != EINTR)
			return pms_err_errno(0, errno, "poll on %zu perf fds", s->nst);
		if (r > 0 && (s->pfd[s->nst].revents & POLLIN))
			(void)wake_clear(s);
		/* POLLHUP: the event's task is gone (kernel/events/core.c
		 * perf_poll, is_event_hup); it stays set, so stop waiting on
		 * that fd (a negative fd is ignored by poll) but keep draining
		 * its ring. */
		for (size_t i = 0; r > 0 && i < s->nst; i++)
			if (s->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				s->pfd[i].fd = -1;
				s->st[i].hup = true;
				s->stats.streams_hup++;
			}
	}
	adapt_check(s, true); /* before the drain: a ring near full, or fast */
	for (size_t i = 0; i < s->nst; i++) {
		struct drain_ctx c;
		int r;
		if (i)
			adapt_check_one(s, i); /* may append streams: s->st moves */
		c = (struct drain_ctx){ s, &s->st[i], cb, h, ud, 0 };
		/* SPE records a callback stop left behind come first. */
		if (s->st[i].carry_whole)
			on_aux_bytes(&c, NULL, 0, 0);
		if (c.stop)
			return c.stop;
		r = pms_ring_drain(s->st[i].ring, on_record, &c);
		if (c.stop == SMP_ADAPT_STOP) {
			/* adapt (the stream may be retired by it), then drain
			 * the rest of this ring */
			adapt_check(s, false);
			if (r > 0)
				total += r;
			i--;
			continue;
		}
		if (c.stop)
			return c.stop;
		if (r == PMS_EPARSE)
			continue; /* counted in the ring's corrupt_bytes */
		if (r < 0)
			return r;
		total += r;
	}
	if (s->adapt_ok || s->nadapt) {
		int r = adapt_poll(s, cb, h, ud);
		if (r < 0)
			return r;
		total += r;
	}
	return total;
}

static int poll_impl(struct pms_sampler *s, int timeout_ms, const struct pms_sampler_callbacks *cb,
		     const struct smp_hooks *h, void *ud)
{
	int r;

	if (!s->staged)
		return poll_in_place(s, timeout_ms, cb, h, ud);
	/* Records a stop left behind are handed out first, then what the
	 * drain thread staged and what the rings hold now. */
	if (s->out.pos == s->out.len)
		stage_refill(s, timeout_ms);
	for (size_t i = 0; i < s->nst; i++) {
		struct drain_ctx c = { s, &s->st[i], cb, h, ud, 0 };
		/* SPE records a callback stop left behind come first. */
		if (s->st[i].carry_whole)
			on_aux_bytes(&c, NULL, 0, 0);
		if (c.stop)
			return c.stop;
	}
	r = stage_run(s, cb, h, ud);
	if (r >= 0 && s->nadapt) {
		/* the retired streams whose last records were just handed out */
		pthread_mutex_lock(&s->mu);
		stage_sweep(s);
		pthread_mutex_unlock(&s->mu);
	}
	return r;
}

void pms_smp_stage_on(struct pms_sampler *s)
{
	if (!s->thr_on)
		s->staged = true;
}

int pms_smp_copy_step(struct pms_sampler *s)
{
	bool any;
	/* the thread waits for the lock; a test wants to know it was free */
	if (pthread_mutex_trylock(&s->mu) != 0)
		return PMS_EBUSY;
	any = stage_fetch(s, &s->in);
	pthread_mutex_unlock(&s->mu);
	return any;
}

int pms_sampler_poll(struct pms_sampler *s, int timeout_ms,
		     const struct pms_sampler_callbacks *cb, void *ud)
{
	return poll_impl(s, timeout_ms, cb, NULL, ud);
}

int pms_smp_poll_hooks(struct pms_sampler *s, int timeout_ms, const struct smp_hooks *h,
		       void *ud)
{
	return poll_impl(s, timeout_ms, NULL, h, ud);
}

const struct smp_plan *pms_smp_sampler_plan(const struct pms_sampler *s)
{
	return &s->plan;
}

size_t pms_smp_event_ids(const struct pms_sampler *s, int ev, uint64_t *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nst; i++)
		if (s->st[i].ev == ev && (s->plan.ev[ev].attr.sample_type & PMS_SAMPLE_IDENTIFIER)) {
			if (n < cap)
				out[n] = s->st[i].id;
			n++;
		}
	return n;
}

const struct pms_ibs_cpu *pms_smp_sampler_ibs_cpu(const struct pms_sampler *s)
{
	return &s->ibs_cpu;
}

void pms_sampler_stats(const struct pms_sampler *s, struct pms_sampler_stats *out)
{
	*out = s->stats;
	pthread_mutex_lock((pthread_mutex_t *)&s->mu); /* the copier updates ring stats */
	for (size_t i = 0; i < s->nst; i++) {
		struct pms_ring_stats rs;
		pms_ring_stats(s->st[i].ring, &rs);
		out->wrapped += rs.wrapped;
		out->corrupt_bytes += rs.corrupt_bytes;
		out->aux_overrun += rs.aux_overrun;
	}
	pthread_mutex_unlock((pthread_mutex_t *)&s->mu);
}

void pms_sampler_info(const struct pms_sampler *s, struct pms_sampler_info *out)
{
	memset(out, 0, sizeof(*out));
	out->engine = s->plan.engine;
	out->pmus = s->pmus;
	out->label = s->label;
	out->notes = s->plan.notes;
	out->phys = s->plan.phys;
	out->data_src = s->plan.engine != PMS_ENG_SOFTWARE && s->plan.engine != PMS_ENG_NONE;
	out->sample_type = s->plan.ev[0].attr.sample_type;
	for (int i = 0; i < s->plan.nev; i++)
		if (s->plan.ev[i].role == SMP_ROLE_MAIN || s->plan.ev[i].role == SMP_ROLE_EXTRA) {
			out->sample_type = s->plan.ev[i].attr.sample_type;
			break;
		}
	out->nstreams = s->nst;
}

const struct pms_sampler_attempt *pms_sampler_attempts(const struct pms_sampler *s,
						       size_t *count)
{
	*count = s->plan.natt;
	return s->plan.att;
}

const struct pms_sampler_adaptation *pms_sampler_adaptations(const struct pms_sampler *s,
							      size_t *count, uint64_t *dups)
{
	*count = s->nadapt;
	if (dups)
		*dups = s->dups;
	return s->adapt;
}

uint64_t pms_sampler_events(const struct pms_sampler *s)
{
	return s->events;
}
