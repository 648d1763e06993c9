// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * User-space fallbacks (damonctl_fallback_plan(3)): what a program must do for a kdamond so
 * that a kernel without the hugepage_mem_bp goal metric or the collapse action runs it, and
 * the plan stored as JSON, since it outlives the process that started the kdamond.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

/* Fixed, as the agent's per-kdamond figures are: 16 targets x (goal + collapse) and more. */
#define FALLBACKS_MAX 160	/* a collapse for each of 64 targets and more */
/* The schemes one plan looks at (its own copies and observers included). */
#define MAX_SCHEMES 256
#define MAX_PIDS 16

struct damonctl_fallbacks {
	unsigned int nr;
	struct damonctl_fallback fb[FALLBACKS_MAX];
};

static int why_fail(char *why, size_t size, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int why_fail(char *why, size_t size, int err, const char *fmt, ...)
{
	va_list ap;

	if (!why || !size)
		return err;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return err;
}

DAMONCTL_API int damonctl_fallbacks_new(struct damonctl_fallbacks **out)
{
	struct damonctl_fallbacks *fbs = calloc(1, sizeof(*fbs));

	if (!fbs)
		return -ENOMEM;
	*out = fbs;
	return 0;
}

DAMONCTL_API void damonctl_fallbacks_free(struct damonctl_fallbacks *fbs)
{
	free(fbs);
}

DAMONCTL_API unsigned int damonctl_fallbacks_count(const struct damonctl_fallbacks *fbs)
{
	return fbs ? fbs->nr : 0;
}

/* The caller's struct is @fb->sz long: the fields it has, the ones it lacks left out. */
#define FB_MIN_SZ (offsetof(struct damonctl_fallback, kind) + sizeof(enum damonctl_fallback_kind))

DAMONCTL_API int damonctl_fallbacks_get(const struct damonctl_fallbacks *fbs, unsigned int i,
					struct damonctl_fallback *fb)
{
	size_t n;

	if (!fbs || !fb || fb->sz < FB_MIN_SZ)
		return -EINVAL;
	if (i >= fbs->nr)
		return -ENOENT;
	n = fb->sz < sizeof(*fb) ? fb->sz : sizeof(*fb);
	memcpy((char *)fb + sizeof(fb->sz), (const char *)&fbs->fb[i] + sizeof(fb->sz),
	       n - sizeof(fb->sz));
	return 0;
}

/* @fb as this library's struct: what the caller's lacks is 0. */
static int sized_in(const struct damonctl_fallback *fb, struct damonctl_fallback *in)
{
	if (!fb || fb->sz < FB_MIN_SZ)
		return -EINVAL;
	memset(in, 0, sizeof(*in));
	memcpy(in, fb, fb->sz < sizeof(*in) ? fb->sz : sizeof(*in));
	in->sz = sizeof(*in);
	if (in->kind != DAMONCTL_FALLBACK_HUGEPAGE_GOAL && in->kind != DAMONCTL_FALLBACK_COLLAPSE)
		return -EINVAL;
	return 0;
}

DAMONCTL_API int damonctl_fallbacks_set(struct damonctl_fallbacks *fbs, unsigned int i,
					const struct damonctl_fallback *fb)
{
	struct damonctl_fallback in;
	int r;

	if (!fbs)
		return -EINVAL;
	if (i >= fbs->nr)
		return -ENOENT;
	r = sized_in(fb, &in);
	if (!r)
		fbs->fb[i] = in;
	return r;
}

DAMONCTL_API int damonctl_fallbacks_add(struct damonctl_fallbacks *fbs,
					const struct damonctl_fallback *fb)
{
	struct damonctl_fallback in;
	int r;

	if (!fbs)
		return -EINVAL;
	if (fbs->nr >= FALLBACKS_MAX)
		return -ENOSPC;
	r = sized_in(fb, &in);
	if (!r)
		fbs->fb[fbs->nr++] = in;
	return r;
}

DAMONCTL_API int damonctl_fallbacks_remove(struct damonctl_fallbacks *fbs, unsigned int i)
{
	if (!fbs)
		return -EINVAL;
	if (i >= fbs->nr)
		return -ENOENT;
	memmove(&fbs->fb[i], &fbs->fb[i + 1], (fbs->nr - i - 1) * sizeof(fbs->fb[0]));
	fbs->nr--;
	return 0;
}

static int add(struct damonctl_fallbacks *out, const struct damonctl_fallback *fb, char *why,
	       size_t size)
{
	if (out->nr >= FALLBACKS_MAX)
		return why_fail(why, size, -EINVAL, "too many user-space fallbacks (at most %d)",
				FALLBACKS_MAX);
	out->fb[out->nr++] = *fb;
	return 0;
}

static bool has(const struct damonctl_features *f, enum damonctl_feature feat)
{
	return damonctl_features_has(f, feat) == DAMONCTL_YES;
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

/* Whether collapse scheme @si can be served here at all: 0, or the error with @why. */
static int collapse_possible(const struct damonctl_context *c, unsigned int si,
			     const struct damonctl_features *f, char *why, size_t size)
{
	const char *ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);

	if (!strcmp(ops, "paddr"))
		return why_fail(why, size, -EINVAL, "scheme %u: collapse works on process memory "
				"(vaddr or fvaddr), not on physical addresses", si);
	if (!has(f, DAMONCTL_FEAT_TRIED_REGIONS))
		return why_fail(why, size, -EOPNOTSUPP, "scheme %u: this kernel has no 'collapse' "
				"action (it arrived in Linux 7.2), and no tried_regions (6.2) for "
				"damonc to collapse hot regions from user space", si);
	if (damonctl_context_nr_targets(c) > 1 && !has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET))
		return why_fail(why, size, -EOPNOTSUPP, "scheme %u: collapsing for several "
				"processes from user space needs target filters (Linux 6.6); start "
				"one per process", si);
	return 0;
}

