// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transactions: make the kernel run a model, or leave the tree as it was.
 *
 * Every program that drives DAMON needs the same three things and the same undo: start
 * kdamonds from a model (stage, `on`, and on any failure turn off what started and put the
 * tree back), commit changes to a running kdamond (stage the differences, pick
 * commit_schemes_quota_goals when only goals changed, check the targets before `commit`,
 * and on any failure stage the old values again so that a later commit does not apply half
 * of this one), and the target filters that keep one scheme to one process. They live here
 * once, so no caller can forget the undo.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

struct diff_kind {
	bool any, goals_only, targets;
};

static int classify(void *data, const char *path, const char *old, const char *new)
{
	struct diff_kind *d = data;

	(void)old;
	(void)new;
	d->any = true;
	if (!strstr(path, "/quotas/goals/"))
		d->goals_only = false;
	if (strstr(path, "/targets/"))
		d->targets = true;
	return 0;
}

DAMONCTL_API int damonctl_kdamond_commit_plan(struct damonctl_ctx *ctx,
					      const struct damonctl_kdamond *want,
					      const struct damonctl_kdamond *have,
					      unsigned int flags, struct damonctl_plan **plan,
					      enum damonctl_commit_how *how)
{
	struct diff_kind d = { .goals_only = true };
	bool running = !strcmp(damonctl_kdamond_get_str(have, DAMONCTL_KDAMOND_STATE), "on");
	int r;

	if (damonctl_kdamond_index(want) != damonctl_kdamond_index(have))
		return -EINVAL;
	damonctl_kdamond_diff(have, want, 0, classify, &d);
	r = damonctl_kdamond_plan(ctx, want, have, plan);
	if (r)
		return r;
	if (!d.any)
		*how = DAMONCTL_COMMIT_NOTHING;
	else if (!running)
		*how = DAMONCTL_COMMIT_STAGED;
	else if (d.goals_only && !(flags & DAMONCTL_COMMIT_F_FULL))
		*how = DAMONCTL_COMMIT_GOALS;
	else
		*how = DAMONCTL_COMMIT_ALL;
	return 0;
}

/* Put the staged files of kdamond @have's index back to @have's values; 0 or -errno. */
static int restage(struct damonctl_ctx *ctx, const struct damonctl_kdamond *have)
{
	struct damonctl_kdamond *now;
	struct dctl_kept_error k;
	int r;

	dctl_keep_error(ctx, &k);
	r = damonctl_kdamond_read(ctx, damonctl_kdamond_index(have), &now);
	if (!r) {
		r = damonctl_kdamond_stage(ctx, have, now);
		damonctl_kdamond_free(now);
	}
	dctl_put_back_error(ctx, &k);
	return r;
}

/* Every target of @want reads back its pid, and (vaddr, fvaddr) runs: a commit with a pid
 * the kernel cannot find, or with a target still at pid 0 (nr_targets recreates them), is
 * refused by 7.3 and stopped the kdamond on 6.1 and 6.12 (seen under qemu). */
static int verify_targets(struct damonctl_ctx *ctx, const struct damonctl_kdamond *want)
{
	struct damonctl_context *c;
	struct damonctl_target *t;
	unsigned int ci, ti;

	damonctl_for_each_context(want, c, ci) {
		const char *ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);
		bool procs = ops && (!strcmp(ops, "vaddr") || !strcmp(ops, "fvaddr"));

		damonctl_for_each_target(c, t, ti) {
			char rel[128], val[32];
			int64_t pid = damonctl_target_get_int(t, DAMONCTL_TARGET_PID), got;
			int r;

			snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/%u/targets/%u/pid_target",
				 damonctl_kdamond_index(want), ci, ti);
			r = damonctl_read(ctx, rel, val, sizeof(val));
			if (r)
				return r;
			if (dctl_kstrtos64(val, &got) || got != pid) {
				dctl_set_error(ctx, -ESTALE, false, rel, val);
				return -ESTALE;
			}
			if (procs && damonctl_proc_alive(ctx, (int)pid) == 0) {
				dctl_set_error(ctx, -ESRCH, false, rel, val);
				return -ESRCH;
			}
		}
	}
	return 0;
}

static bool has_obsolete(const struct damonctl_kdamond *k)
{
	unsigned int c;

	for (c = 0; c < damonctl_kdamond_nr_contexts(k); c++) {
		const struct damonctl_context *ctxt = damonctl_kdamond_context(k, c);

		if (damonctl_context_nr_live_targets(ctxt) != damonctl_context_nr_targets(ctxt))
			return true;
	}
	return false;
}

/* After a commit that dropped @want's targets marked obsolete: the files without them too,
 * as the kernel now runs it. */
