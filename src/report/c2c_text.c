/* `pmuscope c2c`'s text report (perf c2c report's counts, the shared-line
 * table, per line its offsets) and its CSV: include/pmuscope/c2c_text.h.
 * Written into the caller's FILE; the library prints nothing itself. */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "util/csv.h"
#include "pmuscope/c2c_text.h"
#include "pmuscope/memsample.h"
#include "report/c2c_int.h"

struct statf {
	const char *key;   /* JSON / CSV name (perf's c2c_stats field) */
	size_t off;
};
#define SF(f) { #f, offsetof(struct pms_c2c_stats, f) }
static const struct statf stat_fields[] = {
	SF(nr_entries), SF(locks), SF(load), SF(ld_uncache), SF(ld_io), SF(ld_miss), SF(ld_noadrs),
	SF(ld_fbhit), SF(ld_l1hit), SF(ld_l2hit), SF(ld_llchit), SF(lcl_hitm), SF(rmt_hitm),
	SF(tot_hitm), SF(lcl_peer), SF(rmt_peer), SF(tot_peer), SF(rmt_hit), SF(lcl_dram),
	SF(rmt_dram), SF(ld_excl), SF(ld_shared), SF(blk_data), SF(blk_addr), SF(store),
	SF(st_uncache), SF(st_noadrs), SF(st_l1hit), SF(st_l1miss), SF(st_na), SF(nomap),
	SF(noparse),
};
#define NSF (sizeof(stat_fields) / sizeof(stat_fields[0]))

size_t pms_c2c_stat_count(void)
{
	return NSF;
}

const char *pms_c2c_stat_name(size_t i)
{
	return i < NSF ? stat_fields[i].key : NULL;
}

