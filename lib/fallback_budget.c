// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fallback server's collapse budgets, counted in huge pages: it asks the kernel for the
 * regions the stand-in stat scheme matched (update_schemes_tried_regions), observes them in
 * a collapse plan, and either collapses them itself with process_madvise(MADV_COLLAPSE),
 * hottest first, within the scheme's time and size quota, or lets the kernel's collapse
 * scheme act on them (a grant of address ranges, committed online); only while the goal is
 * not met (the temporal tuner's rule).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fallback_serve_internal.h"

#define COLLAPSE_CONFIRM 2	/* observations a huge page must be hot in before collapsing */
#define HELD_LOOK_MS 10000	/* between looks at the regions once every budget is spent, */
#define HELD_LOOK_COST 4000	/* ... or this many times a look's CPU time, if longer, */
#define HELD_LOOK_MAX_MS 60000	/* ... but no longer than this (reports stay that fresh) */
#define UNREACHABLE_LOOKS 3	/* looks in a row short of the goal before it is said */

/* A round's view of one collapse budget. */
struct budget {
	size_t want;		/* huge pages that bring the ratio nearest the goal */
	bool observe;		/* read DAMON's regions this round */
};

static bool feeds_scheme(const struct damonctl_fallback_server *srv, unsigned int scheme)
{
	unsigned int i;

	for (i = 0; i < srv->nr; i++)
		if (srv->fb[i].kind == DAMONCTL_FALLBACK_HUGEPAGE_GOAL &&
		    srv->fb[i].scheme == scheme)
			return true;
	return false;
}

/* How many huge pages budget @fi still wants (SIZE_MAX without a goal); @fresh: measured
 * by a walk of the page tables now. */
static int budget_want(struct damonctl_fallback_server *srv, unsigned int fi, bool fresh,
		       size_t *want)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	uint64_t huge, used;
	int r;

	if (!fb->target_bp) {
		*want = SIZE_MAX;
		return 0;
	}
	r = dctl_fbs_measure(srv, fb, fresh, &huge, &used);
	if (r)
		return r;
	srv->st.measured_bp = damonctl_hugepage_bp(huge, used);
	srv->st.target_bp = fb->target_bp;
	*want = damonctl_hugepage_plan_pick(huge, used, fb->target_bp);
	srv->st.goal_met = !*want;
	return 0;
}

