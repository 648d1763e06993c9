/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ranges of 'report access --histogram' (damo's temperature-sz-hist and recency-sz-hist):
 * linear or doubling (--hist-logscale) between the smallest and largest value, each from
 * the smallest (--hist-cumulate), or the user's (--hist-ranges).
 */
#ifndef DAMONC_REPORT_HIST_H
#define DAMONC_REPORT_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define HIST_MAX_GIVEN 64

struct bin {
	double lo, hi;
	uint64_t bytes;
};

struct hist_opts {
	unsigned int bins;		/* 0: not given (10) */
	bool logscale, cumulate;
	const char *ranges;		/* --hist-ranges as given, parsed once the metric is known */
	double given[2 * HIST_MAX_GIVEN];
	unsigned int nr_given;		/* ranges in given[] */
};

/* --hist-ranges MIN,MAX[,MIN,MAX...] into @h->given; @time: values are times (us);
 * 0 or -EINVAL */
int hist_parse_ranges(struct hist_opts *h, bool time);

/* The ranges for values from @lo to @hi, into a new array of *@n bins (bytes 0); -ENOMEM */
int hist_ranges(const struct hist_opts *h, double lo, double hi, struct bin **out,
		unsigned int *n);

#endif
