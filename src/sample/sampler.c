/* The sampler: open the planned events per CPU (per thread through inherit),
 * map their rings, drain them and turn records into pms_memsample values and
 * side-band callbacks.  This file: opening and closing a sampler (struct in
 * sampler_obj_int.h), enable/disable and its accessors; the streams are
 * sampler_streams.c, draining and the poll loop sampler_drain.c, SPE AUX
 * data sampler_aux.c, adaptation to loss sampler_adapt.c. */
#include "sample/sampler_int.h"
#include "sample/sampler_obj_int.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/opts.h"

#include "pmuscope/datasrc.h"
#include "pmuscope/event.h"
#include "pmuscope/ring.h"
#include "pmuscope/spe.h"
#include "topo/topo_int.h"

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

/* An overflow plan's sample-delivering events forwarded to ibs_op
 * (overflow.c ibs_forward): how many; *all gets how many deliver samples. */
static int fwd_count(const struct smp_plan *p, int *all)
{
	int fwd = 0, n = 0;
	for (int i = 0; p->engine == PMS_ENG_OVERFLOW && i < p->nev; i++)
		if (p->ev[i].role == SMP_ROLE_MAIN || p->ev[i].role == SMP_ROLE_EXTRA) {
			n++;
			fwd += p->ev[i].engine == PMS_ENG_IBS;
		}
	if (all)
		*all = n;
	return fwd;
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
		int all = 0, fwd = fwd_count(p, &all);
		/* AMD precise events forwarded to ibs_op (overflow.c) */
		if (fwd && fwd == all)
			snprintf(s->label, sizeof(s->label),
				 "%s through %.64s: the kernel forwards AMD precise events to "
				 "ibs_op (exact IP; data address, source and latency)",
				 pms_engine_label(PMS_ENG_IBS), s->pmus);
		else
			snprintf(s->label, sizeof(s->label), "%s on %.64s%s",
				 pms_engine_label(p->engine), s->pmus,
				 fwd ? "; its precise event(s) forwarded by the kernel to ibs_op "
				       "give AMD IBS op samples"
				     : "");
	}
}

/* Whether an event of the plan is decoded as IBS (the IBS engine, or an
 * AMD precise event forwarded to ibs_op). */
static bool plan_has_ibs(const struct smp_plan *p)
{
	for (int i = 0; i < p->nev; i++)
		if (p->ev[i].engine == PMS_ENG_IBS)
			return true;
	return p->engine == PMS_ENG_IBS;
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

int pms_sampler_open(struct pms_sys *sys, const struct pms_pmus *pmus,
		     const struct pms_topo *topo, const struct pms_sampler_opts *opts,
		     struct pms_sampler **out)
{
	struct pms_sampler_opts o;
	struct pms_sampler *s;
	int ret;
	uint32_t wake;

	*out = NULL;
	/* the caller's version's fields, the defaults after them (util/opts.h) */
	if ((ret = PMS_OPTS_TAKE("pms_sampler_open", PMS_SAMPLER_OPTS, opts, &o)) < 0)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "out of memory for a sampler");
	s->sys = sys;
	s->wake_fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->o = o;
	s->o.cpus = (struct pms_cpuset){ 0 }; /* borrowed only during the plan */
	ret = pms_smp_plan(sys, pmus, topo, &o, &s->plan);
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
		wake = (uint32_t)(smp_ring_pages(s) * (size_t)sysconf(_SC_PAGESIZE) / 4);
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
		if (s->o.clock_monotonic) {
			a->use_clockid = 1;
			a->clockid = CLOCK_MONOTONIC;
		}
	}
	if (plan_has_ibs(&s->plan) || s->plan.engine == PMS_ENG_SPE)
		load_identity(s, topo);
	/* Adaptation closes rings whose last loss the kernel may not have
	 * reported yet (it writes a LOST record only before a later record,
	 * ring_buffer.c:190-191, 248-256): read() with PERF_FORMAT_LOST (Linux
	 * 6.0) gives the event's count of lost records (lost_samples,
	 * ring_buffer.c:264) at close.  read_format does not change the
	 * sample records without PERF_SAMPLE_READ. */
	if (s->o.adapt && smp_adaptable(&s->plan))
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
	if ((ret = smp_open_streams(s)) < 0 && s->o.adapt && pms_error_errno() == EINVAL) {
		/* a kernel before 6.0: without the count at close */
		smp_close_streams(s);
		for (int i = 0; i < s->plan.nev; i++)
			s->plan.ev[i].attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		ret = smp_open_streams(s);
	}
	if (ret < 0)
		goto out;
	/* eventfd is not a perf syscall (not in the seam's ops table): a live
	 * context only; without one, a wake is ignored */
	if (pms_sys_is_live(sys))
		s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if ((ret = smp_build_pfd(s)) < 0)
		goto out;
	s->adapt_ok = s->o.adapt && smp_adaptable(&s->plan);
	s->t_open = smp_mono_ns();
	if (s->o.adapt && !s->adapt_ok)
		smp_note_append(&s->plan, "no adaptation to loss: the events form groups or "
				      "have AUX areas, which this sampler does not reopen");
	label_build(s);
	s->nst_pub = s->nst;
	/* The copier runs from here on: a child target's events enable
	 * themselves at its exec, with no call of ours. */
	smp_drain_thread_start(s);
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
	smp_drain_thread_stop(s);
	smp_close_streams(s);
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
	int all = 0, fwd = fwd_count(&s->plan, &all);
	out->engine = s->plan.engine;
	/* every event forwarded to ibs_op: the samples are IBS op samples */
	if (fwd && fwd == all)
		out->engine = PMS_ENG_IBS;
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
