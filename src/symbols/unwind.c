/* DWARF unwinding of a sample's copied user stack with elfutils libdwfl:
 * the modules come from the process's mappings (as the symbolizer feeds
 * them), the thread state from the sample's user registers, and memory
 * reads from the stack copy (dwfl_attach_state's callbacks). */
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/unwind.h"
#include "symbols/symbols_int.h"
#include "util/error.h"

struct pms_unwinder {
	struct pms_sys *sys;
	struct pms_symbolizer *files; /* whose per-file DWARF answers (borrowed) */
	Dwfl *dwfl;
	bool attached;
	/* The architecture the thread state is attached with: an ELF header
	 * of this build's (the registers' map below is this build's), the
	 * state's own (dwfl_attach_state without an ELF borrows the first
	 * module's backend, which a later report may end with the module) */
	Elf *arch;
	Elf64_Ehdr arch_hdr;
	uint64_t sig; /* of the maps the modules were reported from */
	size_t nmaps;
	struct pms_unwinder_stats st;
	/* the sample being unwound */
	uint64_t regs[33];
	size_t nregs;
	uint64_t sp, pc;
	const unsigned char *stack;
	uint64_t stack_len;
	pid_t tid;
	struct pms_frame *out;
	size_t cap, n;
	bool cut;
};

/* libdwfl asks for a module's separate debug file only once the main file
 * has no DWARF, here for its CFI alone (dwfl_module_dwarf_cfi, where
 * .eh_frame does not step a frame); a module's userdata is its unwinder
 * (rebuild).  A debug file the symbolizer found without .debug_frame is
 * not opened: dwarf_getcfi would give none from it after libdw inflated
 * every section (libdw 0.188's dwarf_begin_elf decompresses them all). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct pms_unwinder *u = *userdata;
	if (u && u->files && file_name && pms_sym_debug_cfi(u->files, file_name) == 0)
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = find_debuginfo,
};

/* The sample's perf registers (lowest bit first) as DWARF registers. */
#if defined(__x86_64__)
/* arch/x86/include/uapi/asm/perf_regs.h AX 0, BX 1, CX 2, DX 3, SI 4, DI 5,
 * BP 6, SP 7, IP 8, ..., R8-R15 16-23; DWARF (x86-64 psABI 3.6.2): rax 0,
 * rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7, r8-r15 8-15, rip 16. */
#define NDWARF 17
static const int dwarf_to_perf[NDWARF] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
#define PERF_SP 7
#define PERF_PC 8
#define ARCH_MACHINE EM_X86_64
#elif defined(__aarch64__)
/* arch/arm64/include/uapi/asm/perf_regs.h X0-X30 0-30, SP 31, PC 32; DWARF
 * (AADWARF64) x0-x30 0-30, sp 31. */
#define NDWARF 32
static const int dwarf_to_perf[NDWARF] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
					   11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
					   22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
#define PERF_SP 31
#define PERF_PC 32
#define ARCH_MACHINE EM_AARCH64
#else
#define NDWARF 0
#endif

int pms_unwinder_new(struct pms_sys *sys, struct pms_unwinder **out)
{
	struct pms_unwinder *u;
	if (out)
		*out = NULL;
	if (!sys || !out)
		return pms_err(PMS_EINVAL, "unwinder: NULL argument");
	u = calloc(1, sizeof(*u));
	if (!u)
		return pms_err(PMS_ENOMEM, "unwinder: no memory");
	u->sys = sys;
	*out = u;
	return 0;
}

void pms_unwinder_files_from(struct pms_unwinder *u, struct pms_symbolizer *s)
{
	if (u)
		u->files = s;
}

void pms_unwinder_free(struct pms_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	if (u->arch)
		elf_end(u->arch);
	free(u);
}

void pms_unwinder_stats(const struct pms_unwinder *u, struct pms_unwinder_stats *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (u)
		*out = u->st;
}

/* ---- libdwfl's thread callbacks ------------------------------------------- */

static pid_t cb_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	struct pms_unwinder *u = dwfl_arg;
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	struct pms_unwinder *u = dwfl_arg;
	(void)dwfl;
	if (tid != u->tid)
		return false;
	*thread_argp = u;
	return true;
}

/* Only the stack copy is memory here; a read outside it ends the unwind
 * (perf's libdw unwinder also reads the binaries' mapped bytes; CFI
 * unwinding needs only the stack). */
