// SPDX-License-Identifier: GPL-2.0-or-later
/* The reports' percentile options (see quantile.h). */
#include <string.h>

#include "damonctl/damonctl.h"
#include "quantile.h"

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
