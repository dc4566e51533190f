/* Writing perf.data files (the "PERFILE2" format that `perf report` and
 * `perf script` read).
 *
 * A writer lays a file out as
 *     [header 104 B][data: the records][feature table + payloads][ids][attrs]
 * The data section must come right after the header's placeholder because
 * perf finds the feature table at data.offset + data.size
 * (tools/perf/util/header.c, perf_header__process_sections).  Attrs, ids and
 * features are kept in memory and written by pms_perfdata_writer_close(),
 * which then patches the header.  The writer only does pwrite() on the fd it
 * is given; it never opens, seeks, syncs or closes anything.
 *
 * Attrs are written with the size of the struct perf_event_attr this library
 * was compiled against (attr.size is set to it).  perf refuses attrs larger
 * than its own struct, so a perf older than the headers may not read the file.
 *
 * Ownership: pms_perfdata_writer_open() gives the caller a writer released
 * with pms_perfdata_writer_free(), which does not close the fd; the fd stays
 * the caller's.  Every pointer argument is borrowed and copied.
 */
#ifndef PMUSCOPE_PERFDATA_H
#define PMUSCOPE_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perf_event_attr;
struct pms_perfdata_writer;

/* "PERFILE2" read as a little-endian u64. */
#define PMS_PERFDATA_MAGIC 0x32454c4946524550ULL
/* sizeof(struct perf_file_header): magic, size, attr_size, 3 sections,
 * 256-bit feature bitmap. */
#define PMS_PERFDATA_HEADER_SIZE 104

/* Feature bits of the header's adds_features bitmap
 * (tools/perf/util/header.h, enum HEADER_*). */
enum pms_perfdata_feature {
	PMS_PERFDATA_FEAT_HOSTNAME = 3,
	PMS_PERFDATA_FEAT_OSRELEASE = 4,
	PMS_PERFDATA_FEAT_VERSION = 5,
	PMS_PERFDATA_FEAT_ARCH = 6,
	PMS_PERFDATA_FEAT_NRCPUS = 7,
	PMS_PERFDATA_FEAT_CPUDESC = 8,
	PMS_PERFDATA_FEAT_CPUID = 9,
	PMS_PERFDATA_FEAT_MAX = 256 /* size of the bitmap, not a feature */
};

/* Start a perf.data file on fd (opened for writing by the caller; must
 * support pwrite).  Writes a zeroed placeholder header at offset 0; records
 * follow it.  PMS_EIO (naming "header" and the errno) if that write fails. */
int pms_perfdata_writer_open(int fd, struct pms_perfdata_writer **out);

/* Add an event: attr (sizeof(struct perf_event_attr) bytes are copied; the
 * copy's size field is set to that) and the nids sample ids that records of
 * this event carry (PERF_SAMPLE_ID / IDENTIFIER; may be 0 with one attr).
 * Only before the first record: readers need every attr to parse any record.
 * PMS_EINVAL after the first record or after close. */
int pms_perfdata_writer_add_attr(struct pms_perfdata_writer *w,
				 const struct perf_event_attr *attr,
				 const uint64_t *ids, size_t nids);

/* Append one complete record (struct perf_event_header first).  len must
 * equal header.size, be at least 8 and a multiple of 8 (PMS_EINVAL
 * otherwise); at least one attr must have been added.  PMS_EIO naming the
 * data section, the record's number and offset if the write fails. */
int pms_perfdata_writer_write(struct pms_perfdata_writer *w, const void *record,
			      size_t len);

/* Set feature feat's payload to len raw bytes (replacing an earlier one). */
int pms_perfdata_writer_set_feature(struct pms_perfdata_writer *w, unsigned feat,
				    const void *payload, size_t len);

/* Set a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID)
 * in perf's string form: u32 len, then s, its NUL and zero padding, len
 * counting all of them rounded up to 64 (header.c, do_write_string). */
int pms_perfdata_writer_set_string(struct pms_perfdata_writer *w, unsigned feat,
				   const char *s);

/* Set NRCPUS: u32 available (max present CPU + 1), then u32 online. */
int pms_perfdata_writer_set_nrcpus(struct pms_perfdata_writer *w, uint32_t online,
				   uint32_t avail);

/* Number of records and bytes written to the data section so far. */
uint64_t pms_perfdata_writer_records(const struct pms_perfdata_writer *w);
uint64_t pms_perfdata_writer_data_size(const struct pms_perfdata_writer *w);

/* Finish the file: write the feature table and payloads after the data, then
 * the ids and attrs, then the real header.  PMS_EIO names the section
 * ("feature table", "feature 3 payload", "ids", "attrs", "header") and the
 * errno.  The writer accepts nothing after close (successful or not). */
int pms_perfdata_writer_close(struct pms_perfdata_writer *w);

/* Release w (NULL is fine).  Does not close the fd or finish the file. */
void pms_perfdata_writer_free(struct pms_perfdata_writer *w);

#ifdef __cplusplus
}
#endif
#endif
