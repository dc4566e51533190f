#include "util/opts.h"

#include "pmuscope/error.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

int pms_opts_take(const char *fn, const struct pms_opts_layout *l, const void *opts, void *copy,
		  size_t copy_size)
{
	unsigned version;

	if (copy_size != l->size)
		return pms_err(PMS_EINVAL, "%s: internal: %s copy of %zu bytes, the struct has %zu",
			       fn, l->name, copy_size, l->size);
	memcpy(copy, l->defaults, l->size);
	if (!opts)
		return 0;
	memcpy(&version, opts, sizeof(version));
	char init[96];
	snprintf(init, sizeof(init), "%s_INIT", l->name);
	int rc = pms_opts_check(fn, init, version, l->known);
	if (rc < 0)
		return rc;
	memcpy(copy, opts, l->sizes[version - 1]);
	memcpy(copy, &l->known, sizeof(l->known)); /* every field is there now */
	return 0;
}

int pms_opts_check(const char *fn, const char *init, unsigned version, unsigned known)
{
	if (version == 0)
		return pms_err(PMS_EINVAL, "%s: options version 0: start the struct from %s "
					   "(or pass NULL for the defaults)", fn, init);
	if (version > known)
		return pms_err(PMS_EINVAL, "%s: options version %u is newer than this library's %u: "
					   "the program was built against a newer pmuscope; run it with "
					   "that library or rebuild it against this one", fn, version, known);
	return 0;
}
