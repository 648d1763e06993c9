// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The time ranges in which a series' snapshots have regions of an access pattern (damo's
 * report times): a snapshot matches when at least one of its regions has the pattern and
 * those regions' bytes are within the bounds; consecutive matching snapshots make one range,
 * from the first's start to the last's end. Fed one snapshot at a time: constant memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct damonctl_access_times {
	struct damonctl_access_opts o;
	uint64_t bytes_min, bytes_max;
	bool open;
	struct damonctl_access_span span;
};

DAMONCTL_API int damonctl_access_times_new(const struct damonctl_access_opts *o,
					   uint64_t bytes_min, uint64_t bytes_max,
					   struct damonctl_access_times **out)
{
	struct damonctl_access_times *t;

	*out = NULL;
	if (!o || o->sz < offsetof(struct damonctl_access_opts, keys) || bytes_min > bytes_max)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->o = (struct damonctl_access_opts)DAMONCTL_ACCESS_OPTS_INIT;
	memcpy(&t->o, o, o->sz < sizeof(t->o) ? o->sz : sizeof(t->o));
	t->o.sz = sizeof(t->o);
	t->bytes_min = bytes_min;
	t->bytes_max = bytes_max;
	*out = t;
	return 0;
}

DAMONCTL_API void damonctl_access_times_free(struct damonctl_access_times *t)
{
	free(t);
}

/* The bytes of @s's regions that have the pattern, or 0 when the snapshot does not match. */
static uint64_t matched_bytes(const struct damonctl_access_times *t,
			      const struct damonctl_rec_snapshot *s)
{
	uint64_t bytes = 0;
	bool any = false;
	uint32_t i;

	for (i = 0; i < s->nr_regions; i++)
		if (damonctl_access_match(&t->o, s, &s->regions[i])) {
			bytes += s->regions[i].end - s->regions[i].start;
			any = true;
		}
	return any && bytes >= t->bytes_min && bytes <= t->bytes_max ? bytes : 0;
}

/* The open range into @span (up to its sz), and none open any more. */
static int close_span(struct damonctl_access_times *t, struct damonctl_access_span *span)
{
	size_t sz = span->sz < sizeof(*span) ? span->sz : sizeof(*span);

	t->open = false;
	if (sz > sizeof(span->sz))
		memcpy((char *)span + sizeof(span->sz), (char *)&t->span + sizeof(span->sz),
		       sz - sizeof(span->sz));
	return 1;
}

DAMONCTL_API int damonctl_access_times_feed(struct damonctl_access_times *t,
					    const struct damonctl_rec_snapshot *s,
					    struct damonctl_access_span *span)
{
	uint64_t bytes = matched_bytes(t, s);
	struct damonctl_access_span *o = &t->span;

	if (!bytes)
		return t->open ? close_span(t, span) : 0;
	if (!t->open) {
		*o = (struct damonctl_access_span){ .sz = sizeof(*o), .start_ns = s->start_ns,
						    .bytes_min = bytes, .bytes_max = bytes };
		t->open = true;
	}
	o->end_ns = s->end_ns;
	o->snapshots++;
	o->bytes_min = bytes < o->bytes_min ? bytes : o->bytes_min;
	o->bytes_max = bytes > o->bytes_max ? bytes : o->bytes_max;
	return 0;
}

DAMONCTL_API int damonctl_access_times_end(struct damonctl_access_times *t,
					   struct damonctl_access_span *span)
{
	return t->open ? close_span(t, span) : 0;
}
