// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a record holds (damonctl_rec_info_new(3)), damo's record_info: each series with its
 * time span, the intervals seen and whether they changed, regions per snapshot and
 * monitored bytes; the target's pid and operations when the record has the kdamond's
 * configuration; the scheme stats; the recording's own description. One pass, state per
 * series: memory does not grow with the record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

#define MAX_STAT_SCHEMES 64

struct stat_scheme {
	uint32_t kdamond, scheme;
	char action[24];
	uint64_t stats;
};

struct damonctl_rec_info {
	struct damonctl_rec_info_series *series;	/* in the order they first appear */
	size_t nr_series, cap;
	struct stat_scheme schemes[MAX_STAT_SCHEMES];
	unsigned int nr_schemes;
	uint64_t stats, stats_untold;	/* STATS items; those of schemes past the table */
	uint64_t snapshots, configs;
	json_object *recording;		/* the INFO item, parsed */
	json_object *config;		/* the last CONFIG item, parsed */
};

struct damonctl_rec_info *damonctl_rec_info_new(void)
{
	return calloc(1, sizeof(struct damonctl_rec_info));
}

void damonctl_rec_info_free(struct damonctl_rec_info *n)
{
	if (!n)
		return;
	json_object_put(n->recording);
	json_object_put(n->config);
	free(n->series);
	free(n);
}

/* The series of @sn, new (zeroed but for its key) when first seen; NULL when out of memory. */
static struct damonctl_rec_info_series *slot(struct damonctl_rec_info *n,
					     const struct damonctl_rec_snapshot *sn)
{
	struct damonctl_rec_info_series *s;
	size_t i;

	for (i = 0; i < n->nr_series; i++) {
		s = &n->series[i];
		if (s->kdamond == sn->kdamond && s->context == sn->context &&
		    s->target == sn->target && s->scheme == sn->scheme)
			return s;
	}
	if (n->nr_series == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		void *p = realloc(n->series, cap * sizeof(*n->series));

		if (!p)
			return NULL;
		n->series = p;
		n->cap = cap;
	}
	s = &n->series[n->nr_series++];
	*s = (struct damonctl_rec_info_series){ .sz = sizeof(*s), .kdamond = sn->kdamond,
		.context = sn->context, .target = sn->target, .scheme = sn->scheme };
	return s;
}

static void ival_add(struct damonctl_rec_interval *v, uint64_t x, bool first)
{
	if (first || x < v->min)
		v->min = x;
	if (first || x > v->max)
		v->max = x;
	if (first)
		v->first = x;
	v->last = x;
}

static void add_snapshot(struct damonctl_rec_info_series *s,
			 const struct damonctl_rec_snapshot *sn)
{
	bool first = !s->snapshots;

	if (!first && (sn->sample_us != s->sample_us.last || sn->aggr_us != s->aggr_us.last ||
		       sn->update_us != s->update_us.last))
		s->interval_changes++;
	ival_add(&s->sample_us, sn->sample_us, first);
	ival_add(&s->aggr_us, sn->aggr_us, first);
	ival_add(&s->update_us, sn->update_us, first);
	if (first) {
		s->first_start_ns = sn->start_ns;
		s->first_ns = sn->end_ns;
	}
	s->last_ns = sn->end_ns;
	if (first || sn->nr_regions < s->regions_min)
		s->regions_min = sn->nr_regions;
	if (first || sn->nr_regions > s->regions_max)
		s->regions_max = sn->nr_regions;
	s->regions_sum += sn->nr_regions;
	if (first || sn->total_bytes < s->bytes_min)
		s->bytes_min = sn->total_bytes;
	if (first || sn->total_bytes > s->bytes_max)
		s->bytes_max = sn->total_bytes;
	s->snapshots++;
}

static void add_stats(struct damonctl_rec_info *n, const struct damonctl_rec_stats *st)
{
	unsigned int i;

	n->stats++;
	for (i = 0; i < n->nr_schemes; i++)
		if (n->schemes[i].kdamond == st->kdamond && n->schemes[i].scheme == st->scheme)
			break;
	if (i == n->nr_schemes) {
		if (i == MAX_STAT_SCHEMES) {
			n->stats_untold++;
			return;
		}
		n->schemes[i].kdamond = st->kdamond;
		n->schemes[i].scheme = st->scheme;
		memcpy(n->schemes[i].action, st->action, sizeof(n->schemes[i].action));
		n->schemes[i].action[sizeof(n->schemes[i].action) - 1] = '\0';
		n->nr_schemes++;
	}
	n->schemes[i].stats++;
}

int damonctl_rec_info_feed(struct damonctl_rec_info *n, const struct damonctl_rec_item *it)
{
	struct damonctl_rec_info_series *s;

	/* an item points to its snapshot or stats (a hand-made one may not) */
	if ((it->type == DAMONCTL_REC_SNAPSHOT && !it->snapshot) ||
	    (it->type == DAMONCTL_REC_STATS && !it->stats))
		return -EINVAL;
	switch (it->type) {
	case DAMONCTL_REC_INFO:
		json_object_put(n->recording);
		n->recording = json_tokener_parse(it->json);
		break;
	case DAMONCTL_REC_CONFIG:
		json_object_put(n->config);
		n->config = json_tokener_parse(it->json);
		n->configs++;
		break;
	case DAMONCTL_REC_SNAPSHOT:
		s = slot(n, it->snapshot);
		if (!s)
			return -ENOMEM;
		add_snapshot(s, it->snapshot);
		n->snapshots++;
		break;
	case DAMONCTL_REC_STATS:
		add_stats(n, it->stats);
		break;
	default:
		break;
	}
	return 0;
}