/* The kernel keeps collapsing scheme @s, on the pages the agent allows only. */
static int collapse_by_kernel(struct damonctl_scheme *s, unsigned int si,
			      const struct damonctl_features *f, struct damonctl_fallback *fb,
			      char *why, size_t size)
{
	int r;

	/* reach the goal, then stop (a goal tuned in later finds the default tuner, which
	 * would start the quota at one byte) */
	if (has(f, DAMONCTL_FEAT_GOAL_TUNER))
		damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, "temporal");
	/* the user's size quota, which comes back when the agent allows something; the
	 * agent's own (a status document of a served kdamond fed back) is none */
	fb->quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
	if (fb->quota_bytes == DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES) {
		fb->quota_bytes = 0;
		damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_BYTES, 0);
	}
	/* nothing until the agent has chosen: the kernel acts on allowed pages only */
	r = damonctl_scheme_allow_ranges(s, f, NULL, NULL, 0);
	if (r)
		return why_fail(why, size, r == -EOPNOTSUPP ? r : -EINVAL, "scheme %u: pacing "
				"collapse needs allow filters (Linux 6.14)", si);
	return 0;
}

/* Scheme @s becomes a stat scheme: the agent enforces the quota and the goal, the kernel
 * only finds regions. */
static void collapse_by_agent(struct damonctl_scheme *s, struct damonctl_fallback *fb)
{
	fb->quota_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS);
	fb->quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
	damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, "stat");
	damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_MS, 0);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_BYTES, 0);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS, 0);
	damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, "consist");
	while (damonctl_scheme_nr_goals(s))
		damonctl_scheme_remove_goal(s, 0);
}

/* Tried regions do not say whose they are: per target, a scheme and an observer keeping to
 * it (a target filter rejecting the others), each an entry like @fb. */
static int collapse_per_target(struct damonctl_context *c, unsigned int si,
			       const struct damonctl_features *f, struct damonctl_fallback *fb,
			       struct damonctl_fallbacks *out, char *why, size_t size)
{
	struct damonctl_scheme *s = damonctl_context_scheme(c, si);
	unsigned int nr_targets = damonctl_context_nr_targets(c), t;
	int r;

