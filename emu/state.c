// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `state` commands. Two eras of sysfs.c (profile.h): up to 6.14 the commands that touch
 * the running context are served by a kdamond callback, so they need it running (EINVAL
 * otherwise), return success whatever happens, and an error inside (a bad commit) ends
 * the kdamond. From 6.15 they use damon_call()/damos_walk(): EINVAL if never started,
 * ECANCELED once stopped, and their own errors are returned.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "build.h"
#include "emu.h"
#include "results.h"
#include "state.h"
#include "util.h"

struct emu_kd *emu_kd_new(void)
{
	return emu_xcalloc(1, sizeof(struct emu_kd));
}

void emu_kd_free(struct emu_kd *kd)
{
	if (kd->k) {
		if (emu_kdamond_running(kd->k))
			emu_kdamond_stop(kd->k);
		emu_kdamond_free(kd->k);
	}
	free(kd);
}

bool emu_kd_running(struct emu_kd *kd)
{
	return kd->k && emu_kdamond_running(kd->k);
}

pid_t emu_kd_pid(struct emu_kd *kd)
{
	return emu_kd_running(kd) ? emu_kdamond_pid(kd->k) : -1;
}

static struct emu_node *kdamonds_dir(void)
{
	return emu_node_child(emu_root, "kdamonds");
}

static int nr_running(void)
{
	struct emu_node *kds = kdamonds_dir();
	int n = 0;

	for (int i = 0; kds && i < kds->nkids; i++) {
		struct emu_node *kd = kds->kids[i];

		if (emu_node_is_numbered(kd) && emu_kd_running(kd->kd))
			n++;
	}
	return n;
}

bool emu_kd_any_running(void)
{
	return nr_running() > 0;
}

static bool new_era(void)
{
	return emu_since(EMU_V_DAMON_CALL);
}

static void tree_unlock(void)
{
	pthread_mutex_unlock(&emu_tree_lock);
}

static void tree_lock(void)
{
	pthread_mutex_lock(&emu_tree_lock);
}

static int stop(struct emu_kd *kd)
{
	int err;

	tree_unlock();
	err = emu_kdamond_stop(kd->k);
	tree_lock();
	return err;
}

static void set_shape(struct emu_kd *kd, const struct emu_ctx_params *p, int nr_targets)
{
	kd->nr_schemes = p->nr_schemes;
	kd->nr_targets = nr_targets;
	kd->nr_probes = p->nr_probes;
}

static int turn_on(struct emu_node *kdir, struct emu_kd *kd, int nctx)
{
	struct emu_built b;
	struct emu_kdamond *k;
	char name[32];
	int err;

	if (emu_kd_running(kd))
		return -EBUSY;
	if (nctx != 1)
		return -EINVAL;
	/* the old stopped context and its results are dropped now */
	if (kd->k) {
		emu_kdamond_free(kd->k);
		kd->k = NULL;
	}
	err = emu_build_params(emu_node_at(kdir, "contexts/0"), &b);
	if (err)
		return err;
	err = emu_check_start(&b);
	if (err)
		goto out;
	/* kthread_run(..., "kdamond.%d", nr_running_ctxs) */
	snprintf(name, sizeof(name), "kdamond.%d", nr_running());
	tree_unlock();
	err = emu_kdamond_start(b.p, name, &emu_opt.engine, &k);
	tree_lock();
	if (err)
		goto out;
	kd->k = k;
	set_shape(kd, b.p, b.p->nr_targets);
	kd->next_refresh_ns = emu_now_ns() + emu_get_u(kdir, "refresh_ms", 0) * 1000000ull;
out:
	emu_built_free(&b);
	return err;
}

static int turn_off(struct emu_kd *kd)
{
	if (!kd->k)
		return -EINVAL;
	/*
	 * damon_stop() on a stopped context says EPERM; from 7.3 sysfs.c ignores what it
	 * says (real 7.3.4: 0).
	 */
	if (!emu_kd_running(kd))
		return emu_since(EMU_V(7, 3)) ? 0 : -EPERM;
	return stop(kd);
}

/* The common entry checks of commands that work on the running context. */
static int need_running(struct emu_kd *kd)
{
	if (new_era()) {
		if (!kd->k)
			return -EINVAL;
		return emu_kd_running(kd) ? 0 : -ECANCELED;
	}
	return emu_kd_running(kd) ? 0 : -EINVAL;
}

