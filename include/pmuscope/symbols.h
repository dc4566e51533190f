/* Names for addresses: the mappings of a process (from /proc/PID/maps through
 * the seam, or from MMAP2 records), code addresses -> function and source
 * line through elfutils libdwfl (workload and shared libraries) or
 * /proc/kallsyms (kernel, only where the caller may see kernel addresses),
 * and data addresses -> the mapping and static symbol they fall in.
 *
 * Ownership: pms_maps_new() and pms_symbolizer_new() give the caller objects
 * released with pms_maps_free() / pms_symbolizer_free().  The symbolizer
 * copies the maps it is given.  Strings in a struct pms_symbol are owned by
 * the symbolizer and live until it is freed.
 */
#ifndef PMUSCOPE_SYMBOLS_H
#define PMUSCOPE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/sys.h"

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

enum pms_map_kind {
	PMS_MAP_FILE = 0, /* backed by a file */
	PMS_MAP_ANON,     /* anonymous (no name) */
	PMS_MAP_HEAP,     /* [heap] */
	PMS_MAP_STACK,    /* [stack] */
	PMS_MAP_SPECIAL,  /* [vdso], [vvar], [anon:name], ... */
};

struct pms_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;      /* file offset of start */
	uint64_t ino;
	bool exec;
	enum pms_map_kind kind;
	char *path;          /* file path or [name]; "" for anonymous */
};

struct pms_maps {
	struct pms_map *v; /* sorted by start, not overlapping */
	size_t n, cap;
};

int pms_maps_new(struct pms_maps **out);
void pms_maps_free(struct pms_maps *m);
/* Add one mapping (an MMAP2 record, or a line of maps); it replaces whatever
 * it overlaps, as a new mmap() does. */
int pms_maps_add(struct pms_maps *m, uint64_t start, uint64_t len, uint64_t pgoff,
		 uint64_t ino, bool exec, const char *path);
/* Remove [start, start + len). */
void pms_maps_remove(struct pms_maps *m, uint64_t start, uint64_t len);
/* Whether a and b list the same mappings (start, end, offset, inode, exec,
 * kind, path); false when either is NULL. */
bool pms_maps_equal(const struct pms_maps *a, const struct pms_maps *b);
/* Merge proc/PID/maps (through sys's root) into m.  PMS_ENOENT when the
 * process is gone. */
int pms_maps_read_proc(struct pms_maps *m, struct pms_sys *sys, pid_t pid);
/* Parse maps text (the /proc/PID/maps format) into m. */
int pms_maps_parse(struct pms_maps *m, const char *text);
const struct pms_map *pms_maps_find(const struct pms_maps *m, uint64_t addr);
const char *pms_map_kind_name(enum pms_map_kind k); /* "file", "anon", "heap", ... */

struct pms_symbol {
	const char *func;    /* function / object symbol, NULL if unknown */
	uint64_t offset;     /* addr - symbol start */
	const char *file;    /* source file, NULL if no line info */
	int line;            /* 0 if no line info */
	const char *module;  /* file path of the module, "[kernel]" for the kernel */
	bool kernel;
	bool object;         /* func names a data object (an ELF STT_OBJECT symbol) */
};

struct pms_symbolizer;

/* maps is copied.  Files are opened below sys's root. */
int pms_symbolizer_new(struct pms_sys *sys, const struct pms_maps *maps,
		       struct pms_symbolizer **out);
void pms_symbolizer_free(struct pms_symbolizer *s);

/* Code address -> function, source line.  Kernel addresses (kernel true) are
 * looked up in proc/kallsyms when its addresses are visible.  Returns 0,
 * PMS_ENOENT when nothing names it (out->module may still be set). */
int pms_symbolizer_code(struct pms_symbolizer *s, uint64_t ip, bool kernel,
			struct pms_symbol *out);
/* The same without the source file and line (no DWARF line lookup): for
 * naming many instructions, whose lines only a few need. */
