// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The DAMON sysfs ABI as data: every file of every directory kind, its type, default and the
 * feature (kernel version) that added it. Reading, staging, JSON and feature detection are
 * all loops over these tables, so a new kernel file is one new row (and one enum value in
 * the public header). Rows are in the public enums' order.
 */
#include "internal.h"

#define U64(f, d, feat, fl) { .file = f, .type = V_U64, .def = d, .feature = feat, .flags = fl }
#define U32(f, d, feat, fl) { .file = f, .type = V_U32, .def = d, .feature = feat, .flags = fl }
#define INT(f, d, feat, fl) { .file = f, .type = V_INT, .def = (uint64_t)(int64_t)(d), \
			      .feature = feat, .flags = fl }
#define BOOL(f, feat) { .file = f, .type = V_BOOL, .def = 0, .feature = feat }
#define KW(f, set, d, feat, fl) { .file = f, .type = V_KW, .kwset = set, .defs = d, \
				 .feature = feat, .flags = fl }
#define STR(f, feat) { .file = f, .type = V_STR, .defs = "", .feature = feat }
#define RESULT (A_RO | A_RESULT)

static const struct list_desc tree_lists[] = {
	[L_TREE_KDAMONDS] = { "kdamonds", "kdamonds/nr_kdamonds", "kdamonds", K_KDAMOND,
			      FEAT_NONE, 0 },
};

static const struct attr_desc kdamond_attrs[] = {
	[DAMONCTL_KDAMOND_STATE] = { .file = "state", .type = V_KW, .kwset = DAMONCTL_KW_STATE,
				     .defs = "off", .feature = FEAT_NONE, .flags = RESULT },
	[DAMONCTL_KDAMOND_PID] = INT("pid", -1, FEAT_NONE, RESULT),
	[DAMONCTL_KDAMOND_REFRESH_MS] = U32("refresh_ms", 0, DAMONCTL_FEAT_REFRESH_MS, 0),
};
static const struct list_desc kdamond_lists[] = {
	[L_KDAMOND_CONTEXTS] = { "contexts", "contexts/nr_contexts", "contexts", K_CONTEXT,
				 FEAT_NONE, 0 },
};

#define MA "monitoring_attrs/"
#define IG MA "intervals/intervals_goal/"
static const struct attr_desc context_attrs[] = {
	[DAMONCTL_CONTEXT_OPERATIONS] = KW("operations", DAMONCTL_KW_OPERATIONS, "vaddr",
					   FEAT_NONE, 0),
	[DAMONCTL_CONTEXT_AVAIL_OPERATIONS] = { .file = "avail_operations", .type = V_LINES,
						.defs = "", .feature = FEAT_NONE,
						.flags = RESULT },
	[DAMONCTL_CONTEXT_ADDR_UNIT] = U64("addr_unit", 1, DAMONCTL_FEAT_ADDR_UNIT, 0),
	[DAMONCTL_CONTEXT_PAUSE] = BOOL("pause", DAMONCTL_FEAT_PAUSE),
	[DAMONCTL_CONTEXT_SAMPLE_US] = U64(MA "intervals/sample_us", 5000, FEAT_NONE, 0),
	[DAMONCTL_CONTEXT_AGGR_US] = U64(MA "intervals/aggr_us", 100000, FEAT_NONE, 0),
	[DAMONCTL_CONTEXT_UPDATE_US] = U64(MA "intervals/update_us", 60000000, FEAT_NONE, 0),
	[DAMONCTL_CONTEXT_GOAL_ACCESS_BP] = U64(IG "access_bp", 0,
						DAMONCTL_FEAT_INTERVALS_GOAL, 0),
	[DAMONCTL_CONTEXT_GOAL_AGGRS] = U64(IG "aggrs", 0, DAMONCTL_FEAT_INTERVALS_GOAL, 0),
	[DAMONCTL_CONTEXT_GOAL_MIN_SAMPLE_US] = U64(IG "min_sample_us", 0,
						    DAMONCTL_FEAT_INTERVALS_GOAL, 0),
	[DAMONCTL_CONTEXT_GOAL_MAX_SAMPLE_US] = U64(IG "max_sample_us", 0,
						    DAMONCTL_FEAT_INTERVALS_GOAL, 0),
	[DAMONCTL_CONTEXT_MIN_NR_REGIONS] = U64(MA "nr_regions/min", 10, FEAT_NONE, 0),
	[DAMONCTL_CONTEXT_MAX_NR_REGIONS] = U64(MA "nr_regions/max", 1000, FEAT_NONE, 0),
};
static const struct list_desc context_lists[] = {
	[L_CONTEXT_TARGETS] = { "targets", "targets/nr_targets", "targets", K_TARGET,
				FEAT_NONE, 0 },
	[L_CONTEXT_SCHEMES] = { "schemes", "schemes/nr_schemes", "schemes", K_SCHEME,
				FEAT_NONE, 0 },
	[L_CONTEXT_PROBES] = { MA "probes", MA "probes/nr_probes", MA "probes", K_PROBE,
			       DAMONCTL_FEAT_PROBES, 0 },
};

