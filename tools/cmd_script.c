/* pmuscope script: one line (or JSON object) per sample of a perf.data file,
 * with data_src in perf's exact `perf script -F data_src` text. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opt.h"
#include "pmuscope/callpath.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/event.h"
#include "pmuscope/memdeco.h"
#include "pmuscope/memsample.h"
#include "pmuscope/perfdata.h"
#include "pmuscope/spe.h"
#include "pmuscope/symtrack.h"

int cmd_script(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256, O_HEADER, O_ITRACE, O_NS, O_COMMS, O_PID, O_TID, O_TIME };

static const struct cli_opt opts[] = {
	{ "input", 'i', CLI_ARG, "FILE", 'i',
	  "the perf.data file; '-' reads a pipe-mode stream from stdin\n"
	  "(default perf.data)" },
	{ "fields", 'F', CLI_ARG, "FIELDS", 'F',
	  "comma-separated: comm pid tid cpu time event ip addr\n"
	  "phys_addr node period weight ins_lat data_src type\n"
	  "callchain (one frame a line after the sample's, as perf)\n"
	  "brstack (perf's FROM/TO/M/X/A/CYCLES/TYPE/SPEC per branch)\n"
	  "(default comm,pid,tid,cpu,time,event,ip,addr,weight,data_src)\n"
	  "data_src is perf script's text: value as %16x, then\n"
	  "|OP ..|LVL ..|SNP ..|TLB ..|LCK ..|BLK .." },
	{ "hide-call-graph", 'G', CLI_NOARG, NULL, 'G',
	  "print the sample's own IP, not its call chain" },
	{ "ns", 0, CLI_NOARG, NULL, O_NS, "times in nanoseconds (perf's --ns)" },
	{ "symbols", 'S', CLI_ARG, "SYM,...", 'S', "only samples whose IP is in one of these functions" },
	{ "comms", 0, CLI_ARG, "COMM,...", O_COMMS, "only samples of these commands" },
	{ "pid", 0, CLI_ARG, "PID,...", O_PID, "only samples of these processes" },
	{ "tid", 0, CLI_ARG, "TID,...", O_TID, "only samples of these threads" },
	{ "cpu", 'C', CLI_ARG, "CPUS", 'C', "only samples taken on these CPUs (0-3,7)" },
	{ "time", 0, CLI_ARG, "START,END", O_TIME,
	  "only samples in [START, END] (seconds.fraction, either may be\n"
	  "empty)" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "one JSON object per line per sample (JSON Lines)" },
	{ "header", 0, CLI_NOARG, NULL, O_HEADER, "print the header features and record counts instead" },
	{ "itrace", 0, CLI_ARG, "LETTERS", O_ITRACE,
	  "samples made from an Arm SPE AUX trace, as perf's\n"
	  "--itrace: M memory operations (the default), b\n"
	  "mispredicted branches (ip = PC, addr = branch target,\n"
	  "weight = latency; perf's \"branch-miss\"), or both" },
	{ 0 },
};

const struct cli_spec cli_spec_script = {
	.name = "script",
	.synopsis = "script [-i FILE | FILE] [-F FIELDS] [--json] [--header]",
	.description =
		"Print every sample of a perf.data file (file or pipe mode, either byte\n"
		"order, zstd-compressed records unpacked), one line per sample in file\n"
		"order, fields separated by spaces in the order given.",
	.opts = opts,
	.footer = "Records that do not decode are skipped and counted on stderr, as perf\n"
		  "does.  Exit status: 0 ok, 1 the file cannot be read, 2 usage error.",
};

enum field {
	F_COMM, F_PID, F_TID, F_CPU, F_TIME, F_EVENT, F_IP, F_ADDR, F_PHYS, F_NODE,
	F_PERIOD, F_WEIGHT, F_INSLAT, F_DSRC, F_TYPE, F_CALLCHAIN, F_BRSTACK, F_N
};

static const char *const field_names[F_N] = {
	"comm", "pid", "tid", "cpu", "time", "event", "ip", "addr", "phys_addr", "node",
	"period", "weight", "ins_lat", "data_src", "type", "callchain", "brstack",
};

/* tid -> comm from COMM records (open addressing; comm is <= 16 bytes). */
struct comms {
	uint32_t *tid;
	char (*name)[16];
	unsigned char *len;  /* strlen(name[j]) */
	char (*q)[16 * 6 + 4]; /* name[j] as a JSON string, quoted once */
	unsigned char *qlen;
	size_t cap, n;
};

static void comms_free(struct comms *c)
{
	free(c->tid);
	free(c->name);
	free(c->len);
	free(c->q);
	free(c->qlen);
}

static void comm_set(struct comms *c, uint32_t tid, const char *name)
{
	size_t j;
	if ((c->n + 1) * 2 > c->cap) {
		struct comms nc = { .cap = c->cap ? c->cap * 2 : 1024 };
		nc.tid = calloc(nc.cap, sizeof(*nc.tid));
		nc.name = calloc(nc.cap, sizeof(*nc.name));
		nc.len = calloc(nc.cap, sizeof(*nc.len));
		nc.q = calloc(nc.cap, sizeof(*nc.q));
		nc.qlen = calloc(nc.cap, sizeof(*nc.qlen));
		if (!nc.tid || !nc.name || !nc.len || !nc.q || !nc.qlen) {
			comms_free(&nc);
			return;
		}
		for (size_t i = 0; i < c->cap; i++)
			if (c->name[i][0])
				comm_set(&nc, c->tid[i], c->name[i]);
		comms_free(c);
		*c = nc;
	}
	for (j = (tid * 2654435761u) & (c->cap - 1); c->name[j][0] && c->tid[j] != tid;
	     j = (j + 1) & (c->cap - 1))
		;
	if (!c->name[j][0])
		c->n++;
	c->tid[j] = tid;
	snprintf(c->name[j], sizeof(c->name[j]), "%s", name[0] ? name : ":");
	c->len[j] = (unsigned char)strlen(c->name[j]);
	c->qlen[j] = (unsigned char)cli_json_quote(c->name[j], c->q[j], sizeof(c->q[j]));
}

/* The slot of tid's comm, SIZE_MAX when no COMM record named it. */
static size_t comm_find(const struct comms *c, uint32_t tid)
{
	if (!c->cap)
		return SIZE_MAX;
	for (size_t j = (tid * 2654435761u) & (c->cap - 1); c->name[j][0];
	     j = (j + 1) & (c->cap - 1))
		if (c->tid[j] == tid)
			return j;
	return SIZE_MAX;
}

static const char *event_name(const struct pms_perfdata_attr *a, char *buf, size_t size)
{
	const char *g;
	if (a->name)
		return a->name;
	/* a file without EVENT_DESC: perf's name for generic events */
	if ((g = pms_event_generic_name(a->attr->type, a->attr->config)))
		return g;
	snprintf(buf, size, "type%" PRIu32 "/0x%" PRIx64 "/", a->attr->type, (uint64_t)a->attr->config);
	return buf;
}

/* Event names, once per event: "NAME:" for the text line and NAME as a
 * JSON string (a few events a file; beyond the cache, built each time). */
struct evname {
	const struct pms_perfdata_attr *a;
	char *text, *q;
	size_t n, qn;
};

struct evcache {
	struct evname e[64];
	size_t n;
};

static const struct evname *ev_get(struct evcache *c, const struct pms_perfdata_attr *a)
{
	char nb[64];
	const char *name;
	size_t len;
	struct evname *e;
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].a == a)
			return &c->e[i];
	if (c->n == sizeof(c->e) / sizeof(c->e[0]))
		return NULL;
	name = event_name(a, nb, sizeof(nb));
	len = strlen(name);
	e = &c->e[c->n];
	e->text = malloc(len + 2);
	e->q = malloc(6 * len + 4);
	if (!e->text || !e->q) {
		free(e->text);
		free(e->q);
		return NULL;
	}
	memcpy(e->text, name, len);
	memcpy(e->text + len, ":", 2);
	e->n = len + 1;
	e->qn = cli_json_quote(name, e->q, 6 * len + 4);
	e->a = a;
	c->n++;
	return e;
}

static void evcache_free(struct evcache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].text);
		free(c->e[i].q);
	}
}

/* Lines are built straight in one output buffer, written by one fwrite a
 * megabyte: printing 5 M samples is most of `pmuscope script`'s time, and
 * a printf or fwrite a field (or a line) was most of that. */
struct out {
	FILE *f;
	char *b;
	size_t n, cap;
};

