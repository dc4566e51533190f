/* libFuzzer target for the perf.data reader on a memory buffer: open (file
 * or pipe mode, either byte order), walk every feature the reader exposes,
 * read every record (zstd COMPRESSED ones unpacked), and resolve nodes.  Bad input must end in an error code, never a
 * crash, hang or leak. */
#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touch strings so the sanitizers see any read past their end. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static void walk_info(const struct pms_perfdata_info *in)
{
	size_t n = touch(in->hostname) + touch(in->osrelease) + touch(in->version) +
		   touch(in->arch) + touch(in->cpudesc) + touch(in->cpuid);
	for (size_t i = 0; i < in->ncmdline; i++)
		n += touch(in->cmdline[i]);
	for (size_t i = 0; i < in->ncore_sibs; i++)
		n += touch(in->core_sibs[i]);
	for (size_t i = 0; i < in->nthread_sibs; i++)
		n += touch(in->thread_sibs[i]);
	for (size_t i = 0; i < in->ndie_sibs; i++)
		n += touch(in->die_sibs[i]);
	for (size_t i = 0; i < in->ncpu_topo; i++)
		n += in->core_id[i] + in->socket_id[i] + (in->die_id ? in->die_id[i] : 0);
	for (size_t i = 0; i < in->nnuma; i++)
		n += touch(in->numa[i].cpus);
	for (size_t i = 0; i < in->nmem; i++)
		for (uint64_t w = 0; w < (in->mem[i].nbits + 63) / 64; w++)
			n += (size_t)in->mem[i].bitmap[w];
	for (size_t i = 0; i < in->npmu; i++)
		n += touch(in->pmu[i].name);
	for (size_t i = 0; i < in->nhybrid; i++)
		n += touch(in->hybrid[i].a) + touch(in->hybrid[i].b);
	for (size_t i = 0; i < in->npmu_caps; i++) {
		n += touch(in->pmu_caps[i].pmu);
		for (size_t k = 0; k < in->pmu_caps[i].ncaps; k++)
			n += touch(in->pmu_caps[i].caps[k].a) + touch(in->pmu_caps[i].caps[k].b);
	}
	for (size_t i = 0; i < in->nbuild_ids; i++)
		n += touch(in->build_ids[i].filename);
	for (size_t i = 0; i < in->ngroups; i++)
		n += touch(in->groups[i].name);
	if (n == (size_t)-1)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	int rc, n = 0;

	if (pms_perfdata_reader_open_mem(data, size, &r) < 0) {
		if (r)
			__builtin_trap();
		return 0;
	}
	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		if (ev.raw_len < 8 || !ev.attr)
			__builtin_trap();
		if (ev.rec.type == 3)
			touch(ev.rec.comm.comm);
		if (++n > 1000000)
			__builtin_trap(); /* a loop that does not advance */
	}
	walk_info(pms_perfdata_reader_info(r));
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++)
		touch(pms_perfdata_reader_attr(r, i)->name);
	pms_perfdata_reader_node_of_phys(r, 0x12345678);
	(void)pms_perfdata_reader_nodes_why(r);
	pms_perfdata_reader_free(r);
	return 0;
}
