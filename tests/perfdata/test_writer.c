/* perf.data writer: the bytes it lays down (header, attrs, ids, data,
 * feature table), its argument checks, write errors naming the section, and
 * (when perf is installed) that perf itself opens the files. */
#include "check.h"
#include "perf_tool.h"
#include "records.h"

#include "pmuscope/error.h"
#include "pmuscope/perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

struct sect {
	uint64_t offset, size;
};

/* The file's bytes, read back whole. */
struct blob {
	unsigned char *b;
	size_t n;
};

static struct blob slurp(const char *path)
{
	struct blob bl = { NULL, 0 };
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return bl;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		bl.b = malloc((size_t)st.st_size);
		if (bl.b && pread(fd, bl.b, (size_t)st.st_size, 0) == st.st_size)
			bl.n = (size_t)st.st_size;
	}
	close(fd);
	return bl;
}

static uint64_t u64_at(const struct blob *bl, uint64_t off)
{
	uint64_t v = 0;
	if (off + 8 <= bl->n)
		memcpy(&v, bl->b + off, 8);
	return v;
}

static uint32_t u32_at(const struct blob *bl, uint64_t off)
{
	uint32_t v = 0;
	if (off + 4 <= bl->n)
		memcpy(&v, bl->b + off, 4);
	return v;
}

static struct sect sect_at(const struct blob *bl, uint64_t off)
{
	struct sect s = { u64_at(bl, off), u64_at(bl, off + 8) };
	return s;
}

static int in_file(const struct blob *bl, struct sect s)
{
	return s.offset <= bl->n && s.size <= bl->n - s.offset;
}

/* Leave an unrelated message behind, as other calls do between writes. */
static void pms_err_set_for_test(void)
{
	pms_perfdata_reader_open_mem("x", 1, &(struct pms_perfdata_reader *){ NULL });
}

static int open_new(const char *dir, const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, name);
	return open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
}

/* Writes the standard small file: one attr with ids {7, 8}, COMM, MMAP2 and
 * nsamples samples, HOSTNAME/ARCH/NRCPUS features.  Returns the data bytes. */
static uint64_t write_small(int fd, int nsamples, uint64_t *nrec)
{
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	const uint64_t ids[2] = { 7, 8 };
	struct rec r;
	size_t n;
	uint64_t total = 0;

	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	if (!w)
		return 0;
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, ids, 2));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "pmshost"));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64"));
	CHECK_OK(pms_perfdata_writer_set_nrcpus(w, 4, 8));
	n = rec_comm(&r, 100, 101, "pmstest", 1000, 1);
	CHECK_OK(pms_perfdata_writer_write(w, r.b, n));
	total += n;
	n = rec_mmap2(&r, 100, 101, 0x400000, 0x10000, 0, "/usr/bin/pmstest", 1001, 1);
	CHECK_OK(pms_perfdata_writer_write(w, r.b, n));
	total += n;
	for (int i = 0; i < nsamples; i++) {
		n = rec_sample(&r, 0x401000 + (uint64_t)i * 4, 100, 101, 2000 + (uint64_t)i,
			       0x7fff0000 + (uint64_t)i * 64, 1, 30, 0x1a00001042);
		CHECK_OK(pms_perfdata_writer_write(w, r.b, n));
		total += n;
	}
	CHECK_EQ_U64(pms_perfdata_writer_data_size(w), total);
	CHECK_EQ_U64(pms_perfdata_writer_next_offset(w),
		     104 + 16 + sizeof(struct perf_event_attr) + 16 + total);
	*nrec = pms_perfdata_writer_records(w);
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	return total;
}

