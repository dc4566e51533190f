/* CSV fields (util/csv.h). */
#include "util/csv.h"

#include <string.h>

void pms_csv_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void pms_csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (strpbrk(s, ",\"\n"))
		pms_csv_quoted(f, s);
	else
		fputs(s, f);
}
