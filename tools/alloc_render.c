/* Allocation tracking in the CLI (tools/alloc_render.h). */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_render.h"
#include "callpath_render.h"
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
	for (size_t i = 0; i < a->nlabels; i++)
		free(a->labels[i]);
	free(a->labels);
	a->labels = NULL;
	a->nlabels = 0;
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

static void json_frame(struct json *j, const struct pms_alloc_frame *f)
{
	cli_json_begin_object(j, NULL);
	char hex[32];
	snprintf(hex, sizeof(hex), "0x%" PRIx64, f->ip);
	cli_json_str(j, "ip", hex);
	cli_json_str(j, "function", f->func);
	cli_json_str(j, "file", f->file);
	cli_json_int(j, "line", f->line);
	cli_json_str(j, "module", f->module);
	cli_json_end_object(j);
}

void alloc_json_extra(struct json *j, const void *ud)
{
	const struct alloc_cli *a = ud;
	callpath_json_extra(j, a->paths);
	if (!a->want && !a->why[0])
		return;
	cli_json_begin_object(j, "allocation_sites");
	const struct pms_alloc_report *r = a->ar;
	cli_json_bool(j, "tracked", r != NULL);
	cli_json_str(j, "why_not", r ? NULL : a->why[0] ? a->why : "no report");
	cli_json_uint(j, "rate", a->rate);
	cli_json_uint(j, "threshold", a->threshold);
	if (r) {
		cli_json_str(j, "clock_calibration", r->calibration_why ? r->calibration_why : "ok");
		cli_json_uint(j, "records", r->stats.records);
		cli_json_uint(j, "allocations", r->stats.allocs);
		cli_json_uint(j, "sampled", r->stats.sampled);
		cli_json_uint(j, "always", r->stats.always);
		cli_json_uint(j, "frees", r->stats.frees);
		cli_json_uint(j, "processes", r->stats.processes);
		cli_json_uint(j, "samples_with_addr", r->with_addr);
		cli_json_uint(j, "samples_placed", r->placed);
		cli_json_begin_array(j, "sites");
		for (size_t i = 0; i < r->nsites; i++) {
			const struct pms_alloc_site *s = &r->sites[i];
			cli_json_begin_object(j, NULL);
			cli_json_uint(j, "samples", s->samples);
			cli_json_uint(j, "latency_total", s->latency);
			cli_json_uint(j, "latency_samples", s->weighted);
			cli_json_uint(j, "resolved", s->resolved);
			cli_json_uint(j, "remote", s->remote);
			cli_json_uint(j, "allocations", s->allocs);
			cli_json_uint(j, "bytes", s->bytes);
			cli_json_double(j, "est_bytes", s->est_bytes);
			cli_json_double(j, "est_count", s->est_count);
			cli_json_str(j, "kind", pms_alloc_kind_name(s->kind));
			cli_json_uint(j, "pid", s->pid);
			cli_json_begin_array(j, "call_path");
			for (size_t f = 0; f < s->nframes; f++)
				json_frame(j, &s->frames[f]);
			cli_json_end_array(j);
			cli_json_end_object(j);
		}
		cli_json_end_array(j);
		if (a->samples) {
			/* the site of each sample of sample_list, -1 none */
			cli_json_begin_array(j, "sample_sites");
			for (size_t i = 0; i < r->nsample_site; i++)
				cli_json_int(j, NULL, r->sample_site[i]);
			cli_json_end_array(j);
		}
	}
	cli_json_end_object(j);
}

static void text_path(const struct pms_alloc_site *s)
{
	for (size_t f = 0; f < s->nframes && f < 6; f++) {
		const struct pms_alloc_frame *fr = &s->frames[f];
		printf("%s", f ? " <- " : "");
		if (fr->func)
			printf("%s", fr->func);
		else
			printf("0x%" PRIx64, fr->ip);
		if (fr->file)
			printf(" (%s:%d)", strrchr(fr->file, '/') ? strrchr(fr->file, '/') + 1 : fr->file,
			       fr->line);
	}
	if (s->nframes > 6)
		printf(" <- ...");
	printf("\n");
}