int pms_symbolizer_code_func(struct pms_symbolizer *s, uint64_t ip, bool kernel,
			     struct pms_symbol *out);
/* Data address -> static symbol of the file mapping it falls in (func is the
 * object's name).  0, or PMS_ENOENT. */
int pms_symbolizer_data(struct pms_symbolizer *s, uint64_t addr, struct pms_symbol *out);
/* What a data address belongs to, by the truth of its mapping (the one
 * naming of data addresses: reports live and from files).  A file
 * mapping: the STT_OBJECT symbol whose [value, value + size) holds the
 * address (kind GLOBAL), else the ELF section it lies in (SEGMENT:
 * ".data", ".bss", ".rodata", ".text", ...; section NULL where it lies
 * between sections or the file cannot be read).  The anonymous mapping
 * right after a file's last one, inside its .bss: SEGMENT .bss of that
 * file.  Else [heap], [stack], [vdso]-like SPECIAL, ANON ranges, or
 * UNMAPPED.  TLS blocks and thread stacks are not told apart (no thread
 * pointer or stack pointer is known here): they are ANON (docs/mem.md). */
enum pms_dataobj_kind {
	PMS_DOBJ_UNMAPPED = 0,
	PMS_DOBJ_GLOBAL,  /* a global/static variable (ELF object symbol) */
	PMS_DOBJ_SEGMENT, /* a section of a file mapping */
	PMS_DOBJ_HEAP,
	PMS_DOBJ_STACK,
	PMS_DOBJ_ANON,
	PMS_DOBJ_SPECIAL,
};

struct pms_dataobj {
	enum pms_dataobj_kind kind;
	uint64_t start, end;  /* the object: the symbol's range, the section's
			       * part of the mapping, or the mapping; UNMAPPED:
			       * the gap between mappings */
	const char *symbol;   /* GLOBAL: the symbol's name; else NULL */
	const char *section;  /* GLOBAL and SEGMENT: the ELF section, or NULL */
	const char *module;   /* the mapping's path (the file's for .bss), "" anonymous, NULL unmapped */
};

/* Name addr of process pid (0: the symbolizer's shared address space) by
 * maps (the process's mappings, as the caller keeps them); s may be NULL
 * (no ELF reading: file mappings are SEGMENT with no section).  Strings
 * live as long as s and maps.  0, or PMS_EINVAL. */
int pms_data_object(struct pms_symbolizer *s, pid_t pid, const struct pms_maps *maps,
		    uint64_t addr, struct pms_dataobj *out);
/* "unmapped", "global", "segment", "heap", "stack", "anon", "special" */
const char *pms_dataobj_kind_name(enum pms_dataobj_kind k);
/* Its display name: the symbol; "libc.so.6 .data" (the file's base name
 * and the section, or "libc.so.6 @0x7f..." with the range's start where
 * there is no section); "[heap]", "[stack]", "[vdso]"; "[anon 0x7f0000001000]";
 * "[unmapped]".  Returns buf. */
const char *pms_dataobj_format(const struct pms_dataobj *o, char *buf, size_t size);

/* A process with its own address space (a system-wide run: each process's
 * code is named from its own mappings, not from one set for all); maps is
 * copied.  Adding a pid again replaces its mappings. */
int pms_symbolizer_add_process(struct pms_symbolizer *s, pid_t pid, const struct pms_maps *maps);
/* pms_symbolizer_code (want_line) or _code_func for an IP of process pid:
 * through its own mappings when pms_symbolizer_add_process gave them,
 * else the shared ones (pid 0: the shared ones). */
int pms_symbolizer_code_pid(struct pms_symbolizer *s, pid_t pid, uint64_t ip, bool kernel,
			    bool want_line, struct pms_symbol *out);


/* C++ and Rust names come back demangled (GNU libiberty's demangler:
 * Itanium C++ ABI, Rust legacy and v0) unless turned off here; the default
 * is on.  pms_symbolizer_demangles() says whether names really are (false
 * when off, or in a build without the demangler). */
