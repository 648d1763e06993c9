// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Process info (procinfo.c): a running child is alive and listed among its parent's
 * children, a zombie is not alive, a reaped one does not exist; the command line is read;
 * the CPU time grows as the process works, and is read right from a stat line whose command
 * name holds spaces and parentheses.
 *
 * Process events: a child that forks a grandchild, both exiting, must come out as two forks
 * (with their parents) and two exits (with their status), and a thread must not count as a
 * process. Skipped where the connector cannot be had (not root, another user namespace, no
 * CONFIG_PROC_EVENTS): the error must then be one of the documented ones.
 *
 * Subscription acknowledgements go to every listener: a subscriber in a user namespace,
 * which the kernel does not serve, must not take another listener's for its own.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct seen {
	bool fork_child, fork_grandchild, exit_child, exit_grandchild, thread_fork;
	int child, grandchild, child_code;
};

static void *thread_fn(void *arg)
{
	return arg;
}

/* Collect events for up to 5 s, until both exits were seen. */
static void collect(struct damonctl_procevents *pe, struct seen *s)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = damonctl_procevents_fd(pe), .events = POLLIN };
		struct damonctl_procevent ev = DAMONCTL_PROCEVENT_INIT;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 5 || (s->exit_child && s->exit_grandchild))
			return;
		poll(&p, 1, 200);
		while ((r = damonctl_procevents_next(pe, &ev)) == 1) {
			if (ev.kind == DAMONCTL_PROCEVENT_FORK && ev.pid == s->child) {
				assert_int_equal(ev.parent_pid, getpid());
				s->fork_child = true;
			}
			if (ev.kind == DAMONCTL_PROCEVENT_FORK && ev.parent_pid == s->child) {
				s->fork_grandchild = true;
				s->grandchild = ev.pid;
			}
			if (ev.kind == DAMONCTL_PROCEVENT_FORK && ev.pid == getpid())
				s->thread_fork = true;	/* our own thread, misreported */
			if (ev.kind == DAMONCTL_PROCEVENT_EXIT && ev.pid == s->child) {
				s->exit_child = true;
				s->child_code = ev.exit_code;
			}
			if (ev.kind == DAMONCTL_PROCEVENT_EXIT && s->grandchild &&
			    ev.pid == s->grandchild)
				s->exit_grandchild = true;
		}
		assert_true(r == 0 || r == -ENOBUFS);
	}
}

static void test_fork_exit(void **state)
{
	struct damonctl_procevents *pe = NULL;
	struct seen s = { 0 };
	pthread_t th;
	int r, status;

	(void)state;
	r = damonctl_procevents_open(&pe);
	if (r == -EPERM || r == -EPROTONOSUPPORT || r == -EOPNOTSUPP) {
		print_message("process events connector unavailable here: %s\n", strerror(-r));
		skip();
	}
	assert_int_equal(r, 0);
	/* a thread is no process */
	assert_int_equal(pthread_create(&th, NULL, thread_fn, NULL), 0);
	pthread_join(th, NULL);
	s.child = fork();
	assert_true(s.child >= 0);
	if (!s.child) {
		pid_t g = fork();

		if (!g)
			_exit(0);
		waitpid(g, NULL, 0);
		_exit(3);
	}
	assert_int_equal(waitpid(s.child, &status, 0), s.child);
	/* a struct shorter than the first one with sz: refused, nothing consumed */
	assert_int_equal(damonctl_procevents_next(pe, &(struct damonctl_procevent){
		.sz = offsetof(struct damonctl_procevent, exit_code) }), -EINVAL);
	collect(pe, &s);
	damonctl_procevents_close(pe);
	assert_true(s.fork_child);
	assert_true(s.fork_grandchild);
	assert_true(s.exit_child);
	assert_true(s.exit_grandchild);
	assert_false(s.thread_fork);
	assert_true(WIFEXITED(s.child_code) && WEXITSTATUS(s.child_code) == 3);
}

