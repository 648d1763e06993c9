// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damo's kdamonds JSON through damonctl_tree_from_json(). Expected values are what damo
 * itself would stage for the same document: its text_to_*() readers (src/_damo_fmt_str.py),
 * the from_kvpairs() methods and defaults of src/_damon.py, and the unit conversions its
 * src/_damon_sysfs.py does before writing (percent to samples, time to aggregation
 * intervals, both cut to integers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static struct damonctl_tree *load(const char *name)
{
	char rel[PATH_MAX], *doc;
	struct damonctl_tree *t;

	dctl_fmt(rel, sizeof(rel), "damo/%s", name);
	doc = fixture_text(rel);
	t = json_ok(doc);
	free(doc);
	return t;
}

static struct damonctl_context *ctx0(struct damonctl_tree *t)
{
	assert_int_equal(damonctl_tree_nr_kdamonds(t), 1);
	return damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
}

static void expect_filter(struct damonctl_scheme *s, unsigned int i, const char *type,
			  bool matching, bool allow)
{
	struct damonctl_filter *f = damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, i);

	assert_non_null(f);
	assert_string_equal(damonctl_filter_get_str(f, DAMONCTL_FILTER_TYPE), type);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_MATCHING), matching);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_ALLOW), allow);
}

/* A damo import written out as damonc's JSON reads back the same. */
static void same_through_damonc(struct damonctl_tree *t)
{
	char *doc = damonctl_tree_to_json(t, DAMONCTL_JSON_CONFIG);
	struct damonctl_tree *back = json_ok(doc);

	assert_models_equal(CDOBJ(t), CDOBJ(back));
	damonctl_tree_free(back);
	free(doc);
}

static void vaddr_pageout(void **state)
{
	struct damonctl_tree *t = load("args-vaddr-pageout.json");
	struct damonctl_context *c = ctx0(t);
	struct damonctl_scheme *s;
	struct damonctl_goal *g;
	struct damonctl_filter *f;

	(void)state;
	assert_string_equal(damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS), "vaddr");
	assert_int_equal(damonctl_context_nr_targets(c), 1);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 4242);
	assert_int_equal(damonctl_target_nr_regions(damonctl_context_target(c, 0)), 0);
	/* "10 ms", "200 ms", "2 s" */
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US), 10000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US), 200000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_UPDATE_US), 2000000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_AGGRS), 0);
	/* "2,000" */
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_MAX_NR_REGIONS), 2000);

	assert_int_equal(damonctl_context_nr_schemes(c), 1);
	s = damonctl_context_scheme(c, 0);
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "pageout");
	/* no target_nid key: the kernel's -1 stays */
	assert_int_equal(damonctl_scheme_get_int(s, DAMONCTL_SCHEME_TARGET_NID), -1);
	/* "4.000 KiB" to "max" */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN), 4096);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX), DAMONCTL_MAX);
	/* 0 % of 20 samples either side */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), 0);
	/* "2 m" is 120 s, 600 aggregations of 200 ms; "max" stays max */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN), 600);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_APPLY_INTERVAL_US), 0);
	/* "100 ms", "1024.000 MiB", "1 s" */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS), 100);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES), 1ULL << 30);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS), 1000);
	/* "0 %", "0.1 %", "0.3 %" of a thousand */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WEIGHT_SZ_PERMIL), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WEIGHT_NR_ACCESSES_PERMIL), 1);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WEIGHT_AGE_PERMIL), 3);
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER),
			    "consist");
	/* some_mem_psi_us targets are times: "1,000" is 1000 us */
	assert_int_equal(damonctl_scheme_nr_goals(s), 1);
	g = damonctl_scheme_goal(s, 0);
	assert_string_equal(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), "some_mem_psi_us");
	assert_int_equal(damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE), 1000);
	assert_int_equal(damonctl_goal_get(g, DAMONCTL_GOAL_CURRENT_VALUE), 0);
	/* "5 s", "50 %", "40 %", "20 %": watermarks in permil */
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_WMARKS_METRIC),
			    "free_mem_rate");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WMARKS_INTERVAL_US), 5000000);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WMARKS_HIGH), 500);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WMARKS_MID), 400);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WMARKS_LOW), 200);
	/* filters in damo's order, in filters/ */
	assert_int_equal(damonctl_scheme_nr_filters(s, DAMONCTL_FILTERS_LEGACY), 4);
	assert_int_equal(damonctl_scheme_nr_filters(s, DAMONCTL_FILTERS_CORE), 0);
	assert_int_equal(damonctl_scheme_nr_filters(s, DAMONCTL_FILTERS_OPS), 0);
	expect_filter(s, 0, "anon", false, false);
	expect_filter(s, 1, "memcg", true, true);
	f = damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 1);
	assert_string_equal(damonctl_filter_get_str(f, DAMONCTL_FILTER_MEMCG_PATH),
			    "/workloads/a");
	expect_filter(s, 2, "addr", true, false);
	f = damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 2);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_ADDR_START), 1ULL << 30);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_ADDR_END), 2ULL << 30);
	expect_filter(s, 3, "target", true, true);
	assert_int_equal(damonctl_filter_get(damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 3),
					     DAMONCTL_FILTER_TARGET_IDX), 0);
	same_through_damonc(t);
	damonctl_tree_free(t);
}

