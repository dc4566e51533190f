/* perf script's -F grammar, its check of the fields against a file's
 * events and perf's event names (pmuscope/script.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/event.h"
#include "pmuscope/memsample.h"
#include "session/script_int.h"
#include "util/error.h"

const char *pms_script_event_name_(const struct pms_perfdata_attr *a, char *buf, size_t size)
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
static const char *const ot_names[OT_N] = { "hw", "sw", "trace", NULL, "raw", "break", "synth", NULL };
/* perf's event_type() words in its messages */
static const char *const ot_words[OT_N] = { "hardware", "software", "tracepoint", "hardware-cache",
					    "raw", "hw-breakpoint", "synth", "other" };

#define PF_BASE (PF_COMM | PF_TID | PF_CPU | PF_TIME | PF_EVENT | PF_IP | PF_SYM | PF_SYMOFF | PF_DSO)

void pms_script_pf_defaults_(struct pf_out o[OT_N])
{
	for (int t = 0; t < OT_N; t++)
		o[t] = (struct pf_out){ .fields = PF_BASE | PF_PERIOD, .invalid = PF_TRACE | PF_BPF };
	o[OT_SW].fields |= PF_BPF;
	o[OT_SW].invalid = PF_TRACE;
	o[OT_TRACE] = (struct pf_out){ .fields = PF_COMM | PF_TID | PF_CPU | PF_TIME | PF_EVENT | PF_TRACE };
	o[OT_RAW].fields |= PF_ADDR | PF_DSRC | PF_WEIGHT | PF_PHYS | PF_INSLAT | PF_RETLAT;
	o[OT_SYNTH].fields = PF_BASE;
}

int pms_script_ot_of_(uint32_t type)
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
int pms_script_pf_parse_(struct pf_out o[OT_N], const char *arg)
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
			return pms_err(PMS_EINVAL, "Invalid event type in field string.");
		}
		list = colon + 1;
		if (!strchr(list, '+') && !strchr(list, '-'))
			o[type] = (struct pf_out){ .invalid = o[type].invalid, .user_set = true };
	} else {
		if (!*arg) {
			return pms_err(PMS_EINVAL, "Cannot set fields to 'none' for all event types.");
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
					return pms_err(PMS_ENOTSUP, "-F: '%s' is a field of perf "
								   "script this tool does not print", tok);
				}
			return pms_err(PMS_EINVAL, "Invalid field requested.");
		}
		for (int t = 0; t < OT_N; t++) {
			if (type >= 0 && t != type)
				continue;
			if (o[t].invalid & bit) {
				if (type >= 0) {
					return pms_err(PMS_EINVAL, "'%s' not valid for %s events.", tok, ot_words[t]);
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
	return pms_err(PMS_EINVAL, "Cannot mix +-field with overridden fields");
}

/* perf's name of an event (evsel__name): the file's, a generic one, else
 * "unknown attr type: N" for a type it cannot name. */
const char *pms_script_pf_event_name_(const struct pms_perfdata_attr *a, char *buf, size_t size)
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
		return pms_script_event_name_(a, buf, size);
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
bool pms_script_ibs_raw_(struct pms_perfdata_reader *r, const struct pms_perfdata_attr *a)
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
int pms_script_pf_check_(struct pf_out o[OT_N], struct pms_perfdata_reader *r, bool aux)
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
		int t = pms_script_ot_of_(a->attr->type);
		char nb[64];
		const char *name = pms_script_pf_event_name_(a, nb, sizeof(nb));
		/* perf skips the dummy event and checks the first of each type */
		if (a->attr->type == 1 && a->attr->config == 9)
			continue;
		if (seen[t])
			continue;
		seen[t] = true;
		/* an ibs_op event recorded with RAW only: this tool fills addr,
		 * data_src, weight from the registers (ibs_fill), as perf lets
		 * AUX files print fields their records lack */
		bool filled = aux || pms_script_ibs_raw_(r, a);
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
				return pms_err(PMS_EINVAL, "Samples for '%s' event do not have %s attribute set. "
						"Cannot print '%s' field.", name, need[k].msg, f ? f : "?");
			}
			if (!(o[t].user_set_fields & need[k].bit))
				o[t].fields &= ~need[k].bit;
		}
		if ((o[t].fields & PF_SYM) && !(a->sample_type & (PMS_SAMPLE_IP | PMS_SAMPLE_ADDR))) {
			return pms_err(PMS_EINVAL, "Display of symbols requested but neither sample IP nor "
					"sample address\navailable. Hence, no addresses to convert "
					"to symbols.");
		}
		if ((o[t].fields & PF_SYMOFF) && !(o[t].fields & PF_SYM)) {
			return pms_err(PMS_EINVAL, "Display of offsets requested but symbol is not"
					"selected.");
		}
		if ((o[t].fields & PF_DSO) && !(a->sample_type & (PMS_SAMPLE_IP | PMS_SAMPLE_ADDR))) {
			return pms_err(PMS_EINVAL, "Display of DSO requested but no address to convert.");
		}
		if ((o[t].fields & PF_SRCLINE) && !(o[t].fields & PF_IP)) {
			return pms_err(PMS_EINVAL, "Display of source line number requested but sample IP is not\n"
					"selected. Hence, no address to lookup the source line number.");
		}
	}
	return 0;
}