PMS_TEST(header_attrs_ids_data_features)
{
	char dir[256], path[512];
	uint64_t nrec = 0, total;
	struct blob bl;
	struct perf_event_attr a = rec_attr(), got;
	struct sect attrs, data, evt, ids, feat[3];
	uint64_t attr_size = sizeof(struct perf_event_attr) + 16;
	int fd;

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	fd = open_new(dir, "small.data", path, sizeof(path));
	CHECK(fd >= 0);
	total = write_small(fd, 5, &nrec);
	close(fd);
	CHECK_EQ_U64(nrec, 7);
	bl = slurp(path);
	CHECK(bl.n > PMS_PERFDATA_HEADER_SIZE);
	if (bl.n <= PMS_PERFDATA_HEADER_SIZE)
		goto out;

	/* Header. */
	CHECK(memcmp(bl.b, "PERFILE2", 8) == 0);
	CHECK_EQ_U64(u64_at(&bl, 0), PMS_PERFDATA_MAGIC);
	CHECK_EQ_U64(u64_at(&bl, 8), 104);
	CHECK_EQ_U64(u64_at(&bl, 16), attr_size);
	attrs = sect_at(&bl, 24);
	data = sect_at(&bl, 40);
	evt = sect_at(&bl, 56);
	CHECK_EQ_U64(attrs.size, attr_size);
	CHECK(in_file(&bl, attrs));
	/* perf's layout: the ids, then the attrs, then the data. */
	CHECK_EQ_U64(attrs.offset, 104 + 16);
	CHECK_EQ_U64(data.offset, 104 + 16 + attr_size);
	CHECK_EQ_U64(data.size, total);
	CHECK_EQ_U64(evt.offset, 0);
	CHECK_EQ_U64(evt.size, 0);
	/* Feature bitmap: exactly HOSTNAME(3), ARCH(6), NRCPUS(7). */
	CHECK_EQ_U64(u64_at(&bl, 72), (1u << 3) | (1u << 6) | (1u << 7));
	CHECK_EQ_U64(u64_at(&bl, 80), 0);
	CHECK_EQ_U64(u64_at(&bl, 88), 0);
	CHECK_EQ_U64(u64_at(&bl, 96), 0);

	/* Data: the records in order; the first is the COMM. */
	CHECK_EQ_U64(u32_at(&bl, data.offset), PERF_RECORD_COMM);
	{
		uint64_t off = data.offset, n = 0;
		while (off + 8 <= data.offset + data.size) {
			uint16_t sz;
			memcpy(&sz, bl.b + off + 6, 2);
			if (sz < 8)
				break;
			off += sz;
			n++;
		}
		CHECK_EQ_U64(off, data.offset + data.size);
		CHECK_EQ_U64(n, nrec);
	}

	/* Attr: the caller's bytes, size set to the struct size; ids {7,8}. */
	memcpy(&got, bl.b + attrs.offset, sizeof(got));
	a.size = sizeof(a);
	CHECK(memcmp(&got, &a, sizeof(a)) == 0);
	CHECK_EQ_INT(got.size, sizeof(struct perf_event_attr));
	ids = sect_at(&bl, attrs.offset + sizeof(struct perf_event_attr));
	CHECK_EQ_U64(ids.size, 16);
	CHECK(in_file(&bl, ids));
	CHECK_EQ_U64(u64_at(&bl, ids.offset), 7);
	CHECK_EQ_U64(u64_at(&bl, ids.offset + 8), 8);

	/* Feature table right after the data, one section per bit in order. */
	for (int i = 0; i < 3; i++) {
		feat[i] = sect_at(&bl, data.offset + data.size + 16 * (uint64_t)i);
		CHECK(in_file(&bl, feat[i]));
	}
	CHECK_EQ_U64(feat[0].offset, data.offset + data.size + 48);
	CHECK_EQ_U64(feat[1].offset, feat[0].offset + feat[0].size);
	CHECK_EQ_U64(feat[2].offset, feat[1].offset + feat[1].size);
	/* String features: u32 len (NUL + padding to 64), the string, zeroes. */
	CHECK_EQ_U64(feat[0].size, 4 + 64);
	CHECK_EQ_U64(u32_at(&bl, feat[0].offset), 64);
	CHECK_EQ_STR((const char *)bl.b + feat[0].offset + 4, "pmshost");
	{
		int zero = 1;
		for (int i = 4 + 8; i < 4 + 64; i++)
			zero &= bl.b[feat[0].offset + (uint64_t)i] == 0;
		CHECK(zero);
	}
	CHECK_EQ_STR((const char *)bl.b + feat[1].offset + 4, "x86_64");
	/* NRCPUS: avail, then online. */
	CHECK_EQ_U64(feat[2].size, 8);
	CHECK_EQ_U64(u32_at(&bl, feat[2].offset), 8);
	CHECK_EQ_U64(u32_at(&bl, feat[2].offset + 4), 4);
out:
	free(bl.b);
	pt_rmdir(dir);
}