static const struct attr_desc probe_attrs[] = {
	[DAMONCTL_PROBE_WEIGHT] = U32("weight", 0, DAMONCTL_FEAT_PROBE_WEIGHT, 0),
};
static const struct list_desc probe_lists[] = {
	[L_PROBE_FILTERS] = { "filters", "filters/nr_filters", "filters", K_PROBE_FILTER,
			      FEAT_NONE, 0 },
};

static const struct attr_desc probe_filter_attrs[] = {
	[DAMONCTL_PROBE_FILTER_TYPE] = KW("type", DAMONCTL_KW_PROBE_FILTER_TYPE, "anon",
					  FEAT_NONE, 0),
	[DAMONCTL_PROBE_FILTER_MATCHING] = BOOL("matching", FEAT_NONE),
	[DAMONCTL_PROBE_FILTER_ALLOW] = BOOL("allow", FEAT_NONE),
	[DAMONCTL_PROBE_FILTER_PATH] = STR("path", FEAT_NONE),
};

static const struct attr_desc target_attrs[] = {
	[DAMONCTL_TARGET_PID] = INT("pid_target", 0, FEAT_NONE, 0),
	[DAMONCTL_TARGET_OBSOLETE] = BOOL("obsolete_target", DAMONCTL_FEAT_OBSOLETE_TARGET),
};
static const struct list_desc target_lists[] = {
	[L_TARGET_REGIONS] = { "regions", "regions/nr_regions", "regions", K_REGION,
			       FEAT_NONE, 0 },
};

static const struct attr_desc region_attrs[] = {
	[A_REGION_START] = U64("start", 0, FEAT_NONE, 0),
	[A_REGION_END] = U64("end", 0, FEAT_NONE, 0),
};