static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct pms_unwinder *u = dwfl_arg;
	(void)dwfl;
	if (addr < u->sp || addr - u->sp > u->stack_len || u->stack_len - (addr - u->sp) < 8)
		return false;
	memcpy(result, u->stack + (addr - u->sp), 8);
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct pms_unwinder *u = thread_arg;
#if NDWARF
	Dwarf_Word regs[NDWARF];
	for (int i = 0; i < NDWARF; i++)
		regs[i] = u->regs[dwarf_to_perf[i]];
	if (!dwfl_thread_state_registers(thread, 0, NDWARF, regs))
		return false;
	dwfl_thread_state_register_pc(thread, u->pc);
	return true;
#else
	(void)thread;
	(void)u;
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct pms_unwinder *u = arg;
	Dwarf_Addr pc;
	bool act = false;
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (pc == 0)
		return DWARF_CB_ABORT;
	if (u->n == u->cap) {
		u->cut = true;
		return DWARF_CB_ABORT;
	}
	u->out[u->n].ip = pc;
	u->out[u->n].flags = PMS_FRAME_DWARF;
	u->n++;
	/* perf steps from a frame only with its module's unwind tables: a PC
	 * in no module with an ELF here (the binary is not on this machine) ends
	 * the unwind there (perf's libunwind find_proc_info fails for a DSO
	 * it cannot read; libdw would go on by frame pointers, its x86-64
	 * fallback, and give callers perf does not: KDAB's contentsize.data) */
	Dwfl_Module *m = dwfl_addrmodule(u->dwfl, act ? pc : pc - 1);
	Dwarf_Addr bias;
	if (!m || !dwfl_module_getelf(m, &bias)) {
		u->cut = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* ---- modules ------------------------------------------------------------- */

static uint64_t maps_sig(const struct pms_maps *m)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < m->n; i++) {
		const struct pms_map *p = &m->v[i];
		if (p->kind != PMS_MAP_FILE)
			continue;
		uint64_t v[3] = { p->start, p->end, p->pgoff };
		for (int k = 0; k < 3; k++) {
			h ^= v[k];
			h *= 1099511628211ULL;
		}
		for (const char *c = p->path; *c; c++) {
			h ^= (unsigned char)*c;
			h *= 1099511628211ULL;
		}
	}
	return h;
}

static int elf_seen(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	Dwarf_Addr bias;
	(void)ud;
	(void)name;
	(void)start;
	if (!dwfl_module_getelf(m, &bias))
		return DWARF_CB_OK;
	*(bool *)arg = true;
	return DWARF_CB_ABORT;
}

static int mod_owned(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	(void)m;
	(void)name;
	(void)start;
	*ud = arg;
	return DWARF_CB_OK;
}

/* A module has its ELF here: the thread state is attached then only, as
 * dwfl_attach_state without an ELF does (its first module with one). */
static bool has_elf(Dwfl *d)
{
	bool seen = false;
	(void)dwfl_getmodules(d, elf_seen, &seen, 0);
	return seen;
}

/* The modules of maps reported to u's Dwfl.  A Dwfl already made is
 * reported to again rather than ended: libdwfl keeps a module reported
 * again at the same name and range with what it opened (its ELF, its
 * separate debug file, its CFI; dwfl_report_begin, libdwfl.h) and ends
 * only those not reported again, so a mapping change (each mmap of the
 * process's start) opens the new files alone: libc's and ld.so's debug
 * files once, not once per change. */
