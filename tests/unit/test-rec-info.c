// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/rec_info.c on hand-made items: the figures each series should show are worked out in
 * the comments from the snapshots fed, and the configuration's pid and operations apply
 * by the rule damonctl_rec_info_new(3) states (the kdamond the INFO item names, or the only
 * one).
 */
#include <errno.h>
#include <string.h>

#include "common.h"

#define MS 1000000ull

static const char config[] = "{\"kdamonds\": [{\"contexts\": [{\"operations\": \"vaddr\", "
			     "\"targets\": [{\"pid_target\": 42}, {\"pid_target\": 43}]}]}]}";

static void feed_json(struct damonctl_rec_info *n, enum damonctl_rec_item_type type,
		      const char *json)
{
	struct damonctl_rec_item it = { .sz = sizeof(it), .type = type, .json = json };

	assert_int_equal(damonctl_rec_info_feed(n, &it), 0);
}

static void feed_snap(struct damonctl_rec_info *n, uint32_t kdamond, int32_t target,
		      uint64_t end_ms, uint64_t sample_us, uint32_t nr_regions)
{
	struct damonctl_rec_snapshot s = { .sz = sizeof(s), .kdamond = kdamond, .target = target,
		.scheme = -1, .start_ns = (end_ms - 100) * MS, .end_ns = end_ms * MS,
		.sample_us = sample_us, .aggr_us = 100000, .update_us = 1000000,
		.total_bytes = nr_regions * 4096ull, .nr_regions = nr_regions };
	struct damonctl_rec_item it = { .sz = sizeof(it), .type = DAMONCTL_REC_SNAPSHOT,
					.snapshot = &s };

	assert_int_equal(damonctl_rec_info_feed(n, &it), 0);
}

static void feed_stats(struct damonctl_rec_info *n, uint32_t scheme, const char *action)
{
	struct damonctl_rec_stats st = { .sz = sizeof(st), .scheme = scheme };
	struct damonctl_rec_item it = { .sz = sizeof(it), .type = DAMONCTL_REC_STATS,
					.stats = &st };

	snprintf(st.action, sizeof(st.action), "%s", action);
	assert_int_equal(damonctl_rec_info_feed(n, &it), 0);
}

/* Target 0: snapshots at 1000, 2000, 3000 ms with 3, 5, 4 regions and the sample interval
 * 5, 5, then 10 ms (one change); target 1: one snapshot at 1500 ms with 7 regions. */
static struct damonctl_rec_info *two_targets(const char *info)
{
	struct damonctl_rec_info *n = damonctl_rec_info_new();

	assert_non_null(n);
	if (info)
		feed_json(n, DAMONCTL_REC_INFO, info);
	feed_json(n, DAMONCTL_REC_CONFIG, config);
	feed_snap(n, 0, 0, 1000, 5000, 3);
	feed_snap(n, 0, 1, 1500, 5000, 7);
	feed_snap(n, 0, 0, 2000, 5000, 5);
	feed_snap(n, 0, 0, 3000, 10000, 4);
	return n;
}

static void series_figures(void **state)
{
	struct damonctl_rec_info *n = two_targets("{\"recorder\": \"unit\", \"subset\": "
						  "{\"from_us\": 5, \"target\": 1}}");
	struct damonctl_rec_info_series s = DAMONCTL_REC_INFO_SERIES_INIT;
	uint64_t first, last;

	(void)state;
	assert_int_equal(damonctl_rec_info_nr_series(n), 2);
	assert_int_equal(damonctl_rec_info_series(n, 0, &s), 0);
	assert_int_equal(s.target, 0);
	assert_int_equal(s.snapshots, 3);
	assert_int_equal(s.first_start_ns, 900 * MS);
	assert_int_equal(s.first_ns, 1000 * MS);
	assert_int_equal(s.last_ns, 3000 * MS);
	assert_int_equal(s.regions_min, 3);
	assert_int_equal(s.regions_max, 5);
	assert_int_equal(s.regions_sum, 12);
	assert_int_equal(s.bytes_min, 3 * 4096);
	assert_int_equal(s.bytes_max, 5 * 4096);
	assert_int_equal(s.sample_us.first, 5000);
	assert_int_equal(s.sample_us.last, 10000);
	assert_int_equal(s.sample_us.min, 5000);
	assert_int_equal(s.sample_us.max, 10000);
	assert_int_equal(s.aggr_us.min, 100000);
	assert_int_equal(s.aggr_us.max, 100000);
	assert_int_equal(s.interval_changes, 1);
	/* no kdamond named and one kdamond: the configuration applies */
	assert_int_equal(s.pid, 42);
	assert_string_equal(s.operations, "vaddr");
	assert_int_equal(damonctl_rec_info_series(n, 1, &s), 0);
	assert_int_equal(s.target, 1);
	assert_int_equal(s.snapshots, 1);
	assert_int_equal(s.interval_changes, 0);
	assert_int_equal(s.pid, 43);
	assert_int_equal(damonctl_rec_info_series(n, 2, &s), -ERANGE);
	s.sz = sizeof(size_t);
	assert_int_equal(damonctl_rec_info_series(n, 0, &s), -EINVAL);
	/* 4 snapshots; from target 0's first start, 900 ms, to its last end, 3000 ms */
	assert_int_equal(damonctl_rec_info_snapshots(n, &first, &last), 4);
	assert_int_equal(first, 900 * MS);
	assert_int_equal(last, 3000 * MS);
	assert_true(damonctl_rec_info_has_config(n));
	assert_string_equal(damonctl_rec_info_recording(n, "recorder"), "unit");
	assert_null(damonctl_rec_info_recording(n, "kernel"));
	assert_true(damonctl_rec_info_has_subset(n));
	assert_int_equal(damonctl_rec_info_subset(n, "from_us"), 5);
	assert_int_equal(damonctl_rec_info_subset(n, "target"), 1);
	assert_int_equal(damonctl_rec_info_subset(n, "to_us"), -1);
	damonctl_rec_info_free(n);
}

