// SPDX-License-Identifier: GPL-2.0-or-later
/* Tried-regions walks, after damos_walk() in mm/damon/core.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

int walk_start(struct mon_ctx *c)
{
	struct mon_walk *w = &c->walk;

	if (w->state != MON_WALK_IDLE)
		return -EBUSY;
	w->nr_schemes = c->nr_schemes;
	w->lists = calloc(c->nr_schemes ? (size_t)c->nr_schemes : 1, sizeof(*w->lists));
	w->total_bytes = calloc(c->nr_schemes ? (size_t)c->nr_schemes : 1,
				sizeof(*w->total_bytes));
	if (!w->lists || !w->total_bytes) {
		walk_reset(c);
		return -ENOMEM;
	}
	for (int i = 0; i < c->nr_schemes; i++)
		c->schemes[i].walk_completed = false;
	w->state = MON_WALK_ACTIVE;
	return 0;
}

void walk_record(struct mon_ctx *c, int si, const struct mon_region *r,
		 uint64_t sz_filter_passed)
{
	struct mon_walk *w = &c->walk;
	struct mon_walk_region_list *l;

	if (w->state != MON_WALK_ACTIVE || si >= w->nr_schemes || c->schemes[si].walk_completed)
		return;
	l = &w->lists[si];
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct emu_tried_region *n = realloc(l->regions, cap * sizeof(*n));

		if (!n)
			return;	/* the walk goes on without this region */
		l->regions = n;
		l->cap = cap;
	}
	l->regions[l->nr++] = (struct emu_tried_region){
		.start = r->start,
		.end = r->end,
		.nr_accesses = r->nr_accesses_bp / 10000,
		.age = r->age,
		.sz_filter_passed = sz_filter_passed,
	};
	memcpy(l->regions[l->nr - 1].probe_hits, r->probe_hits, sizeof(r->probe_hits));
	w->total_bytes[si] += mon_region_sz(r);
}

void walk_complete(struct mon_ctx *c, int si)
{
	if (c->walk.state != MON_WALK_ACTIVE)
		return;
	c->schemes[si].walk_completed = true;
	for (int i = 0; i < c->nr_schemes; i++)
		if (!c->schemes[i].walk_completed)
			return;
	for (int i = 0; i < c->nr_schemes; i++)
		c->schemes[i].walk_completed = false;
	c->walk.state = MON_WALK_DONE;
}

void walk_cancel(struct mon_ctx *c)
{
	if (c->walk.state == MON_WALK_ACTIVE)
		c->walk.state = MON_WALK_CANCELED;
}

void walk_reset(struct mon_ctx *c)
{
	struct mon_walk *w = &c->walk;

	for (int i = 0; w->lists && i < w->nr_schemes; i++)
		free(w->lists[i].regions);
	free(w->lists);
	free(w->total_bytes);
	w->lists = NULL;
	w->total_bytes = NULL;
	w->nr_schemes = 0;
	w->state = MON_WALK_IDLE;
}
