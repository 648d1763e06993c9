// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Regions of a target, kept in an array sorted by address. The kernel uses a list; an array
 * is simpler here and the counts are small (max_nr_regions, 1000 by default).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "regions.h"
#include "util.h"

int reg_insert(struct mon_target *t, size_t idx, const struct mon_region *r)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct mon_region *n = realloc(t->regions, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->regions = n;
		t->cap = cap;
	}
	memmove(&t->regions[idx + 1], &t->regions[idx], (t->nr - idx) * sizeof(*r));
	t->regions[idx] = *r;
	t->nr++;
	return 0;
}

void reg_remove(struct mon_target *t, size_t idx)
{
	memmove(&t->regions[idx], &t->regions[idx + 1], (t->nr - idx - 1) * sizeof(*t->regions));
	t->nr--;
}

int reg_split_at(struct mon_target *t, size_t idx, uint64_t sz)
{
	struct mon_region n = t->regions[idx];	/* the new one inherits the access state */

	n.start = t->regions[idx].start + sz;
	if (reg_insert(t, idx + 1, &n))
		return -ENOMEM;
	t->regions[idx].end = n.start;
	return 0;
}

static bool intersects(const struct mon_region *r, const struct mon_range *re)
{
	return !(r->end <= re->start || re->end <= r->start);
}

static struct mon_region new_region(uint64_t start, uint64_t end)
{
	return (struct mon_region){ .start = start, .end = end };
}

int reg_set_ranges(struct mon_target *t, const struct mon_range *ranges, size_t n,
		   uint64_t min_sz)
{
	size_t i, ri = 0;

	/* drop regions that no range touches */
	for (i = 0; i < t->nr;) {
		size_t k;

		for (k = 0; k < n && !intersects(&t->regions[i], &ranges[k]); k++)
			;
		if (k == n)
			reg_remove(t, i);
		else
			i++;
	}

	for (size_t k = 0; k < n; k++) {
		const struct mon_range *range = &ranges[k];
		size_t first = SIZE_MAX, last = 0;
		uint64_t start = emu_align_down(range->start, min_sz);
		uint64_t end = emu_align_up(range->end, min_sz);

		for (i = ri; i < t->nr; i++) {
			if (intersects(&t->regions[i], range)) {
				if (first == SIZE_MAX)
					first = i;
				last = i;
			}
			if (t->regions[i].start >= range->end)
				break;
		}
		ri = i;
		if (first == SIZE_MAX) {
			struct mon_region r = new_region(start, end);

			if (reg_insert(t, ri, &r))
				return -ENOMEM;
			ri++;
			continue;
		}
		t->regions[first].start = start;
		t->regions[last].end = end;
		/* fill the holes between the intersecting regions */
		for (i = first; i < last; i++) {
			if (t->regions[i].end != t->regions[i + 1].start) {
				struct mon_region r =
					new_region(t->regions[i].end, t->regions[i + 1].start);

				if (reg_insert(t, i + 1, &r))
					return -ENOMEM;
				last++;
				i++;
			}
		}
		ri = last + 1;
	}
	return 0;
}

size_t mon_nr_regions(const struct mon_ctx *c)
{
	size_t n = 0;

	for (int i = 0; i < c->nr_targets; i++)
		n += c->targets[i].nr;
	return n;
}

uint64_t mon_region_sz_limit(const struct mon_ctx *c)
{
	uint64_t sz = 0;

	for (int i = 0; i < c->nr_targets; i++)
		for (size_t k = 0; k < c->targets[i].nr; k++)
			sz += mon_region_sz(&c->targets[i].regions[k]);
	if (c->attrs.min_nr_regions)
		sz /= c->attrs.min_nr_regions;
	return sz < c->min_region_sz ? c->min_region_sz : sz;
}

uint64_t mon_apply_min_nr_regions(struct mon_ctx *c)
{
	uint64_t max_sz = emu_align_up(mon_region_sz_limit(c), c->min_region_sz);

	for (int i = 0; i < c->nr_targets; i++) {
		struct mon_target *t = &c->targets[i];

		for (size_t k = 0; k < t->nr; k++) {
			while (mon_region_sz(&t->regions[k]) > max_sz) {
				if (reg_split_at(t, k, max_sz))
					return max_sz;
				k++;
			}
		}
	}
	return max_sz;
}