static void paddr_tiering(void **state)
{
	struct damonctl_tree *t = load("args-paddr-tiering.json");
	struct damonctl_context *c = ctx0(t);
	struct damonctl_scheme *s;
	struct damonctl_goal *g;
	struct damonctl_filter *f;
	uint64_t start, end;

	(void)state;
	/* refresh_ms is the float 1000.0 */
	assert_int_equal(damonctl_kdamond_get(damonctl_tree_kdamond(t, 0),
					      DAMONCTL_KDAMOND_REFRESH_MS), 1000);
	assert_string_equal(damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_ADDR_UNIT), 1);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_PAUSE), 0);
	/* a paddr target has no pid (null): the kernel's 0 */
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 0);
	assert_int_equal(damonctl_target_region(damonctl_context_target(c, 0), 0, &start, &end), 0);
	assert_int_equal(start, 4ULL << 30);
	assert_int_equal(end, 64ULL << 30);
	/* "4 %", "3", "5 ms", "10 s" */
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_ACCESS_BP), 400);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_AGGRS), 3);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_MIN_SAMPLE_US), 5000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_MAX_SAMPLE_US), 10000000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_UPDATE_US), 1000000);

	s = damonctl_context_scheme(c, 0);
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "migrate_hot");
	assert_int_equal(damonctl_scheme_get_int(s, DAMONCTL_SCHEME_TARGET_NID), 1);
	assert_int_equal(damonctl_scheme_nr_dests(s), 2);
	assert_int_equal(damonctl_dest_get(damonctl_scheme_dest(s, 0), DAMONCTL_DEST_ID), 1);
	assert_int_equal(damonctl_dest_get(damonctl_scheme_dest(s, 0), DAMONCTL_DEST_WEIGHT), 7);
	assert_int_equal(damonctl_dest_get(damonctl_scheme_dest(s, 1), DAMONCTL_DEST_ID), 2);
	assert_int_equal(damonctl_dest_get(damonctl_scheme_dest(s, 1), DAMONCTL_DEST_WEIGHT), 3);
	/* 5 % of aggr/sample = 20 samples is 1; damo's "max" percent stays max */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN), 1);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_APPLY_INTERVAL_US), 1000000);
	/* "0 ns", "200.000 MiB", "1 s" */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES), 200ULL << 20);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS), 1000);
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER),
			    "temporal");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_NUM), 1);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_DENOM), 1024);
	/* a _bp metric: "9,970" is 9970 bp; nid "0" */
	g = damonctl_scheme_goal(s, 0);
	assert_string_equal(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), "node_eligible_mem_bp");
	assert_int_equal(damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE), 9970);
	assert_int_equal(damonctl_goal_get_int(g, DAMONCTL_GOAL_NID), 0);
	/* hugepage_size ["2.000 MiB", "2.000 MiB"] to min and max */
	expect_filter(s, 0, "hugepage_size", true, true);
	f = damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 0);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_MIN), 2 << 20);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_MAX), 2 << 20);
	expect_filter(s, 1, "addr", true, true);
	f = damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 1);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_ADDR_END), 16ULL << 30);
	same_through_damonc(t);
	damonctl_tree_free(t);
}

