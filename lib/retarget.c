// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damonctl_kdamond_retarget(): processes joining and leaving a running kdamond, as one change
 * whoever asks (a person's `tune --add-target`, a child the agent follows): the same checks
 * as a start makes of its targets (a process that runs, not a kernel thread), targets whose
 * processes exited dropped when asked, and the user-space fallbacks' collapse budgets
 * following their targets. The caller commits the result (damonctl_kdamond_commit).
 *
 * A kdamond without collapse budgets keeps its monitoring where it can: a target leaving is
 * marked obsolete (6.19), else removed with the later ones moving down, and target filters
 * follow (targets_online.c). One with budgets has per-target schemes whose target filters
 * the plan rewrites (damonctl_fallbacks_retarget): the targets that stay are kept in order
 * and the budgets follow them to their new places.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_PIDS 64	/* targets of one context a retarget handles */

static int say(const struct damonctl_retarget *rt, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int say(const struct damonctl_retarget *rt, int err, const char *fmt, ...)
{
	va_list ap;

	if (rt->why && rt->why_size) {
		va_start(ap, fmt);
		vsnprintf(rt->why, rt->why_size, fmt, ap);
		va_end(ap);
	}
	return err;
}

static bool has_budgets(const struct damonctl_fallbacks *fbs)
{
	struct damonctl_fallback fb = { .sz = sizeof(fb) };
	unsigned int i;

	for (i = 0; fbs && i < damonctl_fallbacks_count(fbs); i++)
		if (!damonctl_fallbacks_get(fbs, i, &fb) && fb.kind == DAMONCTL_FALLBACK_COLLAPSE)
			return true;
	return false;
}

/* Processes to add: each a user-space process that runs, not a target yet, as a start
 * checks its targets. */
static int check_adds(struct damonctl_ctx *ctx, const struct damonctl_context *c,
		      const struct damonctl_retarget *rt)
{
	unsigned int i, j;
	const char *what;
	int r;

	for (i = 0; i < rt->nr_add; i++) {
		int pid = rt->add[i];

		if (pid <= 0)
			return say(rt, -EINVAL, "pid %d: not a process", pid);
		if (damonctl_context_find_pid(c, pid) >= 0)
			return say(rt, -EEXIST, "process %d is a target already", pid);
		for (j = 0; j < i; j++)
			if (rt->add[j] == pid)
				return say(rt, -EEXIST, "process %d is named twice", pid);
		r = dctl_user_process(ctx, pid, &what);
		if (r < 0)
			return say(rt, r, "cannot read /proc/%d/stat: %s", pid, strerror(-r));
		if (!r)
			return say(rt, strstr(what, "kernel thread") ? -EINVAL : -ESRCH,
				   "process %d %s", pid, what);
	}
	return 0;
}

/* Whether target @t is to leave: named by @rt, or (DROP_EXITED) its process is gone. */
static bool leaving(struct damonctl_ctx *ctx, const struct damonctl_target *t,
		    const struct damonctl_retarget *rt)
{
	int pid = (int)damonctl_target_get_int(t, DAMONCTL_TARGET_PID);
	unsigned int i;

	for (i = 0; i < rt->nr_remove; i++)
		if (rt->remove[i] == pid)
			return true;
	return (rt->flags & DAMONCTL_RETARGET_DROP_EXITED) && damonctl_proc_alive(ctx, pid) != 1;
}

static bool obsolete(const struct damonctl_target *t)
{
	return damonctl_target_has(t, DAMONCTL_TARGET_OBSOLETE) &&
	       damonctl_target_get(t, DAMONCTL_TARGET_OBSOLETE);
}

/* No budgets: each target leaving goes by damonctl_context_remove_pid (marked obsolete or
 * removed, filters following), then each process joins last. */
static int retarget_plain(struct damonctl_ctx *ctx, struct damonctl_context *c,
			  const struct damonctl_features *f, const struct damonctl_retarget *rt,
			  unsigned int *how)
{
	int pids[MAX_PIDS], r;
	unsigned int i, n = 0, h;

	for (i = 0; i < damonctl_context_nr_targets(c) && n < MAX_PIDS; i++) {
		const struct damonctl_target *t = damonctl_context_target(c, i);

		if (!obsolete(t) && leaving(ctx, t, rt))
			pids[n++] = (int)damonctl_target_get_int(t, DAMONCTL_TARGET_PID);
	}
	for (i = 0; i < n; i++) {
		r = damonctl_context_remove_pid(ctx, c, f, pids[i], &h);
		if (r == -EBUSY)
			return say(rt, r, "scheme %d has a target filter for process %d (target "
				   "%d); change that scheme's filters first",
				   damonctl_context_target_filter_scheme(c, (unsigned int)
						damonctl_context_find_pid(c, pids[i])),
				   pids[i], damonctl_context_find_pid(c, pids[i]));
		if (r)
			return say(rt, r, "process %d's target: %s", pids[i], strerror(-r));
		*how |= h;
	}
	for (i = 0; i < rt->nr_add; i++) {
		r = damonctl_context_add_pid(ctx, c, rt->add[i]);
		if (r < 0)
			return say(rt, r, "process %d: %s", rt->add[i], strerror(-r));
	}
	return 0;
}

/* @to's entries made @from's (0 or -ENOMEM, @to then as it was or emptied). */
static int copy_plan(struct damonctl_fallbacks *to, const struct damonctl_fallbacks *from)
{
	struct damonctl_fallback fb = { .sz = sizeof(fb) };
	unsigned int i;
	int r = 0;

	while (damonctl_fallbacks_count(to))
		damonctl_fallbacks_remove(to, 0);
	for (i = 0; !r && i < damonctl_fallbacks_count(from); i++) {
		r = damonctl_fallbacks_get(from, i, &fb);
		if (!r)
			r = damonctl_fallbacks_add(to, &fb);
	}
	return r;
}

/* Budgets: the targets that stay, in order, then the new ones, each budget following its
 * target (a new one gets a gone one's, or copies of the first's schemes); on @w, a copy of
 * the plan. */
static int retarget_budgets(struct damonctl_ctx *ctx, struct damonctl_context *c,
			    const struct damonctl_features *f, const struct damonctl_retarget *rt,
			    struct damonctl_fallbacks *w, unsigned int *how)
{
	unsigned int old[MAX_PIDS], i = 0, n = 0, k;
	int r;

	for (k = 0; i < damonctl_context_nr_targets(c); k++) {
		const struct damonctl_target *t = damonctl_context_target(c, i);

		if (obsolete(t) || leaving(ctx, t, rt)) {
			damonctl_context_remove_target(c, i);
			*how |= i < damonctl_context_nr_targets(c) ? DAMONCTL_TARGETS_MOVED : 0;
			continue;
		}
		if (n == MAX_PIDS)
			return say(rt, -ENOSPC, "more than %d targets", MAX_PIDS);
		old[n++] = k;
		i++;
	}
	/* the first new process takes a gone target's budget or copies; each later one too,
	 * every target before it staying where it is */
	r = rt->nr_add ? damonctl_context_add_pid(ctx, c, rt->add[0]) : 0;
	if (r >= 0)
		r = damonctl_fallbacks_retarget(w, c, f, old, n,
						rt->nr_add ? (unsigned int)r : UINT32_MAX,
						rt->nowhere);
	for (i = 1; !r && i < rt->nr_add; i++) {
		for (k = 0; k < MAX_PIDS; k++)
			old[k] = k;
		n = damonctl_context_nr_targets(c);
		r = damonctl_context_add_pid(ctx, c, rt->add[i]);
		if (r >= 0)
			r = damonctl_fallbacks_retarget(w, c, f, old, n, (unsigned int)r,
							rt->nowhere);
	}
	if (r == -EOPNOTSUPP)
		return say(rt, r, "collapsing for several processes from user space needs target "
			   "filters (Linux 6.6)");
	if (r)
		return say(rt, r, "%s", r == -ENOSPC ? "too many schemes for another budget" :
			   strerror(-r));
	return 0;
}

/* The retarget on @c, the plan's budgets (if any) on @w; then the targets checked again. */
static int retarget(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
		    const struct damonctl_features *f, const struct damonctl_retarget *rt,
		    struct damonctl_fallbacks *w, unsigned int *how)
{
	struct damonctl_context *c = damonctl_kdamond_context(k, 0);
	unsigned int i;
	int r;

	for (i = 0; i < rt->nr_remove; i++)
		if (damonctl_context_find_pid(c, rt->remove[i]) < 0)
			return say(rt, -ENOENT, "process %d is not a target of kdamond %u",
				   rt->remove[i], damonctl_kdamond_index(k));
	r = check_adds(ctx, c, rt);
	if (!r)
		r = w ? retarget_budgets(ctx, c, f, rt, w, how) : retarget_plain(ctx, c, f, rt, how);
	if (r)
		return r;
	if (!damonctl_context_nr_live_targets(c))
		return say(rt, -ENOENT, "kdamond %u would have no target left",
			   damonctl_kdamond_index(k));
	/* the targets that stay, as a commit will find them (one exited meanwhile) */
	return damonctl_kdamond_check_system(ctx, k, rt->why, rt->why_size);
}

DAMONCTL_API int damonctl_kdamond_retarget(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
					   const struct damonctl_features *f,
					   const struct damonctl_retarget *rt, unsigned int *how)
{
	struct damonctl_fallbacks *w = NULL;
	struct damonctl_context *c;
	const char *ops;
	unsigned int h = 0;
	int r;

	if (!ctx || !k || !f || !rt || rt->sz < DCTL_SZ_TO(struct damonctl_retarget, why_size) ||
	    (rt->nr_add && !rt->add) || (rt->nr_remove && !rt->remove) ||
	    rt->nr_add > MAX_PIDS || rt->nr_remove > MAX_PIDS)
		return -EINVAL;
	c = damonctl_kdamond_nr_contexts(k) ? damonctl_kdamond_context(k, 0) : NULL;
	if (!c)
		return say(rt, -EINVAL, "kdamond %u has no context", damonctl_kdamond_index(k));
	ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);
	if (strcmp(ops, "vaddr") && strcmp(ops, "fvaddr"))
		return say(rt, -EOPNOTSUPP, "kdamond %u monitors physical memory (%s), not "
			   "processes", damonctl_kdamond_index(k), ops);
	/* the plan changes with the kdamond, or not at all: its budgets on a copy */
	if (has_budgets(rt->fbs)) {
		r = damonctl_fallbacks_new(&w);
		if (!r)
			r = copy_plan(w, rt->fbs);
		if (r) {
			damonctl_fallbacks_free(w);
			return r;
		}
	}
	r = retarget(ctx, k, f, rt, w, &h);
	if (!r && w)
		r = copy_plan(rt->fbs, w);
	damonctl_fallbacks_free(w);
	if (!r && how)
		*how = h;
	return r;
}
