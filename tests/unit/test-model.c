// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The object model through the public API: defaults (docs/damon-abi.md section 2), typed
 * getters and setters and their errors, keywords (section 5), dup, add/remove, and the
 * context's paths.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct objs {
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_target *tg;
	struct damonctl_scheme *s;
	struct damonctl_goal *g;
	struct damonctl_filter *f;
	struct damonctl_dest *d;
};

static void build(struct objs *o)
{
	o->t = damonctl_tree_new();
	assert_non_null(o->t);
	assert_non_null(o->k = damonctl_tree_add_kdamond(o->t));
	assert_non_null(o->c = damonctl_kdamond_add_context(o->k));
	assert_non_null(o->tg = damonctl_context_add_target(o->c));
	assert_non_null(o->s = damonctl_context_add_scheme(o->c));
	assert_non_null(o->g = damonctl_scheme_add_goal(o->s));
	assert_non_null(o->f = damonctl_scheme_add_filter(o->s, DAMONCTL_FILTERS_LEGACY));
	assert_non_null(o->d = damonctl_scheme_add_dest(o->s));
}

static void defaults(void **state)
{
	struct objs o;
	unsigned int a;

	(void)state;
	build(&o);
	/* ABI section 2, file by file */
	assert_string_equal(damonctl_kdamond_get_str(o.k, DAMONCTL_KDAMOND_STATE), "off");
	assert_int_equal(damonctl_kdamond_get_int(o.k, DAMONCTL_KDAMOND_PID), -1);
	assert_int_equal(damonctl_kdamond_get(o.k, DAMONCTL_KDAMOND_REFRESH_MS), 0);
	assert_string_equal(damonctl_context_get_str(o.c, DAMONCTL_CONTEXT_OPERATIONS), "vaddr");
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_ADDR_UNIT), 1);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_PAUSE), 0);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_SAMPLE_US), 5000);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_AGGR_US), 100000);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_UPDATE_US), 60000000);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_GOAL_ACCESS_BP), 0);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_GOAL_AGGRS), 0);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_MIN_NR_REGIONS), 10);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_MAX_NR_REGIONS), 1000);
	assert_int_equal(damonctl_target_get_int(o.tg, DAMONCTL_TARGET_PID), 0);
	assert_int_equal(damonctl_target_get(o.tg, DAMONCTL_TARGET_OBSOLETE), 0);
	assert_string_equal(damonctl_scheme_get_str(o.s, DAMONCTL_SCHEME_ACTION), "stat");
	assert_int_equal(damonctl_scheme_get_int(o.s, DAMONCTL_SCHEME_TARGET_NID), -1);
	assert_int_equal(damonctl_scheme_get(o.s, DAMONCTL_SCHEME_APPLY_INTERVAL_US), 0);
	for (a = DAMONCTL_SCHEME_SZ_MIN; a <= DAMONCTL_SCHEME_AGE_MAX; a++)
		assert_int_equal(damonctl_scheme_get(o.s, a), 0);	/* matches nothing */
	assert_int_equal(damonctl_scheme_get(o.s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS), 0);
	assert_string_equal(damonctl_scheme_get_str(o.s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER),
			    "consist");
	assert_string_equal(damonctl_scheme_get_str(o.s, DAMONCTL_SCHEME_WMARKS_METRIC), "none");
	assert_string_equal(damonctl_goal_get_str(o.g, DAMONCTL_GOAL_METRIC), "user_input");
	assert_int_equal(damonctl_goal_get_int(o.g, DAMONCTL_GOAL_NID), 0);
	assert_string_equal(damonctl_goal_get_str(o.g, DAMONCTL_GOAL_PATH), "");
	assert_string_equal(damonctl_filter_get_str(o.f, DAMONCTL_FILTER_TYPE), "anon");
	assert_int_equal(damonctl_filter_get(o.f, DAMONCTL_FILTER_MATCHING), 0);
	assert_int_equal(damonctl_filter_get(o.f, DAMONCTL_FILTER_ALLOW), 0);
	assert_string_equal(damonctl_filter_get_str(o.f, DAMONCTL_FILTER_MEMCG_PATH), "");
	assert_int_equal(damonctl_dest_get(o.d, DAMONCTL_DEST_WEIGHT), 0);
	/* objects built by the caller have every attribute */
	for (a = 0; a < DAMONCTL_SCHEME_NR_ATTRS; a++)
		assert_true(damonctl_scheme_has(o.s, a));
	for (a = 0; a < DAMONCTL_CONTEXT_NR_ATTRS; a++)
		assert_true(damonctl_context_has(o.c, a));
	assert_false(damonctl_context_has(o.c, DAMONCTL_CONTEXT_NR_ATTRS));
	damonctl_tree_free(o.t);
}

