// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damo's snapshot heatmap (heatmap_str() of damo_report_access.py): the regions' total size
 * cut in 80 columns (--snapshot-heatmap-width; the whole address span with
 * --snapshot-heatmap-static), each column's temperature the size-weighted mean of the damo
 * temperatures of the parts of regions in it, shown as a digit between the coolest and the
 * hottest column; a gap between regions is dots, or "[...]" when wider than four columns.
 */
#include <inttypes.h>
#include <math.h>

#include "damonc.h"
#include "report_boxes.h"
#include "report_snapheat.h"

struct snapheat_opts snapheat_o = { SNAPHEAT_WIDTH, false, 1 };	/* damo's: 80, gray */

struct heat_in {
	const struct damonctl_rec_snapshot *s;
	const double *w;
	bool df;
};

static bool used(const struct heat_in *h, const struct damonctl_rec_region *r)
{
	return !h->df || r->sz_filter_passed;
}

/* damo's temperature_of() of a region cut to [start, end) */
static double temperature(const struct heat_in *h, const struct damonctl_rec_region *r,
			  double start, double end)
{
	const struct damonctl_rec_snapshot *s = h->s;
	double pct = s->aggr_us && s->sample_us ?
		(double)r->nr_accesses * 100 / ((double)s->aggr_us / (double)s->sample_us) : 0;
	double score = (end - start) * h->w[0] + pct * h->w[1] +
		       (double)r->age * (double)s->aggr_us * h->w[2];

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

/* Walks the columns as damo's heatmap_pixels_minmax_temps(): @pass 0 finds the range, 1
 * prints */
static void walk(const struct heat_in *h, const struct damonctl_rec_region *first, double end_all,
		 struct snapheat *m, int pass, FILE *f, bool color)
{
	double start = (double)first->start, t;

	while (start < end_all) {
		double end = start + m->unit;
		const struct damonctl_rec_region *next;

		if (column(h, start, end, &t)) {
			if (!pass) {
				m->min = t < m->min ? t : m->min;
				m->max = t > m->max ? t : m->max;
			} else {
				double u = (m->max - m->min) / 9;
				int level;

				u = u ? u : m->max / 9;
				u = u ? u : 1;
				level = (int)((t - m->min) / u);
				level = level < 0 ? 0 : level > 9 ? 9 : level;
				if (color) {
					box_color_start_of(f, snapheat_o.colorset, level);
					fprintf(f, "%d\033[0m", level);
				} else {
					fprintf(f, "%d", level);
				}
			}
			start = end;
			continue;
		}
		next = after(h, end);
		if (!next)
			break;
		if (pass) {
			double nstart = floor((double)next->start / m->unit) * m->unit;
			double dots = (nstart - start) / m->unit;

			if (dots > 4 && !snapheat_o.fixed)
				fputs("[...]", f);
			else
				for (int i = 0; i < (int)dots; i++)
					fputc('.', f);
		}
		start = floor((double)next->start / m->unit) * m->unit;
	}
}

void snapheat_print(FILE *f, const struct damonctl_rec_snapshot *s, const double weights[3],
		    bool df_passed, bool color, bool raw, struct snapheat *out)
{
	struct heat_in h = { s, weights, df_passed };
	const struct damonctl_rec_region *first = NULL, *last = NULL;
	struct snapheat m = { INFINITY, -INFINITY, 0 };
	double total = 0;
	char a[32];

	for (uint32_t i = 0; i < s->nr_regions; i++) {
		if (!used(&h, &s->regions[i]))
			continue;
		first = first ? first : &s->regions[i];
		last = &s->regions[i];
		total += (double)(s->regions[i].end - s->regions[i].start);
	}
	if (out)
		*out = m;
	if (!first) {
		fputs("n/a (no region)", f);
		return;
	}
	if (snapheat_o.fixed)	/* damo's static: the span, gaps included */
		total = (double)(last->end - first->start);
	m.unit = total / snapheat_o.width;
	walk(&h, first, (double)last->end, &m, 0, f, color);
	walk(&h, first, (double)last->end, &m, 1, f, color);
	if (raw)
		snprintf(a, sizeof(a), "%.0f", m.unit);
	else
		fmt_size((uint64_t)m.unit, a, sizeof(a));
	fprintf(f, "\n# min/max temperatures: %.0f, %.0f, column size: %s", m.min + 0.0,
		m.max + 0.0, a);
	if (out)
		*out = m;
}
