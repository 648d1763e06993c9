/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damos_walk(): collects the regions each scheme tries during one of its apply intervals,
 * for the tried_regions files. One walk at a time.
 */
#ifndef DAMON_EMU_WALK_H
#define DAMON_EMU_WALK_H

#include "ctx.h"

/* Returns 0, or -EBUSY while another walk runs. */
int walk_start(struct mon_ctx *c);
/* The scheme @si tried region @r (called after the action, as the kernel does). */
void walk_record(struct mon_ctx *c, int si, const struct mon_region *r,
		 uint64_t sz_filter_passed);
/* Scheme @si has passed an apply interval; the walk is done once all have. */
void walk_complete(struct mon_ctx *c, int si);
/* The walk cannot finish (no scheme, paused, deactivated, stopping). */
void walk_cancel(struct mon_ctx *c);
/* Forgets the results (after they were sent) and returns to idle. */
void walk_reset(struct mon_ctx *c);

#endif