/* With a watch list, only the watched process's fork and exit come through. */
static void test_watch(void **state)
{
	struct damonctl_procevents *pe = NULL;
	bool fork_a = false, exit_a = false, other = false;
	int go[2], a, b, r, status, grandchild = 0;
	struct timespec t0, now;
	char c = 'g';

	(void)state;
	r = damonctl_procevents_open(&pe);
	if (r == -EPERM || r == -EPROTONOSUPPORT || r == -EOPNOTSUPP)
		skip();
	assert_int_equal(r, 0);
	assert_int_equal(pipe(go), 0);
	a = fork();
	assert_true(a >= 0);
	if (!a) {
		pid_t g;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		g = fork();
		if (!g)
			_exit(0);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	assert_int_equal(damonctl_procevents_watch(pe, &a, 1), 0);
	/* drop what came before the filter: this process's fork of A */
	while (damonctl_procevents_next(pe, &(struct damonctl_procevent)DAMONCTL_PROCEVENT_INIT)
	       == 1)
		;
	b = fork();	/* not watched */
	assert_true(b >= 0);
	if (!b)
		_exit(0);
	waitpid(b, NULL, 0);
	assert_int_equal(write(go[1], &c, 1), 1);
	waitpid(a, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pollfd p = { .fd = damonctl_procevents_fd(pe), .events = POLLIN };
		struct damonctl_procevent ev = DAMONCTL_PROCEVENT_INIT;

		poll(&p, 1, 200);
		while (damonctl_procevents_next(pe, &ev) == 1) {
			if (ev.kind == DAMONCTL_PROCEVENT_FORK && ev.parent_pid == a) {
				fork_a = true;
				grandchild = ev.pid;
			} else if (ev.kind == DAMONCTL_PROCEVENT_EXIT && ev.pid == a) {
				exit_a = true;
			} else {
				other = true;	/* b, the grandchild's exit, anyone else's */
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!exit_a && now.tv_sec - t0.tv_sec < 5);
	{
		int many[DAMONCTL_PROCEVENTS_MAX_WATCH + 1] = { 0 };

		assert_int_equal(damonctl_procevents_watch(pe, many, DAMONCTL_PROCEVENTS_MAX_WATCH + 1),
				 -E2BIG);
		assert_int_equal(damonctl_procevents_watch(pe, NULL, 0), 0);
	}
	damonctl_procevents_close(pe);
	close(go[0]);
	close(go[1]);
	assert_true(fork_a);
	assert_true(grandchild > 0);
	assert_true(exit_a);
	assert_false(other);
}

/* A subscriber the kernel ignores, while others subscribe beside it: it must fail. */
static void test_foreign_ack(void **state)
{
	struct damonctl_procevents *pe = NULL;
	int child, status, r, done[2];
	char c;

	(void)state;
	r = damonctl_procevents_open(&pe);
	if (r == -EPERM || r == -EPROTONOSUPPORT || r == -EOPNOTSUPP)
		skip();
	assert_int_equal(r, 0);
	damonctl_procevents_close(pe);
	assert_int_equal(pipe(done), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		close(done[0]);
		if (unshare(CLONE_NEWUSER))
			_exit(77);
		r = damonctl_procevents_open(&pe);
		/* -ENOBUFS: no acknowledgement either, while the parent's subscriptions (each
		 * acknowledged to every listener) overran the socket */
		_exit(r == 0 ? 1 : r == -EPERM || r == -EOPNOTSUPP || r == -ENOBUFS ? 0 : 2);
	}
	close(done[1]);
	/* others' subscriptions (and their acknowledgements) until the child has decided */
	for (;;) {
		struct pollfd p = { .fd = done[0], .events = POLLIN };

		if (poll(&p, 1, 0) > 0 && read(done[0], &c, 1) <= 0)
			break;
		if (!damonctl_procevents_open(&pe))
			damonctl_procevents_close(pe);
	}
	close(done[0]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();	/* no user namespaces here */
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_procinfo(void **state)
{
	struct damonctl_ctx *ctx;
	int go[2], child, kids[16], n, i, found = 0;
	char buf[4096], c = 'x';

	(void)state;
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, "/"), 0);
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(damonctl_proc_alive(ctx, child), 1);
	assert_int_equal(damonctl_proc_alive(ctx, getpid()), 1);
	n = damonctl_proc_children(ctx, getpid(), kids, 16);
	assert_true(n >= 1);
	for (i = 0; i < n && i < 16; i++)
		found |= kids[i] == child;
	assert_true(found);
	n = damonctl_proc_cmdline(ctx, getpid(), buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, "test-procevents"));
	assert_int_equal(write(go[1], &c, 1), 1);
	/* a zombie until reaped: exited, not alive */
	for (i = 0; i < 500 && damonctl_proc_alive(ctx, child) == 1; i++)
		usleep(10000);
	assert_int_equal(damonctl_proc_alive(ctx, child), 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(damonctl_proc_alive(ctx, child), 0);
	assert_int_equal(damonctl_proc_children(ctx, child, kids, 16), -ESRCH);
	assert_int_equal(damonctl_proc_alive(ctx, -1), 0);
	close(go[0]);
	close(go[1]);
	damonctl_free(ctx);
}

/* CPU time: this process's grows while it works; a fixture's stat line with a tricky comm. */
static void test_cpu_time(void **state)
{
	struct damonctl_ctx *ctx;
	uint64_t t0 = 0, t1 = 0, want;
	volatile uint64_t sink = 0;
	char *root, path[4200];
	long hz = sysconf(_SC_CLK_TCK);
	int i;

	(void)state;
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, "/"), 0);
	assert_int_equal(damonctl_proc_cpu_time(ctx, getpid(), &t0), 0);
	/* work until the kernel has accounted at least one more tick (bounded: 20 s of work) */
	for (i = 0; i < 2000 && t1 <= t0; i++) {
		for (uint64_t j = 0; j < 2000000; j++)
			sink += j;
		assert_int_equal(damonctl_proc_cpu_time(ctx, getpid(), &t1), 0);
	}
	assert_true(t1 > t0);
	assert_true(sink > 0);	/* the work was done */
	assert_int_equal(damonctl_proc_cpu_time(ctx, 0, &t1), -EINVAL);
	/* this process has run for less than the machine has been up, and for more than 0 */
	assert_int_equal(damonctl_proc_times(ctx, getpid(), &t0, &t1), 0);
	assert_true(t1 > 0 && t1 < UINT64_C(100) * 365 * 86400 * 1000000);

	root = tmpdir_new();
	snprintf(path, sizeof(path), "%s/proc/4242/stat", root);
	write_file(path, "4242 (a) b) (c) S 2 0 0 0 -1 2129984 0 0 0 0 150 250 0 0 20 0 1 0 "
			 "100 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 "
			 "0 0 0 0 0\n");
	snprintf(path, sizeof(path), "%s/proc/4343/stat", root);
	write_file(path, "4343 (cut) S 2 0\n");
	assert_int_equal(damonctl_set_sysroot(ctx, root), 0);
	want = 400 * UINT64_C(1000000) / (uint64_t)hz;
	t1 = 0;
	assert_int_equal(damonctl_proc_cpu_time(ctx, 4242, &t1), 0);
	assert_int_equal(t1, want);
	t1 = 7;
	assert_int_equal(damonctl_proc_cpu_time(ctx, 4343, &t1), -EBADMSG);
	assert_int_equal(t1, 7);	/* untouched on failure */
	assert_int_equal(damonctl_proc_cpu_time(ctx, 4444, &t1), -ESRCH);
	/* started 100 ticks after boot, 1234.56 s ago by /proc/uptime */
	snprintf(path, sizeof(path), "%s/proc/uptime", root);
	write_file(path, "1234.56 2000.00\n");
	assert_int_equal(damonctl_proc_times(ctx, 4242, &t0, &t1), 0);
	assert_int_equal(t0, want);
	assert_int_equal(t1, UINT64_C(1234560000) - 100 * UINT64_C(1000000) / (uint64_t)hz);
	assert_int_equal(damonctl_proc_times(ctx, 4343, &t0, &t1), -EBADMSG);
	assert_int_equal(damonctl_proc_times(ctx, 4444, &t0, &t1), -ESRCH);
	write_file(path, "garbage\n");
	assert_int_equal(damonctl_proc_times(ctx, 4242, &t0, &t1), -EBADMSG);
	tmpdir_remove(root);
	damonctl_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procinfo),
		cmocka_unit_test(test_cpu_time),
		cmocka_unit_test(test_fork_exit),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_foreign_ack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
