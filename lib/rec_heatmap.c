// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A record's access heatmap (damonctl_heatmap_new(3)): access rate over time and address.
 * Two passes over the snapshots: the first (scan) finds the time span and the address spans
 * that regions ever covered (gaps between them, such as the unmapped space between a
 * process's heap and its mmap area, are left out of the address axis), the second (feed)
 * adds every region into the cells it covers, weighted by bytes. Memory: the spans and the
 * grid, not the snapshots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "damonctl/damonctl.h"

struct span {
	uint64_t start, end, off;	/* off: where it begins on the gap-free axis */
};

struct damonctl_heatmap {
	struct span *spans, *tmp;
	size_t nr_spans, cap, tmp_cap;
	uint64_t covered;
	uint64_t t_first, t_last, nr_snaps;
	unsigned int nt, na;
	uint64_t t_width, a_width;
	double *sum, *weight;
	uint64_t nth;			/* snapshots added */
};

struct damonctl_heatmap *damonctl_heatmap_new(void)
{
	return calloc(1, sizeof(struct damonctl_heatmap));
}

void damonctl_heatmap_free(struct damonctl_heatmap *h)
{
	if (!h)
		return;
	free(h->spans);
	free(h->tmp);
	free(h->sum);
	free(h->weight);
	free(h);
}

/* Room for one more span in both lists. */
static int grow(struct damonctl_heatmap *h)
{
	size_t c = (h->nr_spans + 1) * 2;
	void *p, *q;

	if (h->nr_spans + 1 <= h->tmp_cap)
		return 0;
	p = realloc(h->tmp, c * sizeof(*h->tmp));
	if (!p)
		return -ENOMEM;
	h->tmp = p;
	q = realloc(h->spans, c * sizeof(*h->spans));
	if (!q)
		return -ENOMEM;
	h->spans = q;
	h->tmp_cap = h->cap = c;
	return 0;
}

/* Merge [s, e) into the sorted, disjoint span list. */
static int add_span(struct damonctl_heatmap *h, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = h->nr_spans, i, j, n = 0;

	/* already covered: the common case once the first snapshot is in */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->spans[mid].end < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->nr_spans && h->spans[lo].start <= s && e <= h->spans[lo].end)
		return 0;
	if (grow(h))
		return -ENOMEM;
	for (i = 0; i < lo; i++)
		h->tmp[n++] = h->spans[i];
	/* spans that touch or overlap [s, e) melt into it */
	for (j = lo; j < h->nr_spans && h->spans[j].start <= e; j++) {
		if (h->spans[j].start < s)
			s = h->spans[j].start;
		if (h->spans[j].end > e)
			e = h->spans[j].end;
	}
	h->tmp[n++] = (struct span){ s, e, 0 };
	for (; j < h->nr_spans; j++)
		h->tmp[n++] = h->spans[j];
	memcpy(h->spans, h->tmp, n * sizeof(*h->spans));
	h->nr_spans = n;
	return 0;
}

int damonctl_heatmap_scan(struct damonctl_heatmap *h, const struct damonctl_rec_snapshot *s)
{
	uint32_t i = 0;

	if (!h->nr_snaps++)
		h->t_first = s->end_ns;
	h->t_last = s->end_ns;
	while (i < s->nr_regions) {
		uint64_t a = s->regions[i].start, b = s->regions[i].end;

		/* a run of adjacent regions is one span */
		for (i++; i < s->nr_regions && s->regions[i].start == b; i++)
			b = s->regions[i].end;
		if (b > a && add_span(h, a, b))
			return -ENOMEM;
	}
	return 0;
}

struct damonctl_heatmap *damonctl_heatmap_of_span(const struct damonctl_heatmap *h, size_t i)
{
	struct damonctl_heatmap *n;

	if (i >= h->nr_spans) {
		errno = ERANGE;
		return NULL;
	}
	n = damonctl_heatmap_new();
	if (!n)
		return NULL;
	n->t_first = h->t_first;
	n->t_last = h->t_last;
	n->nr_snaps = h->nr_snaps;
	if (add_span(n, h->spans[i].start, h->spans[i].end)) {
		damonctl_heatmap_free(n);
		return NULL;
	}
	return n;
}

size_t damonctl_heatmap_nr_spans(const struct damonctl_heatmap *h)
{
	return h->nr_spans;
}

int damonctl_heatmap_span(const struct damonctl_heatmap *h, size_t i, uint64_t *start,
			  uint64_t *end, uint64_t *offset)
{
	if (i >= h->nr_spans)
		return -ERANGE;
	*start = h->spans[i].start;
	*end = h->spans[i].end;
	if (offset)
		*offset = h->spans[i].off;
	return 0;
}

