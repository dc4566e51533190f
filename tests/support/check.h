/* Minimal test harness: CHECK macros that report file:line and keep going,
 * and a runner.  Each test program defines its cases with PMS_TEST(name) and
 * ends with PMS_TEST_MAIN().  Exit status 1 = a check failed, else 77 =
 * something was skipped (meson's skip code), else 0 = everything ran and passed. */
#ifndef PMS_TESTS_CHECK_H
#define PMS_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int pms_t_failures;
extern int pms_t_checks;
extern int pms_t_skipped;

#define CHECK(cond)                                                                 \
	do {                                                                        \
		pms_t_checks++;                                                     \
		if (!(cond)) {                                                      \
			pms_t_failures++;                                           \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,      \
				__LINE__, #cond);                                   \
		}                                                                   \
	} while (0)

#define CHECK_MSG(cond, ...)                                                        \
	do {                                                                        \
		pms_t_checks++;                                                     \
		if (!(cond)) {                                                      \
			pms_t_failures++;                                           \
			fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__,      \
				__LINE__, #cond);                                   \
			fprintf(stderr, __VA_ARGS__);                               \
			fputc('\n', stderr);                                        \
		}                                                                   \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                          \
	do {                                                                        \
		long long pms_a_ = (long long)(a), pms_b_ = (long long)(b);         \
		CHECK_MSG(pms_a_ == pms_b_, "%lld != %lld", pms_a_, pms_b_);        \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                          \
	do {                                                                        \
		uint64_t pms_a_ = (uint64_t)(a), pms_b_ = (uint64_t)(b);            \
		CHECK_MSG(pms_a_ == pms_b_, "0x%" PRIx64 " != 0x%" PRIx64, pms_a_,  \
			  pms_b_);                                                  \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                          \
	do {                                                                        \
		const char *pms_a_ = (a), *pms_b_ = (b);                            \
		CHECK_MSG(pms_a_ && pms_b_ && strcmp(pms_a_, pms_b_) == 0,          \
			  "\"%s\" != \"%s\"", pms_a_ ? pms_a_ : "(null)",           \
			  pms_b_ ? pms_b_ : "(null)");                              \
	} while (0)

/* Check that a call returned >= 0, printing pms_error_last() if not. */
#define CHECK_OK(expr)                                                              \
	do {                                                                        \
		int pms_r_ = (expr);                                                \
		CHECK_MSG(pms_r_ >= 0, "%s returned %d: %s", #expr, pms_r_,         \
			  pms_error_last());                                        \
	} while (0)

typedef void (*pms_test_fn)(void);
struct pms_test_case {
	const char *name;
	pms_test_fn fn;
};

void pms_t_register(const char *name, pms_test_fn fn);
int pms_t_run(int argc, char **argv);

/* A part of the current case cannot run here: say why and go on (the
 * program then exits 77 unless a check failed). */
#define PMS_SKIP_PART(...)                                                          \
	do {                                                                        \
		fprintf(stderr, "SKIP: ");                                          \
		fprintf(stderr, __VA_ARGS__);                                       \
		fputc('\n', stderr);                                                \
		pms_t_skipped++;                                                    \
	} while (0)

/* Mark the current test case as skipped, with a reason, and return. */
#define PMS_SKIP(...)                                                               \
	do {                                                                        \
		fprintf(stderr, "SKIP: ");                                          \
		fprintf(stderr, __VA_ARGS__);                                       \
		fputc('\n', stderr);                                                \
		pms_t_skipped++;                                                    \
		return;                                                             \
	} while (0)

#define PMS_TEST(name)                                                              \
	static void name(void);                                                     \
	__attribute__((constructor)) static void pms_t_reg_##name(void)             \
	{                                                                           \
		pms_t_register(#name, name);                                        \
	}                                                                           \
	static void name(void)

#define PMS_TEST_MAIN()                                                             \
	int main(int argc, char **argv)                                             \
	{                                                                           \
		return pms_t_run(argc, argv);                                       \
	}

/* Test-environment paths (set by meson; NULL when unset). */
const char *pms_t_shared_data(void); /* ../shared/data, or NULL if absent */
const char *pms_t_fixtures(void);    /* tests/fixtures */
const char *pms_t_build_dir(void);
const char *pms_t_cli(void);         /* the pmuscope executable */

#endif
