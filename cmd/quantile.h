/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reports' percentile options. Percentiles themselves are libdamonctl's
 * (damonctl_qhist_new(3)); struct qhist below is the older by-value form, kept only until
 * its last user (hugepage_record.c) takes damonctl_qhist too.
 */
#ifndef DAMONC_QUANTILE_H
#define DAMONC_QUANTILE_H

#include <stdint.h>

/* The reports' default percentiles, 0,25,50,75,90,99,100, into @pcts (room for 7); 7. */
unsigned int qhist_default_list(double *pcts);
/* "0,50,99.9": up to @max percentiles (0..100) into @pcts; their number, or -1. */
int qhist_parse_list(const char *arg, double *pcts, unsigned int max);

/* legacy: as damonctl_qhist, embedded (64 buckets per power of two, with extremes) */
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

#endif
