/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One iteration of the kdamond main loop (kdamond_fn() in mm/damon/core.c), split so that
 * the process driver can sleep, serve requests and pause between the halves, and tests can
 * drive it without sleeping:
 *
 *	mon_start(c);
 *	while (!mon_need_stop(c)) {
 *		mon_iter_begin(c, &it);
 *		(wait for the watermarks; sleep one sampling interval; set c->now_us)
 *		mon_sample(c, &it);
 *		(while c->pause: sleep)
 *		mon_after_sample(c, &it);
 *	}
 */
#ifndef DAMON_EMU_MONITOR_H
#define DAMON_EMU_MONITOR_H

#include "ctx.h"

struct mon_iter {
	/* read at the start of an iteration; commits take effect from the next one */
	uint64_t next_aggr_sis, next_update_sis, sample_us;
};

/* kdamond_init_ctx(), the operations' init and the first min_nr_regions split. */
void mon_start(struct mon_ctx *c);
/* All targets of a vaddr/fvaddr context are gone (paddr never stops by itself). */
bool mon_need_stop(const struct mon_ctx *c);
void mon_iter_begin(const struct mon_ctx *c, struct mon_iter *it);
/* A sampling interval has passed: check accesses; merge at the end of an aggregation. */
void mon_sample(struct mon_ctx *c, const struct mon_iter *it);
/* Schemes, then the end-of-aggregation work (intervals tuning, reset, split), then update. */
void mon_after_sample(struct mon_ctx *c, const struct mon_iter *it);

/* damon_get_intervals_adaptation_bp(): how to scale the sampling interval, in bp. */
uint64_t mon_intervals_adaptation_bp(const struct mon_ctx *c);

#endif
