/* A kernel module map's name as perf 6.12 gives it (kallsyms.h), and a
 * kernel's module maps, named from their .ko files (kmodsym.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/kallsyms.h"
#include "symbols/kmodsym.h"
#include "util/error.h"
#include "util/grow.h"

/* tools/perf/util/dso.c __kmod_path__parse: a "[name]" is kept as it is;
 * a path's base name up to its last '.', stepping back over a compression
 * suffix perf 6.12 reads (gz, xz: is_supported_compression; not zst), is
 * a module when ".ko" is there, named "[base]" with '-' as '_' (strreplace);
 * any other file keeps its base name, '-' as '_'. */
void pms_kmod_short_name(const char *filename, char *out, size_t n)
{
	const char *name = strrchr(filename, '/');
	name = name ? name + 1 : filename;
	if (!n)
		return;
	if (name[0] == '[') {
		snprintf(out, n, "%s", name);
		return;
	}
	const char *ext = strrchr(name, '.');
	if (ext && (!strcmp(ext + 1, "gz") || !strcmp(ext + 1, "xz")))
		ext -= 3;
	bool kmod = ext && ext > name && !strncmp(ext, ".ko", 3);
	if (kmod)
		snprintf(out, n, "[%.*s]", (int)(ext - name), name);
	else
		snprintf(out, n, "%s", name);
	for (char *c = out; *c; c++)
		if (*c == '-')
			*c = '_';
}

/* ---- a kernel's module maps (kmodsym.h) ------------------------------------ */

struct kmap {
	uint64_t start, end;
	char name[64]; /* "[kvm]" */
	char *path;    /* NULL: none known (kallsyms names it, or nothing) */
	uint8_t id[20];
	size_t idlen;
	struct pms_kmsyms *ks;
	bool tried;
};

struct pms_kmods {
	const struct pms_sys *sys;
	struct kmap *v;
	size_t n, cap;
	char *moddir; /* lib/modules/<release>, walked at the first lookup */
};

static void modules_dir(struct pms_kmods *m, const char *relpath, int depth);

int pms_kmods_new(const struct pms_sys *sys, struct pms_kmods **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return pms_err(PMS_ENOMEM, "kernel modules: no memory");
	(*out)->sys = sys;
	return 0;
}

void pms_kmods_free(struct pms_kmods *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].path);
		pms_kmsyms_free(m->v[i].ks);
	}
	free(m->v);
	free(m->moddir);
	free(m);
}

int pms_kmods_add(struct pms_kmods *m, uint64_t start, uint64_t end, const char *path,
		  const uint8_t *id, size_t idlen)
{
	int rc = pms_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v), 8, "kernel modules");
	if (rc < 0)
		return rc;
	struct kmap *k = &m->v[m->n];
	memset(k, 0, sizeof(*k));
	if (!(k->path = strdup(path)))
		return pms_err(PMS_ENOMEM, "kernel modules: no memory");
	k->start = start;
	k->end = end;
	pms_kmod_short_name(path, k->name, sizeof(k->name));
	k->idlen = id ? (idlen < 20 ? idlen : 20) : 0;
	if (k->idlen)
		memcpy(k->id, id, k->idlen);
	m->n++;
	return 0;
}

long pms_kmods_at(const struct pms_kmods *m, uint64_t ip)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (ip >= m->v[i].start && ip < m->v[i].end)
			return (long)i;
	return -1;
}

const char *pms_kmods_name(const struct pms_kmods *m, size_t i)
{
	return m->v[i].name;
}

uint64_t pms_kmods_start(const struct pms_kmods *m, size_t i)
{
	return m->v[i].start;
}

const struct pms_kmsyms *pms_kmods_syms(struct pms_kmods *m, size_t i)
{
	struct kmap *k = &m->v[i];
	if (m->moddir) {
		/* the running kernel's: the modules' paths, once (a few
		 * thousand files on a distribution kernel) */
		modules_dir(m, m->moddir, 0);
		free(m->moddir);
		m->moddir = NULL;
	}
	if (!k->tried) {
		k->tried = true;
		if (k->path && k->path[0] != '[' &&
		    pms_kmsyms_load(m->sys, k->path, k->idlen ? k->id : NULL, k->idlen, &k->ks) < 0)
			pms_error_clear(); /* kallsyms names it, or nothing */
	}
	return k->ks;
}

