// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fallback server: a plan of user-space fallbacks served round after round for one
 * kdamond. Every round measures the huge-page ratio exactly as the kernel's hugepage_mem_bp
 * metric defines it and feeds the user_input goals standing in for it
 * (commit_schemes_quota_goals); the collapse budgets follow (fallback_budget.c). The server
 * never prints: what a person would want to know is an event to the caller's callback.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fallback_serve_internal.h"

uint64_t dctl_fbs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void dctl_fbs_emit(const struct damonctl_fallback_server *srv,
		   struct damonctl_fallback_event *ev)
{
	ev->sz = sizeof(*ev);
	ev->kdamond = srv->kdamond;
	if (srv->o.on_event)
		srv->o.on_event(ev, srv->o.arg);
}

/* The targets through the meter: a fresh walk when one is due. */
static int meter_read(struct damonctl_fallback_server *srv, uint64_t *huge, uint64_t *used)
{
	unsigned int flags = srv->fresh_due ? DAMONCTL_HMETER_FRESH : 0;

	srv->fresh_due = false;
	return damonctl_hugepage_meter_read(srv->meter, flags, huge, used);
}

int dctl_fbs_measure(struct damonctl_fallback_server *srv, const struct damonctl_fallback *fb,
		     bool fresh, uint64_t *huge, uint64_t *used)
{
	/* the system-wide ratio is the kernel's counters (meminfo): cheap every time */
	if (!fb->scope_pid)
		return damonctl_hugepage_measure(srv->ctx, NULL, 0, huge, used);
	if (fresh)
		srv->fresh_due = true;
	return meter_read(srv, huge, used);
}

int dctl_fbs_meter_read(struct damonctl_fallback_server *srv)
{
	uint64_t huge, used;

	return meter_read(srv, &huge, &used);
}

bool dctl_fbs_grant_open(const struct damonctl_fallback_server *srv)
{
	unsigned int i;

	for (i = 0; i < srv->nr; i++)
		if (srv->fb[i].kind == DAMONCTL_FALLBACK_COLLAPSE && srv->fb[i].by_kernel &&
		    (!srv->grant[i] || srv->grant[i]->nr))
			return true;
	return false;
}

/* Say when the goal of entry @fi becomes met or missed (once per change, not every round).
 * Met: no huge page more would bring the ratio nearer the goal (within half a huge page). */
void dctl_fbs_goal_transition(struct damonctl_fallback_server *srv, unsigned int fi,
			      uint64_t bp, bool met, bool by_kernel)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	struct damonctl_fallback_event ev = { .scheme = fb->scheme, .bp = bp,
					      .target_bp = fb->target_bp,
					      .scope_pid = fb->scope_pid, .by_kernel = by_kernel };

	if (srv->goal_state[fi] == met)
		return;
	ev.kind = met ? DAMONCTL_FBEV_GOAL_MET : DAMONCTL_FBEV_GOAL_MISSED;
	if (met || srv->goal_state[fi] == 1)
		dctl_fbs_emit(srv, &ev);
	srv->goal_state[fi] = met;
}

struct damonctl_fallback_scheme_stats *dctl_fbs_scheme_stats(struct damonctl_fallback_server *srv,
							     unsigned int scheme)
{
	struct damonctl_fallback_stats *st = &srv->st;
	unsigned int i;

	for (i = 0; i < st->nr; i++)
		if (st->s[i].scheme == scheme)
			return &st->s[i];
	/* the last one is reused when full */
	if (st->nr == DAMONCTL_FALLBACK_STATS_MAX_SCHEMES)
		return &st->s[DAMONCTL_FALLBACK_STATS_MAX_SCHEMES - 1];
	memset(&st->s[st->nr], 0, sizeof(st->s[0]));
	st->s[st->nr].scheme = scheme;
	return &st->s[st->nr++];
}

/* ---- the object ---- */