PMS_TEST(long_string_feature_padding)
{
	char dir[256], path[512], s[100];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	struct blob bl;
	struct sect f;
	int fd;

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	memset(s, 'x', 64);
	s[64] = '\0'; /* 65 bytes with the NUL: pads to 128 */
	fd = open_new(dir, "str.data", path, sizeof(path));
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_OSRELEASE, "old"));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_OSRELEASE, s));
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	close(fd);
	bl = slurp(path);
	CHECK_EQ_U64(u64_at(&bl, 40 + 8), 0); /* no records */
	CHECK_EQ_U64(u64_at(&bl, 72), 1u << 4);
	f = sect_at(&bl, u64_at(&bl, 40));
	CHECK_EQ_U64(f.offset, u64_at(&bl, 40) + 16);
	CHECK_EQ_U64(f.size, 4 + 128);
	CHECK_EQ_U64(u32_at(&bl, f.offset), 128);
	CHECK(in_file(&bl, f) && memcmp(bl.b + f.offset + 4, s, 65) == 0);
	/* No ids: an empty section. */
	CHECK_EQ_U64(u64_at(&bl, u64_at(&bl, 24) + sizeof(struct perf_event_attr) + 8), 0);
	free(bl.b);
	pt_rmdir(dir);
}

PMS_TEST(two_attrs_keep_order_and_ids)
{
	char dir[256], path[512];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr(), b = rec_attr();
	const uint64_t ida[1] = { 11 }, idb[3] = { 21, 22, 23 };
	struct blob bl;
	uint64_t asz = sizeof(struct perf_event_attr) + 16, ao;
	struct sect s0, s1;
	int fd;

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	b.type = PERF_TYPE_SOFTWARE;
	b.config = 9;
	fd = open_new(dir, "two.data", path, sizeof(path));
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, ida, 1));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &b, idb, 3));
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	close(fd);
	bl = slurp(path);
	CHECK_EQ_U64(u64_at(&bl, 32), 2 * asz);
	ao = u64_at(&bl, 24);
	CHECK_EQ_U64(u32_at(&bl, ao), PERF_TYPE_RAW);
	CHECK_EQ_U64(u32_at(&bl, ao + asz), PERF_TYPE_SOFTWARE);
	s0 = sect_at(&bl, ao + sizeof(struct perf_event_attr));
	s1 = sect_at(&bl, ao + asz + sizeof(struct perf_event_attr));
	CHECK_EQ_U64(s0.size, 8);
	CHECK_EQ_U64(s1.size, 24);
	CHECK_EQ_U64(u64_at(&bl, s0.offset), 11);
	CHECK_EQ_U64(u64_at(&bl, s1.offset), 21);
	CHECK_EQ_U64(u64_at(&bl, s1.offset + 16), 23);
	free(bl.b);
	pt_rmdir(dir);
}

