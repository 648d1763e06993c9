// SPDX-License-Identifier: GPL-2.0-or-later
/* Quotas, goal tuners and region prioritisation, after mm/damon/core.c and ops-common.c. */
#include "filters.h"
#include "metrics.h"
#include "quota.h"
#include "schemes.h"
#include "util.h"

#define MAX_SUBSCORE 100
#define MAX_AGE_IN_LOG 32

bool quota_is_set(const struct mon_scheme *s)
{
	return s->q.esz || s->p.quota_bytes || s->p.quota_ms || s->p.nr_goals;
}

bool quota_is_full(const struct mon_ctx *c, const struct mon_scheme *s)
{
	if (!quota_is_set(s))
		return false;
	if (s->q.charged_sz >= s->q.esz)
		return true;
	/* actions apply per region: less than a minimum region left is as good as full */
	return s->q.esz - s->q.charged_sz < c->min_region_sz;
}

void quota_charge(struct mon_scheme *s, uint64_t sz, uint64_t sz_applied)
{
	/* a failed attempt costs only num/denom of its size when fail_charge is on */
	if (!s->p.fail_charge_denom || sz_applied > sz)
		s->q.charged_sz += sz;
	else
		s->q.charged_sz += sz_applied + emu_mult_frac(sz - sz_applied,
							      s->p.fail_charge_num,
							      s->p.fail_charge_denom);
}

uint64_t quota_feed_loop_next_input(uint64_t last_input, uint64_t score)
{
	const uint64_t goal = 10000, min_input = 10000;
	uint64_t diff, comp;
	bool over = score > goal;

	if (score == goal)
		return last_input;
	if (score >= goal * 2)
		return min_input;
	diff = over ? score - goal : goal - score;
	comp = last_input < UINT64_MAX / diff ? last_input * diff / goal : last_input / goal * diff;
	if (over)
		return last_input - comp > min_input ? last_input - comp : min_input;
	return last_input < UINT64_MAX - comp ? last_input + comp : UINT64_MAX;
}

