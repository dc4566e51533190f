/* typefile: a perf.data of memory samples for one non-PIE binary, for the
 * perf oracle (perf_oracle.py).  typefile OUT BINARY START LEN PGOFF reads
 * lines "TID IP ADDR" (hex IP and ADDR) and writes: a raw precise
 * mem-loads attr (0x1cd, sample type IP|TID|TIME|ADDR|CPU|WEIGHT|
 * DATA_SRC), HEADER_ARCH x86_64, a COMM and an MMAP2 (START, LEN, PGOFF:
 * the binary's executable segment) for pid 4000, then one SAMPLE per line
 * (pid 4000, the line's tid, an L1-hit load or store data source).  A
 * line "mmap START LEN PGOFF" writes another MMAP2 of the binary there (a
 * mapping in the middle of the data). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../perfdata/records.h"
#include "pmuscope/perfdata.h"

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: typefile OUT BINARY START LEN PGOFF < TID IP ADDR lines\n");
		return 2;
	}
	uint64_t start = strtoull(argv[3], NULL, 0), len = strtoull(argv[4], NULL, 0);
	uint64_t pgoff = strtoull(argv[5], NULL, 0);
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct pms_perfdata_writer *w;
	if (fd < 0 || pms_perfdata_writer_open(fd, &w) < 0)
		return 1;
	struct perf_event_attr a = rec_attr();
	uint64_t id = 1;
	struct rec r;
	int bad = pms_perfdata_writer_add_attr(w, &a, &id, 1) < 0 ||
		  pms_perfdata_writer_set_string(w, PMS_PERFDATA_FEAT_ARCH, "x86_64") < 0 ||
		  pms_perfdata_writer_set_nrcpus(w, 1, 1) < 0;
	uint64_t t = 1000000;
	size_t n = rec_comm(&r, 4000, 4000, "typeprog", t, 0);
	bad |= pms_perfdata_writer_write(w, r.b, n) < 0;
	n = rec_mmap2(&r, 4000, 4000, start, len, pgoff, argv[2], t + 1, 0);
	bad |= pms_perfdata_writer_write(w, r.b, n) < 0;
	unsigned tid;
	uint64_t ip, addr;
	char line[256], kind[8];
	while (!bad && fgets(line, sizeof(line), stdin)) {
		kind[0] = 0;
		uint64_t ms, ml, mo;
		if (sscanf(line, "mmap %" SCNx64 " %" SCNx64 " %" SCNx64, &ms, &ml, &mo) == 3) {
			t += 1000;
			n = rec_mmap2(&r, 4000, 4000, ms, ml, mo, argv[2], t, 0);
			bad |= pms_perfdata_writer_write(w, r.b, n) < 0;
			continue;
		}
		if (sscanf(line, "%u %" SCNx64 " %" SCNx64 " %7s", &tid, &ip, &addr, kind) < 3)
			continue;
		/* "s" after the address: a store (perf_mem_data_src op 4) */
		uint64_t ds = kind[0] == 's' ? 0x68100144ull : 0x68100142ull;
		t += 1000;
		if (tid != 4000) { /* each sample's thread: perf sorts by it */
			n = rec_comm(&r, 4000, tid, "typeprog", t, 0);
			bad |= pms_perfdata_writer_write(w, r.b, n) < 0;
		}
		n = rec_sample(&r, ip, 4000, tid, t + 1, addr, 0, 40, ds);
		bad |= pms_perfdata_writer_write(w, r.b, n) < 0;
	}
	bad |= pms_perfdata_writer_close(w) < 0;
	pms_perfdata_writer_free(w);
	close(fd);
	return bad;
}