static void setters(void **state)
{
	struct objs o;

	(void)state;
	build(&o);
	assert_int_equal(damonctl_context_set(o.c, DAMONCTL_CONTEXT_SAMPLE_US, 10000), 0);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_SAMPLE_US), 10000);
	assert_int_equal(damonctl_context_set(o.c, DAMONCTL_CONTEXT_PAUSE, 1), 0);
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_PAUSE), 1);
	assert_int_equal(damonctl_context_set_str(o.c, DAMONCTL_CONTEXT_OPERATIONS, "paddr"), 0);
	assert_string_equal(damonctl_context_get_str(o.c, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
	assert_int_equal(damonctl_scheme_set_int(o.s, DAMONCTL_SCHEME_TARGET_NID, 1), 0);
	assert_int_equal(damonctl_scheme_get_int(o.s, DAMONCTL_SCHEME_TARGET_NID), 1);
	assert_int_equal(damonctl_target_set_int(o.tg, DAMONCTL_TARGET_PID, 4242), 0);
	assert_int_equal(damonctl_goal_set_str(o.g, DAMONCTL_GOAL_PATH, "/a/b"), 0);
	assert_string_equal(damonctl_goal_get_str(o.g, DAMONCTL_GOAL_PATH), "/a/b");
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_SZ_MAX, DAMONCTL_MAX), 0);
	assert_int_equal(damonctl_scheme_get(o.s, DAMONCTL_SCHEME_SZ_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_WEIGHT_SZ_PERMIL, UINT32_MAX), 0);
	/* keywords any kernel knows, even the newest (collapse, 7.2; hugepage_mem_bp, queued) */
	assert_int_equal(damonctl_scheme_set_str(o.s, DAMONCTL_SCHEME_ACTION, "collapse"), 0);
	assert_int_equal(damonctl_goal_set_str(o.g, DAMONCTL_GOAL_METRIC, "hugepage_mem_bp"), 0);
	assert_int_equal(damonctl_scheme_set_str(o.s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER,
						 "temporal"), 0);

	/* read-only files (ABI: mode 0400, or filled by the kernel) */
	assert_int_equal(damonctl_kdamond_set_str(o.k, DAMONCTL_KDAMOND_STATE, "on"), -EINVAL);
	assert_int_equal(damonctl_kdamond_set_int(o.k, DAMONCTL_KDAMOND_PID, 1), -EINVAL);
	assert_int_equal(damonctl_context_set_str(o.c, DAMONCTL_CONTEXT_AVAIL_OPERATIONS, "x"),
			 -EINVAL);
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_STAT_NR_TRIED, 1), -EINVAL);
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES, 1),
			 -EINVAL);
	/* the wrong kind of access */
	assert_int_equal(damonctl_context_set_int(o.c, DAMONCTL_CONTEXT_SAMPLE_US, 1), -EINVAL);
	assert_int_equal(damonctl_context_set(o.c, DAMONCTL_CONTEXT_OPERATIONS, 1), -EINVAL);
	assert_int_equal(damonctl_context_set_str(o.c, DAMONCTL_CONTEXT_SAMPLE_US, "5ms"),
			 -EINVAL);
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_TARGET_NID, 1), -EINVAL);
	assert_null(damonctl_context_get_str(o.c, DAMONCTL_CONTEXT_SAMPLE_US));
	assert_int_equal(damonctl_context_get(o.c, DAMONCTL_CONTEXT_OPERATIONS), 0);
	/* bad keywords and values */
	assert_int_equal(damonctl_context_set_str(o.c, DAMONCTL_CONTEXT_OPERATIONS, "bogus"),
			 -EINVAL);
	assert_string_equal(damonctl_context_get_str(o.c, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
	assert_int_equal(damonctl_scheme_set_str(o.s, DAMONCTL_SCHEME_ACTION, "Stat"), -EINVAL);
	assert_int_equal(damonctl_filter_set_str(o.f, DAMONCTL_FILTER_TYPE, NULL), -EINVAL);
	assert_int_equal(damonctl_context_set(o.c, DAMONCTL_CONTEXT_PAUSE, 2), -EINVAL);
	/* 32-bit files (kstrtouint) and int files (kstrtoint) */
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_WEIGHT_SZ_PERMIL,
					     (uint64_t)UINT32_MAX + 1), -ERANGE);
	assert_int_equal(damonctl_scheme_set_int(o.s, DAMONCTL_SCHEME_TARGET_NID,
						 (int64_t)INT32_MAX + 1), -ERANGE);
	assert_int_equal(damonctl_scheme_set_int(o.s, DAMONCTL_SCHEME_TARGET_NID,
						 (int64_t)INT32_MIN - 1), -ERANGE);
	assert_int_equal(damonctl_scheme_get_int(o.s, DAMONCTL_SCHEME_TARGET_NID), 1);
	/* attributes past the end */
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_NR_ATTRS, 1), -EINVAL);
	assert_int_equal(damonctl_scheme_get(o.s, DAMONCTL_SCHEME_NR_ATTRS), 0);
	assert_null(damonctl_scheme_attr_name(DAMONCTL_SCHEME_NR_ATTRS));
	damonctl_tree_free(o.t);
}