static void out_flush(struct out *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

/* Room for need more bytes at o->b + o->n (need <= o->cap). */
static void out_room(struct out *o, size_t need)
{
	if (o->n + need > o->cap)
		out_flush(o);
}

static void out_put(struct out *o, const char *s, size_t n)
{
	out_room(o, n);
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* One sample's line, at most LINE_CAP bytes before its branch stack. */
#define LINE_CAP 8192
struct line {
	char *b;
	size_t n;
};

static char dig2[200]; /* "00" "01" .. "99" */

static void dig2_init(void)
{
	for (unsigned i = 0; i < 100; i++) {
		dig2[2 * i] = (char)('0' + i / 10);
		dig2[2 * i + 1] = (char)('0' + i % 10);
	}
}

/* v in base 10 ending at end; the number of digits. */
static inline size_t fmt_dec(char *end, uint64_t v)
{
	char *p = end;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, dig2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, dig2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return (size_t)(end - p);
}

static inline size_t fmt_hex(char *end, uint64_t v)
{
	char *p = end;
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	return (size_t)(end - p);
}

/* s (n bytes) right-aligned in width; the line is cut 64 bytes before
 * its end. */
static inline __attribute__((always_inline)) void l_strn(struct line *l, const char *s, size_t n,
							 size_t width)
{
	size_t cap = LINE_CAP - 64;
	size_t room = l->n < cap ? cap - l->n : 0;
	if (n > room)
		n = room;
	if (width > n) {
		size_t pad = width - n;
		if (l->n + n + pad > cap)
			pad = cap > l->n + n ? cap - l->n - n : 0;
		memset(l->b + l->n, ' ', pad);
		l->n += pad;
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void l_str(struct line *l, const char *s, size_t width)
{
	l_strn(l, s, strlen(s), width);
}

/* The digits of v in base 10. */
static inline size_t ndec(uint64_t v)
{
	size_t n = 1;
	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* v in base 16 or 10 (perf's %16lx, %7u; '0' pad: %03u, %06lu) right-aligned
 * in width, written in place; nothing when it would not leave the newline's
 * room (only after a capped string). */
static inline __attribute__((always_inline)) void l_pnum(struct line *l, uint64_t v, bool hex,
							 size_t width, char pad)
{
	size_t n = hex ? (size_t)(67 - __builtin_clzll(v | 1)) / 4 : ndec(v);
	size_t w = width > n ? width : n;
	char *p;
	if (l->n + w + 2 > LINE_CAP)
		return;
	if (width > n)
		memset(l->b + l->n, pad, width - n);
	l->n += w;
	p = l->b + l->n;
	if (hex)
		(void)fmt_hex(p, v);
	else
		(void)fmt_dec(p, v);
}

static inline __attribute__((always_inline)) void l_num(struct line *l, uint64_t v, unsigned base,
							size_t width)
{
	l_pnum(l, v, base == 16, width, ' ');
}

static inline __attribute__((always_inline)) void l_zero(struct line *l, uint64_t v, size_t width)
{
	l_pnum(l, v, false, width, '0');
}

static void l_chr(struct line *l, char c)
{
	if (l->n + 2 < LINE_CAP)
		l->b[l->n++] = c;
}


/* perf's names (tools/perf/util/branch.c branch_type_name, branch_new_type_name,
 * branch_spec_desc) of the perf_branch_entry type, new_type and spec fields
 * (include/uapi/linux/perf_event.h PERF_BR_*). */
static const char *br_type(const struct pms_branch *b)
{
	static const char *const types[] = { "", "COND", "UNCOND", "IND", "CALL", "IND_CALL",
					     "RET", "SYSCALL", "SYSRET", "COND_CALL", "COND_RET",
					     "ERET", "IRQ", "SERROR", "NO_TX" };
	static const char *const new_types[] = { "FAULT_ALGN", "FAULT_DATA", "FAULT_INST",
						 "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5" };
	if (b->type == 15) /* PERF_BR_EXTEND_ABI */
		return b->new_type < 8 ? new_types[b->new_type] : "";
	return b->type < 15 ? types[b->type] : "";
}

static const char *br_spec(const struct pms_branch *b)
{
	/* builtin-script.c print_bstack_flags: "-" for spec 0 (N/A) */
	static const char *const spec[] = { "-", "SPEC_WRONG_PATH", "NON_SPEC_CORRECT_PATH",
					    "SPEC_CORRECT_PATH" };
	return spec[b->spec & 3];
}

/* One branch as perf script -F brstack prints it (builtin-script.c
 * perf_sample__fprintf_brstack: " FROM/TO/M|P|-/X|-/A|-/CYCLES/TYPE/SPEC "). */
static void br_text(char *buf, size_t n, const struct pms_branch *b)
{
	snprintf(buf, n, " 0x%" PRIx64 "/0x%" PRIx64 "/%c/%c/%c/%u/%s/%s ", b->from, b->to,
		 b->mispred ? 'M' : b->predicted ? 'P' : '-', b->in_tx ? 'X' : '-',
		 b->abort ? 'A' : '-', (unsigned)b->cycles, br_type(b), br_spec(b));
}


/* What every line of a run shares: the fields, the names' caches and, for
 * --json, each field's key quoted once with its ',' and ':'. */
struct fmt {
	const enum field *fs;
	size_t nf;
	const struct comms *comms;
	struct pms_datasrc_memo *dm[2]; /* [0] script text, [1] --json text */
	bool json_direct; /* no field needs a jansson value: rows built in place */
	struct evcache *evc;
	char key[32][24];
	size_t keyn[32];
	struct pms_memdeco *deco; /* nodes and SPE times (pmuscope/memdeco.h) */
	bool want_node;           /* -F has node */
};

static void fmt_keys(struct fmt *f)
{
	for (size_t i = 0; i < f->nf; i++) {
		char q[20];
		(void)cli_json_quote(field_names[f->fs[i]], q, sizeof(q));
		snprintf(f->key[i], sizeof(f->key[i]), "%s%s:", i ? "," : "", q);
		f->keyn[i] = strlen(f->key[i]);
	}
}

/* ---- perf script's text: its fields, its order, its widths ---------------
 * (tools/perf/builtin-script.c process_event and perf_sample__fprintf_start,
 * util/evsel_fprintf.c sample__fprintf_sym and sample__fprintf_callchain:
 * facts read there, the code written here). */

enum pf {
	PF_COMM = 1u << 0, PF_TID = 1u << 1, PF_PID = 1u << 2, PF_TIME = 1u << 3,
	PF_CPU = 1u << 4, PF_EVENT = 1u << 5, PF_TRACE = 1u << 6, PF_IP = 1u << 7,
	PF_SYM = 1u << 8, PF_DSO = 1u << 9, PF_ADDR = 1u << 10, PF_SYMOFF = 1u << 11,
	PF_SRCLINE = 1u << 12, PF_PERIOD = 1u << 13, PF_BRSTACK = 1u << 14,
	PF_DSRC = 1u << 15, PF_WEIGHT = 1u << 16, PF_PHYS = 1u << 17, PF_INSLAT = 1u << 18,
	PF_BPF = 1u << 19, PF_RETLAT = 1u << 20,
	/* this tool's own: the node of phys_addr, the record type, the chain's
	 * addresses alone (perf's -F ip of a sample with a call chain) */
	PX_NODE = 1u << 24, PX_TYPE = 1u << 25, PX_CHAIN = 1u << 26,
};

static const struct { const char *name; unsigned bit; } pf_names[] = {
	{ "comm", PF_COMM }, { "tid", PF_TID }, { "pid", PF_PID }, { "time", PF_TIME },
	{ "cpu", PF_CPU }, { "event", PF_EVENT }, { "trace", PF_TRACE }, { "ip", PF_IP },
	{ "sym", PF_SYM }, { "dso", PF_DSO }, { "addr", PF_ADDR }, { "symoff", PF_SYMOFF },
	{ "srcline", PF_SRCLINE }, { "period", PF_PERIOD }, { "brstack", PF_BRSTACK },
	{ "data_src", PF_DSRC }, { "weight", PF_WEIGHT }, { "phys_addr", PF_PHYS },
	{ "ins_lat", PF_INSLAT }, { "bpf-output", PF_BPF }, { "retire_lat", PF_RETLAT },
	{ "node", PX_NODE }, { "type", PX_TYPE }, { "callchain", PX_CHAIN },
};

/* perf's fields this tool does not print (parsed, then refused by name). */
static const char *const pf_perf_only[] = {
	"dsoff", "iregs", "uregs", "brstacksym", "callindent", "insn", "disasm", "insnlen",
	"brstackinsn", "brstackoff", "synth", "metric", "misc", "srccode", "ipc", "tod",
	"data_page_size", "code_page_size", "brstackinsnlen", "machine_pid", "vcpu",
	"cgroup", "brstackdisasm", "brcntr", "flags",
};

/* perf's output types: PERF_TYPE_* 0..5, then synth and other */
enum { OT_HW, OT_SW, OT_TRACE, OT_CACHE, OT_RAW, OT_BREAK, OT_SYNTH, OT_OTHER, OT_N };
static const char *const ot_names[OT_N] = { "hw", "sw", "trace", NULL, "raw", "break", "synth", NULL };
/* perf's event_type() words in its messages */
static const char *const ot_words[OT_N] = { "hardware", "software", "tracepoint", "hardware-cache",
					    "raw", "hw-breakpoint", "synth", "other" };

#define PF_BASE (PF_COMM | PF_TID | PF_CPU | PF_TIME | PF_EVENT | PF_IP | PF_SYM | PF_SYMOFF | PF_DSO)
struct pf_out {
	unsigned fields, invalid, user_set_fields;
	bool user_set;
};

static void pf_defaults(struct pf_out o[OT_N])
{
	for (int t = 0; t < OT_N; t++)
		o[t] = (struct pf_out){ .fields = PF_BASE | PF_PERIOD, .invalid = PF_TRACE | PF_BPF };
	o[OT_SW].fields |= PF_BPF;
	o[OT_SW].invalid = PF_TRACE;
	o[OT_TRACE] = (struct pf_out){ .fields = PF_COMM | PF_TID | PF_CPU | PF_TIME | PF_EVENT | PF_TRACE };
	o[OT_RAW].fields |= PF_ADDR | PF_DSRC | PF_WEIGHT | PF_PHYS | PF_INSLAT | PF_RETLAT;
	o[OT_SYNTH].fields = PF_BASE;
}

static int ot_of(uint32_t type)
{
	if (type == 6) /* PERF_TYPE_MAX: not a type; PERF_TYPE_SYNTH is INT_MAX + 1 */
		return OT_OTHER;
	if (type == 0x80000000u)
		return OT_SYNTH;
	return type < 6 ? (int)type : OT_OTHER;
}

/* One -F argument in perf's grammar (parse_output_fields): [type:]list of
 * fields, each alone (the set) or +field / -field (changes to the
 * defaults); perf's messages for its errors. */
static int pf_parse(struct pf_out o[OT_N], const char *arg)
{
	char buf[512];
	const char *colon = strchr(arg, ':');
	const char *list = arg;
	int type = -1;
	enum { DEF, SET, ADD, DEL } change = DEF;
	if (colon) {
		size_t n = (size_t)(colon - arg);
		for (int t = 0; t < OT_N; t++)
			if (ot_names[t] && strlen(ot_names[t]) == n && !strncmp(arg, ot_names[t], n))
				type = t;
		if (type < 0) {
			fprintf(stderr, "Invalid event type in field string.\n");
			return -1;
		}
		list = colon + 1;
		if (!strchr(list, '+') && !strchr(list, '-'))
			o[type] = (struct pf_out){ .invalid = o[type].invalid, .user_set = true };
	} else {
		if (!*arg) {
			fprintf(stderr, "Cannot set fields to 'none' for all event types.\n");
			return -1;
		}
		if (!strchr(arg, '+') && !strchr(arg, '-'))
			for (int t = 0; t < OT_N; t++)
				o[t] = (struct pf_out){ .invalid = o[t].invalid, .user_set = true };
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned bit = 0;
		if (*tok == '+' || *tok == '-') {
			if (change == SET)
				goto badmix;
			change = *tok++ == '+' ? ADD : DEL;
		} else {
			if (change != SET && change != DEF)
				goto badmix;
			change = SET;
		}
		for (size_t i = 0; i < sizeof(pf_names) / sizeof(pf_names[0]); i++)
			if (!strcmp(tok, pf_names[i].name))
				bit = pf_names[i].bit;
		if (!bit) {
			for (size_t i = 0; i < sizeof(pf_perf_only) / sizeof(pf_perf_only[0]); i++)
				if (!strcmp(tok, pf_perf_only[i])) {
					fprintf(stderr, "pmuscope: script: -F: '%s' is a field of perf "
							"script this tool does not print\n", tok);
					return -1;
				}
			fprintf(stderr, "Invalid field requested.\n");
			return -1;
		}
		for (int t = 0; t < OT_N; t++) {
			if (type >= 0 && t != type)
				continue;
			if (o[t].invalid & bit) {
				if (type >= 0) {
					fprintf(stderr, "'%s' not valid for %s events.\n", tok, ot_words[t]);
					return -1;
				}
				continue; /* perf warns and ignores it for that type */
			}
			if (change == DEL) {
				o[t].fields &= ~bit;
				o[t].user_set_fields &= ~bit;
			} else {
				o[t].fields |= bit;
				o[t].user_set_fields |= bit;
			}
			o[t].user_set = true;
		}
	}
	return 0;
badmix:
	fprintf(stderr, "Cannot mix +-field with overridden fields\n");
	return -1;
}

/* perf's name of an event (evsel__name): the file's, a generic one, else
 * "unknown attr type: N" for a type it cannot name. */
static const char *pf_event_name(const struct pms_perfdata_attr *a, char *buf, size_t size)
{
	const struct perf_event_attr *at = a->attr;
	const char *g;
	size_t n;
	bool colon = false, guest_default = false;
	if (a->name)
		return a->name;
	if (at->type == 4)
		n = (size_t)snprintf(buf, size, "raw 0x%" PRIx64, (uint64_t)at->config);
	else if ((g = pms_event_generic_name(at->type, at->config)))
		n = (size_t)snprintf(buf, size, "%s", g);
	else if (at->type > 5)
		return snprintf(buf, size, "unknown attr type: %" PRIu32, at->type), buf;
	else
		return event_name(a, buf, size);
	/* perf's modifiers (evsel__add_modifiers) */
#define MOD(excl, c)                                        \
	do {                                                \
		if (!(excl) && n + 3 < size) {              \
			if (!colon)                         \
				buf[n++] = ':', colon = true; \
			buf[n++] = (c);                     \
		}                                           \
	} while (0)
	if (at->exclude_kernel || at->exclude_user || at->exclude_hv) {
		MOD(at->exclude_kernel, 'k');
		MOD(at->exclude_user, 'u');
		MOD(at->exclude_hv, 'h');
		guest_default = true;
	}
	for (unsigned i = 0; i < at->precise_ip && i < 3; i++) {
		MOD(0, 'p');
		guest_default = true;
	}
	if (at->exclude_host || (bool)at->exclude_guest == guest_default) {
		MOD(at->exclude_host, 'H');
		MOD(at->exclude_guest, 'G');
	}
#undef MOD
	buf[n < size ? n : size - 1] = 0;
	return buf;
}

/* Whether a is an ibs_op event whose samples carry RAW (the registers). */
static bool ibs_raw_only(struct pms_perfdata_reader *r, const struct pms_perfdata_attr *a)
{
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	const char *pmu = NULL;
	if (!(a->sample_type & PMS_SAMPLE_RAW))
		return false;
	for (size_t i = 0; i < in->npmu; i++)
		if (in->pmu[i].type == a->attr->type)
			pmu = in->pmu[i].name;
	return pms_engine_of_pmu(pmu, NULL) == PMS_ENG_IBS;
}

/* perf's check of the fields against each event's sample_type
 * (evsel__check_attr): a default field the samples lack goes, one asked
 * for is an error. */
static int pf_check(struct pf_out o[OT_N], struct pms_perfdata_reader *r, bool aux)
{
	static const struct { unsigned bit; uint64_t st; const char *msg; bool aux_ok; } need[] = {
		{ PF_IP, PMS_SAMPLE_IP, "IP", false },
		{ PF_ADDR, PMS_SAMPLE_ADDR, "ADDR", true },
		{ PF_DSRC, PMS_SAMPLE_DATA_SRC, "DATA_SRC", true },
		{ PF_WEIGHT, PMS_SAMPLE_WEIGHT_TYPE, "WEIGHT", true },
		{ PF_PID | PF_TID, PMS_SAMPLE_TID, "TID", false },
		{ PF_TIME, PMS_SAMPLE_TIME, "TIME", false },
		{ PF_CPU, PMS_SAMPLE_CPU, "CPU", true },
		{ PF_PHYS, PMS_SAMPLE_PHYS_ADDR, "PHYS_ADDR", true },
		{ PF_INSLAT, PMS_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", false },
		{ PF_RETLAT, PMS_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", false },
	};
	bool seen[OT_N] = { false };
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
		int t = ot_of(a->attr->type);
		char nb[64];
		const char *name = pf_event_name(a, nb, sizeof(nb));
		/* perf skips the dummy event and checks the first of each type */
		if (a->attr->type == 1 && a->attr->config == 9)
			continue;
		if (seen[t])
			continue;
		seen[t] = true;
		/* an ibs_op event recorded with RAW only: this tool fills addr,
		 * data_src, weight from the registers (ibs_fill), as perf lets
		 * AUX files print fields their records lack */
		bool filled = aux || ibs_raw_only(r, a);
		if (!o[t].fields)
			continue;
		for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++) {
			if (!(o[t].fields & need[k].bit) || (a->sample_type & need[k].st))
				continue;
			if ((o[t].user_set_fields & need[k].bit) && !(filled && need[k].aux_ok)) {
				const char *f = NULL;
				for (size_t j = 0; j < sizeof(pf_names) / sizeof(pf_names[0]); j++)
					if (pf_names[j].bit & need[k].bit & o[t].user_set_fields)
						f = pf_names[j].name;
				fprintf(stderr, "Samples for '%s' event do not have %s attribute set. "
						"Cannot print '%s' field.\n", name, need[k].msg, f ? f : "?");
				return -1;
			}
			if (!(o[t].user_set_fields & need[k].bit))
				o[t].fields &= ~need[k].bit;
		}
		if ((o[t].fields & PF_SYM) && !(a->sample_type & (PMS_SAMPLE_IP | PMS_SAMPLE_ADDR))) {
			fprintf(stderr, "Display of symbols requested but neither sample IP nor "
					"sample address\navailable. Hence, no addresses to convert "
					"to symbols.\n");
			return -1;
		}
		if ((o[t].fields & PF_SYMOFF) && !(o[t].fields & PF_SYM)) {
			fprintf(stderr, "Display of offsets requested but symbol is not"
					"selected.\n");
			return -1;
		}
		if ((o[t].fields & PF_DSO) && !(a->sample_type & (PMS_SAMPLE_IP | PMS_SAMPLE_ADDR))) {
			fprintf(stderr, "Display of DSO requested but no address to convert.\n");
			return -1;
		}
		if ((o[t].fields & PF_SRCLINE) && !(o[t].fields & PF_IP)) {
			fprintf(stderr, "Display of source line number requested but sample IP is not\n"
					"selected. Hence, no address to lookup the source line number.\n");
			return -1;
		}
	}
	return 0;
}

/* What the perf-style lines of a run share. */
struct pfmt {
	struct pf_out o[OT_N];
	struct pms_symtrack *st;
	bool ns, use_chain;
	int name_width;
	bool want_node;
	size_t *dsrc_max; /* perf pads data_src to the longest printed so far */
	/* -S: symbol names to keep (NULL: all) */
	char **syms;
	size_t nsyms;
};

/* sym[+off] (dso) of one address, as perf prints a symbol and a DSO. */
static void pf_symdso(struct line *l, const struct pms_symtrack_name *n, unsigned f)
{
	if (f & PF_SYM) {
		l_chr(l, ' ');
		if (n->sym) {
			l_str(l, n->sym, 0);
			if (f & PF_SYMOFF) {
				l_strn(l, "+0x", 3, 0);
				l_num(l, n->off, 16, 0);
			}
		} else {
			l_strn(l, "[unknown]", 9, 0);
		}
	}
	if (f & PF_DSO) {
		l_strn(l, " (", 2, 0);
		l_str(l, n->dso ? n->dso : "[unknown]", 0);
		l_chr(l, ')');
	}
	if ((f & PF_SRCLINE) && n->srcfile && n->line) {
		const char *b = strrchr(n->srcfile, '/');
		l_strn(l, "\n  ", 3, 0);
		l_str(l, b ? b + 1 : n->srcfile, 0);
		l_chr(l, ':');
		l_num(l, n->line, 10, 0);
	} else if ((f & PF_SRCLINE) && n->dso) {
		/* perf's line for an address without one: module[offset] */
		const char *b = n->dso[0] == '[' ? NULL : strrchr(n->dso, '/');
		l_strn(l, "\n  ", 3, 0);
		l_str(l, b ? b + 1 : n->dso, 0);
		l_chr(l, '[');
		l_num(l, n->map_ip, 16, 0);
		l_chr(l, ']');
	}
}

static bool kernel_ip(const struct pms_sample *s)
{
	unsigned m = s->misc & PMS_MISC_CPUMODE_MASK;
	return m == PMS_MISC_KERNEL || m == PMS_MISC_GUEST_KERNEL || m == PMS_MISC_HYPERVISOR;
}

/* The sample's call chain, one frame a line (perf's "\t%16lx sym+off (dso)"). */
static void pf_chain(struct out *o, const struct pfmt *pf, const struct pms_sample *s,
		     const struct pms_frame *fr, size_t n, unsigned f)
{
	for (size_t i = 0; i < n; i++) {
		struct line l;
		struct pms_symtrack_name nm = { 0 };
		out_room(o, LINE_CAP);
		l.b = o->b + o->n;
		l.n = 0;
		l_chr(&l, '\t');
		l_num(&l, fr[i].ip, 16, 16);
		if (f & (PF_SYM | PF_DSO | PF_SRCLINE)) {
			(void)pms_symtrack_code(pf->st, s->pid, fr[i].ip,
						(fr[i].flags & PMS_FRAME_KERNEL) != 0,
						(f & PF_SRCLINE) != 0, &nm);
			pf_symdso(&l, &nm, f);
		}
		l_chr(&l, '\n');
		o->n += l.n;
	}
}

/* perf_sample__fprintf_start and the period and event name after it. */
static void pf_head(struct line *lp, const struct fmt *fm, const struct pfmt *pf,
		    const struct pms_perfdata_event *ev, unsigned f, bool chain)
{
	const struct pms_sample *s = &ev->rec.sample;
	struct line l = *lp;
	if (f & PF_COMM) {
		size_t c = comm_find(fm->comms, s->tid);
		char tb[16];
		/* perf names a thread without a COMM ":TID", the idle one swapper */
		const char *cn = c != SIZE_MAX ? fm->comms->name[c] : tb;
		size_t cl = c != SIZE_MAX ? fm->comms->len[c]
			    : !s->tid ? (size_t)snprintf(tb, sizeof(tb), "swapper")
				      : (size_t)snprintf(tb, sizeof(tb), ":%d", (int)s->tid);
		l_strn(&l, cn, cl, (f & (PF_IP | PX_CHAIN)) && chain ? 0 : 16);
		l_chr(&l, ' ');
	}
	if ((f & PF_PID) && (f & PF_TID)) {
		l_num(&l, s->pid, 10, 7);
		l_chr(&l, '/');
		size_t st = l.n;
		l_num(&l, s->tid, 10, 0);
		while (l.n - st < 7)
			l_chr(&l, ' ');
		l_chr(&l, ' ');
	} else if (f & (PF_PID | PF_TID)) {
		l_num(&l, (f & PF_PID) ? s->pid : s->tid, 10, 7);
		l_chr(&l, ' ');
	}
	if (f & PF_CPU) {
		l_chr(&l, '[');
		l_zero(&l, s->cpu, 3);
		l_strn(&l, "] ", 2, 0);
	}
	if (f & PF_TIME) {
		char t[40];
		size_t n;
		if (pf->ns)
			n = (size_t)snprintf(t, sizeof(t), "%5" PRIu64 ".%09" PRIu64 ": ",
					     s->time / 1000000000u, s->time % 1000000000u);
		else
			n = (size_t)snprintf(t, sizeof(t), "%12s: ", "");
		if (!pf->ns) {
			char u[32];
			int k = snprintf(u, sizeof(u), "%" PRIu64 ".%06" PRIu64, s->time / 1000000000u,
					 s->time % 1000000000u / 1000u);
			n = (size_t)snprintf(t, sizeof(t), "%12s: ", u);
			(void)k;
		}
		l_strn(&l, t, n, 0);
	}
	if (f & PF_PERIOD) {
		/* perf: the event's sample_period when the samples carry none */
		l_num(&l, (s->present & PMS_SAMPLE_PERIOD) || ev->attr->attr->freq
				  ? s->period : ev->attr->attr->sample_period, 10, 10);
		l_chr(&l, ' ');
	}
	if (f & PF_EVENT) {
		char nb[64];
		l_str(&l, pf_event_name(ev->attr, nb, sizeof(nb)), (size_t)pf->name_width);
		l_strn(&l, ": ", 2, 0);
	}
	*lp = l;
}

/* One sample as perf script prints it (nothing when -S drops it). */
static void print_perf(struct out *o, const struct fmt *fm, const struct pfmt *pf,
		       const struct pms_perfdata_event *ev, int node)
{
	const struct pms_sample *s = &ev->rec.sample;
	unsigned f = pf->o[ot_of(ev->attr->attr->type)].fields;
	struct pms_frame fr[PMS_CALLPATH_MAX];
	size_t nfr = 0;
	bool chain = false;
	struct pms_symtrack_name nm = { 0 };
	struct line l;
	if (!f)
		return;
	if ((f & (PF_IP | PX_CHAIN)) && pf->use_chain && (s->present & PMS_SAMPLE_CALLCHAIN) &&
	    pms_callpath_from_chain(s->callchain, s->callchain_nr, true, fr, PMS_CALLPATH_MAX,
				    &nfr) >= 0) {
		chain = true;
		if (!nfr && (s->present & PMS_SAMPLE_IP)) { /* perf: the IP alone */
			fr[0].ip = s->ip;
			fr[0].flags = kernel_ip(s) ? PMS_FRAME_KERNEL : 0;
			nfr = 1;
		}
	}
	if ((f & (PF_SYM | PF_DSO | PF_SRCLINE)) && (f & PF_IP) && !chain)
		(void)pms_symtrack_code(pf->st, s->pid, s->ip, kernel_ip(s), (f & PF_SRCLINE) != 0,
					&nm);
	if (pf->nsyms) { /* -S: the sample's own symbol */
		struct pms_symtrack_name sn;
		bool keep = false;
		(void)pms_symtrack_code(pf->st, s->pid, s->ip, kernel_ip(s), false, &sn);
		for (size_t i = 0; i < pf->nsyms && sn.sym; i++)
			keep |= !strcmp(pf->syms[i], sn.sym);
		if (!keep)
			return;
	}
	out_room(o, LINE_CAP);
	l.b = o->b + o->n;
	l.n = 0;
	pf_head(&l, fm, pf, ev, f, chain);
	if (f & PF_ADDR) {
		const struct perf_event_attr *at = ev->attr->attr;
		l_num(&l, s->addr, 16, 16);
		/* perf names the addr of page faults (sample_addr_correlates_sym) */
		if (at->type == 1 && (at->config == 2 || at->config == 5 || at->config == 6) &&
		    (f & (PF_SYM | PF_DSO))) {
			struct pms_symtrack_name an;
			(void)pms_symtrack_data(pf->st, s->pid, s->addr, &an);
			pf_symdso(&l, &an, f & (PF_SYM | PF_SYMOFF | PF_DSO));
		}
	}
	if (f & PF_DSRC) {
		size_t n;
		const char *t = pms_datasrc_memo_text(fm->dm[0], s->data_src, &n);
		if (n > *pf->dsrc_max)
			*pf->dsrc_max = n;
		l_strn(&l, t, n, 0);
		while (n++ < *pf->dsrc_max)
			l_chr(&l, ' ');
	}
	if (f & PF_WEIGHT)
		l_num(&l, (s->present & PMS_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1_dw : s->weight, 10, 16);
	if (f & PF_INSLAT)
		l_num(&l, s->weight_var2_w, 10, 16);
	if (f & PF_RETLAT)
		l_num(&l, s->weight_var3_w, 10, 16);
	if ((f & PF_IP) || ((f & PX_CHAIN) && chain)) {
		l_chr(&l, chain ? '\n' : ' ');
		if (!chain) {
			l_num(&l, s->ip, 16, 16);
			pf_symdso(&l, &nm, f);
		}
	}
	o->n += l.n;
	if (chain)
		pf_chain(o, pf, s, fr, nfr, (f & PX_CHAIN) && !(f & PF_IP) ? 0 : f);
	if ((f & PF_BRSTACK) && (s->present & PMS_SAMPLE_BRANCH_STACK))
		for (uint64_t k = 0; k < s->branch.nr; k++) {
			char b[160];
			struct pms_branch br = pms_branch_at(s->branch.entries, (size_t)k);
			br_text(b, sizeof(b), &br);
			out_put(o, b, strlen(b));
		}
	out_room(o, 64);
	l.b = o->b + o->n;
	l.n = 0;
	if (f & PF_PHYS)
		l_num(&l, s->phys_addr, 16, 16);
	if (f & PX_NODE) {
		l_chr(&l, ' ');
		if (node >= 0)
			l_num(&l, (uint64_t)node, 10, 0);
		else
			l_chr(&l, '-');
	}
	if (f & PX_TYPE)
		l_strn(&l, " SAMPLE", 7, 0);
	l_chr(&l, '\n');
	o->n += l.n;
}

/* A nested value (branch stack, call chain) into the row: built with
 * jansson, written compact; null when it could not be built. */
static void jrow_json(struct json_row *j, const char *k, json_t *v)
{
	char *txt = v ? json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	if (txt)
		cli_jrow_raw(j, k, txt, strlen(txt));
	else
		cli_jrow_null(j, k);
	free(txt);
	json_decref(v);
}

/* Pieces of a row gathered here and handed to the row a few at a time:
 * the row cuts them at its end exactly as it would one by one. */
/* A JSON row's text: straight into the output buffer (j NULL: a row that
 * does not fit, or needs a jansson value, sets over and is printed again
 * through a json_row), else pending in own and flushed into j. */
struct jpend {
	struct json_row *j;
	char *b;
	size_t n, cap;
	bool over;
	char own[512];
};

static void jp_flush(struct jpend *p)
{
	if (p->n && p->j)
		cli_jrow_text(p->j, p->b, p->n);
	p->n = 0;
}

static __attribute__((noinline)) void jp_put_slow(struct jpend *p, const char *s, size_t n)
{
	if (!p->j) {
		p->over = true;
		return;
	}
	jp_flush(p);
	if (n > p->cap) {
		cli_jrow_text(p->j, s, n);
		return;
	}
	memcpy(p->b, s, n);
	p->n = n;
}

static inline __attribute__((always_inline)) void jp_put(struct jpend *p, const char *s, size_t n)
{
	if (p->n + n > p->cap) {
		jp_put_slow(p, s, n);
		return;
	}
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

static inline __attribute__((always_inline)) void jp_uint(struct jpend *p, uint64_t v)
{
	char t[24];
	size_t n = fmt_dec(t + sizeof(t), v);
	jp_put(p, t + sizeof(t) - n, n);
}

static inline __attribute__((always_inline)) void jp_hex(struct jpend *p, uint64_t v)
{
	char t[24];
	size_t n = fmt_hex(t + sizeof(t) - 1, v);
	t[sizeof(t) - 1] = '"';
	memcpy(t + sizeof(t) - 1 - n - 3, "\"0x", 3);
	jp_put(p, t + sizeof(t) - 1 - n - 3, n + 4);
}

/* The fields of a sample's JSON row into p (j: the row, or NULL when p
 * writes straight into the output: what needs the row sets p->over). */
static void json_fields(struct jpend *pp, struct json_row *jr, const struct fmt *fm,
			const struct pms_perfdata_event *ev, int node)
{
	const struct pms_sample *s = &ev->rec.sample;
	const enum field *fs = fm->fs;
	for (size_t i = 0; i < fm->nf && !pp->over; i++) {
		const char *k = field_names[fs[i]];
		switch (fs[i]) {
		case F_COMM: {
			size_t c = comm_find(fm->comms, s->tid);
			jp_put(pp, fm->key[i], fm->keyn[i]);
			if (c != SIZE_MAX)
				jp_put(pp, fm->comms->q[c], fm->comms->qlen[c]);
			else
				jp_put(pp, "null", 4);
			break;
		}
		case F_PID:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->pid);
			break;
		case F_TID:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->tid);
			break;
		case F_CPU:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->cpu);
			break;
		case F_TIME:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->time);
			break;
		case F_EVENT: {
			const struct evname *e = ev_get(fm->evc, ev->attr);
			if (e) {
				jp_put(pp, fm->key[i], fm->keyn[i]);
				jp_put(pp, e->q, e->qn);
			} else {
				char nb[64];
				if (!jr) {
					pp->over = true;
					break;
				}
				jp_flush(pp);
				cli_jrow_str(jr, k, event_name(ev->attr, nb, sizeof(nb)));
			}
			break;
		}
		case F_IP:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->ip);
			break;
		case F_ADDR:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->addr);
			break;
		case F_PHYS:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->phys_addr);
			break;
		case F_NODE:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			if (node >= 0)
				jp_uint(pp, (uint64_t)node);
			else
				jp_put(pp, "null", 4);
			break;
		case F_PERIOD:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->period);
			break;
		case F_WEIGHT:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, (s->present & PMS_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1_dw : s->weight);
			break;
		case F_INSLAT:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_uint(pp, s->weight_var2_w);
			break;
		case F_DSRC: {
			size_t qn;
			/* the text needs no escape (pmuscope/datasrc.h) */
			const char *q = pms_datasrc_memo_text(fm->dm[1], s->data_src, &qn);
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_hex(pp, s->data_src);
			jp_put(pp, ",\"data_src_text\":\"", 18);
			jp_put(pp, q, qn);
			jp_put(pp, "\"", 1);
			break;
		}
		case F_TYPE:
			jp_put(pp, fm->key[i], fm->keyn[i]);
			jp_put(pp, "\"SAMPLE\"", 8);
			break;
		case F_BRSTACK:
			if (!jr) {
				pp->over = true;
				break;
			}
			jp_flush(pp);
			if (!(s->present & PMS_SAMPLE_BRANCH_STACK)) {
				cli_jrow_null(jr, k);
				break;
			}
			{
				json_t *arr = json_array();
				for (uint64_t b = 0; arr && b < s->branch.nr; b++) {
					struct pms_branch br = pms_branch_at(s->branch.entries, (size_t)b);
					char from[24], to[24];
					snprintf(from, sizeof(from), "0x%" PRIx64, br.from);
					snprintf(to, sizeof(to), "0x%" PRIx64, br.to);
					json_array_append_new(arr, json_pack("{s:s,s:s,s:b,s:b,s:b,s:b,s:I,s:s,s:s}",
						"from", from, "to", to, "mispred", br.mispred,
						"predicted", br.predicted, "in_tx", br.in_tx, "abort", br.abort,
						"cycles", (json_int_t)br.cycles, "type", br_type(&br),
						"spec", br_spec(&br)));
				}
				jrow_json(jr, k, arr);
			}
			break;
		case F_CALLCHAIN: {
			struct pms_frame f[PMS_CALLPATH_MAX];
			size_t nfr = 0;
			if (!jr) {
				pp->over = true;
				break;
			}
			jp_flush(pp);
			if (!(s->present & PMS_SAMPLE_CALLCHAIN) ||
			    pms_callpath_from_chain(s->callchain, s->callchain_nr, true, f,
						    PMS_CALLPATH_MAX, &nfr) < 0) {
				cli_jrow_null(jr, k);
				break;
			}
			json_t *arr = json_array();
			for (size_t c = 0; arr && c < nfr; c++) {
				char hx[24];
				snprintf(hx, sizeof(hx), "0x%" PRIx64, f[c].ip);
				json_array_append_new(arr, json_string(hx));
			}
			jrow_json(jr, k, arr);
			break;
		}
		case F_N:
			break;
		}
	}
}