#define AP "access_pattern/"
#define Q "quotas/"
#define W "watermarks/"
#define ST "stats/"
static const struct attr_desc scheme_attrs[] = {
	[DAMONCTL_SCHEME_ACTION] = KW("action", DAMONCTL_KW_ACTION, "stat", FEAT_NONE, 0),
	[DAMONCTL_SCHEME_APPLY_INTERVAL_US] = U64("apply_interval_us", 0,
						  DAMONCTL_FEAT_APPLY_INTERVAL, 0),
	[DAMONCTL_SCHEME_TARGET_NID] = INT("target_nid", -1, DAMONCTL_FEAT_TARGET_NID, 0),
	[DAMONCTL_SCHEME_SZ_MIN] = U64(AP "sz/min", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_SZ_MAX] = U64(AP "sz/max", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_NR_ACCESSES_MIN] = U64(AP "nr_accesses/min", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_NR_ACCESSES_MAX] = U64(AP "nr_accesses/max", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_AGE_MIN] = U64(AP "age/min", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_AGE_MAX] = U64(AP "age/max", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_QUOTA_MS] = U64(Q "ms", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_QUOTA_BYTES] = U64(Q "bytes", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS] = U64(Q "reset_interval_ms", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES] = U64(Q "effective_bytes", 0,
						      DAMONCTL_FEAT_EFFECTIVE_QUOTA, RESULT),
	[DAMONCTL_SCHEME_QUOTA_GOAL_TUNER] = KW(Q "goal_tuner", DAMONCTL_KW_GOAL_TUNER,
						"consist", DAMONCTL_FEAT_GOAL_TUNER, 0),
	[DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_NUM] = U32(Q "fail_charge_num", 0,
						      DAMONCTL_FEAT_FAIL_CHARGE, 0),
	[DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_DENOM] = U32(Q "fail_charge_denom", 0,
							DAMONCTL_FEAT_FAIL_CHARGE, 0),
	[DAMONCTL_SCHEME_WEIGHT_SZ_PERMIL] = U32(Q "weights/sz_permil", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_WEIGHT_NR_ACCESSES_PERMIL] = U32(Q "weights/nr_accesses_permil", 0,
							  FEAT_NONE, 0),
	[DAMONCTL_SCHEME_WEIGHT_AGE_PERMIL] = U32(Q "weights/age_permil", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_WMARKS_METRIC] = KW(W "metric", DAMONCTL_KW_WMARK_METRIC, "none",
					     FEAT_NONE, 0),
	[DAMONCTL_SCHEME_WMARKS_INTERVAL_US] = U64(W "interval_us", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_WMARKS_HIGH] = U64(W "high", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_WMARKS_MID] = U64(W "mid", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_WMARKS_LOW] = U64(W "low", 0, FEAT_NONE, 0),
	[DAMONCTL_SCHEME_STAT_NR_TRIED] = U64(ST "nr_tried", 0, FEAT_NONE, RESULT),
	[DAMONCTL_SCHEME_STAT_SZ_TRIED] = U64(ST "sz_tried", 0, FEAT_NONE, RESULT),
	[DAMONCTL_SCHEME_STAT_NR_APPLIED] = U64(ST "nr_applied", 0, FEAT_NONE, RESULT),
	[DAMONCTL_SCHEME_STAT_SZ_APPLIED] = U64(ST "sz_applied", 0, FEAT_NONE, RESULT),
	[DAMONCTL_SCHEME_STAT_SZ_OPS_FILTER_PASSED] = U64(ST "sz_ops_filter_passed", 0,
							  DAMONCTL_FEAT_FILTER_ALLOW, RESULT),
	[DAMONCTL_SCHEME_STAT_QT_EXCEEDS] = U64(ST "qt_exceeds", 0, FEAT_NONE, RESULT),
	[DAMONCTL_SCHEME_STAT_NR_SNAPSHOTS] = U64(ST "nr_snapshots", 0,
						  DAMONCTL_FEAT_SNAPSHOTS, RESULT),
	[DAMONCTL_SCHEME_MAX_NR_SNAPSHOTS] = U64(ST "max_nr_snapshots", 0,
						 DAMONCTL_FEAT_SNAPSHOTS, 0),
	[DAMONCTL_SCHEME_TRIED_TOTAL_BYTES] = U64("tried_regions/total_bytes", 0,
						  DAMONCTL_FEAT_TRIED_BYTES, RESULT),
};
static const struct list_desc scheme_lists[] = {
	[L_SCHEME_GOALS] = { "quotas/goals", "quotas/goals/nr_goals", "quotas/goals", K_GOAL,
			     DAMONCTL_FEAT_QUOTA_GOALS, 0 },
	[L_SCHEME_FILTERS] = { "filters", "filters/nr_filters", "filters", K_FILTER,
			       DAMONCTL_FEAT_FILTERS, 0 },
	[L_SCHEME_CORE_FILTERS] = { "core_filters", "core_filters/nr_filters", "core_filters",
				    K_FILTER, DAMONCTL_FEAT_CORE_OPS_FILTERS, 0 },
	[L_SCHEME_OPS_FILTERS] = { "ops_filters", "ops_filters/nr_filters", "ops_filters",
				   K_FILTER, DAMONCTL_FEAT_CORE_OPS_FILTERS, 0 },
	[L_SCHEME_DESTS] = { "dests", "dests/nr_dests", "dests", K_DEST, DAMONCTL_FEAT_DESTS, 0 },
	[L_SCHEME_TRIED] = { "tried_regions", NULL, "tried_regions/regions", K_TRIED,
			     DAMONCTL_FEAT_TRIED_REGIONS, A_RO },
};

static const struct attr_desc goal_attrs[] = {
	[DAMONCTL_GOAL_METRIC] = KW("target_metric", DAMONCTL_KW_GOAL_METRIC, "user_input",
				    DAMONCTL_FEAT_GOAL_METRICS, 0),
	[DAMONCTL_GOAL_TARGET_VALUE] = U64("target_value", 0, FEAT_NONE, 0),
	[DAMONCTL_GOAL_CURRENT_VALUE] = U64("current_value", 0, FEAT_NONE, 0),
	[DAMONCTL_GOAL_NID] = INT("nid", 0, DAMONCTL_FEAT_GOAL_NID, 0),
	[DAMONCTL_GOAL_PATH] = STR("path", DAMONCTL_FEAT_GOAL_PATH),
};

static const struct attr_desc filter_attrs[] = {
	[DAMONCTL_FILTER_TYPE] = KW("type", DAMONCTL_KW_FILTER_TYPE, "anon", FEAT_NONE, 0),
	[DAMONCTL_FILTER_MATCHING] = BOOL("matching", FEAT_NONE),
	[DAMONCTL_FILTER_ALLOW] = BOOL("allow", DAMONCTL_FEAT_FILTER_ALLOW),
	[DAMONCTL_FILTER_MEMCG_PATH] = STR("memcg_path", FEAT_NONE),
	[DAMONCTL_FILTER_ADDR_START] = U64("addr_start", 0, DAMONCTL_FEAT_FILTER_ADDR_TARGET, 0),
	[DAMONCTL_FILTER_ADDR_END] = U64("addr_end", 0, DAMONCTL_FEAT_FILTER_ADDR_TARGET, 0),
	[DAMONCTL_FILTER_TARGET_IDX] = U32("damon_target_idx", 0,
					   DAMONCTL_FEAT_FILTER_ADDR_TARGET, 0),
	[DAMONCTL_FILTER_MIN] = U64("min", 0, DAMONCTL_FEAT_CORE_OPS_FILTERS, 0),
	[DAMONCTL_FILTER_MAX] = U64("max", 0, DAMONCTL_FEAT_CORE_OPS_FILTERS, 0),
};

