/* Internal: CSV fields as RFC 4180 writes them, for every CSV the library
 * renders (c2c, DAMON, the memory report). */
#ifndef PMS_UTIL_CSV_H
#define PMS_UTIL_CSV_H

#include <stdio.h>

/* s as a field: quoted (its quotes doubled) only when it holds a comma, a
 * quote or a newline; NULL writes nothing (an empty field). */
void pms_csv_field(FILE *f, const char *s);
/* s always in quotes (NULL: ""). */
void pms_csv_quoted(FILE *f, const char *s);

#endif
