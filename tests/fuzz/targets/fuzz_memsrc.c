/* libFuzzer target for the recorded memory-sample source: a perf.data
 * buffer (file or pipe mode) through pms_memsrc_open_reader, every record
 * converted (pms_memsample_from_sample) with its node hints into the report
 * builder in aggregate mode, side-band records included, then the report.
 * Bad input must end in an error code, never a crash, hang or leak. */
#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/report.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_sample(void *ud, const struct pms_memsrc_sample *s)
{
	return pms_memprof_add_src(ud, s);
}

static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	(void)attr_idx;
	return pms_memprof_sideband(ud, r, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_perfdata_reader *r = NULL;
	struct pms_memsrc *src = NULL;
	struct pms_memprof *prof = NULL;
	struct pms_memreport *rep = NULL;
	struct pms_memprof_opts po = PMS_MEMPROF_OPTS_INIT;
	const struct pms_memsrc_callbacks cb = { on_sample, on_side, NULL };
	int rc, polls = 0;

	po.aggregate = true;
	if (pms_perfdata_reader_open_mem(data, size, &r) < 0)
		return 0;
	if (pms_memsrc_open_reader(r, &src) < 0 || pms_memprof_new(NULL, &po, &prof) < 0)
		goto out;
	while ((rc = pms_memsrc_poll(src, 0, &cb, prof)) > 0 && polls++ < 1000)
		;
	size_t n = 0;
	const int *ids = pms_memsrc_node_ids(src, &n);
	if (n)
		(void)pms_memprof_set_node_ids(prof, ids, n);
	const struct pms_memsrc_attr *a = pms_memsrc_attrs(src, &n);
	for (size_t i = 0; i < n; i++)
		if (a[i].pmu && strlen(a[i].pmu) == (size_t)-1)
			__builtin_trap();
	struct pms_memsrc_info info;
	struct pms_memsrc_stats st;
	pms_memsrc_info(src, &info);
	pms_memsrc_stats(src, &st);
	struct pms_memreport_input in = { 0 };
	pms_memreport_input_from_src(&in, &info, &st);
	(void)pms_memprof_report(prof, NULL, &in, &rep);
out:
	pms_memreport_free(rep);
	pms_memprof_free(prof);
	pms_memsrc_free(src);
	pms_perfdata_reader_free(r);
	return 0;
}
