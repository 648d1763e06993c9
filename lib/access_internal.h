/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The access view's insides, shared by lib/access*.c. */
#ifndef DAMONCTL_ACCESS_INTERNAL_H
#define DAMONCTL_ACCESS_INTERNAL_H

#include <damonctl/damonctl.h>

struct damonctl_access_view {
	struct damonctl_access_opts o;		/* a copy, its sz ours */
	struct damonctl_access_region *rows;	/* selected, sorted, cut to o.top */
	size_t n, cap;
	uint64_t bytes;				/* of the n rows */
	uint64_t aggr_us;			/* the snapshot's: idle time counts one */
	uint8_t *hits;				/* the snapshot's probe hits, copied */
	size_t hits_cap;
};

/* Metric @m of region @r with the view's weights @w and aggregation @aggr_us */
double access_metric_of(const struct damonctl_access_region *r, enum damonctl_access_metric m,
			const double w[3], uint64_t aggr_us);

#endif
