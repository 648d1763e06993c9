// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program built before the structures grew a size (old-abi.h: 0.1 to 0.3's layouts, bound
 * to those releases' symbol versions) against today's libdamonctl.so: each old function
 * gives what the current one gives, in the old layout. Linked with the shared library only.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "old-abi.h"

static char dir[] = "/tmp/damonc-compat.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static struct damonctl_ctx *sysroot_ctx(void)
{
	struct damonctl_ctx *ctx;

	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	return ctx;
}

/* /proc/meminfo in the 0.1 struct, every field in its place, and the figures of it. */
static void test_meminfo(void **state)
{
	struct damonctl_ctx *ctx = sysroot_ctx();
	struct old_meminfo m;

	(void)state;
	put("proc/meminfo", "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 600 kB\n"
	    "AnonPages: 300 kB\nAnonHugePages: 40 kB\nShmemHugePages: 8 kB\n"
	    "FileHugePages: 2 kB\n");
	memset(&m, 0xa5, sizeof(m));
	assert_int_equal(old_meminfo_read(ctx, &m), 0);
	assert_int_equal(m.total, 1000 * 1024);
	assert_int_equal(m.free, 100 * 1024);
	assert_int_equal(m.available, 600 * 1024);
	assert_int_equal(m.anon, 300 * 1024);
	assert_int_equal(m.anon_huge, 40 * 1024);
	assert_int_equal(m.shmem_huge, 8 * 1024);
	assert_int_equal(m.file_huge, 2 * 1024);
	assert_int_equal(old_meminfo_used(&m), 900 * 1024);
	assert_int_equal(old_meminfo_huge(&m), 50 * 1024);
	assert_int_equal(old_meminfo_hugepage_bp(&m), 50 * 10000 / 900);
	/* a failure leaves the old struct alone, as the old function did */
	put("proc/meminfo", "MemFree: 100 kB\n");
	assert_int_equal(old_meminfo_read(ctx, &m), -EBADMSG);
	assert_int_equal(m.total, 1000 * 1024);
	damonctl_free(ctx);
}

/* A child's fork and exit in the 0.1 struct (skipped where the connector cannot be had). */
static void test_procevents(void **state)
{
	struct damonctl_procevents *pe = NULL;
	bool forked = false, exited = false;
	struct timespec t0, now;
	int child, status, r;

	(void)state;
	r = damonctl_procevents_open(&pe);
	if (r == -EPERM || r == -EPROTONOSUPPORT || r == -EOPNOTSUPP) {
		print_message("process events connector unavailable here: %s\n", strerror(-r));
		skip();
	}
	assert_int_equal(r, 0);
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(5);
	assert_int_equal(waitpid(child, &status, 0), child);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pollfd p = { .fd = damonctl_procevents_fd(pe), .events = POLLIN };
		struct old_procevent ev;

		poll(&p, 1, 200);
		while ((r = old_procevents_next(pe, &ev)) == 1) {
			if (ev.kind == DAMONCTL_PROCEVENT_FORK && ev.pid == child) {
				assert_int_equal(ev.parent_pid, getpid());
				forked = true;
			}
			if (ev.kind == DAMONCTL_PROCEVENT_EXIT && ev.pid == child) {
				assert_true(WIFEXITED(ev.exit_code) && WEXITSTATUS(ev.exit_code) == 5);
				exited = true;
			}
		}
		assert_true(r == 0 || r == -ENOBUFS);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!exited && now.tv_sec - t0.tv_sec < 5);
	damonctl_procevents_close(pe);
	assert_true(forked);
	assert_true(exited);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo),
		cmocka_unit_test(test_procevents),
	};
	char path[sizeof(dir) + 16];
	int r;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0755);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(path, sizeof(path), "rm -rf %s", dir);	/* mkdtemp's name: no quoting needed */
	if (system(path))
		r = 1;
	return r;
}
