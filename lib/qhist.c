// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Percentiles of a stream of values in fixed memory (damonctl_qhist_new(3)): a histogram of
 * 64 buckets per power of two (values in a bucket lie within 1.1% of each other) that also
 * keeps each bucket's smallest and largest value, so a bucket holding one distinct value
 * answers exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "damonctl/damonctl.h"

#define QH_SUB 64
#define QH_BUCKETS (64 * QH_SUB + 1)

struct damonctl_qhist {
	uint64_t n;
	double sum;
	uint64_t min, max;
	uint32_t count[QH_BUCKETS];
	uint64_t lo[QH_BUCKETS], hi[QH_BUCKETS];
};

struct damonctl_qhist *damonctl_qhist_new(void)
{
	return calloc(1, sizeof(struct damonctl_qhist));
}

void damonctl_qhist_free(struct damonctl_qhist *h)
{
	free(h);
}

void damonctl_qhist_reset(struct damonctl_qhist *h)
{
	memset(h, 0, sizeof(*h));
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

uint64_t damonctl_qhist_percentile(const struct damonctl_qhist *h, double p)
{
	uint64_t rank, seen = 0;
	unsigned int b;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(p / 100 * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
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