/* The INFO item names kdamond 1: the configuration is not this kdamond's; a second kdamond
 * without a name makes it nobody's. */
static void config_applies(void **state)
{
	struct damonctl_rec_info *n = two_targets("{\"kdamond\": 1}");
	struct damonctl_rec_info_series s = DAMONCTL_REC_INFO_SERIES_INIT;

	(void)state;
	assert_int_equal(damonctl_rec_info_series(n, 0, &s), 0);
	assert_int_equal(s.pid, -1);
	assert_null(s.operations);
	assert_false(damonctl_rec_info_has_subset(n));
	damonctl_rec_info_free(n);
	n = two_targets(NULL);
	feed_snap(n, 1, 0, 4000, 5000, 1);
	assert_int_equal(damonctl_rec_info_series(n, 0, &s), 0);
	assert_int_equal(s.pid, -1);
	damonctl_rec_info_free(n);
}

/* Stats of schemes 0 (twice), 1, then 2..65: 67 items of 66 schemes; the first 64 schemes
 * told (0 with 2 items, 1 with 1, 2..63), the items of 64 and 65 untold (2). */
static void scheme_stats(void **state)
{
	struct damonctl_rec_info *n = damonctl_rec_info_new();
	uint64_t untold, stats;
	uint32_t kdamond, scheme;
	const char *action;
	unsigned int i;

	(void)state;
	assert_int_equal(damonctl_rec_info_stats(n, &untold), 0);
	/* an item of stats or of a snapshot points to them */
	assert_int_equal(damonctl_rec_info_feed(n, &(struct damonctl_rec_item){
		.sz = sizeof(struct damonctl_rec_item), .type = DAMONCTL_REC_STATS }), -EINVAL);
	assert_int_equal(damonctl_rec_info_feed(n, &(struct damonctl_rec_item){
		.sz = sizeof(struct damonctl_rec_item), .type = DAMONCTL_REC_SNAPSHOT }), -EINVAL);
	assert_int_equal(damonctl_rec_info_stats(n, &untold), 0);
	feed_stats(n, 0, "pageout");
	feed_stats(n, 1, "stat");
	feed_stats(n, 0, "pageout");
	for (i = 2; i < 66; i++)
		feed_stats(n, i, "stat");
	assert_int_equal(damonctl_rec_info_stats(n, &untold), 67);
	assert_int_equal(untold, 2);
	assert_int_equal(damonctl_rec_info_scheme(n, 0, &kdamond, &scheme, &action, &stats), 0);
	assert_int_equal(scheme, 0);
	assert_string_equal(action, "pageout");
	assert_int_equal(stats, 2);
	assert_int_equal(damonctl_rec_info_scheme(n, 1, &kdamond, &scheme, &action, &stats), 0);
	assert_int_equal(scheme, 1);
	assert_int_equal(stats, 1);
	assert_int_equal(damonctl_rec_info_scheme(n, 63, &kdamond, &scheme, &action, &stats), 0);
	assert_int_equal(scheme, 63);
	assert_int_equal(damonctl_rec_info_scheme(n, 64, &kdamond, &scheme, &action, &stats),
			 -ERANGE);
	assert_false(damonctl_rec_info_has_config(n));
	assert_int_equal(damonctl_rec_info_snapshots(n, NULL, NULL), 0);
	damonctl_rec_info_free(n);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(series_figures),
		cmocka_unit_test(config_applies),
		cmocka_unit_test(scheme_stats),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
