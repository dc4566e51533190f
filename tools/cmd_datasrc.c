/* pmuscope datasrc: decode perf_mem_data_src values exactly as perf prints
 * them (perf script -F data_src, perf mem report columns), and turn vendor
 * raw words (IBS OpData2/3, PEBS status, SPE source/events) into data_src. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "pmuscope/datasrc.h"
#include "pmuscope/error.h"
#include "pmuscope/render_cmd.h"

int cmd_datasrc(const struct cli_global *g, int argc, char **argv);

enum { O_JSON = 256, O_COLUMNS, O_DEC, O_IBS, O_PEBS, O_SPE };

static const struct cli_opt opts[] = {
	{ "dec", 0, CLI_NOARG, NULL, O_DEC, "read VALUEs without 0x as decimal instead" },
	{ "columns", 0, CLI_NOARG, NULL, O_COLUMNS,
	  "tab-separated perf mem report columns instead: value, op,\n"
	  "Memory access, Snoop, TLB access, Locked, Blocked" },
	{ "json", 0, CLI_NOARG, NULL, O_JSON, "per value: script text, columns, mem-stat names, fields" },
	{ "ibs-op", 0, CLI_ARG, "D2,D3[,FAMILY,MODEL,CAPS]", O_IBS,
	  "AMD IBS IbsOpData2/IbsOpData3 (hex) of a valid op sample;\n"
	  "the CPU defaults to family 0x19 model 0x61 caps 0x800 (Zen 4)" },
	{ "pebs", 0, CLI_ARG, "UARCH:STATUS[:KIND]", O_PEBS,
	  "Intel PEBS status/aux word; UARCH one of nhm snb skl skx glc\n"
	  "glc_hybrid grt cmt lnc pnc arw; KIND load (default), store,\n"
	  "precise-store, hsw-load, hsw-store, hsw-na" },
	{ "spe", 0, CLI_ARG, "MIDR:SOURCE:ld|st[:EVENTS]", O_SPE,
	  "Arm SPE: MIDR, data source packet, op, event bit mask (hex);\n"
	  "DATA_SNOOPED is taken as not implemented" },
	{ 0 },
};

const struct cli_spec cli_spec_datasrc = {
	.name = "datasrc",
	.synopsis = "datasrc [--json] [--columns] [--dec] VALUE...\n"
		    "datasrc [--json] [--columns] --ibs-op DATA2,DATA3[,FAMILY,MODEL,CAPS]\n"
		    "datasrc [--json] [--columns] --pebs UARCH:STATUS[:KIND]\n"
		    "datasrc [--json] [--columns] --spe MIDR:SOURCE:ld|st[:EVENTS]",
	.description =
		"Decode perf_mem_data_src values as perf 7.3 prints them.  Each line is\n"
		"the perf script -F data_src field: the value as %16x, then\n"
		"|OP ..|LVL ..|SNP ..|TLB ..|LCK ..|BLK .. (cut at 99 characters, like perf).\n\n"
		"VALUE: hex, with or without 0x (as perf script prints it).",
	.opts = opts,
	.footer = "Exit status: 0 ok, 1 bad value or spec, 2 usage error.",
};

struct item {
	uint64_t val;
	int kind; /* CLI_OPERAND or O_IBS/O_PEBS/O_SPE */
	const char *arg; /* where it came from */
};

/* Hex (0x optional) or, with dec, bare decimal; the whole string must be a
 * number that fits in 64 bits. */
