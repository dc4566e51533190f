/* Internal: whether a sample may hold a kernel address, the one test by
 * which the per-file kernel rule (session/session_int.h sess_kernel_judge)
 * picks the sample a file's kernel is judged at: the session's files
 * (session.c file_sample: report, report -s, c2c), script (session/script.c
 * kernel_judge) and the IBS fetch view (report/ibs_fetch.c) ask it of the
 * same records, so that they judge a pipe file at the same point.
 *
 * A sample may hold one when its IP's mode is a kernel's (this kernel, a
 * guest's, the hypervisor: script names all three through the kernel's
 * symbols), when it carries a call chain or a branch stack (their entries
 * may be kernel addresses whatever the mode), or when its data address has
 * the top bit set (the kernel half on x86-64 and arm64: script names a page
 * fault's kernel address, report its kernel data). */
#ifndef PMS_DECODE_KADDR_H
#define PMS_DECODE_KADDR_H

#include <stdbool.h>
#include <stdint.h>

#include "pmuscope/memsample.h"
#include "pmuscope/record.h"

/* The test over the fields it reads: the IP's cpumode (PMS_MISC_*), the
 * sample's present fields (PMS_SAMPLE_*) and its data address. */
static inline bool kaddr_in_fields(unsigned cpumode, uint64_t present, uint64_t addr)
{
	return cpumode == PMS_MISC_KERNEL || cpumode == PMS_MISC_GUEST_KERNEL ||
	       cpumode == PMS_MISC_HYPERVISOR ||
	       (present & (PMS_SAMPLE_CALLCHAIN | PMS_SAMPLE_BRANCH_STACK)) ||
	       ((present & PMS_SAMPLE_ADDR) && (addr >> 63));
}

/* The test over a decoded SAMPLE record. */
static inline bool kaddr_in_sample(const struct pms_sample *s)
{
	return kaddr_in_fields(s->misc & PMS_MISC_CPUMODE_MASK, s->present, s->addr);
}

/* The test over a memory sample without its record (SPE's, decoded from
 * an AUX trace: a kernel IP, a data address; no chain, no branch stack). */
static inline bool kaddr_in_memsample(const struct pms_memsample *m)
{
	return kaddr_in_fields((m->valid & PMS_MS_KERNEL_IP) ? PMS_MISC_KERNEL : 0,
			       (m->valid & PMS_MS_ADDR) ? PMS_SAMPLE_ADDR : 0, m->addr);
}

#endif