/* Forget what follows the entries by index (plans, grants, fed values). */
static void reset_entries(struct damonctl_fallback_server *srv)
{
	unsigned int j;

	for (j = 0; j < FBS_MAX; j++) {
		damonctl_hugepage_plan_free(srv->plan[j]);
		free(srv->grant[j]);
		srv->plan[j] = NULL;
		srv->grant[j] = NULL;
		srv->goal_state[j] = srv->unreachable[j] = -1;
		srv->recommit[j] = false;
		srv->fed[j] = false;
		srv->short_looks[j] = 0;
		srv->first_look_ms[j] = 0;
		srv->said_hot[j] = srv->said_ms[j] = 0;
	}
	srv->fed_said = false;
}

/* The kdamond's aggregation interval, which turns region ages into time (100 ms if it
 * cannot be read). */
static uint64_t read_aggr_us(struct damonctl_ctx *ctx, unsigned int kdamond)
{
	char rel[128], buf[32];
	uint64_t v = 0;

	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/monitoring_attrs/intervals/aggr_us",
		 kdamond);
	if (damonctl_read(ctx, rel, buf, sizeof(buf)) || damonctl_parse_u64(buf, &v))
		v = 100000;
	damonctl_clear_error(ctx);
	return v;
}

static int copy_plan(const struct damonctl_fallbacks *fbs, struct damonctl_fallback *fb,
		     unsigned int *nr)
{
	unsigned int i, n = fbs ? damonctl_fallbacks_count(fbs) : 0;
	int r;

	if (n > FBS_MAX)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		fb[i].sz = sizeof(fb[i]);
		r = damonctl_fallbacks_get(fbs, i, &fb[i]);
		if (r)
			return r;
	}
	*nr = n;
	return 0;
}

DAMONCTL_API int damonctl_fallback_server_new(struct damonctl_ctx *ctx, unsigned int kdamond,
					      const struct damonctl_fallbacks *fbs,
					      const int *pids, unsigned int nr_pids,
					      const struct damonctl_fallback_server_opts *opts,
					      struct damonctl_fallback_server **out)
{
	struct damonctl_fallback_server *srv;
	int r;

	*out = NULL;
	if (!ctx || nr_pids > FBS_MAX_TARGETS || (nr_pids && !pids))
		return -EINVAL;
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->ctx = ctx;
	srv->kdamond = kdamond;
	if (opts)
		memcpy(&srv->o, opts, opts->sz < sizeof(srv->o) ? opts->sz : sizeof(srv->o));
	srv->o.sz = sizeof(srv->o);
	if (!srv->o.aggr_us)
		srv->o.aggr_us = read_aggr_us(ctx, kdamond);
	srv->st.sz = sizeof(srv->st);
	reset_entries(srv);
	r = damonctl_hugepage_meter_new(ctx, &srv->meter);
	if (!r)
		r = copy_plan(fbs, srv->fb, &srv->nr);
	if (!r)
		r = damonctl_fallback_server_set_targets(srv, pids, nr_pids);
	if (r) {
		damonctl_fallback_server_free(srv);
		return r;
	}
	*out = srv;
	return 0;
}

DAMONCTL_API void damonctl_fallback_server_free(struct damonctl_fallback_server *srv)
{
	if (!srv)
		return;
	reset_entries(srv);
	damonctl_hugepage_meter_free(srv->meter);
	damonctl_features_free(srv->features);
	free(srv);
}

DAMONCTL_API int damonctl_fallback_server_set_targets(struct damonctl_fallback_server *srv,
						      const int *pids, unsigned int nr)
{
	if (!srv || nr > FBS_MAX_TARGETS || (nr && !pids))
		return -EINVAL;
	if (nr)
		memcpy(srv->targets, pids, nr * sizeof(pids[0]));
	srv->nr_targets = nr;
	return damonctl_hugepage_meter_set_pids(srv->meter, pids, nr);
}

static bool same_shape(const struct damonctl_fallback_server *srv,
		       const struct damonctl_fallback *fb, unsigned int nr)
{
	unsigned int j;

	if (nr != srv->nr)
		return false;
	for (j = 0; j < nr; j++)
		if (srv->fb[j].kind != fb[j].kind || srv->fb[j].scheme != fb[j].scheme ||
		    srv->fb[j].observer != fb[j].observer)
			return false;
	return true;
}

