// SPDX-License-Identifier: GPL-2.0-or-later
/* Profiles and keyword tables; the version tags are those of docs/damon-abi.md §5. */
#include <errno.h>
#include <string.h>

#include "engine/engine.h"
#include "kstrto.h"
#include "profile.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KWSET(arr) { arr, ARRAY_SIZE(arr) }

static const struct emu_profile profiles[] = {
	{ "6.1", EMU_V(6, 1), false },
	{ "6.6", EMU_V(6, 6), false },
	{ "6.12", EMU_V(6, 12), false },
	{ "6.18", EMU_V(6, 18), false },
	{ "7.2", EMU_V(7, 2), false },
	{ "7.3", EMU_V(7, 3), false },
	/* the newest release plus what is queued for the next one */
	{ "next", EMU_V(7, 3), true },
};

struct emu_profile emu_prof = { "7.2", EMU_V(7, 2), false };

int emu_profile_select(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(profiles); i++) {
		if (!strcmp(profiles[i].name, name)) {
			emu_prof = profiles[i];
			return 0;
		}
	}
	return -EINVAL;
}

const char *emu_profile_names(void)
{
	return "6.1, 6.6, 6.12, 6.18, 7.2, 7.3, next";
}

bool emu_since(int ver)
{
	if (ver == EMU_V_NEXT)
		return emu_prof.next;
	return emu_prof.ver >= ver;
}

int emu_kw_parse(const struct emu_kwset *set, const char *buf)
{
	for (size_t i = 0; i < set->n; i++) {
		if (emu_since(set->kw[i].since) && emu_sysfs_streq(set->kw[i].name, buf))
			return set->kw[i].value;
	}
	return -EINVAL;
}

const char *emu_kw_name(const struct emu_kwset *set, int value)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->kw[i].value == value)
			return set->kw[i].name;
	}
	return NULL;
}

static const struct emu_kw ops[] = {
	{ "vaddr", EMU_V(5, 15), EMU_OPS_VADDR },
	{ "fvaddr", EMU_V(5, 19), EMU_OPS_FVADDR },
	{ "paddr", EMU_V(5, 15), EMU_OPS_PADDR },
};
const struct emu_kwset emu_kw_ops = KWSET(ops);

/* Table order is the sysfs name-table order: collapse (7.2) sits after nohugepage. */
static const struct emu_kw actions[] = {
	{ "willneed", EMU_V(5, 16), EMU_ACT_WILLNEED },
	{ "cold", EMU_V(5, 16), EMU_ACT_COLD },
	{ "pageout", EMU_V(5, 16), EMU_ACT_PAGEOUT },
	{ "hugepage", EMU_V(5, 16), EMU_ACT_HUGEPAGE },
	{ "nohugepage", EMU_V(5, 16), EMU_ACT_NOHUGEPAGE },
	{ "collapse", EMU_V(7, 2), EMU_ACT_COLLAPSE },
	{ "lru_prio", EMU_V(6, 0), EMU_ACT_LRU_PRIO },
	{ "lru_deprio", EMU_V(6, 0), EMU_ACT_LRU_DEPRIO },
	{ "migrate_hot", EMU_V(6, 11), EMU_ACT_MIGRATE_HOT },
	{ "migrate_cold", EMU_V(6, 11), EMU_ACT_MIGRATE_COLD },
	{ "stat", EMU_V(5, 16), EMU_ACT_STAT },
};
const struct emu_kwset emu_kw_actions = KWSET(actions);

static const struct emu_kw filter_types[] = {
	{ "anon", EMU_V(6, 3), EMU_FILTER_ANON },
	{ "active", EMU_V(6, 15), EMU_FILTER_ACTIVE },
	{ "memcg", EMU_V(6, 3), EMU_FILTER_MEMCG },
	{ "young", EMU_V(6, 10), EMU_FILTER_YOUNG },
	{ "hugepage_size", EMU_V(6, 15), EMU_FILTER_HUGEPAGE_SIZE },
	{ "unmapped", EMU_V(6, 15), EMU_FILTER_UNMAPPED },
	{ "addr", EMU_V(6, 6), EMU_FILTER_ADDR },
	{ "target", EMU_V(6, 6), EMU_FILTER_TARGET },
};
const struct emu_kwset emu_kw_filter_types = KWSET(filter_types);

