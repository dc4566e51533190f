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

size_t pms_jrow_close(struct pms_json_row *r);

/* Text already in JSON (a key quoted once with its ',' and ':', a value),
 * cut at the row's end as every pms_jrow_* is; "}\n" ending the row in
 * r->b, its length returned, for a caller that writes many rows at once. */
void pms_jrow_text(struct pms_json_row *r, const char *text, size_t len);

void pms_render_alloc_json(struct pms_json *j, const struct pms_render_alloc *a);

void pms_render_alloc_text(FILE *out, const struct pms_render_alloc *a);

/* A site by its source: "FILE:LINE (fn <- caller)" of the first frame with
 * a source file (frame 0 may be a wrapper such as operator new), else its
 * address. */
void pms_render_alloc_where(const struct pms_alloc_site *s, char *buf, size_t len);

/* The pprof labels of pms_render_session_pprof (session_pprof.c).  Per
 * sample of a->rep->all its site's label (NULL: none; *labels and each
 * label the caller's), for "alloc_site".  0, or PMS_ENOMEM. */
int pms_render_alloc_labels(const struct pms_render_alloc *a, char ***labels, size_t *n);
/* Per sample of a->rep->all its site's data type (the sites typed by the
 * types sink; NULL: no site, or a site with no dominant type), for
 * "alloc_type".  *labels is the caller's (free()), the strings the
 * report's.  Untyped sites (a->ar->types false): *labels NULL.  0, or
 * PMS_ENOMEM. */
int pms_render_alloc_type_labels(const struct pms_render_alloc *a, const char ***labels, size_t *n);
/* n samples' type hits (pms_session_type_hits): (*labels)[i] the type of
 * hits[i] (NULL: unresolved), (*labels)[n + i] its member; *labels
 * (borrowing the hits' strings) free()d by the caller.  0, or PMS_ENOMEM. */
struct pms_type_hit;
int pms_render_types_labels(const struct pms_type_hit *hits, size_t n, const char ***labels);

/* The "callpaths" member (an object). */
void pms_render_callpath_json(struct pms_json *j, const struct pms_pathreport *r);

void pms_render_callpath_text(FILE *out, const struct pms_pathreport *r);

/* CSV: one row per sample (a file report prints rows while it reads). */
void pms_render_mem_csv(FILE *out, const struct pms_memreport *r);

/* pms_render_mem_csv_row without its newline (for more columns after it);
 * o: the sample's data object, NULL when not known (report --csv streams
 * samples without building objects). */
void pms_render_mem_csv_fields(FILE *out, const struct pms_memreport_sample *x,
			       const struct pms_memreport_site *o);

/* The same JSON object as the member key of an open object of j (mem
 * --types --json); 0, or a negative PMS_E*. */
int pms_render_types_json_section(struct pms_json *j, const char *key, struct pms_typeprof *tp);

#endif