static int by_address(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool in_grant(const struct fbs_grant *g, uint64_t addr)
{
	unsigned int i;

	for (i = 0; g && g->nr != UINT32_MAX && i < g->nr; i++)
		if (addr >= g->start[i] && addr < g->end[i])
			return true;
	return false;
}

static bool page_in(const uint64_t *a, size_t n, uint64_t addr)
{
	return bsearch(&addr, a, n, sizeof(*a), by_address) != NULL;
}

/* Whether some huge page of @prev is not among the @n sorted pages of @a. */
static bool drops_some(const struct fbs_grant *prev, const uint64_t *a, size_t n)
{
	unsigned int i;
	uint64_t addr;

	for (i = 0; prev && prev->nr != UINT32_MAX && i < prev->nr; i++)
		for (addr = prev->start[i]; addr < prev->end[i]; addr += DAMONCTL_HUGEPAGE_SIZE)
			if (!page_in(a, n, addr))
				return true;
	return false;
}

void dctl_fbs_grant_pick(const uint64_t *cand, size_t nr, size_t n, const struct fbs_grant *prev,
			 struct fbs_grant *g)
{
	uint64_t *a = n ? malloc(n * sizeof(*a)) : NULL;
	size_t i, k = 0, kept;

	g->nr = 0;
	if (!a)
		return;
	for (i = 0; i < nr && k < n; i++)
		if (in_grant(prev, cand[i]))
			a[k++] = cand[i];
	kept = k;
	qsort(a, kept, sizeof(*a), by_address);
	/* The kernel may have collapsed pages of @prev since they were measured: a grant that
	 * lets some of them go and takes others in their place could end with both collapsed,
	 * over the goal. Such a change only shrinks now; the new pages come in the next round,
	 * measured once the kernel can no longer act on the pages let go. */
	if (k < n && !drops_some(prev, a, kept))
		for (i = 0; i < nr && k < n; i++)
			if (!in_grant(prev, cand[i]))
				a[k++] = cand[i];
	qsort(a, k, sizeof(*a), by_address);
	for (i = 0; i < k; i++) {
		if (g->nr && g->end[g->nr - 1] == a[i]) {
			g->end[g->nr - 1] += DAMONCTL_HUGEPAGE_SIZE;
			continue;
		}
		if (g->nr == FBS_MAX_GRANT)
			break;
		g->start[g->nr] = a[i];
		g->end[g->nr++] = a[i] + DAMONCTL_HUGEPAGE_SIZE;
	}
	free(a);
}

/* @n candidates of @p as a grant (dctl_fbs_grant_pick()). */
static void grant_from_plan(const struct damonctl_hugepage_plan *p, size_t n,
			    const struct fbs_grant *prev, struct fbs_grant *g)
{
	size_t nr = damonctl_hugepage_plan_nr_candidates(p), i;
	uint64_t *cand = nr ? malloc(nr * sizeof(*cand)) : NULL;

	g->nr = 0;
	if (!cand)
		return;
	for (i = 0; i < nr; i++)
		cand[i] = damonctl_hugepage_plan_candidate(p, i);
	dctl_fbs_grant_pick(cand, nr, n, prev, g);
	free(cand);
}

static bool grant_equal(const struct fbs_grant *a, const struct fbs_grant *b)
{
	return a->nr == b->nr && !memcmp(a->start, b->start, a->nr * sizeof(a->start[0])) &&
	       !memcmp(a->end, b->end, a->nr * sizeof(a->end[0]));
}

static uint64_t grant_bytes(const struct fbs_grant *g)
{
	uint64_t b = 0;
	unsigned int i;

	for (i = 0; i < g->nr; i++)
		b += g->end[i] - g->start[i];
	return b;
}

/* Scheme @sch of @want allowed @g's ranges only, with @quota (the closed one for none). */
static int allow_only(struct damonctl_scheme *sch, const struct damonctl_features *f,
		      const struct fbs_grant *g, uint64_t quota)
{
	int r = damonctl_scheme_allow_ranges(sch, f, g->start, g->end, g->nr);

	return r ? r : damonctl_scheme_set(sch, DAMONCTL_SCHEME_QUOTA_BYTES,
					   g->nr ? quota : DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES);
}

DAMONCTL_API int damonctl_fallbacks_close(struct damonctl_ctx *ctx, unsigned int kdamond,
					  const struct damonctl_fallbacks *fbs)
{
	struct damonctl_kdamond *have = NULL, *want = NULL;
	struct damonctl_features *f = NULL;
	const struct fbs_grant none = { 0 };
	unsigned int i, closed = 0;
	int r = damonctl_kdamond_read(ctx, kdamond, &have);

	if (!r)
		r = damonctl_features_detect(ctx, &f);
	want = r ? NULL : damonctl_kdamond_dup(have);
	if (!r && !want)
		r = -ENOMEM;
	for (i = 0; !r && i < damonctl_fallbacks_count(fbs); i++) {
		struct damonctl_fallback fb = { .sz = sizeof(fb) };
		struct damonctl_scheme *sch;

		damonctl_fallbacks_get(fbs, i, &fb);
		sch = damonctl_context_scheme(damonctl_kdamond_context(want, 0), fb.scheme);
		/* open: a grant's quota, which a closed scheme never has */
		if (fb.kind != DAMONCTL_FALLBACK_COLLAPSE || !fb.by_kernel || !sch ||
		    damonctl_scheme_get(sch, DAMONCTL_SCHEME_QUOTA_BYTES) ==
		    DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES)
			continue;
		r = allow_only(sch, f, &none, 0);
		closed++;
	}
	if (!r && closed)
		r = damonctl_kdamond_commit(ctx, want, have, DAMONCTL_COMMIT_F_FULL, NULL);
	damonctl_features_free(f);
	damonctl_kdamond_free(want);
	damonctl_kdamond_free(have);
	return r ? r : (int)closed;
}

/*
 * The round's grants, committed together: the kdamond is read once (with every budget's
 * scheme in it: 64 targets are 128 schemes), each changed grant staged into it, and one
 * online commit made at the round's end.
 */
struct grants {
	struct damonctl_kdamond *have, *want;	/* NULL until a grant changes */
	unsigned int nr;
	unsigned int fi[FBS_MAX];		/* the budgets whose grant is staged, */
	bool changed[FBS_MAX];			/* ... whether it changed (or is committed
						 * again for a new size quota) */
	struct fbs_grant *g;			/* ... and their grants */
};

static void grants_free(struct grants *gs)
{
	damonctl_kdamond_free(gs->want);
	damonctl_kdamond_free(gs->have);
	free(gs->g);
}

/* The kernel's features, detected once for the server (they do not change while it runs). */
static int server_features(struct damonctl_fallback_server *srv,
			   const struct damonctl_features **out)
{
	int r = 0;

	if (!srv->features)
		r = damonctl_features_detect(srv->ctx, &srv->features);
	*out = srv->features;
	return r;
}

/* Stage letting the kernel's collapse scheme of budget @fi act on @g only (none: nothing). */
static int stage_grant(struct damonctl_fallback_server *srv, unsigned int fi,
		       const struct fbs_grant *g, struct grants *gs)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	const struct damonctl_features *f;
	struct damonctl_scheme *sch;
	int r;

	if (!gs->g && !(gs->g = calloc(FBS_MAX, sizeof(*gs->g))))
		return -ENOMEM;
	r = server_features(srv, &f);
	if (!r && !gs->have) {
		r = damonctl_kdamond_read(srv->ctx, srv->kdamond, &gs->have);
		gs->want = r ? NULL : damonctl_kdamond_dup(gs->have);
		if (!r && !gs->want)
			r = -ENOMEM;
	}
	if (r)
		return r;
	sch = damonctl_context_scheme(damonctl_kdamond_context(gs->want, 0), fb->scheme);
	if (!sch)
		return -ESTALE;
	r = allow_only(sch, f, g, fb->quota_bytes);
	if (r)
		return r;
	gs->fi[gs->nr] = fi;
	gs->changed[gs->nr] = !grant_equal(srv->grant[fi], g);
	gs->g[gs->nr++] = *g;
	return 0;
}

