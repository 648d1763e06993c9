// SPDX-License-Identifier: GPL-2.0-or-later
/* The reports' percentile options, and the legacy struct qhist (see quantile.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "damonctl/damonctl.h"
#include "quantile.h"

void qhist_reset(struct qhist *h)
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

void qhist_add(struct qhist *h, uint64_t v)
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

uint64_t qhist_percentile(const struct qhist *h, double p)
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

int qhist_parse_list(const char *arg, double *pcts, unsigned int max)
{
	int n = damonctl_percentiles_parse(arg, pcts, max);

	return n < 0 ? -1 : n;
}

unsigned int qhist_default_list(double *pcts)
{
	static const double d[] = { 0, 25, 50, 75, 90, 99, 100 };

	memcpy(pcts, d, sizeof(d));
	return sizeof(d) / sizeof(d[0]);
}
