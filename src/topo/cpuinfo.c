/* /proc/cpuinfo identity and the Arm MIDR -> core name table. */
#include "topo/topo_int.h"
#include "topo/topo_internal.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arm core names by MIDR implementer and part number, from the
 * <VENDOR>_CPU_PART_* defines in arch/arm64/include/asm/cputype.h (as in
 * linux-next of 2025: ARM, Cavium, Broadcom, Qualcomm, NVIDIA, Fujitsu,
 * HiSilicon, APM, Apple, Ampere, Microsoft).  Parts that several implementers reuse are keyed by
 * both.  Qualcomm's Kryo 5xx/6xx cores report Arm's MIDRs (the header's
 * NOTES), so they name as the Arm core. */
static const struct {
	uint8_t implementer;
	uint16_t part;
	const char *name;
} midr_names[] = {
	{ 0x41, 0xd00, "Foundation" },   { 0x41, 0xd0f, "AEM-v8" },
	{ 0x41, 0xd03, "Cortex-A53" },   { 0x41, 0xd04, "Cortex-A35" },
	{ 0x41, 0xd05, "Cortex-A55" },   { 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" },   { 0x41, 0xd09, "Cortex-A73" },
	{ 0x41, 0xd0a, "Cortex-A75" },   { 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse-N1" },  { 0x41, 0xd0d, "Cortex-A77" },
	{ 0x41, 0xd0e, "Cortex-A76AE" }, { 0x41, 0xd40, "Neoverse-V1" },
	{ 0x41, 0xd41, "Cortex-A78" },   { 0x41, 0xd42, "Cortex-A78AE" },
	{ 0x41, 0xd44, "Cortex-X1" },    { 0x41, 0xd46, "Cortex-A510" },
	{ 0x41, 0xd47, "Cortex-A710" },  { 0x41, 0xd48, "Cortex-X2" },
	{ 0x41, 0xd49, "Neoverse-N2" },  { 0x41, 0xd4b, "Cortex-A78C" },
	{ 0x41, 0xd4c, "Cortex-X1C" },   { 0x41, 0xd4d, "Cortex-A715" },
	{ 0x41, 0xd4e, "Cortex-X3" },    { 0x41, 0xd4f, "Neoverse-V2" },
	{ 0x41, 0xd80, "Cortex-A520" },  { 0x41, 0xd81, "Cortex-A720" },
	{ 0x41, 0xd82, "Cortex-X4" },    { 0x41, 0xd84, "Neoverse-V3" },
	{ 0x41, 0xd85, "Cortex-X925" },  { 0x41, 0xd87, "Cortex-A725" },
	{ 0x41, 0xd8e, "Neoverse-N3" },
	{ 0x42, 0x100, "Brahma-B53" },   { 0x42, 0x516, "Vulcan" },
	{ 0x43, 0x0a1, "ThunderX" },     { 0x43, 0x0a2, "ThunderX-81xx" },
	{ 0x43, 0x0a3, "ThunderX-83xx" }, { 0x43, 0x0af, "ThunderX2" },
	{ 0x43, 0x0b1, "OcteonTX2-98xx" }, { 0x43, 0x0b2, "OcteonTX2-96xx" },
	{ 0x43, 0x0b3, "OcteonTX2-95xx" }, { 0x43, 0x0b4, "OcteonTX2-95xxN" },
	{ 0x43, 0x0b5, "OcteonTX2-95xxMM" }, { 0x43, 0x0b6, "OcteonTX2-95xxO" },
	{ 0x46, 0x001, "A64FX" },
	{ 0x48, 0xd01, "TSV110" },       { 0x48, 0xd02, "HIP09" },
	{ 0x48, 0xd06, "HIP12" },
	{ 0x4e, 0x003, "Denver" },       { 0x4e, 0x004, "Carmel" },
	{ 0x50, 0x000, "X-Gene" },
	{ 0x51, 0x001, "Oryon-X1" },     { 0x51, 0x200, "Kryo" },
	{ 0x51, 0x800, "Kryo-2xx-Gold" }, { 0x51, 0x801, "Kryo-2xx-Silver" },
	{ 0x51, 0x802, "Kryo-3xx-Gold" }, { 0x51, 0x803, "Kryo-3xx-Silver" },
	{ 0x51, 0x804, "Kryo-4xx-Gold" }, { 0x51, 0x805, "Kryo-4xx-Silver" },
	{ 0x51, 0xc00, "Falkor" },
	{ 0x61, 0x022, "M1-Icestorm" },  { 0x61, 0x023, "M1-Firestorm" },
	{ 0x61, 0x024, "M1-Icestorm-Pro" }, { 0x61, 0x025, "M1-Firestorm-Pro" },
	{ 0x61, 0x028, "M1-Icestorm-Max" }, { 0x61, 0x029, "M1-Firestorm-Max" },
	{ 0x61, 0x032, "M2-Blizzard" },  { 0x61, 0x033, "M2-Avalanche" },
	{ 0x61, 0x034, "M2-Blizzard-Pro" }, { 0x61, 0x035, "M2-Avalanche-Pro" },
	{ 0x61, 0x038, "M2-Blizzard-Max" }, { 0x61, 0x039, "M2-Avalanche-Max" },
	{ 0x6d, 0xd49, "Azure-Cobalt-100" },
	{ 0xc0, 0xac3, "AmpereOne" },    { 0xc0, 0xac4, "AmpereOne-A" },
};

/* Implementer codes (MIDR[31:24]): every ARM_CPU_IMP_* of the same header. */
static const struct {
	uint8_t implementer;
	const char *vendor;
} arm_vendors[] = {
	{ 0x41, "ARM" },       { 0x42, "Broadcom" }, { 0x43, "Cavium" },
	{ 0x46, "Fujitsu" },   { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
	{ 0x50, "APM" },       { 0x51, "Qualcomm" }, { 0x61, "Apple" },
	{ 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

const char *pms_midr_vendor(uint64_t midr)
{
	unsigned impl = (unsigned)(midr >> 24) & 0xff;
	for (size_t i = 0; i < sizeof(arm_vendors) / sizeof(arm_vendors[0]); i++)
		if (arm_vendors[i].implementer == impl)
			return arm_vendors[i].vendor;
	return NULL;
}

const char *pms_midr_core_name(uint64_t midr)
{
	unsigned impl = (unsigned)(midr >> 24) & 0xff, part = (unsigned)(midr >> 4) & 0xfff;
	for (size_t i = 0; i < sizeof(midr_names) / sizeof(midr_names[0]); i++)
		if (midr_names[i].implementer == impl && midr_names[i].part == part)
			return midr_names[i].name;
	return NULL;
}

static char *trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

int pms_topo_read_cpuinfo(struct pms_sys *sys, struct pms_topo *t)
{
	char *text = NULL, *line, *save = NULL;
	int nproc = 0, ret;

	if (!pms_sys_exists(sys, "proc/cpuinfo"))
		return 0;
	if ((ret = pms_sys_read_file(sys, "proc/cpuinfo", &text, NULL)) < 0)
		return ret;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *key, *val;
		if (!colon)
			continue;
		*colon = '\0';
		key = trim(line);
		val = trim(colon + 1);
		if (!strcmp(key, "processor") && nproc++ > 0)
			break; /* the first processor's block is enough */
		if (!strcmp(key, "vendor_id")) {
			snprintf(t->vendor, sizeof(t->vendor), "%s", val);
		} else if (!strcmp(key, "cpu family")) {
			t->family = atoi(val);
		} else if (!strcmp(key, "model")) {
			t->model = atoi(val);
		} else if (!strcmp(key, "stepping")) {
			t->stepping = atoi(val);
		} else if (!strcmp(key, "model name") && !t->model_name) {
			t->model_name = strdup(val);
			if (!t->model_name) {
				ret = pms_err(PMS_ENOMEM, "out of memory reading proc/cpuinfo");
				break;
			}
		} else if (!strcmp(key, "CPU implementer") && !t->vendor[0]) {
			uint64_t impl = strtoull(val, NULL, 0) & 0xff;
			const char *v = pms_midr_vendor(impl << 24);
			if (v)
				snprintf(t->vendor, sizeof(t->vendor), "%s", v);
		} else if (!strcmp(key, "CPU part") && t->model < 0) {
			t->model = (int)strtol(val, NULL, 0);
		}
	}
	free(text);
	return ret;
}

/* The cpuinfo "flags" line holds the word "hypervisor" (x86: CPUID.1:ECX[31],
 * X86_FEATURE_HYPERVISOR in arch/x86/include/asm/cpufeatures.h). */
static bool flags_say_hypervisor(const char *text)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (!strncmp(line, "flags", 5)) {
			for (const char *p = line; (p = strstr(p, "hypervisor")) && p < line + len;
			     p += 10) {
				char after = p + 10 < line + len ? p[10] : ' ';
				if ((p[-1] == ' ' || p[-1] == '\t') && (after == ' ' || after == '\t'))
					return true;
			}
			return false; /* the first processor's flags are enough */
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

bool pms_hypervisor_detect(const struct pms_sys *sys, char *what, size_t size)
{
	char *text = NULL;
	bool yes = false;

	if (what && size)
		what[0] = '\0';
	if (!sys)
		return false;
	/* Xen (drivers/xen/sys-hypervisor.c) and others that register it. */
	if (pms_sys_exists(sys, "sys/hypervisor/type") &&
	    pms_sys_read_line(sys, "sys/hypervisor/type", &text) == 0 && text[0]) {
		if (what && size)
			snprintf(what, size, "/sys/hypervisor/type says '%s'", text);
		yes = true;
	}
	free(text);
	text = NULL;
	if (!yes && pms_sys_exists(sys, "proc/cpuinfo") &&
	    pms_sys_read_file(sys, "proc/cpuinfo", &text, NULL) == 0 && flags_say_hypervisor(text)) {
		if (what && size)
			snprintf(what, size, "/proc/cpuinfo has the 'hypervisor' flag");
		yes = true;
	}
	free(text);
	pms_error_clear();
	return yes;
}
