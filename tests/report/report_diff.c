#include "report_diff.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int nd;

static void u64(const char *what, uint64_t a, uint64_t b)
{
	if (a != b) {
		fprintf(stderr, "differ: %s: live %" PRIu64 ", file %" PRIu64 "\n", what, a, b);
		nd++;
	}
}

static void str(const char *what, const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b))) {
		fprintf(stderr, "differ: %s: live \"%s\", file \"%s\"\n", what, a ? a : "(null)",
			b ? b : "(null)");
		nd++;
	}
}

static void counts(const char *what, const struct pms_memreport_count *a, size_t na,
		   const struct pms_memreport_count *b, size_t nb)
{
	char w[128];
	snprintf(w, sizeof(w), "%s count", what);
	u64(w, na, nb);
	for (size_t i = 0; i < na && i < nb; i++) {
		snprintf(w, sizeof(w), "%s[%zu].name", what, i);
		str(w, a[i].name, b[i].name);
		snprintf(w, sizeof(w), "%s[%zu].samples", what, i);
		u64(w, a[i].samples, b[i].samples);
	}
}

static void sites(const char *what, const struct pms_memreport_site *a, size_t na,
		  const struct pms_memreport_site *b, size_t nb)
{
	char w[128];
	snprintf(w, sizeof(w), "%s count", what);
	u64(w, na, nb);
	for (size_t i = 0; i < na && i < nb; i++) {
#define F(f)                                                                    \
	do {                                                                    \
		snprintf(w, sizeof(w), "%s[%zu]." #f, what, i);                 \
		u64(w, (uint64_t)a[i].f, (uint64_t)b[i].f);                     \
	} while (0)
#define S(f)                                                                    \
	do {                                                                    \
		snprintf(w, sizeof(w), "%s[%zu]." #f, what, i);                 \
		str(w, a[i].f, b[i].f);                                         \
	} while (0)
		F(addr);
		F(size);
		F(kernel);
		F(addr_hidden);
		S(name);
		S(file);
		F(line);
		S(module);
		S(kind);
		F(samples);
		F(latency);
		F(weighted);
		F(resolved);
		F(remote);
		F(on_home);
#undef F
#undef S
	}
}

int pms_t_report_diff(const struct pms_memreport *a, const struct pms_memreport *b)
{
	char w[128];
	nd = 0;
#define R(f) u64(#f, (uint64_t)a->f, (uint64_t)b->f)
	R(engine);
	R(data_src_available);
	str("data_src_note", a->data_src_note, b->data_src_note);
	R(phys);
	R(kernel_visible);
	R(stats.samples);
	R(stats.lost_records);
	R(stats.lost);
	R(stats.lost_samples);
	R(stats.throttle);
	R(stats.unthrottle);
	R(stats.sideband);
	R(samples);
	R(with_addr);
	R(with_data_src);
	counts("levels", a->levels, a->nlevels, b->levels, b->nlevels);
	counts("ops", a->ops, a->nops, b->ops, b->nops);
	R(latency.n);
	R(latency.min);
	R(latency.median);
	R(latency.p90);
	R(latency.p99);
	R(latency.max);
	if (a->latency.mean != b->latency.mean) {
		fprintf(stderr, "differ: latency.mean: live %g, file %g\n", a->latency.mean,
			b->latency.mean);
		nd++;
	}
	R(home_node);
	R(on_home);
	R(elsewhere);
	R(resolved);
	R(from_phys);
	R(unresolved);
	R(st_efault);
	R(st_enoent);
	R(st_other);
	R(st_not_asked);
	R(st_gone);
	R(no_addr);
	R(nnodes);
	for (size_t i = 0; i < a->nnodes && i < b->nnodes; i++) {
		snprintf(w, sizeof(w), "node_ids[%zu]", i);
		u64(w, (uint64_t)a->node_ids[i], (uint64_t)b->node_ids[i]);
	}
	for (size_t i = 0; a->nnodes == b->nnodes && i < a->nnodes * a->nnodes; i++) {
		snprintf(w, sizeof(w), "matrix[%zu]", i);
		u64(w, a->matrix[i], b->matrix[i]);
	}
	R(matrix_cpu_unknown);
	sites("top_ips_samples", a->top_ips_samples, a->ntop_ips_samples, b->top_ips_samples,
	      b->ntop_ips_samples);
	sites("top_ips_latency", a->top_ips_latency, a->ntop_ips_latency, b->top_ips_latency,
	      b->ntop_ips_latency);
	sites("top_funcs_samples", a->top_funcs_samples, a->ntop_funcs_samples,
	      b->top_funcs_samples, b->ntop_funcs_samples);
	sites("top_funcs_latency", a->top_funcs_latency, a->ntop_funcs_latency,
	      b->top_funcs_latency, b->ntop_funcs_latency);
	sites("top_objects", a->top_objects, a->ntop_objects, b->top_objects, b->ntop_objects);
	R(nall);
	for (size_t i = 0; i < a->nall && i < b->nall; i++) {
		const struct pms_memreport_sample *x = &a->all[i], *y = &b->all[i];
		snprintf(w, sizeof(w), "all[%zu]", i);
		const struct pms_memsample *m = &x->s, *n = &y->s;
		bool same = m->valid == n->valid && m->engine == n->engine && m->ip == n->ip &&
			    m->pid == n->pid && m->tid == n->tid && m->time == n->time &&
			    m->cpu == n->cpu && m->addr == n->addr && m->phys_addr == n->phys_addr &&
			    m->data_src == n->data_src && m->weight == n->weight &&
			    m->ins_lat == n->ins_lat && m->page_size == n->page_size &&
			    m->period == n->period;
		if (!same || x->mem_node != y->mem_node ||
		    x->cpu_node != y->cpu_node || x->node_from_phys != y->node_from_phys) {
			fprintf(stderr,
				"differ: %s: live valid %#x ip %#" PRIx64 " addr %#" PRIx64
				" data_src %#" PRIx64 " weight %" PRIu64 " node %d/%d, file valid %#x ip %#" PRIx64
				" addr %#" PRIx64 " data_src %#" PRIx64 " weight %" PRIu64 " node %d/%d\n",
				w, x->s.valid, x->s.ip, x->s.addr, x->s.data_src, x->s.weight, x->mem_node,
				x->cpu_node, y->s.valid, y->s.ip, y->s.addr, y->s.data_src, y->s.weight,
				y->mem_node, y->cpu_node);
			nd++;
		}
	}
#undef R
	return nd;
}