DAMONCTL_API int damonctl_fallback_server_set_plan(struct damonctl_fallback_server *srv,
						   const struct damonctl_fallbacks *fbs,
						   bool keep)
{
	struct damonctl_fallback *fb;
	unsigned int nr = 0, j;
	int r;

	if (!srv)
		return -EINVAL;
	fb = calloc(FBS_MAX, sizeof(*fb));
	if (!fb)
		return -ENOMEM;
	r = copy_plan(fbs, fb, &nr);
	if (r) {
		free(fb);
		return r;
	}
	if (keep && same_shape(srv, fb, nr)) {
		for (j = 0; j < nr; j++) {
			struct damonctl_fallback *d = &srv->fb[j];

			d->target_bp = fb[j].target_bp;
			d->scope_pid = fb[j].scope_pid;
			memcpy(d->pattern, fb[j].pattern, sizeof(d->pattern));
			d->reset_ms = fb[j].reset_ms;
			/* the user's size quota was written over the grant's: commit it again */
			if (d->quota_bytes != fb[j].quota_bytes)
				srv->recommit[j] = true;
			d->quota_bytes = fb[j].quota_bytes;
		}
		free(fb);
		return 1;
	}
	reset_entries(srv);
	memcpy(srv->fb, fb, nr * sizeof(*fb));
	srv->nr = nr;
	free(fb);
	return 0;
}

DAMONCTL_API int damonctl_fallback_server_plan(const struct damonctl_fallback_server *srv,
					       struct damonctl_fallbacks *out)
{
	unsigned int i;
	int r;

	if (!srv || !out)
		return -EINVAL;
	while (damonctl_fallbacks_count(out))
		damonctl_fallbacks_remove(out, 0);
	for (i = 0; i < srv->nr; i++) {
		r = damonctl_fallbacks_add(out, &srv->fb[i]);
		if (r)
			return r;
	}
	return 0;
}

DAMONCTL_API uint64_t
damonctl_fallback_server_interval_ms(const struct damonctl_fallback_server *srv)
{
	uint64_t ms = 0;
	unsigned int i;

	for (i = 0; srv && i < srv->nr; i++)
		if (srv->fb[i].reset_ms && (!ms || srv->fb[i].reset_ms < ms))
			ms = srv->fb[i].reset_ms;
	return ms ? ms : 1000;
}

DAMONCTL_API int damonctl_fallback_server_stats(const struct damonctl_fallback_server *srv,
						struct damonctl_fallback_stats *st)
{
	size_t n;

	if (!srv || !st || st->sz < sizeof(st->sz))
		return -EINVAL;
	n = st->sz < sizeof(srv->st) ? st->sz : sizeof(srv->st);
	memcpy((char *)st + sizeof(st->sz), (const char *)&srv->st + sizeof(st->sz),
	       n - sizeof(st->sz));
	return 0;
}

DAMONCTL_API int damonctl_fallback_server_set_stats(struct damonctl_fallback_server *srv,
						    const struct damonctl_fallback_stats *st)
{
	size_t n;

	if (!srv || !st || st->sz < sizeof(st->sz))
		return -EINVAL;
	n = st->sz < sizeof(srv->st) ? st->sz : sizeof(srv->st);
	memset(&srv->st, 0, sizeof(srv->st));
	memcpy(&srv->st, st, n);
	srv->st.sz = sizeof(srv->st);
	if (srv->st.nr > DAMONCTL_FALLBACK_STATS_MAX_SCHEMES)
		srv->st.nr = DAMONCTL_FALLBACK_STATS_MAX_SCHEMES;
	if (srv->st.nr_coverage > DAMONCTL_FALLBACK_STATS_MAX_TARGETS)
		srv->st.nr_coverage = DAMONCTL_FALLBACK_STATS_MAX_TARGETS;
	return 0;
}

