#include "check.h"

#include <sys/stat.h>

int pms_t_failures;
int pms_t_checks;
int pms_t_skipped;

static struct pms_test_case cases[512];
static int ncases;

void pms_t_register(const char *name, pms_test_fn fn)
{
	if (ncases < (int)(sizeof(cases) / sizeof(cases[0])))
		cases[ncases++] = (struct pms_test_case){ name, fn };
}

int pms_t_run(int argc, char **argv)
{
	int ran = 0;
	for (int i = 0; i < ncases; i++) {
		int before = pms_t_failures;
		if (argc > 1 && !strstr(cases[i].name, argv[1]))
			continue;
		cases[i].fn();
		ran++;
		fprintf(stderr, "%s %s\n", pms_t_failures == before ? "ok  " : "FAIL",
			cases[i].name);
	}
	fprintf(stderr, "%d cases, %d checks, %d failed, %d skipped\n", ran, pms_t_checks,
		pms_t_failures, pms_t_skipped);
	if (pms_t_failures)
		return 1;
	/* Any case (or part of one) that could not run here makes the program
	 * a meson skip: a partial run is never reported as a pass. */
	if (ran > 0 && pms_t_skipped > 0)
		return 77;
	return 0;
}

static const char *env_dir(const char *name)
{
	const char *v = getenv(name);
	struct stat st;
	if (!v || !*v || stat(v, &st) < 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return v;
}

const char *pms_t_shared_data(void)
{
	return env_dir("PMS_SHARED_DATA");
}

const char *pms_t_fixtures(void)
{
	return env_dir("PMS_FIXTURES");
}

const char *pms_t_build_dir(void)
{
	return env_dir("PMS_BUILD_DIR");
}

const char *pms_t_cli(void)
{
	const char *v = getenv("PMS_CLI");
	return v && *v ? v : NULL;
}
