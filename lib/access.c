// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The access pattern of a snapshot's regions as damo's report access sees them: each
 * region's access rate, age in time and temperature, those of an access pattern, sorted by a
 * list of keys, the first N; the metrics a histogram, percentiles or region boxes take of
 * them, and the range of each over one or more views.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <damonctl/damonctl.h>

#include "access_internal.h"
#include "dlib.h"
#include "record_internal.h"

uint64_t damonctl_access_rate_bp(uint32_t nr_accesses, uint64_t sample_us, uint64_t aggr_us)
{
	uint64_t bp;

	if (!aggr_us || !sample_us)
		return 0;
	bp = damonctl_nr_accesses_to_rate_bp(nr_accesses, sample_us, aggr_us);
	return bp > 10000 ? 10000 : bp;
}

bool damonctl_access_match(const struct damonctl_access_opts *o,
			   const struct damonctl_rec_snapshot *s,
			   const struct damonctl_rec_region *r)
{
	uint64_t sz = r->end - r->start, age_us = (uint64_t)r->age * s->aggr_us;
	uint64_t bp = damonctl_access_rate_bp(r->nr_accesses, s->sample_us, s->aggr_us);

	return sz >= o->sz_min && sz <= o->sz_max && bp >= o->rate_min_bp &&
	       bp <= o->rate_max_bp && age_us >= o->age_min_us && age_us <= o->age_max_us;
}

double damonctl_access_temperature(const struct damonctl_access_region *r, const double w[3])
{
	double t = (double)(r->end - r->start) * w[0] + (double)r->rate_bp / 100 * w[1] +
		   (double)r->age_us * w[2];

	return r->rate_bp ? t : 0.0 - t;	/* 0, not -0, for an unaccessed region of age 0 */
}

int damonctl_access_view_new(const struct damonctl_access_opts *o,
			     struct damonctl_access_view **out)
{
	struct damonctl_access_view *v;

	*out = NULL;
	if (!o || o->sz < sizeof(*o) || o->nr_keys > DAMONCTL_ACCESS_MAX_KEYS)
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (!(o->weights[i] >= 0) || !isfinite(o->weights[i]))
			return -EINVAL;
	for (unsigned int i = 0; i < o->nr_keys; i++)
		if ((unsigned int)o->keys[i] > DAMONCTL_ACCESS_BY_COLDEST)
			return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->o = *o;
	v->o.sz = sizeof(v->o);
	*out = v;
	return 0;
}

void damonctl_access_view_free(struct damonctl_access_view *v)
{
	if (!v)
		return;
	free(v->rows);
	free(v->hits);
	free(v);
}

/* The order of key @k: negative when @x comes first, 0 when alike */
static int cmp_key(enum damonctl_access_key k, const struct damonctl_access_region *x,
		   const struct damonctl_access_region *y)
{
	switch (k) {
	case DAMONCTL_ACCESS_BY_HOT:	/* hotter: accessed more, then for longer */
	case DAMONCTL_ACCESS_BY_COLD:
		if (x->rate_bp != y->rate_bp)
			return (x->rate_bp > y->rate_bp) == (k == DAMONCTL_ACCESS_BY_HOT) ? -1 : 1;
		if (x->age_us != y->age_us)
			return x->age_us > y->age_us ? -1 : 1;
		return 0;
	case DAMONCTL_ACCESS_BY_SIZE:
		if (x->end - x->start != y->end - y->start)
			return x->end - x->start > y->end - y->start ? -1 : 1;
		return 0;
	case DAMONCTL_ACCESS_BY_AGE:
		return x->age_us != y->age_us ? (x->age_us > y->age_us ? -1 : 1) : 0;
	case DAMONCTL_ACCESS_BY_TEMPERATURE:
	case DAMONCTL_ACCESS_BY_COLDEST:
		if (x->temperature == y->temperature)
			return 0;
		return (x->temperature > y->temperature) == (k == DAMONCTL_ACCESS_BY_TEMPERATURE) ?
		       -1 : 1;
	case DAMONCTL_ACCESS_BY_ADDRESS:
		break;
	}
	return 0;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct damonctl_access_region *x = a, *y = b;
	const struct damonctl_access_opts *o = arg;

	for (unsigned int i = 0; i < o->nr_keys; i++) {
		int c = cmp_key(o->keys[i], x, y);

		if (c)
			return c;
	}
	return x->start < y->start ? -1 : x->start > y->start;
}

static int grow(struct damonctl_access_view *v, size_t n)
{
	void *p;

	if (n <= v->cap)
		return 0;
	p = realloc(v->rows, n * sizeof(*v->rows));
	if (!p)
		return -ENOMEM;
	v->rows = p;
	v->cap = n;
	return 0;
}