/* A grant committed: kept, and when it changed, counted and said. */
static void granted(struct damonctl_fallback_server *srv, unsigned int fi,
		    const struct fbs_grant *g, bool changed)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	struct damonctl_fallback_scheme_stats *ss = dctl_fbs_scheme_stats(srv, fb->scheme);
	struct damonctl_fallback_event ev = { .kind = DAMONCTL_FBEV_GRANTED,
					      .scheme = fb->scheme };

	*srv->grant[fi] = *g;
	srv->recommit[fi] = false;
	if (!changed)
		return;
	ss->nr_tried++;
	ss->sz_tried += grant_bytes(g);
	if (g->nr) {
		ev.bytes = grant_bytes(g);
		ev.nr = g->nr;
		ev.bp = srv->st.measured_bp;
		ev.target_bp = fb->target_bp;
		dctl_fbs_emit(srv, &ev);
	}
}

/* The staged grants, committed online in one go. */
static int commit_grants(struct damonctl_fallback_server *srv, struct grants *gs)
{
	unsigned int i;
	int r;

	if (!gs->nr)
		return 0;
	srv->failed = DAMONCTL_FBSTEP_GRANT;
	r = damonctl_kdamond_commit(srv->ctx, gs->want, gs->have, DAMONCTL_COMMIT_F_FULL, NULL);
	if (r)
		return r;
	for (i = 0; i < gs->nr; i++)
		granted(srv, gs->fi[i], &gs->g[i], gs->changed[i]);
	return 0;
}

/* Whether the goal of budget @fi is out of the hot memory's reach now, look after look. */
static bool short_of_goal(struct damonctl_fallback_server *srv, unsigned int fi, size_t want,
			  const struct damonctl_hugepage_plan *p)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	bool now;

	/* all the hot memory falls short, even what still waits for confirmation (hot in
	 * fewer looks than it takes: at the edges of moving regions there may always be some),
	 * look after look, once DAMON has had the time to tell hot regions (their minimum age)
	 * a few times over */
	now = want > damonctl_hugepage_plan_nr_candidates(p) +
		     damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_UNCONFIRMED) /
		     DAMONCTL_HUGEPAGE_SIZE;
	srv->short_looks[fi] = now ? srv->short_looks[fi] + 1 : 0;
	if (!srv->first_look_ms[fi])
		srv->first_look_ms[fi] = dctl_fbs_now_ms();
	return srv->short_looks[fi] >= UNREACHABLE_LOOKS &&
	       dctl_fbs_now_ms() - srv->first_look_ms[fi] >=
	       3 * fb->pattern[DAMONCTL_PAT_AGE_MIN] * srv->o.aggr_us / 1000;
}

