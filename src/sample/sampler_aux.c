/* The sampler (sampler.c): SPE AUX data, decoded into samples, and the
 * user page's time conversion. */
#include "sample/sampler_int.h"
#include "sample/sampler_obj_int.h"
#include "decode/spe_aux_int.h"
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

/* SPE timestamps are counter ticks; the user page gives the conversion to
 * perf time when cap_user_time_zero is set (include/uapi/linux/perf_event.h,
 * the time_zero comment; kernel-abi-facts §1.3), read as perf record reads
 * it for PERF_RECORD_TIME_CONV (tools/perf/util/tsc.c perf_read_tsc_conversion:
 * under the seqlock). */
void smp_ring_time_conv(const struct stream *st, struct pms_spe_time_conv *tc)
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
	smp_ring_time_conv(st, &tc);
	return pms_spe_time_to_perf(&tc, cyc, ns);
}

int pms_smp_time_conv(const struct pms_sampler *s, struct pms_spe_time_conv *out)
{
	for (size_t i = 0; i < s->nst; i++)
		if (s->plan.ev[s->st[i].ev].engine == PMS_ENG_SPE &&
		    s->plan.ev[s->st[i].ev].role != SMP_ROLE_SIDEBAND) {
			smp_ring_time_conv(&s->st[i], out);
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

/* One live SPE record (spe_chunk_walk's fn): a memory sample for the
 * hooks, with the AUX record's task, perf time and the event's period. */
struct aux_walk {
	struct drain_ctx *c;
	int stop; /* the hook's refusal: the rest is kept for the next poll */
};

static int live_spe_record(void *arg, const struct pms_spe_record *rec,
			   const struct pms_memsample *ms)
{
	struct aux_walk *w = arg;
	struct drain_ctx *c = w->c;
	struct pms_sampler *s = c->s;
	struct stream *st = c->st;
	struct pms_memsample m = *ms;
	uint64_t ns;
	int r;

	/* A memory sample is a load/store/atomic record, as perf's
	 * --itrace=M and the recorded source take them. */
	if (!pms_spe_record_is_mem(rec)) {
		s->stats.samples_dropped++;
		return 0;
	}
	if (s->o.exclude_pid > 0 && (m.valid & PMS_MS_TID) && m.pid == (uint32_t)s->o.exclude_pid) {
		s->stats.samples_excluded++;
		return 0;
	}
	if (m.valid & PMS_MS_TIME) {
		if (spe_time(st, m.time, &ns)) {
			m.time = ns;
		} else {
			m.valid &= ~(uint32_t)PMS_MS_TIME;
			m.time = 0;
		}
	}
	m.period = s->plan.ev[st->ev].attr.sample_period;
	s->stats.samples++;
	if (c->h && c->h->sample)
		r = c->h->sample(c->ud, &m, NULL, NULL, st->ev);
	else if (c->cb && c->cb->sample)
		r = c->cb->sample(c->ud, &m);
	else
		r = 0;
	if (r < 0)
		w->stop = r;
	return r < 0 ? 1 : 0;
}

int smp_on_aux_bytes(void *ud, const void *data, size_t len, uint64_t offset)
{
	struct drain_ctx *c = ud;
	struct pms_sampler *s = c->s;
	struct stream *st = c->st;
	const uint8_t *buf = data;
	size_t n = len, used = 0;

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
	/* The recorded source's loop (spe_chunk_walk): the CPU of the
	 * per-CPU buffer; a CONTEXT packet (CONTEXTIDR_EL1: the kernel writes
	 * the pid there, PMSCR_EL1.CX) names the task, else the AUX record's
	 * task. */
	struct pms_spe_chunk_ctx cx = { st->midr, false, (uint32_t)st->cpu,
					st->aux_tid_valid ? st->aux_tid : UINT32_MAX,
					st->aux_tid_valid ? st->aux_pid : 0 };
	struct pms_spe_chunk_stats cs = { 0 };
	struct aux_walk w = { c, 0 };
	int r = spe_chunk_walk(buf, n, &cx, &cs, live_spe_record, &w, &used);
	s->stats.aux_decode_errors += cs.bad_headers + (r < 0 && !w.stop);
	if (w.stop) {
		/* Keep the rest for the next poll. */
		c->stop = w.stop;
		if (carry_keep(st, buf + used, n - used) < 0)
			s->stats.aux_decode_errors++;
		else
			st->carry_whole = st->ncarry > 0;
		return 0;
	}
	if (carry_keep(st, buf + used, n - used) < 0) {
		s->stats.aux_decode_errors++;
		st->ncarry = 0;
	}
	return 0;
}