int pms_kmods_lookup(struct pms_kmods *m, uint64_t ip, const char **mod, const char **sym,
		     uint64_t *off, bool *object)
{
	long i = pms_kmods_at(m, ip);
	const struct pms_kmsyms *ks = i >= 0 ? pms_kmods_syms(m, (size_t)i) : NULL;
	if (!ks)
		return -1;
	*mod = m->v[i].name;
	*sym = pms_kmsyms_find(ks, ip - m->v[i].start + pms_kmsyms_pgoff(ks), off, object);
	return *sym ? 1 : 0;
}

/* lib/modules/<release> below relpath, depth levels down: each file perf
 * takes for a module (a .ko, .ko.gz, .ko.xz: kmod short name) gives the
 * map of that name its path, a later one replacing an earlier one
 * (machine.c maps__set_modules_path_dir, maps__set_module_path); the
 * top level's "source" and "build" links are not followed. */
static void modules_dir(struct pms_kmods *m, const char *relpath, int depth)
{
	char **names = NULL;
	size_t n = 0;
	if (depth > 12 || pms_sys_list_dir(m->sys, relpath, &names, &n) < 0) {
		pms_error_clear();
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char p[4096], sn[64];
		int k = snprintf(p, sizeof(p), "%s/%s", relpath, names[i]);
		if (k < 0 || (size_t)k >= sizeof(p))
			continue;
		char **sub = NULL;
		size_t ns = 0;
		if (pms_sys_list_dir(m->sys, p, &sub, &ns) == 0) {
			pms_sys_names_free(sub, ns);
			if (!(depth == 0 && (!strcmp(names[i], "source") || !strcmp(names[i], "build"))))
				modules_dir(m, p, depth + 1);
			continue;
		}
		pms_error_clear();
		pms_kmod_short_name(names[i], sn, sizeof(sn));
		if (sn[0] != '[')
			continue; /* not a module's file */
		for (size_t j = 0; j < m->n; j++)
			if (!strcmp(m->v[j].name, sn)) {
				char *full = malloc(strlen(p) + 2);
				if (!full)
					continue;
				sprintf(full, "/%s", p);
				free(m->v[j].path);
				m->v[j].path = full;
			}
	}
	pms_sys_names_free(names, n);
}

int pms_kmods_parse(struct pms_kmods *m, char *text)
{
	int rc = 0;
	/* "name size refs deps state address": the map [address, +size)
	 * (symbol.c modules__parse; machine.c machine__create_module) */
	for (char *l = text, *nl; rc >= 0 && l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		char name[56], notes[128], path[64];
		unsigned long long size = 0, addr = 0;
		const char *x = strrchr(l, 'x');
		if (sscanf(l, "%55s %llu", name, &size) != 2 || !x ||
		    sscanf(x + 1, "%llx", &addr) != 1 || !addr || addr + size < addr)
			continue;
		/* its build id: perf's dso__kernel_module_get_build_id reads
		 * sys/module/<name>/notes/.note.gnu.build-id; the .ko of
		 * another id is not read */
		uint8_t id[20];
		size_t idlen = 0;
		snprintf(notes, sizeof(notes), "sys/module/%s/notes/.note.gnu.build-id", name);
		if (!m->sys || pms_notes_build_id(m->sys, notes, id, &idlen) < 0) {
			pms_error_clear();
			idlen = 0;
		}
		snprintf(path, sizeof(path), "[%s]", name);
		if ((rc = pms_kmods_add(m, addr, addr + size, path, id, idlen)) < 0)
			break;
		/* no file until lib/modules gives one */
		free(m->v[m->n - 1].path);
		m->v[m->n - 1].path = NULL;
	}
	return rc < 0 ? rc : 0;
}

int pms_kmods_running(const struct pms_sys *sys, struct pms_kmods **out)
{
	char *text = NULL, *rel = NULL;
	int rc = pms_kmods_new(sys, out);
	if (rc < 0)
		return rc;
	if (pms_sys_read_file(sys, "proc/modules", &text, NULL) < 0) {
		pms_error_clear();
		return 0; /* no modules */
	}
	rc = pms_kmods_parse(*out, text);
	free(text);
	if (rc >= 0 && (*out)->n && pms_sys_read_line(sys, "proc/sys/kernel/osrelease", &rel) == 0 &&
	    !((*out)->moddir = malloc(strlen(rel) + 16)))
		rc = pms_err(PMS_ENOMEM, "kernel modules: no memory");
	else if (rel)
		sprintf((*out)->moddir, "lib/modules/%s", rel);
	pms_error_clear();
	free(rel);
	if (rc < 0) {
		pms_kmods_free(*out);
		*out = NULL;
	}
	return rc < 0 ? rc : 0;
}
