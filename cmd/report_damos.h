/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damo's <damos stats> of report access: a tried-regions scheme's stats with its snapshot */
#ifndef DAMONC_REPORT_DAMOS_H
#define DAMONC_REPORT_DAMOS_H

#include <stdbool.h>
#include <stdio.h>

#include "damonc.h"

/* The stats a report read, in its run's state: the last two stats of each scheme, so that a
 * snapshot kept while the next one's stats are read (--at) still finds its own */
#define DAMOS_SEEN_MAX 32
struct damos_seen {
	struct damonctl_rec_stats st[DAMOS_SEEN_MAX][2];
	unsigned int nr;
};
/* Forget the stats seen: a pass over the input begins */
void damos_seen_reset(struct damos_seen *d);
/* A STATS item read */
void damos_seen_add(struct damos_seen *d, const struct damonctl_rec_stats *st);
/* The stats of snapshot @s's scheme, the last ones at or before its end; NULL for a
 * snapshot of no scheme (damonc's capture's) or without them */
const struct damonctl_rec_stats *damos_seen_of(const struct damos_seen *d,
					       const struct damonctl_rec_snapshot *s);
/* damo's DamosStats.to_str() of @st (NULL: damo's "none"); sizes and numbers raw with @raw */
void damos_stats_print(FILE *out, const struct damonctl_rec_stats *st, bool raw);
/* {"nr_tried": ..., ...}: the values @st has */
json_object *damos_stats_json(const struct damonctl_rec_stats *st);

#endif
