/* Code and data addresses -> names: elfutils libdwfl for user-space modules
 * (fed the mappings as /proc/PID/maps text, so it computes load biases
 * itself), /proc/kallsyms for the kernel.  file:line comes from the
 * project's .debug_line reader (dwline.c: libdw would inflate all of a
 * file's compressed DWARF first), from libdw where that reader says it
 * cannot answer as libdw would. */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuscope/symbols.h"
#include "symbols/cuidx.h"
#include "symbols/dwline.h"
#include "symbols/kallsyms.h"
#include "symbols/kmodsym.h"
#include "symbols/symbols_int.h"
#include "util/error.h"

#ifdef PMS_HAVE_LIBIBERTY
/* GNU libiberty's demangler (binutils, gdb and perf's own fallback use it):
 * Itanium C++ ABI (_Z...) and Rust (legacy _ZN...17h<hash>E and v0 _R...)
 * names; the hash of a legacy Rust name is dropped as rustfilt does. */
#include <libiberty/demangle.h>
#endif

/* A module's symbol table sorted by address, built at its first lookup:
 * dwfl_module_addrinfo scans the whole table on every call (thousands of
 * symbols per lookup), a binary search here does not. */
struct msym {
	uint64_t addr, size;
	const char *name; /* libdwfl's string, lives as long as the Dwfl */
	unsigned idx;       /* index in the table: libdwfl keeps the first of equals */
	unsigned shndx;     /* its section (a sizeless one names only its own section) */
	unsigned char bind; /* 2 global, 1 weak, 0 local */
	unsigned char type; /* STT_* */
	bool psized;        /* a size as perf sees it (its fixup_end: below) */
};

struct msec {
	uint64_t lo, hi; /* module address range (bias applied) */
	unsigned idx;
};

/* An allocated section of a module's main ELF file (data naming). */
struct asec {
	uint64_t lo, hi; /* address range, bias applied */
	const char *name; /* libelf's string, lives as long as the Dwfl */
};

struct modsyms {
	Dwfl_Module *mod;
	struct asec *as; /* allocated sections by address, built at the first data lookup */
	size_t nas;
	bool as_tried;
	struct msym *v; /* NULL: no table; lookups go to libdwfl */
	size_t n;
	/* Per entry k of v: the highest end of a sized entry in v[0..k]; NULL
	 * when memory ran short (the searches then walk their whole window).
	 * first_sl: the index of the first sizeless entry (n: none), so one is
	 * in v[0..k] when k >= first_sl. */
	uint64_t *maxend;
	size_t first_sl;
	struct msec *sec; /* the symbol file's sections in address order */
	size_t nsec;
	struct pms_plt plt; /* the synthesized PLT names (their strings) */
	struct pms_dwline *dl; /* NULL: file:line from libdw */
	uint64_t dl_bias;
	bool dl_tried;
	struct pms_cuidx cux; /* libdw's units by address, built at the first need */
};

struct pms_symbolizer {
	struct pms_sys *sys;
	Dwfl *dwfl;
	struct pms_maps *maps;
	struct pms_ktab kt; /* proc/kallsyms, read as far as needed */
	/* kernel modules named from their .ko (kmodsym.h): given, else the
	 * running kernel's, read at the first kernel lookup */
	struct pms_kmods *kmods, *kmods_run;
	bool kmods_set;
	/* libdwfl's callbacks, its debug-file search below sys's root (perf's
	 * --symfs: ROOT/usr/lib/debug, not the host's; dipath, NULL: the
	 * host's, libdwfl's default) */
	Dwfl_Callbacks cbs, ocbs;
	char *dipath;
	/* Demangled names, keyed by the mangled string's address (libdwfl's
	 * and kallsyms' names live as long as the symbolizer). */
	bool demangle;
	struct dm_slot {
		const char *mangled;
		char *pretty; /* NULL: not a mangled name, shown as is */
	} *dm;
	size_t dm_cap, dm_used;
	struct modsyms *mods;
	size_t nmods, last_mod;
	/* Processes with their own address space (a system-wide run):
	 * pms_symbolizer_add_process */
	struct symproc {
		pid_t pid;
		Dwfl *dwfl;
		struct pms_maps *maps;
	} *procs;
	size_t nprocs, last_proc;
	struct pms_vdso_img vdso; /* names [vdso] mappings (vdso.c) */
	/* Module files' DWARF by path (pms_sym_dwfile), never dropped with
	 * an address space; each allocated alone: the handles given stay put */
	struct dwfile {
		char *full; /* the path below the root */
		Dwfl *dwfl;
		struct pms_sym_dwfile f;
		bool none;
	} **files;
	size_t nfiles, last_file;
};

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = pms_sym_find_elf, /* dwfl_linux_proc_find_elf's, [vdso] from memory (vdso.c) */
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* A module file by itself (pms_sym_dwfile): its debug file found as above. */
static const Dwfl_Callbacks offline_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

char *pms_sym_demangle(const char *name)
{
#ifdef PMS_HAVE_LIBIBERTY
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
#else
	(void)name;
	return NULL;
#endif
}

