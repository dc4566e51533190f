/* Data types and struct members of memory accesses (issue 29): which type
 * and which member a sampled access touched, from the binary's DWARF.
 *
 * Globals and TLS: the data address (or the instruction's RIP-relative /
 * %fs operand) minus the DWARF variable's start gives the member, through
 * nested structs, arrays and unions.  Heap and stack: the instruction at the
 * IP is decoded (capstone; x86-64, aarch64), its memory operand's base
 * register is matched against the DWARF variables located in that register
 * at the IP (location lists), or against the frame base / CFA (stack
 * variables), or against the type a register was given by the instructions
 * before it in the function (loads from typed stack slots, members and
 * globals); the member comes from the displacement.
 *
 * Ownership: pms_typeres_new() gives the caller a resolver released with
 * pms_typeres_free(); the strings of a struct pms_type_hit are owned by the
 * resolver and live until it is freed.  pms_typeprof_new() likewise; the
 * rows it gives are borrowed until pms_typeprof_free().
 */
#ifndef PMUSCOPE_TYPES_H
#define PMUSCOPE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

/* Why a sample has (no) type, in the order the resolver asks. */
enum pms_type_status {
	PMS_TYPE_OK = 0,
	PMS_TYPE_NO_BINARY,  /* no file maps the IP (or it cannot be read) */
	PMS_TYPE_NO_DEBUG,   /* the binary has no DWARF */
	PMS_TYPE_NO_INSN,    /* the bytes at the IP do not decode */
	PMS_TYPE_NO_MEMOP,   /* the instruction has no memory operand */
	PMS_TYPE_NO_SCOPE,   /* no DWARF function covers the IP */
	PMS_TYPE_NO_VAR,     /* no variable is in the base register (no location) */
	PMS_TYPE_OPTIMIZED,  /* the variable has no location at this IP */
	PMS_TYPE_NOT_PTR,    /* the variable found is not a pointer / object */
	PMS_TYPE_BAD_OFFSET, /* the offset falls outside the type */
	PMS_TYPE_KERNEL,     /* a kernel IP (no vmlinux debug info given) */
	PMS_TYPE__COUNT
};

/* Where the type came from. */
enum pms_type_via {
	PMS_TYPE_VIA_NONE = 0,
	PMS_TYPE_VIA_GLOBAL,  /* a static variable: address - start */
	PMS_TYPE_VIA_TLS,     /* a thread-local variable */
	PMS_TYPE_VIA_REG,     /* a pointer variable located in the base register */
	PMS_TYPE_VIA_STACK,   /* a stack variable (frame base / CFA) */
	PMS_TYPE_VIA_TRACK,   /* the register's type from earlier instructions */
	PMS_TYPE_VIA__COUNT
};

struct pms_type_hit {
	enum pms_type_status status;
	enum pms_type_via via;
	const char *type;     /* "struct rec", "int", ... (NULL unless OK) */
	uint64_t type_size;   /* bytes */
	int64_t offset;       /* byte offset of the access within the type */
	const char *member;   /* "a.b[3].c"; "" for the whole type */
	uint64_t member_offset; /* offset of that member within the type */
	uint64_t member_size;
	const char *var;      /* the variable it was found through (may be "") */
	bool store;           /* the operand is written (x86 / aarch64 decode) */
};

const char *pms_type_status_name(enum pms_type_status s); /* "no-debug", ... */
const char *pms_type_via_name(enum pms_type_via v);       /* "global", ... */

/* The sort keys perf names (perf report -s type,typeoff,typecln), for one
 * sample's hit, in perf 6.12's text: "struct rec", "struct rec +0x18 (a.b)"
 * (the member stops at the first array, as perf's does; the hit's member
 * names the element), "struct rec: cache-line 0"; an unresolved hit
 * "(unknown)", "(unknown) +0 (no field)", "(unknown): cache-line 0".
 * Returns what snprintf returns. */
