#include "util/opts.h"

#include "pmuscope/error.h"
#include "util/error.h"

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