static const struct attr_desc dest_attrs[] = {
	[DAMONCTL_DEST_ID] = U32("id", 0, FEAT_NONE, 0),
	[DAMONCTL_DEST_WEIGHT] = U32("weight", 0, FEAT_NONE, 0),
};

static const struct attr_desc tried_attrs[] = {
	[DAMONCTL_TRIED_START] = U64("start", 0, FEAT_NONE, RESULT),
	[DAMONCTL_TRIED_END] = U64("end", 0, FEAT_NONE, RESULT),
	[DAMONCTL_TRIED_NR_ACCESSES] = U64("nr_accesses", 0, FEAT_NONE, RESULT),
	[DAMONCTL_TRIED_AGE] = U64("age", 0, FEAT_NONE, RESULT),
	[DAMONCTL_TRIED_SZ_FILTER_PASSED] = U64("sz_filter_passed", 0,
						DAMONCTL_FEAT_FILTER_ALLOW, RESULT),
};
/* probes/ is there on 7.2 even when the context has no probe */
static const struct list_desc tried_lists[] = {
	[L_TRIED_PROBES] = { "probes", NULL, "probes", K_TRIED_PROBE, DAMONCTL_FEAT_PROBES,
			     A_RO },
};

static const struct attr_desc tried_probe_attrs[] = {
	[A_TRIED_PROBE_HITS] = U32("hits", 0, FEAT_NONE, RESULT),
};

#define KIND(n, a, l) { n, a, ARRAY_SIZE(a), l, ARRAY_SIZE(l) }
#define KIND_NOLISTS(n, a) { n, a, ARRAY_SIZE(a), NULL, 0 }

const struct kind_desc dctl_kinds[NR_KINDS] = {
	[K_TREE] = { "tree", NULL, 0, tree_lists, ARRAY_SIZE(tree_lists) },
	[K_KDAMOND] = KIND("kdamond", kdamond_attrs, kdamond_lists),
	[K_CONTEXT] = KIND("context", context_attrs, context_lists),
	[K_TARGET] = KIND("target", target_attrs, target_lists),
	[K_REGION] = KIND_NOLISTS("region", region_attrs),
	[K_SCHEME] = KIND("scheme", scheme_attrs, scheme_lists),
	[K_GOAL] = KIND_NOLISTS("goal", goal_attrs),
	[K_FILTER] = KIND_NOLISTS("filter", filter_attrs),
	[K_DEST] = KIND_NOLISTS("dest", dest_attrs),
	[K_TRIED] = KIND("tried region", tried_attrs, tried_lists),
	[K_PROBE] = KIND("probe", probe_attrs, probe_lists),
	[K_PROBE_FILTER] = KIND_NOLISTS("probe filter", probe_filter_attrs),
	[K_TRIED_PROBE] = KIND_NOLISTS("probe hits", tried_probe_attrs),
};

_Static_assert(ARRAY_SIZE(kdamond_attrs) == DAMONCTL_KDAMOND_NR_ATTRS, "kdamond table");
_Static_assert(ARRAY_SIZE(context_attrs) == DAMONCTL_CONTEXT_NR_ATTRS, "context table");
_Static_assert(ARRAY_SIZE(target_attrs) == DAMONCTL_TARGET_NR_ATTRS, "target table");
_Static_assert(ARRAY_SIZE(scheme_attrs) == DAMONCTL_SCHEME_NR_ATTRS, "scheme table");
_Static_assert(ARRAY_SIZE(goal_attrs) == DAMONCTL_GOAL_NR_ATTRS, "goal table");
_Static_assert(ARRAY_SIZE(filter_attrs) == DAMONCTL_FILTER_NR_ATTRS, "filter table");
_Static_assert(ARRAY_SIZE(dest_attrs) == DAMONCTL_DEST_NR_ATTRS, "dest table");
_Static_assert(ARRAY_SIZE(tried_attrs) == DAMONCTL_TRIED_NR_ATTRS, "tried region table");
_Static_assert(ARRAY_SIZE(probe_attrs) == DAMONCTL_PROBE_NR_ATTRS, "probe table");
_Static_assert(ARRAY_SIZE(probe_filter_attrs) == DAMONCTL_PROBE_FILTER_NR_ATTRS,
	       "probe filter table");
_Static_assert(DAMONCTL_SCHEME_NR_ATTRS <= 64, "attribute bits fit in dobj.has");