static void attr_names(void **state)
{
	(void)state;
	/* the sysfs file of each attribute, relative to its object's directory (ABI section 2) */
	assert_string_equal(damonctl_context_attr_name(DAMONCTL_CONTEXT_SAMPLE_US),
			    "monitoring_attrs/intervals/sample_us");
	assert_string_equal(damonctl_context_attr_name(DAMONCTL_CONTEXT_GOAL_ACCESS_BP),
			    "monitoring_attrs/intervals/intervals_goal/access_bp");
	assert_string_equal(damonctl_scheme_attr_name(DAMONCTL_SCHEME_QUOTA_GOAL_TUNER),
			    "quotas/goal_tuner");
	assert_string_equal(damonctl_scheme_attr_name(DAMONCTL_SCHEME_MAX_NR_SNAPSHOTS),
			    "stats/max_nr_snapshots");
	assert_string_equal(damonctl_target_attr_name(DAMONCTL_TARGET_PID), "pid_target");
	assert_string_equal(damonctl_goal_attr_name(DAMONCTL_GOAL_METRIC), "target_metric");
	assert_string_equal(damonctl_filter_attr_name(DAMONCTL_FILTER_TARGET_IDX),
			    "damon_target_idx");
	assert_string_equal(damonctl_kdamond_attr_name(DAMONCTL_KDAMOND_REFRESH_MS),
			    "refresh_ms");
	assert_string_equal(damonctl_tried_region_attr_name(DAMONCTL_TRIED_SZ_FILTER_PASSED),
			    "sz_filter_passed");
	assert_string_equal(damonctl_dest_attr_name(DAMONCTL_DEST_ID), "id");
	assert_null(damonctl_context_attr_name(DAMONCTL_CONTEXT_NR_ATTRS));
}