static size_t dm_hash(const char *p, size_t cap)
{
	uint64_t k = (uint64_t)(uintptr_t)p;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

/* The demangled form of name (cached), or name itself when it is not a
 * mangled name, demangling is off or there is no memory for the cache. */
static const char *demangled(struct pms_symbolizer *s, const char *name)
{
#ifdef PMS_HAVE_LIBIBERTY
	if (!name || !s->demangle || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	if (s->dm_used * 2 >= s->dm_cap) {
		size_t cap = s->dm_cap ? s->dm_cap * 2 : 256;
		struct dm_slot *n = calloc(cap, sizeof(*n));
		if (!n)
			return name;
		for (size_t i = 0; i < s->dm_cap; i++) {
			if (!s->dm[i].mangled)
				continue;
			size_t h = dm_hash(s->dm[i].mangled, cap);
			while (n[h].mangled)
				h = (h + 1) & (cap - 1);
			n[h] = s->dm[i];
		}
		free(s->dm);
		s->dm = n;
		s->dm_cap = cap;
	}
	size_t h = dm_hash(name, s->dm_cap);
	while (s->dm[h].mangled && s->dm[h].mangled != name)
		h = (h + 1) & (s->dm_cap - 1);
	if (!s->dm[h].mangled) {
		s->dm[h].mangled = name;
		s->dm[h].pretty = pms_sym_demangle(name);
		s->dm_used++;
	}
	return s->dm[h].pretty ? s->dm[h].pretty : name;
#else
	(void)s;
	return name;
#endif
}

void pms_symbolizer_set_demangle(struct pms_symbolizer *s, bool on)
{
	if (s)
		s->demangle = on;
}

bool pms_symbolizer_demangles(const struct pms_symbolizer *s)
{
#ifdef PMS_HAVE_LIBIBERTY
	return s && s->demangle;
#else
	(void)s;
	return false;
#endif
}

/* The file-backed mappings as maps text, paths below sys's root. */
char *pms_sym_maps_text(const struct pms_maps *m, const char *root, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);
	if (!f)
		return NULL;
	bool prefix = root && strcmp(root, "/") != 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct pms_map *p = &m->v[i];
		size_t pl = strlen(p->path);
		if (p->kind != PMS_MAP_FILE || p->path[0] != '/' ||
		    (pl > 10 && !strcmp(p->path + pl - 10, " (deleted)")))
			continue;
		fprintf(f, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64 " 00:01 %" PRIu64 " %s%s\n",
			p->start, p->end, p->exec ? "r-xp" : "r--p", p->pgoff, p->ino ? p->ino : 1,
			prefix ? root : "", p->path);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	*len = sz;
	return buf;
}

/* One address space: a copy of maps and a Dwfl fed them.  *dout, when
 * not NULL, is a Dwfl of the same process reported to again rather than a
 * new one: libdwfl keeps a module reported again at its name and range
 * with what it opened (its ELF, its debug file; dwfl_report_begin,
 * libdwfl.h) and ends the others, so a mapping change opens the new files
 * alone (libc's debug file once per process, not once per change).  What
 * can fail is done before the report: on an error *dout is as it was. */
static int space_new(struct pms_sys *sys, const Dwfl_Callbacks *cbs, const struct pms_maps *maps,
		     struct pms_vdso_img *vdso, struct pms_maps **mout, Dwfl **dout)
{
	struct pms_maps *m = NULL;
	Dwfl *d = NULL;
	FILE *f = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc = pms_maps_new(&m);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < maps->n; i++) {
		const struct pms_map *p = &maps->v[i];
		rc = pms_maps_add(m, p->start, p->end - p->start, p->pgoff, p->ino, p->exec,
				  p->path);
		if (rc < 0)
			goto out;
	}
	text = pms_sym_maps_text(m, pms_sys_root(sys), &len);
	if (!text) {
		rc = pms_err(PMS_ENOMEM, "symbolizer: no memory for the maps text");
		goto out;
	}
	if (len && !(f = fmemopen(text, len, "r"))) {
		rc = pms_err(PMS_ENOMEM, "symbolizer: fmemopen");
		goto out;
	}
	if (!*dout && !(d = dwfl_begin(cbs))) {
		rc = pms_err(PMS_ENOMEM, "symbolizer: dwfl_begin: %s", dwfl_errmsg(-1));
		goto out;
	}
	Dwfl *r = *dout ? *dout : d;
	dwfl_report_begin(r);
	/* A module that cannot be opened is simply not reported; lookups in
	 * it then say "no symbol" rather than failing the report. */
	if (f)
		(void)dwfl_linux_proc_maps_report(r, f);
	pms_vdso_report(r, m, vdso);
	dwfl_report_end(r, NULL, NULL);
	*mout = m;
	*dout = r;
	m = NULL;
	d = NULL;
out:
	if (f)
		fclose(f);
	free(text);
	if (d)
		dwfl_end(d);
	pms_maps_free(m);
	return rc;
}

int pms_symbolizer_new(struct pms_sys *sys, const struct pms_maps *maps,
		       struct pms_symbolizer **out)
{
	struct pms_symbolizer *s = NULL;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!sys || !maps || !out)
		return pms_err(PMS_EINVAL, "symbolizer: NULL argument");
	s = calloc(1, sizeof(*s));
	if (!s)
		return pms_err(PMS_ENOMEM, "symbolizer: no memory");
	s->sys = sys;
	pms_ktab_init(&s->kt, sys);
	s->demangle = true;
	s->cbs = dwfl_cbs;
	s->ocbs = offline_cbs;
	const char *root = pms_sys_root(sys);
	if (root && strcmp(root, "/")) {
		/* libdwfl's default path less the host's directory: the main
		 * file's directory, its .debug, then ROOT/usr/lib/debug (by
		 * build id there too) */
		size_t dl = strlen(root) + 32;
		if (!(s->dipath = malloc(dl))) {
			rc = pms_err(PMS_ENOMEM, "symbolizer: no memory");
			goto out;
		}
		snprintf(s->dipath, dl, ":.debug:%s/usr/lib/debug", root);
		s->cbs.debuginfo_path = s->ocbs.debuginfo_path = &s->dipath;
	}
	rc = space_new(sys, &s->cbs, maps, &s->vdso, &s->maps, &s->dwfl);
	if (rc < 0)
		goto out;
	*out = s;
	s = NULL;
out:
	pms_symbolizer_free(s);
	return rc;
}

static struct symproc *proc_find(struct pms_symbolizer *s, pid_t pid)
{
	if (s->last_proc < s->nprocs && s->procs[s->last_proc].pid == pid)
		return &s->procs[s->last_proc];
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid) {
			s->last_proc = i;
			return &s->procs[i];
		}
	return NULL;
}

