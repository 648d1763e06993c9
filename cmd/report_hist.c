// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ranges of 'report access --histogram', as damo's get_hist_ranges() and --hist_ranges
 * make them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <damonctl/damonctl.h>

#include "report_hist.h"

/* One value of --hist-ranges: a time (recency) or a number (temperature); 0 or -EINVAL */
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

int hist_parse_ranges(struct hist_opts *h, bool time)
{
	const char *p = h->ranges;
	unsigned int n = 0;

	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (n == 2 * HIST_MAX_GIVEN || parse_value(p, len, time, &h->given[n]))
			return -EINVAL;
		n++;
		if (!c)
			break;
		p = c + 1;
	}
	if (n % 2)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i += 2)
		if (h->given[i] >= h->given[i + 1])
			return -EINVAL;
	h->nr_given = n / 2;
	return 0;
}

/* damo's log scale: a first range of max((hi - lo) / 2^bins, 1), each next twice as wide,
 * until one ends after @hi (damo stops at one ending at @hi, leaving @hi out) */
static unsigned int log_ranges(const struct hist_opts *h, double lo, double hi, struct bin *b)
{
	double w = floor((hi - lo) / pow(2, h->bins)), end;
	unsigned int n = 0;

	w = w < 1 ? 1 : w;
	for (end = lo + w; ; w *= 2, end += w) {
		if (b) {
			b[n].lo = h->cumulate ? lo : end - w;
			b[n].hi = end;
		}
		n++;
		if (end > hi)
			return n;
	}
}

int hist_ranges(const struct hist_opts *h, double lo, double hi, struct bin **out,
		unsigned int *n)
{
	struct bin *b;
	unsigned int i;
	double w;

	*n = h->nr_given ? h->nr_given : h->logscale ? log_ranges(h, lo, hi, NULL) : h->bins;
	b = calloc(*n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	*out = b;
	if (h->nr_given) {
		for (i = 0; i < *n; i++) {
			b[i].lo = h->given[2 * i];
			b[i].hi = h->given[2 * i + 1];
		}
		return 0;
	}
	if (h->logscale) {
		log_ranges(h, lo, hi, b);
		return 0;
	}
	/* damo's linear: [lo + i * w, lo + (i + 1) * w), w = ceil((hi + 1 - lo) / bins) */
	w = ceil((hi + 1 - lo) / h->bins);
	w = w < 1 ? 1 : w;
	for (i = 0; i < *n; i++) {
		b[i].lo = h->cumulate ? lo : lo + w * (double)i;
		b[i].hi = lo + w * (double)(i + 1);
	}
	return 0;
}
