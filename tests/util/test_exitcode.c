/* pms_exit_code on real wait statuses: children that exit with a code, are
 * killed by a signal, and a stop report (WUNTRACED). */
#include "check.h"
#include "pmuscope/util.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_of(int how)
{
	int st = 0;
	pid_t p = fork();
	if (p == 0) {
		if (how >= 0)
			_exit(how);
		raise(-how);
		_exit(99);
	}
	waitpid(p, &st, 0);
	return st;
}

PMS_TEST(exit_code_of_an_exit_is_its_code)
{
	CHECK_EQ_INT(pms_exit_code(status_of(0)), 0);
	CHECK_EQ_INT(pms_exit_code(status_of(3)), 3);
	CHECK_EQ_INT(pms_exit_code(status_of(255)), 255);
}

PMS_TEST(exit_code_of_a_signal_is_128_plus_it)
{
	CHECK_EQ_INT(pms_exit_code(status_of(-SIGTERM)), 128 + SIGTERM);
	CHECK_EQ_INT(pms_exit_code(status_of(-SIGKILL)), 128 + SIGKILL);
}

PMS_TEST(exit_describe_says_the_code_or_the_signal)
{
	char b[128];
	CHECK_EQ_INT(pms_exit_describe(status_of(3), b, sizeof(b)), 3);
	CHECK_EQ_STR(b, "exited with status 3");
	CHECK_EQ_INT(pms_exit_describe(status_of(-SIGKILL), b, sizeof(b)), 128 + SIGKILL);
	CHECK_EQ_STR(b, "was killed by SIGKILL (signal 9)");
	char small[8];
	CHECK_EQ_INT(pms_exit_describe(status_of(0), small, sizeof(small)), 0);
	CHECK_EQ_STR(small, "exited ");
}

PMS_TEST(exit_code_of_a_stop_report_is_minus_one)
{
	int st = 0;
	pid_t p = fork();
	if (p == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	waitpid(p, &st, WUNTRACED);
	CHECK(WIFSTOPPED(st));
	CHECK_EQ_INT(pms_exit_code(st), -1);
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	CHECK_EQ_INT(pms_exit_code(st), 128 + SIGKILL);
}

PMS_TEST_MAIN()
