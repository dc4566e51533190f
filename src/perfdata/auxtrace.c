/* Arm SPE metadata from a perf.data file's AUXTRACE_INFO record; see
 * include/pmuscope/perfdata.h.
 *
 * Layouts (tools/perf/util/arm-spe.h; the version test is perf's
 * arm_spe__get_metadata_ver in tools/perf/util/arm-spe.c):
 *   version 1: exactly 2 priv words {PMU type, per-CPU mmaps};
 *   version 2: {version, header words, PMU type, nr CPUs}, then per CPU
 *              {magic 0x1010101010101010, cpu, nr_params, MIDR, PMU type,
 *               min interval, [event filter, ...]} where nr_params counts
 *              the words after nr_params. */
#include "reader_int.h"

#include "util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SPE_CPU_MAGIC 0x1010101010101010ULL
#define SPE_V1_WORDS 2

int pms_perfdata_reader_spe_meta(const struct pms_perfdata_reader *r,
				 struct pms_perfdata_spe_meta *out)
{
	const struct pms_perfdata_info *in;
	const uint64_t *p;
	struct pms_perfdata_reader *rw = (struct pms_perfdata_reader *)r;
	struct pms_perfdata_spe_cpu *cpus;
	size_t n, hdr, pos;
	struct pms_perfdata_spe_meta m = { 0 };

	if (!r || !out)
		return pms_err(PMS_EINVAL, "pms_perfdata_reader_spe_meta: reader or out is NULL");
	in = &r->info;
	if (in->auxtrace_type != PMS_AUXTRACE_TYPE_ARM_SPE)
		return pms_err(PMS_ENOENT,
			       "perf.data: no AUXTRACE_INFO record of type ARM_SPE (4)%s; the file "
			       "was not recorded with an arm_spe event",
			       in->auxtrace_type ? " (it has another AUX trace type)" : "");
	p = in->auxtrace_priv;
	n = in->nauxtrace_priv;
	if (n == SPE_V1_WORDS) {
		m.version = 1;
		m.pmu_type = p[0];
		m.per_cpu_mmaps = p[1] != 0;
		*out = m;
		return 0;
	}
	if (n < 4)
		return pms_err(PMS_EPARSE,
			       "perf.data: ARM_SPE AUXTRACE_INFO has %zu words: neither version 1 "
			       "(2 words) nor a version-2 header (4 words)", n);
	hdr = (size_t)(p[1] < n ? p[1] : n);
	if (p[0] < 2 || hdr < 4)
		return pms_err(PMS_EPARSE,
			       "perf.data: ARM_SPE AUXTRACE_INFO: version %" PRIu64 " with %" PRIu64
			       " header words is not a known layout (version >= 2, >= 4 words)",
			       p[0], p[1]);
	m.version = p[0] > 1000 ? 1000 : (unsigned)p[0];
	m.pmu_type = p[2];
	if (p[3] > (n - hdr) / 3)
		return pms_err(PMS_EPARSE,
			       "perf.data: ARM_SPE AUXTRACE_INFO says %" PRIu64 " CPUs but has "
			       "%zu words of per-CPU metadata", p[3], n - hdr);
	m.ncpus = (size_t)p[3];
	cpus = pd_alloc(rw, (m.ncpus ? m.ncpus : 1) * sizeof(*cpus));
	if (!cpus)
		return pms_err(PMS_ENOMEM, "perf.data reader: out of memory");
	pos = hdr;
	for (size_t i = 0; i < m.ncpus; i++) {
		uint64_t nparams;
		if (n - pos < 3 || p[pos] != SPE_CPU_MAGIC)
			return pms_err(PMS_EPARSE,
				       "perf.data: ARM_SPE AUXTRACE_INFO: CPU entry %zu at word %zu "
				       "%s", i, pos,
				       n - pos < 3 ? "is cut by the end of the record"
						   : "does not start with the magic 0x1010101010101010");
		nparams = p[pos + 2];
		if (nparams > n - pos - 3)
			return pms_err(PMS_EPARSE,
				       "perf.data: ARM_SPE AUXTRACE_INFO: CPU entry %zu says %" PRIu64
				       " parameters, more than the %zu words left", i, nparams,
				       n - pos - 3);
		cpus[i].cpu = (uint32_t)p[pos + 1];
		cpus[i].midr = nparams > 0 ? p[pos + 3] : 0;
		cpus[i].pmu_type = nparams > 1 ? p[pos + 4] : UINT64_MAX;
		cpus[i].min_interval = nparams > 2 ? p[pos + 5] : 0;
		cpus[i].has_event_filter = nparams > 3;
		cpus[i].event_filter = nparams > 3 ? p[pos + 6] : 0;
		pos += 3 + (size_t)nparams;
	}
	m.cpus = cpus;
	*out = m;
	return 0;
}

int pms_perfdata_reader_spe_midr(const struct pms_perfdata_reader *r, uint32_t cpu,
				 uint64_t *midr)
{
	struct pms_perfdata_spe_meta m;
	const char *s;
	char *end;
	unsigned long long v;

	if (!r || !midr)
		return pms_err(PMS_EINVAL, "pms_perfdata_reader_spe_midr: reader or midr is NULL");
	if (pms_perfdata_reader_spe_meta(r, &m) == 0 && m.version >= 2) {
		for (size_t i = 0; i < m.ncpus; i++)
			if (m.cpus[i].cpu == cpu) {
				*midr = m.cpus[i].midr;
				return 0;
			}
		return pms_err(PMS_ENOENT,
			       "perf.data: the SPE metadata has no entry for CPU %" PRIu32, cpu);
	}
	s = r->info.cpuid;
	if (!s || !*s)
		return pms_err(PMS_ENOENT,
			       "perf.data: no per-CPU SPE metadata and no CPUID header: the MIDR "
			       "of CPU %" PRIu32 " is unknown", cpu);
	v = strtoull(s, &end, 16);
	if (end == s || (*end && *end != '\n'))
		return pms_err(PMS_ENOENT,
			       "perf.data: CPUID header \"%.40s\" is not a hex MIDR (not an arm64 "
			       "recording?)", s);
	*midr = v;
	return 0;
}
