// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A snapshot's figures over all its regions: damo's totals (its snapshot keywords) and its
 * snapshot heatmap (heatmap_str() of damo_report_access.py): the regions' total size cut in
 * columns (the whole address span when fixed), each column's temperature the size-weighted
 * mean of the damo temperatures of the parts of regions in it, as a level between the
 * coolest and the hottest column; a gap between regions a cell of its width.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <damonctl/damonctl.h>

int damonctl_access_totals(const struct damonctl_rec_snapshot *s, struct damonctl_access_totals *t)
{
	double aggr_s = (double)s->aggr_us / 1e6;
	double ratio = s->sample_us ? (double)s->aggr_us / (double)s->sample_us : 0;
	double samples = 0;
	struct damonctl_access_totals f = { .sz = sizeof(f) };

	if (!t || t->sz < sizeof(size_t) + sizeof(double))
		return -EINVAL;
	for (uint32_t i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *rg = &s->regions[i];
		double sz = (double)(rg->end - rg->start);

		f.observed += sz * rg->nr_accesses;
		f.max_observed += sz * ratio;
		f.fp_bw += (double)rg->sz_filter_passed * rg->nr_accesses;
		f.fp_bytes += rg->sz_filter_passed;
		samples += rg->nr_accesses;
	}
	f.bw = aggr_s > 0 ? f.observed / aggr_s : 0;
	f.fp_bw = aggr_s > 0 ? f.fp_bw / aggr_s : 0;
	f.max_hz = aggr_s > 0 ? ratio / aggr_s : 0;
	f.samples_pct = s->nr_regions && ratio > 0 ? samples * 100 / (ratio * s->nr_regions) : 0;
	f.sz = t->sz < sizeof(f) ? t->sz : sizeof(f);
	memcpy(t, &f, f.sz);	/* as much as the caller's struct holds */
	return 0;
}

/* A cell: a column's temperature (level once the range is known) or a gap */
struct cell {
	double t;	/* the column's temperature, or the gap's width in columns */
	int level;	/* -1: a gap */
};

struct damonctl_access_heatmap {
	double min, max, unit;
	size_t n, cap;
	struct cell *cells;
};

struct heat_in {
	const struct damonctl_rec_snapshot *s;
	const struct damonctl_access_heatmap_opts *o;
};

static bool used(const struct heat_in *h, const struct damonctl_rec_region *r)
{
	return !h->o->df_passed || r->sz_filter_passed;
}

/* damo's temperature_of() of a region cut to [start, end) */
static double temperature(const struct heat_in *h, const struct damonctl_rec_region *r,
			  double start, double end)
{
	const struct damonctl_rec_snapshot *s = h->s;
	const double *w = h->o->weights;
	double pct = s->aggr_us && s->sample_us ?
		(double)r->nr_accesses * 100 / ((double)s->aggr_us / (double)s->sample_us) : 0;
	double score = (end - start) * w[0] + pct * w[1] +
		       (double)r->age * (double)s->aggr_us * w[2];

	return pct > 0 ? score : -score;
}

/* The column [start, end): its mean temperature; false when no region is in it */
static bool column(const struct heat_in *h, double start, double end, double *t)
{
	double heat = 0;
	bool any = false;

	for (uint32_t i = 0; i < h->s->nr_regions; i++) {
		const struct damonctl_rec_region *r = &h->s->regions[i];
		double a = (double)r->start, b = (double)r->end;

		if (!used(h, r) || b <= start || end <= a)
			continue;
		a = a > start ? a : start;
		b = b < end ? b : end;
		heat += temperature(h, r, a, b) * (b - a);
		any = true;
	}
	*t = heat / (end - start);
	return any;
}

/* The first used region that starts above @addr, or NULL */
static const struct damonctl_rec_region *after(const struct heat_in *h, double addr)
{
	for (uint32_t i = 0; i < h->s->nr_regions; i++)
		if (used(h, &h->s->regions[i]) && (double)h->s->regions[i].start > addr)
			return &h->s->regions[i];
	return NULL;
}

static int push(struct damonctl_access_heatmap *m, double t, int level)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 128;
		void *p = realloc(m->cells, cap * sizeof(*m->cells));

		if (!p)
			return -ENOMEM;
		m->cells = p;
		m->cap = cap;
	}
	m->cells[m->n++] = (struct cell){ t, level };
	return 0;
}

/* The columns as damo's heatmap_pixels_minmax_temps() walks them, each column's temperature
 * and the range of them kept */
static int walk(const struct heat_in *h, const struct damonctl_rec_region *first, double end_all,
		struct damonctl_access_heatmap *m)
{
	double start = (double)first->start, t;

	while (start < end_all) {
		double end = start + m->unit;
		const struct damonctl_rec_region *next;
		double nstart;

		if (column(h, start, end, &t)) {
			m->min = t < m->min ? t : m->min;
			m->max = t > m->max ? t : m->max;
			if (push(m, t, 0))
				return -ENOMEM;
			start = end;
			continue;
		}
		next = after(h, end);
		if (!next)
			break;
		nstart = floor((double)next->start / m->unit) * m->unit;
		if (push(m, (nstart - start) / m->unit, -1))
			return -ENOMEM;
		start = nstart;
	}
	return 0;
}

/* Each column's level 0-9 between the coolest and the hottest */
static void levels(struct damonctl_access_heatmap *m)
{
	double u = (m->max - m->min) / 9;

	u = u ? u : m->max / 9;
	u = u ? u : 1;
	for (size_t i = 0; i < m->n; i++) {
		int level;

		if (m->cells[i].level < 0)
			continue;
		level = (int)((m->cells[i].t - m->min) / u);
		m->cells[i].level = level < 0 ? 0 : level > 9 ? 9 : level;
	}
}

int damonctl_access_heatmap_new(const struct damonctl_rec_snapshot *s,
				const struct damonctl_access_heatmap_opts *o,
				struct damonctl_access_heatmap **out)
{
	struct heat_in h = { s, o };
	const struct damonctl_rec_region *first = NULL, *last = NULL;
	struct damonctl_access_heatmap *m;
	double total = 0;

	*out = NULL;
	if (!o || o->sz < sizeof(*o) || !o->width)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->min = INFINITY;
	m->max = -INFINITY;
	for (uint32_t i = 0; i < s->nr_regions; i++) {
		if (!used(&h, &s->regions[i]))
			continue;
		first = first ? first : &s->regions[i];
		last = &s->regions[i];
		total += (double)(s->regions[i].end - s->regions[i].start);
	}
	*out = m;
	if (!first)
		return 0;
	if (o->fixed)	/* damo's static: the span, gaps included */
		total = (double)(last->end - first->start);
	m->unit = total / o->width;
	if (walk(&h, first, (double)last->end, m)) {
		damonctl_access_heatmap_free(m);
		*out = NULL;
		return -ENOMEM;
	}
	levels(m);
	return 0;
}

void damonctl_access_heatmap_free(struct damonctl_access_heatmap *h)
{
	if (!h)
		return;
	free(h->cells);
	free(h);
}

size_t damonctl_access_heatmap_count(const struct damonctl_access_heatmap *h)
{
	return h->n;
}

int damonctl_access_heatmap_cell(const struct damonctl_access_heatmap *h, size_t i, double *gap)
{
	if (i >= h->n)
		return -ENOENT;
	if (h->cells[i].level < 0 && gap)
		*gap = h->cells[i].t;
	return h->cells[i].level;
}

void damonctl_access_heatmap_scale(const struct damonctl_access_heatmap *h, double *min,
				   double *max, double *unit)
{
	*min = h->min;
	*max = h->max;
	*unit = h->unit;
}
