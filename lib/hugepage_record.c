// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Huge pages as a record shows them, one item at a time (bounded memory):
 *
 * - per snapshot of the record's first series (kdamond, target, scheme), the accessed memory
 *   that whole 2 MiB-aligned huge pages could hold: what a collapse scheme could act on;
 * - the collapse and hugepage schemes' recorded stats: what they tried and applied between
 *   their first and their last stats item.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define HPAGE DAMONCTL_HUGEPAGE_SIZE
#define MAX_SCHEMES 32

struct rec_scheme {
	uint32_t kdamond, scheme;
	char action[24];
	uint64_t first[4], last[4];	/* nr_tried, sz_tried, nr_applied, sz_applied */
};

struct damonctl_hugepage_rec {
	struct damonctl_hugepage_rec_series series;
	bool have_series;
	int32_t target, scheme;
	size_t nr_schemes;
	struct rec_scheme schemes[MAX_SCHEMES];
};

DAMONCTL_API int damonctl_hugepage_rec_new(struct damonctl_hugepage_rec **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

DAMONCTL_API void damonctl_hugepage_rec_free(struct damonctl_hugepage_rec *h)
{
	free(h);
}

static uint64_t aligned(uint64_t start, uint64_t end)
{
	uint64_t lo = (start + HPAGE - 1) / HPAGE * HPAGE, hi = end / HPAGE * HPAGE;

	return hi > lo ? hi - lo : 0;
}

/* Adjacent accessed regions make one span: a huge page may straddle two regions. */
DAMONCTL_API uint64_t damonctl_hugepage_rec_huge_bytes(const struct damonctl_rec_snapshot *s)
{
	uint64_t sum = 0, a = 0, b = 0;
	bool open = false;
	uint32_t i;

	for (i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *r = &s->regions[i];

		if (!r->nr_accesses)
			continue;
		if (open && r->start == b) {
			b = r->end;
			continue;
		}
		if (open)
			sum += aligned(a, b);
		a = r->start;
		b = r->end;
		open = true;
	}
	return open ? sum + aligned(a, b) : sum;
}

/* 1 with the snapshot's bytes when it is of the first series, as the other reports take. */
static int take_snapshot(struct damonctl_hugepage_rec *h, const struct damonctl_rec_snapshot *s,
			 uint64_t *bytes)
{
	struct damonctl_hugepage_rec_series *se = &h->series;
	uint64_t v;

	if (!h->have_series) {
		h->have_series = true;
		se->kdamond = s->kdamond;
		h->target = s->target;
		h->scheme = s->scheme;
		se->first_ns = s->end_ns;
	}
	if (s->kdamond != se->kdamond || s->target != h->target || s->scheme != h->scheme)
		return 0;
	v = damonctl_hugepage_rec_huge_bytes(s);
	if (!se->snapshots)
		se->first = v;
	se->last = v;
	if (v > se->max)
		se->max = v;
	se->last_ns = s->end_ns;
	se->snapshots++;
	*bytes = v;
	return 1;
}

/* A collapse or hugepage scheme's stats: its first and last counters. */
static void take_stats(struct damonctl_hugepage_rec *h, const struct damonctl_rec_stats *st)
{
	struct rec_scheme *p = NULL;
	size_t i;

	if (strcmp(st->action, "collapse") && strcmp(st->action, "hugepage"))
		return;
	for (i = 0; i < h->nr_schemes && !p; i++)
		if (h->schemes[i].kdamond == st->kdamond && h->schemes[i].scheme == st->scheme)
			p = &h->schemes[i];
	if (!p) {
		if (h->nr_schemes == MAX_SCHEMES)
			return;
		p = &h->schemes[h->nr_schemes++];
		p->kdamond = st->kdamond;
		p->scheme = st->scheme;
		memcpy(p->action, st->action, sizeof(p->action));
		memcpy(p->first, st->v, sizeof(p->first));
	}
	memcpy(p->last, st->v, sizeof(p->last));
}

DAMONCTL_API int damonctl_hugepage_rec_add(struct damonctl_hugepage_rec *h,
					   const struct damonctl_rec_item *it, uint64_t *bytes)
{
	uint64_t v;

	if (!h || !it || (it->type == DAMONCTL_REC_SNAPSHOT && !it->snapshot) ||
	    (it->type == DAMONCTL_REC_STATS && !it->stats))
		return -EINVAL;
	if (it->type == DAMONCTL_REC_SNAPSHOT) {
		if (!take_snapshot(h, it->snapshot, &v))
			return 0;
		if (bytes)
			*bytes = v;
		return 1;
	}
	if (it->type == DAMONCTL_REC_STATS)
		take_stats(h, it->stats);
	return 0;
}

/* Copy what the caller's struct (@sz long) has room for. */
static void copy_out(void *dst, const void *src, size_t sz, size_t full)
{
	memcpy(dst, src, sz < full ? sz : full);
}

DAMONCTL_API int damonctl_hugepage_rec_get_series(const struct damonctl_hugepage_rec *h,
						  struct damonctl_hugepage_rec_series *s)
{
	size_t sz;

	if (!h || !s || s->sz < sizeof(size_t))
		return -EINVAL;
	sz = s->sz;
	copy_out(s, &h->series, sz, sizeof(*s));
	s->sz = sz;
	return 0;
}

DAMONCTL_API size_t damonctl_hugepage_rec_nr_schemes(const struct damonctl_hugepage_rec *h)
{
	return h ? h->nr_schemes : 0;
}

DAMONCTL_API int damonctl_hugepage_rec_get_scheme(const struct damonctl_hugepage_rec *h,
						  size_t i, struct damonctl_hugepage_rec_scheme *s)
{
	struct damonctl_hugepage_rec_scheme v = { .sz = sizeof(v) };
	const struct rec_scheme *p;
	size_t sz;

	if (!h || !s || s->sz < sizeof(size_t))
		return -EINVAL;
	if (i >= h->nr_schemes)
		return -ENOENT;
	p = &h->schemes[i];
	v.kdamond = p->kdamond;
	v.scheme = p->scheme;
	memcpy(v.action, p->action, sizeof(v.action));
	v.nr_tried = p->last[0] - p->first[0];
	v.sz_tried = p->last[1] - p->first[1];
	v.nr_applied = p->last[2] - p->first[2];
	v.sz_applied = p->last[3] - p->first[3];
	sz = s->sz;
	copy_out(s, &v, sz, sizeof(v));
	s->sz = sz;
	return 0;
}
