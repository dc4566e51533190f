/* perf's build-id cache directory from its config (kmodsym.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/kmodsym.h"
#include "sys/sys_int.h"
#include "util/error.h"

/* One value as perf's config.c parse_value reads it: blanks before it
 * skipped, blanks inside kept as one (dropped at the end), '"' toggles
 * quoting, '#' and ';' end it outside quotes, \\ \" \n \t \b escapes.
 * p: just past the '='; returns false on a malformed value (perf then
 * stops with a bad-config error: the file sets nothing here). */
static bool parse_value(const char **pp, const char *end, char *out, size_t n, bool *fits)
{
	const char *p = *pp;
	size_t k = 0;
	bool quote = false, space = false;
	*fits = true;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < end && *p != '\n'; p++) {
		char c = *p;
		if (!quote && (c == ' ' || c == '\t' || c == '\r')) {
			space = k > 0;
			continue;
		}
		if (!quote && (c == '#' || c == ';')) {
			while (p < end && *p != '\n')
				p++;
			break;
		}
		if (space) {
			if (k + 1 < n)
				out[k++] = ' ';
			else
				*fits = false;
			space = false;
		}
		if (c == '\\') {
			if (++p >= end || *p == '\n')
				return false;
			c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'b' ? '\b' :
			    (*p == '\\' || *p == '"') ? *p : 0;
			if (!c)
				return false;
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if (k + 1 < n)
			out[k++] = c;
		else
			*fits = false;
	}
	if (quote)
		return false;
	if (n)
		out[k] = 0;
	*pp = p;
	return true;
}

int pms_perfconfig_buildid_dir(const char *text, size_t len, char *out, size_t n)
{
	const char *p = text, *end = text + len;
	char sect[64] = "", val[4096];
	int found = 0;
	bool fits = true;
	if (!text || !out || !n)
		return 0;
	while (p < end) {
		while (p < end && (isspace((unsigned char)*p)))
			p++;
		if (p >= end)
			break;
		if (*p == '#' || *p == ';') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (*p == '[') { /* [section] or [section "sub"]: a sub-section is not ours */
			size_t k = 0;
			bool sub = false;
			for (p++; p < end && *p != ']' && *p != '\n'; p++) {
				if (*p == ' ' || *p == '"')
					sub = true;
				else if (k + 1 < sizeof(sect))
					sect[k++] = (char)tolower((unsigned char)*p);
			}
			sect[k] = 0;
			if (sub)
				sect[0] = 0;
			if (p < end && *p == ']')
				p++;
			continue;
		}
		/* key [= value]: perf's keys are letters, digits and '-' */
		char key[64];
		size_t k = 0;
		while (p < end && (isalnum((unsigned char)*p) || *p == '-')) {
			if (k + 1 < sizeof(key))
				key[k++] = (char)tolower((unsigned char)*p);
			p++;
		}
		key[k] = 0;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		bool ours = k && !strcmp(sect, "buildid") && !strcmp(key, "dir");
		if (p < end && *p == '=') {
			p++;
			bool f = true;
			if (!parse_value(&p, end, val, sizeof(val), &f))
				break; /* perf stops at a malformed value */
			if (ours) {
				size_t vl = strlen(val);
				fits = f && vl < n;
				if (fits)
					memcpy(out, val, vl + 1);
				found = 1;
			}
		} else if (ours) {
			/* "dir" without a value: perf's perf_config_dirname refuses it */
			break;
		}
		while (p < end && *p != '\n')
			p++;
	}
	if (found && !fits)
		return pms_err(PMS_ERANGE, "perfconfig: buildid.dir is too long");
	return found;
}

static bool env_true(const char *name)
{
	const char *v = getenv(name);
	/* perf_env_bool: perf_config_bool of the value ("1", "true", "yes",
	 * "on", or a non-zero number) */
	if (!v)
		return false;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return true;
	return strtol(v, NULL, 0) != 0;
}

/* buildid.dir from the file at the absolute path (read below sys's root):
 * 1 and out, 0 when it sets none or cannot be read. */
static int from_file(const struct pms_sys *sys, const char *path, bool check_owner, char *out,
		     size_t n)
{
	char *b = NULL;
	size_t len = 0;
	while (*path == '/')
		path++;
	if (check_owner) {
		/* config.c: a $HOME/.perfconfig owned by another user (not root)
		 * is skipped */
		struct stat st;
		if (fstatat(pms_sys_root_fd(sys), path, &st, 0) == 0 && st.st_uid &&
		    st.st_uid != geteuid())
			return 0;
	}
	if (pms_sys_read_file(sys, path, &b, &len) < 0) {
		pms_error_clear();
		return 0;
	}
	int rc = pms_perfconfig_buildid_dir(b, len, out, n);
	free(b);
	return rc;
}

/* p as perf opens it: a relative path from the working directory. */
static int absolute(const char *p, char *out, size_t n)
{
	char cwd[4096];
	int k;
	if (p[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		k = snprintf(out, n, "%s", p);
	else
		k = snprintf(out, n, "%s/%s", strcmp(cwd, "/") ? cwd : "", p);
	if (k < 0 || (size_t)k >= n)
		return pms_err(PMS_ERANGE, "perf's build-id cache path is too long");
	return 0;
}

int pms_perf_buildid_dir(const struct pms_sys *sys, char *out, size_t n)
{
	const char *home = getenv("HOME");
	const char *only = getenv("PERF_CONFIG");
	char dir[4096];
	int got = 0, rc;
	if (!sys || !out || !n)
		return pms_err(PMS_EINVAL, "perf_buildid_dir: NULL argument");
	if (only) {
		/* PERF_CONFIG: that file only */
		char path[4096];
		if ((rc = absolute(only, path, sizeof(path))) < 0 ||
		    (rc = from_file(sys, path, false, dir, sizeof(dir))) < 0)
			return rc;
		got = rc;
	} else {
		if (!env_true("PERF_CONFIG_NOSYSTEM") &&
		    (rc = from_file(sys, "/etc/perfconfig", false, dir, sizeof(dir))) != 0) {
			if (rc < 0)
				return rc;
			got = 1;
		}
		if (!env_true("PERF_CONFIG_NOGLOBAL") && home && *home) {
			char user[4096];
			int k = snprintf(user, sizeof(user), "%s/.perfconfig", home);
			if (k > 0 && (size_t)k < sizeof(user) &&
			    (rc = from_file(sys, user, true, dir, sizeof(dir))) != 0) {
				if (rc < 0)
					return rc;
				got = 1;
			}
		}
	}
	int k;
	if (got)
		return absolute(dir, out, n);
	if (home && *home)
		k = snprintf(out, n, "%s/.debug", home);
	else
		return pms_err(PMS_ENOENT, "no HOME and no buildid.dir for perf's build-id cache");
	if (k < 0 || (size_t)k >= n)
		return pms_err(PMS_ERANGE, "perf's build-id cache path is too long");
	return 0;
}