static void print_json(struct out *o, const struct fmt *fm, const struct pms_perfdata_event *ev,
		       int node)
{
	struct json_row j;
	struct jpend p;
	if (fm->json_direct) {
		out_room(o, LINE_CAP);
		p.j = NULL; /* not a compound literal: own[] stays unwritten */
		p.b = o->b + o->n + 1;
		p.n = 0;
		p.cap = LINE_CAP - 3;
		p.over = false;
		json_fields(&p, NULL, fm, ev, node);
		if (!p.over) { /* as cli_jrow_begin/_close make it */
			o->b[o->n] = '{';
			p.b[p.n] = '}';
			p.b[p.n + 1] = '\n';
			o->n += p.n + 3;
			return;
		}
	}
	cli_jrow_begin(&j);
	p.j = &j;
	p.b = p.own;
	p.n = 0;
	p.cap = sizeof(p.own);
	p.over = false;
	json_fields(&p, &j, fm, ev, node);
	jp_flush(&p);
	size_t n = cli_jrow_close(&j);
	out_put(o, j.b, n);
}


/* perf-tool record types 64.. (tools/lib/perf/include/perf/event.h). */
static const char *const user_types[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
	"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
	"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
	"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
	"BPF_METADATA", "SCHEDSTAT_CPU", "SCHEDSTAT_DOMAIN",
};

