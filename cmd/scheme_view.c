// SPDX-License-Identifier: GPL-2.0-or-later
/* One scheme as damonc presents it (see scheme_view.h). */
#include <string.h>

#include "fallback.h"
#include "scheme_view.h"

bool scheme_view_is_hugepage(const struct started_entry *e, const struct damonctl_scheme *s,
			     unsigned int si)
{
	const char *action = damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION);
	struct damonctl_goal *g;
	unsigned int gi, f;

	if (!strcmp(action, "collapse") || !strcmp(action, "hugepage"))
		return true;
	for (f = 0; e && f < e->fbs.nr; f++)
		if (e->fbs.fb[f].scheme == si)
			return true;
	damonctl_for_each_goal(s, g, gi)
		if (!strcmp(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), "hugepage_mem_bp"))
			return true;
	return false;
}

static void read_goals(const struct started_entry *e, const struct damonctl_scheme *s,
		       unsigned int si, struct scheme_view *sv)
{
	struct damonctl_goal *g;
	unsigned int gi, f;

	damonctl_for_each_goal(s, g, gi) {
		struct scheme_view_goal *vg;

		if (sv->nr_goals >= SCHEME_VIEW_MAX_GOALS)
			break;
		vg = &sv->goals[sv->nr_goals];
		snprintf(vg->metric, sizeof(vg->metric), "%s",
			 damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC));
		vg->target = damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE);
		vg->current = damonctl_goal_get(g, DAMONCTL_GOAL_CURRENT_VALUE);
		for (f = 0; e && f < e->fbs.nr; f++)
			if (e->fbs.fb[f].kind == DAMONCTL_FALLBACK_HUGEPAGE_GOAL &&
			    e->fbs.fb[f].scheme == si && e->fbs.fb[f].goal == gi) {
				/* the agent's stand-in: show what it stands for */
				snprintf(vg->metric, sizeof(vg->metric), "hugepage_mem_bp");
				vg->fed = true;
				sv->agent = true;
			}
		sv->nr_goals++;
	}
}

/* A collapse scheme of the agent's: it collapses what the stat stand-in finds (the kernel
 * lacks the action), or paces the kernel's collapse within a budget in huge pages. */
static void read_agent_collapse(const struct damonctl_fallback *fb,
				const struct damonctl_fallback_stats *ast, unsigned int si,
				struct scheme_view *sv)
{
	unsigned int a;

	sv->agent = true;
	if (ast)
		sv->hot = *ast;
	for (a = 0; ast && a < ast->nr; a++) {
		if (ast->s[a].scheme != si)
			continue;
		sv->agent_nr_applied = ast->s[a].nr_applied;
		sv->agent_sz_applied = ast->s[a].sz_applied;
		sv->agent_nr_tried = ast->s[a].nr_tried;
		sv->agent_sz_tried = ast->s[a].sz_tried;
		sv->agent_qt_exceeds = ast->s[a].qt_exceeds;
		sv->agent_sz_collapsed = ast->s[a].sz_collapsed;
	}
	if (fb->by_kernel) {
		sv->agent_paces = true;
		return;
	}
	sv->agent_collapses = true;
	snprintf(sv->action, sizeof(sv->action), "collapse");
	sv->quota_ms = fb->quota_ms;
	sv->quota_bytes = fb->quota_bytes;
	sv->quota_reset_ms = fb->reset_ms;
	if (fb->target_bp && sv->nr_goals < SCHEME_VIEW_MAX_GOALS) {
		struct scheme_view_goal *vg = &sv->goals[sv->nr_goals++];

		snprintf(vg->metric, sizeof(vg->metric), "hugepage_mem_bp");
		vg->target = fb->target_bp;
		vg->current = ast ? ast->measured_bp : 0;
		vg->fed = true;
	}
}

void scheme_view_read(struct cli *cli, const struct started_entry *e,
		      const struct damonctl_fallback_stats *ast, unsigned int kdamond,
		      const struct damonctl_scheme *s, unsigned int si, struct scheme_view *sv)
{
	unsigned int f;

	memset(sv, 0, sizeof(*sv));
	sv->kdamond = kdamond;
	sv->scheme = si;
	sv->ours = e != NULL;
	if (e && started_needs_agent(e))
		sv->server = agent_view_server(cli, e, &sv->server_pid);
	snprintf(sv->action, sizeof(sv->action), "%s",
		 damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION));
	if (damonctl_scheme_has(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER))
		snprintf(sv->tuner, sizeof(sv->tuner), "%s",
			 damonctl_scheme_get_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER));
	sv->quota_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS);
	sv->quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
	sv->quota_reset_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
	read_goals(e, s, si, sv);
	for (f = 0; e && f < e->fbs.nr; f++)
		if (e->fbs.fb[f].kind == DAMONCTL_FALLBACK_COLLAPSE && e->fbs.fb[f].scheme == si)
			read_agent_collapse(&e->fbs.fb[f], ast, si, sv);
	sv->has_effective = damonctl_scheme_has(s, DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES);
	sv->effective_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES);
	sv->nr_tried = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_NR_TRIED);
	sv->sz_tried = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_SZ_TRIED);
	sv->nr_applied = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_NR_APPLIED);
	sv->sz_applied = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_SZ_APPLIED);
	sv->qt_exceeds = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_QT_EXCEEDS);
}

uint64_t scheme_view_collapsed(const struct scheme_view *sv)
{
	if (strcmp(sv->action, "collapse"))
		return 0;
	return sv->agent_collapses ? sv->agent_sz_applied : sv->sz_applied;
}
