/* libFuzzer target for the c2c model on recorded input: a perf.data buffer
 * (file or pipe mode) through the recorded memory-sample source, every
 * sample and side-band record into pms_c2c (per-process maps, forks, the
 * kernel's maps), then the report with every metric's line selection.
 * Bad input must end in an error code, never a crash, hang or leak. */
#include "pmuscope/c2c.h"
#include "pmuscope/error.h"
#include "pmuscope/memsrc.h"
#include "pmuscope/perfdata.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_sample(void *ud, const struct pms_memsrc_sample *s)
{
	return pms_c2c_add_src(ud, s);
}

static int on_side(void *ud, const struct pms_record *r, size_t attr_idx)
{
	(void)attr_idx;
	return pms_c2c_sideband(ud, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_perfdata_reader *r = NULL;
	struct pms_memsrc *src = NULL;
	struct pms_c2c *c = NULL;
	struct pms_c2c_report *rep = NULL;
	struct pms_c2c_opts o = PMS_C2C_OPTS_INIT;
	const struct pms_memsrc_callbacks cb = { on_sample, on_side, NULL };
	int polls = 0;

	/* the options from the size, so that one input runs one way */
	o.double_cl = size & 1;
	o.all_lines = (size & 2) != 0;
	o.metric = (enum pms_c2c_metric)((size >> 2) % 7);
	o.sort = (enum pms_c2c_sort)((size >> 5) % 11);
	o.recorded = true;
	if (pms_perfdata_reader_open_mem(data, size, &r) < 0)
		return 0;
	if (pms_memsrc_open_reader(r, &src) < 0 || pms_c2c_new(PMS_ENG_NONE, &o, &c) < 0)
		goto out;
	while (pms_memsrc_poll(src, 0, &cb, c) > 0 && polls++ < 1000)
		;
	struct pms_memsrc_info info;
	pms_memsrc_info(src, &info);
	pms_c2c_set_engine(c, info.engine);
	if (pms_c2c_report(c, NULL, NULL, &rep) == 0) {
		/* what a renderer reads */
		for (size_t i = 0; i < rep->nlines; i++)
			for (size_t k = 0; k < rep->lines[i].nacc; k++)
				if (rep->lines[i].acc[k].offset >= rep->lines[i].size ||
				    !rep->lines[i].acc[k].func)
					__builtin_trap();
	}
out:
	pms_c2c_report_free(rep);
	pms_c2c_free(c);
	pms_memsrc_free(src);
	pms_perfdata_reader_free(r);
	return 0;
}
