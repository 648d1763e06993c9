// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Taking a live capture's items (see capture_internal.h): method tried-regions ticks at the
 * interval (update_schemes_tried_regions, then each capture scheme's regions and the
 * kdamond's scheme stats); method trace keeps one damon_aggregated snapshot per target and
 * interval. Both end at a request, the duration, the count, or when the targets or the
 * kdamond are gone.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "capture_internal.h"
#include "record_internal.h"

void dctl_capture_end(struct damonctl_capture *c, enum damonctl_rec_end_reason why)
{
	if (!c->ended) {
		c->ended = true;
		c->reason = why;
	}
}

DAMONCTL_API void damonctl_capture_request_end(struct damonctl_capture *c,
					       enum damonctl_rec_end_reason why)
{
	/* a signal handler's: one store of a sig_atomic_t, nothing else */
	if (c && !c->requested)
		c->requested = (sig_atomic_t)why + 1;
}

DAMONCTL_API enum damonctl_rec_end_reason
damonctl_capture_end_reason(const struct damonctl_capture *c)
{
	if (!c->ended && c->requested)
		return (enum damonctl_rec_end_reason)(c->requested - 1);
	return c->reason;
}

DAMONCTL_API void damonctl_capture_pace(const struct damonctl_capture *c,
					struct damonctl_capture_pace *p)
{
	struct damonctl_capture_pace v = { .sz = sizeof(v) };
	size_t sz = p->sz;

	v.interval_us = c->o.interval_us;
	if (c->trace && c->aggr_us > v.interval_us)
		v.interval_us = c->aggr_us;
	v.taken = c->nr_ticks;
	v.missed = c->nr_missed;
	v.max_late_us = c->max_late_ns / 1000;
	v.trace = c->trace != NULL;
	if (!c->trace && c->nr_ticks)
		v.mean_work_us = c->work_ns / 1000 / c->nr_ticks;
	/* the caller's struct may be older (shorter) than ours */
	memcpy(p, &v, sz < sizeof(v) ? sz : sizeof(v));
	p->sz = sz;
}

/* Has the process the capture ends with exited? Not reaped: a child stays its parent's to
 * wait for, and a zombie keeps its /proc directory, so the pidfd (readable once it exited)
 * or waitid(WNOWAIT) tells. */
static bool end_pid_exited(struct damonctl_capture *c)
{
	siginfo_t si;

	if (c->end_pid_exited)
		return true;
	if (c->end_pidfd >= 0) {
		struct pollfd p = { .fd = c->end_pidfd, .events = POLLIN };

		c->end_pid_exited = poll(&p, 1, 0) == 1;
		return c->end_pid_exited;
	}
	memset(&si, 0, sizeof(si));
	if (!waitid(P_PID, (id_t)c->o.end_pid, &si, WEXITED | WNOHANG | WNOWAIT))
		c->end_pid_exited = si.si_pid == c->o.end_pid;
	else if (errno == ECHILD)	/* not our child: its /proc entry */
		c->end_pid_exited = damonctl_proc_alive(c->ctx, c->o.end_pid) == 0;
	return c->end_pid_exited;
}

/* Has the process of target @t exited (a zombie has: it holds no memory any more)? */
static bool target_exited(struct damonctl_capture *c, unsigned int t)
{
	bool gone;

	if (c->o.end_pid > 0)
		return end_pid_exited(c);
	if (!c->vaddr || t >= c->nr_pids)
		return false;
	gone = damonctl_proc_alive(c->ctx, c->pids[t]) == 0;
	damonctl_clear_error(c->ctx);
	return gone;
}

static bool targets_gone(struct damonctl_capture *c)
{
	unsigned int i;

	if (c->o.end_pid > 0)
		return end_pid_exited(c);
	if (!c->vaddr || !c->nr_pids)
		return false;
	for (i = 0; i < c->nr_pids; i++)
		if (!target_exited(c, i))
			return false;
	return true;
}

bool dctl_capture_kdamond_gone(struct damonctl_capture *c)
{
	int pid = -1, r = damonctl_kdamond_is_running(c->ctx, c->kdamond, &pid);

	damonctl_clear_error(c->ctx);
	return r != 1 || pid != c->kdamond_pid;
}

static const struct { const char *file; enum damonctl_rec_stat stat; } stat_files[] = {
	{ "stats/nr_tried", DAMONCTL_REC_NR_TRIED },
	{ "stats/sz_tried", DAMONCTL_REC_SZ_TRIED },
	{ "stats/nr_applied", DAMONCTL_REC_NR_APPLIED },
	{ "stats/sz_applied", DAMONCTL_REC_SZ_APPLIED },
	{ "stats/sz_ops_filter_passed", DAMONCTL_REC_SZ_OPS_FILTER_PASSED },
	{ "stats/qt_exceeds", DAMONCTL_REC_QT_EXCEEDS },
	{ "stats/nr_snapshots", DAMONCTL_REC_NR_SNAPSHOTS },
	{ "quotas/effective_bytes", DAMONCTL_REC_EFFECTIVE_BYTES },
};

static void take_stats(struct damonctl_capture *c, uint64_t now)
{
	unsigned int s, i;

	/* none, or only the capture schemes the kdamond was started with */
	if (c->nr_user_schemes <= c->o.builtin)
		return;
	if (damonctl_kdamond_refresh_stats(c->ctx, c->kdamond, c->f))
		goto out;
	for (s = 0; s < c->nr_user_schemes; s++) {
		struct damonctl_rec_item *it = &c->pending[c->nr_pending];
		struct damonctl_rec_stats *st = &c->pend_stats[c->nr_pending];
		/* the capture schemes the kdamond's start put there are no user's, even when
		 * the capture installed its own (snapshot filters) */
		bool capture = s < c->o.builtin;

		for (i = 0; i < c->nr_cs && !c->of_scheme; i++)
			if (c->cs[i].index == s)
				capture = true;
		if (capture)
			continue;
		*it = (struct damonctl_rec_item){ .sz = sizeof(*it), .type = DAMONCTL_REC_STATS,
						  .stats = st };
		*st = (struct damonctl_rec_stats){ .sz = sizeof(*st), .time_ns = now,
						   .kdamond = c->kdamond, .scheme = s };
		memcpy(st->action, c->user_actions[s], sizeof(st->action));
		for (i = 0; i < sizeof(stat_files) / sizeof(stat_files[0]); i++) {
			char rel[160], buf[32];
			uint64_t v;

			snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/schemes/%u/%s",
				 c->kdamond, s, stat_files[i].file);
			if (damonctl_read(c->ctx, rel, buf, sizeof(buf)) ||
			    damonctl_parse_u64(buf, &v))
				continue;
			st->v[stat_files[i].stat] = v;
			st->has |= 1u << stat_files[i].stat;
		}
		c->nr_pending++;
	}
out:
	damonctl_clear_error(c->ctx);
}