/* The modules' sorted tables (cached by module pointer) dropped. */
static void mods_clear(struct pms_symbolizer *s)
{
	for (size_t i = 0; i < s->nmods; i++) {
		free(s->mods[i].v);
		free(s->mods[i].maxend);
		free(s->mods[i].sec);
		free(s->mods[i].as);
		pms_plt_free(&s->mods[i].plt);
		pms_dwline_free(s->mods[i].dl);
		pms_cuidx_free(&s->mods[i].cux);
	}
	s->nmods = s->last_mod = 0;
}

/* What is tied to a Dwfl about to end: the sorted tables, cached by module
 * pointer (a new Dwfl may reuse the old one's addresses), and the demangled
 * names, keyed by the mangled string's address in the old Dwfl's ELF data. */
static void dwfl_caches_drop(struct pms_symbolizer *s)
{
	mods_clear(s);
	for (size_t i = 0; i < s->dm_cap; i++)
		free(s->dm[i].pretty);
	if (s->dm_cap)
		memset(s->dm, 0, s->dm_cap * sizeof(*s->dm));
	s->dm_used = 0;
}


int pms_symbolizer_add_process(struct pms_symbolizer *s, pid_t pid, const struct pms_maps *maps)
{
	struct pms_maps *m = NULL;
	Dwfl *d = NULL;
	if (!s || !maps || pid <= 0)
		return pms_err(PMS_EINVAL, "symbolizer: add_process: NULL argument or pid %d",
			       (int)pid);
	struct symproc *p = proc_find(s, pid);
	if (p && pms_maps_equal(p->maps, maps))
		return 0; /* the same mappings (a kept symbolizer's next report) */
	if (p) {
		/* reported again into its Dwfl (space_new); the tables keyed
		 * by module pointer go with the modules it may end */
		dwfl_caches_drop(s);
		d = p->dwfl;
	}
	int rc = space_new(s->sys, &s->cbs, maps, &s->vdso, &m, &d);
	if (rc < 0)
		return rc;
	if (p) {
		pms_maps_free(p->maps);
	} else {
		struct symproc *v = realloc(s->procs, (s->nprocs + 1) * sizeof(*v));
		if (!v) {
			dwfl_end(d);
			pms_maps_free(m);
			return pms_err(PMS_ENOMEM, "symbolizer: no memory");
		}
		s->procs = v;
		p = &s->procs[s->nprocs++];
		p->pid = pid;
	}
	p->dwfl = d;
	p->maps = m;
	return 0;
}

void pms_symbolizer_free(struct pms_symbolizer *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	pms_ktab_free(&s->kt);
	pms_kmods_free(s->kmods_run);
	for (size_t i = 0; i < s->dm_cap; i++)
		free(s->dm[i].pretty);
	free(s->dm);
	mods_clear(s);
	free(s->mods);
	pms_maps_free(s->maps);
	for (size_t i = 0; i < s->nprocs; i++) {
		dwfl_end(s->procs[i].dwfl);
		pms_maps_free(s->procs[i].maps);
	}
	free(s->procs);
	pms_vdso_img_free(&s->vdso);
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i]->dwfl)
			dwfl_end(s->files[i]->dwfl);
		pms_cuidx_free(&s->files[i]->f.cux);
		free(s->files[i]->full);
		free(s->files[i]);
	}
	free(s->files);
	free(s->dipath);
	free(s);
}

/* f's file opened (libdwfl offline); f->none when it cannot be read, is
 * relocatable or has no DWARF (neither it nor a debug file for it). */
static void dwfile_open(struct dwfile *f, const Dwfl_Callbacks *cbs)
{
	GElf_Ehdr eh;
	struct pms_sym_dwfile *d = &f->f;
	f->none = true;
	if (!(f->dwfl = dwfl_begin(cbs)))
		return;
	dwfl_report_begin(f->dwfl);
	d->mod = dwfl_report_offline(f->dwfl, f->full, f->full, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!d->mod || !(d->elf = dwfl_module_getelf(d->mod, &d->mainbias)) ||
	    !gelf_getehdr(d->elf, &eh) || eh.e_type == ET_REL ||
	    !(d->dw = dwfl_module_getdwarf(d->mod, &d->dwbias)))
		return;
	f->none = false;
}

/* The file at full (a path with the root in front), opened at the first
 * question; NULL: none, or no memory. */
static struct pms_sym_dwfile *dwfile_full(struct pms_symbolizer *s, const char *full)
{
	struct dwfile *f = NULL;
	if (s->last_file < s->nfiles && !strcmp(s->files[s->last_file]->full, full))
		f = s->files[s->last_file];
	for (size_t i = 0; !f && i < s->nfiles; i++)
		if (!strcmp(s->files[i]->full, full)) {
			s->last_file = i;
			f = s->files[i];
		}
	if (!f) {
		struct dwfile **v = realloc(s->files, (s->nfiles + 1) * sizeof(*v));
		if (!v)
			return NULL;
		s->files = v;
		if (!(f = calloc(1, sizeof(*f))) || !(f->full = strdup(full))) {
			free(f);
			return NULL;
		}
		v[s->nfiles] = f;
		s->last_file = s->nfiles++;
		dwfile_open(f, &s->ocbs);
	}
	return f->none ? NULL : &f->f;
}

int pms_sym_debug_cfi(struct pms_symbolizer *s, const char *full)
{
	struct pms_sym_dwfile *f = s && full && full[0] == '/' ? dwfile_full(s, full) : NULL;
	/* the DWARF libdwfl took from a file other than the main one: the
	 * separate debug file (find_dw tries the main file first) */
	if (!f || dwarf_getelf(f->dw) == f->elf)
		return -1;
	return dwarf_getcfi(f->dw) != NULL;
}

struct pms_sym_dwfile *pms_sym_dwfile(struct pms_symbolizer *s, const char *path)
{
	char full[PATH_MAX];
	const char *root = s ? pms_sys_root(s->sys) : NULL;
	if (!s || !path || path[0] != '/' ||
	    (size_t)snprintf(full, sizeof(full), "%s%s", root && strcmp(root, "/") ? root : "",
			     path) >= sizeof(full))
		return NULL;
	return dwfile_full(s, full);
}

