/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Applying DAMOS schemes (kdamond_apply_schemes() and what it calls in mm/damon/core.c):
 * access pattern matching, quota charging, filters, actions, stats, walks, watermarks.
 */
#ifndef DAMON_EMU_SCHEMES_H
#define DAMON_EMU_SCHEMES_H

#include "ctx.h"

/* __damos_valid_target(): the region fits the scheme's access pattern (closed ranges). */
bool schemes_pattern_match(const struct mon_ctx *c, const struct mon_region *r,
			   const struct mon_scheme *s);
/* Applies every scheme whose apply interval has come. */
void schemes_apply(struct mon_ctx *c);
/*
 * Watermarks of every scheme (damos_wmark_wait_us()): returns 0 if the kdamond may go on,
 * else how long to wait before checking again (every scheme deactivated).
 */
uint64_t schemes_wmark_wait_us(struct mon_ctx *c);

#endif
