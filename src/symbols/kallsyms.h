/* Internal: the kernel's function symbols from proc/kallsyms, read only as
 * far as a lookup needs (symbolizer.c). */
#ifndef PMS_SYMBOLS_KALLSYMS_H
#define PMS_SYMBOLS_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/sys.h"

struct ksym {
	uint64_t addr;
	char *name;
	uint32_t seq; /* the line's place among those kept: equal addresses
		       * stay in file order when the table is sorted */
	uint32_t grp; /* 0: the core kernel; else one per run of lines of
		       * one "[module]" tag */
	bool object;  /* not code: perf's kallsyms2elf_type gives STT_OBJECT
		       * to every type but t/T/w/W */
};

/* proc/kallsyms as far as read: the symbols perf keeps from it (text
 * t/T/w/W, data d/D/b/B, and u, l, N: tools/perf/util/symbol.c
 * symbol_type__filter) with a non-zero address.  The kernel formats every
 * line read (kallsyms_expand and vsnprintf: 40 ms of system time for a
 * whole 6.12 table), so a lookup reads on only until the table holds a
 * line above its address. */
struct pms_ktab {
	const struct pms_sys *sys;
	struct pms_sys_stream *f;
	char *buf; /* the read text not yet parsed (a partial line) */
	size_t len, cap;
	bool started, eof, visible, sorted;
	uint64_t last; /* the highest non-zero address read */
	/* the core kernel's lines (before the first "[module]" one): in
	 * address order so far, up to core_last */
	bool core_sorted, core_done;
	uint64_t core_last;
	char mod[64]; /* the last "[module]" tag read, for ksym.grp */
	uint32_t grp;
	char **grpname; /* grp - 1 -> its tag, "[module]" (NULL: no memory) */
	size_t grpcap;
	struct ksym *v;
	size_t n, vcap;
};

void pms_ktab_init(struct pms_ktab *t, const struct pms_sys *sys);
void pms_ktab_free(struct pms_ktab *t);

/* True when the table shows addresses (kptr_restrict and a caller without
 * CAP_SYSLOG get zeros: kernel/kallsyms.c s_show, kallsyms_show_value);
 * reads up to the first non-zero address. */
bool pms_ktab_visible(struct pms_ktab *t);

/* The symbol naming ip as perf 6.12 names a kernel IP from kallsyms
 * (tools/perf/util/symbol.c: dso__load_kallsyms, symbols__fixup_end,
 * symbols__fixup_duplicate, choose_best_symbol): the kept line at or below
 * ip; of several at one address the last in file order (fixup_end leaves
 * all but the last zero long, and choose_best_symbol prefers a non-zero
 * length); the last line of the core kernel or of a module ends at the
 * page boundary past the page after its address (NULL above).  Reads
 * until a kept line above ip is in the table and the core kernel's kept
 * lines before it came in address order (they do: modules, BPF and ftrace
 * lines, tagged "[...]", come after them and outside the kernel's text);
 * else, or for an ip outside the core lines read (x86-64's modules lie
 * above the kernel, arm64's below it), the whole table, sorted. */
const struct ksym *pms_ktab_find(struct pms_ktab *t, uint64_t ip);

/* The "[module]" tag of k's lines (perf's module dso short name, which
 * dso__split_kallsyms moves them to), NULL for the core kernel's. */
const char *pms_ktab_module(const struct pms_ktab *t, const struct ksym *k);

/* The short name perf 6.12 gives a kernel module's map from the file name
 * of its MMAP ("[kvm]", "/lib/modules/.../kvm-intel.ko.xz" -> "[kvm_intel]"):
 * src/symbols/kmod.c. */
void pms_kmod_short_name(const char *filename, char *out, size_t n);

#endif
