// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/rec_footprints.c on hand-written FOOTPRINT items (docs/record-format.md): the metrics'
 * order, values and the last sample are worked out in the comments (used = total - free,
 * huge/used in bp, a CPU share = CPU time / wall time in bp).
 */
#include <errno.h>
#include <string.h>

#include "common.h"

#define S 1000000000ull

/* At 1 s: used 1000 - 200 = 800, huge 200 (2500 bp); the kdamond's first CPU time (no share
 * yet); target 0 (pid 42) rss 100 with 3 mappings, target 1 (pid 43) rss 200 without CPU
 * time or mappings, target 99 (past the 64 followed: left out). */
static const char fp1[] =
	"{\"system\": {\"total\": 1000, \"free\": 200, \"huge\": 200},"
	" \"kdamond\": {\"pid\": 7, \"cpu_us\": 0}, \"targets\": ["
	"{\"target\": 0, \"pid\": 42, \"vsz\": 1000, \"rss\": 100, \"cpu_us\": 0,"
	" \"vmas\": [{}, {}, {}]},"
	"{\"target\": 1, \"pid\": 43, \"vsz\": 2000, \"rss\": 200},"
	"{\"target\": 99, \"pid\": 50, \"vsz\": 1, \"rss\": 1}]}";
/* At 2 s: used 500, huge 100 (2000 bp); the kdamond ran 0.1 s of 1 s (1000 bp), target 0
 * 0.5 s (5000 bp) with its mappings carried (3), target 1 is a new process (pid 44): its
 * mappings are unknown. */
static const char fp2[] =
	"{\"system\": {\"total\": 1000, \"free\": 500, \"huge\": 100},"
	" \"kdamond\": {\"pid\": 7, \"cpu_us\": 100000}, \"targets\": ["
	"{\"target\": 0, \"pid\": 42, \"vsz\": 1000, \"rss\": 300, \"cpu_us\": 500000},"
	"{\"target\": 1, \"pid\": 44, \"vsz\": 2000, \"rss\": 400}]}";

static int feed(struct damonctl_footprints *f, enum damonctl_rec_item_type type,
		const char *json, uint64_t ns)
{
	struct damonctl_rec_item it = { .sz = sizeof(it), .type = type, .json = json,
					.time_ns = ns };

	return damonctl_footprints_feed(f, &it);
}

static void check_metric(const struct damonctl_footprints *f, unsigned int i, const char *name,
			 int target, int pid, uint64_t min, uint64_t max)
{
	struct damonctl_footprint_metric m = { .sz = sizeof(m) };

	assert_int_equal(damonctl_footprints_metric(f, i, &m), 0);
	assert_string_equal(m.name, name);
	assert_int_equal(m.target, target);
	assert_int_equal(m.pid, pid);
	assert_int_equal(damonctl_qhist_min(m.values), min);
	assert_int_equal(damonctl_qhist_max(m.values), max);
}

static void two_samples(void **state)
{
	struct damonctl_footprints *f = damonctl_footprints_new(-1);
	struct damonctl_footprint_sample s = { .sz = sizeof(s) };
	struct damonctl_footprint_target t = { .sz = sizeof(t) };
	uint64_t first, last;

	(void)state;
	assert_int_equal(damonctl_footprints_sample(f, &s), -ENOENT);
	assert_int_equal(feed(f, DAMONCTL_REC_FOOTPRINT, fp1, 1 * S), 1);
	assert_int_equal(feed(f, DAMONCTL_REC_CONFIG, "{}", 1 * S), 0);	/* no footprint */
	assert_int_equal(feed(f, DAMONCTL_REC_FOOTPRINT, fp2, 2 * S), 1);
	assert_int_equal(feed(f, DAMONCTL_REC_FOOTPRINT, "{", 3 * S), 0);	/* damaged */
	assert_int_equal(damonctl_footprints_samples(f, &first, &last), 2);
	assert_int_equal(first, 1 * S);
	assert_int_equal(last, 2 * S);
	/* in the order first seen: the system's, target 0's and 1's of the first sample, then
	 * the CPU shares the second one made known */
	assert_int_equal(damonctl_footprints_nr_metrics(f), 10);
	check_metric(f, 0, "used", -1, 0, 500, 800);
	check_metric(f, 1, "huge", -1, 0, 100, 200);
	check_metric(f, 2, "huge_bp", -1, 0, 2000, 2500);
	check_metric(f, 3, "vsz", 0, 42, 1000, 1000);
	check_metric(f, 4, "rss", 0, 42, 100, 300);
	check_metric(f, 5, "vmas", 0, 42, 3, 3);
	check_metric(f, 6, "vsz", 1, 43, 2000, 2000);
	check_metric(f, 7, "rss", 1, 43, 200, 400);
	check_metric(f, 8, "kdamond_cpu_bp", -1, 7, 1000, 1000);
	check_metric(f, 9, "cpu_bp", 0, 42, 5000, 5000);
	assert_int_equal(damonctl_footprints_metric(f, 10, &(struct damonctl_footprint_metric){
		.sz = sizeof(struct damonctl_footprint_metric) }), -ERANGE);
	/* the last sample is the second */
	assert_int_equal(damonctl_footprints_sample(f, &s), 0);
	assert_int_equal(s.time_ns, 2 * S);
	assert_true(s.has_system);
	assert_int_equal(s.used, 500);
	assert_int_equal(s.huge, 100);
	assert_int_equal(s.kdamond_cpu_bp, 1000);
	assert_int_equal(s.nr_targets, 2);
	assert_int_equal(damonctl_footprints_sample_target(f, 0, &t), 0);
	assert_int_equal(t.target, 0);
	assert_int_equal(t.rss, 300);
	assert_int_equal(t.cpu_bp, 5000);
	assert_int_equal(t.vmas, 3);
	assert_int_equal(damonctl_footprints_sample_target(f, 1, &t), 0);
	assert_int_equal(t.pid, 44);
	assert_int_equal(t.cpu_bp, -1);
	assert_int_equal(t.vmas, -1);
	assert_int_equal(damonctl_footprints_sample_target(f, 2, &t), -ERANGE);
	s.sz = sizeof(size_t);
	assert_int_equal(damonctl_footprints_sample(f, &s), -EINVAL);
	damonctl_footprints_free(f);
}

/* Of target 1 alone: the system's and the kdamond's metrics, and target 1's vsz and rss. */
static void one_target(void **state)
{
	struct damonctl_footprints *f = damonctl_footprints_new(1);
	struct damonctl_footprint_sample s = { .sz = sizeof(s) };

	(void)state;
	assert_int_equal(feed(f, DAMONCTL_REC_FOOTPRINT, fp1, 1 * S), 1);
	assert_int_equal(feed(f, DAMONCTL_REC_FOOTPRINT, fp2, 2 * S), 1);
	assert_int_equal(damonctl_footprints_nr_metrics(f), 6);
	check_metric(f, 3, "vsz", 1, 43, 2000, 2000);
	check_metric(f, 4, "rss", 1, 43, 200, 400);
	check_metric(f, 5, "kdamond_cpu_bp", -1, 7, 1000, 1000);
	assert_int_equal(damonctl_footprints_sample(f, &s), 0);
	assert_int_equal(s.nr_targets, 1);
	damonctl_footprints_free(f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_samples),
		cmocka_unit_test(one_target),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