enum pms_type_key { PMS_TYPE_KEY_TYPE = 0, PMS_TYPE_KEY_TYPEOFF, PMS_TYPE_KEY_TYPECLN };
int pms_type_hit_key(const struct pms_type_hit *h, enum pms_type_key key, char *buf,
		     size_t len);

struct pms_typeres;
int pms_typeres_new(struct pms_typeres **out);
void pms_typeres_free(struct pms_typeres *r);

/* One access: path is the binary mapping the IP, bias its load bias
 * (runtime address - link-time address; 0 for a non-PIE executable), ip the
 * runtime IP, addr the data address when has_addr (globals of the same
 * binary are found by it).  Results are cached per (binary, IP).  0 with
 * out->status saying what was found (PMS_TYPE_OK or the reason), or a
 * negative PMS_E* (allocation failure). */
int pms_typeres_lookup(struct pms_typeres *r, const char *path, uint64_t bias, uint64_t ip,
		       uint64_t addr, bool has_addr, struct pms_type_hit *out);

/* The type an allocation's call site gives its result (C++ `new T`, a
 * malloc whose result a typed pointer takes): ret_ip is the call's return
 * address (runtime; the caller's frame of the allocation's call path).
 * From there the result register (rax / x0) is followed, copies included,
 * to the first instruction DWARF types: an access through it (the object
 * there), its store into a typed pointer slot (a variable, a member: the
 * pointee), or a call with it as the first argument whose first parameter
 * is a pointer (a constructor's `this`).  No compiler here puts the
 * allocated type in DWARF itself (docs/types.md).  0 with out->status OK
 * (type; member "", offset 0) or the reason, or a negative PMS_E*. */
int pms_typeres_alloc_type(struct pms_typeres *r, const char *path, uint64_t bias,
			   uint64_t ret_ip, struct pms_type_hit *out);

/* The per-(binary, IP) cache at work: lookups that reached a binary with
 * DWARF, and how many of them decoded and resolved their IP (the others
 * were answered from the cache). */
void pms_typeres_cache_stats(const struct pms_typeres *r, uint64_t *lookups, uint64_t *computed);


/* The layout of a type this resolver has named in a hit (pahole-like):
 * its top-level members in offset order, each with its type's name and the
 * padding after it.  *out is the caller's (free()); the strings are the
 * resolver's.  PMS_ENOENT when no hit named the type (or its binary was
 * let go), PMS_ENOMEM. */
struct pms_type_field {
	const char *name;     /* "" for an anonymous member */
	const char *type;
	uint64_t offset, size;
	uint64_t hole;        /* padding bytes after it (before the next / the end) */
};
int pms_typeres_layout(struct pms_typeres *r, const char *type, struct pms_type_field **out,
		       size_t *n);

/* ---- aggregation: per type and member ---------------------------------- */

struct pms_typeprof;

struct pms_typeprof_sample {
	const char *path;   /* binary of the IP, NULL when no file maps it */
	/* the mapping of path that holds the IP (an MMAP2 record): its start
	 * and file offset; the profile derives the load bias from them and
	 * the binary's program headers */
	uint64_t map_start, map_pgoff;
	uint64_t ip, addr;
	bool has_addr, kernel;
	uint32_t tid;
	uint64_t weight;    /* latency (0: none) */
	bool has_weight;
	int mem_node, cpu_node; /* < 0 unknown */
	int store;          /* 1 store, 0 load, -1 unknown (the decode decides) */
	bool hitm;          /* the data source says a modified line in another cache */
};

struct pms_typeprof_row {
	const char *type;
	const char *member;       /* "" for accesses to the whole type */
	uint64_t type_size, member_offset, member_size;
	uint64_t samples, loads, stores;
	uint64_t remote, node_known;  /* remote share = remote / node_known */
	uint64_t lat_n;               /* samples with a latency */
	uint64_t lat_p50, lat_p90, lat_p99, lat_max;
	size_t threads;               /* distinct threads */
	size_t writer_threads;        /* distinct threads that stored */
	uint64_t via[PMS_TYPE_VIA__COUNT];
	uint64_t hitm;                /* samples whose data source says HITM */
	uint64_t cpu_nodes, mem_nodes; /* node spread: bit n for node n (< 64) */
};