int damonctl_heatmap_grid(struct damonctl_heatmap *h, uint64_t tbins, uint64_t abins)
{
	uint64_t span_t;
	size_t i;

	if (!h->nr_snaps || !h->nr_spans || !tbins || !abins || h->sum)
		return -EINVAL;
	for (i = 0; i < h->nr_spans; i++) {
		h->spans[i].off = h->covered;
		h->covered += h->spans[i].end - h->spans[i].start;
	}
	h->nt = (unsigned int)(h->nr_snaps < tbins ? h->nr_snaps : tbins);
	span_t = h->t_last - h->t_first + 1;
	h->t_width = (span_t + h->nt - 1) / h->nt;
	h->na = (unsigned int)(h->covered < abins ? h->covered : abins);
	h->a_width = (h->covered + h->na - 1) / h->na;
	h->sum = calloc((size_t)h->nt * h->na, sizeof(*h->sum));
	h->weight = calloc((size_t)h->nt * h->na, sizeof(*h->weight));
	return h->sum && h->weight ? 0 : -ENOMEM;
}

static size_t find_span(const struct damonctl_heatmap *h, uint64_t addr)
{
	size_t lo = 0, hi = h->nr_spans;

	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->spans[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Region @rg's rate into the cells of column @t it overlaps, weighted by bytes. */
static void add_region(struct damonctl_heatmap *h, unsigned int t,
		       const struct damonctl_rec_region *rg, double rate)
{
	const struct span *sp = &h->spans[find_span(h, rg->start)];
	uint64_t r0 = rg->start > sp->start ? rg->start : sp->start;
	uint64_t r1 = rg->end < sp->end ? rg->end : sp->end;
	uint64_t o1, o2, a;

	/* the spans of a heatmap of one span (damonctl_heatmap_of_span()) hold only part */
	if (r0 >= r1)
		return;
	o1 = sp->off + (r0 - sp->start);
	o2 = o1 + (r1 - r0);
	if (rate > 1)
		rate = 1;
	for (a = o1 / h->a_width; a < h->na && a * h->a_width < o2; a++) {
		uint64_t lo = a * h->a_width, hi = lo + h->a_width;
		double ov = (double)((hi < o2 ? hi : o2) - (lo > o1 ? lo : o1));
		size_t c = (size_t)t * h->na + a;

		h->sum[c] += rate * ov;
		h->weight[c] += ov;
	}
}

int damonctl_heatmap_feed(struct damonctl_heatmap *h, const struct damonctl_rec_snapshot *s)
{
	unsigned int t;
	uint32_t i;

	if (!h->sum)
		return -EINVAL;
	if (!s->aggr_us || !s->sample_us)
		return 0;
	/* a column per snapshot when they are fewer than the columns: their times jitter,
	 * and binning by time would leave some columns empty and fill others twice */
	if (h->nr_snaps <= h->nt)
		t = (unsigned int)h->nth++;
	else
		t = (unsigned int)((s->end_ns - h->t_first) / h->t_width);
	if (t >= h->nt)
		t = h->nt - 1;
	for (i = 0; i < s->nr_regions; i++)
		add_region(h, t, &s->regions[i], (double)s->regions[i].nr_accesses *
			   (double)s->sample_us / (double)s->aggr_us);
	return 0;
}

int damonctl_heatmap_layout(const struct damonctl_heatmap *h,
			    struct damonctl_heatmap_layout *l)
{
	struct damonctl_heatmap_layout v = {
		.sz = sizeof(v),
		.nr_snapshots = h->nr_snaps,
		.first_ns = h->t_first,
		.last_ns = h->t_last,
		.time_bins = h->nt,
		.address_bins = h->na,
		.time_bin_ns = h->t_width,
		.address_bin_bytes = h->a_width,
		.covered_bytes = h->covered,
	};

	if (l->sz < offsetof(struct damonctl_heatmap_layout, covered_bytes) +
		    sizeof(l->covered_bytes))
		return -EINVAL;
	memcpy((char *)l + sizeof(l->sz), (char *)&v + sizeof(v.sz),
	       (l->sz < sizeof(v) ? l->sz : sizeof(v)) - sizeof(v.sz));
	return 0;
}

double damonctl_heatmap_cell(const struct damonctl_heatmap *h, unsigned int t, unsigned int a)
{
	size_t c = (size_t)t * h->na + a;

	if (!h->sum || t >= h->nt || a >= h->na)
		return -1;
	return h->weight[c] > 0 ? h->sum[c] / h->weight[c] : -1;
}

uint64_t damonctl_heatmap_address(const struct damonctl_heatmap *h, uint64_t offset)
{
	size_t i;

	if (!h->nr_spans)
		return 0;
	for (i = 0; i + 1 < h->nr_spans && h->spans[i + 1].off <= offset; i++)
		;
	return h->spans[i].start + (offset - h->spans[i].off);
}
