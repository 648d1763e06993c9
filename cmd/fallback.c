// SPDX-License-Identifier: GPL-2.0-or-later
/* Planning user-space fallbacks for huge-page features the kernel lacks (see fallback.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fallback.h"

static int why_fail(char *why, size_t size, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int why_fail(char *why, size_t size, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return err;
}

static int add(struct fallbacks *out, const struct fallback *fb, char *why, size_t size)
{
	if (out->nr >= MAX_FALLBACKS)
		return why_fail(why, size, -EINVAL, "too many user-space fallbacks (at most %d)",
				MAX_FALLBACKS);
	out->fb[out->nr++] = *fb;
	return 0;
}

static bool has(const struct damonctl_features *f, enum damonctl_feature feat)
{
	return damonctl_features_has(f, feat) == DAMONCTL_YES;
}

int fallback_measure(struct damonctl_ctx *ctx, bool scope_pid, const int *pids,
		     unsigned int nr_pids, uint64_t *huge, uint64_t *used)
{
	/* no pids: the system-wide ratio */
	return damonctl_hugepage_measure(ctx, pids, scope_pid ? nr_pids : 0, huge, used);
}

/* Collapse the kernel lacks: a stat scheme per target, the agent collapses what it finds. */
static int plan_collapse(struct damonctl_ctx *ctx, struct damonctl_context *c, unsigned int si,
			 const struct damonctl_features *f, bool scope_pid, struct fallbacks *out,
			 char *why, size_t size)
{
	struct damonctl_scheme *s = damonctl_context_scheme(c, si);
	unsigned int nr_targets = damonctl_context_nr_targets(c), g, t;
	struct fallback fb = { .kind = FB_COLLAPSE, .scheme = si, .scope_pid = scope_pid };
	const char *ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);
	int r;

	(void)ctx;
	if (!strcmp(ops, "paddr"))
		return why_fail(why, size, -EINVAL, "scheme %u: collapse works on process memory "
				"(vaddr or fvaddr), not on physical addresses", si);
	if (!has(f, DAMONCTL_FEAT_TRIED_REGIONS))
		return why_fail(why, size, -EOPNOTSUPP, "scheme %u: this kernel has no 'collapse' "
				"action (it arrived in Linux 7.2), and no tried_regions (6.2) for "
				"damonc to collapse hot regions from user space", si);
	if (nr_targets > 1 && !has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET))
		return why_fail(why, size, -EOPNOTSUPP, "scheme %u: emulating collapse for several "
				"processes needs target filters (Linux 6.6); start one per process",
				si);
	for (g = 0; g < damonctl_scheme_nr_goals(s); g++) {
		struct damonctl_goal *goal = damonctl_scheme_goal(s, g);
		const char *metric = damonctl_goal_get_str(goal, DAMONCTL_GOAL_METRIC);

		if (strcmp(metric, "hugepage_mem_bp"))
			return why_fail(why, size, -EOPNOTSUPP, "scheme %u: when damonc collapses "
					"in user space its only goal can be hugepage_mem_bp, not %s",
					si, metric);
		fb.target_bp = damonctl_goal_get(goal, DAMONCTL_GOAL_TARGET_VALUE);
	}
	/* The agent enforces the quota and the goal; the kernel only finds the regions. */
	fb.quota_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS);
	fb.quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
	fb.reset_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
	if (!fb.reset_ms)
		fb.reset_ms = 1000;
	damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, "stat");
	damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_MS, 0);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_BYTES, 0);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS, 0);
	damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, "consist");
	while (damonctl_scheme_nr_goals(s))
		damonctl_scheme_remove_goal(s, 0);

	if (nr_targets <= 1) {
		fb.target = 0;
		return add(out, &fb, why, size);
	}
	/* Tried regions do not say which process they belong to: one stat scheme per target,
	 * each keeping only its target's regions (a target filter rejecting the others). */
	for (t = nr_targets; t-- > 0;) {
		struct damonctl_scheme *st = s;

		if (t) {
			st = damonctl_context_add_scheme_copy(c, s);
			if (!st)
				return -ENOMEM;
		}
		r = damonctl_scheme_keep_target(st, f, t);
		if (r)
			return r;
		fb.scheme = t ? damonctl_context_nr_schemes(c) - 1 : si;
		fb.target = t;
		r = add(out, &fb, why, size);
		if (r)
			return r;
	}
	return 0;
}

int fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
		  const struct damonctl_features *f, bool scope_pid, struct fallbacks *out,
		  char *why, size_t size)
{
	struct damonctl_context *c = damonctl_kdamond_context(k, 0);
	unsigned int si, nr, g, t, nr_pids = 0;
	int r, pids[16];

	memset(out, 0, sizeof(*out));
	if (!c)
		return 0;
	for (t = 0; t < damonctl_context_nr_targets(c) && nr_pids < 16; t++)
		pids[nr_pids++] = (int)damonctl_target_get_int(damonctl_context_target(c, t),
							       DAMONCTL_TARGET_PID);
	nr = damonctl_context_nr_schemes(c);
	for (si = 0; si < nr; si++) {
		struct damonctl_scheme *s = damonctl_context_scheme(c, si);
		const char *action = damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION);

		if (!strcmp(action, "collapse") &&
		    damonctl_features_has(f, DAMONCTL_FEAT_ACTION_COLLAPSE) == DAMONCTL_NO) {
			r = plan_collapse(ctx, c, si, f, scope_pid, out, why, size);
			if (r)
				return r;
			continue;
		}
		if (damonctl_features_has(f, DAMONCTL_FEAT_HUGEPAGE_MEM_BP) != DAMONCTL_NO)
			continue;
		for (g = 0; g < damonctl_scheme_nr_goals(s); g++) {
			struct damonctl_goal *goal = damonctl_scheme_goal(s, g);
			struct fallback fb = { .kind = FB_HUGEPAGE_GOAL, .scheme = si, .goal = g,
					       .scope_pid = scope_pid };
			uint64_t huge = 0, used = 0;

			if (strcmp(damonctl_goal_get_str(goal, DAMONCTL_GOAL_METRIC),
				   "hugepage_mem_bp"))
				continue;
			if (!has(f, DAMONCTL_FEAT_QUOTA_GOALS))
				return why_fail(why, size, -EOPNOTSUPP, "scheme %u: this kernel has "
						"neither the hugepage_mem_bp goal metric (queued for "
						"7.4) nor quota goals (6.8) for damonc to feed", si);
			fb.target_bp = damonctl_goal_get(goal, DAMONCTL_GOAL_TARGET_VALUE);
			/* fed once per quota interval, when the kernel's tuner reads it */
			fb.reset_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
			if (!fb.reset_ms)
				fb.reset_ms = 1000;
			damonctl_goal_set_str(goal, DAMONCTL_GOAL_METRIC, "user_input");
			/* start from the truth, not from 0: a 0 would read as far from the goal */
			fallback_measure(ctx, scope_pid, pids, nr_pids, &huge, &used);
			damonctl_goal_set(goal, DAMONCTL_GOAL_CURRENT_VALUE,
					  damonctl_hugepage_bp(huge, used));
			r = add(out, &fb, why, size);
			if (r)
				return r;
		}
	}
	return 0;
}

void fallback_describe(const struct fallbacks *fbs, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < fbs->nr && n < size; i++) {
		const struct fallback *fb = &fbs->fb[i];
		int w;

		if (fb->kind == FB_HUGEPAGE_GOAL)
			w = snprintf(buf + n, size - n, "%sscheme %u: hugepage_mem_bp goal %llu bp "
				     "fed by the agent (%s)", n ? "; " : "", fb->scheme,
				     (unsigned long long)fb->target_bp,
				     fb->scope_pid ? "target processes" : "system-wide");
		else
			w = snprintf(buf + n, size - n, "%sscheme %u: collapse of target %u by the "
				     "agent (process_madvise)%s", n ? "; " : "", fb->scheme,
				     fb->target, fb->target_bp ? " up to its hugepage_mem_bp goal" :
				     "");
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

json_object *fallback_to_json(const struct fallbacks *fbs)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < fbs->nr; i++) {
		const struct fallback *fb = &fbs->fb[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", json_object_new_string(
			fb->kind == FB_HUGEPAGE_GOAL ? "hugepage_mem_bp" : "collapse"));
		json_object_object_add(o, "scheme", json_object_new_int((int)fb->scheme));
		if (fb->kind == FB_HUGEPAGE_GOAL)
			json_object_object_add(o, "goal", json_object_new_int((int)fb->goal));
		else
			json_object_object_add(o, "target", json_object_new_int((int)fb->target));
		json_object_object_add(o, "target_bp", json_object_new_uint64(fb->target_bp));
		json_object_object_add(o, "scope", json_object_new_string(fb->scope_pid ? "pid" :
									  "system"));
		if (fb->kind == FB_COLLAPSE) {
			json_object_object_add(o, "quota_ms", json_object_new_uint64(fb->quota_ms));
			json_object_object_add(o, "quota_bytes",
					       json_object_new_uint64(fb->quota_bytes));
		}
		json_object_object_add(o, "reset_ms", json_object_new_uint64(fb->reset_ms));
		json_object_array_add(arr, o);
	}
	return arr;
}

static uint64_t get_u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

int fallback_from_json(json_object *arr, struct fallbacks *fbs)
{
	size_t i, n;

	memset(fbs, 0, sizeof(*fbs));
	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(arr);
	for (i = 0; i < n && fbs->nr < MAX_FALLBACKS; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;
		struct fallback *fb = &fbs->fb[fbs->nr];

		if (!json_object_object_get_ex(o, "kind", &v))
			return -EBADMSG;
		fb->kind = !strcmp(json_object_get_string(v), "collapse") ? FB_COLLAPSE :
			   FB_HUGEPAGE_GOAL;
		fb->scheme = (unsigned int)get_u64(o, "scheme");
		fb->goal = (unsigned int)get_u64(o, "goal");
		fb->target = (unsigned int)get_u64(o, "target");
		fb->target_bp = get_u64(o, "target_bp");
		fb->scope_pid = json_object_object_get_ex(o, "scope", &v) &&
				!strcmp(json_object_get_string(v), "pid");
		fb->quota_ms = get_u64(o, "quota_ms");
		fb->quota_bytes = get_u64(o, "quota_bytes");
		fb->reset_ms = get_u64(o, "reset_ms");
		fbs->nr++;
	}
	return 0;
}
