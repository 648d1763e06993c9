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
#include <sys/mman.h>
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
				assert_true(WIFEXITED(ev.exit_code));
				assert_int_equal(WEXITSTATUS(ev.exit_code), 5);
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

static const struct damonctl_rec_region regions[] = {
	{ 0x1000, 0x3000, 7, 2, 0x800 }, { 0x3000, 0x9000, 0, 40, 0 },
	{ 0x10000, 0x11000, 3, 1, 0 },
};

/* A snapshot whose every field differs from the others, as both layouts hold it. */
#define SNAP_FIELDS .kdamond = 2, .context = 1, .target = 3, .scheme = -1, .start_ns = 1000, \
	.end_ns = 2000, .sample_us = 5000, .aggr_us = 100000, .update_us = 1000000, \
	.total_bytes = 0x9000, .has_sz_filter_passed = true, .nr_regions = 3, .regions = regions
#define STATS_FIELDS .time_ns = 1500, .kdamond = 2, .context = 1, .scheme = 4, .has = 0x85, \
	.v = { 11, 0, 13, 0, 0, 0, 0, 17 }, .action = "pageout"

static void expect_snapshot(uint32_t kdamond, uint32_t context, int32_t target, int32_t scheme,
			    uint64_t start_ns, uint64_t end_ns, uint64_t sample_us,
			    uint64_t aggr_us, uint64_t update_us, uint64_t total_bytes,
			    bool has_sfp, uint32_t nr, const struct damonctl_rec_region *r)
{
	assert_int_equal(kdamond, 2);
	assert_int_equal(context, 1);
	assert_int_equal(target, 3);
	assert_int_equal(scheme, -1);
	assert_int_equal(start_ns, 1000);
	assert_int_equal(end_ns, 2000);
	assert_int_equal(sample_us, 5000);
	assert_int_equal(aggr_us, 100000);
	assert_int_equal(update_us, 1000000);
	assert_int_equal(total_bytes, 0x9000);
	assert_true(has_sfp);
	assert_int_equal(nr, 3);
	for (uint32_t i = 0; i < nr; i++)
		assert_memory_equal(&r[i], &regions[i], sizeof(regions[i]));
}
#define EXPECT_SNAPSHOT(s) expect_snapshot((s)->kdamond, (s)->context, (s)->target, \
	(s)->scheme, (s)->start_ns, (s)->end_ns, (s)->sample_us, (s)->aggr_us, (s)->update_us, \
	(s)->total_bytes, (s)->has_sz_filter_passed, (s)->nr_regions, (s)->regions)

static void expect_stats(uint64_t time_ns, uint32_t kdamond, uint32_t context, uint32_t scheme,
			 uint32_t has, const uint64_t *v, const char *action)
{
	assert_int_equal(time_ns, 1500);
	assert_int_equal(kdamond, 2);
	assert_int_equal(context, 1);
	assert_int_equal(scheme, 4);
	assert_int_equal(has, 0x85);
	assert_int_equal(v[0], 11);
	assert_int_equal(v[2], 13);
	assert_int_equal(v[7], 17);
	assert_string_equal(action, "pageout");
}
#define EXPECT_STATS(st) expect_stats((st)->time_ns, (st)->kdamond, (st)->context, \
	(st)->scheme, (st)->has, (st)->v, (st)->action)

static int record_fd(void)
{
	int fd = memfd_create("compat", 0);

	assert_true(fd >= 0);
	return fd;
}

/*
 * Written through the old writers, read through today's reader; written through today's
 * writers, read through the old reader: each conversion is checked on its own (a pair of
 * wrong ones cannot cancel out).
 */