static void raw_lru_sort(void **state)
{
	struct damonctl_tree *t = load("args-raw-lru-sort.json");
	struct damonctl_context *c = ctx0(t);
	struct damonctl_scheme *s;

	(void)state;
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US), 5000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_ACCESS_BP), 0);
	assert_int_equal(damonctl_context_nr_schemes(c), 2);
	s = damonctl_context_scheme(c, 0);
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "lru_prio");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN), 4096);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX), UINT64_MAX);
	/* the kernel's own units, as they are */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN), 10);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), 20);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX), UINT64_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES), 100ULL << 20);
	/* damo's raw quirk: "1000000000" (1 s printed in ns) is read as that many ms */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS),
			 1000000000);
	/* "1.000000" permil */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WEIGHT_NR_ACCESSES_PERMIL), 1);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WEIGHT_AGE_PERMIL), 1);
	expect_filter(s, 0, "young", true, false);
	s = damonctl_context_scheme(c, 1);
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "lru_deprio");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN), 50);
	assert_int_equal(damonctl_scheme_nr_filters(s, DAMONCTL_FILTERS_LEGACY), 0);
	same_through_damonc(t);
	damonctl_tree_free(t);
}

/* One scheme in a context with the given intervals and access pattern. */
static struct damonctl_scheme *pattern(struct damonctl_tree **t, const char *intervals,
				       const char *ap)
{
	char *doc;

	assert_true(asprintf(&doc, "{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", "
			     "\"intervals\": {%s}, \"schemes\": [{\"action\": \"stat\", "
			     "\"access_pattern\": {%s}}]}]}]}", intervals, ap) > 0);
	*t = json_ok(doc);
	free(doc);
	return damonctl_context_scheme(ctx0(*t), 0);
}

static void conversions(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_scheme *s;

	(void)state;
	/* ulong_max percent written as a JSON number is damo's "max" too */
	s = pattern(&t, "\"sample_us\": \"5 ms\"",
		    "\"nr_accesses\": {\"min\": 0.5, \"max\": 18446744073709551615}");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), DAMONCTL_MAX);
	damonctl_tree_free(t);
	/* int(12.5 * 20 / 100) = 2 samples: cut, as damo */
	s = pattern(&t, "\"sample_us\": \"5 ms\", \"aggr_us\": \"100 ms\"",
		    "\"nr_accesses\": {\"min\": \"12.5 %\", \"max\": 100}");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN), 2);
	/* a JSON number is a percentage too */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), 20);
	/* damo's default access pattern for what is not given */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX), DAMONCTL_MAX);
	damonctl_tree_free(t);
	/* 3 ms / 100 ms: the kernel counts 33 samples at most; half is 16 */
	s = pattern(&t, "\"sample_us\": \"3 ms\", \"aggr_us\": \"100 ms\"",
		    "\"nr_accesses\": {\"min\": \"50 %\", \"max\": \"max\"}, "
		    "\"age\": {\"min\": \"150 ms\", \"max\": 2000000}");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN), 16);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), DAMONCTL_MAX);
	/* int(150 ms / 100 ms) = 1; a number is microseconds: 2 s is 20 */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN), 1);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX), 20);
	damonctl_tree_free(t);
	/* the kernel's units pass as they are, whatever the intervals */
	s = pattern(&t, "\"sample_us\": 0",
		    "\"nr_accesses\": {\"min\": \"3 samples\", \"max\": \"1,000 samples\"}, "
		    "\"age\": {\"min\": \"7 aggr_intervals\", \"max\": \"70 aggr_intervals\"}, "
		    "\"sz_bytes\": {\"min\": \"min\", \"max\": \"2 GB\"}");
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN), 3);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), 1000);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN), 7);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX), 70);
	/* unit_to_bytes: GB is binary in damo */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX), 2ULL << 30);
	damonctl_tree_free(t);
}

