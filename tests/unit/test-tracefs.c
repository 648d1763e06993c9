// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs instances (libdamonctl's damonctl_trace_instance_*, lib/tracefs.c) on a sysroot of
 * plain directories: where an instance is made, what its files read and get, removal, and
 * which leftover instances count as stale (their process is gone).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

struct fixture {
	char *root;
	struct damonctl_ctx *ctx;
	char tracing[4096];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->root = tmpdir_new();
	snprintf(f->tracing, sizeof(f->tracing), "%s/sys/kernel/tracing", f->root);
	assert_int_equal(damonctl_new(&f->ctx), 0);
	assert_int_equal(damonctl_set_sysroot(f->ctx, f->root), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	damonctl_free(f->ctx);
	tmpdir_remove(f->root);
	free(f);
	return 0;
}

/* <sysroot>/sys/kernel/tracing/instances/, as tracefs has it */
static void make_instances(const struct fixture *f)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/instances/.keep", f->tracing);
	write_file(path, "");
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static void test_has_event(void **state)
{
	struct fixture *f = *state;
	char path[4400];

	assert_false(damonctl_trace_has_event(f->ctx, "damon/damon_aggregated"));
	snprintf(path, sizeof(path), "%s/events/damon/damon_aggregated/enable", f->tracing);
	write_file(path, "0\n");
	assert_true(damonctl_trace_has_event(f->ctx, "damon/damon_aggregated"));
	assert_false(damonctl_trace_has_event(f->ctx, "damon/damos_before_apply"));
}

/* NAME-PID under instances/; files written, read back and opened; removal. */
static void test_instance(void **state)
{
	static const char *const events[] = { "damon/damon_aggregated", NULL };
	struct fixture *f = *state;
	struct damonctl_trace_instance *t, *again = NULL;
	char want[4400], path[4600], buf[8], *text;
	int fd;

	/* no tracefs: no instances directory */
	assert_int_equal(damonctl_trace_instance_create(f->ctx, "unit", &t), -ENOENT);
	make_instances(f);
	assert_int_equal(damonctl_trace_instance_create(f->ctx, "unit", &t), 0);
	snprintf(want, sizeof(want), "%s/instances/unit-%d", f->tracing, (int)getpid());
	assert_string_equal(damonctl_trace_instance_dir(t), want);
	assert_true(exists(want));
	assert_int_equal(damonctl_trace_instance_create(f->ctx, "unit", &again), -EEXIST);
	assert_null(again);

	/* tracefs makes the files; put never creates one */
	assert_int_equal(damonctl_trace_instance_put(t, "trace_clock", "mono"), -ENOENT);
	snprintf(path, sizeof(path), "%s/trace_clock", want);
	write_file(path, "[local] global\n");
	assert_int_equal(damonctl_trace_instance_put(t, "trace_clock", "mono"), 0);
	assert_int_equal(damonctl_trace_instance_get(t, "trace_clock", buf, sizeof(buf)), 4);
	assert_string_equal(buf, "mono");
	/* a small buffer: what fits, NUL-terminated */
	write_file(path, "0123456789");
	assert_int_equal(damonctl_trace_instance_get(t, "trace_clock", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "0123456");
	assert_int_equal(damonctl_trace_instance_get(t, "nothing", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(damonctl_trace_instance_open_pipe(t), -ENOENT);
	snprintf(path, sizeof(path), "%s/trace_pipe", want);
	write_file(path, "");
	fd = damonctl_trace_instance_open_pipe(t);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);

	/* the events are switched off and their filters cleared before the removal */
	snprintf(path, sizeof(path), "%s/events/damon/damon_aggregated/enable", want);
	write_file(path, "1");
	snprintf(path, sizeof(path), "%s/events/damon/damon_aggregated/filter", want);
	write_file(path, "common_pid == 5");
	/* a plain directory with files cannot be removed as tracefs's can: t is freed still */
	assert_int_equal(damonctl_trace_instance_remove(t, events), -ENOTEMPTY);
	text = slurp(path);
	assert_string_equal(text, "0");
	free(text);
	snprintf(path, sizeof(path), "%s/events/damon/damon_aggregated/enable", want);
	text = slurp(path);
	assert_string_equal(text, "0");
	free(text);
	/* an instance without files goes */
	assert_int_equal(damonctl_trace_instance_create(f->ctx, "empty", &t), 0);
	snprintf(path, sizeof(path), "%s", damonctl_trace_instance_dir(t));
	assert_int_equal(damonctl_trace_instance_remove(t, events), 0);
	assert_false(exists(path));
	assert_int_equal(damonctl_trace_instance_remove(NULL, events), 0);
}

/* Leftovers of processes that are gone, and only those of that name. */
static void test_remove_stale(void **state)
{
	struct fixture *f = *state;
	char path[4400];
	pid_t dead = fork();

	assert_true(dead >= 0);
	if (!dead)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	assert_int_equal(damonctl_trace_instance_remove_stale(f->ctx, "unit", NULL), -ENOENT);
	make_instances(f);
	snprintf(path, sizeof(path), "%s/instances/unit-%d", f->tracing, (int)dead);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/instances/unit-%d", f->tracing, (int)getpid());
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/instances/unit-%d", f->tracing, (int)getppid());
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/instances/unitx-%d", f->tracing, (int)dead);
	assert_int_equal(mkdir(path, 0700), 0);

	assert_int_equal(damonctl_trace_instance_remove_stale(f->ctx, "unit", NULL), 1);
	snprintf(path, sizeof(path), "%s/instances/unit-%d", f->tracing, (int)dead);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/instances/unit-%d", f->tracing, (int)getpid());
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/instances/unit-%d", f->tracing, (int)getppid());
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/instances/unitx-%d", f->tracing, (int)dead);
	assert_true(exists(path));
	assert_int_equal(damonctl_trace_instance_remove_stale(f->ctx, "unit", NULL), 0);
}

static int collect(void *data, const char *event)
{
	char *all = data;

	strcat(all, event);
	strcat(all, " ");
	return !strcmp(event, "stop_here") ? 7 : 0;
}

/* DAMON's events: those kernels have had (docs/damon-abi.md section 6, in order), and those
 * a tracefs has and can enable. */
static void test_damon_events(void **state)
{
	struct fixture *f = *state;
	char path[4400], all[256] = "";
	int since = 0;

	assert_string_equal(damonctl_trace_damon_event(0, &since), "damon_aggregated");
	assert_int_equal(since, DAMONCTL_VERSION(5, 15));
	assert_string_equal(damonctl_trace_damon_event(5, &since), "damon_region_aggregated");
	assert_int_equal(since, DAMONCTL_VERSION(7, 2));
	assert_string_equal(damonctl_trace_damon_event(4, NULL), "damos_stat_after_apply_interval");
	assert_null(damonctl_trace_damon_event(6, &since));

	assert_int_equal(damonctl_trace_kernel_events(f->ctx, collect, all), -ENOENT);
	snprintf(path, sizeof(path), "%s/events/damon/damos_esz/enable", f->tracing);
	write_file(path, "0\n");
	/* a directory without an enable file is no event (tracefs's "enable" of the system
	 * and its "filter" are files of events/damon/ itself) */
	snprintf(path, sizeof(path), "%s/events/damon/filter", f->tracing);
	write_file(path, "none\n");
	assert_int_equal(damonctl_trace_kernel_events(f->ctx, collect, all), 0);
	assert_string_equal(all, "damos_esz ");
	snprintf(path, sizeof(path), "%s/events/damon/stop_here/enable", f->tracing);
	write_file(path, "0\n");
	all[0] = '\0';
	assert_int_equal(damonctl_trace_kernel_events(f->ctx, collect, all), 7);
	assert_non_null(strstr(all, "stop_here "));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_has_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damon_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_stale, setup, teardown),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
