// SPDX-License-Identifier: GPL-2.0-or-later
/* Planning what the damonc agent does for a kdamond (see fallback.h). */
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

/* A stat scheme matching every region (of target @target when several), applied as often
 * as @like: what the agent reads DAMON's regions from. Its index goes to @index. */
static int add_observer(struct damonctl_context *c, const struct damonctl_scheme *like,
			const struct damonctl_features *f, int target, unsigned int *index)
{
	struct damonctl_scheme *o = damonctl_context_add_scheme(c);
	int r = 0;

	if (!o)
		return -ENOMEM;
	damonctl_scheme_set_str(o, DAMONCTL_SCHEME_ACTION, "stat");
	damonctl_scheme_set(o, DAMONCTL_SCHEME_SZ_MIN, 0);
	damonctl_scheme_set(o, DAMONCTL_SCHEME_SZ_MAX, DAMONCTL_MAX);
	damonctl_scheme_set(o, DAMONCTL_SCHEME_NR_ACCESSES_MIN, 0);
	damonctl_scheme_set(o, DAMONCTL_SCHEME_NR_ACCESSES_MAX, UINT32_MAX);
	damonctl_scheme_set(o, DAMONCTL_SCHEME_AGE_MIN, 0);
	damonctl_scheme_set(o, DAMONCTL_SCHEME_AGE_MAX, UINT32_MAX);
	damonctl_scheme_set(o, DAMONCTL_SCHEME_APPLY_INTERVAL_US,
			    damonctl_scheme_get(like, DAMONCTL_SCHEME_APPLY_INTERVAL_US));
	if (target >= 0)
		r = damonctl_scheme_keep_target(o, f, (unsigned int)target);
	*index = damonctl_context_nr_schemes(c) - 1;
	return r;
}

/* The first hugepage_mem_bp goal's target (0: none). With @only, any other goal is an
 * error (-1, with @why): the agent measures that goal only. */
static int64_t hugepage_target(const struct damonctl_scheme *s, unsigned int si, bool only,
			       char *why, size_t size)
{
	unsigned int g;
	int64_t bp = 0;

	for (g = 0; g < damonctl_scheme_nr_goals(s); g++) {
		struct damonctl_goal *goal = damonctl_scheme_goal(s, g);
		const char *metric = damonctl_goal_get_str(goal, DAMONCTL_GOAL_METRIC);

		if (!strcmp(metric, "hugepage_mem_bp")) {
			if (!bp)
				bp = (int64_t)damonctl_goal_get(goal, DAMONCTL_GOAL_TARGET_VALUE);
		} else if (only) {
			why_fail(why, size, -EOPNOTSUPP, "scheme %u: when damonc collapses in user "
				 "space its only goal can be hugepage_mem_bp, not %s", si, metric);
			return -1;
		}
	}
	return bp;
}

/*
 * A collapse budget for scheme @si: by the kernel (it keeps its action and the agent lets it
 * act on chosen huge pages only) or by the agent (it becomes a stat scheme with the same
 * pattern, and the agent collapses). Several targets: a scheme and an observer per target.
 */
