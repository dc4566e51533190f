/* GNU build ids of ELF files through elfutils (libelf + libdwelf's
 * dwelf_elf_gnu_build_id, which finds the NT_GNU_BUILD_ID note through the
 * program headers or the sections). */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuscope/symbols.h"
#include "pmuscope/sys.h"
#include "symbols/kmodsym.h"
#include "util/error.h"

int pms_elf_build_id(const char *path, uint8_t id[20], size_t *len)
{
	const void *bid = NULL;
	Elf *elf = NULL;
	ssize_t n;
	int fd, ret;

	if (!path || !id || !len)
		return pms_err(PMS_EINVAL, "elf_build_id: NULL argument");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pms_err(PMS_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pms_err(PMS_ENOENT, "%s: cannot open it for its build id", path);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = pms_err(PMS_EPARSE, "%s: not an ELF file", path);
		goto out;
	}
	n = dwelf_elf_gnu_build_id(elf, &bid);
	if (n <= 0 || !bid) {
		ret = pms_err(PMS_ENOENT, "%s: no GNU build id note", path);
		goto out;
	}
	/* perf keeps at most 20 bytes (BUILD_ID_SIZE, a SHA-1) */
	*len = (size_t)n > 20 ? 20 : (size_t)n;
	memcpy(id, bid, *len);
	ret = 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int pms_notes_build_id(const struct pms_sys *sys, const char *relpath, uint8_t id[20],
		       size_t *len)
{
	char *b = NULL;
	size_t blen = 0;
	int ret = PMS_ENOENT;
	if (!sys || !id || !len)
		return pms_err(PMS_EINVAL, "build id notes: NULL argument");
	*len = 0;
	if (pms_sys_read_file(sys, relpath, &b, &blen) < 0)
		return pms_err(PMS_ENOENT, "%s: cannot read the build id", relpath);
	for (size_t o = 0; o + sizeof(Elf64_Nhdr) <= blen;) {
		Elf64_Nhdr h;
		memcpy(&h, b + o, sizeof(h));
		size_t name = o + sizeof(h), desc = name + ((h.n_namesz + 3u) & ~3u);
		if (desc + h.n_descsz > blen)
			break;
		if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && !memcmp(b + name, "GNU", 4)) {
			*len = h.n_descsz < 20 ? h.n_descsz : 20;
			memcpy(id, b + desc, *len);
			ret = 0;
			break;
		}
		o = desc + ((h.n_descsz + 3u) & ~3u);
	}
	free(b);
	return ret == 0 ? 0 : pms_err(PMS_ENOENT, "%s: no GNU build id note", relpath);
}

int pms_kernel_build_id(struct pms_sys *sys, uint8_t id[20], size_t *len)
{
	if (!sys || !id || !len)
		return pms_err(PMS_EINVAL, "kernel_build_id: NULL argument");
	return pms_notes_build_id(sys, "sys/kernel/notes", id, len);
}