/* One snapshot of every capture scheme, then the stats: 0 or -errno. */
static int tick(struct damonctl_capture *c)
{
	uint64_t now;
	unsigned int i;
	bool skipped = false;
	int r;

	c->nr_pending = c->next_pending = 0;
	r = damonctl_kdamond_cmd(c->ctx, c->kdamond,
				 DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_REGIONS);
	if (r) {
		/* ECANCELED: the kernel says the kdamond stopped, even while `state` may still
		 * read "on" for a moment */
		if (r == -ECANCELED || dctl_capture_kdamond_gone(c)) {
			dctl_capture_end(c, targets_gone(c) ? DAMONCTL_REC_END_TARGET_EXITED :
					    DAMONCTL_REC_END_KDAMOND_STOPPED);
			return 0;
		}
		return r;
	}
	now = dctl_capture_now_ns();
	if (c->tuned &&
	    damonctl_features_has(c->f, DAMONCTL_FEAT_INTERVALS_GOAL) == DAMONCTL_YES &&
	    !damonctl_kdamond_cmd(c->ctx, c->kdamond, DAMONCTL_CMD_UPDATE_TUNED_INTERVALS))
		dctl_capture_read_intervals(c);
	damonctl_clear_error(c->ctx);
	for (i = 0; i < c->nr_cs; i++) {
		struct damonctl_rec_item *it = &c->pending[c->nr_pending];
		struct dctl_cap_scheme *cs = &c->cs[i];
		struct damonctl_rec_snapshot *s = &c->pend_snap[c->nr_pending];
		uint64_t total = 0;
		bool has_sz = false;

		r = dctl_tried_regions_read(c->ctx, c->kdamond, 0, cs->index, &cs->regions,
					    &cs->cap, &total, &has_sz, &cs->hits);
		if (r < 0) {
			if (dctl_capture_kdamond_gone(c)) {
				dctl_capture_end(c, DAMONCTL_REC_END_KDAMOND_STOPPED);
				return 0;
			}
			return r;
		}
		/* a target that exited since the last tick has no regions left (its mm is gone):
		 * that is no snapshot of its memory, and would end the record as an empty one */
		if (!r && (cs->target < 0 ? targets_gone(c) : target_exited(c, (unsigned)cs->target))) {
			skipped = true;
			continue;
		}
		*it = (struct damonctl_rec_item){ .sz = sizeof(*it), .type = DAMONCTL_REC_SNAPSHOT,
						  .snapshot = s };
		memset(s, 0, sizeof(*s));
		s->sz = sizeof(*s);
		s->kdamond = c->kdamond;
		s->context = 0;
		s->target = cs->target;
		s->scheme = c->of_scheme ? (int32_t)cs->index : -1;
		s->end_ns = now;
		s->start_ns = now - c->aggr_us * 1000;
		s->sample_us = c->sample_us;
		s->aggr_us = c->aggr_us;
		s->update_us = c->update_us;
		s->total_bytes = total;
		s->has_sz_filter_passed = has_sz;
		s->nr_regions = (uint32_t)r;
		s->regions = cs->regions;
		if (r && cs->hits.nr_probes) {
			s->nr_probes = cs->hits.nr_probes;
			s->probe_hits = cs->hits.hits;
		}
		s->ops_filters = c->filters_json;	/* what sz_filter_passed is of */
		c->nr_pending++;
	}
	if (skipped && !c->nr_pending && targets_gone(c)) {
		dctl_capture_end(c, DAMONCTL_REC_END_TARGET_EXITED);
		return 0;
	}
	take_stats(c, now);
	dctl_capture_take_footprint(c);
	c->nr_ticks++;
	return 0;
}

