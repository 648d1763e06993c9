// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A command launched for monitoring (lib/launch.c): found as execvp would, held before its
 * exec until released, its failed exec told, and never run when it is not released.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static void find(void **state)
{
	char *dir = tmpdir_new(), path[4096], file[4200], *saved = getenv("PATH");

	(void)state;
	saved = saved ? strdup(saved) : NULL;
	assert_int_equal(damonctl_launch_find("sh", path, sizeof(path)), 0);
	assert_int_equal(access(path, X_OK), 0);
	assert_non_null(strstr(path, "/sh"));
	assert_int_equal(damonctl_launch_find("", path, sizeof(path)), -ENOENT);
	assert_int_equal(damonctl_launch_find("no-such-command-damonc", path, sizeof(path)),
			 -ENOENT);
	assert_int_equal(damonctl_launch_find("/nonexistent/cmd", path, sizeof(path)), -ENOENT);
	assert_int_equal(damonctl_launch_find(dir, path, sizeof(path)), -EISDIR);
	/* a file that cannot be executed: named, and found only so in $PATH */
	snprintf(file, sizeof(file), "%s/tool", dir);
	write_file(file, "#!/bin/sh\n");
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(damonctl_launch_find(file, path, sizeof(path)), -EACCES);
	setenv("PATH", dir, 1);
	assert_int_equal(damonctl_launch_find("tool", path, sizeof(path)), -EACCES);
	assert_int_equal(chmod(file, 0755), 0);
	assert_int_equal(damonctl_launch_find("tool", path, sizeof(path)), 0);
	assert_string_equal(path, file);
	assert_int_equal(damonctl_launch_find("tool", path, 8), -ENOENT);
	assert_int_equal(damonctl_launch_find(file, path, 8), -ENAMETOOLONG);
	/* no $PATH: /bin and /usr/bin */
	unsetenv("PATH");
	assert_int_equal(damonctl_launch_find("sh", path, sizeof(path)), 0);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	tmpdir_remove(dir);
}

/* The command runs only once released, and its status is the caller's to wait for. */
static void held_then_released(void **state)
{
	char *dir = tmpdir_new(), mark[4200], script[4400], sh[4096];
	struct damonctl_launch *l;
	struct stat st;
	int pid, status;

	(void)state;
	snprintf(mark, sizeof(mark), "%s/ran", dir);
	snprintf(script, sizeof(script), "echo ran >%s; exit 3", mark);
	{
		char *argv[] = { "sh", "-c", script, NULL };

		assert_int_equal(damonctl_launch_find("sh", sh, sizeof(sh)), 0);
		assert_int_equal(damonctl_launch_new(sh, argv, &l), 0);
	}
	pid = damonctl_launch_pid(l);
	assert_true(pid > 0);
	usleep(100000);
	assert_int_equal(stat(mark, &st), -1);	/* held: not run yet */
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	assert_int_equal(damonctl_launch_release(l), 0);
	assert_int_equal(damonctl_launch_release(l), -EALREADY);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	assert_int_equal(stat(mark, &st), 0);
	damonctl_launch_free(l);
	tmpdir_remove(dir);
}

/* Not released: killed and reaped, and it never ran. */
static void never_released(void **state)
{
	char *dir = tmpdir_new(), mark[4200], script[4400];
	char *argv[] = { "sh", "-c", script, NULL };
	struct damonctl_launch *l;
	struct stat st;
	int pid;

	(void)state;
	snprintf(mark, sizeof(mark), "%s/ran", dir);
	snprintf(script, sizeof(script), "echo ran >%s", mark);
	assert_int_equal(damonctl_launch_new("/bin/sh", argv, &l), 0);
	pid = damonctl_launch_pid(l);
	damonctl_launch_free(l);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(stat(mark, &st), -1);
	damonctl_launch_free(NULL);
	assert_int_equal(damonctl_launch_pid(NULL), -1);
	tmpdir_remove(dir);
}

/* A failed exec is the release's error; the child has exited, and free reaps it. A child
 * killed while held cannot be released. */
static void failures(void **state)
{
	char *dir = tmpdir_new(), bad[4200];
	const char *preload = getenv("LD_PRELOAD");
	char *argv[] = { "x", NULL };
	struct damonctl_launch *l;
	siginfo_t si;
	int pid;

	(void)state;
	/* an interpreter that does not exist: found, but exec fails (valgrind cannot go on
	 * after a failed execve, and ends the child without a word) */
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	write_file(bad, "#!/nonexistent/interp\n");
	assert_int_equal(chmod(bad, 0755), 0);
	if (!preload || !strstr(preload, "vgpreload")) {
		assert_int_equal(damonctl_launch_new(bad, argv, &l), 0);
		pid = damonctl_launch_pid(l);
		assert_int_equal(damonctl_launch_release(l), -ENOENT);
		damonctl_launch_free(l);
		assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
		assert_int_equal(errno, ECHILD);
	}

	assert_int_equal(damonctl_launch_new("/bin/true", argv, &l), 0);
	pid = damonctl_launch_pid(l);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(damonctl_launch_release(l), -ESRCH);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	damonctl_launch_free(l);
	tmpdir_remove(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(find),
		cmocka_unit_test(held_then_released),
		cmocka_unit_test(never_released),
		cmocka_unit_test(failures),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