void pms_symbolizer_set_demangle(struct pms_symbolizer *s, bool on);
bool pms_symbolizer_demangles(const struct pms_symbolizer *s);

/* Whether proc/kallsyms shows real addresses to this caller (kptr_restrict,
 * CAP_SYSLOG): when false, kernel addresses must not be shown. */
bool pms_symbolizer_kernel_visible(struct pms_symbolizer *s);
/* The same question without a symbolizer (nothing is loaded or kept): what
 * a live run may show and write (kernel IPs, kernel data addresses). */
bool pms_kernel_addrs_visible(struct pms_sys *sys);

/* The GNU build id of the ELF file at path (its NT_GNU_BUILD_ID note, read
 * with elfutils): id gets *len (<= 20) bytes.  PMS_ENOENT when the file
 * cannot be opened or has no build id, PMS_EPARSE when it is not ELF. */
int pms_elf_build_id(const char *path, uint8_t id[20], size_t *len);

/* The running kernel's GNU build id, from sys/kernel/notes (its ELF notes,
 * what `perf buildid-list -k` prints): id gets *len (<= 20) bytes.
 * PMS_ENOENT when the notes cannot be read or hold no build id. */
int pms_kernel_build_id(struct pms_sys *sys, uint8_t id[20], size_t *len);

/* The GNU build id of an ELF image in memory, as pms_elf_build_id.
 * PMS_EPARSE when it is not ELF, PMS_ENOENT when it has no build id. */
int pms_elf_image_build_id(const void *image, size_t len, uint8_t id[20], size_t *n);

/* vDSO names.  A [vdso] mapping is named from image (copied; an ELF file's
 * bytes, such as pms_sys_vdso_image's) once this is called: its .dynsym
 * names the addresses, the alias perf 6.12 prints chosen at one address
 * (__vdso_clock_gettime, not the weak clock_gettime).  Without it [vdso]
 * addresses stay unnamed.  Once, before pms_symbolizer_add_process
 * (PMS_EBUSY otherwise); the shared mappings are read again.  0, PMS_EPARSE
 * (not ELF), PMS_ENOMEM. */
int pms_symbolizer_set_vdso(struct pms_symbolizer *s, const void *image, size_t len);
/* The [vdso] mapping at [start, end) left unnamed whatever the image (a
 * merged report's file whose [vdso] the image does not fit; a mapping of
 * any other process at an overlapping range too).  Before
 * pms_symbolizer_set_vdso and pms_symbolizer_add_process (PMS_EBUSY
 * otherwise).  0, PMS_EINVAL, PMS_ENOMEM. */
int pms_symbolizer_vdso_exclude(struct pms_symbolizer *s, uint64_t start, uint64_t end);
/* A live run's symbolizer: pms_symbolizer_set_vdso with the running
 * kernel's image (the one every process of the run maps).  0 or the
 * negative code of pms_vdso_image_pick / _set_vdso. */
int pms_symbolizer_use_running_vdso(struct pms_symbolizer *s, struct pms_sys *sys);
/* The vDSO image that fits a recording's [vdso] mapping, as a malloc'd
 * copy owned by the caller: the running kernel's (pms_sys_vdso_image) when
 * the recording lists a build id for [vdso] (id, idlen: HEADER_BUILD_ID or
 * its MMAP2) and the running image has that id (else perf's build-id
 * cache's image of that id, <dir>/[vdso]/<id>/vdso below the context's
 * root, dir perf's buildid.dir from its config or $HOME/.debug, when its
 * build id is that id), or when it lists none
 * (idlen 0) and same_host says it was recorded on this host and kernel.
 * PMS_ENOENT otherwise (the addresses then stay unnamed, never misnamed);
 * PMS_ENOTLIVE on a context that is not this system.  A live run's
 * processes map the running image: pms_vdso_image_pick(sys, NULL, 0, true,
 * ...). */
int pms_vdso_image_pick(struct pms_sys *sys, const uint8_t *id, size_t idlen, bool same_host,
			void **out, size_t *len);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