/* Sleep until the next tick; false when the capture should end instead. */
static bool wait_tick(struct damonctl_capture *c)
{
	for (;;) {
		uint64_t now = dctl_capture_mono_ns(), elapsed = dctl_capture_now_ns() - c->start_ns;
		struct timespec ts;

		if (c->requested) {
			dctl_capture_end(c, (enum damonctl_rec_end_reason)(c->requested - 1));
			return false;
		}
		if (c->o.duration_us && elapsed >= c->o.duration_us * 1000) {
			dctl_capture_end(c, DAMONCTL_REC_END_DURATION);
			return false;
		}
		if (c->o.count && c->nr_ticks >= c->o.count) {
			dctl_capture_end(c, DAMONCTL_REC_END_COUNT);
			return false;
		}
		if (targets_gone(c)) {
			dctl_capture_end(c, DAMONCTL_REC_END_TARGET_EXITED);
			return false;
		}
		if (now >= c->next_tick_ns)
			break;
		/* wake at least every 100 ms to notice the end of --duration */
		{
			uint64_t d = c->next_tick_ns - now;

			if (d > 100000000u)
				d = 100000000u;
			ts.tv_sec = (time_t)(d / 1000000000u);
			ts.tv_nsec = (long)(d % 1000000000u);
			nanosleep(&ts, NULL);
		}
	}
	{
		uint64_t now = dctl_capture_mono_ns(), iv = c->o.interval_us * 1000;

		if (now - c->next_tick_ns > c->max_late_ns)
			c->max_late_ns = now - c->next_tick_ns;
		c->next_tick_ns += iv;
		/* fell behind: the snapshots due meanwhile are missed (counted, not taken in a
		 * burst to catch up) */
		if (c->next_tick_ns < now) {
			c->nr_missed += (now - c->next_tick_ns) / iv + 1;
			c->next_tick_ns = now + iv;
		}
	}
	return true;
}

/* The trace method: every aggregation arrives by itself; one snapshot per target and
 * interval is kept, and the stats (when we may ask for them) follow the interval too. */
