// SPDX-License-Identifier: GPL-2.0-or-later
/* Applying schemes to regions, after kdamond_apply_schemes() in mm/damon/core.c. */
#include "actions.h"
#include "filters.h"
#include "metrics.h"
#include "quota.h"
#include "regions.h"
#include "schemes.h"
#include "util.h"
#include "vaddr.h"
#include "walk.h"

bool schemes_pattern_match(const struct mon_ctx *c, const struct mon_region *r,
			   const struct mon_scheme *s)
{
	/* sizes in core address units, as sysfs passes them on (no addr_unit scaling) */
	uint64_t sz = mon_region_sz(r);
	uint64_t nr = r->nr_accesses_bp / 10000;

	(void)c;
	return s->p.sz.min <= sz && sz <= s->p.sz.max && s->p.nr_accesses.min <= nr &&
	       nr <= s->p.nr_accesses.max && s->p.age.min <= r->age && r->age <= s->p.age.max;
}

static bool valid_target(const struct mon_ctx *c, const struct mon_region *r,
			 const struct mon_scheme *s)
{
	if (!schemes_pattern_match(c, r, s))
		return false;
	if (!quota_is_set(s))
		return true;
	return quota_region_score(c, r, s) >= s->q.min_score;
}

static bool apply_due(const struct mon_ctx *c, const struct mon_scheme *s)
{
	return c->passed_sis >= s->next_apply_sis;
}

/*
 * damos_skip_charged_region(): after a window ran out of quota, the next window starts where
 * the last one stopped rather than at the first region again.
 */
static bool skip_charged(struct mon_ctx *c, int ti, size_t ri, struct mon_scheme *s)
{
	struct mon_quota *q = &s->q;
	struct mon_target *t = &c->targets[ti];
	struct mon_region *r = &t->regions[ri];

	if (q->charge_target_from < 0)
		return false;
	if (ti != q->charge_target_from)
		return true;
	if (ri == t->nr - 1) {
		q->charge_target_from = -1;
		q->charge_addr_from = 0;
		return true;
	}
	if (q->charge_addr_from && r->end <= q->charge_addr_from)
		return true;
	if (q->charge_addr_from && r->start < q->charge_addr_from) {
		uint64_t skip = emu_align_down(q->charge_addr_from - r->start, c->min_region_sz);

		if (!skip) {
			if (mon_region_sz(r) <= c->min_region_sz)
				return true;
			skip = c->min_region_sz;
		}
		reg_split_at(t, ri, skip);
		return true;
	}
	q->charge_target_from = -1;
	q->charge_addr_from = 0;
	return false;
}

static void update_stat(struct mon_scheme *s, uint64_t sz_tried, uint64_t sz_applied,
			uint64_t sz_ops_filter_passed)
{
	s->stat.nr_tried++;
	s->stat.sz_tried += sz_tried;
	if (sz_applied)
		s->stat.nr_applied++;
	s->stat.sz_applied += sz_applied;
	s->stat.sz_ops_filter_passed += sz_ops_filter_passed;
}

/* damos_apply_scheme() */
static void apply_scheme(struct mon_ctx *c, int ti, size_t ri, int si)
{
	struct mon_scheme *s = &c->schemes[si];
	struct mon_target *t = &c->targets[ti];
	uint64_t sz = mon_region_sz(&t->regions[ri]);
	uint64_t applied = 0, passed = 0, begin;

	if (quota_is_set(s) && s->q.charged_sz + sz > s->q.esz) {
		/* only what is left of the quota: cut the region there */
		sz = emu_align_down(s->q.esz - s->q.charged_sz, c->min_region_sz);
		if (!sz)
			goto stat;
		reg_split_at(t, ri, sz);
	}
	if (filters_core_out(c, ti, ri, s))
		return;
	begin = emu_now_ns();
	applied = actions_apply(c, ti, ri, s, &passed);
	walk_record(c, si, &t->regions[ri], passed);
	s->q.total_charged_ns += emu_now_ns() - begin;
	quota_charge(s, sz, applied);
	if (quota_is_full(c, s)) {
		s->q.charge_target_from = ti;
		s->q.charge_addr_from = t->regions[ri].end;
	}
	if (s->p.action != EMU_ACT_STAT)
		t->regions[ri].age = 0;
stat:
	update_stat(s, sz, applied, passed);
}