/* Old era: what the write returns once the callback ran, whatever it found. */
static int callback_result(struct emu_kd *kd, int err)
{
	if (err && err != -ECANCELED && emu_kd_running(kd))
		stop(kd);
	return 0;
}

static int commit(struct emu_node *ctx, struct emu_kd *kd)
{
	struct emu_built b;
	int err = need_running(kd);

	if (err)
		return err;
	err = emu_build_params(ctx, &b);
	if (err)
		return new_era() ? err : callback_result(kd, err);
	/*
	 * From 6.15 damon_sysfs_commit_input() first commits to a test context (a copy of the
	 * running one from 6.18): what damon_commit_ctx() refuses is refused there, before
	 * the running context is touched or marked maybe_corrupted, so the kdamond goes on
	 * (real 7.2.13 and 7.3.4). Before 6.15 the error ends it (callback_result()).
	 */
	err = emu_check_commit(&b, kd->nr_targets);
	if (err)
		goto out;
	tree_unlock();
	err = emu_kdamond_commit(kd->k, b.p);
	tree_lock();
	if (!err)
		set_shape(kd, b.p, emu_targets_after_commit(b.p, kd->nr_targets));
out:
	emu_built_free(&b);
	return new_era() ? err : callback_result(kd, err);
}

static int commit_goals(struct emu_node *ctx, struct emu_kd *kd)
{
	struct emu_built b;
	int err = need_running(kd);

	if (err)
		return err;
	err = emu_build_goals(ctx, kd->nr_schemes, &b);
	if (!err) {
		tree_unlock();
		err = emu_kdamond_commit_goals(kd->k, b.p);
		tree_lock();
		emu_built_free(&b);
	}
	return new_era() ? err : callback_result(kd, err);
}

static int update_stats(struct emu_node *ctx, struct emu_kd *kd)
{
	struct emu_scheme_stats *st;
	int n = kd->nr_schemes, err = need_running(kd);

	if (err)
		return err;
	st = emu_xcalloc(n, sizeof(*st));
	tree_unlock();
	err = emu_kdamond_stats(kd->k, n, st);
	tree_lock();
	if (!err)
		emu_results_stats(ctx, n, st);
	free(st);
	return new_era() ? err : 0;
}

static int update_quotas(struct emu_node *ctx, struct emu_kd *kd)
{
	uint64_t *bytes;
	int n = kd->nr_schemes, err = need_running(kd);

	if (err)
		return err;
	bytes = emu_xcalloc(n, sizeof(*bytes));
	tree_unlock();
	err = emu_kdamond_effective_quotas(kd->k, n, bytes);
	tree_lock();
	if (!err)
		emu_results_quotas(ctx, n, bytes);
	free(bytes);
	return new_era() ? err : 0;
}

static int update_intervals(struct emu_node *ctx, struct emu_kd *kd)
{
	uint64_t sample, aggr;
	int err = need_running(kd);

	if (err)
		return err;
	tree_unlock();
	err = emu_kdamond_tuned_intervals(kd->k, &sample, &aggr);
	tree_lock();
	if (!err)
		emu_results_intervals(ctx, sample, aggr);
	return err;
}

static int update_tried(struct emu_node *ctx, struct emu_kd *kd, bool bytes_only)
{
	int n = kd->nr_schemes, err;
	struct emu_tried_region **regions;
	size_t *nr;
	uint64_t *total;

	if (new_era()) {
		/* the directories are cleared before damos_walk() finds the kdamond gone */
		if (!kd->k)
			return -EINVAL;
		emu_results_clear_tried(ctx);
		if (!emu_kd_running(kd))
			return -ECANCELED;
	} else {
		if (!emu_kd_running(kd))
			return -EINVAL;
		emu_results_clear_tried(ctx);
	}
	regions = emu_xcalloc(n, sizeof(*regions));
	nr = emu_xcalloc(n, sizeof(*nr));
	total = emu_xcalloc(n, sizeof(*total));
	/* blocks until every scheme passed an apply interval; damon_sysfs_lock stays held */
	tree_unlock();
	err = emu_kdamond_walk(kd->k, n, regions, nr, total);
	tree_lock();
	if (!err)
		emu_results_tried(ctx, n, regions, nr, total, bytes_only, kd->nr_probes);
	for (int i = 0; i < n; i++)
		free(regions[i]);
	free(regions);
	free(nr);
	free(total);
	return new_era() ? err : 0;
}