static const char *type_name(unsigned t)
{
	if (t >= 64 && t - 64 < sizeof(user_types) / sizeof(user_types[0]))
		return user_types[t - 64];
	return pms_record_type_name(t);
}

/* Shared with cmd_report.c: --header output. */
void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r);

void cli_perfdata_print_header(FILE *o, struct pms_perfdata_reader *r)
{
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
	const char *why;

	fprintf(o, "# mode: %s%s\n", pms_perfdata_reader_is_pipe(r) ? "pipe" : "file",
		pms_perfdata_reader_swapped(r) ? ", foreign byte order" : "");
	if (!pms_perfdata_reader_is_pipe(r))
		fprintf(o, "# attr_size: %" PRIu64 "\n", pms_perfdata_reader_attr_size(r));
	if (in->hostname)
		fprintf(o, "# hostname : %s\n", in->hostname);
	if (in->osrelease)
		fprintf(o, "# os release : %s\n", in->osrelease);
	if (in->version)
		fprintf(o, "# perf version : %s\n", in->version);
	if (in->arch)
		fprintf(o, "# arch : %s\n", in->arch);
	if (in->nr_cpus_avail)
		fprintf(o, "# nrcpus online : %u\n# nrcpus avail : %u\n", in->nr_cpus_online,
			in->nr_cpus_avail);
	if (in->cpudesc)
		fprintf(o, "# cpudesc : %s\n", in->cpudesc);
	if (in->cpuid)
		fprintf(o, "# cpuid : %s\n", in->cpuid);
	if (in->total_mem_kb)
		fprintf(o, "# total memory : %" PRIu64 " kB\n", in->total_mem_kb);
	if (in->ncmdline) {
		fputs("# cmdline :", o);
		for (size_t i = 0; i < in->ncmdline; i++)
			fprintf(o, " %s", in->cmdline[i]);
		fputc('\n', o);
	}
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++) {
		const struct pms_perfdata_attr *a = pms_perfdata_reader_attr(r, i);
		fprintf(o, "# event : name = %s, type = %" PRIu32 ", size = %" PRIu32
			   ", config = 0x%" PRIx64 ", sample_type = 0x%" PRIx64 ", ids = %zu\n",
			a->name ? a->name : "?", a->attr->type, a->recorded_size, (uint64_t)a->attr->config,
			(uint64_t)a->attr->sample_type, a->nids);
	}
	for (size_t i = 0; i < in->ncore_sibs; i++)
		fprintf(o, "# sibling sockets : %s\n", in->core_sibs[i]);
	for (size_t i = 0; i < in->ndie_sibs; i++)
		fprintf(o, "# sibling dies    : %s\n", in->die_sibs[i]);
	for (size_t i = 0; i < in->nthread_sibs; i++)
		fprintf(o, "# sibling threads : %s\n", in->thread_sibs[i]);
	for (size_t i = 0; i < in->nnuma; i++)
		fprintf(o, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n"
			   "# node%u cpu list : %s\n",
			in->numa[i].node, in->numa[i].mem_total_kb, in->numa[i].mem_free_kb,
			in->numa[i].node, in->numa[i].cpus);
	if (in->nmem) {
		fprintf(o, "# memory nodes (nr %zu, block size 0x%" PRIx64 "):\n", in->nmem,
			in->mem_block_size);
		for (size_t i = 0; i < in->nmem; i++) {
			uint64_t set = 0;
			for (uint64_t w = 0; w < (in->mem[i].nbits + 63) / 64; w++)
				set += (uint64_t)__builtin_popcountll(in->mem[i].bitmap[w]);
			fprintf(o, "#    %3" PRIu64 " [%" PRIu64 "M]: %" PRIu64 " blocks\n",
				in->mem[i].node, set * in->mem_block_size >> 20, set);
		}
	}
	for (size_t i = 0; i < in->nhybrid; i++)
		fprintf(o, "# %s cpu list : %s\n", in->hybrid[i].a, in->hybrid[i].b);
	for (size_t i = 0; i < in->npmu_caps; i++) {
		fprintf(o, "# %s pmu capabilities:", in->pmu_caps[i].pmu ? in->pmu_caps[i].pmu : "?");
		for (size_t k = 0; k < in->pmu_caps[i].ncaps; k++)
			fprintf(o, "%s %s=%s", k ? "," : "", in->pmu_caps[i].caps[k].a,
				in->pmu_caps[i].caps[k].b);
		fputc('\n', o);
	}
	if (in->npmu) {
		fputs("# pmu mappings:", o);
		for (size_t i = 0; i < in->npmu; i++)
			fprintf(o, "%s %s = %u", i ? "," : "", in->pmu[i].name, in->pmu[i].type);
		fputc('\n', o);
	}
	for (size_t i = 0; i < in->ngroups; i++)
		fprintf(o, "# group: %s{leader %u, %u members}\n",
			in->groups[i].name ? in->groups[i].name : "", in->groups[i].leader_idx,
			in->groups[i].nr_members);
	if (in->has[0] & (UINT64_C(1) << PMS_PERFDATA_FEAT_CLOCKID))
		fprintf(o, "# clockid frequency: %" PRIu64 " MHz\n",
			in->clockid_res_ns ? 1000 / in->clockid_res_ns : 0);
	if (in->comp_type)
		fprintf(o, "# compressed : %s, level = %u, ratio = %u\n",
			in->comp_type == 1 ? "Zstd" : "Unknown", in->comp_level, in->comp_ratio);
	fprintf(o, "# build ids: %zu\n", in->nbuild_ids);
	fputs("# features:", o);
	for (unsigned f = 0; f < PMS_PERFDATA_FEAT_MAX; f++)
		if (in->has[f / 64] & (UINT64_C(1) << (f % 64))) {
			const char *n = pms_perfdata_feature_name(f);
			if (n)
				fprintf(o, " %s", n);
			else
				fprintf(o, " %u", f);
		}
	fputc('\n', o);
	fprintf(o, "# records: %" PRIu64 ", samples: %" PRIu64 ", skipped: %" PRIu64
		   ", compressed: %" PRIu64 ", lost: %" PRIu64 "%s\n",
		st->records, st->samples, st->bad_records, st->compressed, st->lost,
		st->truncated ? ", data truncated" : "");
	if (st->unfinished || st->bad_features)
		fprintf(o, "# not read: %s%" PRIu64 " features skipped\n",
			st->unfinished ? "unfinished file (recovered to its end), " : "",
			st->bad_features);
	for (unsigned t = 0; t < 128; t++)
		if (st->by_type[t])
			fprintf(o, "#   %-20s %" PRIu64 "\n", type_name(t), st->by_type[t]);
	why = pms_perfdata_reader_nodes_why(r);
	fprintf(o, "# nodes: %s\n", why ? why : "from PHYS_ADDR and MEM_TOPOLOGY");
}

