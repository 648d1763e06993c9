// SPDX-License-Identifier: LGPL-2.1-or-later
/* Snapshots from damon_aggregated events (see trace_snap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_snap.h"

static int32_t index_of(struct trace_snap *s, uint64_t id)
{
	unsigned int i;

	/* an index already (5.16 on) */
	if (id < 64)
		return (int32_t)id;
	for (i = 0; i < s->nr_ids; i++)
		if (s->ids[i] == id)
			return (int32_t)i;
	if (s->nr_ids < 64)
		s->ids[s->nr_ids++] = id;
	return (int32_t)s->nr_ids - 1;
}

void trace_snap_lost(struct trace_snap *s)
{
	if (s->open)
		s->dropped++;
	s->open = false;
}

int trace_snap_add(struct trace_snap *s, uint64_t ts_ns, uint64_t id, uint32_t nr_regions,
		   const struct damonctl_rec_region *r, struct damonctl_rec_snapshot *snap)
{
	/* a region that does not follow: events were lost, the partial snapshot goes */
	if (s->open && (id != s->id || s->nr >= s->want ||
			(s->nr && r->start < s->regions[s->nr - 1].end)))
		trace_snap_lost(s);
	if (!s->open) {
		s->open = true;
		s->id = id;
		s->want = nr_regions;
		s->nr = 0;
		s->ts_ns = ts_ns;
	}
	if (s->nr >= s->cap) {
		size_t c = s->cap ? s->cap * 2 : 1024;
		void *q = realloc(s->regions, c * sizeof(*s->regions));

		if (!q)
			return -ENOMEM;
		s->regions = q;
		s->cap = c;
	}
	s->regions[s->nr++] = *r;
	if (s->nr < s->want)
		return 0;
	/* hand out a copy: the next events may start the next snapshot at once */
	if (s->nr > s->out_cap) {
		void *q = realloc(s->out, s->nr * sizeof(*s->out));

		if (!q)
			return -ENOMEM;
		s->out = q;
		s->out_cap = s->nr;
	}
	memcpy(s->out, s->regions, s->nr * sizeof(*s->out));
	memset(snap, 0, sizeof(*snap));
	snap->sz = sizeof(*snap);
	snap->target = index_of(s, id);
	snap->scheme = -1;
	snap->end_ns = s->ts_ns;
	snap->nr_regions = s->nr;
	snap->regions = s->out;
	for (uint32_t i = 0; i < s->nr; i++)
		snap->total_bytes += s->out[i].end - s->out[i].start;
	s->open = false;
	return 1;
}

void trace_snap_free(struct trace_snap *s)
{
	free(s->regions);
	free(s->out);
	memset(s, 0, sizeof(*s));
}
