/* The kernel seam.
 *
 * Every interaction pmuscope has with the kernel goes through a struct pms_sys:
 *  - a root directory fd under which sys/... and proc/... are opened with
 *    openat() (default "/"; tests point it at an unpacked machine snapshot);
 *  - an ops table for perf_event_open, ioctl, read, mmap, munmap, close,
 *    move_pages, get_mempolicy and write_file (default: raw syscall(), and a
 *    write confined below the root; tests install a fake kernel).
 *
 * Op convention: every op returns >= 0 on success and a negative errno on
 * failure (never -1 + errno), so fakes need not touch errno.
 *
 * A context whose root is not "/" or whose ops are not the real ones is "not
 * this system": live-only calls (attaching to pids, reading /proc/self) refuse
 * with PMS_ENOTLIVE instead of mixing the host with a snapshot.
 *
 * Ownership: pms_sys_new() gives the caller a context released with
 * pms_sys_free(); opts and the ops table are copied; ops->ud is borrowed and
 * must outlive the context.
 */
#ifndef PMUSCOPE_SYS_H
#define PMUSCOPE_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope/api.h"

#ifdef __cplusplus
extern "C" {
#endif
PMS_API_BEGIN

struct perf_event_attr;

struct pms_sys_ops {
	void *ud; /* passed back to every op */
	int (*perf_event_open)(void *ud, struct perf_event_attr *attr, pid_t pid,
			       int cpu, int group_fd, unsigned long flags);
	int (*ioctl)(void *ud, int fd, unsigned long request, unsigned long arg);
	ssize_t (*read)(void *ud, int fd, void *buf, size_t count);
	/* On success stores the mapping in *out and returns 0. */
	int (*mmap)(void *ud, size_t length, int prot, int flags, int fd,
		    off_t offset, void **out);
	int (*munmap)(void *ud, void *addr, size_t length);
	int (*close)(void *ud, int fd);
	long (*move_pages)(void *ud, int pid, unsigned long count, void **pages,
			   const int *nodes, int *status, int flags);
	long (*get_mempolicy)(void *ud, int *mode, unsigned long *nodemask,
			      unsigned long maxnode, void *addr, unsigned long flags);
	/* Write len bytes with one write() to relpath (no leading '/', no
	 * "..") opened below dirfd, the context's root fd, without following
	 * a symlink or leaving the root.  Returns 0 or a negative errno.  NULL
	 * in a caller's table = the real one (tables written before this op). */
	int (*write_file)(void *ud, int dirfd, const char *relpath, const void *buf,
			  size_t len);
};

#define PMS_SYS_OPTS_VERSION 1
struct pms_sys_opts {
	unsigned version;          /* PMS_SYS_OPTS_VERSION */
	const char *root;          /* NULL or "/" = this machine */
	const struct pms_sys_ops *ops; /* NULL = real syscalls */
};
#define PMS_SYS_OPTS_INIT { PMS_SYS_OPTS_VERSION, NULL, NULL }

struct pms_sys;

/* Create a context; opts may be NULL for "this machine, real syscalls".
 * The environment is not consulted (that is the CLI's business). */
int pms_sys_new(struct pms_sys **out, const struct pms_sys_opts *opts);
void pms_sys_free(struct pms_sys *sys);

/* The real syscall ops table. */
const struct pms_sys_ops *pms_sys_real_ops(void);

/* The ops table in use (never NULL). */
const struct pms_sys_ops *pms_sys_ops(const struct pms_sys *sys);

/* The root directory fd (owned by the context) and its path. */
int pms_sys_root_fd(const struct pms_sys *sys);
const char *pms_sys_root(const struct pms_sys *sys);

/* True when root is "/" and ops are the real syscalls. */
bool pms_sys_is_live(const struct pms_sys *sys);

/* Read a whole file below the root (relpath like "sys/devices/system/cpu/online",
 * no leading '/') into a NUL-terminated malloc'd buffer owned by the caller.
 * Trailing newlines are kept.  Files larger than 16 MiB are refused (PMS_ERANGE).
 * *len (optional) gets the byte count. */
int pms_sys_read_file(const struct pms_sys *sys, const char *relpath, char **out,
		      size_t *len);

/* Like pms_sys_read_file, but strips trailing whitespace. */
int pms_sys_read_line(const struct pms_sys *sys, const char *relpath, char **out);

/* Parse a file holding one integer (decimal, or hex with 0x). */
int pms_sys_read_u64(const struct pms_sys *sys, const char *relpath, uint64_t *out);

/* kernel.perf_event_paranoid (proc/sys/kernel/perf_event_paranoid), the one
 * reader of it: 0 with *level, or a negative PMS_E* when the file cannot be
 * read or holds no integer. */
int pms_sys_perf_paranoid(const struct pms_sys *sys, int *level);

/* What the machine calls itself, read once for every user (the recorder's
 * HOSTNAME/OSRELEASE/ARCH header features, the CLI's JSON "host" and
 * "kernel"): the first line of proc/sys/kernel/hostname, osrelease and arch
 * below the root (uname's nodename, release and machine on a live system).
 * A fact whose file cannot be read is left empty with its has_ false.
 * Returns 0 (the facts that could be read), or PMS_EINVAL for NULL. */
struct pms_host_facts {
	char hostname[128], osrelease[128], arch[64];
	bool has_hostname, has_osrelease, has_arch;
};
int pms_host_facts_read(const struct pms_sys *sys, struct pms_host_facts *out);

/* The running kernel's vDSO image: a malloc'd copy (owned by the caller)
 * of this process's [vdso] mapping, the ELF image at getauxval's
 * AT_SYSINFO_EHDR, *len bytes (the mapping's length from proc/self/maps).
 * Every process of the running kernel maps the same image.  PMS_ENOTLIVE
 * on a context that is not this system, PMS_ENOENT when there is none. */
int pms_sys_vdso_image(const struct pms_sys *sys, void **out, size_t *len);

/* True when relpath exists below the root. */
bool pms_sys_exists(const struct pms_sys *sys, const char *relpath);

/* List the entry names of a directory below the root, sorted with a natural
 * (numeric-aware) order, "." and ".." excluded.  *names is a malloc'd array
 * of malloc'd strings; free with pms_sys_names_free(). */
int pms_sys_list_dir(const struct pms_sys *sys, const char *relpath, char ***names,
		     size_t *count);
void pms_sys_names_free(char **names, size_t count);

/* Write the string data (one write() call, as sysfs wants) to relpath below
 * the root, through ops->write_file.  A path with a ".." component is refused
 * (PMS_EINVAL); the real op resolves it beneath the root (openat2
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so a snapshot or fake root never
 * reaches this machine's /sys.  The error names the file and the errno. */
int pms_sys_write_file(const struct pms_sys *sys, const char *relpath, const char *data);

/* Thin wrappers that call the ops table and turn a failure into a pms error
 * whose message names `what` (e.g. "perf_event_open(ibs_op/...)").
 * They return the op's non-negative result or a negative PMS_E* code; the raw
 * errno is in pms_error_errno(). */
int pms_sys_perf_event_open(const struct pms_sys *sys, struct perf_event_attr *attr,
			    pid_t pid, int cpu, int group_fd, unsigned long flags,
			    const char *what);
int pms_sys_close(const struct pms_sys *sys, int fd);

PMS_API_END
#ifdef __cplusplus
}
#endif
#endif