PMS_TEST(argument_checks)
{
	char dir[256], path[512];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	struct rec r;
	size_t n;
	int fd;

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	CHECK_EQ_INT(pms_perfdata_writer_open(-1, &w), PMS_EINVAL);
	CHECK(w == NULL);
	CHECK_EQ_INT(pms_perfdata_writer_open(0, NULL), PMS_EINVAL);
	fd = open_new(dir, "args.data", path, sizeof(path));
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	n = rec_sample(&r, 1, 2, 3, 4, 5, 6, 7, 8);
	/* A record before any attr. */
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, n), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "no attr") != NULL);
	CHECK_EQ_INT(pms_perfdata_writer_add_attr(w, NULL, NULL, 0), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_add_attr(w, &a, NULL, 2), PMS_EINVAL);
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	/* header.size must equal len; len >= 8 and a multiple of 8. */
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, n - 8), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "header.size") != NULL);
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, n + 4), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, 4), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_write(w, NULL, 8), PMS_EINVAL);
	CHECK_EQ_U64(pms_perfdata_writer_records(w), 0);
	CHECK_OK(pms_perfdata_writer_write(w, r.b, n));
	/* Attrs only before the first record. */
	CHECK_EQ_INT(pms_perfdata_writer_add_attr(w, &a, NULL, 0), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "before the first record") != NULL);
	CHECK_EQ_INT(pms_perfdata_writer_set_feature(w, 0, "x", 1), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_set_feature(w, 1, "x", 1), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_set_feature(w, 256, "x", 1), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_set_feature(w, 9, NULL, 1), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_set_string(w, 3, NULL), PMS_EINVAL);
	CHECK_OK(pms_perfdata_writer_close(w));
	/* Nothing after close. */
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, n), PMS_EINVAL);
	CHECK_EQ_INT(pms_perfdata_writer_close(w), PMS_EINVAL);
	CHECK(strstr(pms_error_last(), "already closed") != NULL);
	pms_perfdata_writer_free(w);
	pms_perfdata_writer_free(NULL);
	close(fd);

	/* A file without attrs is refused at close. */
	fd = open_new(dir, "noattr.data", path, sizeof(path));
	w = NULL;
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_EQ_INT(pms_perfdata_writer_close(w), PMS_EINVAL);
	pms_perfdata_writer_free(w);
	close(fd);
	pt_rmdir(dir);
}

PMS_TEST(write_errors_name_the_section)
{
	char dir[256], path[512];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	struct rec r;
	size_t n = rec_sample(&r, 1, 2, 3, 4, 5, 6, 7, 8);
	int fd, pfd[2];

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	/* Read-only fd: the placeholder header cannot be written. */
	fd = open_new(dir, "ro.data", path, sizeof(path));
	close(fd);
	fd = open(path, O_RDONLY);
	CHECK_EQ_INT(pms_perfdata_writer_open(fd, &w), PMS_EIO);
	CHECK(w == NULL);
	CHECK_MSG(strstr(pms_error_last(), "header") != NULL, "%s", pms_error_last());
	CHECK_EQ_INT(pms_error_errno(), EBADF);
	close(fd);

	/* A pipe cannot be written at an offset. */
	CHECK(pipe(pfd) == 0);
	CHECK_EQ_INT(pms_perfdata_writer_open(pfd[1], &w), PMS_EIO);
	CHECK_EQ_INT(pms_error_errno(), ESPIPE);
	close(pfd[0]);
	close(pfd[1]);

	/* fd closed under the writer: the record write names the data section. */
	fd = open_new(dir, "closed.data", path, sizeof(path));
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	CHECK_OK(pms_perfdata_writer_write(w, r.b, n));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "h"));
	close(fd);
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, n), PMS_EIO);
	CHECK_MSG(strstr(pms_error_last(), "data section record 1") != NULL, "%s",
		  pms_error_last());
	CHECK(strstr(pms_error_last(), "errno 9") != NULL);
	CHECK_EQ_U64(pms_perfdata_writer_records(w), 1);
	/* The failure is kept: later writes and close return it again with
	 * its own message, never a later or stale one. */
	pms_err_set_for_test();
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, n), PMS_EIO);
	CHECK_MSG(strstr(pms_error_last(), "data section record 1") != NULL, "%s",
		  pms_error_last());
	CHECK_EQ_U64(pms_perfdata_writer_records(w), 1);
	pms_err_set_for_test();
	CHECK_EQ_INT(pms_perfdata_writer_close(w), PMS_EIO);
	CHECK_MSG(strstr(pms_error_last(), "data section record 1") != NULL, "%s",
		  pms_error_last());
	pms_perfdata_writer_free(w);

	/* Without features the first write at close is the attrs section. */
	fd = open_new(dir, "closed2.data", path, sizeof(path));
	w = NULL;
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	close(fd);
	CHECK_EQ_INT(pms_perfdata_writer_close(w), PMS_EIO);
	CHECK_MSG(strstr(pms_error_last(), "attrs") != NULL, "%s", pms_error_last());
	pms_perfdata_writer_free(w);

	/* With ids, the ids go first. */
	fd = open_new(dir, "closed3.data", path, sizeof(path));
	w = NULL;
	{
		const uint64_t id = 5;
		CHECK_OK(pms_perfdata_writer_open(fd, &w));
		CHECK_OK(pms_perfdata_writer_add_attr(w, &a, &id, 1));
	}
	close(fd);
	CHECK_EQ_INT(pms_perfdata_writer_close(w), PMS_EIO);
	CHECK_MSG(strstr(pms_error_last(), "ids of attr 0") != NULL, "%s", pms_error_last());
	pms_perfdata_writer_free(w);

	/* A full device: ENOSPC. */
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		int rc = pms_perfdata_writer_open(fd, &w);
		CHECK_EQ_INT(rc, PMS_EIO);
		if (rc == PMS_EIO)
			CHECK_EQ_INT(pms_error_errno(), ENOSPC);
		close(fd);
	}
	pt_rmdir(dir);
}

