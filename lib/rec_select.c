// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A selection of a record's items, fed one at a time: one series (kdamond, context, target,
 * scheme), a time range relative to the record's first snapshot, regions clipped to an
 * address range. Memory stays bounded by one snapshot's regions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record_internal.h"

struct damonctl_rec_select {
	struct damonctl_rec_select_opts o;
	bool locked;			/* the series is chosen (one_series) */
	struct damonctl_rec_snapshot key;	/* its kdamond, context, target, scheme */
	struct damonctl_rec_snapshot *skipped;	/* the series passed over (skip_series) */
	uint32_t nr_skipped;
	bool have_base;
	uint64_t base_ns;
	struct damonctl_rec_snapshot snap;	/* a clipped snapshot's copy */
	struct damonctl_rec_region *clip;
	size_t clip_cap;
	uint8_t *hits;				/* the clipped regions' probe hits */
	size_t hits_cap;
};

int damonctl_rec_select_new(const struct damonctl_rec_select_opts *o,
			    struct damonctl_rec_select **out)
{
	struct damonctl_rec_select *sel;

	if (!o || !out || o->sz < sizeof(*o) || o->time_from_us > o->time_to_us)
		return -EINVAL;
	sel = calloc(1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	sel->o = *o;
	if (o->one_series && o->skip_series) {
		/* every series passed over is remembered: not one a later snapshot of it takes */
		sel->skipped = calloc(o->skip_series, sizeof(*sel->skipped));
		if (!sel->skipped) {
			free(sel);
			return -ENOMEM;
		}
	}
	*out = sel;
	return 0;
}

void damonctl_rec_select_free(struct damonctl_rec_select *sel)
{
	if (!sel)
		return;
	free(sel->clip);
	free(sel->hits);
	free(sel->skipped);
	free(sel);
}

static bool same_series(const struct damonctl_rec_snapshot *a,
			const struct damonctl_rec_snapshot *b)
{
	return a->kdamond == b->kdamond && a->context == b->context &&
	       a->target == b->target && a->scheme == b->scheme;
}

/* The kdamond and target asked for and, in one_series, the first series that has them. */
static bool pick(struct damonctl_rec_select *sel, const struct damonctl_rec_snapshot *s)
{
	if (sel->o.kdamond >= 0 && s->kdamond != (uint64_t)sel->o.kdamond)
		return false;
	if (sel->o.target >= 0 && s->target != sel->o.target)
		return false;
	if (!sel->o.one_series)
		return true;
	if (!sel->locked) {
		for (uint32_t i = 0; i < sel->nr_skipped; i++)
			if (same_series(s, &sel->skipped[i]))
				return false;
		if (sel->nr_skipped < sel->o.skip_series) {
			sel->skipped[sel->nr_skipped++] = *s;
			return false;
		}
		sel->locked = true;
		sel->key.kdamond = s->kdamond;
		sel->key.context = s->context;
		sel->key.target = s->target;
		sel->key.scheme = s->scheme;
	}
	return same_series(s, &sel->key);
}

/* Times before the record's beginning count as its beginning. */
static bool in_time(const struct damonctl_rec_select *sel, uint64_t ns)
{
	uint64_t rel = ns >= sel->base_ns ? (ns - sel->base_ns) / 1000 : 0;

	return rel >= sel->o.time_from_us && rel <= sel->o.time_to_us;
}

/* A region cut by the range keeps the share of its filter-passed bytes that it keeps of
 * its size: the record does not say where in the region they are; its probe hits, counts of
 * its samples as nr_accesses is, stay whole. The item then points to sel->snap, the copy
 * clipped. */
static int clip(struct damonctl_rec_select *sel, struct damonctl_rec_item *it)
{
	uint64_t lo = sel->o.addr_start, hi = sel->o.addr_end, total = 0;
	struct damonctl_rec_snapshot *s = &sel->snap;
	uint32_t i, n = 0, np;

	if (lo >= hi)
		return 0;
	if (rec_snapshot_in(it->snapshot, s))
		return -EINVAL;
	np = s->probe_hits ? s->nr_probes : 0;
	if ((size_t)s->nr_regions * np > sel->hits_cap) {
		void *p = realloc(sel->hits, (size_t)s->nr_regions * np);

		if (!p)
			return -ENOMEM;
		sel->hits = p;
		sel->hits_cap = (size_t)s->nr_regions * np;
	}
	if (s->nr_regions > sel->clip_cap) {
		void *p = realloc(sel->clip, s->nr_regions * sizeof(*sel->clip));

		if (!p)
			return -ENOMEM;
		sel->clip = p;
		sel->clip_cap = s->nr_regions;
	}
	for (i = 0; i < s->nr_regions; i++) {
		struct damonctl_rec_region r = s->regions[i];

		if (r.end <= lo || r.start >= hi)
			continue;
		if (r.start < lo || r.end > hi) {
			uint64_t sz = r.end - r.start;

			r.start = r.start < lo ? lo : r.start;
			r.end = r.end > hi ? hi : r.end;
			if (r.sz_filter_passed)
				r.sz_filter_passed = (uint64_t)((double)r.sz_filter_passed *
							(double)(r.end - r.start) / (double)sz);
		}
		total += r.end - r.start;
		if (np)
			memcpy(sel->hits + (size_t)n * np, s->probe_hits + (size_t)i * np, np);
		sel->clip[n++] = r;
	}
	s->regions = sel->clip;
	s->nr_regions = n;
	s->nr_probes = n ? np : 0;
	s->probe_hits = n && np ? sel->hits : NULL;
	s->total_bytes = total;
	it->snapshot = s;
	return 0;
}

static void set_base(struct damonctl_rec_select *sel, uint64_t ns)
{
	if (!sel->have_base) {
		sel->have_base = true;
		sel->base_ns = ns;
	}
}

int damonctl_rec_select_item(struct damonctl_rec_select *sel, struct damonctl_rec_item *it)
{
	int r;

	if (!sel || !it || it->sz < REC_ITEM_MIN_SZ)
		return -EINVAL;
	switch (it->type) {
	case DAMONCTL_REC_SNAPSHOT:
		if (!it->snapshot)
			return -EINVAL;
		set_base(sel, it->snapshot->start_ns);
		/* the time range first: the series chosen is one with snapshots in it, as a
		 * count of the series a selection keeps finds them */
		if (!in_time(sel, it->snapshot->end_ns) || !pick(sel, it->snapshot))
			return 0;
		r = clip(sel, it);
		return r ? r : 1;
	case DAMONCTL_REC_FOOTPRINT:
		return in_time(sel, it->time_ns);
	case DAMONCTL_REC_STATS:
		if (!it->stats)
			return -EINVAL;
		set_base(sel, it->stats->time_ns);
		if (sel->o.kdamond >= 0 && it->stats->kdamond != (uint64_t)sel->o.kdamond)
			return 0;
		return in_time(sel, it->stats->time_ns);
	default:
		return 1;
	}
}

uint64_t damonctl_rec_select_base_ns(const struct damonctl_rec_select *sel)
{
	return sel ? sel->base_ns : 0;
}

int damonctl_rec_select_series(const struct damonctl_rec_select *sel,
			       struct damonctl_rec_snapshot *s)
{
	if (!sel || !s || s->sz < REC_SNAP_MIN_SZ)
		return -EINVAL;
	if (!sel->locked)
		return -ENOENT;
	s->kdamond = sel->key.kdamond;
	s->context = sel->key.context;
	s->target = sel->key.target;
	s->scheme = sel->key.scheme;
	return 0;
}

int damonctl_rec_select_parse_time(const char *s, struct damonctl_rec_select_opts *o,
				   size_t *bad)
{
	const char *comma = s ? strchr(s, ',') : NULL;
	uint64_t from = 0, to = UINT64_MAX;
	char a[64];
	size_t n;

	if (!comma || !o || !bad || (n = (size_t)(comma - s)) >= sizeof(a))
		return -EINVAL;
	memcpy(a, s, n);
	a[n] = '\0';
	*bad = 0;
	if (n && damonctl_parse_time_us(a, &from))
		return -EBADMSG;
	*bad = n + 1;
	if (comma[1] && damonctl_parse_time_us(comma + 1, &to))
		return -EBADMSG;
	if (from > to)
		return -ERANGE;
	o->time_from_us = from;
	o->time_to_us = to;
	return 0;
}

/* An address (decimal or 0x hex), or a size such as 4G. */
static int parse_addr(const char *s, uint64_t *v)
{
	return damonctl_parse_u64(s, v) && damonctl_parse_size(s, v) ? -EBADMSG : 0;
}

int damonctl_rec_select_parse_addr(const char *s, struct damonctl_rec_select_opts *o)
{
	const char *dash = s ? strchr(s, '-') : NULL;
	uint64_t start, end;
	char a[64];
	size_t n;

	if (!dash || !o || (n = (size_t)(dash - s)) >= sizeof(a) || !n)
		return -EINVAL;
	memcpy(a, s, n);
	a[n] = '\0';
	if (parse_addr(a, &start) || parse_addr(dash + 1, &end))
		return -EBADMSG;
	if (start >= end)
		return -ERANGE;
	o->addr_start = start;
	o->addr_end = end;
	return 0;
}