static unsigned int diff(unsigned int a, unsigned int b)
{
	return a > b ? a - b : b - a;
}

static void merge_two(struct mon_target *t, size_t l)
{
	struct mon_region *a = &t->regions[l], *b = &t->regions[l + 1];
	uint64_t sa = mon_region_sz(a), sb = mon_region_sz(b);

	a->nr_accesses = (unsigned int)((a->nr_accesses * sa + b->nr_accesses * sb) / (sa + sb));
	a->nr_accesses_bp = a->nr_accesses * 10000;
	a->age = (unsigned int)((a->age * sa + b->age * sb) / (sa + sb));
	for (int i = 0; i < EMU_MAX_PROBES; i++)
		a->probe_hits[i] = (uint8_t)((a->probe_hits[i] * sa + b->probe_hits[i] * sb) /
					     (sa + sb));
	a->end = b->end;
	reg_remove(t, l + 1);
}

static void merge_regions_of(struct mon_target *t, unsigned int thres, uint64_t sz_limit)
{
	size_t prev = SIZE_MAX;

	for (size_t i = 0; i < t->nr;) {
		struct mon_region *r = &t->regions[i];

		/* the age counts how long the access pattern has held */
		if (diff(r->nr_accesses, r->last_nr_accesses) > thres)
			r->age = 0;
		else if ((r->nr_accesses == 0) != (r->last_nr_accesses == 0))
			r->age = 0;
		else
			r->age++;

		if (prev != SIZE_MAX && t->regions[prev].end == r->start &&
		    diff(t->regions[prev].nr_accesses, r->nr_accesses) <= thres &&
		    mon_region_sz(&t->regions[prev]) + mon_region_sz(r) <= sz_limit) {
			merge_two(t, prev);	/* i now indexes the next region */
		} else {
			prev = i;
			i++;
		}
	}
}

void mon_merge_regions(struct mon_ctx *c, unsigned int threshold, uint64_t sz_limit)
{
	uint64_t max_thres = c->attrs.aggr_us / (c->attrs.sample_us ? c->attrs.sample_us : 1);
	size_t nr;

	/* repeat with a growing threshold while there are too many regions */
	do {
		for (int i = 0; i < c->nr_targets; i++)
			merge_regions_of(&c->targets[i], threshold, sz_limit);
		nr = mon_nr_regions(c);
		threshold = threshold * 2 > 1 ? threshold * 2 : 1;
	} while (nr > c->attrs.max_nr_regions && threshold / 2 < max_thres);
}

static void split_regions_of(struct mon_ctx *c, struct mon_target *t, int nr_subs)
{
	for (size_t i = 0; i < t->nr; i++) {
		size_t orig_next = i + 1;
		uint64_t sz = mon_region_sz(&t->regions[i]);

		for (int k = 0; k < nr_subs - 1 && sz > 2 * c->min_region_sz; k++) {
			/* the left piece takes 10% to 90% of the region */
			uint64_t sub = emu_align_down(emu_rand_range(&c->rng, 1, 10) * sz / 10,
						      c->min_region_sz);

			if (!sub || sub >= sz)
				continue;
			if (reg_split_at(t, i, sub))
				return;
			orig_next++;
			sz = sub;
		}
		i = orig_next - 1;
	}
}

void mon_split_regions(struct mon_ctx *c)
{
	size_t nr = mon_nr_regions(c);
	int nr_subs = 2;

	if (nr > c->attrs.max_nr_regions / 2)
		return;
	/* maybe the middle of a region is different: try three pieces when stuck */
	if (c->last_nr_regions == nr && nr < c->attrs.max_nr_regions / 3)
		nr_subs = 3;
	for (int i = 0; i < c->nr_targets; i++)
		split_regions_of(c, &c->targets[i], nr_subs);
	c->last_nr_regions = (unsigned int)nr;
}