/* ---- recorded hardware samples the kernel did not write as records -------- */

struct spe_print {
	struct out *o;
	const struct fmt *fm;
	const struct pfmt *pf;
	bool json;
	struct pms_perfdata_reader *r;
	const struct pms_perfdata_attr *attr;
	uint64_t printed;
	bool mem, branch; /* --itrace M, b */
};

/* A memory sample as a SAMPLE line: only the fields it has; returns the
 * node of its physical address when -F asks for it. */
static int memsample_as_event(const struct pms_memsample *m, const struct pms_perfdata_attr *a,
			      const struct fmt *fm, struct pms_perfdata_event *ev)
{
	struct pms_sample *s = &ev->rec.sample;
	struct pms_memsample t = *m;
	struct pms_memdeco_out o = { .mem_node = PMS_NODE_UNKNOWN };
	memset(ev, 0, sizeof(*ev));
	ev->rec.type = PMS_RECORD_SAMPLE;
	ev->attr = a;
	s->ip = m->ip;
	s->pid = m->pid;
	s->tid = m->tid;
	s->cpu = m->cpu;
	s->addr = m->addr;
	s->phys_addr = m->phys_addr;
	s->weight = m->weight;
	s->data_src = m->data_src;
	s->period = m->period;
	/* SPE timestamps are counter ticks: perf time through the file's
	 * TIME_CONV (the decoration stage's), else none */
	pms_memdeco_spe_time(fm->deco, &t);
	s->time = t.time;
	if (fm->want_node)
		pms_memdeco_apply(fm->deco, &t, (t.valid & PMS_MS_PHYS) ? &t.phys_addr : NULL, &o);
	return o.mem_node;
}