/* The vDSO image for [vdso] mappings: the shared space is read again with
 * it (its module tables and demangled names, keyed by the old Dwfl's
 * pointers, go). */
int pms_symbolizer_set_vdso(struct pms_symbolizer *s, const void *image, size_t len)
{
	struct pms_maps *m = NULL;
	Dwfl *d = NULL;
	if (!s || !image)
		return pms_err(PMS_EINVAL, "symbolizer: set_vdso: NULL argument");
	if (s->nprocs || s->vdso.buf)
		return pms_err(PMS_EBUSY, "symbolizer: the vDSO image is set once, before processes "
					  "are added");
	int rc = pms_vdso_img_set(&s->vdso, image, len);
	if (rc < 0)
		return rc;
	if ((rc = space_new(s->sys, &s->cbs, s->maps, &s->vdso, &m, &d)) < 0) {
		pms_vdso_img_drop(&s->vdso); /* as before: no image */
		return rc;
	}
	dwfl_caches_drop(s);
	dwfl_end(s->dwfl);
	pms_maps_free(s->maps);
	s->dwfl = d;
	s->maps = m;
	return 0;
}

int pms_symbolizer_vdso_exclude(struct pms_symbolizer *s, uint64_t start, uint64_t end)
{
	if (!s || end <= start)
		return pms_err(PMS_EINVAL, "symbolizer: vdso_exclude: NULL or an empty range");
	if (s->nprocs || s->vdso.buf)
		return pms_err(PMS_EBUSY, "symbolizer: [vdso] mappings are excluded before the image "
					  "is set and processes are added");
	return pms_vdso_img_exclude(&s->vdso, start, end);
}

int pms_symbolizer_use_running_vdso(struct pms_symbolizer *s, struct pms_sys *sys)
{
	void *img = NULL;
	size_t len = 0;
	int rc = pms_vdso_image_pick(sys, NULL, 0, true, &img, &len);
	if (rc == 0)
		rc = pms_symbolizer_set_vdso(s, img, len);
	free(img);
	return rc;
}

bool pms_kernel_addrs_visible(struct pms_sys *sys)
{
	if (!sys)
		return false;
	/* read up to the first non-zero address only: the kernel formats
	 * each line read */
	struct pms_ktab t;
	pms_ktab_init(&t, sys);
	bool v = pms_ktab_visible(&t);
	pms_ktab_free(&t);
	return v;
}

bool pms_symbolizer_kernel_visible(struct pms_symbolizer *s)
{
	return s && pms_ktab_visible(&s->kt);
}

void pms_symbolizer_set_kmods(struct pms_symbolizer *s, struct pms_kmods *m)
{
	s->kmods = m;
	s->kmods_set = true;
}

static int kernel_lookup(struct pms_symbolizer *s, uint64_t ip, struct pms_symbol *out)
{
	out->kernel = true;
	out->module = "[kernel]";
	/* a module's IP: its .ko names it (kmodsym.h), else kallsyms' lines */
	const char *mod = NULL, *sym = NULL;
	if (!s->kmods_set) {
		s->kmods_set = true;
		if (pms_kmods_running(s->sys, &s->kmods_run) < 0)
			pms_error_clear();
		s->kmods = s->kmods_run;
	}
	int km = pms_kmods_lookup(s->kmods, ip, &mod, &sym, &out->offset, &out->object);
	if (km >= 0) {
		out->module = mod;
		if (!km)
			return pms_err(PMS_ENOENT, "no symbol of %s for this address", mod);
		out->func = demangled(s, sym);
		return 0;
	}
	const struct ksym *k = pms_ktab_visible(&s->kt) ? pms_ktab_find(&s->kt, ip) : NULL;
	if (!k)
		return pms_err(PMS_ENOENT, "no kernel symbol for this address%s",
			       s->kt.visible ? "" : " (proc/kallsyms hides addresses: kptr_restrict)");
	out->func = demangled(s, k->name);
	out->offset = ip - k->addr;
	/* a module's line: its "[module]" tag, perf's dso short name */
	mod = pms_ktab_module(&s->kt, k);
	if (mod)
		out->module = mod;
	out->object = k->object;
	return 0;
}

/* The line of addr in the unit whose ranges hold it (the units' index,
 * cuidx.h).  libdw finds units through .debug_aranges, which clang does not
 * emit by default, so dwfl_module_getsrc() finds nothing in clang-built
 * binaries. */
static const char *line_by_cu_index(Dwfl_Module *mod, struct pms_cuidx *cux, Dwarf_Addr addr,
				    int *lineno)
{
	Dwarf_Addr bias = 0;
	Dwarf *dw = cux ? dwfl_module_getdwarf(mod, &bias) : NULL;
	Dwarf_Die cu;
	if (!dw || pms_cuidx_find(cux, dw, addr - bias, &cu) <= 0)
		return NULL;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, addr - bias);
	const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	return src && dwarf_lineno(l, lineno) == 0 ? src : NULL;
}

int pms_sym_dwline_open(Dwfl_Module *mod, struct pms_dwline **out, uint64_t *bias)
{
	Dwarf_Addr b = 0;
	const char *mainfile = NULL, *debugfile = NULL;
	char *found = NULL;
	*out = NULL;
	Elf *elf = dwfl_module_getelf(mod, &b);
	const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile,
					       &debugfile);
	const char *path = NULL;
	if (!elf || !mainfile)
		return pms_err(PMS_ENOENT, "symbolizer: no ELF file for module %s",
			       modname ? modname : "?");
	if (pms_dwline_elf_has_dwarf(elf)) {
		path = mainfile; /* libdwfl's find_dw takes the main file first */
	} else if (debugfile) {
		path = debugfile;
	} else {
		/* libdwfl looks for the debug file only when it needs it (its
		 * symbol table search did not): the same search it would make */
		GElf_Word crc = 0;
		Dwarf_Addr lo = 0;
		void **ud = NULL;
		const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
		(void)dwfl_module_info(mod, &ud, &lo, NULL, NULL, NULL, NULL, NULL);
		int fd = dwfl_standard_find_debuginfo(mod, ud, modname, lo, mainfile, link, crc, &found);
		if (fd >= 0)
			close(fd);
		path = found;
	}
	int rc = path ? pms_dwline_open(path, out)
		      : pms_err(PMS_ENOENT, "symbolizer: no debug file for %s", mainfile);
	free(found);
	if (rc == 0)
		*bias = b;
	return rc;
}