static void keywords(void **state)
{
	/* ABI section 5: the kernel's table orders */
	static const char *const actions[] = {
		"willneed", "cold", "pageout", "hugepage", "nohugepage", "collapse", "lru_prio",
		"lru_deprio", "migrate_hot", "migrate_cold", "stat",
	};
	static const char *const filters[] = {
		"anon", "active", "memcg", "young", "hugepage_size", "unmapped", "addr", "target",
	};
	static const char *const metrics[] = {
		"user_input", "some_mem_psi_us", "node_mem_used_bp", "node_mem_free_bp",
		"node_memcg_used_bp", "node_memcg_free_bp", "active_mem_bp", "inactive_mem_bp",
		"node_eligible_mem_bp", "hugepage_mem_bp",
	};
	enum damonctl_feature feat;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(actions); i++)
		assert_string_equal(damonctl_keyword(DAMONCTL_KW_ACTION, i), actions[i]);
	assert_null(damonctl_keyword(DAMONCTL_KW_ACTION, ARRAY_SIZE(actions)));
	for (i = 0; i < ARRAY_SIZE(filters); i++)
		assert_string_equal(damonctl_keyword(DAMONCTL_KW_FILTER_TYPE, i), filters[i]);
	assert_null(damonctl_keyword(DAMONCTL_KW_FILTER_TYPE, ARRAY_SIZE(filters)));
	for (i = 0; i < ARRAY_SIZE(metrics); i++)
		assert_string_equal(damonctl_keyword(DAMONCTL_KW_GOAL_METRIC, i), metrics[i]);
	assert_string_equal(damonctl_keyword(DAMONCTL_KW_GOAL_TUNER, 0), "consist");
	assert_string_equal(damonctl_keyword(DAMONCTL_KW_GOAL_TUNER, 1), "temporal");
	assert_string_equal(damonctl_keyword(DAMONCTL_KW_WMARK_METRIC, 1), "free_mem_rate");
	assert_string_equal(damonctl_keyword(DAMONCTL_KW_OPERATIONS, 2), "paddr");
	assert_null(damonctl_keyword((enum damonctl_kwset)99, 0));

	/* the version that brought each (ABI sections 5 and 8) */
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_ACTION, "collapse", &feat), 0);
	assert_int_equal(feat, DAMONCTL_FEAT_ACTION_COLLAPSE);
	assert_string_equal(damonctl_feature_since(feat), "7.2");
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_ACTION, "migrate_cold", &feat), 0);
	assert_string_equal(damonctl_feature_since(feat), "6.11");
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_FILTER_TYPE, "young", &feat), 0);
	assert_string_equal(damonctl_feature_since(feat), "6.10");
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_FILTER_TYPE, "unmapped", &feat), 0);
	assert_string_equal(damonctl_feature_since(feat), "6.15");
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_GOAL_METRIC, "inactive_mem_bp",
						  &feat), 0);
	assert_string_equal(damonctl_feature_since(feat), "7.0");
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_GOAL_METRIC, "hugepage_mem_bp",
						  &feat), 0);
	assert_string_equal(damonctl_feature_since(feat), "queued for 7.4");
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_GOAL_TUNER, "temporal", &feat), 0);
	assert_string_equal(damonctl_feature_since(feat), "7.1");
	/* keywords older than damonc's oldest kernel need only the sysfs interface */
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_ACTION, "pageout", &feat), 0);
	assert_int_equal(feat, DAMONCTL_FEAT_SYSFS);
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_ACTION, "bogus", &feat), -ENOENT);
	assert_int_equal(damonctl_keyword_feature(DAMONCTL_KW_ACTION, "collapse", &feat), 0);
}

static void features_table(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		assert_non_null(damonctl_feature_name(i));
		assert_non_null(damonctl_feature_since(i));
		assert_non_null(damonctl_feature_description(i));
	}
	assert_null(damonctl_feature_name(DAMONCTL_NR_FEATURES));
	assert_null(damonctl_feature_since(DAMONCTL_NR_FEATURES));
	/* ABI tags: obsolete_target [6.19], refresh_ms [6.17], pause [7.2] */
	assert_string_equal(damonctl_feature_since(DAMONCTL_FEAT_OBSOLETE_TARGET), "6.19");
	assert_string_equal(damonctl_feature_since(DAMONCTL_FEAT_REFRESH_MS), "6.17");
	assert_string_equal(damonctl_feature_since(DAMONCTL_FEAT_PAUSE), "7.2");
	assert_string_equal(damonctl_feature_name(DAMONCTL_FEAT_ACTION_COLLAPSE),
			    "action_collapse");
	/* since() and the internal version agree */
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		char v[16];
		int ver = dctl_feature_version(i);

		snprintf(v, sizeof(v), "%d.%d", ver / 1000, ver % 1000);
		if (dctl_feature_queued(i))
			assert_non_null(strstr(damonctl_feature_since(i), v));
		else
			assert_string_equal(damonctl_feature_since(i), v);
	}
}