static void test_records(void **state)
{
	const struct old_rec_snapshot os = { SNAP_FIELDS };
	const struct old_rec_stats ost = { STATS_FIELDS };
	const struct damonctl_rec_snapshot ns = { .sz = sizeof(ns), SNAP_FIELDS };
	const struct damonctl_rec_stats nst = { .sz = sizeof(nst), STATS_FIELDS };
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_rec_writer *w;
	struct damonctl_rec_reader *r;
	struct old_rec_item oit;
	char why[256];
	int fd, n;

	(void)state;
	fd = record_fd();
	assert_int_equal(damonctl_rec_writer_new(fd, 0, NULL, &w), 0);
	assert_int_equal(old_rec_write_snapshot(w, &os), 0);
	assert_int_equal(old_rec_write_stats(w, &ost), 0);
	assert_int_equal(damonctl_rec_writer_finish(w, DAMONCTL_REC_END_COUNT), 0);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	for (n = 0; damonctl_rec_next(r, &it) == 1; n++) {
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			EXPECT_SNAPSHOT(it.snapshot);
		if (it.type == DAMONCTL_REC_STATS)
			EXPECT_STATS(it.stats);
	}
	assert_int_equal(n, 4);	/* INFO, SNAPSHOT, STATS, END */
	damonctl_rec_reader_free(r);
	close(fd);

	fd = record_fd();
	assert_int_equal(damonctl_rec_writer_new(fd, 0, "{\"x\":1}", &w), 0);
	assert_int_equal(damonctl_rec_write_snapshot(w, &ns), 0);
	assert_int_equal(damonctl_rec_write_stats(w, &nst), 0);
	assert_int_equal(damonctl_rec_write_config(w, 77, "{}"), 0);
	assert_int_equal(damonctl_rec_writer_finish(w, DAMONCTL_REC_END_COUNT), 0);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	memset(&oit, 0xa5, sizeof(oit));
	assert_int_equal(old_rec_next(r, &oit), 1);
	assert_int_equal(oit.type, DAMONCTL_REC_INFO);
	assert_string_equal(oit.json, "{\"x\":1}");
	/* the old reader zeroed what an item's type does not use */
	assert_int_equal(oit.snapshot.nr_regions, 0);
	assert_int_equal(oit.end.nr_snapshots, 0);
	assert_int_equal(old_rec_next(r, &oit), 1);
	assert_int_equal(oit.type, DAMONCTL_REC_SNAPSHOT);
	EXPECT_SNAPSHOT(&oit.snapshot);
	assert_int_equal(old_rec_next(r, &oit), 1);
	assert_int_equal(oit.type, DAMONCTL_REC_STATS);
	EXPECT_STATS(&oit.stats);
	assert_int_equal(old_rec_next(r, &oit), 1);
	assert_int_equal(oit.type, DAMONCTL_REC_CONFIG);
	assert_int_equal(oit.time_ns, 77);
	assert_string_equal(oit.json, "{}");
	assert_int_equal(old_rec_next(r, &oit), 1);
	assert_int_equal(oit.type, DAMONCTL_REC_END);
	assert_int_equal(oit.end.nr_snapshots, 1);
	assert_int_equal(oit.end.reason, DAMONCTL_REC_END_COUNT);
	assert_true(oit.end.time_ns > 0);
	assert_int_equal(old_rec_next(r, &oit), 0);
	damonctl_rec_reader_free(r);
	close(fd);
}

/* The 0.2 merger: old snapshots in, the merged windows out in the old struct. */
static void test_merger(void **state)
{
	const struct damonctl_rec_region a[] = { { 0, 100, 4, 10, 0 } };
	const struct damonctl_rec_region b[] = { { 0, 100, 2, 3, 0 } };
	struct old_rec_snapshot s = { .target = 1, .scheme = -1, .start_ns = 0,
				      .end_ns = 100000000, .sample_us = 5000, .aggr_us = 100000,
				      .nr_regions = 1, .regions = a }, out;
	struct damonctl_rec_merger *m;

	(void)state;
	assert_int_equal(damonctl_rec_merger_new(1000000, &m), 0);
	assert_int_equal(old_rec_merger_add(m, &s, &out), 0);
	s.start_ns = 100000000;
	s.end_ns = 200000000;
	s.regions = b;
	assert_int_equal(old_rec_merger_add(m, &s, &out), 0);
	s.start_ns = 1000000000;
	s.end_ns = 1100000000;
	memset(&out, 0xa5, sizeof(out));
	assert_int_equal(old_rec_merger_add(m, &s, &out), 1);
	assert_int_equal(out.target, 1);
	assert_int_equal(out.scheme, -1);
	assert_int_equal(out.start_ns, 0);
	assert_int_equal(out.end_ns, 200000000);
	assert_int_equal(out.aggr_us, 200000);
	assert_int_equal(out.sample_us, 5000);
	assert_int_equal(out.total_bytes, 100);
	assert_false(out.has_sz_filter_passed);
	assert_int_equal(out.nr_regions, 1);
	assert_int_equal(out.regions[0].nr_accesses, 6);
	assert_int_equal(old_rec_merger_flush(m, &out), 1);
	assert_int_equal(out.start_ns, 1000000000);
	assert_int_equal(out.regions[0].nr_accesses, 2);
	assert_int_equal(old_rec_merger_flush(m, &out), 0);
	damonctl_rec_merger_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo),
		cmocka_unit_test(test_procevents),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_merger),
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
