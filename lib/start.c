// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damonctl_start(): the start transaction, from the tree as it is to kdamonds running.
 *
 * Every program that starts kdamonds goes the same way, so it is written once: the tree
 * read and what it shows of the features; the kdamonds placed (over the caller's stopped
 * ones first, else added) and built; checked for what the kernel would refuse and for what
 * this machine lacks (processes, cgroups); a start refused while a kdamond runs, which the
 * kernel cannot add one beside; what no directory shows probed on a temporary kdamond, and
 * the kdamonds built again with what it found; the user-space fallbacks planned; the writes
 * planned; then staged and turned on, or, on any failure, the tree put back as it was.
 *
 * A dry run goes the same way and stops before the start's own writes: its outcome is the
 * start's, and its list of writes (the probe's, which it makes and undoes, then the plan's
 * and the `on`s) is the one the start makes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_START 16	/* kdamonds in one start */

struct damonctl_start {
	struct damonctl_ctx *ctx;
	struct damonctl_start_opts o;
	enum damonctl_start_outcome outcome;
	char why[1024];
	int busy;				/* a running kdamond, or -1 */
	struct damonctl_tree *have, *want;	/* as read, and as it is to be */
	struct damonctl_features *f;
	struct damonctl_fallbacks *fbs[MAX_START];
	unsigned int idx[MAX_START], nr;
	bool adds, probed;
	struct dctl_writes writes;
};

DAMONCTL_API int damonctl_start_new(struct damonctl_ctx *ctx,
				    const struct damonctl_start_opts *opts,
				    struct damonctl_start **out)
{
	struct damonctl_start *st;
	size_t i;

	if (!ctx || !opts || !out || opts->sz < DCTL_SZ_TO(struct damonctl_start_opts, flags))
		return -EINVAL;
	for (i = sizeof(st->o); i < opts->sz; i++)
		if (((const char *)opts)[i])
			return -EINVAL;	/* a newer caller's option we do not know */
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	memcpy(&st->o, opts, opts->sz < sizeof(st->o) ? opts->sz : sizeof(st->o));
	st->o.sz = sizeof(st->o);
	st->ctx = ctx;
	st->busy = -1;
	st->nr = st->o.kdamonds ? damonctl_tree_nr_kdamonds(st->o.kdamonds) : st->o.nr_kdamonds;
	if (!st->nr || st->nr > MAX_START || (st->o.nr_reuse && !st->o.reuse)) {
		free(st);
		return -EINVAL;
	}
	*out = st;
	return 0;
}

static void free_fallbacks(struct damonctl_start *st)
{
	unsigned int i;

	for (i = 0; i < MAX_START; i++) {
		damonctl_fallbacks_free(st->fbs[i]);
		st->fbs[i] = NULL;
	}
}

DAMONCTL_API void damonctl_start_free(struct damonctl_start *st)
{
	if (!st)
		return;
	free_fallbacks(st);
	damonctl_tree_free(st->want);
	damonctl_tree_free(st->have);
	damonctl_features_free(st->f);
	dctl_writes_clear(&st->writes);
	free(st);
}

/* Ends the transaction as @outcome with @r (and the sentence already in st->why). */
static int end(struct damonctl_start *st, enum damonctl_start_outcome outcome, int r)
{
	st->outcome = outcome;
	return r;
}

static int refuse(struct damonctl_start *st, enum damonctl_start_outcome outcome, int r,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int refuse(struct damonctl_start *st, enum damonctl_start_outcome outcome, int r,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->why, sizeof(st->why), fmt, ap);
	va_end(ap);
	return end(st, outcome, r);
}

/* The tree, its features, and whether a kdamond runs. */
static int read_tree(struct damonctl_start *st)
{
	struct damonctl_kdamond *k;
	unsigned int i;
	int r = damonctl_tree_read_flags(st->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &st->have);

	if (!r)
		r = damonctl_features_from_tree(st->ctx, st->have, &st->f);
	if (r)
		return end(st, DAMONCTL_START_FAILED, r);
	/* an earlier probe's answers, where the tree tells nothing (a malformed one is none) */
	if (st->o.sz >= DCTL_SZ_TO(struct damonctl_start_opts, known_features) &&
	    st->o.known_features)
		damonctl_features_learn(st->f, st->o.known_features);
	damonctl_for_each_kdamond(st->have, k, i) {
		if (!strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on")) {
			st->busy = (int)i;
			break;
		}
	}
	return 0;
}