/* One cache line of a type (perf's typecln): members that different
 * threads write on one line are flagged as false sharing. */
struct pms_typeprof_line {
	const char *type;
	uint64_t line;                /* member offset / 64 */
	uint64_t samples, stores;
	size_t members, written_members;
	size_t writer_threads;        /* distinct threads storing to the line */
	bool false_sharing;           /* two members written by two threads */
};

struct pms_typeprof_result {
	const struct pms_typeprof_row *rows; /* by samples, descending */
	size_t n_rows;
	const struct pms_typeprof_line *lines; /* by samples, descending */
	size_t n_lines;
	uint64_t total, resolved;
	uint64_t unresolved[PMS_TYPE__COUNT]; /* by reason; [PMS_TYPE_OK] = 0 */
};

int pms_typeprof_new(struct pms_typeprof **out);
void pms_typeprof_free(struct pms_typeprof *p);
/* Resolve and count one sample; hit (may be NULL) gets its resolution. */
int pms_typeprof_add(struct pms_typeprof *p, const struct pms_typeprof_sample *s,
		     struct pms_type_hit *hit);
/* One sample's hit as pms_typeprof_add finds it, without counting it
 * (the same cache; e.g. a label per sample for an export).  0, or a
 * negative PMS_E*. */
int pms_typeprof_hit(struct pms_typeprof *p, const struct pms_typeprof_sample *s,
		     struct pms_type_hit *hit);
/* The profile's resolver (for pms_typeres_layout of its rows' types). */
struct pms_typeres *pms_typeprof_resolver(struct pms_typeprof *p);
/* The table so far (sorted; latency percentiles computed). */
int pms_typeprof_result(struct pms_typeprof *p, struct pms_typeprof_result *out);

/* ---- advice per type (issue 29) ----------------------------------------- */

enum pms_type_advice_kind {
	/* members of one cache line written by different threads (false
	 * sharing): each written member moved to a line of its own */
	PMS_TYPE_ADVICE_PAD = 1,
	/* the hot members spread over more lines than they fill: hot members
	 * first, the cold ones after (or split into a struct of their own) */
	PMS_TYPE_ADVICE_HOTCOLD,
	/* hot members mostly accessed remotely from several nodes: one copy
	 * per node (per-node data) */
	PMS_TYPE_ADVICE_PERNODE,
};

struct pms_type_advice {
	enum pms_type_advice_kind kind;
	const char *type;
	uint64_t line;                 /* PAD: the cache line (offset / 64) */
	bool elements;                 /* PAD: the writes are to elements of one
					* array member: align its elements to a
					* line (no layout proposed) */
	const char **members;          /* the members it is about (top-level names) */
	size_t n_members;
	uint64_t samples, stores, hitm, remote, node_known;
	uint64_t cpu_nodes;            /* node spread of the accesses (bit n: node n) */
	size_t writer_threads;
	/* PAD, HOTCOLD: the proposed layout (offsets, sizes, holes as padding)
	 * and its size; lines_before / lines_after: the cache lines the hot
	 * (HOTCOLD) or written (PAD) members touch */
	struct pms_type_field *layout;
	size_t n_layout;
	uint64_t size_after, lines_before, lines_after;
};

/* The advice for the profile's types so far, most sampled first; the
 * strings are the profile's.  *out is the caller's
 * (pms_type_advice_free).  It builds the result again (pms_typeprof_result:
 * rows and lines got before are no longer valid).  0 (*n may be 0),
 * PMS_ENOMEM. */
int pms_typeprof_advise(struct pms_typeprof *p, struct pms_type_advice **out, size_t *n);
void pms_type_advice_free(struct pms_type_advice *a, size_t n);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
