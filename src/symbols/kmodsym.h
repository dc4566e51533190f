/* Internal: perf's build-id cache directory (perfconfig.c) and a kernel
 * module's symbols from its .ko file (kmodsym.c), read as perf 6.12 reads
 * them for a module map of a recording. */
#ifndef PMS_SYMBOLS_KMODSYM_H
#define PMS_SYMBOLS_KMODSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/sys.h"

/* perf's build-id cache root (its buildid_dir) as an absolute path into
 * out: the value of buildid.dir in the one config file perf reads when
 * PERF_CONFIG names it (tools/perf/perf.c main: config_exclusive_filename),
 * else in /etc/perfconfig then $HOME/.perfconfig, the later one winning
 * (tools/perf/util/config.c perf_config_set__init, collect_config; the
 * first skipped under PERF_CONFIG_NOSYSTEM, the second under
 * PERF_CONFIG_NOGLOBAL, or when owned by another user), else
 * $HOME/.debug (util/build-id.c set_buildid_dir).  PERF_BUILDID_DIR is
 * not read: perf only sets it for the commands it starts.  A relative
 * PERF_CONFIG or buildid.dir is taken from the working directory, as perf
 * opens it.  The files are read below sys's root.  0, or PMS_ENOENT with no HOME and no
 * buildid.dir, PMS_ERANGE when the path does not fit. */
int pms_perf_buildid_dir(const struct pms_sys *sys, char *out, size_t n);

/* buildid.dir's value in a perfconfig text (len bytes, not NUL-ended): 1
 * and the value in out, 0 when the text sets none, PMS_ERANGE when it does
 * not fit.  The last setting wins; section and key names match in any
 * case (config.c get_base_var, get_value). */
int pms_perfconfig_buildid_dir(const char *text, size_t len, char *out, size_t n);

/* A module's function symbols from its ELF relocatable file. */
struct pms_kmsyms;

/* The symbols of the module a recording maps from path (its MMAP's file
 * name) as perf 6.12 loads a module dso (util/symbol.c dso__load with
 * binary_type_symtab): with id (idlen bytes, the build id the file lists
 * for path; 0: none), the build-id cache's file
 * <buildid dir>/.build-id/<xx>/<rest>[/elf] first, then path itself; a file
 * whose GNU build id is not id is not read (symbol-elf.c symsrc__init);
 * with no id, path as it is.  A path ending .gz or .xz is a compressed
 * module: each candidate is inflated (zlib) or decoded (liblzma, where
 * built with it) first, as perf decompresses a _COMP module dso's files.
 * Files are read below sys's root (perf's --symfs).
 * PMS_ENOENT when no file fits. */
int pms_kmsyms_load(const struct pms_sys *sys, const char *path, const uint8_t *id,
		    size_t idlen, struct pms_kmsyms **out);

/* Symbols of an ELF relocatable image in memory (len bytes), as
 * pms_kmsyms_load reads a file's. */
int pms_kmsyms_from_image(const void *image, size_t len, struct pms_kmsyms **out);

void pms_kmsyms_free(struct pms_kmsyms *k);

/* perf's offset of the module map (map pgoff): .text's file offset once a
 * symbol of .text is read (symbol-elf.c dso__process_kernel_symbol), else
 * 0.  perf's map_ip of an ip is ip - map start + this. */
uint64_t pms_kmsyms_pgoff(const struct pms_kmsyms *k);

/* The symbol holding map_ip (perf's symbols__find: start <= map_ip < end),
 * its offset in *off and whether it is a data object; NULL: none. */
const char *pms_kmsyms_find(const struct pms_kmsyms *k, uint64_t map_ip, uint64_t *off,
			    bool *object);

/* A kernel's module maps, each named from its .ko as perf 6.12 names a
 * module dso's IPs: one set for every naming of module IPs (a file's
 * module MMAPs in session/symtrack.c, the running kernel's in the
 * symbolizer; src/symbols/kmod.c).  Borrows sys. */
struct pms_kmods;

int pms_kmods_new(const struct pms_sys *sys, struct pms_kmods **out);
void pms_kmods_free(struct pms_kmods *m);
/* A module map [start, end) from path (its MMAP's file name: short name
 * pms_kmod_short_name), its .ko read with id (idlen bytes, 0: none) as
 * pms_kmsyms_load reads it.  0 or PMS_ENOMEM. */
int pms_kmods_add(struct pms_kmods *m, uint64_t start, uint64_t end, const char *path,
		  const uint8_t *id, size_t idlen);
/* The running kernel's module maps as perf builds them for a live session
 * (machine.c machine__create_modules): proc/modules' lines with an address
 * (symbol.c modules__parse: [address, address + size), named "[name]"),
 * each given the path of its file found below lib/modules/<osrelease>
 * (proc/sys/kernel/osrelease; machine__set_modules_path) and the build id
 * of sys/module/<name>/notes/.note.gnu.build-id (dso.c
 * dso__kernel_module_get_build_id), a .ko of another id left unread.  No
 * proc/modules: an empty set.  0 or PMS_ENOMEM. */
int pms_kmods_running(const struct pms_sys *sys, struct pms_kmods **out);
/* proc/modules' text (NUL-ended, changed in place) added to m as
 * pms_kmods_running reads it (a line without a non-zero address left
 * out; ids from m's sys, none without one); 0 or PMS_ENOMEM. */
int pms_kmods_parse(struct pms_kmods *m, char *text);
/* The index of the first map holding ip, -1: none. */
long pms_kmods_at(const struct pms_kmods *m, uint64_t ip);
const char *pms_kmods_name(const struct pms_kmods *m, size_t i);
uint64_t pms_kmods_start(const struct pms_kmods *m, size_t i);
/* Map i's .ko symbols, read at the first call; NULL when no file fits. */
const struct pms_kmsyms *pms_kmods_syms(struct pms_kmods *m, size_t i);
/* ip named from the .ko of the module map holding it: 1 and *sym, *off,
 * *object; 0: its .ko has no symbol there (perf: [unknown] in the module);
 * -1: no map holds ip or its .ko was not found (kallsyms may name it).
 * *mod: the map's short name (0 and 1). */
int pms_kmods_lookup(struct pms_kmods *m, uint64_t ip, const char **mod, const char **sym,
		     uint64_t *off, bool *object);

/* The symbolizer's module maps (symbolizer.c): m (borrowed, NULL: none)
 * names its kernel IPs in modules before kallsyms does; without a call the
 * running kernel's (pms_kmods_running), read at the first kernel lookup. */
struct pms_symbolizer;
void pms_symbolizer_set_kmods(struct pms_symbolizer *s, struct pms_kmods *m);

/* The GNU build id note in the ELF notes file relpath below sys's root
 * (sys/kernel/notes, sys/module/<name>/notes/.note.gnu.build-id): id gets
 * *len (<= 20) bytes.  PMS_ENOENT when unreadable or without one
 * (buildid.c). */
int pms_notes_build_id(const struct pms_sys *sys, const char *relpath, uint8_t id[20],
		       size_t *len);

#endif
