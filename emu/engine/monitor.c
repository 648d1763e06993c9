// SPDX-License-Identifier: GPL-2.0-or-later
/* Sampling, aggregation and adaptive regions: the kdamond main loop of mm/damon/core.c. */
#include <string.h>

#include "filters.h"
#include "monitor.h"
#include "quota.h"
#include "regions.h"
#include "scenario.h"
#include "schemes.h"
#include "util.h"
#include "vaddr.h"
#include "walk.h"

static uint64_t sample_or_one(const struct mon_ctx *c)
{
	return c->attrs.sample_us ? c->attrs.sample_us : 1;
}

void mon_start(struct mon_ctx *c)
{
	uint64_t sample = sample_or_one(c);

	c->passed_sis = 0;
	c->next_aggr_sis = c->attrs.aggr_us / sample;
	c->next_update_sis = c->attrs.update_us / sample;
	c->next_tune_sis = c->next_aggr_sis * c->attrs.goal_aggrs;
	for (int i = 0; i < c->nr_schemes; i++)
		mon_scheme_set_next_apply(c, &c->schemes[i]);
	va_init(c);
	c->sz_limit = mon_apply_min_nr_regions(c);
}

bool mon_need_stop(const struct mon_ctx *c)
{
	if (c->corrupted)
		return true;
	if (!mon_ops_is_va(c->ops))
		return false;
	for (int i = 0; i < c->nr_targets; i++)
		if (va_target_valid(&c->targets[i]))
			return false;
	return true;
}

void mon_iter_begin(const struct mon_ctx *c, struct mon_iter *it)
{
	it->next_aggr_sis = c->next_aggr_sis;
	it->next_update_sis = c->next_update_sis;
	it->sample_us = c->attrs.sample_us;
}

/* damon_update_region_access_rate(): the count, and a moving sum over the last window. */
static void update_access_rate(struct mon_ctx *c, struct mon_region *r, bool accessed)
{
	uint64_t window = c->attrs.sample_us ? mon_max_nr_accesses(&c->attrs) : 1;
	uint64_t drop = (uint64_t)r->last_nr_accesses * 10000 / window;
	uint64_t bp = r->nr_accesses_bp > drop ? r->nr_accesses_bp - drop : 0;

	r->nr_accesses_bp = (unsigned int)(bp + (accessed ? 10000 : 0));
	if (accessed)
		r->nr_accesses++;
}

/* One random address per region, as the kernel samples; the scenario says if it was hit. */
static bool sample_region(struct mon_ctx *c, struct mon_target *t, const struct mon_region *r,
			  bool va, uint64_t t_us)
{
	uint64_t addr = emu_rand_range(&c->rng, r->start, r->end);
	uint32_t rate;

	if (va && !va_addr_accessible(t, addr))
		return false;
	rate = scn_rate(c->scn, va ? t->pid : -1, addr * c->addr_unit, t_us);
	if (!rate)
		return false;
	return rate >= SCN_RATE_FULL || emu_rand_range(&c->rng, 0, SCN_RATE_FULL) < rate;
}

static void check_accesses(struct mon_ctx *c)
{
	bool va = mon_ops_is_va(c->ops);
	uint64_t t_us = c->now_us - c->start_us;
	unsigned int max = 0;

	scn_refresh(c->scn, c->now_us);
	for (int i = 0; i < c->nr_targets; i++) {
		struct mon_target *t = &c->targets[i];
		bool alive = !va || va_target_valid(t);

		if (va && alive)
			va_refresh_vmas(c, t, c->attrs.aggr_us);
		for (size_t k = 0; k < t->nr; k++) {
			struct mon_region *r = &t->regions[k];

			update_access_rate(c, r, alive && sample_region(c, t, r, va, t_us));
			if (r->nr_accesses > max)
				max = r->nr_accesses;
		}
	}
	c->max_nr_accesses = max;
}

/*
 * Monitoring probes (7.2): each sample also counts, per probe, whether the sampled page
 * passes the probe's filters. Only the physical address space implements them (as in 7.2);
 * emulated physical memory is neither anonymous nor in a memcg (see filters.h).
 */
