// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Histograms and per-byte percentiles of a metric over an access view's regions, weighted by
 * size, as damo's temperature-sz-hist, recency-sz-hist and *-percentiles make them (its
 * get_hist_ranges(), --hist_ranges, --hist_logscale, --hist_cumulate).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <damonctl/damonctl.h>

#include "access_internal.h"

struct damonctl_access_hist {
	unsigned int n;
	struct damonctl_access_bin bins[];
};

/* One value of a range list: a time (us) or a number; 0 or -EINVAL */
static int parse_value(const char *s, size_t len, bool time, double *v)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (time) {
		uint64_t us;

		if (damonctl_parse_time_us(buf, &us))
			return -EINVAL;
		*v = (double)us;
		return 0;
	}
	*v = strtod(buf, &end);
	return *end || !isfinite(*v) ? -EINVAL : 0;
}

int damonctl_access_parse_ranges(const char *s, bool time, double *out, unsigned int max)
{
	const char *p = s;
	unsigned int n = 0;

	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (n == 2 * max || parse_value(p, len, time, &out[n]))
			return -EINVAL;
		n++;
		if (!c)
			break;
		p = c + 1;
	}
	if (n % 2)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i += 2)
		if (out[i] >= out[i + 1])
			return -EINVAL;
	return (int)(n / 2);
}

/* damo's log scale: a first range of max((hi - lo) / 2^bins, 1), each next twice as wide,
 * until one ends after @hi (damo stops at one ending at @hi, leaving @hi out); @b NULL:
 * only counted */
static unsigned int log_ranges(const struct damonctl_access_hist_opts *o, double lo, double hi,
			       struct damonctl_access_bin *b)
{
	double two_bins = 1, w, end;
	unsigned int n = 0;

	/* 2^bins, exactly as pow(2, bins) but without libm (dlib.h) */
	for (unsigned int i = 0; i < o->bins && two_bins <= DBL_MAX; i++)
		two_bins *= 2;
	w = floor((hi - lo) / two_bins);

	w = w < 1 ? 1 : w;
	for (end = lo + w; ; w *= 2, end += w) {
		if (b) {
			b[n].lo = o->cumulate ? lo : end - w;
			b[n].hi = end;
		}
		n++;
		if (end > hi)
			return n;
	}
}

/* The ranges for values from @lo to @hi (bytes 0); NULL: out of memory */
static struct damonctl_access_hist *ranges(const struct damonctl_access_hist_opts *o, double lo,
					   double hi)
{
	unsigned int n = o->nr_ranges ? o->nr_ranges : o->logscale ? log_ranges(o, lo, hi, NULL) :
			 o->bins;
	struct damonctl_access_hist *h = calloc(1, sizeof(*h) + n * sizeof(h->bins[0]));
	struct damonctl_access_bin *b;
	double w;

	if (!h)
		return NULL;
	h->n = n;
	b = h->bins;
	if (o->nr_ranges) {
		for (unsigned int i = 0; i < n; i++)
			b[i] = (struct damonctl_access_bin){ o->ranges[2 * i], o->ranges[2 * i + 1], 0 };
	} else if (o->logscale) {
		log_ranges(o, lo, hi, b);
	} else {
		/* damo's linear: [lo + i * w, lo + (i + 1) * w), w = ceil((hi + 1 - lo) / bins) */
		w = ceil((hi + 1 - lo) / o->bins);
		w = w < 1 ? 1 : w;
		for (unsigned int i = 0; i < n; i++) {
			b[i].lo = o->cumulate ? lo : lo + w * (double)i;
			b[i].hi = lo + w * (double)(i + 1);
		}
	}
	return h;
}

/* The bytes a histogram or percentiles count of a region */
static uint64_t bytes_of(const struct damonctl_access_region *r, bool df_passed)
{
	return df_passed ? r->sz_filter_passed : r->end - r->start;
}

static double metric(const struct damonctl_access_view *v, size_t i, enum damonctl_access_metric m)
{
	return access_metric_of(&v->rows[i], m, v->o.weights, v->aggr_us);
}

int damonctl_access_histogram(const struct damonctl_access_view *v, enum damonctl_access_metric m,
			      const struct damonctl_access_hist_opts *o,
			      struct damonctl_access_hist **out)
{
	struct damonctl_access_hist *h;
	double lo = 0, hi = 0;
	size_t i;

	*out = NULL;
	if (!o || o->sz < sizeof(*o) || (unsigned int)m >= DAMONCTL_ACCESS_NR_METRICS ||
	    (!o->nr_ranges && !o->bins) || (o->nr_ranges && !o->ranges))
		return -EINVAL;
	if (!v->n) {
		*out = calloc(1, sizeof(**out));
		return *out ? 0 : -ENOMEM;
	}
	for (i = 0; i < v->n; i++) {
		double x = metric(v, i, m);

		lo = !i || x < lo ? x : lo;
		hi = !i || x > hi ? x : hi;
	}
	h = ranges(o, lo, hi);
	if (!h)
		return -ENOMEM;
	for (i = 0; i < v->n; i++) {
		double x = metric(v, i, m);

		for (unsigned int k = 0; k < h->n; k++)
			if (h->bins[k].lo <= x && x < h->bins[k].hi)
				h->bins[k].bytes += bytes_of(&v->rows[i], o->df_passed);
	}
	*out = h;
	return 0;
}

unsigned int damonctl_access_hist_count(const struct damonctl_access_hist *h)
{
	return h->n;
}

const struct damonctl_access_bin *damonctl_access_hist_bin(const struct damonctl_access_hist *h,
							   unsigned int i)
{
	return i < h->n ? &h->bins[i] : NULL;
}

void damonctl_access_hist_free(struct damonctl_access_hist *h)
{
	free(h);
}

struct metric_value {
	double v;
	uint64_t bytes;
};

static int cmp_values(const void *a, const void *b)
{
	const struct metric_value *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

int damonctl_access_percentiles(const struct damonctl_access_view *v,
				enum damonctl_access_metric m, bool df_passed,
				const double *pcts, unsigned int n, double *out)
{
	struct metric_value *mv;
	uint64_t total = 0;
	size_t i;

	if ((unsigned int)m >= DAMONCTL_ACCESS_NR_METRICS)
		return -EINVAL;
	mv = malloc((v->n ? v->n : 1) * sizeof(*mv));
	if (!mv)
		return -ENOMEM;
	for (i = 0; i < v->n; i++) {
		mv[i] = (struct metric_value){ metric(v, i, m), bytes_of(&v->rows[i], df_passed) };
		total += mv[i].bytes;
	}
	qsort(mv, v->n, sizeof(*mv), cmp_values);
	for (unsigned int k = 0; k < n; k++) {
		uint64_t cum = 0;

		out[k] = 0;
		for (i = 0; i < v->n; i++) {
			cum += mv[i].bytes;
			out[k] = mv[i].v;
			if ((double)cum * 100 >= pcts[k] * (double)total)
				break;
		}
	}
	free(mv);
	return 0;
}