static void note_reachability(struct damonctl_fallback_server *srv, unsigned int fi,
			      size_t want, const struct damonctl_hugepage_plan *p)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	struct damonctl_fallback_stats *st = &srv->st;
	uint64_t hot_huge = damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_HOT_HUGE);
	uint64_t hot_small = damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_HOT_SMALL);
	struct damonctl_fallback_event ev = { .scheme = fb->scheme };
	uint64_t huge, used;
	bool now;

	st->observed = true;
	st->hot_bytes = hot_huge + hot_small;
	st->hot_huge_bytes = hot_huge;
	st->cold_huge_bytes = damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_COLD_HUGE);
	st->cold_huge_idle_us = damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_COLD_HUGE_MAX_AGE) *
				srv->o.aggr_us;
	if (dctl_fbs_measure(srv, fb, false, &huge, &used))
		return;
	st->hot_bp = damonctl_hugepage_bp(st->hot_bytes, used);
	st->reachable_bp = damonctl_hugepage_bp(huge + hot_small, used);
	if (!fb->target_bp || want == SIZE_MAX)
		return;
	now = short_of_goal(srv, fi, want, p);
	st->unreachable = now;
	ev.hot_bytes = st->hot_bytes;
	ev.hot_bp = st->hot_bp;
	ev.reachable_bp = st->reachable_bp;
	/* said again once DAMON tells hot memory where it told none yet when it was said (a
	 * "0 B" would stay in the log), and when the hot memory doubled or halved, at most once
	 * a minute (a hot set that moves must not fill the log) */
	if (now && (srv->unreachable[fi] != 1 || (!srv->said_hot[fi] && st->hot_bytes) ||
		    ((st->hot_bytes > 2 * srv->said_hot[fi] ||
		      st->hot_bytes < srv->said_hot[fi] / 2) &&
		     dctl_fbs_now_ms() - srv->said_ms[fi] >= 60000))) {
		ev.kind = DAMONCTL_FBEV_UNREACHABLE;
		dctl_fbs_emit(srv, &ev);
		srv->said_hot[fi] = st->hot_bytes;
		srv->said_ms[fi] = dctl_fbs_now_ms();
	} else if (!now && srv->unreachable[fi] == 1) {
		ev.kind = DAMONCTL_FBEV_REACHABLE;
		dctl_fbs_emit(srv, &ev);
	}
	srv->unreachable[fi] = now;
}

/* What one process_madvise() pass did, counted as the kernel counts its scheme stats. */
static void count_collapse(struct damonctl_fallback_scheme_stats *ss,
			   const struct damonctl_collapse_result *res, bool quota_bound,
			   uint64_t huge_before, uint64_t huge_after)
{
	ss->nr_tried += res->pages_tried;
	ss->sz_tried += res->pages_tried * DAMONCTL_HUGEPAGE_SIZE;
	ss->nr_applied += res->pages_collapsed;
	ss->sz_applied += res->pages_collapsed * DAMONCTL_HUGEPAGE_SIZE;
	ss->busy_us += res->busy_us;
	if (huge_after > huge_before)
		ss->sz_collapsed += huge_after - huge_before;
	if (res->out_of_time || quota_bound)
		ss->qt_exceeds++;
}

/* A pidfd for @pid, or -errno; a failure other than its exit is said once. */
static int open_target(struct damonctl_fallback_server *srv, int pid)
{
	struct damonctl_fallback_event ev = { .kind = DAMONCTL_FBEV_PIDFD_FAILED, .pid = pid };
	int pidfd = damonctl_pidfd_open(pid);

	if (pidfd >= 0)
		return pidfd;
	/* -ESRCH: it exited, which the caller's following of the targets says */
	ev.err = pidfd;
	if (pidfd != -ESRCH && !srv->pidfd_said)
		dctl_fbs_emit(srv, &ev);
	srv->pidfd_said = pidfd != -ESRCH;
	return pidfd;
}

