// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A record's access heatmap (damonctl_heatmap_new(3)): access rate over time and address.
 * Two passes over the snapshots: the first (scan) finds the time span and the address spans
 * that regions ever covered (gaps between them, such as the unmapped space between a
 * process's heap and its mmap area, are left out of the address axis), and, from the
 * record's footprints, the memory the process had mapped; the second (feed) adds every
 * region into the cells it covers, weighted by bytes. Memory: the spans and the grid, not
 * the snapshots.
 *
 * The address axis: the spans, less what was never mapped when the footprints say (a
 * DAMON region of a process reaches over the unmapped space between its mappings, and
 * would show it as memory never accessed), cut in rows of a power of two of bytes that
 * begin at multiples of it: each row is an aligned block of addresses, as a reader of its
 * label expects, and a block with no mapped or monitored byte in it is left out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "damonctl/damonctl.h"

struct span {
	uint64_t start, end, off;	/* off: where it begins on the gap-free axis */
};

/* A sorted list of disjoint ranges. */
struct spans {
	struct span *v;
	size_t nr, cap;
};

struct damonctl_heatmap {
	struct spans spans;	/* what regions covered (damonctl_heatmap_span()) */
	struct spans mapped;	/* what the footprints say was mapped (none: not known) */
	struct spans pieces;	/* the spans' mapped parts: where regions' bytes count */
	struct spans rows;	/* the address axis: aligned blocks, off in bytes */
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

static void spans_free(struct spans *l)
{
	free(l->v);
	*l = (struct spans){ 0 };
}

void damonctl_heatmap_free(struct damonctl_heatmap *h)
{
	if (!h)
		return;
	spans_free(&h->spans);
	spans_free(&h->mapped);
	spans_free(&h->pieces);
	spans_free(&h->rows);
	free(h->sum);
	free(h->weight);
	free(h);
}

/* Merge [s, e) into @l (those it touches or overlaps melt into one). */
static int spans_add(struct spans *l, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = l->nr, j;

	if (s >= e)
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->v[mid].end < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* already covered: the common case once the first snapshot is in */
	if (lo < l->nr && l->v[lo].start <= s && e <= l->v[lo].end)
		return 0;
	for (j = lo; j < l->nr && l->v[j].start <= e; j++) {
		if (l->v[j].start < s)
			s = l->v[j].start;
		if (l->v[j].end > e)
			e = l->v[j].end;
	}
	if (j == lo) {		/* a new one at lo */
		if (l->nr == l->cap) {
			size_t c = l->cap ? 2 * l->cap : 8;
			void *p = realloc(l->v, c * sizeof(*l->v));

			if (!p)
				return -ENOMEM;
			l->v = p;
			l->cap = c;
		}
		memmove(&l->v[lo + 1], &l->v[lo], (l->nr - lo) * sizeof(*l->v));
		l->nr++;
	} else {		/* [lo, j) become one */
		memmove(&l->v[lo + 1], &l->v[j], (l->nr - j) * sizeof(*l->v));
		l->nr -= j - lo - 1;
	}
	l->v[lo] = (struct span){ s, e, 0 };
	return 0;
}

/* The index of the last range of @l that starts at or below @addr (0 when none does). */
static size_t spans_find(const struct spans *l, uint64_t addr)
{
	size_t lo = 0, hi = l->nr;

	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->v[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int damonctl_heatmap_scan(struct damonctl_heatmap *h, const struct damonctl_rec_snapshot *s)
{
	uint32_t i = 0;

	if (h->sum)
		return -EINVAL;
	if (!h->nr_snaps++)
		h->t_first = s->end_ns;
	h->t_last = s->end_ns;
	while (i < s->nr_regions) {
		uint64_t a = s->regions[i].start, b = s->regions[i].end;

		/* a run of adjacent regions is one span */
		for (i++; i < s->nr_regions && s->regions[i].start == b; i++)
			b = s->regions[i].end;
		if (spans_add(&h->spans, a, b))
			return -ENOMEM;
	}
	return 0;
}

static uint64_t json_u64(json_object *a, size_t i)
{
	json_object *v = json_object_array_get_idx(a, i);

	return json_object_is_type(v, json_type_int) ? json_object_get_uint64(v) : 0;
}

int damonctl_heatmap_footprint(struct damonctl_heatmap *h, int target, const char *json)
{
	json_object *doc, *targets, *t, *vmas, *v;
	size_t i, j;
	int r = 0;

	if (h->sum || !json)
		return -EINVAL;
	doc = json_tokener_parse(json);
	if (!json_object_object_get_ex(doc, "targets", &targets) ||
	    !json_object_is_type(targets, json_type_array)) {
		json_object_put(doc);
		return doc ? 0 : -EINVAL;	/* no target: nothing mapped to learn */
	}
	for (i = 0; !r && i < json_object_array_length(targets); i++) {
		t = json_object_array_get_idx(targets, i);
		if (!json_object_object_get_ex(t, "target", &v) || json_object_get_int(v) != target ||
		    !json_object_object_get_ex(t, "vmas", &vmas) ||
		    !json_object_is_type(vmas, json_type_array))
			continue;
		for (j = 0; !r && j < json_object_array_length(vmas); j++) {
			v = json_object_array_get_idx(vmas, j);
			if (json_object_is_type(v, json_type_array))
				r = spans_add(&h->mapped, json_u64(v, 0), json_u64(v, 1));
		}
	}
	json_object_put(doc);
	return r;
}

struct damonctl_heatmap *damonctl_heatmap_of_span(const struct damonctl_heatmap *h, size_t i)
{
	struct damonctl_heatmap *n;
	size_t k;

	if (i >= h->spans.nr) {
		errno = ERANGE;
		return NULL;
	}
	n = damonctl_heatmap_new();
	if (!n)
		return NULL;
	n->t_first = h->t_first;
	n->t_last = h->t_last;
	n->nr_snaps = h->nr_snaps;
	if (spans_add(&n->spans, h->spans.v[i].start, h->spans.v[i].end))
		goto fail;
	for (k = 0; k < h->mapped.nr; k++)
		if (spans_add(&n->mapped, h->mapped.v[k].start, h->mapped.v[k].end))
			goto fail;
	return n;
fail:
	damonctl_heatmap_free(n);
	errno = ENOMEM;
	return NULL;
}

size_t damonctl_heatmap_nr_spans(const struct damonctl_heatmap *h)
{
	return h->spans.nr;
}

int damonctl_heatmap_span(const struct damonctl_heatmap *h, size_t i, uint64_t *start,
			  uint64_t *end, uint64_t *offset)
{
	if (i >= h->spans.nr)
		return -ERANGE;
	*start = h->spans.v[i].start;
	*end = h->spans.v[i].end;
	if (offset)
		*offset = h->spans.v[i].off;
	return 0;
}

/* The spans' parts the footprints say were mapped (all of them when they say nothing, or
 * nothing that regions covered: a footprint of another process). */
static int find_pieces(struct damonctl_heatmap *h)
{
	size_t i, k;

	for (i = 0; i < h->spans.nr; i++) {
		const struct span *s = &h->spans.v[i];

		for (k = h->mapped.nr ? spans_find(&h->mapped, s->start) : 0;
		     k < h->mapped.nr && h->mapped.v[k].start < s->end; k++) {
			uint64_t a = h->mapped.v[k].start > s->start ? h->mapped.v[k].start : s->start;
			uint64_t b = h->mapped.v[k].end < s->end ? h->mapped.v[k].end : s->end;

			if (a < b && spans_add(&h->pieces, a, b))
				return -ENOMEM;
		}
	}
	if (h->pieces.nr)
		return 0;
	for (i = 0; i < h->spans.nr; i++)
		if (spans_add(&h->pieces, h->spans.v[i].start, h->spans.v[i].end))
			return -ENOMEM;
	return 0;
}

/* Rows of @w bytes the pieces need: each piece widened to multiples of @w, those that then
 * meet counted once. */
static uint64_t rows_for(const struct spans *pieces, uint64_t w)
{
	uint64_t n = 0, last_end = 0;
	size_t i;

	for (i = 0; i < pieces->nr; i++) {
		uint64_t a = pieces->v[i].start / w * w;
		uint64_t b = (pieces->v[i].end - 1) / w * w + w;

		if (i && a < last_end)
			a = last_end;
		if (b > a)
			n += (b - a) / w;
		if (b > last_end)
			last_end = b;
	}
	return n;
}

/* The axis: the pieces widened to rows of @w, aligned; each block's off in bytes. */
static int lay_rows(struct damonctl_heatmap *h, uint64_t w)
{
	size_t i, j;

	for (i = 0; i < h->pieces.nr; i++) {
		uint64_t b = (h->pieces.v[i].end - 1) / w * w;

		/* the end rounded up, without overflow past the top of the address space */
		if (spans_add(&h->rows, h->pieces.v[i].start / w * w, b > UINT64_MAX - w ?
			      UINT64_MAX : b + w))
			return -ENOMEM;
	}
	for (i = 0; i < h->rows.nr; i++) {
		h->rows.v[i].off = h->covered;
		h->covered += h->rows.v[i].end - h->rows.v[i].start;
	}
	/* where each span's first row begins on the axis */
	for (i = 0; i < h->spans.nr; i++) {
		uint64_t a = h->spans.v[i].start;

		j = spans_find(&h->pieces, a);
		if (j + 1 < h->pieces.nr && h->pieces.v[j].end <= a)
			j++;	/* its first mapped byte */
		a = h->pieces.v[j].start > a ? h->pieces.v[j].start : a;
		j = spans_find(&h->rows, a);
		h->spans.v[i].off = h->rows.v[j].off + (a / w * w - h->rows.v[j].start);
	}
	return 0;
}

int damonctl_heatmap_grid(struct damonctl_heatmap *h, uint64_t tbins, uint64_t abins)
{
	uint64_t span_t, w = 1;

	if (!h->nr_snaps || !h->spans.nr || !tbins || !abins || h->sum)
		return -EINVAL;
	if (find_pieces(h))
		return -ENOMEM;
	/* the smallest power of two whose aligned rows are no more than asked */
	while (w < (UINT64_C(1) << 63) && rows_for(&h->pieces, w) > abins)
		w <<= 1;
	if (lay_rows(h, w))
		return -ENOMEM;
	h->a_width = w;
	h->na = (unsigned int)(h->covered / w);
	h->nt = (unsigned int)(h->nr_snaps < tbins ? h->nr_snaps : tbins);
	span_t = h->t_last - h->t_first + 1;
	h->t_width = (span_t + h->nt - 1) / h->nt;
	h->sum = calloc((size_t)h->nt * h->na, sizeof(*h->sum));
	h->weight = calloc((size_t)h->nt * h->na, sizeof(*h->weight));
	return h->sum && h->weight ? 0 : -ENOMEM;
}

/* [r0, r1) (within one piece, so within one block of rows) at @rate into column @t. */
static void add_bytes(struct damonctl_heatmap *h, unsigned int t, uint64_t r0, uint64_t r1,
		      double rate)
{
	const struct span *blk = &h->rows.v[spans_find(&h->rows, r0)];
	uint64_t o1 = blk->off + (r0 - blk->start), o2 = o1 + (r1 - r0), a;

	for (a = o1 / h->a_width; a < h->na && a * h->a_width < o2; a++) {
		uint64_t lo = a * h->a_width, hi = lo + h->a_width;
		double ov = (double)((hi < o2 ? hi : o2) - (lo > o1 ? lo : o1));
		size_t c = (size_t)t * h->na + a;

		h->sum[c] += rate * ov;
		h->weight[c] += ov;
	}
}

/* Region @rg's rate into the cells of column @t its mapped bytes fall in, weighted by
 * bytes. */
static void add_region(struct damonctl_heatmap *h, unsigned int t,
		       const struct damonctl_rec_region *rg, double rate)
{
	size_t k = spans_find(&h->pieces, rg->start);

	if (rate > 1)
		rate = 1;
	for (; k < h->pieces.nr && h->pieces.v[k].start < rg->end; k++) {
		uint64_t r0 = rg->start > h->pieces.v[k].start ? rg->start : h->pieces.v[k].start;
		uint64_t r1 = rg->end < h->pieces.v[k].end ? rg->end : h->pieces.v[k].end;

		/* a heatmap of one span (damonctl_heatmap_of_span()) holds only part */
		if (r0 < r1)
			add_bytes(h, t, r0, r1, rate);
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

	if (!h->rows.nr)
		return h->spans.nr ? h->spans.v[0].start : 0;
	for (i = 0; i + 1 < h->rows.nr && h->rows.v[i + 1].off <= offset; i++)
		;
	return h->rows.v[i].start + (offset - h->rows.v[i].off);
}