static const struct emu_kw probe_filter_types[] = {
	{ "anon", EMU_V(7, 2), EMU_FILTER_ANON },
	{ "memcg", EMU_V(7, 2), EMU_FILTER_MEMCG },
};
const struct emu_kwset emu_kw_probe_filter_types = KWSET(probe_filter_types);

static const struct emu_kw goal_metrics[] = {
	{ "user_input", EMU_V(6, 9), EMU_METRIC_USER_INPUT },
	{ "some_mem_psi_us", EMU_V(6, 9), EMU_METRIC_SOME_MEM_PSI_US },
	{ "node_mem_used_bp", EMU_V(6, 16), EMU_METRIC_NODE_MEM_USED_BP },
	{ "node_mem_free_bp", EMU_V(6, 16), EMU_METRIC_NODE_MEM_FREE_BP },
	{ "node_memcg_used_bp", EMU_V(6, 19), EMU_METRIC_NODE_MEMCG_USED_BP },
	{ "node_memcg_free_bp", EMU_V(6, 19), EMU_METRIC_NODE_MEMCG_FREE_BP },
	{ "active_mem_bp", EMU_V(7, 0), EMU_METRIC_ACTIVE_MEM_BP },
	{ "inactive_mem_bp", EMU_V(7, 0), EMU_METRIC_INACTIVE_MEM_BP },
	{ "node_eligible_mem_bp", EMU_V(7, 2), EMU_METRIC_NODE_ELIGIBLE_MEM_BP },
	{ "hugepage_mem_bp", EMU_V_NEXT, EMU_METRIC_HUGEPAGE_MEM_BP },
};
const struct emu_kwset emu_kw_goal_metrics = KWSET(goal_metrics);

static const struct emu_kw goal_tuners[] = {
	{ "consist", EMU_V(7, 1), EMU_TUNER_CONSIST },
	{ "temporal", EMU_V(7, 1), EMU_TUNER_TEMPORAL },
};
const struct emu_kwset emu_kw_goal_tuners = KWSET(goal_tuners);

static const struct emu_kw wmark_metrics[] = {
	{ "none", EMU_V(5, 16), EMU_WMARK_NONE },
	{ "free_mem_rate", EMU_V(5, 16), EMU_WMARK_FREE_MEM_RATE },
};
const struct emu_kwset emu_kw_wmark_metrics = KWSET(wmark_metrics);

static const struct emu_kw state_cmds[] = {
	{ "on", EMU_V(5, 18), EMU_CMD_ON },
	{ "off", EMU_V(5, 18), EMU_CMD_OFF },
	{ "commit", EMU_V(5, 19), EMU_CMD_COMMIT },
	{ "commit_schemes_quota_goals", EMU_V(6, 8), EMU_CMD_COMMIT_GOALS },
	{ "update_schemes_stats", EMU_V(5, 18), EMU_CMD_UPDATE_STATS },
	{ "update_schemes_tried_bytes", EMU_V(6, 6), EMU_CMD_UPDATE_TRIED_BYTES },
	{ "update_schemes_tried_regions", EMU_V(6, 2), EMU_CMD_UPDATE_TRIED_REGIONS },
	{ "clear_schemes_tried_regions", EMU_V(6, 2), EMU_CMD_CLEAR_TRIED_REGIONS },
	{ "update_schemes_effective_quotas", EMU_V(6, 9), EMU_CMD_UPDATE_QUOTAS },
	{ "update_tuned_intervals", EMU_V(6, 15), EMU_CMD_UPDATE_INTERVALS },
};
const struct emu_kwset emu_kw_state_cmds = KWSET(state_cmds);