static void omitted_takes_damos_defaults(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_context *c;
	struct damonctl_scheme *s;

	(void)state;
	/* damo args damon --omit_defaults leaves out what equals damo's constructors */
	t = json_ok("{\"kdamonds\": [{\"state\": null, \"pid\": null, \"contexts\": [{\"ops\": "
		    "\"vaddr\", \"targets\": [{\"pid\": \"4242\", \"regions\": []}], "
		    "\"schemes\": [{\"action\": \"stat\", \"apply_interval_us\": null}]}]}]}");
	c = ctx0(t);
	/* DamonIntervals(): 5 ms, 100 ms, 1 s (the kernel's update interval is 60 s) */
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US), 5000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US), 100000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_UPDATE_US), 1000000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_MIN_NR_REGIONS), 10);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_MAX_NR_REGIONS), 1000);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 4242);
	s = damonctl_context_scheme(c, 0);
	/* DamosAccessPattern(): every region, unlike the kernel's all-zero default */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX), DAMONCTL_MAX);
	/* DamosQuotas(): reset_interval_ms 'max' */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS),
			 DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_APPLY_INTERVAL_US), 0);
	damonctl_tree_free(t);
	/* DamonCtx(): ops 'paddr' */
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"intervals\": {\"sample_us\": 1000}}]}]}");
	c = ctx0(t);
	assert_string_equal(damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US), 1000);
	damonctl_tree_free(t);
}

static void goals_and_filters(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_scheme *s;
	struct damonctl_filter *f;

	(void)state;
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"paddr\", \"schemes\": [{"
		    "\"action\": \"pageout\", \"target_nid\": \"1\", \"quotas\": {\"goals\": ["
		    "{\"metric\": \"user_input\", \"target_value\": \"10,000\", "
		    "\"current_value\": \"1,000\"},"
		    "{\"metric\": \"node_mem_used_bp\", \"nid\": 1, \"target_value\": \"50 %\", "
		    "\"current_value\": 0},"
		    "{\"metric\": \"node_memcg_free_bp\", \"nid\": 0, \"memcg_path\": \"/a\", "
		    "\"target_value\": 2000, \"current_value\": 0},"
		    "{\"metric\": \"some_mem_psi_us\", \"target_value\": \"1 ms 500 us\"},"
		    "{\"target_value_bp\": \"5,000\", \"current_value_bp\": \"1,000\"}]}, "
		    "\"filters\": ["
		    "{\"filter_type\": \"anon\", \"matching\": \"yes\", \"filter_pass\": \"Y\", "
		    "\"memcg_path\": \"/ignored\", \"damon_target_idx\": \"3\"},"
		    "{\"filter_type\": \"target\", \"matching\": \"False\", \"damon_target_idx\": "
		    "\"1\"}]}]}]}]}");
	s = damonctl_context_scheme(ctx0(t), 0);
	assert_int_equal(damonctl_scheme_get_int(s, DAMONCTL_SCHEME_TARGET_NID), 1);
	assert_int_equal(damonctl_scheme_nr_goals(s), 5);
	/* text_to_nr() for user_input, text_to_bp() for _bp metrics, text_to_us() for psi */
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(s, 0), DAMONCTL_GOAL_TARGET_VALUE),
			 10000);
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(s, 0),
					   DAMONCTL_GOAL_CURRENT_VALUE), 1000);
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(s, 1), DAMONCTL_GOAL_TARGET_VALUE),
			 5000);
	assert_int_equal(damonctl_goal_get_int(damonctl_scheme_goal(s, 1), DAMONCTL_GOAL_NID), 1);
	assert_string_equal(damonctl_goal_get_str(damonctl_scheme_goal(s, 2), DAMONCTL_GOAL_PATH),
			    "/a");
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(s, 2), DAMONCTL_GOAL_TARGET_VALUE),
			 2000);
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(s, 3), DAMONCTL_GOAL_TARGET_VALUE),
			 1500);
	/* the old naming is a user_input goal */
	assert_string_equal(damonctl_goal_get_str(damonctl_scheme_goal(s, 4), DAMONCTL_GOAL_METRIC),
			    "user_input");
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(s, 4), DAMONCTL_GOAL_TARGET_VALUE),
			 5000);
	/* text_to_bool(); filter_pass is allow's earlier name; other types' arguments ignored */
	f = damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 0);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_MATCHING), 1);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_ALLOW), 1);
	assert_string_equal(damonctl_filter_get_str(f, DAMONCTL_FILTER_MEMCG_PATH), "");
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_TARGET_IDX), 0);
	f = damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 1);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_MATCHING), 0);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_TARGET_IDX), 1);
	damonctl_tree_free(t);
}