/* The program collapses: the first candidates, within the scheme's quota. */
static int collapse_by_agent(struct damonctl_fallback_server *srv, unsigned int fi,
			     size_t want, int pid)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	struct damonctl_collapse_result res = { .sz = sizeof(res) };
	struct damonctl_fallback_event ev = { .scheme = fb->scheme, .pid = pid };
	uint64_t before, after, used;
	size_t n = damonctl_hugepage_plan_nr_candidates(srv->plan[fi]);
	bool quota_bound = false;
	int pidfd, r;

	if (want < n)
		n = want;
	if (fb->quota_bytes && n > fb->quota_bytes / DAMONCTL_HUGEPAGE_SIZE) {
		n = fb->quota_bytes / DAMONCTL_HUGEPAGE_SIZE;
		quota_bound = true;
	}
	if (!n)
		return 0;
	pidfd = open_target(srv, pid);
	if (pidfd < 0)
		return 0;
	/* the targets' huge memory before and after (the meter walks their page tables once
	 * what it knew is out of date: after the collapse) */
	if (damonctl_hugepage_meter_read(srv->meter, 0, &before, &used))
		before = 0;
	r = damonctl_hugepage_plan_collapse(srv->plan[fi], pidfd, n, fb->quota_ms * 1000, &res);
	close(pidfd);
	damonctl_hugepage_meter_invalidate(srv->meter);
	if (damonctl_hugepage_meter_read(srv->meter, 0, &after, &used))
		after = before;
	count_collapse(dctl_fbs_scheme_stats(srv, fb->scheme), &res, quota_bound, before, after);
	if (r == -EPERM || r == -ENOSYS || r == -EBADF) {
		ev.kind = DAMONCTL_FBEV_COLLAPSE_DENIED;
		ev.err = r;
		dctl_fbs_emit(srv, &ev);
	}
	if (!res.pages_tried)
		return 0;
	if (fb->target_bp) {
		size_t left;

		budget_want(srv, fi, false, &left);
		ev.bp = srv->st.measured_bp;
		ev.target_bp = fb->target_bp;
	}
	ev.kind = DAMONCTL_FBEV_COLLAPSED;
	ev.err = 0;
	ev.pages = res.pages_collapsed;
	ev.some_failed = res.pages_failed != 0;
	ev.busy_us = res.busy_us;
	ev.quota_used = res.out_of_time || quota_bound;
	dctl_fbs_emit(srv, &ev);
	return 0;
}

/* The kernel collapses: let it act on the first candidates (none once the goal is met),
 * staged in @gs for the round's commit. */
static int collapse_by_kernel(struct damonctl_fallback_server *srv, unsigned int fi,
			      size_t want, struct grants *gs)
{
	struct fbs_grant g = { 0 };

	if (want && srv->plan[fi]) {
		size_t n = damonctl_hugepage_plan_nr_candidates(srv->plan[fi]);

		grant_from_plan(srv->plan[fi], want < n ? want : n, srv->grant[fi], &g);
	}
	if (!srv->grant[fi]) {
		srv->grant[fi] = calloc(1, sizeof(*srv->grant[fi]));
		if (!srv->grant[fi])
			return -ENOMEM;
		srv->grant[fi]->nr = UINT32_MAX;	/* unknown: commit whatever it is */
	}
	if (grant_equal(srv->grant[fi], &g) && !srv->recommit[fi])
		return 0;
	return stage_grant(srv, fi, &g, gs);
}

/* The access coverage of @pid's regions this round, once per target (the budgets of
 * several schemes look at the same one), with the huge ranges the plan is given. */
static void cover(struct damonctl_fallback_server *srv, int pid,
		  const struct damonctl_rec_region *regs, size_t n, const uint64_t (*huge)[2],
		  size_t nr_huge)
{
	struct damonctl_fallback_target_coverage *t;
	unsigned int i;

	for (i = 0; i < srv->nr_cov; i++)
		if (srv->cov[i].pid == pid)
			return;
	if (srv->nr_cov == DAMONCTL_FALLBACK_STATS_MAX_TARGETS)
		return;
	t = &srv->cov[srv->nr_cov];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->c.sz = sizeof(t->c);
	if (!damonctl_hugepage_coverage_add(&t->c, regs, n, huge, nr_huge))
		srv->nr_cov++;
}

