/* Allocation tracking in the CLI (tools/alloc_render.h): the preload's
 * environment for a started command; the section itself is the library's
 * (pms_render_alloc_*). */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_render.h"
#include "pmuscope/error.h"

/* The preload: beside this binary in a build tree, else where it installs. */
static bool preload_path(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			int w = snprintf(buf, len, "%s/src/alloc/preload/libpmuscope-alloc.so", exe);
			if (w > 0 && (size_t)w < len && access(buf, R_OK) == 0)
				return true;
		}
	}
#ifdef PMS_ALLOC_PRELOAD_INSTALLED
	snprintf(buf, len, "%s", PMS_ALLOC_PRELOAD_INSTALLED);
	if (access(buf, R_OK) == 0)
		return true;
#endif
	return false;
}

/* argv0 through PATH as execvp finds it. */
static bool find_exec(const char *argv0, char *buf, size_t len)
{
	if (strchr(argv0, '/')) {
		int w = snprintf(buf, len, "%s", argv0);
		return w > 0 && (size_t)w < len && access(buf, X_OK) == 0;
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		int w = snprintf(buf, len, "%.*s/%s", (int)l, l ? p : ".", argv0);
		if (w > 0 && (size_t)w < len && access(buf, X_OK) == 0)
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

/* 1 when the ELF file has no program interpreter (static), 0 when it has
 * one, -1 when it is no 64-bit ELF (a script: its interpreter is dynamic). */
static int elf_static(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	Elf64_Ehdr eh;
	int rc = -1;
	if (fread(&eh, sizeof(eh), 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		rc = 1;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (fseek(f, (long)(eh.e_phoff + i * sizeof(ph)), SEEK_SET) != 0 ||
			    fread(&ph, sizeof(ph), 1, f) != 1)
				break;
			if (ph.p_type == PT_INTERP)
				rc = 0;
		}
	}
	fclose(f);
	return rc;
}

int alloc_cli_prepare(struct alloc_cli *a, char *const *argv)
{
	char pre[PATH_MAX], exe[PATH_MAX];
	a->fd = -1;
	if (!preload_path(pre, sizeof(pre))) {
		snprintf(a->why, sizeof(a->why),
			 "allocations are not tracked: libpmuscope-alloc.so is neither beside "
			 "this pmuscope nor installed");
		return 0;
	}
	if (find_exec(argv[0], exe, sizeof(exe)) && elf_static(exe) == 1) {
		snprintf(a->why, sizeof(a->why),
			 "allocations are not tracked: %s is statically linked (LD_PRELOAD "
			 "cannot reach it); link it dynamically to see its allocation sites",
			 argv[0]);
		return 0;
	}
	unsigned long ino = 0;
	int fd = pms_alloc_channel_open(&ino);
	if (fd < 0) {
		fprintf(stderr, "pmuscope: mem: allocation tracking: %s\n", pms_error_last());
		return -1;
	}
	char env[160];
	snprintf(env, sizeof(env), "fd=%d,ino=%lu,rate=%" PRIu64 ",threshold=%" PRIu64, fd, ino,
		 a->rate, a->threshold);
	const char *old = getenv("LD_PRELOAD");
	a->had_preload = old != NULL;
	a->saved_preload = old ? strdup(old) : NULL;
	/* first, so that a preloaded allocator (jemalloc, tcmalloc) is what
	 * the hooks call through */
	size_t l = strlen(pre) + (old ? strlen(old) + 2 : 1);
	char *lp = malloc(l);
	if (!lp || (a->had_preload && !a->saved_preload)) {
		free(lp);
		close(fd);
		fprintf(stderr, "pmuscope: mem: out of memory\n");
		return -1;
	}
	snprintf(lp, l, old && *old ? "%s:%s" : "%s", pre, old ? old : "");
	setenv("LD_PRELOAD", lp, 1);
	setenv("PMUSCOPE_ALLOC", env, 1);
	free(lp);
	/* an AddressSanitizer build of the command refuses to start when a
	 * preloaded library comes before its runtime; with the check off it
	 * runs, its allocator under the hooks (RTLD_NEXT finds it) */
	const char *asan = getenv("ASAN_OPTIONS");
	a->had_asan = asan != NULL;
	a->saved_asan = asan ? strdup(asan) : NULL;
	size_t al = (asan ? strlen(asan) : 0) + 32;
	char *ao = malloc(al);
	if (ao) {
		snprintf(ao, al, "%s%sverify_asan_link_order=0", asan ? asan : "",
			 asan && *asan ? ":" : "");
		setenv("ASAN_OPTIONS", ao, 1);
		a->set_asan = true;
		free(ao);
	}
	a->fd = fd;
	return 0;
}

void alloc_cli_restore(struct alloc_cli *a)
{
	if (a->fd < 0 && !a->saved_preload)
		return;
	unsetenv("PMUSCOPE_ALLOC");
	if (a->had_preload && a->saved_preload)
		setenv("LD_PRELOAD", a->saved_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	if (a->set_asan) {
		if (a->had_asan && a->saved_asan)
			setenv("ASAN_OPTIONS", a->saved_asan, 1);
		else
			unsetenv("ASAN_OPTIONS");
	}
}

void alloc_cli_done(struct alloc_cli *a)
{
	free(a->folded);
	a->folded = NULL;
	free(a->saved_preload);
	a->saved_preload = NULL;
	free(a->saved_asan);
	a->saved_asan = NULL;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}

int alloc_export_prepare(struct alloc_cli *a, struct mem_export *x)
{
	struct pms_render_alloc v;
	if (!a->ar || !a->rep || a->ar->nsample_site != a->rep->nall)
		return 0;
	x->ar = a->ar;
	alloc_cli_view(a, &v);
	if (x->folded_alloc && !a->folded) {
		if (pms_render_alloc_folded(&v, &a->folded, &a->folded_len) < 0) {
			fprintf(stderr, "pmuscope: mem: the allocation sites' exports: out of memory\n");
			return -1;
		}
		x->alloc_folded = a->folded;
		x->alloc_folded_len = a->folded_len;
	}
	return 0;
}

void alloc_cli_view(const struct alloc_cli *a, struct pms_render_alloc *v)
{
	*v = (struct pms_render_alloc){ .want = a->want, .rate = a->rate,
					.threshold = a->threshold, .why = a->why, .ar = a->ar,
					.rep = a->rep, .samples = a->samples, .top = a->top };
}