static int plan_collapse(struct damonctl_context *c, unsigned int si,
			 const struct damonctl_features *f, bool scope_pid, bool by_kernel,
			 struct fallbacks *out, char *why, size_t size)
{
	struct damonctl_scheme *s = damonctl_context_scheme(c, si);
	unsigned int nr_targets = damonctl_context_nr_targets(c), t;
	struct fallback fb = { .kind = FB_COLLAPSE, .scope_pid = scope_pid,
			       .by_kernel = by_kernel };
	const char *ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);
	int64_t bp;
	int r;

	if (!strcmp(ops, "paddr"))
		return why_fail(why, size, -EINVAL, "scheme %u: collapse works on process memory "
				"(vaddr or fvaddr), not on physical addresses", si);
	if (!has(f, DAMONCTL_FEAT_TRIED_REGIONS))
		return why_fail(why, size, -EOPNOTSUPP, "scheme %u: this kernel has no 'collapse' "
				"action (it arrived in Linux 7.2), and no tried_regions (6.2) for "
				"damonc to collapse hot regions from user space", si);
	if (nr_targets > 1 && !has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET))
		return why_fail(why, size, -EOPNOTSUPP, "scheme %u: collapsing for several "
				"processes from user space needs target filters (Linux 6.6); start "
				"one per process", si);
	bp = hugepage_target(s, si, !by_kernel, why, size);
	if (bp < 0)
		return -EOPNOTSUPP;
	fb.target_bp = (uint64_t)bp;
	fb.reset_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
	if (!fb.reset_ms)
		fb.reset_ms = 1000;
	damonctl_scheme_pattern(s, fb.hot);
	if (by_kernel) {
		/* reach the goal, then stop (a goal tuned in later finds the default tuner,
		 * which would start the quota at one byte) */
		if (has(f, DAMONCTL_FEAT_GOAL_TUNER))
			damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, "temporal");
		/* the user's size quota, which comes back when the agent allows something; the
		 * agent's own (a status document of a served kdamond fed back) is none */
		fb.quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
		if (fb.quota_bytes == FB_CLOSED_QUOTA_BYTES) {
			fb.quota_bytes = 0;
			damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_BYTES, 0);
		}
		/* nothing until the agent has chosen: the kernel acts on allowed pages only */
		r = damonctl_scheme_allow_ranges(s, f, NULL, NULL, 0);
		if (r)
			return why_fail(why, size, r == -EOPNOTSUPP ? r : -EINVAL, "scheme %u: "
					"pacing collapse needs allow filters (Linux 6.14)", si);
	} else {
		/* the agent enforces the quota and the goal; the kernel only finds regions */
		fb.quota_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS);
		fb.quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
		damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, "stat");
		damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_MS, 0);
		damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_BYTES, 0);
		damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS, 0);
		damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, "consist");
		while (damonctl_scheme_nr_goals(s))
			damonctl_scheme_remove_goal(s, 0);
	}
	/* Tried regions do not say whose they are: per target, a scheme and an observer
	 * keeping to it (a target filter rejecting the others). */
	for (t = 0; t < (nr_targets > 1 ? nr_targets : 1); t++) {
		struct damonctl_scheme *st = s;

		if (t) {
			st = damonctl_context_add_scheme_copy(c, s);
			if (!st)
				return -ENOMEM;
		}
		fb.scheme = t ? damonctl_context_nr_schemes(c) - 1 : si;
		fb.tmpl = si;
		fb.target = t;
		if (nr_targets > 1) {
			/* before the allow filter: another process's memory stays out */
			r = damonctl_scheme_keep_target(st, f, t);
			if (r)
				return r;
		}
		r = add_observer(c, st, f, nr_targets > 1 ? (int)t : -1, &fb.observer);
		if (r)
			return r;
		r = add(out, &fb, why, size);
		if (r)
			return r;
	}
	return 0;
}