static int stage_without_obsolete(struct damonctl_ctx *ctx, const struct damonctl_kdamond *want)
{
	struct damonctl_kdamond *k = damonctl_kdamond_dup(want), *now = NULL;
	unsigned int c;
	int r;

	if (!k)
		return -ENOMEM;
	for (c = 0; c < damonctl_kdamond_nr_contexts(k); c++)
		damonctl_context_drop_obsolete(damonctl_kdamond_context(k, c));
	r = damonctl_kdamond_read(ctx, damonctl_kdamond_index(want), &now);
	if (!r)
		r = damonctl_kdamond_stage(ctx, k, now);
	damonctl_kdamond_free(now);
	damonctl_kdamond_free(k);
	return r;
}

DAMONCTL_API int damonctl_kdamond_commit(struct damonctl_ctx *ctx,
					 const struct damonctl_kdamond *want,
					 const struct damonctl_kdamond *have, unsigned int flags,
					 enum damonctl_commit_how *how)
{
	struct damonctl_plan *plan;
	enum damonctl_commit_how h;
	enum damonctl_cmd cmd;
	unsigned int k = damonctl_kdamond_index(want);
	struct dctl_txn txn;
	int r = damonctl_kdamond_commit_plan(ctx, want, have, flags, &plan, &h);

	if (r)
		return r;
	cmd = h == DAMONCTL_COMMIT_GOALS ? DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS :
	      DAMONCTL_CMD_COMMIT;
	if (h == DAMONCTL_COMMIT_NOTHING || ctx->staging) {
		damonctl_plan_free(plan);
		/* staging: the kdamond's new configuration goes into the model, the targets
		 * checked as a commit would */
		if (h != DAMONCTL_COMMIT_NOTHING) {
			r = h == DAMONCTL_COMMIT_ALL ? damonctl_kdamond_check_system(ctx, want,
										NULL, 0) : 0;
			if (!r)
				r = dctl_staged_kdamond_stage(ctx, want);
			if (r)
				return r;
		}
		if (how)
			*how = h;
		return h == DAMONCTL_COMMIT_ALL && has_obsolete(want) ?
		       stage_without_obsolete(ctx, want) : 0;
	}
	r = dctl_txn_begin_commit(&txn, ctx, have, h == DAMONCTL_COMMIT_STAGED ? "" :
				  damonctl_cmd_name(cmd));
	if (r) {
		damonctl_plan_free(plan);
		return r;
	}
	r = damonctl_plan_apply(ctx, plan);
	damonctl_plan_free(plan);
	if (!r && h == DAMONCTL_COMMIT_ALL)
		r = verify_targets(ctx, want);
	if (!r && (h == DAMONCTL_COMMIT_ALL || h == DAMONCTL_COMMIT_GOALS)) {
		dctl_txn_event(&txn, DAMONCTL_TXN_APPLY);
		r = damonctl_kdamond_cmd(ctx, k, cmd);
	}
	if (r) {
		dctl_txn_event(&txn, DAMONCTL_TXN_UNDO);
		dctl_txn_end(&txn, !restage(ctx, have));
		return r;
	}
	dctl_txn_end(&txn, true);
	if (how)
		*how = h;
	return h == DAMONCTL_COMMIT_ALL && has_obsolete(want) ? stage_without_obsolete(ctx, want) :
	       0;
}

DAMONCTL_API int damonctl_tree_start(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
				     const struct damonctl_tree *have, const unsigned int *idx,
				     unsigned int nr)
{
	unsigned int i, j;
	struct dctl_kept_error k;
	struct dctl_txn txn;
	bool clean = true;
	int r;

	if (ctx->staging)
		return dctl_staged_tree_start(ctx, want, idx, nr);
	r = dctl_txn_begin_start(&txn, ctx, have, idx, nr);

	if (r)
		return r;
	r = damonctl_tree_stage(ctx, want, have);
	if (!r)
		dctl_txn_event(&txn, DAMONCTL_TXN_APPLY);
	for (i = 0; i < nr && !r; i++)
		r = damonctl_kdamond_cmd(ctx, idx[i], DAMONCTL_CMD_ON);
	if (!r) {
		dctl_txn_end(&txn, true);
		return 0;
	}
	dctl_txn_event(&txn, DAMONCTL_TXN_UNDO);
	dctl_keep_error(ctx, &k);
	/* turn off what this call started (the i-th failed), then the tree as it was */
	for (j = 0; j + 1 < i; j++) {
		int off = damonctl_kdamond_cmd(ctx, idx[j], DAMONCTL_CMD_OFF);

		clean &= !off || off == -EPERM;
	}
	clean &= !damonctl_tree_restore(ctx, have);
	dctl_txn_end(&txn, clean);
	dctl_put_back_error(ctx, &k);
	return r;
}

/* ---- filters that keep a scheme to part of its kdamond's memory ---- */