/* file:line of addr in mod: the .debug_line reader's answer, libdw's where
 * the reader cannot give the answer libdw would (or cannot read the file:
 * then libdw meets the same file).  One rule either way: dwline.c follows
 * dwfl_module_getsrc and the units' ranges (line_by_cu_index).  libdw reads
 * a file module's DWARF from the file's own handle (pms_sym_dwfile: once
 * per symbolizer, shared with the inline stacks), at the same link-time
 * address; a module with no file ([vdso]) its own. */
static const char *line_of(struct pms_symbolizer *s, struct modsyms *ms, Dwfl_Module *mod,
			   uint64_t addr, int *lineno)
{
	if (ms && !ms->dl_tried) {
		ms->dl_tried = true;
		if (pms_sym_dwline_open(mod, &ms->dl, &ms->dl_bias) < 0)
			pms_error_clear();
	}
	if (ms && ms->dl) {
		const char *file = NULL;
		int r = pms_dwline_find(ms->dl, addr - ms->dl_bias, &file, lineno);
		if (r == PMS_DWLINE_FOUND)
			return file;
		if (r == PMS_DWLINE_NONE)
			return NULL;
	}
	Dwarf_Addr bias = 0;
	const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	struct pms_sym_dwfile *f = name && name[0] == '/' && dwfl_module_getelf(mod, &bias)
					   ? dwfile_full(s, name)
					   : NULL;
	struct pms_cuidx *cux = ms ? &ms->cux : NULL;
	if (f) {
		addr = addr - bias + f->mainbias;
		mod = f->mod;
		cux = &f->cux;
	}
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	const char *src = line ? dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL) : NULL;
	if (!src)
		src = line_by_cu_index(mod, cux, addr, lineno);
	return src;
}

/* Symbols in the file's order (perf's rb tree keeps equal starts so). */
static int msym_cmp_idx(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t lead_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

static bool syscall_alias(const char *s)
{
	return !strncmp(s, "SyS", 3) || !strncmp(s, "compat_SyS", 10);
}

/* By address, and at one address perf's choice first: perf 6.12 keeps one
 * symbol per address (tools/perf/util/symbol.c, symbols__fixup_duplicate
 * with choose_best_symbol, run after symbols__fixup_end in symbol-elf.c's
 * dso__load_sym_internal), preferring in turn: a nonzero size (after
 * fixup_end: a sizeless symbol reaches to the next one's start), a typed
 * symbol over an STT_NOTYPE one (6.12 stable), a non-weak one, a global
 * one, fewer leading underscores, the longer name, not a "SyS" name, the
 * first in the table.  An STT_GNU_IFUNC symbol has no special rank there
 * (it only marks the kept alias for PLT naming).  The table is the one
 * perf reads too: the debug file's .symtab (/usr/lib/debug/.build-id)
 * where there is one, libdwfl's choice. */
static int msym_cmp(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->psized != y->psized)
		return x->psized ? -1 : 1;
	bool xn = x->type == STT_NOTYPE, yn = y->type == STT_NOTYPE;
	if (xn != yn)
		return xn ? 1 : -1;
	if ((x->bind == 1) != (y->bind == 1))
		return x->bind == 1 ? 1 : -1;
	if ((x->bind == 2) != (y->bind == 2))
		return x->bind == 2 ? -1 : 1;
	size_t ux = lead_underscores(x->name), uy = lead_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	bool sx = syscall_alias(x->name), sy = syscall_alias(y->name);
	if (sx != sy)
		return sx ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* perf's symbols__fixup_end before its duplicate pass: a sizeless symbol
 * ends where the next one in the tree starts (the last: at the page after
 * its own), so of several sizeless aliases the last in the file gets a
 * size when a later address follows.  m->v in the file's order. */
static void mark_psized(struct modsyms *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct msym *e = &m->v[i];
		e->psized = e->size || i + 1 == m->n || m->v[i + 1].addr > e->addr;
	}
}

/* m->maxend and m->first_sl over the sorted table: what lets a search
 * back from an address stop once nothing further back can change its
 * answer (msym_find, msym_range). */
static void msym_prefix(struct modsyms *m)
{
	m->first_sl = m->n;
	m->maxend = m->n ? malloc(m->n * sizeof(*m->maxend)) : NULL;
	if (!m->maxend)
		return;
	uint64_t hi = 0;
	for (size_t k = 0; k < m->n; k++) {
		const struct msym *e = &m->v[k];
		if (e->size && e->addr + e->size > hi)
			hi = e->addr + e->size;
		if (!e->size && m->first_sl == m->n)
			m->first_sl = k;
		m->maxend[k] = hi;
	}
}

/* perf's PLT names (plt.c) added to m's table, as sized functions; left
 * out when memory runs short. */
