/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DAMOS quotas: charge windows, the effective size quota (time quota converted with the
 * measured throughput, size quota, goal tuners), and prioritisation of regions by score
 * when the quota is short (mm/damon/core.c damos_adjust_quota() and friends).
 */
#ifndef DAMON_EMU_QUOTA_H
#define DAMON_EMU_QUOTA_H

#include "ctx.h"

bool quota_is_set(const struct mon_scheme *s);
bool quota_is_full(const struct mon_ctx *c, const struct mon_scheme *s);
/* Charges an application attempt: @sz tried, @sz_applied of it applied (fail_charge). */
void quota_charge(struct mon_scheme *s, uint64_t sz, uint64_t sz_applied);
/* At each apply interval: new charge window if due, then the minimum score to apply. */
void quota_adjust(struct mon_ctx *c, struct mon_scheme *s);

/* damon_feed_loop_next_input(): proportional feedback towards a score of 10000. */
uint64_t quota_feed_loop_next_input(uint64_t last_input, uint64_t score);
/* Priority score of a region for the scheme's action, in [0, EMU_MAX_SCORE]. */
unsigned int quota_region_score(const struct mon_ctx *c, const struct mon_region *r,
				const struct mon_scheme *s);
unsigned int quota_hot_score(const struct mon_ctx *c, const struct mon_region *r,
			     const struct mon_scheme *s);

#endif
