// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Processes joining and leaving a running context: the model changes that come before
 * damonctl_kdamond_commit().
 *
 * The kernel pairs the targets it runs with the files' by index, and target filters name
 * targets by index too. So a target that leaves either is marked obsolete (6.19: the commit
 * drops it, and the files are staged without it afterwards, see transaction.c), or is
 * removed and every later target moves down a place, taking over the kernel's target of
 * that index: each then needs its own process's regions written again. Filters that name a
 * later target move down with it; one that names the target leaving has nothing left to
 * keep its scheme to, so that removal is refused.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static const enum damonctl_filter_dir filter_dirs[] = {
	DAMONCTL_FILTERS_LEGACY, DAMONCTL_FILTERS_CORE, DAMONCTL_FILTERS_OPS,
};

/* A target marked obsolete is on its way out: it is nobody's any more. */
static bool is_live(const struct damonctl_target *t)
{
	return !(damonctl_target_has(t, DAMONCTL_TARGET_OBSOLETE) &&
		 damonctl_target_get(t, DAMONCTL_TARGET_OBSOLETE));
}

static bool by_process(const struct damonctl_context *c)
{
	const char *ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);

	return !strcmp(ops, "vaddr") || !strcmp(ops, "fvaddr");
}

DAMONCTL_API int damonctl_context_find_pid(const struct damonctl_context *c, int pid)
{
	unsigned int i;

	for (i = 0; i < damonctl_context_nr_targets(c); i++) {
		const struct damonctl_target *t = damonctl_context_target(c, i);

		if (is_live(t) && damonctl_target_get_int(t, DAMONCTL_TARGET_PID) == pid)
			return (int)i;
	}
	return -ENOENT;
}

DAMONCTL_API unsigned int damonctl_context_nr_live_targets(const struct damonctl_context *c)
{
	unsigned int i, n = 0;

	for (i = 0; i < damonctl_context_nr_targets(c); i++)
		n += is_live(damonctl_context_target(c, i));
	return n;
}

DAMONCTL_API int damonctl_context_target_filter_scheme(const struct damonctl_context *c,
						       unsigned int target)
{
	unsigned int s, d, i;

	for (s = 0; s < damonctl_context_nr_schemes(c); s++) {
		const struct damonctl_scheme *sc = damonctl_context_scheme(c, s);
		struct damonctl_filter *fl;

		for (d = 0; d < sizeof(filter_dirs) / sizeof(filter_dirs[0]); d++)
			damonctl_for_each_filter(sc, filter_dirs[d], fl, i)
				if (!strcmp(damonctl_filter_get_str(fl, DAMONCTL_FILTER_TYPE),
					    "target") &&
				    damonctl_filter_get(fl, DAMONCTL_FILTER_TARGET_IDX) == target)
					return (int)s;
	}
	return -ENOENT;
}

/* Target filters naming targets after @gone: one place down, as their targets move. */
static void renumber_filters(struct damonctl_context *c, unsigned int gone)
{
	unsigned int s, d, i;

	for (s = 0; s < damonctl_context_nr_schemes(c); s++) {
		struct damonctl_scheme *sc = damonctl_context_scheme(c, s);
		struct damonctl_filter *fl;

		for (d = 0; d < sizeof(filter_dirs) / sizeof(filter_dirs[0]); d++)
			damonctl_for_each_filter(sc, filter_dirs[d], fl, i) {
				uint64_t idx = damonctl_filter_get(fl, DAMONCTL_FILTER_TARGET_IDX);

				if (!strcmp(damonctl_filter_get_str(fl, DAMONCTL_FILTER_TYPE),
					    "target") && idx > gone)
					damonctl_filter_set(fl, DAMONCTL_FILTER_TARGET_IDX, idx - 1);
			}
	}
}

DAMONCTL_API int damonctl_context_remove_pid(struct damonctl_ctx *ctx, struct damonctl_context *c,
					     const struct damonctl_features *f, int pid,
					     unsigned int *how)
{
	unsigned int i;
	int at;

	if (how)
		*how = 0;
	if (!by_process(c))
		return -EOPNOTSUPP;
	at = damonctl_context_find_pid(c, pid);
	if (at < 0)
		return at;
	if (damonctl_context_target_filter_scheme(c, (unsigned int)at) >= 0)
		return -EBUSY;
	/* the kernel counts a filter's target among the targets it runs, which the obsolete
	 * one leaves at the commit, as the removed one does */
	renumber_filters(c, (unsigned int)at);
	/* the kernel resolves an obsolete target's pid too: one that exited cannot be marked,
	 * and goes by moving the later ones down */
	if (damonctl_features_has(f, DAMONCTL_FEAT_OBSOLETE_TARGET) == DAMONCTL_YES &&
	    damonctl_proc_alive(ctx, pid) == 1) {
		if (how)
			*how |= DAMONCTL_TARGET_MARKED;
		return damonctl_target_set(damonctl_context_target(c, (unsigned int)at),
					   DAMONCTL_TARGET_OBSOLETE, 1);
	}
	if (damonctl_context_remove_target(c, (unsigned int)at))
		return -EINVAL;
	for (i = (unsigned int)at; i < damonctl_context_nr_targets(c); i++) {
		struct damonctl_target *t = damonctl_context_target(c, i);

		/* it takes over the kernel's target of this index and its regions: its own
		 * process's regions instead (an exited one keeps none, the commit refuses it) */
		damonctl_target_seed_regions(ctx, t,
					     (int)damonctl_target_get_int(t, DAMONCTL_TARGET_PID));
		if (how)
			*how |= DAMONCTL_TARGETS_MOVED;
	}
	return 0;
}

DAMONCTL_API int damonctl_context_add_pid(struct damonctl_ctx *ctx, struct damonctl_context *c,
					  int pid)
{
	struct damonctl_target *t;

	if (!by_process(c))
		return -EOPNOTSUPP;
	if (pid <= 0)
		return -EINVAL;
	if (damonctl_context_find_pid(c, pid) >= 0)
		return -EEXIST;
	if (damonctl_context_nr_targets(c) >= DAMONCTL_MAX_TARGETS)
		return -ENOSPC;		/* a fork bomb under a followed target stops here */
	if (damonctl_proc_alive(ctx, pid) != 1)
		return -ESRCH;
	t = damonctl_context_add_target(c);
	if (!t)
		return -ENOMEM;
	damonctl_target_set_int(t, DAMONCTL_TARGET_PID, pid);
	/* or it is monitored only from the next update interval on (60 s by default) */
	damonctl_target_seed_regions(ctx, t, pid);
	return (int)damonctl_context_nr_targets(c) - 1;
}

DAMONCTL_API int damonctl_context_drop_obsolete(struct damonctl_context *c)
{
	unsigned int i = 0;
	int n = 0;

	while (i < damonctl_context_nr_targets(c)) {
		if (is_live(damonctl_context_target(c, i))) {
			i++;
			continue;
		}
		damonctl_context_remove_target(c, i);
		n++;
	}
	return n;
}