static void add_plt(struct modsyms *m, Dwfl_Module *mod)
{
	Dwarf_Addr bias = 0;
	Elf *e = dwfl_module_getelf(mod, &bias);
	struct pms_plt_alias *al = e ? calloc(m->n ? m->n : 1, sizeof(*al)) : NULL;
	size_t na = 0;
	if (!al)
		return;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].type == STT_GNU_IFUNC)
			al[na++] = (struct pms_plt_alias){ m->v[i].addr - bias, m->v[i].name,
							   m->v[i].bind, true };
	int rc = pms_plt_synth(e, al, na, &m->plt);
	free(al);
	struct msym *v = rc == 0 && m->plt.n ? realloc(m->v, (m->n + m->plt.n) * sizeof(*v)) : NULL;
	if (!v) {
		pms_plt_free(&m->plt);
		return;
	}
	m->v = v;
	for (size_t i = 0; i < m->plt.n; i++)
		m->v[m->n++] = (struct msym){ m->plt.v[i].addr + bias, m->plt.v[i].size,
					      m->plt.v[i].name, UINT32_MAX, SHN_UNDEF, 2, STT_FUNC,
					      true };
}

/* The sorted table of mod (built once), or NULL where there is none or no
 * memory (the caller then asks libdwfl). */
static struct modsyms *mod_syms(struct pms_symbolizer *s, Dwfl_Module *mod)
{
	if (s->last_mod < s->nmods && s->mods[s->last_mod].mod == mod)
		return &s->mods[s->last_mod];
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i].mod == mod) {
			s->last_mod = i;
			return &s->mods[i];
		}
	struct modsyms *nm = realloc(s->mods, (s->nmods + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	s->mods = nm;
	struct modsyms *m = &nm[s->nmods];
	*m = (struct modsyms){ .mod = mod };
	int n = dwfl_module_getsymtab(mod);
	Elf *symelf = NULL;
	Dwarf_Addr sbias = 0;
	if (n > 1 && (m->v = malloc((size_t)n * sizeof(*m->v)))) {
		for (int i = 1; i < n; i++) {
			GElf_Sym sym;
			GElf_Addr a = 0;
			GElf_Word shndx = 0;
			Elf *e = NULL;
			Dwarf_Addr b = 0;
			const char *name = dwfl_module_getsym_info(mod, i, &sym, &a, &shndx, &e, &b);
			if (e && e != symelf && !symelf) {
				symelf = e;
				sbias = b;
			}
			int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
			/* what libdwfl's addrsym considers: defined, named code and
			 * data symbols */
			if (!name || !*name || shndx == SHN_UNDEF ||
			    (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE &&
			     type != STT_GNU_IFUNC))
				continue;
			if (e != symelf)
				shndx = SHN_UNDEF; /* another symbol file (aux table): never same_section */
			m->v[m->n++] = (struct msym){ a, sym.st_size, name, (unsigned)i, (unsigned)shndx,
						      (unsigned char)(bind == STB_GLOBAL ? 2
								      : bind == STB_WEAK ? 1 : 0),
						      (unsigned char)type, false };
		}
		add_plt(m, mod);
		qsort(m->v, m->n, sizeof(*m->v), msym_cmp_idx);
		mark_psized(m);
		qsort(m->v, m->n, sizeof(*m->v), msym_cmp);
		msym_prefix(m);
		size_t nscn = 0;
		Elf_Scn *scn = NULL;
		if (symelf && elf_getshdrnum(symelf, &nscn) == 0 && nscn &&
		    (m->sec = calloc(nscn, sizeof(*m->sec)))) {
			while ((scn = elf_nextscn(symelf, scn)) != NULL) {
				GElf_Shdr sh;
				if (gelf_getshdr(scn, &sh) && sh.sh_size && m->nsec < nscn)
					m->sec[m->nsec++] = (struct msec){ sh.sh_addr + sbias,
									   sh.sh_addr + sbias + sh.sh_size,
									   (unsigned)elf_ndxscn(scn) };
			}
		}
	}
	s->last_mod = s->nmods++;
	return m;
}

/* libdwfl's choice (dwfl_module_addrsym.c) over the sorted table: the
 * sized symbol holding addr with the highest start (perf's alias first at
 * one address: msym_cmp); else the nearest sizeless symbol that no sized
 * one ends after.  Sized symbols rarely nest, so the search
 * back for a holder stops after a few hundred entries. */
/* The first section (in the file's order, as libdwfl's same_section
 * scans) holding addr; SHN_UNDEF when none. */
static unsigned msec_of(const struct modsyms *m, uint64_t addr)
{
	for (size_t i = 0; i < m->nsec; i++)
		if (addr >= m->sec[i].lo && addr < m->sec[i].hi)
			return m->sec[i].idx;
	return SHN_UNDEF;
}

/* The number of m's entries starting at or below addr (sorted by start):
 * the index of the first one above it. */
static size_t msym_above(const struct modsyms *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct msym *msym_find(const struct modsyms *m, uint64_t addr)
{
	size_t lo = msym_above(m, addr);
	if (!lo)
		return NULL;
	const struct msym *sizeless = NULL;
	uint64_t min_label = 0;
	for (size_t k = lo, seen = 0; k-- > 0 && seen < 256; seen++) {
		const struct msym *e = &m->v[k];
		/* No sized entry at or below k holds addr: with no sizeless one
		 * there either, or with the chosen one's start passed and no end
		 * beyond it, the rest of the walk changes nothing. */
		if (m->maxend && m->maxend[k] <= addr) {
			if (!sizeless && k < m->first_sl)
				return NULL;
			if (sizeless && e->addr < sizeless->addr && m->maxend[k] <= sizeless->addr)
				break;
		}
		if (e->size && addr < e->addr + e->size) {
			/* the best bound holder at this start comes first */
			for (; k > 0 && m->v[k - 1].addr == e->addr; k--)
				if (m->v[k - 1].size && addr < m->v[k - 1].addr + m->v[k - 1].size)
					e = &m->v[k - 1];
			return e;
		}
		if (e->size && e->addr + e->size > min_label)
			min_label = e->addr + e->size;
		if (!e->size && (!sizeless || e->addr == sizeless->addr) &&
		    (e->shndx >= SHN_LORESERVE ? e->addr == addr
					       : e->shndx != SHN_UNDEF && e->shndx == msec_of(m, addr)))
			sizeless = e; /* sorted: the last taken at one start is perf's */
	}
	return sizeless && sizeless->addr >= min_label ? sizeless : NULL;
}

/* Around addr, the addresses [*plo, *phi) where msym_find's answer is
 * the one it gives for addr: the same entries at or below (the same
 * run between two starts), each sized entry of its window holding all
 * of them or none, no sizeless absolute entry starting inside but at
 * addr, and the same sections holding them (msec_of).  Narrower than
 * the true run at times, never wider. */
static void msym_range(const struct modsyms *m, uint64_t addr, uint64_t *plo, uint64_t *phi)
{
	size_t lo = msym_above(m, addr);
	uint64_t L = lo ? m->v[lo - 1].addr : 0, H = lo < m->n ? m->v[lo].addr : UINT64_MAX;
	/* msym_find's window, and the entries sharing its last start (its
	 * search for the best holder at one start goes on through them) */
	size_t kmin = lo > 256 ? lo - 256 : 0;
	while (kmin > 0 && m->v[kmin - 1].addr == m->v[kmin].addr)
		kmin--;
	for (size_t k = lo; k-- > kmin;) {
		const struct msym *e = &m->v[k];
		/* every end at or below k already at or below L, and no sizeless
		 * entry there: nothing further back moves L or H */
		if (m->maxend && m->maxend[k] <= L && k < m->first_sl)
			break;
		if (e->size) {
			uint64_t end = e->addr + e->size;
			if (end > addr)
				H = end < H ? end : H;
			else
				L = end > L ? end : L;
		} else if (e->shndx >= SHN_LORESERVE) {
			if (e->addr == addr) {
				L = addr;
				H = addr + 1;
			} else {
				L = e->addr + 1 > L ? e->addr + 1 : L;
			}
		}
	}
	for (size_t i = 0; i < m->nsec; i++) {
		const struct msec *c = &m->sec[i];
		if (addr >= c->lo && addr < c->hi) {
			L = c->lo > L ? c->lo : L;
			H = c->hi < H ? c->hi : H;
		} else if (c->hi <= addr) {
			L = c->hi > L ? c->hi : L;
		} else {
			H = c->lo < H ? c->lo : H;
		}
	}
	*plo = L;
	*phi = H;
}

/* Data naming: the STT_OBJECT symbol whose [value, value + size) holds
 * addr (the best bound one at its start, as msym_find); never a
 * function's, never the nearest one before it. */
static const struct msym *msym_object(const struct modsyms *m, uint64_t addr)
{
	size_t lo = msym_above(m, addr);
	const struct msym *best = NULL;
	for (size_t k = lo, seen = 0; k-- > 0 && seen < 256; seen++) {
		const struct msym *e = &m->v[k];
		if (best && e->addr != best->addr)
			break;
		if (e->type == STT_OBJECT && e->size && addr < e->addr + e->size)
			best = e; /* going back at one start: a better bound one */
	}
	return best;
}

/* code: the nearest symbol names it (libdwfl's rule); else only a symbol
 * holding it.  want_line: also the source file and line. */
static int dwfl_lookup(struct pms_symbolizer *s, const struct symproc *sp, uint64_t addr,
		       bool code, bool want_line, struct pms_symbol *out, uint64_t *rlo,
		       uint64_t *rhi)
{
	const struct pms_map *m = pms_maps_find(sp ? sp->maps : s->maps, addr);
	if (m)
		out->module = m->path;
	Dwfl_Module *mod = dwfl_addrmodule(sp ? sp->dwfl : s->dwfl, addr);
	if (!mod)
		return pms_err(PMS_ENOENT, "no module maps 0x%" PRIx64, addr);
	const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!out->module && mname)
		out->module = mname;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = NULL;
	struct modsyms *ms = mod_syms(s, mod);
	if (ms && ms->v) {
		const struct msym *e = code ? msym_find(ms, addr) : msym_object(ms, addr);
		memset(&sym, 0, sizeof(sym));
		if (code && rlo) {
			Dwarf_Addr mlo = 0, mhi = 0;
			msym_range(ms, addr, rlo, rhi);
			/* within the module: beyond it another one answers */
			if (dwfl_module_info(mod, NULL, &mlo, &mhi, NULL, NULL, NULL, NULL) &&
			    mlo <= addr && addr < mhi) {
				*rlo = *rlo > mlo ? *rlo : mlo;
				*rhi = *rhi < mhi ? *rhi : mhi;
			} else {
				*rlo = *rhi = 0;
			}
		}
		if (e) {
			name = e->name;
			off = addr - e->addr;
			sym.st_size = e->size;
			sym.st_info = GELF_ST_INFO(STB_GLOBAL, e->type);
		}
	} else {
		name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
		if (name && !code && GELF_ST_TYPE(sym.st_info) != STT_OBJECT &&
		    GELF_ST_TYPE(sym.st_info) != STT_TLS)
			name = NULL; /* data: an object's name only */
	}
	/* For data, only an object symbol that contains the address names it; the
	 * nearest preceding one (what addrinfo falls back to) would mislabel
	 * GOT entries and relocated tables. */
	if (name && !code && (sym.st_size == 0 || off >= sym.st_size))
		name = NULL;
	if (name) {
		out->func = demangled(s, name);
		out->offset = off;
		out->object = GELF_ST_TYPE(sym.st_info) == STT_OBJECT;
	}
	if (want_line) {
		int lineno = 0;
		const char *src = line_of(s, ms, mod, addr, &lineno);
		if (src) {
			out->file = src;
			out->line = lineno;
		}
	}
	return out->func || out->file ? 0 : pms_err(PMS_ENOENT, "no symbol for 0x%" PRIx64, addr);
}

int pms_symbolizer_code(struct pms_symbolizer *s, uint64_t ip, bool kernel,
			struct pms_symbol *out)
{
	if (!s || !out)
		return pms_err(PMS_EINVAL, "symbolizer: NULL argument");
	memset(out, 0, sizeof(*out));
	if (kernel)
		return kernel_lookup(s, ip, out);
	return dwfl_lookup(s, NULL, ip, true, true, out, NULL, NULL);
}

int pms_symbolizer_code_func(struct pms_symbolizer *s, uint64_t ip, bool kernel,
			     struct pms_symbol *out)
{
	if (!s || !out)
		return pms_err(PMS_EINVAL, "symbolizer: NULL argument");
	memset(out, 0, sizeof(*out));
	if (kernel)
		return kernel_lookup(s, ip, out);
	return dwfl_lookup(s, NULL, ip, true, false, out, NULL, NULL);
}

int pms_symbolizer_code_pid(struct pms_symbolizer *s, pid_t pid, uint64_t ip, bool kernel,
			    bool want_line, struct pms_symbol *out)
{
	if (!s || !out)
		return pms_err(PMS_EINVAL, "symbolizer: NULL argument");
	memset(out, 0, sizeof(*out));
	if (kernel)
		return kernel_lookup(s, ip, out);
	return dwfl_lookup(s, pid > 0 ? proc_find(s, pid) : NULL, ip, true, want_line, out, NULL,
			   NULL);
}

int pms_sym_code_range(struct pms_symbolizer *s, pid_t pid, uint64_t ip, struct pms_symbol *out,
		       uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	memset(out, 0, sizeof(*out));
	int rc = dwfl_lookup(s, pid > 0 ? proc_find(s, pid) : NULL, ip, true, false, out, lo, hi);
	if (ip < *lo || ip >= *hi)
		*lo = *hi = 0;
	return rc;
}

int pms_symbolizer_data(struct pms_symbolizer *s, uint64_t addr, struct pms_symbol *out)
{
	return pms_symbolizer_data_pid(s, 0, addr, out);
}

int pms_symbolizer_data_pid(struct pms_symbolizer *s, pid_t pid, uint64_t addr,
			    struct pms_symbol *out)
{
	if (!s || !out)
		return pms_err(PMS_EINVAL, "symbolizer: NULL argument");
	memset(out, 0, sizeof(*out));
	const struct symproc *sp = pid > 0 ? proc_find(s, pid) : NULL;
	const struct pms_map *m = pms_maps_find(sp ? sp->maps : s->maps, addr);
	if (!m || m->kind != PMS_MAP_FILE) {
		if (m)
			out->module = m->path;
		return pms_err(PMS_ENOENT, "0x%" PRIx64 " is not in a file mapping", addr);
	}
	return dwfl_lookup(s, sp, addr, false, false, out, NULL, NULL);
}

/* dataobj.c's questions (symbols_int.h). */

Dwfl_Module *pms_sym_data_module(struct pms_symbolizer *s, pid_t pid, uint64_t lo, uint64_t hi)
{
	const struct symproc *sp = pid > 0 ? proc_find(s, pid) : NULL;
	Dwfl_Module *mod = dwfl_addrmodule(sp ? sp->dwfl : s->dwfl, lo);
	Dwarf_Addr mlo = 0, mhi = 0;
	if (!mod || !dwfl_module_info(mod, NULL, &mlo, &mhi, NULL, NULL, NULL, NULL) || lo < mlo ||
	    hi > mhi)
		return NULL; /* not this mapping's file as the symbolizer knows it */
	return mod;
}

const char *pms_sym_data_symbol(struct pms_symbolizer *s, Dwfl_Module *mod, uint64_t addr,
				uint64_t *start, uint64_t *size)
{
	struct modsyms *ms = mod_syms(s, mod);
	if (ms && ms->v) {
		const struct msym *e = msym_object(ms, addr);
		if (!e)
			return NULL;
		*start = e->addr;
		*size = e->size;
		return demangled(s, e->name);
	}
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || !sym.st_size ||
	    off >= sym.st_size)
		return NULL;
	*start = addr - off;
	*size = sym.st_size;
	return demangled(s, name);
}

