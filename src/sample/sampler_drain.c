/* The sampler (sampler.c): draining, records into samples and side-band
 * callbacks, the stage and drain thread, and the poll loop. */
#include "sample/sampler_int.h"
#include "sample/sampler_obj_int.h"
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
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- draining ---------------------------------------------------------------- */



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
	/* adaptation: one lineage per task in a generation (adapt_now), in
	 * a retired generation's last drains too (issue 32 item 8) */
	if (c->st->gen && (c->st->layout.sample_type & PMS_SAMPLE_TID) &&
	    !smp_root_keep(s, c->st->gen, (int32_t)in->tid, c->st->root)) {
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
		return c->h->sample(c->ud, &m, r, &c->raw, c->st->ev);
	if (c->cb && c->cb->sample)
		return c->cb->sample(c->ud, &m);
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
	 * and then (smp_adapt_due), and stop to adapt when one is near full. */
	if (s->adapt_ok && !(c->st->kept & 255) && c->st->gen == s->gen && !c->st->retired &&
	    (s->staged ? __atomic_load_n(&s->adapt_hint, __ATOMIC_ACQUIRE) != 0 : smp_adapt_due(s)))
		c->stop = SMP_ADAPT_STOP; /* this record is consumed below */
	if (pms_record_parse(&c->st->layout, rec, len, &r) < 0) {
		s->stats.parse_errors++;
		return 0;
	}
	c->raw = (struct smp_raw){ rec, len, &c->st->layout };
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
			ret = c->h->sideband(c->ud, &r, &c->raw, c->st->ev);
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
			ret = c->h->sideband(c->ud, &r, &c->raw, c->st->ev);
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
		    pms_ring_aux_read(c->st->ring, r.aux.aux_offset, r.aux.aux_size, smp_on_aux_bytes,
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
			smp_ring_time_conv(c->st, &tc);
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

/* After a drain: adapt on the loss it found, then drain the retired
 * streams (disabled: nothing more comes) and close them.  Returns the
 * records read, or a stop code. */
static int adapt_poll(struct pms_sampler *s, const struct pms_sampler_callbacks *cb,
		      const struct smp_hooks *h, void *ud)
{
	size_t w = 0;
	int total = 0;

	smp_adapt_check(s, false); /* the loss this drain found */
	for (size_t i = 0; i < s->nst; i++) {
		struct drain_ctx c = { s, &s->st[i], cb, h, ud, 0, { 0 } };
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
			smp_retired_lost(s, &s->st[i]);
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
		int r = smp_build_pfd(s);
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
			smp_note_fill(&s->st[i]);
			if (s->st[i].fill_pct >= smp_fill_trigger(s))
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

void smp_drain_thread_start(struct pms_sampler *s)
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

void smp_drain_thread_stop(struct pms_sampler *s)
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
	smp_adapt_check(s, interval);
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
			smp_retired_lost(s, st);
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
	if (smp_build_pfd(s) < 0)
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
		struct drain_ctx c = { s, &s->st[ch.stream], cb, h, ud, 0, { 0 } };
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
	smp_adapt_check(s, true); /* before the drain: a ring near full, or fast */
	for (size_t i = 0; i < s->nst; i++) {
		struct drain_ctx c;
		int r;
		if (i)
			smp_adapt_check_one(s, i); /* may append streams: s->st moves */
		c = (struct drain_ctx){ s, &s->st[i], cb, h, ud, 0, { 0 } };
		/* SPE records a callback stop left behind come first. */
		if (s->st[i].carry_whole)
			smp_on_aux_bytes(&c, NULL, 0, 0);
		if (c.stop)
			return c.stop;
		r = pms_ring_drain(s->st[i].ring, on_record, &c);
		if (c.stop == SMP_ADAPT_STOP) {
			/* adapt (the stream may be retired by it), then drain
			 * the rest of this ring */
			smp_adapt_check(s, false);
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
		struct drain_ctx c = { s, &s->st[i], cb, h, ud, 0, { 0 } };
		/* SPE records a callback stop left behind come first. */
		if (s->st[i].carry_whole)
			smp_on_aux_bytes(&c, NULL, 0, 0);
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

bool pms_smp_quiet(const struct pms_sampler *s)
{
	return __atomic_load_n(&s->disabled, __ATOMIC_RELAXED) || !pms_sys_is_live(s->sys);
}

int pms_smp_poll_hooks(struct pms_sampler *s, int timeout_ms, const struct smp_hooks *h,
		       void *ud)
{
	return poll_impl(s, timeout_ms, NULL, h, ud);
}