static int rebuild(struct pms_unwinder *u, const struct pms_maps *maps, uint64_t sig)
{
	size_t len = 0;
	char *text;
	int rc = 0;

	if (!u->dwfl) {
		u->attached = false;
		u->dwfl = dwfl_begin(&dwfl_cbs);
		if (!u->dwfl)
			return pms_err(PMS_ENOMEM, "unwinder: dwfl_begin: %s", dwfl_errmsg(-1));
	}
	text = pms_sym_maps_text(maps, pms_sys_root(u->sys), &len);
	if (!text)
		return pms_err(PMS_ENOMEM, "unwinder: no memory for the maps text");
	dwfl_report_begin(u->dwfl);
	if (len) {
		FILE *f = fmemopen(text, len, "r");
		if (f) {
			/* A module that cannot be opened is not reported: frames
			 * in it end the unwind. */
			(void)dwfl_linux_proc_maps_report(u->dwfl, f);
			fclose(f);
		} else {
			rc = pms_err(PMS_ENOMEM, "unwinder: fmemopen");
		}
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	(void)dwfl_getmodules(u->dwfl, mod_owned, u, 0);
	free(text);
	u->sig = sig;
	u->st.rebuilds++;
	return rc;
}

int pms_unwinder_sample(struct pms_unwinder *u, const struct pms_maps *maps,
			const struct pms_sample *s, struct pms_frame *out, size_t cap, size_t *n)
{
	size_t k = 0;
	int rc;

	if (n)
		*n = 0;
	if (!u || !maps || !s || !n || (cap && !out))
		return pms_err(PMS_EINVAL, "unwinder: NULL argument");
	u->st.samples++;
	/* The kernel part of the callchain first. */
	if (s->present & PMS_SAMPLE_CALLCHAIN) {
		rc = pms_callpath_from_chain(s->callchain, s->callchain_nr, false, out, cap, &k);
		if (rc < 0)
			return rc;
	}
	*n = k;
	if (!NDWARF)
		return pms_err(PMS_ENOTSUP, "unwinder: no register map for this architecture");
	if (!(s->present & PMS_SAMPLE_REGS_USER) || !(s->present & PMS_SAMPLE_STACK_USER))
		return pms_err(PMS_ENOTSUP,
			       "unwinder: the sample has no user registers and stack "
			       "(record with --call-graph dwarf)");
#if NDWARF
	if (s->regs_user.abi == 0) {
		u->st.no_regs++;
		return 0;
	}
	/* Registers by perf number. */
	memset(u->regs, 0, sizeof(u->regs));
	for (unsigned r = 0, i = 0; r < 64 && i < s->regs_user.nr; r++) {
		if (!(s->regs_user.mask & (1ULL << r)))
			continue;
		uint64_t v = pms_u64_at(s->regs_user.regs, i++);
		if (r < 33)
			u->regs[r] = v;
	}
	/* A register not sampled stays 0; CFI rules that need it fail. */
	if (!(s->regs_user.mask & (1ULL << PERF_SP)) || !(s->regs_user.mask & (1ULL << PERF_PC)))
		return pms_err(PMS_ENOTSUP, "unwinder: the sample's registers lack SP or PC");
	u->sp = u->regs[PERF_SP];
	u->pc = u->regs[PERF_PC];
	u->stack = s->stack_data;
	u->stack_len = s->stack_dyn_size < s->stack_size ? s->stack_dyn_size : s->stack_size;
	/* Nothing of the stack captured (the kernel could not copy it, e.g. a
	 * fault on the stack page itself): no user frame at all, not even the
	 * sampled IP, as perf 6.12 does ("Bail out if nothing was captured",
	 * tools/perf/util/machine.c thread__resolve_callchain_unwind). */
	if (u->stack_len == 0) {
		u->st.no_stack++;
		return 0;
	}
	u->tid = s->tid ? (pid_t)s->tid : 1;
	if (!u->dwfl || maps->n != u->nmaps || maps_sig(maps) != u->sig) {
		if ((rc = rebuild(u, maps, maps_sig(maps))) < 0)
			return rc;
		u->nmaps = maps->n;
	}
	u->out = out + k;
	u->cap = cap - k;
	u->n = 0;
	u->cut = false;
	if (!u->attached && has_elf(u->dwfl)) {
		if (!u->arch) {
			Elf64_Ehdr *h = &u->arch_hdr;
			memcpy(h->e_ident, ELFMAG, SELFMAG);
			h->e_ident[EI_CLASS] = ELFCLASS64;
			h->e_ident[EI_DATA] = ELFDATA2LSB;
			h->e_ident[EI_VERSION] = EV_CURRENT;
			h->e_type = ET_EXEC;
			h->e_machine = ARCH_MACHINE;
			h->e_version = EV_CURRENT;
			h->e_ehsize = sizeof(*h);
			u->arch = elf_memory((char *)h, sizeof(*h));
		}
		u->attached = u->arch && dwfl_attach_state(u->dwfl, u->arch, u->tid, &thread_cbs, u);
	}
	/* An unwind that ends on an error (not at the outermost frame) is
	 * incomplete: said as a cut; the frames found are kept. */
	if (u->attached && dwfl_getthread_frames(u->dwfl, u->tid, on_frame, u) != 0)
		u->cut = true;
	/* No module knew the PC: no user frame (as perf's unwinder gives). */
	if (u->n > 1)
		u->st.unwound++;
	else
		u->st.failed++;
	u->st.frames += u->n;
	*n = k + u->n;
	return u->cut ? 1 : 0;
#endif
}
