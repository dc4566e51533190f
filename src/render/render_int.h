/* Internal: the render module's options rule (pmuscope/render.h), shared by
 * mem.c (which defines it), export.c (the HTML page); the
 * writer's names as the renderers spell them. */
#ifndef PMS_RENDER_INT_H
#define PMS_RENDER_INT_H

#include "pmuscope/render.h"

/* PMS_OPTS_TAKE of a pms_render_mem_opts (NULL: the defaults); a NULL
 * command becomes "mem".  0, or PMS_EINVAL. */
int pms_render_mem_take(const char *fn, const struct pms_render_mem_opts *opts,
			struct pms_render_mem_opts *copy);

#endif