/* The recorded kdamond's configuration applies to the series of the kdamond the INFO item
 * names, or, when it names none, to every series if they all share one kdamond. */
static bool config_applies(const struct damonctl_rec_info *n, uint32_t kdamond)
{
	json_object *k;
	size_t i;

	if (!n->config)
		return false;
	if (n->recording && json_object_is_type(n->recording, json_type_object) &&
	    json_object_object_get_ex(n->recording, "kdamond", &k) &&
	    json_object_is_type(k, json_type_int))
		return json_object_get_int64(k) == (int64_t)kdamond;
	for (i = 0; i < n->nr_series; i++)
		if (n->series[i].kdamond != kdamond)
			return false;
	return true;
}

/* Element @i of the array @key of object @o, or NULL (a record's JSON is not trusted). */
static json_object *member_at(json_object *o, const char *key, size_t i)
{
	json_object *a;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array) ||
	    i >= json_object_array_length(a))
		return NULL;
	return json_object_array_get_idx(a, i);
}

/* The context (and target) of series @s in the configuration, or NULL. */
static json_object *config_get(const struct damonctl_rec_info *n,
			       const struct damonctl_rec_info_series *s, bool target)
{
	json_object *c;

	if (!config_applies(n, s->kdamond))
		return NULL;
	c = member_at(member_at(n->config, "kdamonds", 0), "contexts", s->context);
	if (!target)
		return c;
	return s->target < 0 ? NULL : member_at(c, "targets", (size_t)s->target);
}

static const char *series_ops(const struct damonctl_rec_info *n,
			      const struct damonctl_rec_info_series *s)
{
	json_object *c = config_get(n, s, false), *v;

	return c && json_object_is_type(c, json_type_object) &&
	       json_object_object_get_ex(c, "operations", &v) &&
	       json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* -1 when unknown (damo's records, a paddr target). */
static int64_t series_pid(const struct damonctl_rec_info *n,
			  const struct damonctl_rec_info_series *s)
{
	json_object *t = config_get(n, s, true), *v;

	return t && json_object_is_type(t, json_type_object) &&
	       json_object_object_get_ex(t, "pid_target", &v) &&
	       json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

size_t damonctl_rec_info_nr_series(const struct damonctl_rec_info *n)
{
	return n->nr_series;
}

int damonctl_rec_info_series(const struct damonctl_rec_info *n, size_t i,
			     struct damonctl_rec_info_series *s)
{
	struct damonctl_rec_info_series v;

	if (i >= n->nr_series)
		return -ERANGE;
	if (s->sz < offsetof(struct damonctl_rec_info_series, operations) +
		    sizeof(s->operations))
		return -EINVAL;
	v = n->series[i];
	v.pid = series_pid(n, &v);
	v.operations = series_ops(n, &v);
	memcpy((char *)s + sizeof(s->sz), (char *)&v + sizeof(v.sz),
	       (s->sz < sizeof(v) ? s->sz : sizeof(v)) - sizeof(v.sz));
	return 0;
}

uint64_t damonctl_rec_info_snapshots(const struct damonctl_rec_info *n, uint64_t *first_ns,
				     uint64_t *last_ns)
{
	uint64_t first = UINT64_MAX, last = 0;
	size_t i;

	for (i = 0; i < n->nr_series; i++) {
		const struct damonctl_rec_info_series *s = &n->series[i];

		first = s->first_start_ns < first ? s->first_start_ns : first;
		last = s->last_ns > last ? s->last_ns : last;
	}
	if (first_ns)
		*first_ns = first;
	if (last_ns)
		*last_ns = last;
	return n->snapshots;
}

bool damonctl_rec_info_has_config(const struct damonctl_rec_info *n)
{
	return n->configs > 0;
}

uint64_t damonctl_rec_info_stats(const struct damonctl_rec_info *n, uint64_t *untold)
{
	if (untold)
		*untold = n->stats_untold;
	return n->stats;
}

int damonctl_rec_info_scheme(const struct damonctl_rec_info *n, size_t i, uint32_t *kdamond,
			     uint32_t *scheme, const char **action, uint64_t *stats)
{
	if (i >= n->nr_schemes)
		return -ERANGE;
	*kdamond = n->schemes[i].kdamond;
	*scheme = n->schemes[i].scheme;
	*action = n->schemes[i].action;
	*stats = n->schemes[i].stats;
	return 0;
}

const char *damonctl_rec_info_recording(const struct damonctl_rec_info *n, const char *key)
{
	json_object *v;

	return n->recording && json_object_is_type(n->recording, json_type_object) &&
	       json_object_object_get_ex(n->recording, key, &v) &&
	       json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The INFO item's "subset" (what a conversion kept), or NULL. */
static json_object *recording_subset(const struct damonctl_rec_info *n)
{
	json_object *v;

	return n->recording && json_object_is_type(n->recording, json_type_object) &&
	       json_object_object_get_ex(n->recording, "subset", &v) &&
	       json_object_is_type(v, json_type_object) ? v : NULL;
}

bool damonctl_rec_info_has_subset(const struct damonctl_rec_info *n)
{
	return recording_subset(n) != NULL;
}

int64_t damonctl_rec_info_subset(const struct damonctl_rec_info *n, const char *key)
{
	json_object *sub = recording_subset(n), *v;

	return sub && json_object_object_get_ex(sub, key, &v) &&
	       json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}