	for (t = 0; t < (nr_targets > 1 ? nr_targets : 1); t++) {
		struct damonctl_scheme *st = s;

		if (t) {
			st = damonctl_context_add_scheme_copy(c, s);
			if (!st)
				return -ENOMEM;
		}
		fb->scheme = t ? damonctl_context_nr_schemes(c) - 1 : si;
		fb->tmpl = si;
		fb->target = t;
		if (nr_targets > 1) {
			/* before the allow filter: another process's memory stays out */
			r = damonctl_scheme_keep_target(st, f, t);
			if (r)
				return r;
		}
		r = add_observer(c, st, f, nr_targets > 1 ? (int)t : -1, &fb->observer);
		if (!r)
			r = add(out, fb, why, size);
		if (r)
			return r;
	}
	return 0;
}

/*
 * A collapse budget for scheme @si: by the kernel (it keeps its action and the agent lets it
 * act on chosen huge pages only) or by the agent (it becomes a stat scheme with the same
 * pattern, and the agent collapses).
 */
static int plan_collapse(struct damonctl_context *c, unsigned int si,
			 const struct damonctl_features *f, bool scope_pid, bool by_kernel,
			 struct damonctl_fallbacks *out, char *why, size_t size)
{
	struct damonctl_scheme *s = damonctl_context_scheme(c, si);
	struct damonctl_fallback fb = { .sz = sizeof(fb), .kind = DAMONCTL_FALLBACK_COLLAPSE,
					.scope_pid = scope_pid, .by_kernel = by_kernel };
	int64_t bp;
	int r = collapse_possible(c, si, f, why, size);

	if (r)
		return r;
	bp = hugepage_target(s, si, !by_kernel, why, size);
	if (bp < 0)
		return -EOPNOTSUPP;
	fb.target_bp = (uint64_t)bp;
	fb.reset_ms = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
	if (!fb.reset_ms)
		fb.reset_ms = 1000;
	damonctl_scheme_pattern(s, fb.pattern);
	if (by_kernel) {
		r = collapse_by_kernel(s, si, f, &fb, why, size);
		if (r)
			return r;
	} else {
		collapse_by_agent(s, &fb);
	}
	return collapse_per_target(c, si, f, &fb, out, why, size);
}

/* A hugepage_mem_bp goal this kernel cannot measure as asked: user_input, fed. */
static int plan_goal_feed(struct damonctl_ctx *ctx, struct damonctl_scheme *s, unsigned int si,
			  const struct damonctl_features *f, bool scope_pid, const int *pids,
			  unsigned int nr_pids, struct damonctl_fallbacks *out, char *why,
			  size_t size)
{
	unsigned int g;
	int r;

	for (g = 0; g < damonctl_scheme_nr_goals(s); g++) {
		struct damonctl_goal *goal = damonctl_scheme_goal(s, g);
		struct damonctl_fallback fb = { .sz = sizeof(fb),
						.kind = DAMONCTL_FALLBACK_HUGEPAGE_GOAL,
						.scheme = si, .goal = g, .scope_pid = scope_pid };
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
		/* start from the truth, not from 0: a 0 would read as far from the goal; no
		 * pids is the system-wide ratio */
		damonctl_hugepage_measure(ctx, pids, scope_pid ? nr_pids : 0, &huge, &used);
		damonctl_goal_set(goal, DAMONCTL_GOAL_CURRENT_VALUE,
				  damonctl_hugepage_bp(huge, used));
		r = add(out, &fb, why, size);
		if (r)
			return r;
	}
	return 0;
}

DAMONCTL_API bool damonctl_fallbacks_serves(const struct damonctl_fallbacks *fbs,
					    unsigned int scheme)
{
	unsigned int i;

	for (i = 0; fbs && i < fbs->nr; i++)
		if (fbs->fb[i].scheme == scheme ||
		    (fbs->fb[i].kind == DAMONCTL_FALLBACK_COLLAPSE && fbs->fb[i].observer == scheme))
			return true;
	return false;
}

DAMONCTL_API bool damonctl_fallbacks_agents_scheme(const struct damonctl_fallbacks *fbs,
						   unsigned int scheme)
{
	unsigned int i;

	for (i = 0; fbs && i < fbs->nr; i++) {
		const struct damonctl_fallback *fb = &fbs->fb[i];

		if (fb->kind != DAMONCTL_FALLBACK_COLLAPSE)
			continue;
		if ((fb->observer == scheme && fb->observer != fb->scheme) ||
		    (fb->scheme == scheme && fb->scheme != fb->tmpl))
			return true;
	}
	return false;
}