/* The highest goal achievement (current/target, in bp): the least aggressive wins. */
static uint64_t goals_score(struct mon_ctx *c, struct mon_scheme *s)
{
	uint64_t best = 0;

	for (int i = 0; i < s->p.nr_goals; i++) {
		struct emu_goal *g = &s->p.goals[i];
		uint64_t score;

		metrics_update_goal(c, s, i);
		if (!g->target_value)
			continue;	/* sysfs drops such goals; never divide by it */
		score = emu_mult_frac(g->current_value, 10000, g->target_value);
		if (score > best)
			best = score;
	}
	return best;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static void tune_esz_bp(struct mon_ctx *c, struct mon_scheme *s)
{
	uint64_t score = goals_score(c, s);

	if (s->p.goal_tuner == EMU_TUNER_TEMPORAL) {
		/* all or nothing: full speed until the goal is reached, then stop */
		if (score >= 10000)
			s->q.esz_bp = 0;
		else if (s->p.quota_bytes)
			s->q.esz_bp = sat_mul(s->p.quota_bytes, 10000);
		else
			s->q.esz_bp = UINT64_MAX;
		return;
	}
	s->q.esz_bp = quota_feed_loop_next_input(emu_max(s->q.esz_bp, 10000), score);
}

/* damos_set_effective_quota() */
static void set_effective_quota(struct mon_ctx *c, struct mon_scheme *s)
{
	struct mon_quota *q = &s->q;
	uint64_t esz = UINT64_MAX;

	if (!s->p.quota_ms && !s->p.nr_goals) {
		q->esz = s->p.quota_bytes;
		return;
	}
	if (s->p.nr_goals) {
		tune_esz_bp(c, s);
		esz = q->esz_bp / 10000;
	}
	if (s->p.quota_ms) {
		/* bytes per ms of the actions so far; a guess before any was timed */
		uint64_t throughput = q->total_charged_ns ?
			emu_mult_frac(q->total_charged_sz, 1000000, q->total_charged_ns) :
			c->page_size * 1024;

		esz = emu_min(sat_mul(throughput, s->p.quota_ms), esz);
		esz = emu_max(c->min_region_sz, esz);
	}
	if (s->p.quota_bytes && s->p.quota_bytes < esz)
		esz = s->p.quota_bytes;
	q->esz = esz;
}

void quota_adjust(struct mon_ctx *c, struct mon_scheme *s)
{
	struct mon_quota *q = &s->q;
	uint64_t now_ms = c->now_us / 1000, cumulated = 0;
	unsigned int score, max_score = 0;

	if (!s->p.quota_ms && !s->p.quota_bytes && !s->p.nr_goals)
		return;

	if (!q->total_charged_sz && !q->window_started) {
		q->window_started = true;
		q->charged_from_ms = now_ms;
		set_effective_quota(c, s);
	}
	if (now_ms >= q->charged_from_ms + s->p.quota_reset_interval_ms) {
		if (quota_is_full(c, s))
			s->stat.qt_exceeds++;
		q->total_charged_sz += q->charged_sz;
		q->charged_from_ms = now_ms;
		q->charged_sz = 0;
		set_effective_quota(c, s);
	}

	/* the score histogram of eligible memory decides what gets the quota first */
	for (unsigned int i = 0; i <= EMU_MAX_SCORE; i++)
		c->hist[i] = 0;
	for (int ti = 0; ti < c->nr_targets; ti++) {
		struct mon_target *t = &c->targets[ti];

		for (size_t ri = 0; ri < t->nr; ri++) {
			if (!schemes_pattern_match(c, &t->regions[ri], s))
				continue;
			if (filters_core_out(c, ti, ri, s))
				continue;
			score = quota_region_score(c, &t->regions[ri], s);
			c->hist[score] += mon_region_sz(&t->regions[ri]);
			if (score > max_score)
				max_score = score;
		}
	}
	for (score = max_score;; score--) {
		cumulated += c->hist[score];
		if (cumulated >= q->esz || !score)
			break;
	}
	q->min_score = score;
}

static int ilog2_u64(uint64_t v)
{
	int l = -1;

	while (v) {
		v >>= 1;
		l++;
	}
	return l;
}

unsigned int quota_hot_score(const struct mon_ctx *c, const struct mon_region *r,
			     const struct mon_scheme *s)
{
	int64_t fw = s->p.weight_nr_accesses, aw = s->p.weight_age;
	int64_t freq = (int64_t)emu_mult_frac(r->nr_accesses_bp / 10000, MAX_SUBSCORE,
					      mon_max_nr_accesses(&c->attrs));
	uint64_t age_sec = (uint64_t)r->age * c->attrs.aggr_us / 1000000;
	int64_t age_log = 0, age_sub, hot;

	if (age_sec)
		age_log = ilog2_u64(age_sec) + 1 < MAX_AGE_IN_LOG ? ilog2_u64(age_sec) + 1 :
								    MAX_AGE_IN_LOG;
	/* not accessed: the older, the colder */
	if (!freq)
		age_log = -age_log;
	age_sub = (age_log + MAX_AGE_IN_LOG) * MAX_SUBSCORE / MAX_AGE_IN_LOG / 2;
	hot = fw * freq + aw * age_sub;
	if (fw + aw)
		hot /= fw + aw;
	hot = hot * EMU_MAX_SCORE / MAX_SUBSCORE;
	if (hot > EMU_MAX_SCORE)
		hot = EMU_MAX_SCORE;
	return hot < 0 ? 0 : (unsigned int)hot;
}

unsigned int quota_region_score(const struct mon_ctx *c, const struct mon_region *r,
				const struct mon_scheme *s)
{
	bool paddr = c->ops == EMU_OPS_PADDR;

	switch (s->p.action) {
	case EMU_ACT_PAGEOUT:
	case EMU_ACT_MIGRATE_COLD:
		return EMU_MAX_SCORE - quota_hot_score(c, r, s);
	case EMU_ACT_LRU_DEPRIO:
		return paddr ? EMU_MAX_SCORE - quota_hot_score(c, r, s) : EMU_MAX_SCORE;
	case EMU_ACT_MIGRATE_HOT:
		return quota_hot_score(c, r, s);
	case EMU_ACT_LRU_PRIO:
		return paddr ? quota_hot_score(c, r, s) : EMU_MAX_SCORE;
	default:
		return EMU_MAX_SCORE;
	}
}