uint64_t pms_c2c_stat_value(const struct pms_c2c_stats *s, size_t i)
{
	return i < NSF ? *(const uint64_t *)((const char *)s + stat_fields[i].off) : 0;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void nodes_text(char *buf, size_t n, const int *v, size_t k, const char *none)
{
	size_t p = 0;
	buf[0] = 0;
	for (size_t i = 0; i < k && p + 12 < n; i++)
		p += (size_t)snprintf(buf + p, n - p, "%s%d", i ? "," : "", v[i]);
	if (!k)
		snprintf(buf, n, "%s", none);
}

/* A line's allocation site: "FILE:LINE (fn <- caller)", "" none. */
static void alloc_where(const struct pms_c2c_line *l, char *buf, size_t n)
{
	buf[0] = '\0';
	if (l->alloc_site < 0)
		return;
	const char *f = l->alloc_file ? strrchr(l->alloc_file, '/') : NULL;
	char fn[160];
	snprintf(fn, sizeof(fn), "%s%s%s", l->alloc_func ? l->alloc_func : "?",
		 l->alloc_caller ? " <- " : "", l->alloc_caller ? l->alloc_caller : "");
	if (l->alloc_file)
		snprintf(buf, n, "%s:%d (%s)", f ? f + 1 : l->alloc_file, l->alloc_line, fn);
	else
		snprintf(buf, n, "%s (%s)", (l->alloc_kind_name ? l->alloc_kind_name : "?"), fn);
}

void pms_c2c_render_text(FILE *f, const struct pms_c2c_source *src, const struct pms_c2c_report *r,
			 enum pms_c2c_sort sort)
{
	const struct pms_c2c_stats *t = &r->total, *s = &r->shared;
	uint64_t llc = pms_c2c_llc_misses(t);
	fprintf(f, "pmuscope c2c: %s\n", src->what);
	fprintf(f, "engine: %s%s%s\n", pms_engine_name(r->engine), *src->label ? " - " : "", src->label);
	fprintf(f, "lines ranked by: %s\n", r->metric_label);
	if (!r->hitm_available && r->engine != PMS_ENG_NONE)
		fprintf(f, "note: %s reports no HITM; HITM counts below are 0 by construction, not "
		       "measured\n", pms_engine_name(r->engine));
	if (src->nodes_why)
		fprintf(f, "note: memory nodes unavailable: %s\n", src->nodes_why);
	fprintf(f, "line size: %d bytes%s\n\n", r->double_cl ? 128 : 64,
	       r->double_cl ? " (--double-cl: 128-byte pairs)" : "");

	fprintf(f, "Trace event information (perf c2c's counts and rules)\n");
	fprintf(f, "  Total records                     : %10" PRIu64 "\n", t->nr_entries);
	fprintf(f, "  Locked Load/Store Operations      : %10" PRIu64 "\n", t->locks);
	fprintf(f, "  Load Operations                   : %10" PRIu64 "\n", t->load);
	fprintf(f, "  Loads - uncacheable               : %10" PRIu64 "\n", t->ld_uncache);
	fprintf(f, "  Loads - IO                        : %10" PRIu64 "\n", t->ld_io);
	fprintf(f, "  Loads - Miss                      : %10" PRIu64 "\n", t->ld_miss);
	fprintf(f, "  Loads - no mapping                : %10" PRIu64 "\n", t->ld_noadrs);
	fprintf(f, "  Load Fill Buffer Hit              : %10" PRIu64 "\n", t->ld_fbhit);
	fprintf(f, "  Load L1D hit                      : %10" PRIu64 "\n", t->ld_l1hit);
	fprintf(f, "  Load L2D hit                      : %10" PRIu64 "\n", t->ld_l2hit);
	fprintf(f, "  Load LLC hit                      : %10" PRIu64 "\n", t->ld_llchit + t->lcl_hitm);
	fprintf(f, "  Load Local HITM                   : %10" PRIu64 "\n", t->lcl_hitm);
	fprintf(f, "  Load Remote HITM                  : %10" PRIu64 "\n", t->rmt_hitm);
	fprintf(f, "  Load Remote HIT                   : %10" PRIu64 "\n", t->rmt_hit);
	fprintf(f, "  Load Local DRAM                   : %10" PRIu64 "\n", t->lcl_dram);
	fprintf(f, "  Load Remote DRAM                  : %10" PRIu64 "\n", t->rmt_dram);
	fprintf(f, "  Load MESI State Exclusive         : %10" PRIu64 "\n", t->ld_excl);
	fprintf(f, "  Load MESI State Shared            : %10" PRIu64 "\n", t->ld_shared);
	fprintf(f, "  Load LLC Misses                   : %10" PRIu64 "\n", llc);
	fprintf(f, "  Load access blocked by data       : %10" PRIu64 "\n", t->blk_data);
	fprintf(f, "  Load access blocked by address    : %10" PRIu64 "\n", t->blk_addr);
	fprintf(f, "  Load HIT Local Peer               : %10" PRIu64 "\n", t->lcl_peer);
	fprintf(f, "  Load HIT Remote Peer              : %10" PRIu64 "\n", t->rmt_peer);
	fprintf(f, "  LLC Misses to Local DRAM          : %9.1f%%\n", pct(t->lcl_dram, llc));
	fprintf(f, "  LLC Misses to Remote DRAM         : %9.1f%%\n", pct(t->rmt_dram, llc));
	fprintf(f, "  LLC Misses to Remote cache (HIT)  : %9.1f%%\n", pct(t->rmt_hit, llc));
	fprintf(f, "  LLC Misses to Remote cache (HITM) : %9.1f%%\n", pct(t->rmt_hitm, llc));
	fprintf(f, "  Store Operations                  : %10" PRIu64 "\n", t->store);
	fprintf(f, "  Store - uncacheable               : %10" PRIu64 "\n", t->st_uncache);
	fprintf(f, "  Store - no mapping                : %10" PRIu64 "\n", t->st_noadrs);
	fprintf(f, "  Store L1D Hit                     : %10" PRIu64 "\n", t->st_l1hit);
	fprintf(f, "  Store L1D Miss                    : %10" PRIu64 "\n", t->st_l1miss);
	fprintf(f, "  Store No available memory level   : %10" PRIu64 "\n", t->st_na);
	fprintf(f, "  No Page Map Rejects               : %10" PRIu64 "\n", t->nomap);
	fprintf(f, "  Unable to parse data source       : %10" PRIu64 "\n", t->noparse);
	if (src->records)
		fprintf(f, "  (file: %" PRIu64 " records, %" PRIu64 " skipped%s%s; %" PRIu64 " samples lost)\n",
		       src->records, src->skipped, src->truncated ? ", data truncated" : "",
		       src->unfinished ? ", unfinished file" : "", src->lost);
	fprintf(f, "\nShared cache lines (%s)\n",
	       r->metric == PMS_C2C_SHARERS ? "touched by several threads"
	       : r->metric == PMS_C2C_SCORE ? "with HITM, peer or remote cache hits"
					    : "with HITM or peer hits");
	fprintf(f, "  Total Shared Cache Lines          : %10" PRIu64 "  (of %" PRIu64 " lines seen)\n",
	       r->nshared, r->nlines_seen);
	fprintf(f, "  Load HITs on shared lines         : %10" PRIu64 "\n", s->load);
	fprintf(f, "  Fill Buffer Hits on shared lines  : %10" PRIu64 "\n", s->ld_fbhit);
	fprintf(f, "  L1D hits on shared lines          : %10" PRIu64 "\n", s->ld_l1hit);
	fprintf(f, "  L2D hits on shared lines          : %10" PRIu64 "\n", s->ld_l2hit);
	fprintf(f, "  LLC hits on shared lines          : %10" PRIu64 "\n", s->ld_llchit + s->lcl_hitm);
	fprintf(f, "  Load hits on peer cache or nodes  : %10" PRIu64 "\n", s->lcl_peer + s->rmt_peer);
	fprintf(f, "  Locked Access on shared lines     : %10" PRIu64 "\n", s->locks);
	fprintf(f, "  Blocked Access on shared lines    : %10" PRIu64 "\n", s->blk_data + s->blk_addr);
	fprintf(f, "  Store HITs on shared lines        : %10" PRIu64 "\n", s->store);
	fprintf(f, "  Store L1D hits on shared lines    : %10" PRIu64 "\n", s->st_l1hit);
	fprintf(f, "  Store No available memory level   : %10" PRIu64 "\n", s->st_na);
	fprintf(f, "  Total Merged records              : %10" PRIu64 "\n", s->lcl_hitm + s->rmt_hitm + s->store);

	fprintf(f, "\nShared cache line table (%zu lines, metric %s, sorted by %s)\n", r->nlines,
	       r->metric_name, pms_c2c_sort_name(sort));
	if (!r->nlines) {
		fprintf(f, "  (none)\n");
		return;
	}
	fprintf(f, "  %3s %18s %7s %6s %8s %6s %6s %6s %6s %7s %6s %6s %5s %5s %5s %5s %5s %5s %5s %6s %6s %6s %6s %3s %3s  %s\n",
	       "#", "address", "pid", "node", "metric", "hitm", "lcl", "rmt", "peer", "recs",
	       "loads", "stores", "stL1h", "stL1m", "stNA", "FB", "L1", "L2", "LLC", "RmtHit",
	       "LclDrm", "RmtDrm", "cpuN", "thr", "wr", "object");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		char nodes[64], cn[64];
		nodes_text(nodes, sizeof(nodes), l->mem_nodes, l->nmem_nodes, "?");
		nodes_text(cn, sizeof(cn), l->cpu_nodes, l->ncpu_nodes, "?");
		fprintf(f, "  %3zu %#18" PRIx64 " %7u %6s %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
		       " %6" PRIu64 " %7" PRIu64 " %6" PRIu64 " %6" PRIu64 " %5" PRIu64 " %5" PRIu64
		       " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %6" PRIu64
		       " %6" PRIu64 " %6" PRIu64 " %6s %3zu %3zu  %s\n",
		       i, l->addr, l->pid, nodes, l->metric, l->st.tot_hitm, l->st.lcl_hitm,
		       l->st.rmt_hitm, l->st.tot_peer, pms_c2c_perf_records(&l->st), pms_c2c_perf_loads(&l->st), l->st.store,
		       l->st.st_l1hit, l->st.st_l1miss, l->st.st_na, l->st.ld_fbhit, l->st.ld_l1hit,
		       l->st.ld_l2hit, l->st.ld_llchit, l->st.rmt_hit, l->st.lcl_dram, l->st.rmt_dram,
		       cn, l->nthreads, l->nwriters, l->object);
	}
	fprintf(f, "\nPer line: offsets, instructions, threads (pid/tid), CPUs, latency (mean cycles)\n");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		char nodes[64];
		nodes_text(nodes, sizeof(nodes), l->mem_nodes, l->nmem_nodes, "unknown");
		fprintf(f, "  line %zu  %#" PRIx64 "  node %s  %s (%s)  %zu threads, %zu with stores\n", i,
		       l->addr, nodes, l->object, *l->object_kind ? l->object_kind : "?", l->nthreads,
		       l->nwriters);
		char aw[320];
		alloc_where(l, aw, sizeof(aw));
		if (*aw)
			fprintf(f, "    allocated at %s: %s, %" PRIu64 " of its %" PRIu64
			       " samples in tracked blocks\n",
			       aw, (l->alloc_kind_name ? l->alloc_kind_name : "?"), l->alloc_samples, l->alloc_placed);
		fprintf(f, "    %6s %18s %6s %5s %5s %5s %5s %5s %8s %8s %8s  %-24s %-22s %s\n", "offset",
		       "ip", "smpl", "loads", "strs", "lHitm", "rHitm", "peer", "lat:rHitm", "lHitm",
		       "load", "function", "source", "threads / cpus / cpu nodes");
		for (size_t k = 0; k < l->nacc; k++) {
			const struct pms_c2c_access *a = &l->acc[k];
			char where[64], th[160], cpus[64], cn[32], lat[3][16];
			if (a->file)
				snprintf(where, sizeof(where), "%s:%d", strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file, a->line);
			else
				snprintf(where, sizeof(where), "-");
			size_t p = 0;
			th[0] = 0;
			for (size_t u = 0; u < a->nthreads && p + 24 < sizeof(th); u++)
				p += (size_t)snprintf(th + p, sizeof(th) - p, "%s%u/%u", u ? "," : "",
						      a->threads[u].pid, a->threads[u].tid);
			nodes_text(cpus, sizeof(cpus), a->cpus, a->ncpus, "?");
			nodes_text(cn, sizeof(cn), a->cpu_nodes, a->ncpu_nodes, "?");
			const int li[3] = { PMS_C2C_LAT_RMT_HITM, PMS_C2C_LAT_LCL_HITM, PMS_C2C_LAT_LOAD };
			for (int q = 0; q < 3; q++) {
				const struct pms_c2c_lat *x = &a->lat[li[q]];
				if (x->n)
					snprintf(lat[q], sizeof(lat[q]), "%.0f", (double)x->sum / (double)x->n);
				else
					snprintf(lat[q], sizeof(lat[q]), "-");
			}
			fprintf(f, "    %#6x %#18" PRIx64 " %6" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64
			       " %5" PRIu64 " %5" PRIu64 " %8s %8s %8s  %-24.24s %-22.22s %s / %s / %s\n",
			       a->offset, a->ip, a->st.nr_entries, a->st.load, a->st.store, a->st.lcl_hitm,
			       a->st.rmt_hitm, a->st.tot_peer, lat[0], lat[1], lat[2], a->func, where, th,
			       cpus, cn);
		}
	}
}