/* A damo document with one scheme whose body is @scheme. */
static const char *scheme_fails(const char *scheme, int err)
{
	char *doc;
	const char *why;

	assert_true(asprintf(&doc, "{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", "
			     "\"schemes\": [{%s}]}]}]}", scheme) > 0);
	why = json_fails(doc, err);
	free(doc);
	return why;
}

static void errors_name_the_key(void **state)
{
	const char *why;

	(void)state;
	why = scheme_fails("\"quotas\": {\"time_msx\": \"1 s\"}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].quotas.time_msx: unknown "
			    "key in damo's quotas");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"intervals\": "
			 "{\"sample_us\": true}}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].intervals.sample_us: expected a time "
			    "such as \"5 ms\", not boolean");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"intervals\": "
			 "{\"aggr_us\": \"5 parsecs\"}}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].intervals.aggr_us: cannot read "
			    "'5 parsecs' as a time such as \"5 ms\"");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"waddr\"}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].ops: 'waddr' is not an operations set "
			    "(vaddr, fvaddr or paddr)");
	why = scheme_fails("\"action\": \"bogus\"", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].action: 'bogus' is not a "
			    "DAMOS action");
	why = scheme_fails("\"action\": 5", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].action: expected a DAMOS "
			    "action, not int");
	why = scheme_fails("\"access_pattern\": {\"nr_accesses\": {\"min\": \"5 %\", \"max\": "
			   "\"10 samples\"}}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].access_pattern.nr_accesses: "
			    "min and max must be in the same unit (both in samples or both in "
			    "percent)");
	/* text_to_nr_unit() needs "<number> <unit>" on both sides: "max" does not mix */
	why = scheme_fails("\"access_pattern\": {\"age\": {\"min\": \"7 aggr_intervals\", "
			   "\"max\": \"max\"}}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].access_pattern.age: min and "
			    "max must be in the same unit (both in aggr_intervals or both in time)");
	why = scheme_fails("\"access_pattern\": {\"age\": {\"min\": \"5 aggrs\"}}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].access_pattern.age.min: "
			    "cannot read '5 aggrs' as a time such as \"5 ms\" or as \"<number> "
			    "aggr_intervals\"");
	why = scheme_fails("\"access_pattern\": {\"sz_bytes\": {\"max\": "
			   "\"18,446,744,073,709,551,616\"}}", -ERANGE);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].access_pattern.sz_bytes.max: "
			    "'18,446,744,073,709,551,616' is out of range");
	why = scheme_fails("\"access_pattern\": {\"nr_accesses\": {\"min\": -1}}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].access_pattern.nr_accesses."
			    "min: cannot read '-1'");
	why = scheme_fails("\"filters\": [{\"filter_type\": \"anon\"}]", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].filters[0]: a damo filter "
			    "needs filter_type and matching");
	why = scheme_fails("\"filters\": [{\"filter_type\": \"addr\", \"matching\": true, "
			   "\"address_range\": null}]", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].filters[0].address_range: an "
			    "addr filter needs an address range");
	why = scheme_fails("\"filters\": [{\"filter_type\": \"hugepage_size\", \"matching\": true, "
			   "\"hugepage_size\": [\"2 MiB\"]}]", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].filters[0].hugepage_size: "
			    "expected [min, max]");
	why = scheme_fails("\"filters\": [{\"filter_type\": \"young\", \"matching\": \"maybe\"}]",
			   -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].filters[0].matching: "
			    "expected true or false, not maybe");
	why = scheme_fails("\"quotas\": {\"goals\": [{\"metric\": \"user_input\", \"nid\": 1.5}]}",
			   -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].quotas.goals[0].nid: "
			    "expected an integer, not 1.5");
	why = scheme_fails("\"dests\": [{\"id\": 1, \"weight\": 4294967296}]", -ERANGE);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].dests[0].weight: 4294967296 "
			    "does not fit the kernel's weight");
	why = scheme_fails("\"stats\": {\"nr_tried\": \"a lot\"}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].stats.nr_tried: cannot read "
			    "'a lot' as a number");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"intervals\": "
			 "{\"sample_us\": 0}, \"schemes\": [{\"access_pattern\": {\"nr_accesses\": "
			 "{\"min\": \"5 %\"}}}]}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].access_pattern.nr_accesses: "
			    "an access rate in percent needs a non-zero sampling interval");
	why = json_fails("{\"kdamonds\": [{\"refresh_ms\": \"100 d\", \"contexts\": [{\"ops\": "
			 "\"vaddr\"}]}]}", -ERANGE);
	assert_string_equal(why, "kdamonds[0].refresh_ms: 8640000000 does not fit the kernel's "
			    "refresh_ms");
	why = json_fails("{\"kdamonds\": [{\"pid\": [], \"contexts\": [{\"ops\": \"vaddr\"}]}]}",
			 -EINVAL);
	assert_string_equal(why, "kdamonds[0].pid: expected a process id, not array");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\"}]}], \"version\": 1}",
			 -EINVAL);
	assert_string_equal(why, "version: unknown key in damo's document (it holds only "
			    "\"kdamonds\")");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"targets\": "
			 "[{\"pid\": 1, \"regions\": [{\"start\": \"4 KiB\", \"stop\": 0}]}]}]}]}",
			 -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].targets[0].regions[0].stop: unknown key "
			    "in damo's address range");
}

