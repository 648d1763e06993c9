// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damo's <damos stats> keyword: the stats of the scheme whose tried regions a snapshot is
 * (damo's report access --tried_regions_of, kept in its record with each snapshot; damonc's
 * reader hands them over as a STATS item just before the snapshot). A snapshot of damonc's
 * own capture is of no scheme: damo's "none".
 */
#include <inttypes.h>
#include <string.h>

#include "report_damos.h"

void damos_seen_reset(struct damos_seen *d)
{
	d->nr = 0;
}

static bool same_scheme(const struct damonctl_rec_stats *a, uint32_t kdamond, uint32_t context,
			uint32_t scheme)
{
	return a->kdamond == kdamond && a->context == context && a->scheme == scheme;
}

void damos_seen_add(struct damos_seen *d, const struct damonctl_rec_stats *st)
{
	unsigned int i;

	for (i = 0; i < d->nr; i++)
		if (same_scheme(&d->st[i][0], st->kdamond, st->context, st->scheme))
			break;
	if (i == DAMOS_SEEN_MAX)
		return;	/* more schemes than a report shows: the others' are not kept */
	if (i == d->nr) {
		d->nr++;
		d->st[i][1] = *st;
	} else {
		d->st[i][1] = d->st[i][0];
	}
	d->st[i][0] = *st;
}

const struct damonctl_rec_stats *damos_seen_of(const struct damos_seen *d,
					       const struct damonctl_rec_snapshot *s)
{
	if (s->scheme < 0)
		return NULL;
	for (unsigned int i = 0; i < d->nr; i++) {
		if (!same_scheme(&d->st[i][0], s->kdamond, s->context, (uint32_t)s->scheme))
			continue;
		for (int k = 0; k < 2; k++)
			if (d->st[i][k].time_ns <= s->end_ns)
				return &d->st[i][k];
	}
	return NULL;
}

/* Value @v of @st: a count, or bytes; N/A when the record has not it */
static const char *value(const struct damonctl_rec_stats *st, enum damonctl_rec_stat v,
			 bool bytes, bool raw, char *buf, size_t size)
{
	if (!(st->has & (1u << v)))
		return "N/A";
	if (bytes && !raw)
		return fmt_size(st->v[v], buf, size);
	snprintf(buf, size, "%" PRIu64, st->v[v]);
	return buf;
}

void damos_stats_print(FILE *out, const struct damonctl_rec_stats *st, bool raw)
{
	char a[32], b[32];

	if (!st) {
		fputs("none", out);
		return;
	}
	fprintf(out, "tried %s times (%s)\n", value(st, DAMONCTL_REC_NR_TRIED, false, raw, a, 32),
		value(st, DAMONCTL_REC_SZ_TRIED, true, raw, b, 32));
	fprintf(out, "applied %s times (%s)\n",
		value(st, DAMONCTL_REC_NR_APPLIED, false, raw, a, 32),
		value(st, DAMONCTL_REC_SZ_APPLIED, true, raw, b, 32));
	fprintf(out, "%s passed filters\n", value(st, DAMONCTL_REC_SZ_OPS_FILTER_PASSED, true,
						  raw, a, 32));
	fprintf(out, "quota exceeded %s times\n",
		value(st, DAMONCTL_REC_QT_EXCEEDS, false, raw, a, 32));
	/* damo's line of the filter-passed bytes alone, as it prints it */
	fprintf(out, "%s\n", value(st, DAMONCTL_REC_SZ_OPS_FILTER_PASSED, true, raw, a, 32));
	/* the record keeps no max_nr_snapshots */
	fprintf(out, "tried %s snapshots (max N/A)",
		value(st, DAMONCTL_REC_NR_SNAPSHOTS, false, raw, a, 32));
}

json_object *damos_stats_json(const struct damonctl_rec_stats *st)
{
	static const char *const names[] = {
		"nr_tried", "sz_tried", "nr_applied", "sz_applied", "sz_ops_filter_passed",
		"qt_exceeds", "nr_snapshots", "effective_bytes",
	};
	json_object *o = json_object_new_object();

	json_object_object_add(o, "scheme", json_object_new_uint64(st->scheme));
	for (unsigned int i = 0; i < DAMONCTL_REC_NR_STATS; i++)
		if (st->has & (1u << i))
			json_object_object_add(o, names[i], json_object_new_uint64(st->v[i]));
	return o;
}