static int parse_u64(const char *s, bool dec, uint64_t *out)
{
	int base = 16;
	char *end;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	else if (dec)
		base = 10;
	if (!*s || strchr("+- \t", *s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int bad(const char *opt, const char *arg, const char *why)
{
	if (opt)
		fprintf(stderr, "pmuscope: datasrc: %s '%s': %s\n", opt, arg, why);
	else
		fprintf(stderr, "pmuscope: datasrc: '%s': %s\n", arg, why);
	return 1;
}

/* Split s at sep into at most max fields (in place in a copy). */
static int split(char *s, char sep, char **f, int max)
{
	int n = 0;
	for (char *p = s; n < max; n++) {
		f[n] = p;
		p = strchr(p, sep);
		if (!p)
			return n + 1;
		*p++ = '\0';
	}
	return -1;
}

static int ibs_item(const char *arg, uint64_t *out)
{
	char tmp[256], *f[5];
	uint64_t v[5] = { 0, 0, 0x19, 0x61, PMS_IBS_CAPS_ZEN4 };
	if (strlen(arg) >= sizeof(tmp))
		return bad("--ibs-op", arg, "too long");
	strcpy(tmp, arg);
	int n = split(tmp, ',', f, 5);
	if (n != 2 && n != 5)
		return bad("--ibs-op", arg, "want DATA2,DATA3 or DATA2,DATA3,FAMILY,MODEL,CAPS");
	for (int i = 0; i < n; i++)
		if (parse_u64(f[i], false, &v[i]) < 0)
			return bad("--ibs-op", arg, "fields must be hex numbers");
	struct pms_ibs_op_regs r = { 0 };
	struct pms_ibs_cpu c = { (unsigned)v[2], (unsigned)v[3], (uint32_t)v[4] };
	struct pms_ibs_op_sample s;
	r.op_ctl = 1ULL << 18; /* IbsOpVal */
	r.op_data2 = v[0];
	r.op_data3 = v[1];
	if (pms_ibs_op_decode(&r, &c, PMS_IBS_SAMPLE_DATA_SRC, 0, &s) < 0)
		return bad("--ibs-op", arg, pms_error_last());
	*out = s.data_src;
	return 0;
}

static const struct {
	const char *name;
	enum pms_pebs_kind kind;
} pebs_kinds[] = {
	{ "load", PMS_PEBS_LOAD_LATENCY },      { "store", PMS_PEBS_STORE_LATENCY },
	{ "precise-store", PMS_PEBS_PRECISE_STORE }, { "hsw-load", PMS_PEBS_HSW_LOAD },
	{ "hsw-store", PMS_PEBS_HSW_STORE },    { "hsw-na", PMS_PEBS_HSW_NA },
};

static int pebs_item(const char *arg, uint64_t *out)
{
	char tmp[256], *f[3];
	enum pms_pebs_uarch u;
	enum pms_pebs_kind kind = PMS_PEBS_LOAD_LATENCY;
	uint64_t st;
	if (strlen(arg) >= sizeof(tmp))
		return bad("--pebs", arg, "too long");
	strcpy(tmp, arg);
	int n = split(tmp, ':', f, 3);
	if (n != 2 && n != 3)
		return bad("--pebs", arg, "want UARCH:STATUS[:KIND]");
	if (pms_pebs_uarch_from_name(f[0], &u) < 0)
		return bad("--pebs", arg, pms_error_last());
	if (parse_u64(f[1], false, &st) < 0)
		return bad("--pebs", arg, "STATUS must be a hex number");
	if (n == 3) {
		size_t k, nk = sizeof(pebs_kinds) / sizeof(pebs_kinds[0]);
		for (k = 0; k < nk && strcmp(f[2], pebs_kinds[k].name); k++)
			;
		if (k == nk)
			return bad("--pebs", arg,
				   "KIND must be load, store, precise-store, hsw-load, hsw-store "
				   "or hsw-na");
		kind = pebs_kinds[k].kind;
	}
	if (pms_pebs_data_src(u, kind, st, out) < 0)
		return bad("--pebs", arg, pms_error_last());
	return 0;
}

static int spe_item(const char *arg, uint64_t *out)
{
	char tmp[256], *f[4];
	struct pms_spe_in in = { 0 };
	uint64_t midr, src, ev = 0;
	if (strlen(arg) >= sizeof(tmp))
		return bad("--spe", arg, "too long");
	strcpy(tmp, arg);
	int n = split(tmp, ':', f, 4);
	if (n != 3 && n != 4)
		return bad("--spe", arg, "want MIDR:SOURCE:ld|st[:EVENTS]");
	if (parse_u64(f[0], false, &midr) < 0 || parse_u64(f[1], false, &src) < 0 ||
	    src > 0xffff || (n == 4 && parse_u64(f[3], false, &ev) < 0))
		return bad("--spe", arg, "MIDR, SOURCE (16 bits) and EVENTS must be hex numbers");
	if (!strcmp(f[2], "ld"))
		in.op = PMS_SPE_OP_MEM | PMS_SPE_OP_LD;
	else if (!strcmp(f[2], "st"))
		in.op = PMS_SPE_OP_MEM | PMS_SPE_OP_ST;
	else
		return bad("--spe", arg, "the op must be ld or st");
	in.midr = midr;
	in.midr_valid = true;
	in.source = (uint16_t)src;
	in.events = ev;
	*out = pms_spe_data_src(&in);
	return 0;
}

int cmd_datasrc(const struct cli_global *g, int argc, char **argv)
{
	bool json = false, columns = false, dec = false;
	struct item *items = NULL;
	int n = 0, rc = 0;

	struct cli_parser p;
	int c;
	(void)g;
	items = calloc((size_t)argc, sizeof(*items));
	if (!items) {
		fprintf(stderr, "pmuscope: datasrc: out of memory\n");
		return 1;
	}
	/* Collect in order first: --dec changes how every VALUE reads. */
	cli_parser_init(&p, &cli_spec_datasrc, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case O_JSON: json = true; break;
		case O_COLUMNS: columns = true; break;
		case O_DEC: dec = true; break;
		default:
			items[n].kind = c;
			items[n++].arg = p.arg;
		}
	}
	if (c != CLI_END) {
		rc = cli_exit_code(c);
		goto out;
	}
	for (int k = p.ind; k < argc; k++) {
		items[n].kind = CLI_OPERAND;
		items[n++].arg = argv[k];
	}
	for (int i = 0; i < n; i++) {
		int r;
		switch (items[i].kind) {
		case O_IBS: r = ibs_item(items[i].arg, &items[i].val); break;
		case O_PEBS: r = pebs_item(items[i].arg, &items[i].val); break;
		case O_SPE: r = spe_item(items[i].arg, &items[i].val); break;
		default:
			r = 0;
			if (parse_u64(items[i].arg, dec, &items[i].val) < 0)
				r = bad(NULL, items[i].arg,
					dec ? "not a number (decimal, or hex with 0x)"
					    : "not a 64-bit hex number (0x optional; --dec for decimal)");
		}
		if (r) {
			rc = r;
			goto out;
		}
	}
	if (n == 0) {
		rc = cli_usage(&cli_spec_datasrc, "no VALUE given");
		goto out;
	}

	if (json) {
		struct pms_json j;
		pms_json_init(&j, stdout);
		pms_json_begin_object(&j, NULL);
		pms_json_begin_array(&j, "values");
		for (int i = 0; i < n; i++)
			pms_render_datasrc_json(&j, items[i].arg, items[i].val);
		pms_json_end_array(&j);
		pms_json_end_object(&j);
		cli_json_finish(&j);
	} else if (columns) {
		printf("data_src\top\tMemory access\tSnoop\tTLB access\tLocked\tBlocked\n");
		for (int i = 0; i < n; i++)
			pms_render_datasrc_columns(stdout, items[i].val);
	} else {
		char b[128];
		for (int i = 0; i < n; i++) {
			pms_datasrc_format_script(items[i].val, b, sizeof(b));
			printf("%s\n", b);
		}
	}
out:
	free(items);
	return rc;
}