static void commands(void **state)
{
	/* ABI section 3 */
	static const char *const names[] = {
		"on", "off", "commit", "commit_schemes_quota_goals", "update_schemes_stats",
		"update_schemes_tried_regions", "update_schemes_tried_bytes",
		"clear_schemes_tried_regions", "update_schemes_effective_quotas",
		"update_tuned_intervals",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		assert_string_equal(damonctl_cmd_name(i), names[i]);
	assert_null(damonctl_cmd_name(ARRAY_SIZE(names)));
}

static void dup_is_deep(void **state)
{
	struct objs o;
	struct damonctl_tree *t2;
	struct damonctl_kdamond *k2;
	struct damonctl_context *c2;
	struct damonctl_scheme *s2;
	uint64_t start, end;

	(void)state;
	build(&o);
	assert_int_equal(damonctl_goal_set_str(o.g, DAMONCTL_GOAL_PATH, "/orig"), 0);
	assert_int_equal(damonctl_target_add_region(o.tg, 4096, 8192), 0);
	assert_int_equal(damonctl_scheme_set(o.s, DAMONCTL_SCHEME_QUOTA_MS, 10), 0);
	t2 = damonctl_tree_dup(o.t);
	assert_non_null(t2);
	assert_models_equal(CDOBJ(o.t), CDOBJ(t2));

	k2 = damonctl_tree_kdamond(t2, 0);
	c2 = damonctl_kdamond_context(k2, 0);
	s2 = damonctl_context_scheme(c2, 0);
	assert_ptr_not_equal(c2, o.c);
	/* parents point into the copy */
	assert_ptr_equal(damonctl_context_kdamond(c2), k2);
	assert_ptr_equal(damonctl_scheme_context(s2), c2);
	/* changing the copy leaves the original alone, strings included */
	assert_int_equal(damonctl_goal_set_str(damonctl_scheme_goal(s2, 0), DAMONCTL_GOAL_PATH,
					       "/copy"), 0);
	assert_int_equal(damonctl_scheme_set(s2, DAMONCTL_SCHEME_QUOTA_MS, 20), 0);
	damonctl_target_clear_regions(damonctl_context_target(c2, 0));
	assert_string_equal(damonctl_goal_get_str(o.g, DAMONCTL_GOAL_PATH), "/orig");
	assert_int_equal(damonctl_scheme_get(o.s, DAMONCTL_SCHEME_QUOTA_MS), 10);
	assert_int_equal(damonctl_target_nr_regions(o.tg), 1);
	assert_int_equal(damonctl_target_region(o.tg, 0, &start, &end), 0);
	assert_int_equal(start, 4096);
	assert_int_equal(end, 8192);
	damonctl_tree_free(t2);
	damonctl_tree_free(o.t);
}

static void add_remove(void **state)
{
	struct objs o;
	struct damonctl_scheme *s1, *s2;
	uint64_t start = 1, end = 1;
	unsigned int i;

	(void)state;
	build(&o);
	s1 = damonctl_context_add_scheme(o.c);
	s2 = damonctl_context_add_scheme(o.c);
	assert_int_equal(damonctl_context_nr_schemes(o.c), 3);
	assert_int_equal(damonctl_scheme_index(s2), 2);
	assert_int_equal(damonctl_scheme_set(s2, DAMONCTL_SCHEME_QUOTA_MS, 7), 0);
	/* removing the first renumbers the rest */
	assert_int_equal(damonctl_context_remove_scheme(o.c, 0), 0);
	assert_int_equal(damonctl_context_nr_schemes(o.c), 2);
	assert_ptr_equal(damonctl_context_scheme(o.c, 0), s1);
	assert_int_equal(damonctl_scheme_index(s1), 0);
	assert_int_equal(damonctl_scheme_index(s2), 1);
	assert_int_equal(damonctl_scheme_get(damonctl_context_scheme(o.c, 1),
					     DAMONCTL_SCHEME_QUOTA_MS), 7);
	assert_int_equal(damonctl_context_remove_scheme(o.c, 2), -ENOENT);
	assert_null(damonctl_context_scheme(o.c, 2));

	assert_int_equal(damonctl_context_remove_target(o.c, 0), 0);
	assert_int_equal(damonctl_context_nr_targets(o.c), 0);
	assert_int_equal(damonctl_context_remove_target(o.c, 0), -ENOENT);

	/* each filter directory is its own list */
	assert_non_null(damonctl_scheme_add_filter(s1, DAMONCTL_FILTERS_CORE));
	assert_non_null(damonctl_scheme_add_filter(s1, DAMONCTL_FILTERS_OPS));
	assert_non_null(damonctl_scheme_add_filter(s1, DAMONCTL_FILTERS_OPS));
	assert_int_equal(damonctl_scheme_nr_filters(s1, DAMONCTL_FILTERS_LEGACY), 0);
	assert_int_equal(damonctl_scheme_nr_filters(s1, DAMONCTL_FILTERS_CORE), 1);
	assert_int_equal(damonctl_scheme_nr_filters(s1, DAMONCTL_FILTERS_OPS), 2);
	assert_int_equal(damonctl_scheme_remove_filter(s1, DAMONCTL_FILTERS_OPS, 1), 0);
	assert_int_equal(damonctl_scheme_nr_filters(s1, DAMONCTL_FILTERS_OPS), 1);
	assert_int_equal(damonctl_scheme_remove_filter(s1, DAMONCTL_FILTERS_CORE, 1), -ENOENT);
	assert_non_null(damonctl_scheme_add_goal(s1));
	assert_int_equal(damonctl_scheme_remove_goal(s1, 0), 0);
	assert_int_equal(damonctl_scheme_remove_goal(s1, 0), -ENOENT);
	assert_int_equal(damonctl_scheme_nr_tried_regions(s1), 0);
	assert_null(damonctl_scheme_tried_region(s1, 0));

	/* regions: [start, end); a reversed one is refused, an empty one is for check() */
	o.tg = damonctl_context_add_target(o.c);
	assert_int_equal(damonctl_target_add_region(o.tg, 10, 5), -EINVAL);
	assert_int_equal(damonctl_target_add_region(o.tg, 5, 5), 0);
	for (i = 1; i < 5; i++)
		assert_int_equal(damonctl_target_add_region(o.tg, i * 100, i * 100 + 50), 0);
	assert_int_equal(damonctl_target_nr_regions(o.tg), 5);
	assert_int_equal(damonctl_target_region(o.tg, 4, &start, &end), 0);
	assert_int_equal(start, 400);
	assert_int_equal(end, 450);
	assert_int_equal(damonctl_target_region(o.tg, 5, &start, &end), -ENOENT);
	assert_int_equal(start, 400);	/* untouched on failure */
	damonctl_target_clear_regions(o.tg);
	assert_int_equal(damonctl_target_nr_regions(o.tg), 0);

	assert_int_equal(damonctl_tree_remove_kdamond(o.t, 1), -ENOENT);
	assert_int_equal(damonctl_tree_remove_kdamond(o.t, 0), 0);
	assert_int_equal(damonctl_tree_nr_kdamonds(o.t), 0);
	damonctl_tree_free(o.t);
}

static void iterators(void **state)
{
	struct damonctl_tree *t = damonctl_tree_new();
	struct damonctl_kdamond *k;
	unsigned int i, n = 0;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_non_null(damonctl_tree_add_kdamond(t));
	damonctl_for_each_kdamond(t, k, i) {
		assert_int_equal(damonctl_kdamond_index(k), i);
		n++;
	}
	assert_int_equal(n, 3);
	damonctl_tree_free(t);
}

static void context_paths(void **state)
{
	struct damonctl_ctx *ctx;
	char buf[PATH_MAX], small[8];

	(void)state;
	assert_int_equal(setenv("DAMONC_SYSROOT", "/srv/root/", 1), 0);
	assert_int_equal(damonctl_new(&ctx), 0);
	unsetenv("DAMONC_SYSROOT");
	/* $DAMONC_SYSROOT, with "/x/" and "/x" the same root */
	assert_string_equal(damonctl_get_sysroot(ctx), "/srv/root");
	assert_int_equal(damonctl_path(ctx, DAMONCTL_BASE_ADMIN, "kdamonds/nr_kdamonds", buf,
				       sizeof(buf)),
			 strlen("/srv/root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"));
	assert_string_equal(buf, "/srv/root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds");
	/* 3 was run/damonc: no base of the library's any more */
	assert_int_equal(damonctl_path(ctx, (enum damonctl_base)3, NULL, buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(damonctl_set_sysroot(ctx, "/"), 0);
	assert_true(damonctl_path(ctx, DAMONCTL_BASE_SYS, "module", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "/sys/module");
	assert_true(damonctl_path(ctx, DAMONCTL_BASE_TRACEFS, "", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "/sys/kernel/tracing");
	assert_true(damonctl_path(ctx, DAMONCTL_BASE_PROC, "1/maps", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "/proc/1/maps");
	assert_int_equal(damonctl_path(ctx, DAMONCTL_BASE_ADMIN, "", small, sizeof(small)),
			 -ENAMETOOLONG);
	assert_int_equal(damonctl_path(ctx, (enum damonctl_base)42, "", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(damonctl_set_sysroot(ctx, ""), -EINVAL);
	assert_int_equal(damonctl_set_sysroot(ctx, NULL), -EINVAL);
	assert_string_equal(damonctl_get_sysroot(ctx), "/");
	damonctl_free(ctx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(setters),
		cmocka_unit_test(attr_names),
		cmocka_unit_test(keywords),
		cmocka_unit_test(features_table),
		cmocka_unit_test(commands),
		cmocka_unit_test(dup_is_deep),
		cmocka_unit_test(add_remove),
		cmocka_unit_test(iterators),
		cmocka_unit_test(context_paths),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