DAMONCTL_API unsigned int damonctl_fallbacks_user_scheme(const struct damonctl_fallbacks *fbs,
							 unsigned int i)
{
	unsigned int j;

	if (!fbs || i >= fbs->nr)
		return UINT32_MAX;
	for (j = 0; j < fbs->nr; j++)
		if (fbs->fb[j].kind == DAMONCTL_FALLBACK_COLLAPSE &&
		    fbs->fb[j].scheme == fbs->fb[i].scheme)
			return fbs->fb[j].tmpl;
	return fbs->fb[i].scheme;
}

DAMONCTL_API int damonctl_fallbacks_check_one_scheme(const struct damonctl_fallbacks *fbs,
						     char *why, size_t size)
{
	unsigned int i, first;

	if (!fbs || !fbs->nr)
		return 0;
	first = damonctl_fallbacks_user_scheme(fbs, 0);
	for (i = 1; i < fbs->nr; i++) {
		unsigned int si = damonctl_fallbacks_user_scheme(fbs, i);

		if (si != first)
			return why_fail(why, size, -EINVAL, "schemes %u and %u both need the damonc "
					"agent (a collapse budget kept in huge pages or a "
					"hugepage_mem_bp goal this kernel cannot measure), and it "
					"serves one scheme per kdamond: start the other with its own "
					"'damonc start'", first < si ? first : si, first < si ? si : first);
	}
	return 0;
}

/* The plan itself, appended to @out (a copy the caller commits on success). */
static int plan(struct damonctl_ctx *ctx, struct damonctl_context *c,
		const struct damonctl_features *f, bool scope_pid, struct damonctl_fallbacks *out,
		char *why, size_t size)
{
	bool kernel = has(f, DAMONCTL_FEAT_ACTION_COLLAPSE), planned[MAX_SCHEMES] = { false };
	unsigned int si, nr, t, nr_pids = 0;
	int r, pids[MAX_PIDS];

	for (t = 0; t < damonctl_context_nr_targets(c) && nr_pids < MAX_PIDS; t++)
		pids[nr_pids++] = (int)damonctl_target_get_int(damonctl_context_target(c, t),
							       DAMONCTL_TARGET_PID);
	nr = damonctl_context_nr_schemes(c);
	if (nr > MAX_SCHEMES / 2)
		return why_fail(why, size, -EINVAL, "%u schemes: damonc plans at most %d", nr,
				MAX_SCHEMES / 2);
	for (si = 0; si < nr; si++)
		planned[si] = damonctl_fallbacks_serves(out, si);
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

DAMONCTL_API int damonctl_fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
					const struct damonctl_features *f, bool scope_pid,
					struct damonctl_fallbacks *fbs, char *why, size_t size)
{
	struct damonctl_context *c = k ? damonctl_kdamond_context(k, 0) : NULL;
	struct damonctl_fallbacks *work;
	int r;

	if (!ctx || !k || !f || !fbs)
		return -EINVAL;
	if (!c)
		return 0;
	work = malloc(sizeof(*work));
	if (!work)
		return -ENOMEM;
	*work = *fbs;
	r = plan(ctx, c, f, scope_pid, work, why, size);
	if (!r)
		*fbs = *work;
	free(work);
	return r;
}

DAMONCTL_API void damonctl_fallbacks_refresh(struct damonctl_fallbacks *fbs,
					     const struct damonctl_kdamond *k)
{
	struct damonctl_context *c = k ? damonctl_kdamond_context(k, 0) : NULL;
	unsigned int i;

	for (i = 0; c && fbs && i < fbs->nr; i++) {
		struct damonctl_fallback *fb = &fbs->fb[i];
		struct damonctl_scheme *s = damonctl_context_scheme(c, fb->scheme);

		if (fb->kind != DAMONCTL_FALLBACK_COLLAPSE || !s)
			continue;
		damonctl_scheme_pattern(s, fb->pattern);
		if (fb->by_kernel && damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES) !=
				     DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES)
			fb->quota_bytes = damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES);
		if (damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS))
			fb->reset_ms = damonctl_scheme_get(s,
				DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS);
	}
}