static int trace_next_item(struct damonctl_capture *c, struct damonctl_rec_item *item)
{
	for (;;) {
		struct damonctl_rec_snapshot snap;
		uint64_t now = dctl_capture_now_ns();
		int r;

		if (c->next_pending < c->nr_pending) {
			*item = c->pending[c->next_pending++];
			return 1;
		}
		if (c->requested)
			dctl_capture_end(c, (enum damonctl_rec_end_reason)(c->requested - 1));
		else if (c->o.duration_us && now - c->start_ns >= c->o.duration_us * 1000)
			dctl_capture_end(c, DAMONCTL_REC_END_DURATION);
		else if (c->o.count && c->nr_ticks >= c->o.count)
			dctl_capture_end(c, DAMONCTL_REC_END_COUNT);
		else if (targets_gone(c))
			dctl_capture_end(c, DAMONCTL_REC_END_TARGET_EXITED);
		if (c->ended)
			return 0;
		r = dctl_trace_src_next(c->trace, 100, &snap);
		if (r < 0)
			return r;
		if (!r) {
			if (dctl_capture_kdamond_gone(c))
				dctl_capture_end(c, DAMONCTL_REC_END_KDAMOND_STOPPED);
			continue;
		}
		if (snap.target < 0 || snap.target >= 64 || snap.end_ns < c->start_ns ||
		    (c->last_kept_ns[snap.target] &&
		     snap.end_ns - c->last_kept_ns[snap.target] + 500000 < c->o.interval_us * 1000))
			continue;
		if (c->last_kept_ns[snap.target]) {
			/* the events come once per aggregation: a gap of more than one and a
			 * half of the intervals they can come at is missed snapshots */
			uint64_t iv = (c->o.interval_us > c->aggr_us ? c->o.interval_us :
				       c->aggr_us) * 1000;
			uint64_t gap = snap.end_ns - c->last_kept_ns[snap.target];

			if (gap > iv + iv / 2)
				c->nr_missed += (gap + iv / 2) / iv - 1;
			if (gap > iv && gap - iv > c->max_late_ns)
				c->max_late_ns = gap - iv;
		}
		c->last_kept_ns[snap.target] = snap.end_ns;
		c->nr_pending = c->next_pending = 0;
		c->pending[0] = (struct damonctl_rec_item){ .sz = sizeof(c->pending[0]),
							    .type = DAMONCTL_REC_SNAPSHOT,
							    .snapshot = &c->pend_snap[0] };
		snap.kdamond = c->kdamond;
		snap.context = 0;
		snap.start_ns = snap.end_ns - c->aggr_us * 1000;
		snap.sample_us = c->sample_us;
		snap.aggr_us = c->aggr_us;
		snap.update_us = c->update_us;
		c->pend_snap[0] = snap;
		c->nr_pending = 1;
		c->nr_ticks++;
		if (c->may_write && now >= c->next_stats_ns) {
			take_stats(c, now);
			c->next_stats_ns = now + c->o.interval_us * 1000;
		}
		if (now >= c->next_footprint_ns) {
			dctl_capture_take_footprint(c);
			c->next_footprint_ns = now + c->o.interval_us * 1000;
		}
	}
}

/* A tick that met another program's tried-regions update of the same kdamond (the damonc
 * agent serving it updates them every round): the kernel removes and recreates the region
 * directories then, and a read finds files gone (ENOENT, ENODEV for one open). Taken again,
 * a few times. */
#define TICK_TRIES 5

static bool changed_under_read(struct damonctl_capture *c, int r)
{
	return (r == -ENOENT || r == -ENODEV) && !c->ended;
}

static int next_item(struct damonctl_capture *c, struct damonctl_rec_item *item)
{
	if (c->trace && c->next_pending >= c->nr_pending)
		return trace_next_item(c, item);
	while (c->next_pending >= c->nr_pending) {
		int r;

		uint64_t t;

		if (c->ended || !wait_tick(c))
			return 0;
		t = dctl_capture_mono_ns();
		r = tick(c);
		for (int tries = 1; changed_under_read(c, r) && tries < TICK_TRIES; tries++) {
			dctl_busy_wait(tries);
			damonctl_clear_error(c->ctx);
			r = tick(c);
		}
		c->work_ns += dctl_capture_mono_ns() - t;
		if (r)
			return r;
		if (c->ended)
			return 0;
	}
	*item = c->pending[c->next_pending++];
	return 1;
}

DAMONCTL_API int damonctl_capture_next_v0_4(struct damonctl_capture *c,
					    struct damonctl_rec_item *item)
{
	struct damonctl_rec_item it;
	int r;

	if (!c || !item || item->sz < REC_ITEM_MIN_SZ)
		return -EINVAL;
	r = next_item(c, &it);
	if (r == 1)
		rec_item_out(item, &it);
	/* DAMON gives paddr addresses in units of addr_unit (6.18); a record holds bytes */
	if (r == 1 && it.type == DAMONCTL_REC_SNAPSHOT && c->addr_unit > 1) {
		/* the capture's own, pend_snap[], consumed once */
		struct damonctl_rec_snapshot *s = (struct damonctl_rec_snapshot *)it.snapshot;
		/* the capture's own buffer, consumed once */
		struct damonctl_rec_region *rg = (struct damonctl_rec_region *)s->regions;

		for (uint32_t i = 0; i < s->nr_regions; i++) {
			rg[i].start *= c->addr_unit;
			rg[i].end *= c->addr_unit;
			rg[i].sz_filter_passed *= c->addr_unit;
		}
		s->total_bytes *= c->addr_unit;
	}
	return r;
}
DCTL_DEFAULT_VERSION(damonctl_capture_next_v0_4, damonctl_capture_next, LIBDAMONCTL_0.4)