/* Whether kdamond @i of the tree as read is there and stopped: one to stage over. */
static bool reusable(const struct damonctl_start *st, unsigned int i)
{
	const struct damonctl_kdamond *k = i < damonctl_tree_nr_kdamonds(st->have) ?
					   damonctl_tree_kdamond(st->have, i) : NULL;

	return k && strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on");
}

/* The @i-th kdamond of the start at index @at of want (@at past the end: added), a copy of
 * the caller's configuration or a fresh one. */
static struct damonctl_kdamond *place(struct damonctl_start *st, unsigned int i, unsigned int at)
{
	const struct damonctl_kdamond *src = st->o.kdamonds ?
					     damonctl_tree_kdamond(st->o.kdamonds, i) : NULL;
	struct dlist *l = &DOBJ(st->want)->lists[L_TREE_KDAMONDS];
	struct dobj *k;

	if (at >= l->nr)
		return src ? damonctl_tree_add_kdamond_copy(st->want, src) :
		       damonctl_tree_add_kdamond(st->want);
	if (!src)
		return damonctl_tree_replace_kdamond(st->want, at);
	k = dobj_dup(CDOBJ(src), DOBJ(st->want));
	if (!k)
		return NULL;
	k->index = at;
	dobj_free(l->items[at]);
	l->items[at] = k;
	return (struct damonctl_kdamond *)k;
}

/* want: a copy of the tree with the start's kdamonds placed and built. */
static int build(struct damonctl_start *st)
{
	unsigned int i, from = 0, taken[MAX_START], nr_taken = 0;
	int r;

	damonctl_tree_free(st->want);
	st->want = damonctl_tree_dup(st->have);
	if (!st->want)
		return end(st, DAMONCTL_START_FAILED, -ENOMEM);
	for (i = 0; i < st->nr; i++) {
		struct damonctl_kdamond *k;
		int at = -1;

		/* the caller's stopped kdamonds first, each once */
		while (at < 0 && from < st->o.nr_reuse) {
			unsigned int c = st->o.reuse[from++], j;
			bool dup = false;

			for (j = 0; j < nr_taken; j++)
				dup |= taken[j] == c;
			if (!dup && reusable(st, c))
				at = (int)c;
		}
		if (at >= 0)
			taken[nr_taken++] = (unsigned int)at;
		k = place(st, i, at >= 0 ? (unsigned int)at : UINT32_MAX);
		if (!k)
			return end(st, DAMONCTL_START_FAILED, -ENOMEM);
		st->idx[i] = damonctl_kdamond_index(k);
		r = st->o.build ? st->o.build(st->o.data, k, i, st->f) : 0;
		if (r)
			return end(st, DAMONCTL_START_FAILED, r);
	}
	st->adds = damonctl_tree_nr_kdamonds(st->want) > damonctl_tree_nr_kdamonds(st->have);
	return 0;
}

/* What the kernel would refuse whatever its features, and what this machine lacks. */
static int check_input(struct damonctl_start *st)
{
	unsigned int i;
	int r;

	for (i = 0; i < st->nr; i++) {
		struct damonctl_kdamond *k = damonctl_tree_kdamond(st->want, st->idx[i]);

		r = damonctl_kdamond_check(k, NULL, st->why, sizeof(st->why));
		if (!r)
			r = damonctl_kdamond_check_system(st->ctx, k, st->why, sizeof(st->why));
		if (r)
			return end(st, DAMONCTL_START_BAD_INPUT, r);
	}
	return 0;
}

/* The fallbacks of each kdamond (what the kernel cannot do that a program can), then the
 * kdamonds against this kernel's features. */
