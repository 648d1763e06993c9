// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/hugepage_meter.c on this process's own memory (real huge pages made with
 * madvise(MADV_COLLAPSE)): its figures are smaps_rollup's, a read walks the page tables only
 * when something changed, and what changes them (a collapse, an unmap, an exit) is seen.
 * The host's other processes may move the system's THP counters at any time: a check that
 * a read was answered without a walk tries again until one is.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HP DAMONCTL_HUGEPAGE_SIZE
#define TRIES 200		/* reads, 10 ms apart, before a check gives up */

static char *aligned_buffer(size_t size)
{
	char *raw = mmap(NULL, size + HP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	char *buf;

	assert_true(raw != MAP_FAILED);
	buf = (char *)(((uintptr_t)raw + HP - 1) & ~(uintptr_t)(HP - 1));
	/* THP "always" makes huge pages here at the first touch (and khugepaged later): the
	 * tests then skip (own_setup) */
	memset(buf, 1, size);
	return buf;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static struct damonctl_hugepage_meter_stats stats(const struct damonctl_hugepage_meter *m)
{
	struct damonctl_hugepage_meter_stats st = { .sz = sizeof(st) };

	assert_int_equal(damonctl_hugepage_meter_stats(m, &st), 0);
	return st;
}

struct own {
	struct damonctl_ctx *ctx;
	struct damonctl_hugepage_meter *m;
	char *buf;
	size_t size;
	bool thp_always;	/* huge pages this process did not ask for */
};

/* Collapse @n huge pages of the buffer from page @first on; false where THP cannot, or
 * makes huge pages of its own ("always"): the test skips. */
static bool collapse(const struct own *o, unsigned int first, unsigned int n)
{
	return !o->thp_always && !madvise(o->buf + first * HP, n * HP, MADV_COLLAPSE);
}

/* Read until the huge figure is @want; the last figures in @huge, @used. A walk the
 * counters ask for waits until 2000 times the last walk's CPU time has passed (seconds
 * under valgrind): the bound is twice that, at least TRIES reads. */
static void read_until(struct damonctl_hugepage_meter *m, uint64_t want, uint64_t *huge,
		       uint64_t *used)
{
	int i, tries = TRIES;

	if ((int)(stats(m).scan_us_last * 4 / 10) > tries)
		tries = (int)(stats(m).scan_us_last * 4 / 10);
	for (i = 0; i < tries; i++) {
		assert_int_equal(damonctl_hugepage_meter_read(m, 0, huge, used), 0);
		if (*huge == want)
			return;
		pause_ms(10);
	}
	fail_msg("the meter says %llu bytes huge, %llu expected", (unsigned long long)*huge,
		 (unsigned long long)want);
}

/* Some read is answered from the last walk (the counters of the whole system may move
 * between two reads: other processes' faults). */
static void some_read_cached(struct damonctl_hugepage_meter *m)
{
	uint64_t before = stats(m).cached, huge, used;
	int i;

	for (i = 0; i < TRIES && stats(m).cached == before; i++) {
		assert_int_equal(damonctl_hugepage_meter_read(m, 0, &huge, &used), 0);
		pause_ms(10);
	}
	assert_true(stats(m).cached > before);
}

static int own_setup(void **state)
{
	struct own *o = calloc(1, sizeof(*o));
	struct damonctl_hugepage_meter_pid p = { .sz = sizeof(p) };
	uint64_t huge, used;
	int pid = getpid();

	assert_non_null(o);
	o->size = 32 << 20;
	o->buf = aligned_buffer(o->size);
	assert_int_equal(damonctl_new(&o->ctx), 0);
	assert_int_equal(damonctl_hugepage_meter_new(o->ctx, &o->m), 0);
	assert_int_equal(damonctl_hugepage_meter_set_pids(o->m, &pid, 1), 0);
	*state = o;
	/* THP "always": huge pages the tests did not make (each test skips) */
	assert_int_equal(damonctl_hugepage_meter_read(o->m, 0, &huge, &used), 0);
	assert_int_equal(damonctl_hugepage_meter_pid(o->m, 0, &p), 0);
	o->thp_always = p.anon_huge != 0;
	return 0;
}

static int own_teardown(void **state)
{
	struct own *o = *state;

	damonctl_hugepage_meter_free(o->m);
	damonctl_free(o->ctx);
	munmap(o->buf, o->size);
	free(o);
	return 0;
}

/* The figures are smaps_rollup's: huge to the byte, RSS within a huge page (the kernel's
 * RSS counters are per CPU, smaps counts pages). */
static void test_matches_smaps(void **state)
{
	struct own *o = *state;
	struct damonctl_hugepage_meter_pid p = { .sz = sizeof(p) };
	struct damonctl_proc_mem pm;
	uint64_t huge, used;

	if (!collapse(o, 2, 3))
		skip();	/* no THP here, or MADV_COLLAPSE refused */
	assert_int_equal(damonctl_hugepage_meter_read(o->m, DAMONCTL_HMETER_FRESH, &huge, &used), 0);
	assert_int_equal(damonctl_proc_mem_read(o->ctx, getpid(), &pm), 0);
	assert_int_equal(huge, damonctl_proc_mem_huge(&pm));
	assert_true(huge >= 3 * HP);
	assert_true(used + HP > pm.rss && pm.rss + HP > used);
	assert_int_equal(damonctl_hugepage_meter_pid(o->m, 0, &p), 0);
	assert_int_equal(p.pid, getpid());
	assert_true(p.exists);
	assert_int_equal(p.huge, huge);
	assert_int_equal(p.anon_huge, pm.anon_huge);
	assert_int_equal(p.rss, used);
	assert_int_equal(damonctl_hugepage_meter_pid(o->m, 1, &p), -EINVAL);
	assert_int_equal(stats(o->m).method, DAMONCTL_HMETER_PAGEMAP_SCAN);
}

/* Nothing changes: no walk. A collapse moves the THP counters: a walk, which sees it. */
static void test_walks_on_change(void **state)
{
	struct own *o = *state;
	uint64_t huge, used, scans;

	if (!collapse(o, 0, 1))
		skip();
	assert_int_equal(damonctl_hugepage_meter_read(o->m, DAMONCTL_HMETER_FRESH, &huge, &used), 0);
	some_read_cached(o->m);
	scans = stats(o->m).scans;
	assert_true(collapse(o, 5, 2));
	read_until(o->m, huge + 2 * HP, &huge, &used);
	assert_true(stats(o->m).scans > scans);
	/* the caller's own change is walked at the next read, whatever the counters say */
	scans = stats(o->m).scans;
	damonctl_hugepage_meter_invalidate(o->m);
	assert_int_equal(damonctl_hugepage_meter_read(o->m, 0, &huge, &used), 0);
	assert_int_equal(stats(o->m).scans, scans + 1);
	assert_int_equal(stats(o->m).reads, stats(o->m).scans + stats(o->m).cached);
}

/* An unmapped huge page moves no THP event counter, but the RSS: seen. */
static void test_unmap_seen(void **state)
{
	struct own *o = *state;
	uint64_t huge, used;

	if (!collapse(o, 8, 4))
		skip();
	assert_int_equal(damonctl_hugepage_meter_read(o->m, DAMONCTL_HMETER_FRESH, &huge, &used), 0);
	assert_int_equal(munmap(o->buf + 9 * HP, HP), 0);
	read_until(o->m, huge - HP, &huge, &used);
	/* the rest of the buffer is unmapped by the teardown around the hole */
	assert_int_equal(munmap(o->buf + 10 * HP, o->size - 10 * HP), 0);
	assert_int_equal(munmap(o->buf, 9 * HP), 0);
	o->buf = mmap(NULL, HP, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	o->size = HP;
}

/* A target that exits counts for nothing; pids <= 0 are targets that exited before. */
static void test_exit(void **state)
{
	struct own *o = *state;
	int pids[3] = { getpid(), 0, -5 }, status;
	struct damonctl_hugepage_meter_pid p = { .sz = sizeof(p) };
	uint64_t huge, used, alone, huge0;
	pid_t child = fork();

	assert_true(child >= 0);
	if (!child) {
		char *b = aligned_buffer(8 << 20);

		(void)b;
		pause();
		_exit(0);
	}
	assert_int_equal(damonctl_hugepage_meter_read(o->m, DAMONCTL_HMETER_FRESH, &huge0, &alone), 0);
	pids[1] = child;
	assert_int_equal(damonctl_hugepage_meter_set_pids(o->m, pids, 3), 0);
	/* the child's 8 MiB: a new set of targets is walked at once */
	for (int i = 0; i < TRIES; i++) {
		assert_int_equal(damonctl_hugepage_meter_read(o->m, 0, &huge, &used), 0);
		assert_int_equal(damonctl_hugepage_meter_pid(o->m, 1, &p), 0);
		if (p.rss >= (8 << 20))
			break;
		pause_ms(10);
	}
	assert_true(p.exists && p.rss >= (8 << 20));
	assert_int_equal(damonctl_hugepage_meter_pid(o->m, 2, &p), 0);
	assert_false(p.exists);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	pause_ms(150);	/* reads less than 100 ms apart answer alike */
	assert_int_equal(damonctl_hugepage_meter_read(o->m, 0, &huge, &used), 0);
	assert_int_equal(damonctl_hugepage_meter_pid(o->m, 1, &p), 0);
	assert_false(p.exists);
	assert_int_equal(p.rss, 0);
	assert_true(used < alone + HP);
	assert_int_equal(huge, huge0);
	/* the same set again keeps what was found */
	assert_int_equal(damonctl_hugepage_meter_set_pids(o->m, pids, 3), 0);
	assert_int_equal(damonctl_hugepage_meter_pid(o->m, 1, &p), 0);
	assert_false(p.exists);
}

/* No pids: the system's ratio, from meminfo (a fixture sysroot). */
static void test_system(void **state)
{
	char *dir = tmpdir_new(), path[4096];
	struct damonctl_hugepage_meter *m;
	struct damonctl_ctx *ctx;
	uint64_t huge, used;

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	write_file(path, "MemTotal:       1000000 kB\nMemFree:         600000 kB\n"
		   "AnonHugePages:    20480 kB\nShmemHugePages:    2048 kB\n"
		   "FileHugePages:     4096 kB\n");
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	assert_int_equal(damonctl_hugepage_meter_new(ctx, &m), 0);
	assert_int_equal(damonctl_hugepage_meter_read(m, 0, &huge, &used), 0);
	assert_int_equal(huge, 26624ull << 10);
	assert_int_equal(used, 400000ull << 10);
	assert_int_equal(stats(m).method, DAMONCTL_HMETER_MEMINFO);
	/* bad arguments */
	assert_int_equal(damonctl_hugepage_meter_read(m, 1 << 7, &huge, &used), -EINVAL);
	assert_int_equal(damonctl_hugepage_meter_read(NULL, 0, &huge, &used), -EINVAL);
	assert_int_equal(damonctl_hugepage_meter_set_pids(m, NULL, 2), -EINVAL);
	assert_int_equal(damonctl_hugepage_meter_new(NULL, &m), -EINVAL);
	damonctl_hugepage_meter_free(m);
	damonctl_hugepage_meter_free(NULL);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_matches_smaps, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_walks_on_change, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_unmap_seen, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_exit, own_setup, own_teardown),
		cmocka_unit_test(test_system),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