static int asec_cmp(const void *a, const void *b)
{
	const struct asec *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* mod's allocated sections (the main file's headers), built once. */
static void asec_build(struct modsyms *ms)
{
	Dwarf_Addr bias = 0;
	size_t nscn = 0, shstr = 0;
	ms->as_tried = true;
	Elf *elf = dwfl_module_getelf(ms->mod, &bias);
	if (!elf || elf_getshdrnum(elf, &nscn) != 0 || !nscn || elf_getshdrstrndx(elf, &shstr) != 0 ||
	    !(ms->as = calloc(nscn, sizeof(*ms->as))))
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL && ms->nas < nscn) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size ||
		    ((sh.sh_flags & SHF_TLS) && sh.sh_type == SHT_NOBITS))
			continue; /* .tbss takes no address space of its own */
		const char *name = elf_strptr(elf, shstr, sh.sh_name);
		ms->as[ms->nas++] = (struct asec){ sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size,
						   name && *name ? name : "?" };
	}
	qsort(ms->as, ms->nas, sizeof(*ms->as), asec_cmp);
}

int pms_sym_data_section(struct pms_symbolizer *s, Dwfl_Module *mod, uint64_t addr,
			 const char **name, uint64_t *lo, uint64_t *hi)
{
	struct modsyms *ms = mod_syms(s, mod);
	if (!ms)
		return PMS_ENOMEM;
	if (!ms->as_tried)
		asec_build(ms);
	if (!ms->nas)
		return PMS_ENOENT;
	size_t a = 0, b = ms->nas; /* the first section starting above addr */
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (ms->as[mid].lo <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	if (a && addr < ms->as[a - 1].hi) {
		*name = ms->as[a - 1].name;
		*lo = ms->as[a - 1].lo;
		*hi = ms->as[a - 1].hi;
		return 1;
	}
	*name = NULL;
	*lo = a ? ms->as[a - 1].hi : 0;
	*hi = a < ms->nas ? ms->as[a].lo : UINT64_MAX;
	return 0;
}
