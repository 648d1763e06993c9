/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The access pattern a report selects regions by (damo's --sz_region, --access_rate, --age):
 * size, access rate and age ranges, as 'report access' and 'report times' take them. A
 * region is matched as the report reads it, i.e. clipped to --address-range.
 */
#ifndef DAMONC_REPORT_PATTERN_H
#define DAMONC_REPORT_PATTERN_H

#include "report_input.h"

/* Option keys 520..529 are the pattern's. */
#define PATTERN_OPTS \
	{ "size", 520, OV_RANGE, "MIN,MAX", "only regions of MIN to MAX bytes (e.g. 2MiB,)" }, \
	{ "access-rate", 521, OV_RANGE, "MIN,MAX", "only regions accessed in MIN to MAX of " \
	  "the samples (e.g. 50%,100%)" }, \
	{ "age", 522, OV_RANGE, "MIN,MAX", "only regions whose access rate has not changed for " \
	  "MIN to MAX (e.g. 10s,)" }

struct pattern {
	uint64_t sz_min, sz_max;
	uint64_t rate_min_bp, rate_max_bp;
	uint64_t age_min_us, age_max_us;
};
/* Everything matches until an option narrows it. */
#define PATTERN_ANY { .sz_max = UINT64_MAX, .rate_max_bp = 10000, .age_max_us = UINT64_MAX }

/* 0, an exit code, or -1 when @key is not a pattern option. */
int pattern_parse(struct cli *cli, struct pattern *p, int key, const char *arg);
/* "A,B" with either side empty (kept as it was); @parse reads one side. 0 or EXIT_USAGE
 * after naming --@opt and @arg, and what was expected. */
int parse_min_max(struct cli *cli, const char *opt, const char *arg,
		  int (*parse)(const char *, uint64_t *), uint64_t *lo, uint64_t *hi,
		  const char *expect);

/* A region's access rate in basis points of the samples, at most 100%. */
uint64_t pattern_rate_bp(uint32_t nr_accesses, uint64_t sample_us, uint64_t aggr_us);
/* Whether region @r of snapshot @s has the pattern. */
bool pattern_match(const struct pattern *p, const struct damonctl_rec_snapshot *s,
		   const struct damonctl_rec_region *r);

#endif