void alloc_text_extra(const void *ud)
{
	const struct alloc_cli *a = ud;
	callpath_text_extra(a->paths);
	if (!a->want && !a->why[0])
		return;
	const struct pms_alloc_report *r = a->ar;
	if (!r) {
		printf("\n%s\n", a->why[0] ? a->why : "allocations are not tracked");
		return;
	}
	printf("\nTop allocation sites (libpmuscope-alloc.so: --alloc-rate %" PRIu64
	       " B, --alloc-threshold %" PRIu64 " B; %" PRIu64 " allocations tracked, %" PRIu64
	       " sampled by bytes; %" PRIu64 " of %" PRIu64 " samples with a data address placed)\n",
	       a->rate, a->threshold, r->stats.allocs, r->stats.sampled, r->placed, r->with_addr);
	if (r->calibration_why)
		printf("  clock: %s; times compared uncorrected\n", r->calibration_why);
	if (!r->nsites) {
		printf("  no sample fell in a tracked allocation\n");
		return;
	}
	printf("  %8s %6s %9s %7s %8s %10s %-14s %s\n", "samples", "share", "lat.mean", "remote",
	       "allocs", "est.bytes", "kind", "call path");
	size_t top = a->top ? a->top : 10;
	for (size_t i = 0; i < r->nsites && i < top; i++) {
		const struct pms_alloc_site *s = &r->sites[i];
		char lat[32] = "-", rem[32] = "-";
		if (s->weighted)
			snprintf(lat, sizeof(lat), "%.1f", (double)s->latency / (double)s->weighted);
		if (s->resolved)
			snprintf(rem, sizeof(rem), "%.1f%%",
				 100.0 * (double)s->remote / (double)s->resolved);
		printf("  %8" PRIu64 " %5.1f%% %9s %7s %8" PRIu64 " %10.0f %-14s ", s->samples,
		       r->placed ? 100.0 * (double)s->samples / (double)r->placed : 0.0, lat, rem,
		       s->allocs, s->est_bytes, pms_alloc_kind_name(s->kind));
		text_path(s);
	}
}

/* ---- sites in the other outputs (issue 28) ------------------------------ */

void alloc_site_where(const struct pms_alloc_site *s, char *buf, size_t len)
{
	size_t f = 0;
	if (!s->nframes) {
		snprintf(buf, len, "[%s]", pms_alloc_kind_name(s->kind));
		return;
	}
	while (f < s->nframes && !s->frames[f].file)
		f++;
	if (f == s->nframes)
		f = 0;
	const struct pms_alloc_frame *a = &s->frames[f];
	const char *file = a->file ? (strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file)
				   : NULL;
	char at[256];
	if (file)
		snprintf(at, sizeof(at), "%s:%d", file, a->line);
	else
		snprintf(at, sizeof(at), "0x%" PRIx64, a->ip);
	if (f + 1 < s->nframes && s->frames[f + 1].func)
		snprintf(buf, len, "%s (%.200s <- %.200s)", at, a->func ? a->func : "?",
			 s->frames[f + 1].func);
	else
		snprintf(buf, len, "%s (%.200s)", at, a->func ? a->func : "?");
}

static const struct pms_alloc_site *sample_site(const struct pms_alloc_report *r, size_t i)
{
	long k = r && i < r->nsample_site ? r->sample_site[i] : -1;
	return k >= 0 && (size_t)k < r->nsites ? &r->sites[k] : NULL;
}

void alloc_render_csv(const struct alloc_cli *a, const struct pms_memreport *r)
{
	const struct pms_alloc_report *ar = a->ar;
	if (!ar || ar->nsample_site != r->nall) {
		mem_render_csv(r);
		return;
	}
	printf("%s,alloc_site,alloc_where\n", MEM_RENDER_CSV_COLUMNS);
	char where[600];
	for (size_t i = 0; i < r->nall; i++) {
		long o = r->all[i].object;
		mem_render_csv_fields(&r->all[i], o >= 0 && (size_t)o < r->nobjects ? &r->objects[o]
										: NULL);
		const struct pms_alloc_site *s = sample_site(ar, i);
		if (!s) {
			printf(",,\n");
			continue;
		}
		alloc_site_where(s, where, sizeof(where));
		printf(",%ld,\"", ar->sample_site[i]);
		for (const char *c = where; *c; c++)
			printf(*c == '"' ? "\"\"" : "%c", *c);
		printf("\"\n");
	}
}