static void development_parts(void **state)
{
	const char *why;
	struct damonctl_tree *t;

	(void)state;
	/* damon/next-only parts: accepted at their defaults, refused otherwise */
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"probes\": [], "
		    "\"ops_attrs\": {\"use_reports\": false, \"write_only\": \"n\", \"cpus\": "
		    "\"all\", \"tids\": \"\"}, \"sample_control\": {\"primitives_enabled\": "
		    "{\"page_table\": true, \"page_fault\": false}, \"sample_filters\": []}}]}]}");
	damonctl_tree_free(t);
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"sample_control\": "
			 "{\"primitives_enabled\": {\"page_table\": true, \"page_fault\": true}}}]}]}",
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "kdamonds[0].contexts[0].sample_control: sampling control "
				    "exists only in DAMON development trees"));
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"ops_attrs\": "
			 "{\"cpus\": \"0-3\"}}]}]}", -EOPNOTSUPP);
	assert_non_null(strstr(why, "kdamonds[0].contexts[0].ops_attrs: operations attributes"));
}

/* damo's DamonProbe/DamonFilter kvpairs (7.2 access probes) */
static void probes(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_context *c;
	struct damonctl_probe *p;
	struct damonctl_probe_filter *f;
	const char *why;

	(void)state;
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"probes\": ["
		    "{\"filters\": [{\"filter_type\": \"anon\", \"matching\": true, "
		    "\"allow\": true, \"path\": null}]}, "
		    "{\"filters\": [{\"filter_type\": \"memcg\", \"matching\": \"no\", "
		    "\"allow\": false, \"path\": \"/workload.slice\"}, "
		    "{\"filter_type\": \"anon\", \"matching\": false, \"allow\": false, "
		    "\"path\": \"/ignored\"}]}, {\"filters\": []}]}]}]}");
	c = ctx0(t);
	assert_int_equal(damonctl_context_nr_probes(c), 3);
	p = damonctl_context_probe(c, 0);
	assert_int_equal(damonctl_probe_nr_filters(p), 1);
	f = damonctl_probe_filter(p, 0);
	assert_string_equal(damonctl_probe_filter_get_str(f, DAMONCTL_PROBE_FILTER_TYPE), "anon");
	assert_int_equal(damonctl_probe_filter_get(f, DAMONCTL_PROBE_FILTER_MATCHING), 1);
	assert_int_equal(damonctl_probe_filter_get(f, DAMONCTL_PROBE_FILTER_ALLOW), 1);
	p = damonctl_context_probe(c, 1);
	assert_int_equal(damonctl_probe_nr_filters(p), 2);
	f = damonctl_probe_filter(p, 0);
	assert_string_equal(damonctl_probe_filter_get_str(f, DAMONCTL_PROBE_FILTER_TYPE), "memcg");
	assert_int_equal(damonctl_probe_filter_get(f, DAMONCTL_PROBE_FILTER_MATCHING), 0);
	assert_string_equal(damonctl_probe_filter_get_str(f, DAMONCTL_PROBE_FILTER_PATH),
			    "/workload.slice");
	/* as damo writes it: the path of memcg filters only */
	f = damonctl_probe_filter(p, 1);
	assert_string_equal(damonctl_probe_filter_get_str(f, DAMONCTL_PROBE_FILTER_PATH), "");
	assert_int_equal(damonctl_probe_nr_filters(damonctl_context_probe(c, 2)), 0);
	same_through_damonc(t);
	damonctl_tree_free(t);

	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"probes\": "
			 "[{\"filters\": [{\"filter_type\": \"young\", \"matching\": true}]}]}]}]}",
			 -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].probes[0].filters[0].filter_type: "
			    "'young' is not a probe filter type (anon or memcg)");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"probes\": "
			 "[{\"filters\": [{\"filter_type\": \"anon\"}]}]}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].probes[0].filters[0]: a damo probe "
			    "filter needs filter_type and matching");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"ops\": \"vaddr\", \"probes\": "
			 "[{\"weight\": 1, \"filters\": []}]}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].probes[0].weight: unknown key in "
			    "damo's probe");
}

