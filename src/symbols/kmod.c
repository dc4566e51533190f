/* A kernel module map's name as perf 6.12 gives it (kallsyms.h). */
#include <stdio.h>
#include <string.h>

#include "symbols/kallsyms.h"

/* tools/perf/util/dso.c __kmod_path__parse: a "[name]" is kept as it is;
 * a path's base name up to its last '.', stepping back over a compression
 * suffix perf 6.12 reads (gz, xz: is_supported_compression; not zst), is
 * a module when ".ko" is there, named "[base]" with '-' as '_' (strreplace);
 * any other file keeps its base name, '-' as '_'. */
void pms_kmod_short_name(const char *filename, char *out, size_t n)
{
	const char *name = strrchr(filename, '/');
	name = name ? name + 1 : filename;
	if (!n)
		return;
	if (name[0] == '[') {
		snprintf(out, n, "%s", name);
		return;
	}
	const char *ext = strrchr(name, '.');
	if (ext && (!strcmp(ext + 1, "gz") || !strcmp(ext + 1, "xz")))
		ext -= 3;
	bool kmod = ext && ext > name && !strncmp(ext, ".ko", 3);
	if (kmod)
		snprintf(out, n, "[%.*s]", (int)(ext - name), name);
	else
		snprintf(out, n, "%s", name);
	for (char *c = out; *c; c++)
		if (*c == '-')
			*c = '_';
}