/* One sample synthesized from an SPE record, with the SPE event's period
 * (each record stands for sample_period operations). */
static void spe_emit(struct spe_print *p, struct pms_perfdata_event *ev, int node)
{
	ev->rec.sample.period = p->attr ? p->attr->attr->sample_period : 0;
	if (p->json)
		print_json(p->o, p->fm, ev, node);
	else
		print_perf(p->o, p->fm, p->pf, ev, node);
	p->printed++;
}

static int spe_print_one(void *arg, const struct pms_spe_record *rec, const struct pms_memsample *m)
{
	struct spe_print *p = arg;
	struct pms_perfdata_event ev;
	struct pms_spe_branch br;
	/* perf's order: the branch-miss sample before the memory one
	 * (arm-spe.c arm_spe_sample) */
	if (p->branch && pms_spe_record_branch_miss(rec, &br)) {
		(void)memsample_as_event(m, p->attr, p->fm, &ev);
		ev.rec.sample.ip = br.from;
		ev.rec.sample.addr = br.to;
		ev.rec.sample.weight = br.latency;
		ev.rec.sample.data_src = 0;
		ev.rec.sample.phys_addr = 0;
		spe_emit(p, &ev, PMS_NODE_UNKNOWN);
	}
	if (!p->mem || !pms_spe_record_is_mem(rec))
		return 0;
	spe_emit(p, &ev, memsample_as_event(m, p->attr, p->fm, &ev));
	return 0;
}

/* An arm_spe AUXTRACE chunk: its load/store records, as perf script
 * --itrace=M shows them (docs/spe.md). */
static void script_spe(struct spe_print *p, const struct pms_perfdata_event *ev,
		       struct pms_spe_chunk_stats *cs)
{
	struct pms_perfdata_spe_meta meta;
	struct pms_spe_chunk_ctx cx = { 0 };
	uint64_t midr = 0;

	if (pms_perfdata_reader_spe_meta(p->r, &meta) < 0)
		return;
	p->attr = NULL;
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(p->r); i++)
		if (pms_perfdata_reader_attr(p->r, i)->attr->type == meta.pmu_type)
			p->attr = pms_perfdata_reader_attr(p->r, i);
	if (!p->attr)
		p->attr = ev->attr;
	(void)pms_perfdata_reader_spe_midr(p->r, ev->auxtrace.cpu, &midr);
	cx.midr = midr;
	cx.cpu = ev->auxtrace.cpu;
	cx.tid = ev->aux_tid; /* the reader's rule, as report's */
	cx.pid = ev->aux_pid;
	(void)pms_spe_chunk_decode(ev->aux_data, ev->aux_len, &cx, cs, spe_print_one, p);
}

/* An ibs_op sample recorded with RAW only: the fields the kernel did not
 * write, as the one converter fills them from the registers
 * (pms_memsample_from_sample; docs/ibs.md). */