DAMONCTL_API enum damonctl_fallback_step
damonctl_fallback_server_failed_step(const struct damonctl_fallback_server *srv)
{
	return srv ? srv->failed : DAMONCTL_FBSTEP_NONE;
}

/* ---- hugepage_mem_bp goals fed as user_input ---- */

static void said_feeding(struct damonctl_fallback_server *srv, const struct damonctl_fallback *fb,
			 uint64_t bp)
{
	struct damonctl_fallback_event ev = { .kind = DAMONCTL_FBEV_FEEDING, .scheme = fb->scheme,
					      .goal = fb->goal, .scope_pid = fb->scope_pid,
					      .reset_ms = fb->reset_ms, .bp = bp,
					      .target_bp = fb->target_bp };

	if (!srv->fed_said)
		dctl_fbs_emit(srv, &ev);
}

/* Measure goal @i into the stats, and write it for the kernel: 1 written, 0 unchanged. */
static int feed_goal(struct damonctl_fallback_server *srv, unsigned int i, uint64_t *bp)
{
	const struct damonctl_fallback *fb = &srv->fb[i];
	uint64_t huge, used;
	char rel[256], val[32];
	int r;

	r = dctl_fbs_measure(srv, fb, false, &huge, &used);
	if (r) {
		srv->failed = DAMONCTL_FBSTEP_MEASURE;
		return r;
	}
	*bp = damonctl_hugepage_bp(huge, used);
	srv->st.measured_bp = *bp;
	srv->st.target_bp = fb->target_bp;
	srv->st.goal_met = !damonctl_hugepage_plan_pick(huge, used, fb->target_bp);
	dctl_fbs_goal_transition(srv, i, *bp, srv->st.goal_met, true);
	/* the kernel keeps the value: an unchanged one needs no commit */
	if (srv->fed[i] && srv->fed_bp[i] == *bp)
		return 0;
	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/schemes/%u/quotas/goals/%u/"
		 "current_value", srv->kdamond, fb->scheme, fb->goal);
	snprintf(val, sizeof(val), "%" PRIu64, *bp);
	r = damonctl_write(srv->ctx, rel, val);
	if (r) {
		srv->failed = DAMONCTL_FBSTEP_GOAL_VALUE;
		return r;
	}
	said_feeding(srv, fb, *bp);
	return 1;
}

static int feed_goals(struct damonctl_fallback_server *srv)
{
	uint64_t bps[FBS_MAX];
	bool fed[FBS_MAX] = { false }, any = false;
	unsigned int i;
	int r;

	for (i = 0; i < srv->nr; i++) {
		if (srv->fb[i].kind != DAMONCTL_FALLBACK_HUGEPAGE_GOAL)
			continue;
		r = feed_goal(srv, i, &bps[i]);
		if (r < 0)
			return r;
		fed[i] = r;
		any |= fed[i];
	}
	if (!any)
		return 0;
	srv->fed_said = true;
	r = damonctl_kdamond_cmd(srv->ctx, srv->kdamond, DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS);
	if (r) {
		srv->failed = DAMONCTL_FBSTEP_GOAL_COMMIT;
		return r;
	}
	for (i = 0; i < srv->nr; i++) {
		if (fed[i]) {
			srv->fed[i] = true;
			srv->fed_bp[i] = bps[i];
		}
	}
	srv->st.feeds++;
	return 0;
}

DAMONCTL_API int damonctl_fallback_server_round(struct damonctl_fallback_server *srv)
{
	int r;

	if (!srv)
		return -EINVAL;
	srv->failed = DAMONCTL_FBSTEP_NONE;
	if (!srv->nr)
		return 0;	/* nothing to serve (the caller follows targets only) */
	/* while the kernel may be collapsing, each round starts from a fresh figure */
	srv->fresh_due = dctl_fbs_grant_open(srv);
	r = feed_goals(srv);
	if (!r)
		r = dctl_fbs_collapse_all(srv);
	srv->st.rounds++;
	srv->st.updated = (long long)time(NULL);
	if (!r)
		srv->failed = DAMONCTL_FBSTEP_NONE;
	return r;
}
