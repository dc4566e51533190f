/* A DWARF sample's whole call path as perf shows it (session/dwpath.h): one
 * function for perf report's histogram (sorthist.c) and perf script's text
 * (script_text.c).  perf's rules were read in tools/perf/util/machine.c
 * (thread__resolve_callchain, thread__resolve_callchain_unwind) and
 * util/unwind-libdw.c (frame_callback, entry); the code is written here. */
#include <stdlib.h>
#include <string.h>

#include "session/dwpath.h"
#include "symbols/symbols_int.h"
#include "util/error.h"

bool dwpath_applies(const struct pms_sample *s)
{
	return (s->present & PMS_SAMPLE_REGS_USER) && (s->present & PMS_SAMPLE_STACK_USER);
}

/* The user PC among a sample's user registers (perf's register numbers),
 * 0 when it has none or this architecture has no map here. */
static uint64_t user_pc(const struct pms_sample *s)
{
#if defined(__x86_64__)
	const unsigned pc = 8; /* PERF_REG_X86_IP */
#elif defined(__aarch64__)
	const unsigned pc = 32; /* PERF_REG_ARM64_PC */
#else
	const unsigned pc = 64;
#endif
	if (pc >= 64 || !(s->present & PMS_SAMPLE_REGS_USER) || !s->regs_user.abi ||
	    !(s->regs_user.mask & (1ULL << pc)))
		return 0;
	uint64_t below = s->regs_user.mask & ((1ULL << pc) - 1);
	size_t i = (size_t)__builtin_popcountll(below);
	return i < s->regs_user.nr ? pms_u64_at(s->regs_user.regs, i) : 0;
}

int dwpath_frames(struct dwpath *d, const struct pms_maps *maps, const struct pms_sample *s,
		  const struct pms_frame **out, size_t *n)
{
	size_t k = 0, nk = 0;
	*out = NULL;
	*n = 0;
	if (!d->buf && !(d->buf = malloc(PMS_CALLPATH_MAX * sizeof(*d->buf))))
		return pms_err(PMS_ENOMEM, "call path: out of memory");
	*out = d->buf;
	if (!d->uw && !d->no_unwinder && d->sys) {
		if (pms_unwinder_new(d->sys, &d->uw) < 0) {
			d->uw = NULL;
			d->no_unwinder = true;
		}
		pms_unwinder_files_from(d->uw, d->sym);
	}
	if (!d->uw || !maps ||
	    pms_unwinder_sample(d->uw, maps, s, d->buf, PMS_CALLPATH_MAX, &k) < 0)
		k = 0;
	bool dwarf = false;
	for (size_t i = 0; i < k && !dwarf; i++)
		dwarf = (d->buf[i].flags & PMS_FRAME_DWARF) != 0;
	if (!dwarf) {
		/* the kernel part alone, then perf's user PC where its unwind
		 * cannot start (no ELF of the module here); nothing where no
		 * map holds the PC nor where no stack byte was captured
		 * (machine.c thread__resolve_callchain_unwind: "Bail out if
		 * nothing was captured") */
		uint64_t pc = user_pc(s);
		bool stack = s->stack_size && s->stack_dyn_size;
		if ((s->present & PMS_SAMPLE_CALLCHAIN) &&
		    pms_callpath_from_chain(s->callchain, s->callchain_nr, false, d->buf,
					    PMS_CALLPATH_MAX - 1, &nk) < 0)
			nk = 0;
		k = nk;
		if (pc && stack && maps && pms_maps_find(maps, pc))
			d->buf[k++] = (struct pms_frame){ pc, PMS_FRAME_DWARF };
	}
	/* perf's DWARF frames (unwind-libdw.c frame_callback): a caller's
	 * return address less one (the call, not the next line); no user
	 * frame at all when the sampled user PC is in no mapping (the unwind
	 * does not start) */
	size_t m = 0;
	bool first = true;
	for (size_t i = 0; i < k; i++) {
		struct pms_frame f = d->buf[i];
		if (f.flags & PMS_FRAME_DWARF) {
			if (first && !pms_maps_find(maps, f.ip))
				break;
			if (!first && f.ip)
				f.ip--;
			first = false;
		}
		d->buf[m++] = f;
	}
	*n = m;
	return 0;
}

void dwpath_fini(struct dwpath *d)
{
	pms_unwinder_free(d->uw);
	free(d->buf);
	d->uw = NULL;
	d->buf = NULL;
}