static void ibs_fill(struct pms_perfdata_reader *r, struct pms_perfdata_event *ev)
{
	struct pms_sample *s = &ev->rec.sample;
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	const char *pmu = NULL;
	struct pms_ibs_cpu cpu;
	struct pms_memconv_ctx cx;
	struct pms_memsample m;

	if (!(s->present & PMS_SAMPLE_RAW) || !in->cpuid ||
	    pms_ibs_cpu_from_cpuid(in->cpuid, 0, &cpu) < 0)
		return;
	for (size_t i = 0; i < in->npmu; i++)
		if (in->pmu[i].type == ev->attr->attr->type)
			pmu = in->pmu[i].name;
	if (pms_engine_of_pmu(pmu, NULL) != PMS_ENG_IBS)
		return;
	memset(&cx, 0, sizeof(cx));
	cx.engine = PMS_ENG_IBS;
	cx.sample_type = ev->attr->sample_type;
	cx.ibs_cpu = &cpu;
	cx.ibs_ldlat = (unsigned)(ev->attr->attr->config1 & 0xfff);
	if (pms_memsample_from_sample(s, &cx, &m, NULL) < 0)
		return;
	if (!(s->present & PMS_SAMPLE_DATA_SRC) && (m.valid & PMS_MS_DATA_SRC))
		s->data_src = m.data_src;
	if (!(s->present & PMS_SAMPLE_ADDR) && (m.valid & PMS_MS_ADDR))
		s->addr = m.addr;
	if (!(s->present & PMS_SAMPLE_PHYS_ADDR) && (m.valid & PMS_MS_PHYS))
		s->phys_addr = m.phys_addr;
	if (!(s->present & (PMS_SAMPLE_WEIGHT | PMS_SAMPLE_WEIGHT_STRUCT)) &&
	    (m.valid & PMS_MS_WEIGHT)) {
		s->weight = m.weight;
		s->weight_var2_w = (uint16_t)m.ins_lat;
	}
}

/* Shared with cmd_report.c: open -i FILE ('-' = stdin). */
int cli_perfdata_open(const char *cmd, const char *path, int *fd, struct pms_perfdata_reader **r);

int cli_perfdata_open(const char *cmd, const char *path, int *fd, struct pms_perfdata_reader **r)
{
	*fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (*fd < 0) {
		fprintf(stderr, "pmuscope: %s: %s: %s\n", cmd, path, strerror(errno));
		return 1;
	}
	if (pms_perfdata_reader_open_fd(*fd, r) < 0) {
		fprintf(stderr, "pmuscope: %s: %s: %s\n", cmd, path, pms_error_last());
		if (*fd > 0)
			close(*fd);
		return 1;
	}
	return 0;
}

/* Shared with cmd_report.c: say on stderr what the reader skipped or found
 * corrupt (features, records, a cut or unfinished file). */
void cli_perfdata_problems(const char *cmd, const char *path,
			   const struct pms_perfdata_reader *r);

void cli_perfdata_problems(const char *cmd, const char *path,
			   const struct pms_perfdata_reader *r)
{
	size_t n = pms_perfdata_reader_nproblems(r), i;
	const char *m;
	for (i = 0; (m = pms_perfdata_reader_problem(r, i)) != NULL; i++)
		fprintf(stderr, "pmuscope: %s: %s: warning: %s\n", cmd, path, m);
	if (n > i)
		fprintf(stderr, "pmuscope: %s: %s: warning: %zu more problems not shown\n", cmd,
			path, n - i);
}


/* perf's checks of the fields against the events and what the lines share,
 * once the attrs are in (pipe mode: at the first sample); 0, or exit 2. */
static int pf_setup(struct pfmt *pf, struct fmt *fm, struct pms_perfdata_reader *r,
		    bool hide_chain, bool cpu_filter)
{
	const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
	bool aux = (in->has[PMS_PERFDATA_FEAT_AUXTRACE / 64] >>
		    (PMS_PERFDATA_FEAT_AUXTRACE % 64)) & 1;
	if (pf_check(pf->o, r, aux) < 0)
		return 2;
	pf->use_chain = !hide_chain;
	if (cpu_filter) {
		bool has_cpu = false;
		for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++)
			has_cpu |= (pms_perfdata_reader_attr(r, i)->sample_type & PMS_SAMPLE_CPU) != 0;
		if (!has_cpu) {
			fprintf(stderr, "File does not contain CPU events. "
					"Remove -C option to proceed.\n");
			return 2;
		}
	}
	for (size_t i = 0; i < pms_perfdata_reader_nattrs(r); i++) {
		char nb[64];
		int w = (int)strlen(pf_event_name(pms_perfdata_reader_attr(r, i), nb, sizeof(nb)));
		pf->name_width = w > pf->name_width ? w : pf->name_width;
	}
	for (int t = 0; t < OT_N; t++)
		pf->want_node |= (pf->o[t].fields & PX_NODE) != 0;
	fm->want_node |= pf->want_node;
	return 0;
}

/* A comma-separated list into v (pointers into a copy the caller frees). */
static int split_list(const char *arg, char **copy, char ***v, size_t *n)
{
	size_t k = 1;
	for (const char *p = arg; *p; p++)
		k += *p == ',';
	*copy = strdup(arg);
	*v = calloc(k, sizeof(**v));
	*n = 0;
	if (!*copy || !*v)
		return -1;
	for (char *save = NULL, *t = strtok_r(*copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		(*v)[(*n)++] = t;
	return 0;
}

static bool in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static bool in_ids(char **v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (strtoul(v[i], NULL, 10) == id)
			return true;
	return false;
}

/* perf's time form (util/time-utils.c parse_timestr_sec_nsec): seconds,
 * then up to nine digits of fraction; empty is 0 (no bound). */
static int time_ns(const char *s, size_t len, uint64_t *out)
{
	uint64_t sec = 0, ns = 0;
	size_t i = 0, d = 0;
	*out = 0;
	if (!len)
		return 0;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, d++)
			if (d < 9)
				ns = ns * 10 + (uint64_t)(s[i] - '0');
		for (; d < 9; d++)
			ns *= 10;
	}
	if (i != len)
		return -1;
	*out = sec * 1000000000u + ns;
	return 0;
}

/* --time: START,END (either may be empty), perf's absolute form; its
 * percent slices (10%/2) are refused, not guessed. */
struct trange {
	bool set;
	uint64_t start, end;  /* absolute ns, 0: unbounded */
};

static int parse_time(const char *arg, struct trange *t)
{
	const char *c = strchr(arg, ',');
	t->set = true;
	if (!c)
		return time_ns(arg, strlen(arg), &t->start);
	if (time_ns(arg, (size_t)(c - arg), &t->start) < 0 ||
	    time_ns(c + 1, strlen(c + 1), &t->end) < 0 || (t->end && t->start > t->end))
		return -1;
	return 0;
}

static bool time_skip(const struct trange *t, uint64_t ts)
{
	return t->set && ((t->start && ts < t->start) || (t->end && ts > t->end));
}

/* --comms, --pid, --tid, -C, --time (and -S's list, kept in pf). */
struct filt {
	char *copy[4];
	char **comm_v, **pid_v, **tid_v;
	size_t comm_n, pid_n, tid_n;
	struct pms_cpuset cpus;
	bool cpu;
	struct trange tr;
};

static int filt_list(struct filt *f, struct pfmt *pf, int opt, const char *arg)
{
	int k = opt == 'S' ? 3 : opt == O_COMMS ? 0 : opt == O_PID ? 1 : 2;
	char ***v = k == 3 ? &pf->syms : k == 0 ? &f->comm_v : k == 1 ? &f->pid_v : &f->tid_v;
	size_t *n = k == 3 ? &pf->nsyms : k == 0 ? &f->comm_n : k == 1 ? &f->pid_n : &f->tid_n;
	free(f->copy[k]);
	free(*v);
	return split_list(arg, &f->copy[k], v, n);
}

static bool filt_drops(const struct filt *f, const struct comms *cm, const struct pms_sample *s)
{
	size_t ci;
	return time_skip(&f->tr, s->time) ||
	       (f->cpu && s->cpu != UINT32_MAX && !pms_cpuset_has(&f->cpus, (int)s->cpu)) ||
	       (f->pid_n && !in_ids(f->pid_v, f->pid_n, s->pid)) ||
	       (f->tid_n && !in_ids(f->tid_v, f->tid_n, s->tid)) ||
	       (f->comm_n && ((ci = comm_find(cm, s->tid)) == SIZE_MAX ||
			      !in_list(f->comm_v, f->comm_n, cm->name[ci])));
}

static void filt_free(struct filt *f, struct pfmt *pf)
{
	for (size_t i = 0; i < 4; i++)
		free(f->copy[i]);
	free(f->comm_v);
	free(f->pid_v);
	free(f->tid_v);
	free(pf->syms);
	pms_cpuset_fini(&f->cpus);
}