static int plan_fallbacks(struct damonctl_start *st)
{
	bool scope_pid = st->o.flags & DAMONCTL_START_SCOPE_PID;
	unsigned int i;
	int r = 0;

	free_fallbacks(st);
	for (i = 0; i < st->nr && !r; i++) {
		struct damonctl_kdamond *k = damonctl_tree_kdamond(st->want, st->idx[i]);

		if (!(st->o.flags & DAMONCTL_START_NO_FALLBACK)) {
			r = damonctl_fallbacks_new(&st->fbs[i]);
			if (r)
				return end(st, DAMONCTL_START_FAILED, r);
			r = damonctl_fallback_plan(st->ctx, k, st->f, scope_pid, st->fbs[i],
						   st->why, sizeof(st->why));
			if (!r && st->nr > 1 && damonctl_fallbacks_count(st->fbs[i]))
				r = refuse(st, DAMONCTL_START_BAD_INPUT, -EINVAL, "kdamond %u needs "
					   "user-space fallbacks, which are served for one kdamond "
					   "a start; split the configuration", st->idx[i]);
			if (!r)
				r = damonctl_fallbacks_check_one_scheme(st->fbs[i], st->why,
									sizeof(st->why));
			if (!r && !damonctl_fallbacks_count(st->fbs[i])) {
				damonctl_fallbacks_free(st->fbs[i]);
				st->fbs[i] = NULL;
			}
		}
		if (!r)
			r = damonctl_kdamond_check(k, st->f, st->why, sizeof(st->why));
	}
	if (r)
		return end(st, r == -EOPNOTSUPP ? DAMONCTL_START_UNSUPPORTED :
			   DAMONCTL_START_BAD_INPUT, r);
	return 0;
}

static bool uses_unknown(const struct damonctl_start *st)
{
	unsigned int i;
	bool unknown = false;

	for (i = 0; i < st->nr; i++)
		unknown |= damonctl_kdamond_uses_unknown(damonctl_tree_kdamond(st->want,
									       st->idx[i]), st->f);
	return unknown;
}

/* What the kdamonds need and no directory shows, probed on a temporary kdamond (which the
 * probe removes again), its writes listed; then the kdamonds built and checked again. */
static int probe(struct damonctl_start *st)
{
	struct dctl_writes *saved = st->ctx->wrec;
	int r;

	st->writes.flags = DAMONCTL_WRITE_PROBE;
	st->ctx->wrec = &st->writes;
	r = damonctl_features_probe_fresh(st->ctx, st->f);
	st->ctx->wrec = saved;
	st->writes.flags = 0;
	st->probed = true;
	if (r == -EBUSY)	/* a kdamond was turned on meanwhile */
		return refuse(st, DAMONCTL_START_BUSY, r, "a kdamond was started meanwhile");
	if (r)
		return end(st, DAMONCTL_START_FAILED, r);
	r = build(st);
	return r ? r : check_input(st);
}

/* A dry run's writes: the plan's, then each kdamond's `on`, after the probe's. */
static int list_planned(struct damonctl_start *st)
{
	struct damonctl_plan *plan;
	const char *path, *value;
	char rel[64];
	unsigned int i;
	size_t w;
	int r = damonctl_tree_plan(st->ctx, st->want, st->have, &plan);

	if (r)
		return end(st, DAMONCTL_START_FAILED, r);
	for (w = 0; !r && w < damonctl_plan_nr_writes(plan); w++) {
		damonctl_plan_write(plan, w, &path, &value);
		r = dctl_writes_add(&st->writes, path, value, 0);
	}
	damonctl_plan_free(plan);
	for (i = 0; !r && i < st->nr; i++) {
		snprintf(rel, sizeof(rel), "kdamonds/%u/state", st->idx[i]);
		r = dctl_writes_add(&st->writes, rel, "on", 0);
	}
	return r ? end(st, DAMONCTL_START_FAILED, r) : end(st, DAMONCTL_START_PLANNED, 0);
}