/* Run cmd, count its stdout lines; returns the exit status. */
static int run_count(const char *cmd, int *lines, char *first, size_t firstsz)
{
	char buf[4096];
	FILE *p = popen(cmd, "r");
	*lines = 0;
	if (first && firstsz)
		first[0] = '\0';
	if (!p)
		return -1;
	while (fgets(buf, sizeof(buf), p)) {
		if (*lines == 0 && first) {
			size_t k = strnlen(buf, firstsz - 1);
			memcpy(first, buf, k);
			first[k] = '\0';
		}
		(*lines)++;
	}
	return pt_status(pclose(p));
}

PMS_TEST(perf_opens_written_file)
{
	char dir[256], path[512], cmd[1200], ver[128], out[4096], line[512];
	uint64_t nrec = 0;
	int fd, lines, rc;
	FILE *p;

	if (!pt_perf_version(ver, sizeof(ver)))
		PMS_SKIP(PT_SKIP_MSG);
	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	fprintf(stderr, "using %s\n", ver);
	pt_perf_env(dir);
	fd = open_new(dir, "perf.data", path, sizeof(path));
	write_small(fd, 37, &nrec);
	close(fd);

	/* perf report --header-only: exit 0 and our features. */
	snprintf(cmd, sizeof(cmd), "perf report --header-only -i '%s' 2>&1", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	out[0] = '\0';
	if (p) {
		size_t used = 0;
		while (fgets(line, sizeof(line), p) && used + strlen(line) < sizeof(out)) {
			memcpy(out + used, line, strlen(line) + 1);
			used += strlen(line);
		}
		rc = pt_status(pclose(p));
		CHECK_MSG(rc == 0, "%s exited %d:\n%s", cmd, rc, out);
	}
	CHECK_MSG(strstr(out, "# hostname : pmshost") != NULL, "%s", out);
	CHECK_MSG(strstr(out, "# arch : x86_64") != NULL, "%s", out);
	CHECK_MSG(strstr(out, "# nrcpus online : 4") != NULL, "%s", out);
	CHECK_MSG(strstr(out, "# nrcpus avail : 8") != NULL, "%s", out);
	CHECK_MSG(strstr(out, "# data offset    : 272") != NULL, "%s", out);

	/* perf script: one line per sample, named by the COMM record. */
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F comm,tid,ip,addr 2>/dev/null", path);
	rc = run_count(cmd, &lines, line, sizeof(line));
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(lines, 37);
	CHECK_MSG(strstr(line, "pmstest") && strstr(line, "101") && strstr(line, "401000") &&
			  strstr(line, "7fff0000"),
		  "first line: %s", line);

	/* perf report --stats counts the records by type. */
	snprintf(cmd, sizeof(cmd), "perf report --stats -i '%s' 2>&1", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (p) {
		int saw_samples = 0, saw_mmap2 = 0;
		while (fgets(line, sizeof(line), p)) {
			if (strstr(line, "SAMPLE events:") && strstr(line, " 37"))
				saw_samples = 1;
			if (strstr(line, "MMAP2 events:") && strstr(line, " 1"))
				saw_mmap2 = 1;
		}
		CHECK_EQ_INT(pt_status(pclose(p)), 0);
		CHECK(saw_samples);
		CHECK(saw_mmap2);
	}
	pt_rmdir(dir);
}

/* Count the records pmuscope's reader gives for path; *st gets its stats. */
static long read_back(const char *path, struct pms_perfdata_stats *st, char *problem,
		      size_t psize)
{
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	long n = 0;
	int rc, fd = open(path, O_RDONLY);
	if (problem && psize)
		problem[0] = '\0';
	if (fd < 0)
		return -1;
	if (pms_perfdata_reader_open_fd(fd, &r) < 0) {
		close(fd);
		return -2;
	}
	while ((rc = pms_perfdata_next(r, &ev)) > 0)
		n++;
	if (st)
		*st = *pms_perfdata_reader_stats(r);
	if (problem && pms_perfdata_reader_problem(r, 0))
		snprintf(problem, psize, "%s", pms_perfdata_reader_problem(r, 0));
	pms_perfdata_reader_free(r);
	close(fd);
	return rc < 0 ? -3 : n;
}

/* A writer that is never closed (SIGKILL, power cut): the file is
 * perf.data from the first record on, and pmuscope's reader recovers every
 * complete record and says the file was not finished. */
PMS_TEST(killed_writer_file_is_recovered)
{
	char dir[256], path[512], problem[512];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	struct pms_perfdata_stats st;
	struct rec r;
	size_t n;
	int fd;
	const int N = 20000; /* > 1 MiB of data: one header sync on the way */

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	fd = open_new(dir, "killed.data", path, sizeof(path));
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "h"));
	/* valid (and empty) as soon as the attrs are down */
	CHECK_OK(pms_perfdata_writer_sync(w));
	CHECK_EQ_INT(read_back(path, &st, problem, sizeof(problem)), 0);
	CHECK(st.unfinished);
	for (int i = 0; i < N; i++) {
		n = rec_sample(&r, 0x401000 + (uint64_t)i, 100, 101, 2000 + (uint64_t)i,
			       0x7fff0000, 1, 30, 0x1a00001042);
		CHECK_OK(pms_perfdata_writer_write(w, r.b, n));
	}
	/* and the record being written when the power went: half of it */
	CHECK(pwrite(fd, r.b, n / 2, lseek(fd, 0, SEEK_END)) == (ssize_t)(n / 2));
	pms_perfdata_writer_free(w); /* no close: killed */
	close(fd);
	CHECK_EQ_INT(read_back(path, &st, problem, sizeof(problem)), N);
	CHECK(st.unfinished);
	CHECK(st.truncated);
	CHECK(st.recovered_bytes > 0);
	CHECK_MSG(strstr(problem, "not finished") != NULL, "%s", problem);
	/* perf reads what the last sync covered (at least 1 MiB of it) */
	{
		char ver[128], cmd[1024], line[256];
		if (pt_perf_version(ver, sizeof(ver))) {
			long got = 0;
			FILE *p;
			pt_perf_env(dir);
			snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F ip 2>/dev/null", path);
			p = popen(cmd, "r");
			while (p && fgets(line, sizeof(line), p))
				got++;
			if (p)
				pclose(p);
			CHECK_MSG(got * (long)n >= (1L << 20) && got <= N, "perf read %ld samples", got);
		}
	}
	pt_rmdir(dir);
}