static void do_apply_schemes(struct mon_ctx *c, int ti, size_t ri)
{
	for (int si = 0; si < c->nr_schemes; si++) {
		struct mon_scheme *s = &c->schemes[si];
		struct mon_target *t = &c->targets[ti];

		if (!apply_due(c, s) || !s->wmark_active)
			continue;
		if (quota_is_full(c, s))
			continue;
		if (skip_charged(c, ti, ri, s))
			continue;
		if (s->p.max_nr_snapshots && s->p.max_nr_snapshots <= s->stat.nr_snapshots)
			continue;
		if (valid_target(c, &t->regions[ri], s))
			apply_scheme(c, ti, ri, si);
		if (ri == t->nr - 1)
			s->stat.nr_snapshots++;
	}
}

/*
 * damos_apply_target(): quota cuts may split regions; glue the pieces back where nothing is
 * lost by it, so that the region count does not grow with every window.
 */
static void apply_target(struct mon_ctx *c, int ti, uint64_t max_region_sz)
{
	struct mon_target *t = &c->targets[ti];

	for (size_t ri = 0; ri < t->nr; ri++) {
		struct mon_region *r, *prev;

		do_apply_schemes(c, ti, ri);
		if (!ri)
			continue;
		r = &t->regions[ri];
		prev = &t->regions[ri - 1];
		if (prev->end != r->start || prev->age != r->age ||
		    prev->last_nr_accesses != r->last_nr_accesses ||
		    prev->nr_accesses != r->nr_accesses || r->end - prev->start > max_region_sz)
			continue;
		prev->end = r->end;
		reg_remove(t, ri);
		ri--;
	}
}

void schemes_apply(struct mon_ctx *c)
{
	bool any = false;
	uint64_t max_region_sz;

	for (int si = 0; si < c->nr_schemes; si++) {
		struct mon_scheme *s = &c->schemes[si];

		if (!apply_due(c, s) || !s->wmark_active)
			continue;
		any = true;
		quota_adjust(c, s);
	}
	if (!any)
		return;

	max_region_sz = mon_region_sz_limit(c);
	for (int ti = 0; ti < c->nr_targets; ti++) {
		if (mon_ops_is_va(c->ops) && !va_target_valid(&c->targets[ti]))
			continue;
		apply_target(c, ti, max_region_sz);
	}
	for (int si = 0; si < c->nr_schemes; si++) {
		struct mon_scheme *s = &c->schemes[si];

		if (!apply_due(c, s))
			continue;
		walk_complete(c, si);
		mon_scheme_set_next_apply(c, s);
	}
}

static uint64_t wmark_wait_us(struct mon_ctx *c, struct mon_scheme *s)
{
	uint64_t m;

	if (metrics_wmark_value(c, s->p.wmark_metric, &m))
		return 0;
	/* outside [low, high]: off until the metric comes back between mid and high */
	if (m > s->p.wmark_high || s->p.wmark_low > m) {
		s->wmark_active = false;
		return s->p.wmark_interval_us;
	}
	if (s->p.wmark_high >= m && m >= s->p.wmark_mid && !s->wmark_active)
		return s->p.wmark_interval_us;
	s->wmark_active = true;
	return 0;
}

uint64_t schemes_wmark_wait_us(struct mon_ctx *c)
{
	uint64_t min_wait = 0;
	bool init = false;

	for (int si = 0; si < c->nr_schemes; si++) {
		uint64_t w = wmark_wait_us(c, &c->schemes[si]);

		if (!init || w < min_wait) {
			init = true;
			min_wait = w;
		}
	}
	return min_wait;
}
