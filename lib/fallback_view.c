// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A scheme as what it stands for, where a plan of user-space fallbacks serves part of it:
 * a stat scheme standing in for a collapse the kernel lacks shows as the collapse (with the
 * quota the program enforces and its hugepage_mem_bp goal), a user_input goal the program
 * feeds as the hugepage_mem_bp goal it stands for; the kernel's stats and the program's
 * counts stay apart. Reports and metrics read a scheme through one view, so they agree.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static bool is_hugepage_metric(const struct damonctl_goal *g)
{
	return !strcmp(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), "hugepage_mem_bp");
}

/* Entry @i of @fbs, or false past its end. */
static bool entry(const struct damonctl_fallbacks *fbs, unsigned int i, struct damonctl_fallback *fb)
{
	fb->sz = sizeof(*fb);
	return fbs && !damonctl_fallbacks_get(fbs, i, fb);
}

DAMONCTL_API bool damonctl_fallback_scheme_is_hugepage(const struct damonctl_scheme *s,
						       unsigned int si,
						       const struct damonctl_fallbacks *fbs)
{
	const char *action = damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION);
	struct damonctl_fallback fb;
	struct damonctl_goal *g;
	unsigned int i;

	if (!strcmp(action, "collapse") || !strcmp(action, "hugepage"))
		return true;
	for (i = 0; entry(fbs, i, &fb); i++)
		if (fb.scheme == si)
			return true;
	damonctl_for_each_goal(s, g, i)
		if (is_hugepage_metric(g))
			return true;
	return false;
}

static void view_goals(const struct damonctl_scheme *s, unsigned int si,
		       const struct damonctl_fallbacks *fbs, struct damonctl_fallback_view *v)
{
	struct damonctl_fallback fb;
	struct damonctl_goal *g;
	unsigned int gi, f;

	damonctl_for_each_goal(s, g, gi) {
		struct damonctl_fallback_view_goal *vg;

		if (v->nr_goals >= DAMONCTL_FALLBACK_VIEW_MAX_GOALS)
			break;
		vg = &v->goals[v->nr_goals++];
		snprintf(vg->metric, sizeof(vg->metric), "%s",
			 damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC));
		vg->target = damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE);
		vg->current = damonctl_goal_get(g, DAMONCTL_GOAL_CURRENT_VALUE);
		for (f = 0; entry(fbs, f, &fb); f++)
			if (fb.kind == DAMONCTL_FALLBACK_HUGEPAGE_GOAL && fb.scheme == si &&
			    fb.goal == gi) {
				snprintf(vg->metric, sizeof(vg->metric), "hugepage_mem_bp");
				vg->fed = true;
				v->served = true;
			}
	}
}

/* A collapse the program serves: it collapses what the stat stand-in finds (the kernel
 * lacks the action), or paces the kernel's collapse within a budget in huge pages. */
static void view_collapse(const struct damonctl_fallback *fb,
			  const struct damonctl_fallback_stats *st, unsigned int si,
			  struct damonctl_fallback_view *v)
{
	unsigned int a;

	v->served = true;
	for (a = 0; st && a < st->nr && a < DAMONCTL_FALLBACK_STATS_MAX_SCHEMES; a++)
		if (st->s[a].scheme == si)
			v->program = st->s[a];
	if (fb->by_kernel) {
		v->program_paces = true;
		return;
	}
	v->program_collapses = true;
	snprintf(v->action, sizeof(v->action), "collapse");
	v->quota_ms = fb->quota_ms;
	v->quota_bytes = fb->quota_bytes;
	v->quota_reset_ms = fb->reset_ms;
	if (fb->target_bp && v->nr_goals < DAMONCTL_FALLBACK_VIEW_MAX_GOALS) {
		struct damonctl_fallback_view_goal *vg = &v->goals[v->nr_goals++];

		snprintf(vg->metric, sizeof(vg->metric), "hugepage_mem_bp");
		vg->target = fb->target_bp;
		vg->current = st ? st->measured_bp : 0;
		vg->fed = true;
	}
}

static void view_kernel(const struct damonctl_scheme *s, struct damonctl_fallback_view *v)
{
	snprintf(v->action, sizeof(v->action), "%s",
		 damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION));
	if (damonctl_scheme_has(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER))
		snprintf(v->tuner, sizeof(v->tuner), "%s",
			 damonctl_scheme_get_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER));
	v->quota_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS);
	v->quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
	v->quota_reset_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
	v->has_effective = damonctl_scheme_has(s, DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES);
	v->effective_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES);
	v->nr_tried = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_NR_TRIED);
	v->sz_tried = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_SZ_TRIED);
	v->nr_applied = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_NR_APPLIED);
	v->sz_applied = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_SZ_APPLIED);
	v->qt_exceeds = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_QT_EXCEEDS);
}

DAMONCTL_API int damonctl_fallback_view(const struct damonctl_scheme *s, unsigned int si,
					const struct damonctl_fallbacks *fbs,
					const struct damonctl_fallback_stats *st,
					struct damonctl_fallback_view *out)
{
	struct damonctl_fallback_view v = { .sz = sizeof(v), .scheme = si };
	struct damonctl_fallback fb;
	unsigned int f;
	size_t cap;

	if (!s || !out || out->sz < offsetof(struct damonctl_fallback_view, goals) ||
	    (st && st->sz < sizeof(*st)))
		return -EINVAL;
	view_kernel(s, &v);
	view_goals(s, si, fbs, &v);
	for (f = 0; entry(fbs, f, &fb); f++)
		if (fb.kind == DAMONCTL_FALLBACK_COLLAPSE && fb.scheme == si)
			view_collapse(&fb, st, si, &v);
	/* the caller's size: a shorter struct holds fewer goals */
	v.sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
	cap = (v.sz - offsetof(struct damonctl_fallback_view, goals)) / sizeof(v.goals[0]);
	if (v.nr_goals > cap)
		v.nr_goals = (unsigned int)cap;
	memcpy(out, &v, v.sz);
	return 0;
}

DAMONCTL_API uint64_t damonctl_fallback_view_collapsed(const struct damonctl_fallback_view *v)
{
	if (strcmp(v->action, "collapse"))
		return 0;
	return v->program_collapses ? v->program.sz_applied : v->sz_applied;
}