/* A full disk (here: RLIMIT_FSIZE, which fails writes with EFBIG as a full
 * disk fails them with ENOSPC): the failure is kept, close returns it with
 * its message, and the records before it read back, with perf too. */
PMS_TEST(write_failure_keeps_records_before_it)
{
	char dir[256], path[512], problem[512];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	struct pms_perfdata_stats st;
	struct rec r;
	struct rlimit old, lim;
	size_t n = 0;
	int fd, rc = 0;
	uint64_t ok = 0;

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	fd = open_new(dir, "full.data", path, sizeof(path));
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "h"));
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 64 * 1024 + 100; /* cuts a record in two */
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	for (int i = 0; i < 5000 && rc == 0; i++) {
		n = rec_sample(&r, 0x401000 + (uint64_t)i, 100, 101, 2000 + (uint64_t)i,
			       0x7fff0000, 1, 30, 0x1a00001042);
		rc = pms_perfdata_writer_write(w, r.b, n);
		if (rc == 0)
			ok++;
	}
	CHECK_EQ_INT(rc, PMS_EIO);
	CHECK_EQ_INT(pms_error_errno(), EFBIG);
	/* kept */
	CHECK_EQ_INT(pms_perfdata_writer_write(w, r.b, n), PMS_EIO);
	pms_err_set_for_test();
	CHECK_EQ_INT(pms_perfdata_writer_close(w), PMS_EIO);
	CHECK_MSG(strstr(pms_error_last(), "data section record") != NULL &&
			  strstr(pms_error_last(), "File too large") != NULL,
		  "%s", pms_error_last());
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	pms_perfdata_writer_free(w);
	close(fd);
	CHECK_EQ_INT(read_back(path, &st, problem, sizeof(problem)), (long)ok);
	{
		char ver[128], cmd[1024], line[256];
		if (pt_perf_version(ver, sizeof(ver))) {
			long got = 0;
			FILE *p;
			pt_perf_env(dir);
			snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F ip 2>/dev/null", path);
			p = popen(cmd, "r");
			while (p && fgets(line, sizeof(line), p))
				got++;
			CHECK_EQ_INT(p ? pt_status(pclose(p)) : -1, 0);
			CHECK_EQ_INT(got, (long)ok);
		}
	}
	pt_rmdir(dir);
}