/* A hugepage_mem_bp goal this kernel cannot measure as asked: user_input, fed. */
static int plan_goal_feed(struct damonctl_ctx *ctx, struct damonctl_scheme *s, unsigned int si,
			  const struct damonctl_features *f, bool scope_pid, const int *pids,
			  unsigned int nr_pids, struct fallbacks *out, char *why, size_t size)
{
	unsigned int g;
	int r;

	for (g = 0; g < damonctl_scheme_nr_goals(s); g++) {
		struct damonctl_goal *goal = damonctl_scheme_goal(s, g);
		struct fallback fb = { .kind = FB_HUGEPAGE_GOAL, .scheme = si, .goal = g,
				       .scope_pid = scope_pid };
		uint64_t huge = 0, used = 0;

		if (strcmp(damonctl_goal_get_str(goal, DAMONCTL_GOAL_METRIC), "hugepage_mem_bp"))
			continue;
		/* the kernel's own metric is system-wide: over the targets, the agent measures */
		if (has(f, DAMONCTL_FEAT_HUGEPAGE_MEM_BP) && !scope_pid)
			continue;
		if (!has(f, DAMONCTL_FEAT_QUOTA_GOALS))
			return why_fail(why, size, -EOPNOTSUPP, "scheme %u: this kernel has neither "
					"the hugepage_mem_bp goal metric (queued for 7.4) nor quota "
					"goals (6.8) for damonc to feed", si);
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
	return 0;
}

bool fallback_serves(const struct fallbacks *fbs, unsigned int si)
{
	unsigned int i;

	for (i = 0; i < fbs->nr; i++)
		if (fbs->fb[i].scheme == si ||
		    (fbs->fb[i].kind == FB_COLLAPSE && fbs->fb[i].observer == si))
			return true;
	return false;
}

bool fallback_agents_scheme(const struct fallbacks *fbs, unsigned int si)
{
	unsigned int i;

	for (i = 0; i < fbs->nr; i++) {
		const struct fallback *fb = &fbs->fb[i];

		if (fb->kind != FB_COLLAPSE)
			continue;
		if ((fb->observer == si && fb->observer != fb->scheme) ||
		    (fb->scheme == si && fb->scheme != fb->tmpl))
			return true;
	}
	return false;
}

unsigned int fallback_user_scheme(const struct fallbacks *fbs, unsigned int fi)
{
	unsigned int i;

	for (i = 0; i < fbs->nr; i++)
		if (fbs->fb[i].kind == FB_COLLAPSE && fbs->fb[i].scheme == fbs->fb[fi].scheme)
			return fbs->fb[i].tmpl;
	return fbs->fb[fi].scheme;
}

int fallback_check_one_scheme(const struct fallbacks *fbs, char *why, size_t size)
{
	unsigned int i, first = fbs->nr ? fallback_user_scheme(fbs, 0) : 0;

	for (i = 1; i < fbs->nr; i++) {
		unsigned int si = fallback_user_scheme(fbs, i);

		if (si != first)
			return why_fail(why, size, -EINVAL, "schemes %u and %u both need the damonc "
					"agent (a collapse budget kept in huge pages or a "
					"hugepage_mem_bp goal this kernel cannot measure), and it "
					"serves one scheme per kdamond: start the other with its own "
					"'damonc start'", first < si ? first : si, first < si ? si : first);
	}
	return 0;
}

#define MAX_SCHEMES 256

int fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
		  const struct damonctl_features *f, bool scope_pid, struct fallbacks *out,
		  char *why, size_t size)
{
	struct damonctl_context *c = damonctl_kdamond_context(k, 0);
	bool kernel = has(f, DAMONCTL_FEAT_ACTION_COLLAPSE), planned[MAX_SCHEMES] = { false };
	unsigned int si, nr, t, nr_pids = 0;
	int r, pids[16];

	if (!c)
		return 0;
	for (t = 0; t < damonctl_context_nr_targets(c) && nr_pids < 16; t++)
		pids[nr_pids++] = (int)damonctl_target_get_int(damonctl_context_target(c, t),
							       DAMONCTL_TARGET_PID);
	nr = damonctl_context_nr_schemes(c);
	if (nr > MAX_SCHEMES / 2)
		return why_fail(why, size, -EINVAL, "%u schemes: damonc plans at most %d", nr,
				MAX_SCHEMES / 2);
	for (si = 0; si < nr; si++)
		planned[si] = fallback_serves(out, si);
	for (si = 0; si < nr; si++) {
		struct damonctl_scheme *s = damonctl_context_scheme(c, si);

		if (planned[si] || strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION),
					  "collapse"))
			continue;
		/* the kernel collapses alone when there is no budget to keep */
		if (kernel && hugepage_target(s, si, false, why, size) <= 0)
			continue;
		r = plan_collapse(c, si, f, scope_pid, kernel, out, why, size);
		if (r)
			return r;
	}
	/* goals, on every scheme not served before this call (collapse copies included) */
	nr = damonctl_context_nr_schemes(c);
	for (si = 0; si < nr && si < MAX_SCHEMES; si++) {
		if (planned[si])
			continue;
		r = plan_goal_feed(ctx, damonctl_context_scheme(c, si), si, f, scope_pid, pids,
				   nr_pids, out, why, size);
		if (r)
			return r;
	}
	return 0;
}

