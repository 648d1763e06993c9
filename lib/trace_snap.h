/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Snapshots from damon_aggregated events, whichever way they were read (trace_pipe's text
 * or the binary ring buffer): one event per region, a target's regions consecutive and in
 * address order, each event saying how many regions the snapshot has. damon_region_aggregated
 * (7.2) adds each region's probe hits.
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
	uint8_t *hits;			/* nr x np probe hits */
	uint32_t np;
	size_t hcap;
	/* target ids (kernel pointers before 5.16) to indexes */
	uint64_t ids[64];
	unsigned int nr_ids;
	uint64_t dropped;
	/* the snapshot handed out */
	struct damonctl_rec_region *out;
	size_t out_cap;
	uint8_t *out_hits;
	size_t out_hcap;
};

/*
 * One event's region: 1 when it completes a target's snapshot (@snap filled: target,
 * scheme -1, end_ns the trace clock time of its first event, regions valid until the next
 * call), 0 otherwise, -ENOMEM. A region that does not follow drops the partial snapshot.
 */
int trace_snap_add(struct trace_snap *s, uint64_t ts_ns, uint64_t id, uint32_t nr_regions,
		   const struct damonctl_rec_region *r, struct damonctl_rec_snapshot *snap);
/* The same with the region's hits of @np probes (damon_region_aggregated): a region with
 * another number of probes than the snapshot's first drops the partial snapshot. */
int trace_snap_add_hits(struct trace_snap *s, uint64_t ts_ns, uint64_t id, uint32_t nr_regions,
			const struct damonctl_rec_region *r, const uint8_t *hits, uint32_t np,
			struct damonctl_rec_snapshot *snap);
/* A region of trace_pipe's text. */
struct trace_line_region {
	uint64_t ts_ns, target_id;
	uint32_t nr_regions;
	struct damonctl_rec_region region;
	uint32_t nr_probes;
	uint8_t hits[255];
};
/*
 * "  kdamond.0-174  [000] ..... 123.456789: damon_aggregated: target_id=0 nr_regions=12
 *  4194304-79998976: 0 60", the event named @event: true with @out filled, false for a line
 * of no such event. damon_region_aggregated's (7.2) ends with " probe_hits=14 00", a hex
 * byte per probe (none after "probe_hits=" without probes): with @probes, a line without it
 * is none. @line is cut.
 */
bool trace_snap_parse_line(char *line, const char *event, bool probes,
			   struct trace_line_region *out);
/* Events were lost: the partial snapshot goes. */
void trace_snap_lost(struct trace_snap *s);
void trace_snap_free(struct trace_snap *s);

#endif
