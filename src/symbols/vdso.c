/* Names in the vDSO: the [vdso] mapping of a process is no file libdwfl can
 * open, so the symbolizer reports it as a module of its own whose ELF is an
 * image in memory (the running kernel's, read through the seam, or one a
 * caller chose for a recording).  Its symbols are the image's .dynsym,
 * ranked at one address as every module's are (symbolizer.c's msym_cmp:
 * perf's choose_best_symbol keeps the global __vdso_clock_gettime over the
 * weak clock_gettime).
 *
 * Which image fits: perf names a recording's [vdso] from the image whose
 * build id the file lists for it (its build-id cache, or its own copy when
 * the ids agree; symbol-elf.c symsrc__init rejects a mismatching one).
 * pms_vdso_image_pick keeps that rule (the running image, else perf's
 * build-id cache, where perf's config puts it) and, where the file lists no id,
 * takes the running image only for a recording of this host and kernel
 * (perf would take its own copy whatever the file's host: a wrong name
 * is worse than none). */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/symbols.h"
#include "symbols/kmodsym.h"
#include "symbols/symbols_int.h"
#include "util/error.h"

int pms_elf_image_build_id(const void *image, size_t len, uint8_t id[20], size_t *n)
{
	const void *bid = NULL;
	if (!image || !len || !id || !n)
		return pms_err(PMS_EINVAL, "elf_image_build_id: NULL argument");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pms_err(PMS_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	/* libelf only reads a memory image opened with ELF_C_READ */
	Elf *e = elf_memory((char *)(uintptr_t)image, len);
	int rc;
	if (!e || elf_kind(e) != ELF_K_ELF) {
		rc = pms_err(PMS_EPARSE, "the image is not an ELF file");
	} else {
		ssize_t k = dwelf_elf_gnu_build_id(e, &bid);
		if (k <= 0 || !bid) {
			rc = pms_err(PMS_ENOENT, "the image has no GNU build id note");
		} else {
			*n = (size_t)k > 20 ? 20 : (size_t)k;
			memcpy(id, bid, *n);
			rc = 0;
		}
	}
	if (e)
		elf_end(e);
	return rc;
}

/* Whether image's GNU build id is id (idlen bytes; a 20-byte slot holds
 * a shorter id padded with zeros). */
static bool image_has_id(const void *img, size_t n, const uint8_t *id, size_t idlen)
{
	uint8_t rid[20];
	size_t rn = 0, m = idlen;
	if (pms_elf_image_build_id(img, n, rid, &rn) < 0) {
		pms_error_clear();
		return false;
	}
	while (m > rn && !id[m - 1])
		m--;
	return rn && m == rn && !memcmp(id, rid, rn);
}

/* perf's build-id cache entry for a [vdso] image of build id id: the file
 * <dir>/.build-id/xx/yyyy.../vdso names (perf 6.12 build-id.c
 * __dso__build_id_filename, build_id_cache__linkname; dir is perf's
 * buildid_dir: buildid.dir from its config, else $HOME/.debug,
 * pms_perf_buildid_dir), read as the [vdso]/<id>/vdso file perf record
 * puts there (build_id_cache__add) and the link points at, below the
 * context's root.  The hex is of the id's idlen bytes (build_id__sprintf). */
static int cache_image(struct pms_sys *sys, const uint8_t *id, size_t idlen, void **out,
		       size_t *len)
{
	char dir[4096], path[4352], hex[41];
	int rc;
	for (size_t i = 0; i < idlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * idlen] = 0;
	if ((rc = pms_perf_buildid_dir(sys, dir, sizeof(dir))) < 0)
		return rc;
	const char *d = dir;
	while (*d == '/')
		d++;
	int k = snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", d, hex);
	if (k < 0 || (size_t)k >= sizeof(path))
		return pms_err(PMS_ENOENT, "perf's build-id cache path is too long");
	char *b = NULL;
	size_t n = 0;
	rc = pms_sys_read_file(sys, path, &b, &n);
	if (rc < 0)
		return rc;
	*out = b;
	*len = n;
	return 0;
}

int pms_vdso_image_pick(struct pms_sys *sys, const uint8_t *id, size_t idlen, bool same_host,
			void **out, size_t *len)
{
	void *img = NULL;
	size_t n = 0;
	int rc;
	if (!sys || !out || !len || (idlen && !id) || idlen > 20)
		return pms_err(PMS_EINVAL, "vdso_image_pick: bad argument");
	*out = NULL;
	*len = 0;
	if (!idlen && !same_host)
		return pms_err(PMS_ENOENT, "the recording lists no vDSO build id and is not of this "
					   "host and kernel");
	/* perf's order (dso__load, binary_type_symtab): its build-id cache,
	 * then its own copy of the running image; either only with the
	 * recording's id (symsrc__init rejects another).  The running image
	 * is asked first: with the id equal it is the cached one's copy. */
	rc = pms_sys_vdso_image(sys, &img, &n);
	if (rc == 0 && (!idlen || image_has_id(img, n, id, idlen))) {
		*out = img;
		*len = n;
		return 0;
	}
	free(img);
	if (!idlen)
		return rc;
	pms_error_clear();
	if (cache_image(sys, id, idlen, &img, &n) == 0) {
		if (image_has_id(img, n, id, idlen)) {
			*out = img;
			*len = n;
			return 0;
		}
		free(img);
	}
	pms_error_clear();
	/* the running image's own error where it could not be read */
	return pms_err(rc < 0 ? rc : PMS_ENOENT, "%s, and perf's build-id cache has no image of the "
			   "recording's [vdso] build id", rc == PMS_ENOTLIVE ? "not a live system"
			   : rc < 0 ? "no running vDSO" : "the running vDSO's build id is not the "
							  "recording's");
}

/* symbolizer.c's side (symbols_int.h) */

int pms_vdso_img_set(struct pms_vdso_img *v, const void *image, size_t len)
{
	uint8_t id[20];
	size_t n = 0;
	if (!image || !len)
		return pms_err(PMS_EINVAL, "symbolizer: no vDSO image");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pms_err(PMS_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	Elf *e = elf_memory((char *)(uintptr_t)image, len);
	bool elf = e && elf_kind(e) == ELF_K_ELF;
	if (e)
		elf_end(e);
	if (!elf)
		return pms_err(PMS_EPARSE, "symbolizer: the vDSO image is not an ELF file");
	void *b = malloc(len);
	if (!b)
		return pms_err(PMS_ENOMEM, "symbolizer: no memory for the vDSO image");
	memcpy(b, image, len);
	free(v->buf);
	v->buf = b;
	v->len = len;
	v->idlen = pms_elf_image_build_id(b, len, id, &n) == 0 ? n : 0;
	pms_error_clear();
	memcpy(v->id, id, v->idlen);
	return 0;
}

void pms_vdso_img_drop(struct pms_vdso_img *v)
{
	free(v->buf);
	v->buf = NULL;
	v->len = v->idlen = 0;
}

void pms_vdso_img_free(struct pms_vdso_img *v)
{
	free(v->buf);
	free(v->deny);
	memset(v, 0, sizeof(*v));
}

int pms_vdso_img_exclude(struct pms_vdso_img *v, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < v->ndeny; i++)
		if (v->deny[i].start == start && v->deny[i].end == end)
			return 0;
	struct pms_vdso_range *n = realloc(v->deny, (v->ndeny + 1) * sizeof(*n));
	if (!n)
		return pms_err(PMS_ENOMEM, "symbolizer: no memory for an excluded [vdso] mapping");
	v->deny = n;
	v->deny[v->ndeny++] = (struct pms_vdso_range){ start, end };
	return 0;
}

/* Whether [start, end) is one of v's excluded mappings (a mapping of a
 * file that passes the rule at the same range as one of a file that does
 * not is left unnamed too: a wrong name is worse than none). */
static bool excluded(const struct pms_vdso_img *v, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < v->ndeny; i++)
		if (v->deny[i].start < end && start < v->deny[i].end)
			return true;
	return false;
}

void pms_vdso_report(Dwfl *d, const struct pms_maps *m, struct pms_vdso_img *v)
{
	if (!v->buf)
		return;
	for (size_t i = 0; i < m->n; i++) {
		const struct pms_map *p = &m->v[i];
		/* a mapping of another length is another image (a compat
		 * process's 32-bit vDSO, say): left unnamed */
		if (p->kind != PMS_MAP_SPECIAL || strcmp(p->path, "[vdso]") ||
		    p->end - p->start != v->len || excluded(v, p->start, p->end))
			continue;
		Dwfl_Module *mod = dwfl_report_module(d, "[vdso]", p->start, p->end);
		void **ud = NULL;
		if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) && ud)
			*ud = v; /* pms_sym_find_elf gives its ELF from the image */
	}
}

int pms_sym_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		     char **file_name, Elf **elfp)
{
	if (userdata && *userdata && modname && !strcmp(modname, "[vdso]")) {
		const struct pms_vdso_img *v = *userdata;
		*elfp = elf_memory((char *)v->buf, v->len);
		return -1;
	}
	return dwfl_linux_proc_find_elf(mod, userdata, modname, base, file_name, elfp);
}