static int clear_tried(struct emu_node *ctx, struct emu_kd *kd)
{
	if (!new_era() && !emu_kd_running(kd))
		return -EINVAL;
	emu_results_clear_tried(ctx);
	return 0;
}

int emu_state_store(struct emu_node *kdir, const char *buf)
{
	struct emu_kd *kd = kdir->kd;
	struct emu_node *contexts = emu_node_child(kdir, "contexts");
	struct emu_node *ctx = emu_node_nth(contexts, 0);
	int nctx = emu_node_count_numbered(contexts);
	int cmd = emu_kw_parse(&emu_kw_state_cmds, buf);

	if (cmd < 0)
		return -EINVAL;
	if (new_era() && cmd != EMU_CMD_OFF && nctx != 1)
		return -EINVAL;
	switch (cmd) {
	case EMU_CMD_ON:
		return turn_on(kdir, kd, nctx);
	case EMU_CMD_OFF:
		return turn_off(kd);
	default:
		break;
	}
	/* old era: the callback serves the first context only, and needs it */
	if (!new_era() && emu_kd_running(kd) && nctx != 1)
		return -EINVAL;
	switch (cmd) {
	case EMU_CMD_COMMIT:
		return commit(ctx, kd);
	case EMU_CMD_COMMIT_GOALS:
		return commit_goals(ctx, kd);
	case EMU_CMD_UPDATE_STATS:
		return update_stats(ctx, kd);
	case EMU_CMD_UPDATE_TRIED_BYTES:
		return update_tried(ctx, kd, true);
	case EMU_CMD_UPDATE_TRIED_REGIONS:
		return update_tried(ctx, kd, false);
	case EMU_CMD_CLEAR_TRIED_REGIONS:
		return clear_tried(ctx, kd);
	case EMU_CMD_UPDATE_QUOTAS:
		return update_quotas(ctx, kd);
	case EMU_CMD_UPDATE_INTERVALS:
		return update_intervals(ctx, kd);
	}
	return -EINVAL;
}

void emu_state_stop_all(void)
{
	struct emu_node *kds = kdamonds_dir();

	for (int i = 0; kds && i < kds->nkids; i++) {
		struct emu_kd *kd = kds->kids[i]->kd;

		if (kd && emu_kd_running(kd))
			stop(kd);
	}
}

/* damon_sysfs_repeat_call_fn(): tuned intervals, stats and effective quotas. */
static void refresh_one(struct emu_node *kdir, struct emu_kd *kd)
{
	struct emu_node *ctx = emu_node_at(kdir, "contexts/0");
	int n = kd->nr_schemes;
	struct emu_scheme_stats *st = emu_xcalloc(n, sizeof(*st));
	uint64_t *bytes = emu_xcalloc(n, sizeof(*bytes));
	uint64_t sample, aggr;
	int e1, e2, e3;

	tree_unlock();
	e1 = emu_kdamond_tuned_intervals(kd->k, &sample, &aggr);
	e2 = emu_kdamond_stats(kd->k, n, st);
	e3 = emu_kdamond_effective_quotas(kd->k, n, bytes);
	tree_lock();
	if (!e1)
		emu_results_intervals(ctx, sample, aggr);
	if (!e2)
		emu_results_stats(ctx, n, st);
	if (!e3)
		emu_results_quotas(ctx, n, bytes);
	free(st);
	free(bytes);
}

static bool due(struct emu_node *kdir, uint64_t now_ns)
{
	struct emu_kd *kd = kdir->kd;

	return kd && emu_get_u(kdir, "refresh_ms", 0) && emu_kd_running(kd) &&
	       now_ns >= kd->next_refresh_ns;
}

bool emu_state_refresh_due(uint64_t now_ns)
{
	struct emu_node *kds = kdamonds_dir();

	for (int i = 0; kds && i < kds->nkids; i++) {
		if (due(kds->kids[i], now_ns))
			return true;
	}
	return false;
}

void emu_state_refresh(uint64_t now_ns)
{
	struct emu_node *kds = kdamonds_dir();

	for (int i = 0; kds && i < kds->nkids; i++) {
		struct emu_node *kdir = kds->kids[i];
		struct emu_kd *kd = kdir->kd;

		if (!due(kdir, now_ns))
			continue;
		kd->next_refresh_ns = now_ns + emu_get_u(kdir, "refresh_ms", 0) * 1000000ull;
		if (emu_node_count_numbered(emu_node_child(kdir, "contexts")) != 1)
			continue;
		refresh_one(kdir, kd);
	}
}