/* LOST and LOST_SAMPLES records: perf report --stats counts the loss. */
PMS_TEST(lost_records_reach_perf_stats)
{
	char dir[256], path[512], ver[128], cmd[1024], line[256];
	struct pms_perfdata_writer *w = NULL;
	struct perf_event_attr a = rec_attr();
	struct pms_perfdata_stats st;
	struct rec r;
	size_t n;
	int fd;

	if (!pt_mkdtemp(dir, sizeof(dir)))
		PMS_SKIP("mkdtemp failed: %s", strerror(errno));
	fd = open_new(dir, "lost.data", path, sizeof(path));
	CHECK_OK(pms_perfdata_writer_open(fd, &w));
	CHECK_OK(pms_perfdata_writer_add_attr(w, &a, NULL, 0));
	n = rec_sample(&r, 0x401000, 100, 101, 2000, 0x7fff0000, 1, 30, 0x1a00001042);
	CHECK_OK(pms_perfdata_writer_write(w, r.b, n));
	CHECK_OK(pms_perfdata_writer_lost(w, 0, 927520));
	CHECK_OK(pms_perfdata_writer_lost_samples(w, 12));
	CHECK_OK(pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_HOSTNAME, "h"));
	CHECK_OK(pms_perfdata_writer_close(w));
	pms_perfdata_writer_free(w);
	close(fd);
	CHECK_EQ_INT(read_back(path, &st, NULL, 0), 3);
	CHECK_EQ_U64(st.lost, 927520);
	CHECK_EQ_U64(st.lost_samples, 12);
	CHECK(!st.unfinished);
	if (pt_perf_version(ver, sizeof(ver))) {
		int saw_lost = 0, saw_ls = 0;
		FILE *p;
		pt_perf_env(dir);
		snprintf(cmd, sizeof(cmd), "perf report --stats -i '%s' 2>&1", path);
		p = popen(cmd, "r");
		while (p && fgets(line, sizeof(line), p)) {
			saw_lost |= strstr(line, "LOST events:") && strstr(line, " 1");
			saw_ls |= strstr(line, "LOST_SAMPLES events:") && strstr(line, " 1");
		}
		CHECK_EQ_INT(p ? pt_status(pclose(p)) : -1, 0);
		CHECK(saw_lost);
		CHECK(saw_ls);
	}
	pt_rmdir(dir);
}

PMS_TEST_MAIN()