/* Whether scheme @si is @scheme or a per-target copy the plan made of it. */
static bool follows(const struct damonctl_fallbacks *fbs, unsigned int si, unsigned int scheme)
{
	unsigned int i;

	if (si == scheme)
		return true;
	for (i = 0; i < fbs->nr; i++)
		if (fbs->fb[i].kind == DAMONCTL_FALLBACK_COLLAPSE && fbs->fb[i].scheme == si &&
		    fbs->fb[i].tmpl == scheme)
			return true;
	return false;
}

DAMONCTL_API int damonctl_fallbacks_set_goal(struct damonctl_fallbacks *fbs,
					     struct damonctl_context *c, unsigned int scheme,
					     uint64_t target_bp, int scope_pid)
{
	unsigned int i;
	int n = 0;

	if (!fbs || !c || !damonctl_context_scheme(c, scheme) || scope_pid < -1 || scope_pid > 1)
		return -EINVAL;
	for (i = 0; i < fbs->nr; i++) {
		struct damonctl_fallback *fb = &fbs->fb[i];
		struct damonctl_scheme *s = damonctl_context_scheme(c, fb->scheme);

		/* the per-target copies of a scheme follow it, their fed goals too */
		if (!s || !follows(fbs, fb->scheme, scheme))
			continue;
		/* a scope given moves with the goal: the program measures it */
		if (scope_pid >= 0)
			fb->scope_pid = scope_pid;
		if (fb->kind == DAMONCTL_FALLBACK_HUGEPAGE_GOAL) {
			/* the user_input goal standing in: its target the kernel tunes to */
			struct damonctl_goal *g = damonctl_scheme_goal(s, fb->goal);

			if (g)
				damonctl_goal_set(g, DAMONCTL_GOAL_TARGET_VALUE, target_bp);
		}
		fb->target_bp = target_bp;
		n++;
	}
	return n;
}

/* ---- following the targets: damonctl_fallbacks_retarget() ---- */

/* Keep budget @fb's schemes (the collapse scheme and its observer) to target @idx; a
 * collapse scheme the kernel runs is allowed nothing until the program chooses for @idx. */
static int keep_to(struct damonctl_context *c, const struct damonctl_fallback *fb,
		   const struct damonctl_features *f, unsigned int idx)
{
	struct damonctl_scheme *sc = damonctl_context_scheme(c, fb->scheme);
	struct damonctl_scheme *ob = damonctl_context_scheme(c, fb->observer);

	if (!sc || !ob)
		return -EINVAL;
	damonctl_scheme_keep_target(sc, f, idx);
	if (fb->observer != fb->scheme)
		damonctl_scheme_keep_target(ob, f, idx);
	if (fb->by_kernel)
		damonctl_scheme_allow_ranges(sc, f, NULL, NULL, 0);
	return 0;
}

/* A new budget like the one of scheme @tmpl: copies of its schemes appended to @c (and of
 * the goal fed on the kernel's collapse scheme). Its index goes to @idx. */
static int copy_budget(struct damonctl_context *c, struct damonctl_fallbacks *fbs,
		       unsigned int tmpl, int *idx)
{
	struct damonctl_fallback nb;
	unsigned int i, nr = fbs->nr;
	int from = -1;

	for (i = 0; i < nr && from < 0; i++)
		if (fbs->fb[i].kind == DAMONCTL_FALLBACK_COLLAPSE && fbs->fb[i].scheme == tmpl)
			from = (int)i;
	if (from < 0 || fbs->nr + 2 > FALLBACKS_MAX)
		return -ENOSPC;
	nb = fbs->fb[from];
	if (!damonctl_context_add_scheme_copy(c, damonctl_context_scheme(c, nb.scheme)))
		return -ENOMEM;
	nb.scheme = damonctl_context_nr_schemes(c) - 1;
	if (fbs->fb[from].observer != fbs->fb[from].scheme) {
		if (!damonctl_context_add_scheme_copy(c, damonctl_context_scheme(c, nb.observer)))
			return -ENOMEM;
		nb.observer = damonctl_context_nr_schemes(c) - 1;
	} else {
		nb.observer = nb.scheme;
	}
	for (i = 0; i < nr; i++) {
		struct damonctl_fallback g = fbs->fb[i];

		if (g.kind != DAMONCTL_FALLBACK_HUGEPAGE_GOAL || g.scheme != tmpl)
			continue;
		g.scheme = nb.scheme;
		fbs->fb[fbs->nr++] = g;
	}
	*idx = (int)fbs->nr;
	fbs->fb[fbs->nr++] = nb;
	return 0;
}