/* where addr and target filters go on this kernel */
static enum damonctl_filter_dir core_dir(const struct damonctl_features *f)
{
	return damonctl_filter_dir_for("addr", f);
}

static bool is_grant(const struct damonctl_filter *flt);

/* An `addr` allow filter for [start, end), appended. */
static int add_allow(struct damonctl_scheme *s, enum damonctl_filter_dir dir, uint64_t start,
		     uint64_t end)
{
	struct damonctl_filter *flt = damonctl_scheme_add_filter(s, dir);

	if (!flt)
		return -ENOMEM;
	damonctl_filter_set_str(flt, DAMONCTL_FILTER_TYPE, "addr");
	damonctl_filter_set(flt, DAMONCTL_FILTER_MATCHING, 1);
	damonctl_filter_set(flt, DAMONCTL_FILTER_ALLOW, 1);
	damonctl_filter_set(flt, DAMONCTL_FILTER_ADDR_START, start);
	damonctl_filter_set(flt, DAMONCTL_FILTER_ADDR_END, end);
	return 0;
}

DAMONCTL_API int damonctl_scheme_keep_target(struct damonctl_scheme *s,
					     const struct damonctl_features *f,
					     unsigned int target)
{
	enum damonctl_filter_dir dir = core_dir(f);
	struct damonctl_filter *flt;
	uint64_t starts[64], ends[64];
	unsigned int i, nr_grants = 0;

	if (damonctl_features_has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET) == DAMONCTL_NO)
		return -EOPNOTSUPP;
	damonctl_for_each_filter(s, dir, flt, i) {
		if (!strcmp(damonctl_filter_get_str(flt, DAMONCTL_FILTER_TYPE), "target") &&
		    !damonctl_filter_get(flt, DAMONCTL_FILTER_MATCHING))
			return damonctl_filter_set(flt, DAMONCTL_FILTER_TARGET_IDX, target);
	}
	/* it goes before the allow filters of damonctl_scheme_allow_ranges(): first match
	 * decides, and another process's memory in an allowed range must stay out */
	while (damonctl_scheme_nr_filters(s, dir) && nr_grants < 64) {
		unsigned int last = damonctl_scheme_nr_filters(s, dir) - 1;

		flt = damonctl_scheme_filter(s, dir, last);
		if (!is_grant(flt))
			break;
		starts[nr_grants] = damonctl_filter_get(flt, DAMONCTL_FILTER_ADDR_START);
		ends[nr_grants++] = damonctl_filter_get(flt, DAMONCTL_FILTER_ADDR_END);
		damonctl_scheme_remove_filter(s, dir, last);
	}
	flt = damonctl_scheme_add_filter(s, dir);
	if (!flt)
		return -ENOMEM;
	/* reject what is not @target: "matching N" means the same before and after 6.14's
	 * allow file */
	damonctl_filter_set_str(flt, DAMONCTL_FILTER_TYPE, "target");
	damonctl_filter_set(flt, DAMONCTL_FILTER_MATCHING, 0);
	damonctl_filter_set(flt, DAMONCTL_FILTER_TARGET_IDX, target);
	while (nr_grants--)
		if (add_allow(s, dir, starts[nr_grants], ends[nr_grants]))
			return -ENOMEM;
	return 0;
}

static bool is_grant(const struct damonctl_filter *flt)
{
	return !strcmp(damonctl_filter_get_str(flt, DAMONCTL_FILTER_TYPE), "addr") &&
	       damonctl_filter_get(flt, DAMONCTL_FILTER_MATCHING) &&
	       damonctl_filter_get(flt, DAMONCTL_FILTER_ALLOW);
}

DAMONCTL_API int damonctl_scheme_allow_ranges(struct damonctl_scheme *s,
					      const struct damonctl_features *f,
					      const uint64_t *starts, const uint64_t *ends,
					      unsigned int nr)
{
	enum damonctl_filter_dir dir = core_dir(f);
	unsigned int i;

	if (damonctl_features_has(f, DAMONCTL_FEAT_FILTER_ALLOW) != DAMONCTL_YES ||
	    damonctl_features_has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET) != DAMONCTL_YES)
		return -EOPNOTSUPP;
	/* the allow filters are the last ones: drop them, keep what comes before */
	while (damonctl_scheme_nr_filters(s, dir) &&
	       is_grant(damonctl_scheme_filter(s, dir, damonctl_scheme_nr_filters(s, dir) - 1)))
		damonctl_scheme_remove_filter(s, dir, damonctl_scheme_nr_filters(s, dir) - 1);
	/* none: an empty range, which matches nothing; after an allow filter what matches no
	 * filter is rejected, so the scheme acts on nothing */
	for (i = 0; i < (nr ? nr : 1); i++)
		if (add_allow(s, dir, nr ? starts[i] : 0, nr ? ends[i] : 0))
			return -ENOMEM;
	return 0;
}