static void told_apart(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_context *c;

	(void)state;
	/* damo names at any depth make it damo's: its defaults (1 s updates) apply */
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"targets\": [{\"pid\": 5}]}]}]}");
	c = ctx0(t);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 5);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_UPDATE_US), 1000000);
	damonctl_tree_free(t);
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"schemes\": [{\"quotas\": {\"time_ms\": "
		    "\"1 s\"}}]}]}]}");
	assert_int_equal(damonctl_scheme_get(damonctl_context_scheme(ctx0(t), 0),
					     DAMONCTL_SCHEME_QUOTA_MS), 1000);
	damonctl_tree_free(t);
	/* format_version makes it damonc's, whatever the names inside */
	json_fails("{\"format_version\": 1, \"kdamonds\": [{\"contexts\": [{\"ops\": "
		   "\"vaddr\"}]}]}", -EINVAL);
}

/* damo 3.3 prints the same configuration in YAML and in JSON (`damo args damon --format yaml`
 * and `--format json`, fixtures README): both give the same model, and the hand-derived one of
 * args-vaddr-pageout.json for the values both key sets have. */
static void yaml_as_json(void **state)
{
	char *yaml = fixture_text("damo/damo-output-vaddr-pageout.yaml"), *json = NULL, why[256];
	char *doc = fixture_text("damo/damo-output-vaddr-pageout.json");
	struct damonctl_tree *from_yaml, *from_json = json_ok(doc);
	struct damonctl_context *c;

	(void)state;
	assert_int_equal(damonctl_yaml_to_json(yaml, strlen(yaml), &json, why, sizeof(why)), 0);
	from_yaml = json_ok(json);
	assert_models_equal(CDOBJ(from_json), CDOBJ(from_yaml));
	c = ctx0(from_yaml);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 4242);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US), 200000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_MAX_NR_REGIONS), 2000);
	damonctl_tree_free(from_yaml);
	damonctl_tree_free(from_json);
	free(json);
	free(yaml);
	free(doc);
}