/* The round's coverage into the stats, over the targets (kept as it was when no look). */
static void publish_coverage(struct damonctl_fallback_server *srv)
{
	struct damonctl_fallback_stats *st = &srv->st;
	unsigned int i;

	memset(&st->coverage, 0, sizeof(st->coverage));
	st->coverage.sz = sizeof(st->coverage);
	memset(st->tc, 0, sizeof(st->tc));
	st->coverage_known = srv->nr_cov > 0;
	st->nr_coverage = srv->nr_cov;
	for (i = 0; i < srv->nr_cov; i++) {
		st->tc[i] = srv->cov[i];
		damonctl_hugepage_coverage_merge(&st->coverage, &srv->cov[i].c);
	}
}

/* Read DAMON's regions from the observer of budget @fi and observe them in its plan. */
static int observe(struct damonctl_fallback_server *srv, unsigned int fi, int pid,
		   struct damonctl_rec_region **regs, size_t *cap)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	const uint64_t (*huge)[2];
	size_t nr_huge;
	uint64_t total;
	int n, r;

	if (!srv->plan[fi]) {
		r = damonctl_hugepage_plan_new(COLLAPSE_CONFIRM, &srv->plan[fi]);
		if (r)
			return r;
	}
	n = damonctl_tried_regions_read(srv->ctx, srv->kdamond, 0, fb->observer, regs, cap,
					&total, NULL);
	if (n < 0)
		return n;
	/* where the huge pages are: the meter's walk (fresh after the kernel's snapshot where
	 * it may be collapsing), not a walk of every look's own */
	if (!dctl_fbs_meter_read(srv) &&
	    !dctl_hugepage_meter_ranges(srv->meter, pid, &huge, &nr_huge)) {
		cover(srv, pid, *regs, (size_t)n, huge, nr_huge);
		r = dctl_hugepage_plan_observe_huge(srv->ctx, srv->plan[fi], pid, *regs, (size_t)n,
						    fb->pattern, huge, nr_huge);
	} else
		r = damonctl_hugepage_plan_observe(srv->ctx, srv->plan[fi], pid, *regs,
						   (size_t)n, fb->pattern);
	return r == -ESRCH ? 0 : r;	/* it exited: the caller's following says so */
}

/* The grant of budget @j as this round leaves it: staged in @gs, or as it was. */
static const struct fbs_grant *round_grant(const struct damonctl_fallback_server *srv,
					   unsigned int j, const struct grants *gs)
{
	unsigned int i;

	for (i = 0; i < gs->nr; i++)
		if (gs->fi[i] == j)
			return &gs->g[i];
	return srv->grant[j];
}

/* The huge pages the kernel may collapse now for the budgets before @fi that share its goal
 * (per-target copies of one scheme), and has not yet. */
static size_t shared_pending(const struct damonctl_fallback_server *srv, unsigned int fi,
			     const struct grants *gs)
{
	const struct damonctl_fallback *fb = &srv->fb[fi];
	size_t pages = 0;
	unsigned int j, k;

	for (j = 0; j < fi; j++) {
		const struct damonctl_fallback *o = &srv->fb[j];
		const struct fbs_grant *g = round_grant(srv, j, gs);

		if (o->kind != DAMONCTL_FALLBACK_COLLAPSE || !o->by_kernel || o->tmpl != fb->tmpl ||
		    !g || g->nr == UINT32_MAX)
			continue;
		for (k = 0; k < g->nr; k++)
			pages += (g->end[k] - g->start[k]) / DAMONCTL_HUGEPAGE_SIZE;
	}
	return pages;
}

static int target_pid(const struct damonctl_fallback_server *srv,
		      const struct damonctl_fallback *fb)
{
	return fb->target < srv->nr_targets ? srv->targets[fb->target] : 0;
}

