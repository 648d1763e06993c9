/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Percentiles of a stream of values in fixed memory: a histogram of 64 buckets per power of
 * two (values in a bucket lie within 1.1% of each other) that also keeps each bucket's
 * smallest and largest value, so a bucket holding one distinct value answers exactly.
 */
#ifndef DAMONC_QUANTILE_H
#define DAMONC_QUANTILE_H

#include <stdint.h>

#define QH_SUB 64
#define QH_BUCKETS (64 * QH_SUB + 1)

struct qhist {
	uint64_t n;
	double sum;
	uint64_t min, max;
	uint32_t count[QH_BUCKETS];
	uint64_t lo[QH_BUCKETS], hi[QH_BUCKETS];
};

void qhist_reset(struct qhist *h);
void qhist_add(struct qhist *h, uint64_t v);
/* The nearest-rank @p-th percentile (0..100); 0 when empty. */
uint64_t qhist_percentile(const struct qhist *h, double p);

/* The reports' default percentiles, 0,25,50,75,90,99,100, into @pcts (room for 7); 7. */
unsigned int qhist_default_list(double *pcts);
/* "0,50,99.9": up to @max percentiles (0..100) into @pcts; their number, or -1. */
int qhist_parse_list(const char *arg, double *pcts, unsigned int max);

#endif