static void apply_probes(struct mon_ctx *c)
{
	const struct page_props pp = { .folio_sz = c->page_size };

	if (c->ops != EMU_OPS_PADDR || !c->nr_probes)
		return;
	for (int i = 0; i < c->nr_targets; i++) {
		for (size_t k = 0; k < c->targets[i].nr; k++) {
			struct mon_region *r = &c->targets[i].regions[k];

			for (int p = 0; p < c->nr_probes; p++)
				if (filters_probe_pass(&c->probes[p], &pp) &&
				    r->probe_hits[p] < UINT8_MAX)
					r->probe_hits[p]++;
		}
	}
}

void mon_sample(struct mon_ctx *c, const struct mon_iter *it)
{
	c->passed_sis++;
	check_accesses(c);
	apply_probes(c);
	if (c->passed_sis >= it->next_aggr_sis) {
		mon_merge_regions(c, c->max_nr_accesses / 10, c->sz_limit);
		/* online commits might have changed the limits */
		c->sz_limit = mon_apply_min_nr_regions(c);
	}
}

static uint64_t intervals_score(const struct mon_ctx *c)
{
	unsigned __int128 max_events = 0, events = 0, target;

	for (int i = 0; i < c->nr_targets; i++) {
		for (size_t k = 0; k < c->targets[i].nr; k++) {
			const struct mon_region *r = &c->targets[i].regions[k];
			uint64_t sz = mon_region_sz(r);

			max_events += (unsigned __int128)sz * c->attrs.aggr_samples;
			events += (unsigned __int128)sz * r->nr_accesses;
		}
	}
	target = max_events * c->attrs.goal_access_bp / 10000;
	if (!target)
		target = 1;
	events = events * 10000 / target;
	return events > UINT64_MAX ? UINT64_MAX : (uint64_t)events;
}

uint64_t mon_intervals_adaptation_bp(const struct mon_ctx *c)
{
	uint64_t bp = quota_feed_loop_next_input(100000000, intervals_score(c)) / 10000;

	/* [1, 10000] is rescaled to [5000, 10000]: shrink the intervals gently */
	if (bp <= 10000)
		bp = 5000 + bp / 2;
	return bp;
}

static void tune_intervals(struct mon_ctx *c)
{
	uint64_t bp = mon_intervals_adaptation_bp(c);
	struct mon_attrs a;

	if (bp == 10000)
		return;
	a = c->attrs;
	a.sample_us = emu_min(c->attrs.goal_max_sample_us,
			      emu_mult_frac(c->attrs.sample_us, bp, 10000));
	a.sample_us = emu_max(c->attrs.goal_min_sample_us, a.sample_us);
	a.aggr_us = a.sample_us * c->attrs.aggr_samples;
	mon_set_attrs(c, &a);
}

static void reset_aggregated(struct mon_ctx *c)
{
	for (int i = 0; i < c->nr_targets; i++) {
		for (size_t k = 0; k < c->targets[i].nr; k++) {
			struct mon_region *r = &c->targets[i].regions[k];

			r->last_nr_accesses = r->nr_accesses;
			r->nr_accesses = 0;
			memset(r->probe_hits, 0, sizeof(r->probe_hits));
		}
	}
}

void mon_after_sample(struct mon_ctx *c, const struct mon_iter *it)
{
	uint64_t sample;

	if (c->nr_schemes)
		schemes_apply(c);
	else
		walk_cancel(c);

	sample = sample_or_one(c);
	if (c->passed_sis >= it->next_aggr_sis) {
		if (c->attrs.goal_aggrs && c->passed_sis >= c->next_tune_sis) {
			/* so that set_attrs does not take this for the middle of an interval */
			c->next_aggr_sis = it->next_aggr_sis;
			c->next_tune_sis += c->attrs.aggr_samples * c->attrs.goal_aggrs;
			tune_intervals(c);
			sample = sample_or_one(c);
		}
		c->next_aggr_sis = it->next_aggr_sis + c->attrs.aggr_us / sample;
		reset_aggregated(c);
		mon_split_regions(c);
	}
	if (c->passed_sis >= it->next_update_sis) {
		c->next_update_sis = it->next_update_sis + c->attrs.update_us / sample;
		va_update(c);
	}
}
