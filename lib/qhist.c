// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Percentiles of a stream of values (damonctl_qhist_new(3)): the values themselves while
 * they are at most QH_EXACT_MAX (a record's snapshots: 8 bytes each), so that percentiles
 * are exact, as damo's are; past that, a histogram of 64 buckets per power of two (values
 * in a bucket lie within 1.1% of each other) that also keeps each bucket's smallest and
 * largest value, so a bucket holding one distinct value answers exactly, in fixed memory.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "damonctl/damonctl.h"

#define QH_SUB 64
#define QH_BUCKETS (64 * QH_SUB + 1)
#define QH_EXACT_MAX (UINT64_C(1) << 20)

struct damonctl_qhist {
	uint64_t n;
	double sum;
	uint64_t min, max;
	uint32_t count[QH_BUCKETS];
	uint64_t lo[QH_BUCKETS], hi[QH_BUCKETS];
	uint64_t *vals;		/* every value while exact */
	size_t cap;
	bool inexact;		/* more than QH_EXACT_MAX values, or no memory for them */
	bool sorted;
};

struct damonctl_qhist *damonctl_qhist_new(void)
{
	return calloc(1, sizeof(struct damonctl_qhist));
}

void damonctl_qhist_free(struct damonctl_qhist *h)
{
	if (h)
		free(h->vals);
	free(h);
}

void damonctl_qhist_reset(struct damonctl_qhist *h)
{
	uint64_t *vals = h->vals;
	size_t cap = h->cap;

	memset(h, 0, sizeof(*h));
	h->vals = vals;		/* room kept for the next window */
	h->cap = cap;
}

/* Keep @v among the values while they are few enough; let them go otherwise. */
static void keep(struct damonctl_qhist *h, uint64_t v)
{
	if (h->inexact)
		return;
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		uint64_t *p = h->n < QH_EXACT_MAX ? realloc(h->vals, cap * sizeof(*p)) : NULL;

		if (!p) {	/* the histogram answers from here on */
			free(h->vals);
			h->vals = NULL;
			h->cap = 0;
			h->inexact = true;
			return;
		}
		h->vals = p;
		h->cap = cap;
	}
	h->vals[h->n] = v;
	h->sorted = false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The kept values in order; NULL when the histogram must answer. The values are the
 * object's own (never a const one: damonctl_qhist_new() makes them all), sorted when a
 * percentile is first asked after an add. */
static const uint64_t *sorted_values(const struct damonctl_qhist *ch)
{
	struct damonctl_qhist *h = (struct damonctl_qhist *)ch;

	if (h->inexact || !h->n)
		return NULL;
	if (!h->sorted)
		qsort(h->vals, (size_t)h->n, sizeof(*h->vals), cmp_u64);
	h->sorted = true;
	return h->vals;
}

static unsigned int bucket(uint64_t v)
{
	unsigned int e;

	if (!v)
		return 0;
	e = 63 - (unsigned int)__builtin_clzll(v);
	/* the 6 bits after the leading one pick the sub-bucket */
	return 1 + e * QH_SUB + (unsigned int)(e >= 6 ? (v >> (e - 6)) & 63 : (v << (6 - e)) & 63);
}

void damonctl_qhist_add(struct damonctl_qhist *h, uint64_t v)
{
	unsigned int b = bucket(v);

	keep(h, v);
	if (!h->count[b] || v < h->lo[b])
		h->lo[b] = v;
	if (!h->count[b] || v > h->hi[b])
		h->hi[b] = v;
	h->count[b]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (!h->n || v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
}

uint64_t damonctl_qhist_count(const struct damonctl_qhist *h)
{
	return h->n;
}

uint64_t damonctl_qhist_min(const struct damonctl_qhist *h)
{
	return h->min;
}

uint64_t damonctl_qhist_max(const struct damonctl_qhist *h)
{
	return h->max;
}

double damonctl_qhist_mean(const struct damonctl_qhist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

/* The value of rank @rank (1..n) in order: the kept value, or the histogram's estimate. */
static uint64_t value_of_rank(const struct damonctl_qhist *h, uint64_t rank)
{
	const uint64_t *v = sorted_values(h);
	uint64_t seen = 0;
	unsigned int b;

	if (v)
		return v[rank - 1];
	for (b = 0; b < QH_BUCKETS; b++) {
		if (!h->count[b])
			continue;
		if (seen + h->count[b] >= rank) {
			double f;

			if (h->count[b] == 1 || h->lo[b] == h->hi[b])
				return rank - seen == h->count[b] ? h->hi[b] : h->lo[b];
			/* spread the bucket's values evenly between its extremes */
			f = (double)(rank - seen - 1) / (double)(h->count[b] - 1);
			return h->lo[b] + (uint64_t)(f * (double)(h->hi[b] - h->lo[b]));
		}
		seen += h->count[b];
	}
	return h->max;
}

uint64_t damonctl_qhist_percentile(const struct damonctl_qhist *h, double p)
{
	uint64_t rank;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(p / 100 * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	return value_of_rank(h, rank);
}

uint64_t damonctl_qhist_value_at(const struct damonctl_qhist *h, double p)
{
	uint64_t idx;

	if (!h->n)
		return 0;
	/* damo's _damo_dist.get_percentile(): int(p / 100 * n), the last for p = 100 */
	idx = (uint64_t)(p / 100.0 * (double)h->n);
	if (idx >= h->n)
		idx = h->n - 1;
	return value_of_rank(h, idx + 1);
}

bool damonctl_qhist_exact(const struct damonctl_qhist *h)
{
	return !h->inexact;
}

int damonctl_percentiles_parse(const char *arg, double *pcts, unsigned int max)
{
	unsigned int n = 0;
	const char *p;

	for (p = arg; *p;) {
		char *end;
		double v = strtod(p, &end);

		if (end == p || !(v >= 0 && v <= 100) || (*end && *end != ',') || n >= max)
			return -EINVAL;
		pcts[n++] = v;
		p = *end ? end + 1 : end;
	}
	return n ? (int)n : -EINVAL;
}
