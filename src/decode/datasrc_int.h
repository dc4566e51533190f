/* Internal: perf's data_src text written in place, for the writers of
 * millions of lines (session/script_text.c, decode/datasrc_memo.c); the
 * public pms_datasrc_format and _format_script are these with the
 * snprintf contract around them. */
#ifndef PMS_DECODE_DATASRC_INT_H
#define PMS_DECODE_DATASRC_INT_H

#include <stddef.h>
#include <stdint.h>

/* Room the writers need at d: they write the whole text (up to about 400
 * bytes for a word of every level bit) and whole 64-byte pieces past it. */
#define PMS_DATASRC_PUT_ROOM 640

/* pms_datasrc_format_script's text of val at d (PMS_DATASRC_PUT_ROOM
 * bytes of room, not NUL-terminated); its length, cut at
 * PMS_DATASRC_TEXT_MAX as perf cuts it. */
size_t pms_datasrc_put_script_(uint64_t val, char *d);
/* The same without the "%16lx " prefix (pms_datasrc_format's text). */
size_t pms_datasrc_put_(uint64_t val, char *d);

#endif