int damonctl_access_view_build(struct damonctl_access_view *v,
			       const struct damonctl_rec_snapshot *s)
{
	struct damonctl_access_region *rows;
	uint32_t np = 0;
	const uint8_t *hits = rec_snapshot_hits(s, &np);
	size_t i;

	if (grow(v, s->nr_regions))
		return -ENOMEM;
	/* the view keeps no pointer into the snapshot: its hits are copied */
	if (hits && (size_t)s->nr_regions * np > v->hits_cap) {
		void *p = realloc(v->hits, (size_t)s->nr_regions * np);

		if (!p)
			return -ENOMEM;
		v->hits = p;
		v->hits_cap = (size_t)s->nr_regions * np;
	}
	if (hits)
		memcpy(v->hits, hits, (size_t)s->nr_regions * np);
	rows = v->rows;
	v->n = 0;
	v->aggr_us = s->aggr_us;
	for (i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *rg = &s->regions[i];
		struct damonctl_access_region w = {
			rg->start, rg->end, rg->nr_accesses, rg->age,
			damonctl_access_rate_bp(rg->nr_accesses, s->sample_us, s->aggr_us),
			(uint64_t)rg->age * s->aggr_us, 0, 0, rg->sz_filter_passed, 0, NULL };

		if (!damonctl_access_match(&v->o, s, rg))
			continue;
		w.temperature = damonctl_access_temperature(&w, v->o.weights);
		if (hits) {
			w.nr_probes = np;
			w.probe_hits = v->hits + i * np;
		}
		w.hz = s->aggr_us ? rg->nr_accesses / ((double)s->aggr_us / 1e6) : 0;
		rows[v->n++] = w;
	}
	if (v->n)
		qsort_r(rows, v->n, sizeof(*rows), cmp_rows, &v->o);
	if (v->o.top && v->n > v->o.top)
		v->n = v->o.top;
	for (v->bytes = 0, i = 0; i < v->n; i++)
		v->bytes += rows[i].end - rows[i].start;
	return 0;
}

size_t damonctl_access_view_count(const struct damonctl_access_view *v)
{
	return v->n;
}

const struct damonctl_access_region *
damonctl_access_view_region(const struct damonctl_access_view *v, size_t i)
{
	return i < v->n ? &v->rows[i] : NULL;
}

uint64_t damonctl_access_view_bytes(const struct damonctl_access_view *v)
{
	return v->bytes;
}

double access_metric_of(const struct damonctl_access_region *r, enum damonctl_access_metric m,
			const double w[3], uint64_t aggr_us)
{
	double nosize[3] = { 0, w[1], w[2] };

	switch (m) {
	case DAMONCTL_ACCESS_IDLE_US:
		return r->rate_bp ? 0 : (double)(r->age_us + aggr_us);
	case DAMONCTL_ACCESS_RATE_BP:
		return (double)r->rate_bp;
	case DAMONCTL_ACCESS_AGE_US:
		return (double)r->age_us;
	case DAMONCTL_ACCESS_BYTES:
		return (double)(r->end - r->start);
	default:
		break;
	}
	return damonctl_access_temperature(r, nosize);	/* damo's: without the size weight */
}

double damonctl_access_view_metric(const struct damonctl_access_view *v, size_t i,
				   enum damonctl_access_metric m)
{
	if (i >= v->n)
		return NAN;
	return access_metric_of(&v->rows[i], m, v->o.weights, v->aggr_us);
}

int damonctl_access_range_add(struct damonctl_access_range *r,
			      const struct damonctl_access_view *v)
{
	if (!r || r->sz < sizeof(*r))
		return -EINVAL;
	for (size_t i = 0; i < v->n; i++) {
		for (int m = 0; m < DAMONCTL_ACCESS_NR_METRICS; m++) {
			double x = access_metric_of(&v->rows[i], (enum damonctl_access_metric)m,
						    v->o.weights, v->aggr_us);

			r->min[m] = !r->have || x < r->min[m] ? x : r->min[m];
			r->max[m] = !r->have || x > r->max[m] ? x : r->max[m];
		}
		r->have = true;
	}
	return 0;
}

/* libm, for log2 alone: loaded by the first log scale (dlib.h), not by every program that
 * links libdamonctl. It is the C library's own, so it is always there; were it not, the
 * scale would read as linear. */
#define LIBM_FNS(X, t) X(t, log2)
DLIB_DEFINE(libm, DAMONCTL_SONAME_M, LIBM_FNS)

/* The value as a scale takes it: damo's log2, 0 for 0; the access rate in percent */
static double scaled(enum damonctl_access_metric m, double x, bool log)
{
	if (!log || dlib_load(&libm_lib))
		return x;
	if (m == DAMONCTL_ACCESS_RATE_BP)
		x /= 100;
	return x > 0 ? libm.log2(x) : 0;
}

int damonctl_access_rescale(const struct damonctl_access_range *r, enum damonctl_access_metric m,
			    double x, bool log, unsigned int lo, unsigned int hi)
{
	double sx = scaled(m, x, log), slo = scaled(m, r->min[m], log);
	double shi = scaled(m, r->max[m], log);
	double ratio = shi > slo ? (double)(hi - lo) / (shi - slo) : 1;

	return (int)((sx - slo) * ratio + lo);
}