int cmd_script(const struct cli_global *g, int argc, char **argv)
{
	const char *path = "perf.data", *fields = NULL;
	bool have_i = false;
	const char *operand = NULL;
	bool json = false, header = false, it_mem = true, it_branch = false;
	enum field fs[32];
	size_t nf = 0;
	struct pms_perfdata_reader *r = NULL;
	struct pms_perfdata_event ev;
	struct comms comms = { 0 };
	struct pms_datasrc_memo *dm[2] = { NULL, NULL };
	struct evcache evc = { .n = 0 };
	struct fmt fm = { .deco = NULL };
	struct out out = { .f = stdout, .b = NULL, .n = 0, .cap = 1 << 20 };
	struct pms_spe_chunk_stats spe_st = { 0 };
	static char obuf[1 << 20];
	int fd = -1, rc, ret = 0;

	size_t dsrc_max = 0;
	struct pfmt pf = { .ns = false, .dsrc_max = &dsrc_max };
	bool hide_chain = false;
	const char *farg[8];
	size_t nfarg = 0;
	struct filt fl = { .tr = { .set = false } };
	bool pf_checked = false;
	struct pms_sys *sys = NULL;

	struct cli_parser cp;
	int c;
	pf_defaults(pf.o);
	cli_parser_init(&cp, &cli_spec_script, argc, argv);
	while ((c = cli_next(&cp)) > 0) {
		switch (c) {
		case O_JSON: json = true; break;
		case O_HEADER: header = true; break;
		case 'i': path = cp.arg; have_i = true; break;
		case CLI_OPERAND:
			/* `script FILE` as users type it; -i FILE as perf takes it */
			if (operand)
				{ ret = cli_usage(&cli_spec_script, "one FILE at most ('%s' and '%s')", operand, cp.arg); goto out; }
			operand = cp.arg;
			break;
		case 'F':
			fields = cp.arg;
			if (nfarg == sizeof(farg) / sizeof(farg[0]))
				{ ret = cli_usage(&cli_spec_script, "-F: at most %zu times", nfarg); goto out; }
			farg[nfarg++] = cp.arg;
			break;
		case 'G': hide_chain = true; break;
		case O_NS: pf.ns = true; break;
		case 'S':
		case O_COMMS:
		case O_PID:
		case O_TID:
			if (filt_list(&fl, &pf, c, cp.arg) < 0)
				{ ret = cli_fail("script"); goto out; }
			break;
		case 'C':
			if (pms_cpuset_parse_list(&fl.cpus, cp.arg) < 0)
				{ ret = cli_usage(&cli_spec_script, "-C '%s': %s", cp.arg, pms_error_last()); goto out; }
			fl.cpu = true;
			break;
		case O_TIME:
			if (parse_time(cp.arg, &fl.tr) < 0)
				{ ret = cli_usage(&cli_spec_script, "--time '%s': give START,END in seconds "
						 "(either may be empty; perf's percent forms are not "
						 "taken)", cp.arg); goto out; }
			break;
		case O_ITRACE:
			it_mem = it_branch = false;
			for (const char *l = cp.arg; *l; l++) {
				if (*l == 'M')
					it_mem = true;
				else if (*l == 'b')
					it_branch = true;
				else
					{ ret = cli_usage(&cli_spec_script,
							 "--itrace '%s': the letters are M (memory) and "
							 "b (mispredicted branches)", cp.arg); goto out; }
			}
			if (!it_mem && !it_branch)
				{ ret = cli_usage(&cli_spec_script, "--itrace: give M, b or Mb"); goto out; }
			break;
		default: { ret = cli_usage(&cli_spec_script, "'%s' is not an argument of script", cp.arg); goto out; }
		}
	}
	if (c != CLI_END)
		{ ret = cli_exit_code(c); goto out; }
	if (cp.ind < argc)
		{ ret = cli_usage(&cli_spec_script, "'%s' is not an argument of script", argv[cp.ind]); goto out; }
	if (operand) {
		if (have_i)
			{ ret = cli_usage(&cli_spec_script, "'%s': the file is already given by -i", operand); goto out; }
		path = operand;
	}
	if (!json) {
		/* perf's -F grammar and its fixed order; --json keeps its list */
		for (size_t i = 0; i < nfarg; i++)
			if (pf_parse(pf.o, farg[i]) < 0) {
				ret = 2;
				goto out;
			}
		fields = "";
	}
	if (!fields)
		fields = "comm,pid,tid,cpu,time,event,ip,addr,weight,data_src";
	for (const char *p = fields; *p;) {
		size_t n = strcspn(p, ",");
		size_t k;
		for (k = 0; k < F_N; k++)
			if (strlen(field_names[k]) == n && !strncmp(p, field_names[k], n))
				break;
		if (k == F_N)
			{ ret = cli_usage(&cli_spec_script, "-F: unknown field '%.*s'", (int)n, p); goto out; }
		if (nf == sizeof(fs) / sizeof(fs[0]))
			return cli_usage(&cli_spec_script, "-F: at most %zu fields; '%.*s' would be field %zu",
					 sizeof(fs) / sizeof(fs[0]), (int)n, p, nf + 1);
		fs[nf++] = (enum field)k;
		p += n;
		if (*p == ',')
			p++;
	}
	if (cli_perfdata_open("script", path, &fd, &r)) {
		ret = 1;
		goto out;
	}
	if (!json && !header) {
		const struct pms_perfdata_info *in = pms_perfdata_reader_info(r);
		if (!(sys = cli_open_sys(g)) || pms_symtrack_new(sys, in, &pf.st) < 0) {
			ret = cli_fail("script");
			goto out;
		}
	}
	out.b = malloc(out.cap);
	if (pms_datasrc_memo_new(PMS_DATASRC_MEMO_SCRIPT, 0, &dm[0]) < 0 ||
	    pms_datasrc_memo_new(PMS_DATASRC_MEMO_TEXT, 0, &dm[1]) < 0 || !out.b) {
		ret = cli_fail("script");
		goto out;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	dig2_init();
	fm = (struct fmt){ .fs = fs, .nf = nf, .comms = &comms, .dm = { dm[0], dm[1] }, .evc = &evc };
	fmt_keys(&fm);
	fm.json_direct = true;
	for (size_t i = 0; i < nf; i++) {
		if (fs[i] == F_BRSTACK || fs[i] == F_CALLCHAIN)
			fm.json_direct = false;
		fm.want_node |= fs[i] == F_NODE;
	}
	fm.want_node |= pf.want_node;
	while ((rc = pms_perfdata_next(r, &ev)) > 0) {
		int node = PMS_NODE_UNKNOWN;
		if (ev.rec.type == PMS_RECORD_COMM)
			comm_set(&comms, ev.rec.comm.tid, ev.rec.comm.comm);
		if (ev.rec.type == PMS_RECORD_FORK && !json &&
		    comm_find(&comms, ev.rec.fork.tid) == SIZE_MAX) {
			/* perf: a forked thread starts with its parent's comm */
			size_t pc = comm_find(&comms, ev.rec.fork.ptid);
			if (pc != SIZE_MAX) {
				char cn[16];
				memcpy(cn, comms.name[pc], sizeof(cn));
				comm_set(&comms, ev.rec.fork.tid, cn);
			}
		}
		if (pf.st && ev.rec.type != PMS_RECORD_SAMPLE &&
		    pms_symtrack_record(pf.st, &ev.rec) < 0) {
			ret = cli_fail("script");
			goto out;
		}
		if (ev.rec.type == PMS_RECORD_COMM)
			continue;
		/* the decoration stage, once the headers are in (pipe mode:
		 * at the first sample or trace) */
		if (!fm.deco && !header &&
		    (ev.rec.type == PMS_RECORD_SAMPLE || ev.rec.type == PMS_PERFDATA_RECORD_AUXTRACE) &&
		    pms_memdeco_new_file(r, &fm.deco) < 0) {
			ret = cli_fail("script");
			goto out;
		}
		/* perf's checks of the fields against the events, once the
		 * attrs are in (pipe mode: at the first sample) */
		if (!json && !pf_checked && !header &&
		    (ev.rec.type == PMS_RECORD_SAMPLE || ev.rec.type == PMS_PERFDATA_RECORD_AUXTRACE)) {
			pf_checked = true;
			if ((ret = pf_setup(&pf, &fm, r, hide_chain, fl.cpu)) != 0)
				goto out;
		}
		if (ev.rec.type == PMS_PERFDATA_RECORD_AUXTRACE && !header) {
			struct spe_print sp = { .o = &out, .fm = &fm, .pf = &pf, .json = json,
						.r = r, .attr = NULL,
						.printed = 0, .mem = it_mem, .branch = it_branch };
			script_spe(&sp, &ev, &spe_st);
			continue;
		}
		if (ev.rec.type != PMS_RECORD_SAMPLE || header)
			continue;

		if (filt_drops(&fl, &comms, &ev.rec.sample))
			continue;
		ibs_fill(r, &ev);
		if (fm.want_node && (ev.rec.sample.present & PMS_SAMPLE_PHYS_ADDR)) {
			struct pms_memsample none = { .valid = 0 };
			struct pms_memdeco_out o;
			pms_memdeco_apply(fm.deco, &none, &ev.rec.sample.phys_addr, &o);
			node = o.mem_node;
		}
		if (json)
			print_json(&out, &fm, &ev, node);
		else
			print_perf(&out, &fm, &pf, &ev, node);
	}
	out_flush(&out);
	if (header)
		cli_perfdata_print_header(stdout, r);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "pmuscope: script: %s: %s\n", path, pms_error_last());
		ret = 1;
	}
	{
		const struct pms_perfdata_stats *st = pms_perfdata_reader_stats(r);
		cli_perfdata_problems("script", path, r);
		if (st->bad_records)
			fprintf(stderr, "pmuscope: script: %s: %" PRIu64 " records skipped; last: %s\n",
				path, st->bad_records, pms_perfdata_reader_last_skip(r));
		if (st->unknown_id)
			fprintf(stderr, "pmuscope: script: %s: %" PRIu64
					" samples with an id of no event dropped\n",
				path, st->unknown_id);
		if (spe_st.cut_chunks || st->aux_truncated || st->aux_partial)
			fprintf(stderr,
				"pmuscope: script: %s: AUX data lost: %" PRIu64 " SPE records cut by "
				"the end of their chunk (%" PRIu64 " bytes) dropped; %" PRIu64
				" AUX records truncated, %" PRIu64 " partial\n",
				path, spe_st.cut_chunks, spe_st.cut_bytes, st->aux_truncated,
				st->aux_partial);
	}
out:
	pms_symtrack_free(pf.st);
	pms_sys_free(sys);
	filt_free(&fl, &pf);
	pms_memdeco_free(fm.deco);
	pms_datasrc_memo_free(dm[0]);
	pms_datasrc_memo_free(dm[1]);
	free(out.b);
	evcache_free(&evc);
	comms_free(&comms);
	pms_perfdata_reader_free(r);
	if (fd > 0)
		close(fd);
	return ret;
}
