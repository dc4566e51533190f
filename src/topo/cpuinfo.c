/* /proc/cpuinfo identity and the Arm MIDR -> core name table. */
#include "topo/topo_internal.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arm core names by MIDR implementer and part number, from the
 * ARM_CPU_PART_* / HISI_CPU_PART_* / NVIDIA_CPU_PART_* defines in
 * arch/arm64/include/asm/cputype.h (Cortex-X925 0xd85 and Cortex-A725 0xd87
 * as in hwloc's nvidia-dgx-gb10 snapshot). */
static const struct {
	uint8_t implementer;
	uint16_t part;
	const char *name;
} midr_names[] = {
	{ 0x41, 0xd03, "Cortex-A53" },   { 0x41, 0xd04, "Cortex-A35" },
	{ 0x41, 0xd05, "Cortex-A55" },   { 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" },   { 0x41, 0xd09, "Cortex-A73" },
	{ 0x41, 0xd0a, "Cortex-A75" },   { 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse-N1" },  { 0x41, 0xd0d, "Cortex-A77" },
	{ 0x41, 0xd40, "Neoverse-V1" },  { 0x41, 0xd41, "Cortex-A78" },
	{ 0x41, 0xd44, "Cortex-X1" },    { 0x41, 0xd46, "Cortex-A510" },
	{ 0x41, 0xd47, "Cortex-A710" },  { 0x41, 0xd48, "Cortex-X2" },
	{ 0x41, 0xd49, "Neoverse-N2" },  { 0x41, 0xd4b, "Cortex-A78C" },
	{ 0x41, 0xd4d, "Cortex-A715" },  { 0x41, 0xd4e, "Cortex-X3" },
	{ 0x41, 0xd4f, "Neoverse-V2" },  { 0x41, 0xd80, "Cortex-A520" },
	{ 0x41, 0xd81, "Cortex-A720" },  { 0x41, 0xd82, "Cortex-X4" },
	{ 0x41, 0xd84, "Neoverse-V3" },  { 0x41, 0xd85, "Cortex-X925" },
	{ 0x41, 0xd87, "Cortex-A725" },  { 0x41, 0xd8e, "Neoverse-N3" },
	{ 0x48, 0xd01, "TSV110" },       { 0x4e, 0x004, "Carmel" },
};

/* Implementer codes (MIDR[31:24]), same header. */
static const struct {
	uint8_t implementer;
	const char *vendor;
} arm_vendors[] = {
	{ 0x41, "ARM" },    { 0x42, "Broadcom" }, { 0x43, "Cavium" },
	{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" }, { 0x51, "Qualcomm" },
	{ 0x61, "Apple" },  { 0xc0, "Ampere" },
};

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
			unsigned impl = (unsigned)strtoul(val, NULL, 0);
			for (size_t i = 0; i < sizeof(arm_vendors) / sizeof(arm_vendors[0]); i++)
				if (arm_vendors[i].implementer == impl)
					snprintf(t->vendor, sizeof(t->vendor), "%s",
						 arm_vendors[i].vendor);
		} else if (!strcmp(key, "CPU part") && t->model < 0) {
			t->model = (int)strtol(val, NULL, 0);
		}
	}
	free(text);
	return ret;
}
