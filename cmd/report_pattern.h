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

/* The library's access view options: their size, rate and age ranges */
struct pattern {
	struct damonctl_access_opts a;
};
/* Everything matches until an option narrows it. */
#define PATTERN_ANY { .a = DAMONCTL_ACCESS_OPTS_INIT }

/* 0, an exit code, or -1 when @key is not a pattern option. */
int pattern_parse(struct cli *cli, struct pattern *p, int key, const char *arg);
/* "A,B" with either side empty (kept as it was); @parse reads one side. 0 or EXIT_USAGE
 * after naming --@opt and @arg, and what was expected. */
int parse_min_max(struct cli *cli, const char *opt, const char *arg,
		  int (*parse)(const char *, uint64_t *), uint64_t *lo, uint64_t *hi,
		  const char *expect);

/* Whether region @r of snapshot @s has the pattern. */
static inline bool pattern_match(const struct pattern *p, const struct damonctl_rec_snapshot *s,
				 const struct damonctl_rec_region *r)
{
	return damonctl_access_match(&p->a, s, r);
}

#endif
