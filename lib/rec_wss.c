// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Working set sizes (damonctl_wss_bytes(3)): a snapshot's accessed bytes, and the working
 * set of all targets summed per aggregation over a record, in bounded memory.
 */
#include <errno.h>
#include <stdlib.h>

#include "damonctl/damonctl.h"

uint64_t damonctl_wss_bytes(const struct damonctl_rec_snapshot *s, uint64_t min_rate_bp)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *r = &s->regions[i];
		uint64_t bp;

		if (!r->nr_accesses)
			continue;
		bp = s->aggr_us && s->sample_us ?
			damonctl_nr_accesses_to_rate_bp(r->nr_accesses, s->sample_us, s->aggr_us) : 0;
		if (bp >= min_rate_bp)
			sum += r->end - r->start;
	}
	return sum;
}

/* The working set of the snapshots that ended at one time: one aggregation's, of all
 * targets. damonc's records come in time order, damo's target after target: the groups
 * stay open until WSS_OPEN newer ones are, which is exact for the first and for damo's of
 * up to WSS_OPEN snapshots a target, and keeps memory bounded. */
#define WSS_OPEN 4096
struct wss_group {
	uint64_t end_ns, bytes;
};

struct damonctl_wss_total {
	struct damonctl_qhist *values;
	struct wss_group open[WSS_OPEN];	/* a ring, oldest at @first */
	size_t first, nr_open;
};

struct damonctl_wss_total *damonctl_wss_total_new(void)
{
	struct damonctl_wss_total *t = calloc(1, sizeof(*t));

	if (t && !(t->values = damonctl_qhist_new())) {
		free(t);
		return NULL;
	}
	return t;
}

void damonctl_wss_total_free(struct damonctl_wss_total *t)
{
	if (!t)
		return;
	damonctl_qhist_free(t->values);
	free(t);
}

void damonctl_wss_total_feed(struct damonctl_wss_total *t, const struct damonctl_rec_snapshot *s)
{
	struct wss_group *g;
	size_t i;

	/* newest first: in time order, the snapshot's group is the last one opened */
	for (i = t->nr_open; i-- > 0;) {
		g = &t->open[(t->first + i) % WSS_OPEN];
		if (g->end_ns == s->end_ns) {
			g->bytes += damonctl_wss_bytes(s, 0);
			return;
		}
	}
	if (t->nr_open == WSS_OPEN) {
		damonctl_qhist_add(t->values, t->open[t->first].bytes);
		t->first = (t->first + 1) % WSS_OPEN;
		t->nr_open--;
	}
	g = &t->open[(t->first + t->nr_open++) % WSS_OPEN];
	g->end_ns = s->end_ns;
	g->bytes = damonctl_wss_bytes(s, 0);
}

const struct damonctl_qhist *damonctl_wss_total_values(struct damonctl_wss_total *t)
{
	for (; t->nr_open; t->nr_open--, t->first = (t->first + 1) % WSS_OPEN)
		damonctl_qhist_add(t->values, t->open[t->first].bytes);
	return t->values;
}