void pms_c2c_render_csv(FILE *f, const struct pms_c2c_report *r)
{
	fprintf(f, "line,address,pid,mem_nodes,metric,object,offset,ip,function,file,line_no,tids,cpus,cpu_nodes,lat_mean");
	for (size_t i = 0; i < NSF; i++)
		fprintf(f, ",%s", stat_fields[i].key);
	fprintf(f, ",alloc_where\n");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct pms_c2c_line *l = &r->lines[i];
		char nodes[64];
		nodes_text(nodes, sizeof(nodes), l->mem_nodes, l->nmem_nodes, "");
		for (size_t k = 0; k < l->nacc; k++) {
			const struct pms_c2c_access *a = &l->acc[k];
			char cpus[256], cn[64];
			fprintf(f, "%zu,0x%" PRIx64 ",%u,\"%s\",%" PRIu64 ",", i, l->addr, l->pid, nodes, l->metric);
			pms_csv_field(f, l->object);
			fprintf(f, ",%u,", a->offset);
			if (a->ip_valid)
				fprintf(f, "0x%" PRIx64, a->ip);
			fputc(',', f);
			pms_csv_field(f, a->func);
			fputc(',', f);
			pms_csv_field(f, a->file);
			fprintf(f, ",%d,\"", a->file ? a->line : 0);
			for (size_t t = 0; t < a->nthreads; t++)
				fprintf(f, "%s%u/%u", t ? " " : "", a->threads[t].pid, a->threads[t].tid);
			nodes_text(cpus, sizeof(cpus), a->cpus, a->ncpus, "");
			nodes_text(cn, sizeof(cn), a->cpu_nodes, a->ncpu_nodes, "");
			fprintf(f, "\",\"%s\",\"%s\",", cpus, cn);
			if (a->lat_all.n)
				fprintf(f, "%.1f", (double)a->lat_all.sum / (double)a->lat_all.n);
			for (size_t q = 0; q < NSF; q++)
				fprintf(f, ",%" PRIu64, pms_c2c_stat_value(&a->st, q));
			char aw[320];
			alloc_where(l, aw, sizeof(aw));
			fputc(',', f);
			pms_csv_field(f, aw);
			fprintf(f, "\n");
		}
	}
}
