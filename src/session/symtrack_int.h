/* Internal to src/session (it was include/pmuscope/symtrack.h; only the
 * session's script and sort-key parts use it).  Names for the IPs of a
 * recorded stream at each point of it, as `perf script` names them: each
 * process's mappings from the MMAP/MMAP2 records seen so far (a FORK of a
 * new process copies its parent's, an exec drops them), code named through
 * the project's symbolizer (pmuscope/symbols.h); kernel IPs through
 * proc/kallsyms only when the file's kernel build id is the running kernel's
 * (perf would relocate this host's symbols onto another kernel's; this names
 * them [unknown] instead); a module whose build id on this machine differs
 * from the one the file lists is not read (its IPs keep the module's path
 * and no symbol, as perf shows them).  Names are cached per (module, offset
 * in it) and kernel IP, shared by the processes mapping a module: a lookup
 * repeated allocates nothing.
 *
 * Ownership: pms_symtrack_new() gives the caller an object released with
 * pms_symtrack_free(); sys and info are borrowed and must outlive it; the
 * strings of a struct pms_symtrack_name are interned and live until the
 * free.
 */
#ifndef PMS_SESSION_SYMTRACK_INT_H
#define PMS_SESSION_SYMTRACK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/perfdata.h"
#include "pmuscope/record.h"
#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"

struct pms_symtrack;

struct pms_symtrack_name {
	const char *sym;     /* function, NULL when nothing names the IP */
	uint64_t off;        /* IP - function start */
	const char *dso;     /* module path, "[kernel.kallsyms]"; NULL: no mapping */
	/* perf's dso name where it is not dso's short name: a kernel module
	 * the file's build ids list, by that path (perf script's dso column);
	 * NULL: dso */
	const char *dso_name;
	const char *srcfile; /* NULL unless asked and known */
	unsigned line;
	uint64_t map_ip;     /* ip as an offset in the module (perf's map_ip) */
	bool object;         /* sym is a data object's (ELF STT_OBJECT) */
	/* strlen of sym and dso where known (a name found again), else 0 */
	uint32_t symlen, dsolen;
};

/* info: the file's header (its build ids); NULL when it has none. */
int pms_symtrack_new(struct pms_sys *sys, const struct pms_perfdata_info *info,
		     struct pms_symtrack **out);
void pms_symtrack_free(struct pms_symtrack *t);
/* A side-band record in stream order (MMAP, MMAP2, FORK, COMM; others are
 * ignored).  0, or PMS_ENOMEM. */
int pms_symtrack_record(struct pms_symtrack *t, const struct pms_record *rec);
/* ip of process pid at this point of the stream; kernel: a kernel address
 * (the sample's cpumode or the frame's context).  want_line: the source
 * file and line too (a DWARF line lookup).  Always fills out; 0. */
int pms_symtrack_code(struct pms_symtrack *t, uint32_t pid, uint64_t ip, bool kernel,
		      bool want_line, struct pms_symtrack_name *out);

/* A data address of process pid (perf's resolution of a page fault's or a
 * branch's addr): the object symbol holding it and its module; kernel
 * addresses (the top bit set) through kallsyms. */
int pms_symtrack_data(struct pms_symtrack *t, uint32_t pid, uint64_t addr,
		      struct pms_symtrack_name *out);

/* The symbolizer that names the stream's addresses (its module files'
 * DWARF: the inline stacks, session/inlpath.c); borrowed, as long as t. */
struct pms_symbolizer *symtrack_symbolizer(struct pms_symtrack *t);

/* Process pid's mappings at this point of the stream (the DWARF unwinder's
 * modules), NULL when none were seen; borrowed until the next record. */
const struct pms_maps *symtrack_maps(struct pms_symtrack *t, uint32_t pid);

/* Whether the file (info) lists, for [kernel.kallsyms], the running
 * kernel's build id (sys/kernel/notes): the rule under which its kernel IPs
 * are named from this machine's proc/kallsyms (report, script, c2c). */
struct pms_perfdata_info;
/* The build id info lists for path (a file name as its MMAPs give it),
 * NULL: none. */
const struct pms_perfdata_build_id *symtrack_listed_id(const struct pms_perfdata_info *in,
						       const char *path);
bool symtrack_kernel_here(struct pms_sys *sys, const struct pms_perfdata_info *info);
/* The per-file kernel rule (session_int.h sess_kernel_judge): a file's
 * kernel is judged once, at its first sample that may hold a kernel
 * address, from the build ids read by then.  pms_symtrack_new judges it
 * from the ids info lists at the open (a pipe file's come later, in-stream);
 * the reader of the stream gives the judgment here (here: the running
 * kernel's), kernel IPs named from then on when the kernel is visible. */
void symtrack_kernel_set(struct pms_symtrack *t, bool here);

/* The vDSO image (malloc'd, the caller's) for a recording's [vdso]
 * mappings: the running kernel's (pms_vdso_image_pick) when info lists
 * that image's build id for [vdso], or lists none and the file is of this
 * host and kernel (hostname, release, the kernel's build id where listed):
 * *fits true.  With no id listed the image is given with *fits false (a
 * mapping's MMAP2 build id may still match it).  PMS_ENOENT when the
 * listed id is another image's. */
struct pms_perfdata_info;
int symtrack_vdso_image(struct pms_sys *sys, const struct pms_perfdata_info *info, void **img,
			size_t *len, bool *fits);

#endif