static int by_line(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* one frame's name in a collapsed stack: no ';', no newline */
static void folded_name(char *buf, size_t len, const struct pms_alloc_frame *f)
{
	if (f->func)
		snprintf(buf, len, "%s", f->func);
	else if (f->module && f->module[0])
		snprintf(buf, len, "[unknown] [%s]", strrchr(f->module, '/') ? strrchr(f->module, '/') + 1
									 : f->module);
	else
		snprintf(buf, len, "[unknown]");
	for (char *c = buf; *c; c++)
		if (*c == ';')
			*c = ':';
		else if (*c == '\n')
			*c = ' ';
}

static int build_folded(struct alloc_cli *a)
{
	const struct pms_alloc_report *r = a->ar;
	char **lines = calloc(r->nsites ? r->nsites : 1, sizeof(*lines));
	size_t n = 0;
	int rc = 0;
	if (!lines)
		return -1;
	for (size_t i = 0; i < r->nsites && rc == 0; i++) {
		const struct pms_alloc_site *s = &r->sites[i];
		char *line = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&line, &len);
		if (!f) {
			rc = -1;
			break;
		}
		char name[512];
		for (size_t k = s->nframes; k-- > 0;) {
			folded_name(name, sizeof(name), &s->frames[k]);
			fprintf(f, "%s;", name);
		}
		/* the leaf: the allocating call, so that one path's sites sum up */
		fprintf(f, "[%s]\t%" PRIu64, pms_alloc_kind_name(s->kind), s->samples);
		if (fclose(f) != 0 || !line) {
			free(line);
			rc = -1;
			break;
		}
		lines[n++] = line;
	}
	if (rc == 0)
		qsort(lines, n, sizeof(*lines), by_line);
	/* equal paths (sites that differ only below the names) summed */
	FILE *out = rc == 0 ? open_memstream(&a->folded, &a->folded_len) : NULL;
	for (size_t i = 0; out && i < n;) {
		char *tab = strchr(lines[i], '\t');
		*tab = 0;
		uint64_t w = strtoull(tab + 1, NULL, 10);
		size_t j = i + 1;
		for (; j < n; j++) {
			char *t2 = strchr(lines[j], '\t');
			*t2 = 0;
			bool same = !strcmp(lines[i], lines[j]);
			*t2 = '\t';
			if (!same)
				break;
			w += strtoull(t2 + 1, NULL, 10);
		}
		fprintf(out, "%s %" PRIu64 "\n", lines[i], w);
		i = j;
	}
	if (rc == 0 && (!out || fclose(out) != 0))
		rc = -1;
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return rc;
}

int alloc_export_prepare(struct alloc_cli *a, struct mem_export *x)
{
	const struct pms_alloc_report *r = a->ar;
	if (!r || !a->rep || r->nsample_site != a->rep->nall)
		return 0;
	if (x->pprof && !a->labels) {
		a->labels = calloc(r->nsample_site ? r->nsample_site : 1, sizeof(*a->labels));
		if (!a->labels)
			goto nomem;
		a->nlabels = r->nsample_site;
		char where[600];
		for (size_t i = 0; i < r->nsample_site; i++) {
			const struct pms_alloc_site *s = sample_site(r, i);
			if (!s)
				continue;
			alloc_site_where(s, where, sizeof(where));
			if (!(a->labels[i] = strdup(where)))
				goto nomem;
		}
		x->site_labels = (const char *const *)a->labels;
		x->nsite_labels = a->nlabels;
	}
	if (x->folded_alloc && !a->folded) {
		if (build_folded(a) < 0)
			goto nomem;
		x->alloc_folded = a->folded;
		x->alloc_folded_len = a->folded_len;
	}
	return 0;
nomem:
	fprintf(stderr, "pmuscope: mem: the allocation sites' exports: out of memory\n");
	return -1;
}
