/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reports' percentile options. Percentiles themselves are libdamonctl's
 * (damonctl_qhist_new(3)). */
#ifndef DAMONC_QUANTILE_H
#define DAMONC_QUANTILE_H

/* The reports' default percentiles, 0,25,50,75,90,99,100, into @pcts (room for 7); 7. */
unsigned int qhist_default_list(double *pcts);
/* "0,50,99.9": up to @max percentiles (0..100) into @pcts; their number, or -1. */
int qhist_parse_list(const char *arg, double *pcts, unsigned int max);

#endif