/* `damo report damon --format json` (fixtures README): the list of kdamonds at the top, and
 * damo's goal_tuner with the sysfs file's newline: the tuner all the same. */
static void report_damon(void **state)
{
	char *doc = fixture_text("damo/damo-report-damon-7.2.json");
	struct damonctl_tree *t = json_ok(doc);
	struct damonctl_kdamond *k = damonctl_tree_kdamond(t, 0);
	struct damonctl_scheme *s = damonctl_context_scheme(ctx0(t), 0);

	(void)state;
	assert_int_equal(damonctl_tree_nr_kdamonds(t), 1);
	assert_int_equal(damonctl_kdamond_get(k, DAMONCTL_KDAMOND_REFRESH_MS), 0);
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "stat");
	assert_string_equal(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER), "temporal");
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(ctx0(t), 0),
						 DAMONCTL_TARGET_PID), 26763);
	damonctl_tree_free(t);
	free(doc);
	/* a keyword is not anything a newline follows */
	json_fails("[{\"contexts\": [{\"ops\": \"vaddr\\nx\"}]}]", -EINVAL);
}

/* YAML 1.1's plain scalars as PyYAML resolves them; quoted ones stay strings; aliases */
static void yaml_scalars(void **state)
{
	static const char doc[] =
		"a: yes\nb: 'yes'\nc: off\nd: y\ne: 12\nf: -3\ng: 0x10\nh: 1.5\ni: ~\n"
		"j:\nk: 1,000\nl: \"7\"\nm: &x [1, two]\nn: *x\no: 5 ms\n";
	char *json = NULL, why[256];

	(void)state;
	assert_int_equal(damonctl_yaml_to_json(doc, strlen(doc), &json, why, sizeof(why)), 0);
	assert_string_equal(json, "{\"a\":true,\"b\":\"yes\",\"c\":false,\"d\":\"y\",\"e\":12,"
			    "\"f\":-3,\"g\":16,\"h\":1.5,\"i\":null,\"j\":null,\"k\":\"1,000\","
			    "\"l\":\"7\",\"m\":[1,\"two\"],\"n\":[1,\"two\"],\"o\":\"5 ms\"}");
	free(json);
	/* not YAML: the line and the problem */
	assert_int_equal(damonctl_yaml_to_json("a: [1, 2\n", 9, &json, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line "));
	assert_int_equal(damonctl_yaml_to_json("? [a]\n: 1\n", 10, &json, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "not a scalar"));
	assert_int_equal(damonctl_yaml_to_json("", 0, &json, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "empty"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vaddr_pageout),
		cmocka_unit_test(paddr_tiering),
		cmocka_unit_test(raw_lru_sort),
		cmocka_unit_test(conversions),
		cmocka_unit_test(omitted_takes_damos_defaults),
		cmocka_unit_test(goals_and_filters),
		cmocka_unit_test(errors_name_the_key),
		cmocka_unit_test(development_parts),
		cmocka_unit_test(probes),
		cmocka_unit_test(told_apart),
		cmocka_unit_test(yaml_as_json),
		cmocka_unit_test(report_damon),
		cmocka_unit_test(yaml_scalars),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
