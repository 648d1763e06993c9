// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keyword sets of the DAMON sysfs files, in the kernel's own table order, each with the
 * feature (kernel version) that brought it. Keywords older than 6.1 need no feature.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static const struct keyword operations[] = {
	{ "vaddr", FEAT_NONE }, { "fvaddr", FEAT_NONE }, { "paddr", FEAT_NONE },
};

static const struct keyword actions[] = {
	{ "willneed", FEAT_NONE },
	{ "cold", FEAT_NONE },
	{ "pageout", FEAT_NONE },
	{ "hugepage", FEAT_NONE },
	{ "nohugepage", FEAT_NONE },
	{ "collapse", DAMONCTL_FEAT_ACTION_COLLAPSE },
	{ "lru_prio", FEAT_NONE },
	{ "lru_deprio", FEAT_NONE },
	{ "migrate_hot", DAMONCTL_FEAT_TARGET_NID },
	{ "migrate_cold", DAMONCTL_FEAT_TARGET_NID },
	{ "stat", FEAT_NONE },
};

static const struct keyword filter_types[] = {
	{ "anon", DAMONCTL_FEAT_FILTERS },
	{ "active", DAMONCTL_FEAT_CORE_OPS_FILTERS },
	{ "memcg", DAMONCTL_FEAT_FILTERS },
	{ "young", DAMONCTL_FEAT_FILTER_YOUNG },
	{ "hugepage_size", DAMONCTL_FEAT_CORE_OPS_FILTERS },
	{ "unmapped", DAMONCTL_FEAT_CORE_OPS_FILTERS },
	{ "addr", DAMONCTL_FEAT_FILTER_ADDR_TARGET },
	{ "target", DAMONCTL_FEAT_FILTER_ADDR_TARGET },
};

static const struct keyword goal_metrics[] = {
	{ "user_input", DAMONCTL_FEAT_QUOTA_GOALS },
	{ "some_mem_psi_us", DAMONCTL_FEAT_GOAL_METRICS },
	{ "node_mem_used_bp", DAMONCTL_FEAT_GOAL_NID },
	{ "node_mem_free_bp", DAMONCTL_FEAT_GOAL_NID },
	{ "node_memcg_used_bp", DAMONCTL_FEAT_GOAL_PATH },
	{ "node_memcg_free_bp", DAMONCTL_FEAT_GOAL_PATH },
	{ "active_mem_bp", DAMONCTL_FEAT_SNAPSHOTS },
	{ "inactive_mem_bp", DAMONCTL_FEAT_SNAPSHOTS },
	{ "node_eligible_mem_bp", DAMONCTL_FEAT_ACTION_COLLAPSE },
	{ "hugepage_mem_bp", DAMONCTL_FEAT_HUGEPAGE_MEM_BP },
};

static const struct keyword goal_tuners[] = {
	{ "consist", DAMONCTL_FEAT_GOAL_TUNER }, { "temporal", DAMONCTL_FEAT_GOAL_TUNER },
};

static const struct keyword wmark_metrics[] = {
	{ "none", FEAT_NONE }, { "free_mem_rate", FEAT_NONE },
};

/* An access probe's filter types; pgidle_unset is queued for 7.4 and not modelled yet. */
static const struct keyword probe_filter_types[] = {
	{ "anon", DAMONCTL_FEAT_PROBES }, { "memcg", DAMONCTL_FEAT_PROBES },
};

/* What `state` reads back; the commands are in stage.c's damonctl_cmd_name(). */
static const struct keyword states[] = { { "on", FEAT_NONE }, { "off", FEAT_NONE } };

static const struct {
	const struct keyword *kw;
	unsigned int nr;
} sets[] = {
	[DAMONCTL_KW_OPERATIONS] = { operations, ARRAY_SIZE(operations) },
	[DAMONCTL_KW_ACTION] = { actions, ARRAY_SIZE(actions) },
	[DAMONCTL_KW_FILTER_TYPE] = { filter_types, ARRAY_SIZE(filter_types) },
	[DAMONCTL_KW_GOAL_METRIC] = { goal_metrics, ARRAY_SIZE(goal_metrics) },
	[DAMONCTL_KW_GOAL_TUNER] = { goal_tuners, ARRAY_SIZE(goal_tuners) },
	[DAMONCTL_KW_WMARK_METRIC] = { wmark_metrics, ARRAY_SIZE(wmark_metrics) },
	[DAMONCTL_KW_STATE] = { states, ARRAY_SIZE(states) },
	[DAMONCTL_KW_PROBE_FILTER_TYPE] = { probe_filter_types, ARRAY_SIZE(probe_filter_types) },
};

const struct keyword *dctl_keywords(enum damonctl_kwset set, unsigned int *nr)
{
	if ((unsigned int)set >= ARRAY_SIZE(sets)) {
		*nr = 0;
		return NULL;
	}
	*nr = sets[set].nr;
	return sets[set].kw;
}

const struct keyword *dctl_keyword_find(enum damonctl_kwset set, const char *name)
{
	unsigned int nr, i;
	const struct keyword *kw = dctl_keywords(set, &nr);

	for (i = 0; i < nr; i++)
		if (!strcmp(kw[i].name, name))
			return &kw[i];
	return NULL;
}

DAMONCTL_API const char *damonctl_keyword(enum damonctl_kwset set, unsigned int i)
{
	unsigned int nr;
	const struct keyword *kw = dctl_keywords(set, &nr);

	return i < nr ? kw[i].name : NULL;
}

DAMONCTL_API int damonctl_keyword_feature(enum damonctl_kwset set, const char *name,
					  enum damonctl_feature *feat)
{
	const struct keyword *kw = dctl_keyword_find(set, name);

	if (!kw)
		return -ENOENT;
	*feat = kw->feature == FEAT_NONE ? DAMONCTL_FEAT_SYSFS : (enum damonctl_feature)kw->feature;
	return 0;
}