/* Budgets of live targets follow them to their new index (marked in @moved). */
static int move_live(struct damonctl_fallbacks *w, struct damonctl_context *c,
		     const struct damonctl_features *f, const unsigned int *old_index,
		     unsigned int nr_live, bool *moved)
{
	unsigned int k, j;
	int r;

	for (k = 0; k < nr_live; k++)
		for (j = 0; j < w->nr; j++) {
			struct damonctl_fallback *fb = &w->fb[j];

			if (fb->kind != DAMONCTL_FALLBACK_COLLAPSE || moved[j] ||
			    fb->target != old_index[k])
				continue;
			fb->target = k;
			moved[j] = true;
			r = keep_to(c, fb, f, k);
			if (r)
				return r;
		}
	return 0;
}

/* The child's budget: one of a target gone, else copies of the budget of scheme @tmpl. */
static int serve_child(struct damonctl_fallbacks *w, struct damonctl_context *c,
		       const struct damonctl_features *f, bool *moved, unsigned int tmpl,
		       unsigned int child)
{
	unsigned int i;
	int reuse = -1, r;

	for (i = 0; i < w->nr && reuse < 0; i++)
		if (w->fb[i].kind == DAMONCTL_FALLBACK_COLLAPSE && !moved[i])
			reuse = (int)i;
	if (reuse < 0) {
		r = copy_budget(c, w, tmpl, &reuse);
		if (r)
			return r;
	}
	w->fb[reuse].target = child;
	moved[reuse] = true;
	return keep_to(c, &w->fb[reuse], f, child);
}

/* Budgets not moved (of targets gone) match target @nowhere from now on and leave @w. */
static int drop_unmoved(struct damonctl_fallbacks *w, struct damonctl_context *c,
			const struct damonctl_features *f, bool *moved, unsigned int nowhere)
{
	unsigned int i;
	int r;

	for (i = 0; i < w->nr; i++) {
		if (w->fb[i].kind != DAMONCTL_FALLBACK_COLLAPSE || moved[i])
			continue;
		r = keep_to(c, &w->fb[i], f, nowhere);
		if (r)
			return r;
		memmove(&w->fb[i], &w->fb[i + 1], (w->nr - i - 1) * sizeof(w->fb[0]));
		memmove(&moved[i], &moved[i + 1], (w->nr - i - 1) * sizeof(moved[0]));
		w->nr--;
		i--;
	}
	return 0;
}

DAMONCTL_API int damonctl_fallbacks_retarget(struct damonctl_fallbacks *fbs,
					     struct damonctl_context *c,
					     const struct damonctl_features *f,
					     const unsigned int *old_index, unsigned int nr_live,
					     unsigned int child, unsigned int nowhere)
{
	struct damonctl_fallbacks *w;
	bool moved[FALLBACKS_MAX] = { false };
	unsigned int i, tmpl = UINT32_MAX;
	int r;

	if (!fbs || !c || !f || (nr_live && !old_index))
		return -EINVAL;
	for (i = 0; i < fbs->nr && tmpl == UINT32_MAX; i++)
		if (fbs->fb[i].kind == DAMONCTL_FALLBACK_COLLAPSE)
			tmpl = fbs->fb[i].scheme;
	if (tmpl == UINT32_MAX)
		return 0;	/* no collapse budget: nothing follows the targets */
	if (damonctl_features_has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET) != DAMONCTL_YES)
		return -EOPNOTSUPP;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = *fbs;
	r = move_live(w, c, f, old_index, nr_live, moved);
	if (!r && child != UINT32_MAX)
		r = serve_child(w, c, f, moved, tmpl, child);
	if (!r)
		r = drop_unmoved(w, c, f, moved, nowhere);
	if (!r)
		*fbs = *w;
	free(w);
	return r;
}