static uint64_t cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Whether a budget that wants nothing looks at the regions this round: for the caller's
 * reports only (what is hot, what is cold and huge), so at most every HELD_LOOK_MS, and at
 * most a 1/HELD_LOOK_COST of a CPU (a look reads every region: up to DAMON's most), but at
 * least every HELD_LOOK_MAX_MS. The huge pages it places come from the meter's last walk. */
static bool held_look_due(const struct damonctl_fallback_server *srv)
{
	uint64_t wait = srv->look_cost_us * HELD_LOOK_COST / 1000;

	if (wait < HELD_LOOK_MS)
		wait = HELD_LOOK_MS;
	if (wait > HELD_LOOK_MAX_MS)
		wait = HELD_LOOK_MAX_MS;
	return !srv->looked_ms || dctl_fbs_now_ms() - srv->looked_ms >= wait;
}

/* How much each live budget wants; whether any looks at the regions this round. */
static int plan_budgets(struct damonctl_fallback_server *srv, struct budget *bd, bool *any)
{
	bool held_look = held_look_due(srv);
	unsigned int i;
	int r;

	for (i = 0; i < srv->nr; i++) {
		const struct damonctl_fallback *fb = &srv->fb[i];

		if (fb->kind != DAMONCTL_FALLBACK_COLLAPSE || target_pid(srv, fb) <= 0)
			continue;
		r = budget_want(srv, i, false, &bd[i].want);
		if (r) {
			srv->failed = DAMONCTL_FBSTEP_MEASURE;
			return r;
		}
		/* the kernel's path says it once, where the goal is fed */
		if (fb->target_bp && !(fb->by_kernel && feeds_scheme(srv, fb->scheme)))
			dctl_fbs_goal_transition(srv, i, srv->st.measured_bp, srv->st.goal_met,
						 fb->by_kernel);
		/* what is hot and cold is looked at now and then even when the budget is
		 * spent, for the caller's reports */
		bd[i].observe = bd[i].want || held_look;
		*any |= bd[i].observe;
	}
	return 0;
}

/* Budget @i's part of the round, after the snapshot of the regions. */
static int serve_budget(struct damonctl_fallback_server *srv, unsigned int i, struct budget *bd,
			struct damonctl_rec_region **regs, size_t *cap, struct grants *gs)
{
	const struct damonctl_fallback *fb = &srv->fb[i];
	int pid = target_pid(srv, fb), r;

	if (bd->observe) {
		r = observe(srv, i, pid, regs, cap);
		if (r) {
			srv->failed = DAMONCTL_FBSTEP_READ_REGIONS;
			return r;
		}
		/* measured again next to the look at the pages (fresh after the snapshot
		 * where the kernel may be collapsing): what it collapsed meanwhile is counted
		 * once */
		r = budget_want(srv, i, false, &bd->want);
		if (r) {
			srv->failed = DAMONCTL_FBSTEP_MEASURE;
			return r;
		}
		note_reachability(srv, i, bd->want, srv->plan[i]);
	}
	if (fb->by_kernel) {
		/* one goal, several targets (a budget each): what earlier budgets of this round
		 * let the kernel collapse is not huge yet, but counts */
		size_t want = bd->observe ? bd->want : 0, other = shared_pending(srv, i, gs);

		return collapse_by_kernel(srv, i, want > other ? want - other : 0, gs);
	}
	if (bd->observe && bd->want)
		return collapse_by_agent(srv, i, bd->want, pid);
	return 0;
}

int dctl_fbs_collapse_all(struct damonctl_fallback_server *srv)
{
	struct budget bd[FBS_MAX] = { { 0 } };
	struct damonctl_rec_region *regs = NULL;
	struct grants gs = { 0 };
	uint64_t t0 = cpu_us();
	bool any = false;
	size_t cap = 0;
	unsigned int i;
	int r;

	r = plan_budgets(srv, bd, &any);
	if (r)
		return r;
	if (any) {
		/* one snapshot of what every observer matched */
		r = damonctl_kdamond_cmd(srv->ctx, srv->kdamond,
					 DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_REGIONS);
		if (r) {
			srv->failed = DAMONCTL_FBSTEP_TRIED_REGIONS;
			return r;
		}
		/* the pages are looked at after the kernel's snapshot of them: the first
		 * measure then is a fresh walk where the kernel may be collapsing */
		srv->fresh_due = dctl_fbs_grant_open(srv);
		srv->nr_cov = 0;
	}
	for (i = 0; i < srv->nr && !r; i++) {
		const struct damonctl_fallback *fb = &srv->fb[i];

		if (fb->kind != DAMONCTL_FALLBACK_COLLAPSE || target_pid(srv, fb) <= 0)
			continue;
		r = serve_budget(srv, i, &bd[i], &regs, &cap, &gs);
	}
	free(regs);
	if (!r)
		r = commit_grants(srv, &gs);
	grants_free(&gs);
	if (any) {
		publish_coverage(srv);
		srv->looked_ms = dctl_fbs_now_ms();
		srv->look_cost_us = cpu_us() - t0;
	}
	return r;
}