void fallback_refresh(struct fallbacks *fbs, const struct damonctl_kdamond *k)
{
	struct damonctl_context *c = damonctl_kdamond_context(k, 0);
	unsigned int i;

	for (i = 0; c && i < fbs->nr; i++) {
		struct fallback *fb = &fbs->fb[i];
		struct damonctl_scheme *s = damonctl_context_scheme(c, fb->scheme);

		if (fb->kind != FB_COLLAPSE || !s)
			continue;
		damonctl_scheme_pattern(s, fb->hot);
		if (fb->by_kernel &&
		    damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES) != FB_CLOSED_QUOTA_BYTES)
			fb->quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
		if (damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS))
			fb->reset_ms = damonctl_scheme_get(s,
				DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
	}
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
		else if (fb->by_kernel)
			w = snprintf(buf + n, size - n, "%sscheme %u: collapse of target %u by the "
				     "kernel, paced by the agent in huge pages up to its "
				     "hugepage_mem_bp goal", n ? "; " : "", fb->scheme, fb->target);
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

static const char *const pattern_keys[DAMONCTL_PAT_NR] = {
	"sz_min", "sz_max", "nr_accesses_min", "nr_accesses_max", "age_min", "age_max",
};

json_object *fallback_to_json(const struct fallbacks *fbs)
{
	json_object *arr = json_object_new_array();
	unsigned int i, j;

	for (i = 0; i < fbs->nr; i++) {
		const struct fallback *fb = &fbs->fb[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", json_object_new_string(
			fb->kind == FB_HUGEPAGE_GOAL ? "hugepage_mem_bp" : "collapse"));
		json_object_object_add(o, "scheme", json_object_new_int((int)fb->scheme));
		if (fb->kind == FB_HUGEPAGE_GOAL) {
			json_object_object_add(o, "goal", json_object_new_int((int)fb->goal));
		} else {
			json_object *hot = json_object_new_object();

			json_object_object_add(o, "target", json_object_new_int((int)fb->target));
			json_object_object_add(o, "observer",
					       json_object_new_int((int)fb->observer));
			json_object_object_add(o, "template", json_object_new_int((int)fb->tmpl));
			json_object_object_add(o, "collapsed_by", json_object_new_string(
				fb->by_kernel ? "kernel" : "agent"));
			for (j = 0; j < DAMONCTL_PAT_NR; j++)
				json_object_object_add(hot, pattern_keys[j],
						       json_object_new_uint64(fb->hot[j]));
			json_object_object_add(o, "hot", hot);
		}
		json_object_object_add(o, "target_bp", json_object_new_uint64(fb->target_bp));
		json_object_object_add(o, "scope", json_object_new_string(fb->scope_pid ? "pid" :
									  "system"));
		if (fb->kind == FB_COLLAPSE && !fb->by_kernel)
			json_object_object_add(o, "quota_ms", json_object_new_uint64(fb->quota_ms));
		if (fb->kind == FB_COLLAPSE)
			json_object_object_add(o, "quota_bytes",
					       json_object_new_uint64(fb->quota_bytes));
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
	unsigned int j;

	memset(fbs, 0, sizeof(*fbs));
	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(arr);
	for (i = 0; i < n && fbs->nr < MAX_FALLBACKS; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v, *hot;
		struct fallback *fb = &fbs->fb[fbs->nr];

		if (!json_object_object_get_ex(o, "kind", &v))
			return -EBADMSG;
		fb->kind = !strcmp(json_object_get_string(v), "collapse") ? FB_COLLAPSE :
			   FB_HUGEPAGE_GOAL;
		fb->scheme = (unsigned int)get_u64(o, "scheme");
		fb->goal = (unsigned int)get_u64(o, "goal");
		fb->target = (unsigned int)get_u64(o, "target");
		fb->observer = json_object_object_get_ex(o, "observer", &v) ?
			       (unsigned int)json_object_get_uint64(v) : fb->scheme;
		fb->tmpl = json_object_object_get_ex(o, "template", &v) ?
			   (unsigned int)json_object_get_uint64(v) : fb->scheme;
		fb->by_kernel = json_object_object_get_ex(o, "collapsed_by", &v) &&
				!strcmp(json_object_get_string(v), "kernel");
		if (json_object_object_get_ex(o, "hot", &hot))
			for (j = 0; j < DAMONCTL_PAT_NR; j++)
				fb->hot[j] = get_u64(hot, pattern_keys[j]);
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
