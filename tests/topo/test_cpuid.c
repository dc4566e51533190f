/* The CPU identity has one reader (src/topo): vendor from the Arm implementer
 * code (every ARM_CPU_IMP_* of arch/arm64/include/asm/cputype.h), core names,
 * per-CPU MIDRs, x86 vendor-family-model for catalog selection, and the one
 * hypervisor rule (/sys/hypervisor/type, cpuinfo "hypervisor" flag). */
#include "check.h"
#include "pmuscope/catalog.h"
#include "pmuscope/error.h"
#include "pmuscope/sys.h"
#include "pmuscope/topo.h"
#include "topo/topo_int.h" /* a topology built or read whole */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/pms_cpuid_XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void fresh(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", root);
	CHECK(system(cmd) == 0);
}

static struct pms_sys *open_root(void)
{
	struct pms_sys *sys = NULL;
	struct pms_sys_opts o = PMS_SYS_OPTS_INIT;
	o.root = root;
	CHECK_OK(pms_sys_new(&sys, &o));
	return sys;
}

/* ARM_CPU_IMP_* of arch/arm64/include/asm/cputype.h. */
PMS_TEST(every_kernel_implementer_has_a_vendor)
{
	static const struct {
		unsigned impl;
		const char *vendor;
	} rows[] = {
		{ 0x41, "ARM" },     { 0x42, "Broadcom" }, { 0x43, "Cavium" },    { 0x46, "Fujitsu" },
		{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" }, { 0x50, "APM" },       { 0x51, "Qualcomm" },
		{ 0x61, "Apple" },   { 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK_EQ_STR(pms_midr_vendor((uint64_t)rows[i].impl << 24), rows[i].vendor);
	CHECK(pms_midr_vendor(0x00000000) == NULL);
	CHECK_EQ_STR(pms_midr_core_name(0x461f0010), "A64FX");
	CHECK_EQ_STR(pms_midr_core_name(0x413fd0c1), "Neoverse-N1");
	CHECK_EQ_STR(pms_midr_core_name(0x6d0fd490), "Azure-Cobalt-100");
}

/* A64FX (issue 18: topology showed vendor null). */
PMS_TEST(a64fx_identity)
{
	struct pms_topo *t = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	char id[64] = "";
	fresh();
	put("proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 200.00\nFeatures\t: fp asimd sve\n"
			    "CPU implementer\t: 0x46\nCPU architecture: 8\nCPU variant\t: 0x1\n"
			    "CPU part\t: 0x001\nCPU revision\t: 0\n\nprocessor\t: 1\n"
			    "CPU implementer\t: 0x41\n");
	put("sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "0x00000000461f0010\n");
	put("sys/devices/system/cpu/cpu1/regs/identification/midr_el1", "0x00000000461f0010\n");
	struct pms_sys *sys = open_root();
	CHECK_OK(pms_topo_load_cpuid(sys, &t));
	if (t) {
		CHECK_EQ_STR(t->vendor, "Fujitsu");
		CHECK_EQ_INT(t->model, 1); /* CPU part */
		CHECK_EQ_INT(t->ncpus, 2);
		CHECK_EQ_U64(pms_topo_cpu(t, 1) ? pms_topo_cpu(t, 1)->midr : 0, 0x461f0010);
		CHECK_EQ_STR(t->hypervisor, "");
		CHECK_OK(pms_catalog_select_for_topo(t, 1, &sel, id, sizeof(id)));
		CHECK(sel.has_midr && sel.midr == 0x461f0010);
	}
	pms_topo_free(t);
	sel = (struct pms_catalog_select)PMS_CATALOG_SELECT_INIT;
	CHECK_OK(pms_catalog_identify(sys, 0, &sel, id, sizeof(id)));
	CHECK(sel.has_midr && sel.midr == 0x461f0010);
	pms_sys_free(sys);
}

PMS_TEST(x86_identity_and_hypervisor_flag)
{
	struct pms_topo *t = NULL;
	struct pms_catalog_select sel = PMS_CATALOG_SELECT_INIT;
	char id[64] = "", what[96];
	fresh();
	put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
			    "model\t\t: 173\nmodel name\t: Intel(R) Xeon(R) 6\nstepping\t: 1\n"
			    "flags\t\t: fpu vme hypervisor lahf_lm\n\n");
	struct pms_sys *sys = open_root();
	CHECK(pms_hypervisor_detect(sys, what, sizeof(what)));
	CHECK_EQ_STR(what, "/proc/cpuinfo has the 'hypervisor' flag");
	CHECK_OK(pms_catalog_identify(sys, 0, &sel, id, sizeof(id)));
	CHECK_EQ_STR(sel.x86_id, "GenuineIntel-6-AD-1");
	CHECK_OK(pms_topo_load_cpuid(sys, &t));
	if (t) {
		CHECK_EQ_STR(t->vendor, "GenuineIntel");
		CHECK_EQ_STR(t->hypervisor, "/proc/cpuinfo has the 'hypervisor' flag");
		CHECK_EQ_STR(t->model_name, "Intel(R) Xeon(R) 6");
	}
	pms_topo_free(t);
	pms_sys_free(sys);

	/* The flag ending the line counts; a longer word does not. */
	fresh();
	put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor\n");
	sys = open_root();
	CHECK(pms_hypervisor_detect(sys, NULL, 0));
	pms_sys_free(sys);
	fresh();
	put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor_x nohypervisor\n");
	sys = open_root();
	CHECK(!pms_hypervisor_detect(sys, what, sizeof(what)));
	CHECK_EQ_STR(what, "");
	pms_sys_free(sys);
}

PMS_TEST(xen_hypervisor_type)
{
	char what[96];
	fresh();
	put("sys/hypervisor/type", "xen\n");
	put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu\n");
	struct pms_sys *sys = open_root();
	CHECK(pms_hypervisor_detect(sys, what, sizeof(what)));
	CHECK_EQ_STR(what, "/sys/hypervisor/type says 'xen'");
	pms_sys_free(sys);
	/* Nothing at all: not a VM, and no error left behind. */
	fresh();
	sys = open_root();
	CHECK(!pms_hypervisor_detect(sys, what, sizeof(what)));
	pms_sys_free(sys);
}

int main(int argc, char **argv)
{
	char cmd[600];
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	int r = pms_t_run(argc, argv);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		r = r ? r : 1;
	return r;
}
