/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Snapshots from damon_aggregated events, whichever way they were read (trace_pipe's text
 * or the binary ring buffer): one event per region, a target's regions consecutive and in
 * address order, each event saying how many regions the snapshot has.
 */
#ifndef DCTL_TRACE_SNAP_H
#define DCTL_TRACE_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "damonctl/damonctl.h"

struct trace_snap {
	/* the target being assembled */
	bool open;
	uint64_t id;
	uint32_t want;
	uint64_t ts_ns;
	struct damonctl_rec_region *regions;
	uint32_t nr;
	size_t cap;
	/* target ids (kernel pointers before 5.16) to indexes */
	uint64_t ids[64];
	unsigned int nr_ids;
	uint64_t dropped;
	/* the snapshot handed out */
	struct damonctl_rec_region *out;
	size_t out_cap;
};

/*
 * One event's region: 1 when it completes a target's snapshot (@snap filled: target,
 * scheme -1, end_ns the trace clock time of its first event, regions valid until the next
 * call), 0 otherwise, -ENOMEM. A region that does not follow drops the partial snapshot.
 */
int trace_snap_add(struct trace_snap *s, uint64_t ts_ns, uint64_t id, uint32_t nr_regions,
		   const struct damonctl_rec_region *r, struct damonctl_rec_snapshot *snap);
/* Events were lost: the partial snapshot goes. */
void trace_snap_lost(struct trace_snap *s);
void trace_snap_free(struct trace_snap *s);

#endif
