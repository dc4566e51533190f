/* A JSON object's members from a table, and a list of objects from a row
 * function (fields.h): the renderers' documents list their members once. */
#include "fields.h"

void pms_json_fieldv(struct pms_json *j, const struct pms_jfield *f, size_t n)
{
	for (size_t i = 0; i < n; i++, f++) {
		if (f->null && f->kind != PMS_JK_HEX) {
			pms_json_null(j, f->key);
			continue;
		}
		switch (f->kind) {
		case PMS_JK_UINT:
			pms_json_uint(j, f->key, f->u);
			break;
		case PMS_JK_INT:
			pms_json_int(j, f->key, f->i);
			break;
		case PMS_JK_DOUBLE:
			pms_json_double(j, f->key, f->d);
			break;
		case PMS_JK_BOOL:
			pms_json_bool(j, f->key, f->b);
			break;
		case PMS_JK_STR:
			pms_json_str(j, f->key, f->s);
			break;
		case PMS_JK_HEX:
			pms_json_hex(j, f->key, !f->null, f->u);
			break;
		}
	}
}

void pms_json_rows(struct pms_json *j, const char *key, size_t n, pms_json_row_fn *row,
		   const void *ctx)
{
	pms_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		pms_json_begin_object(j, NULL);
		row(j, ctx, i);
		pms_json_end_object(j);
	}
	pms_json_end_array(j);
}