/* Everything before the start's own writes (a probe's aside). */
static int prepare(struct damonctl_start *st)
{
	const char *holder, *module;
	bool unknown;
	int r = read_tree(st);

	if (!r)
		r = build(st);
	if (!r)
		r = check_input(st);
	if (r)
		return r;
	/* what is missing for sure is said before a busy kernel is */
	unknown = uses_unknown(st);
	if (!unknown) {
		r = plan_fallbacks(st);
		if (r)
			return r;
	}
	if (st->busy >= 0)
		return refuse(st, DAMONCTL_START_BUSY, -EBUSY, "kdamond %d is running, and the "
			      "kernel cannot add a kdamond while any runs", st->busy);
	/* the kernel would refuse 'on' (and a probe's kdamond) while a module holds DAMON */
	holder = dctl_exclusive_holder(st->ctx, &module);
	if (holder)
		return refuse(st, DAMONCTL_START_BUSY, -EBUSY, "%s holds DAMON exclusively; "
			      "disable it first (echo N > /sys/module/%s/parameters/enabled)",
			      holder, module);
	if (!unknown)
		return 0;
	/* a staging context cannot write: it plans with what the kernel showed */
	r = st->ctx->staging ? 0 : probe(st);
	return r ? r : plan_fallbacks(st);
}

DAMONCTL_API int damonctl_start(struct damonctl_start *st)
{
	struct dctl_writes *saved;
	int r;

	if (!st || st->outcome != DAMONCTL_START_NOT_RUN)
		return -EINVAL;
	r = prepare(st);
	if (r)
		return r;
	if (st->o.flags & DAMONCTL_START_DRY_RUN)
		return list_planned(st);
	r = st->o.ready ? st->o.ready(st->o.data, st) : 0;
	if (r)
		return end(st, DAMONCTL_START_FAILED, r);
	saved = st->ctx->wrec;
	st->ctx->wrec = &st->writes;
	/* stages, turns on, and on any failure puts the tree back as it was */
	r = damonctl_tree_start(st->ctx, st->want, st->have, st->idx, st->nr);
	st->ctx->wrec = saved;
	return end(st, r ? DAMONCTL_START_FAILED : DAMONCTL_START_STARTED, r);
}

DAMONCTL_API enum damonctl_start_outcome damonctl_start_outcome(const struct damonctl_start *st)
{
	return st->outcome;
}

DAMONCTL_API const char *damonctl_start_why(const struct damonctl_start *st)
{
	return st->why;
}

DAMONCTL_API int damonctl_start_busy_kdamond(const struct damonctl_start *st)
{
	return st->busy;
}

DAMONCTL_API unsigned int damonctl_start_nr_kdamonds(const struct damonctl_start *st)
{
	return st->nr;
}

DAMONCTL_API unsigned int damonctl_start_kdamond(const struct damonctl_start *st,
						 unsigned int i)
{
	return i < st->nr ? st->idx[i] : UINT32_MAX;
}

DAMONCTL_API bool damonctl_start_adds(const struct damonctl_start *st)
{
	return st->adds;
}

DAMONCTL_API const struct damonctl_tree *damonctl_start_tree(const struct damonctl_start *st,
							     bool after)
{
	return after ? st->want : st->have;
}

DAMONCTL_API const struct damonctl_features *
damonctl_start_features(const struct damonctl_start *st)
{
	return st->f;
}

DAMONCTL_API const struct damonctl_fallbacks *
damonctl_start_fallbacks(const struct damonctl_start *st, unsigned int i)
{
	return i < st->nr ? st->fbs[i] : NULL;
}

DAMONCTL_API bool damonctl_start_probed(const struct damonctl_start *st)
{
	return st->probed;
}

DAMONCTL_API size_t damonctl_start_nr_writes(const struct damonctl_start *st)
{
	return st->writes.nr;
}

DAMONCTL_API int damonctl_start_write(const struct damonctl_start *st, size_t i,
				      const char **path, const char **value, unsigned int *flags)
{
	if (i >= st->writes.nr)
		return -ENOENT;
	if (path)
		*path = st->writes.w[i].path;
	if (value)
		*value = st->writes.w[i].value;
	if (flags)
		*flags = st->writes.w[i].flags;
	return 0;
}
