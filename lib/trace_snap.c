// SPDX-License-Identifier: LGPL-2.1-or-later
/* Snapshots from damon_aggregated events (see trace_snap.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_snap.h"

static int32_t index_of(struct trace_snap *s, uint64_t id)
{
	unsigned int i;

	/* an index already (5.16 on) */
	if (id < 64)
		return (int32_t)id;
	for (i = 0; i < s->nr_ids; i++)
		if (s->ids[i] == id)
			return (int32_t)i;
	if (s->nr_ids < 64)
		s->ids[s->nr_ids++] = id;
	return (int32_t)s->nr_ids - 1;
}

void trace_snap_lost(struct trace_snap *s)
{
	if (s->open)
		s->dropped++;
	s->open = false;
}

/* Room for @n bytes in *@buf of capacity *@cap. */
static int reserve_bytes(uint8_t **buf, size_t *cap, size_t n)
{
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*buf, n);
	if (!q)
		return -ENOMEM;
	*buf = q;
	*cap = n;
	return 0;
}

int trace_snap_add_hits(struct trace_snap *s, uint64_t ts_ns, uint64_t id, uint32_t nr_regions,
			const struct damonctl_rec_region *r, const uint8_t *hits, uint32_t np,
			struct damonctl_rec_snapshot *snap)
{
	/* a region that does not follow: events were lost, the partial snapshot goes */
	if (s->open && (id != s->id || s->nr >= s->want || np != s->np ||
			(s->nr && r->start < s->regions[s->nr - 1].end)))
		trace_snap_lost(s);
	if (!s->open) {
		s->open = true;
		s->id = id;
		s->want = nr_regions;
		s->nr = 0;
		s->np = np;
		s->ts_ns = ts_ns;
	}
	if (np && reserve_bytes(&s->hits, &s->hcap, ((size_t)s->nr + 1) * np * 2))
		return -ENOMEM;
	if (np)
		memcpy(s->hits + (size_t)s->nr * np, hits, np);
	if (s->nr >= s->cap) {
		size_t c = s->cap ? s->cap * 2 : 1024;
		void *q = realloc(s->regions, c * sizeof(*s->regions));

		if (!q)
			return -ENOMEM;
		s->regions = q;
		s->cap = c;
	}
	s->regions[s->nr++] = *r;
	if (s->nr < s->want)
		return 0;
	/* hand out a copy: the next events may start the next snapshot at once */
	if (s->nr > s->out_cap) {
		void *q = realloc(s->out, s->nr * sizeof(*s->out));

		if (!q)
			return -ENOMEM;
		s->out = q;
		s->out_cap = s->nr;
	}
	memcpy(s->out, s->regions, s->nr * sizeof(*s->out));
	if (s->np && reserve_bytes(&s->out_hits, &s->out_hcap, (size_t)s->nr * s->np))
		return -ENOMEM;
	if (s->np)
		memcpy(s->out_hits, s->hits, (size_t)s->nr * s->np);
	memset(snap, 0, sizeof(*snap));
	snap->sz = sizeof(*snap);
	snap->target = index_of(s, id);
	snap->scheme = -1;
	snap->end_ns = s->ts_ns;
	snap->nr_regions = s->nr;
	snap->regions = s->out;
	if (s->np && s->nr) {
		snap->nr_probes = s->np;
		snap->probe_hits = s->out_hits;
	}
	for (uint32_t i = 0; i < s->nr; i++)
		snap->total_bytes += s->out[i].end - s->out[i].start;
	s->open = false;
	return 1;
}

int trace_snap_add(struct trace_snap *s, uint64_t ts_ns, uint64_t id, uint32_t nr_regions,
		   const struct damonctl_rec_region *r, struct damonctl_rec_snapshot *snap)
{
	return trace_snap_add_hits(s, ts_ns, id, nr_regions, r, NULL, 0, snap);
}

/* "probe_hits=14 00 ff": the hex bytes after it, at most @max; their number, -1 for none */
static int parse_probe_hits(const char *s, uint8_t *h, int max)
{
	const char *p = strstr(s, " probe_hits=");
	int n = 0;

	if (!p)
		return -1;
	p += 12;
	while (*p && n < max) {
		char *end;
		unsigned long v = strtoul(p, &end, 16);

		if (end == p || v > 255)
			break;
		h[n++] = (uint8_t)v;
		p = end;
		while (*p == ' ')
			p++;
	}
	return n;
}

bool trace_snap_parse_line(char *line, const char *event, bool probes,
			   struct trace_line_region *out)
{
	unsigned long long id, start, end, sec, frac;
	unsigned int nr, na, age;
	size_t nlen = strlen(event);
	char *ev = line, *p;
	int digits = 0, np = 0;

	/* ": EVENT: " */
	while ((ev = strstr(ev, event)) && (ev < line + 2 || ev[-2] != ':' || ev[-1] != ' ' ||
					    ev[nlen] != ':' || ev[nlen + 1] != ' '))
		ev++;
	if (!ev)
		return false;
	ev -= 2;
	*ev = '\0';
	p = strrchr(line, ' ');
	p = p ? p + 1 : line;
	if (sscanf(p, "%llu.%llu", &sec, &frac) != 2)
		return false;
	for (char *d = strchr(p, '.') + 1; *d >= '0' && *d <= '9'; d++)
		digits++;
	while (digits < 9) {
		frac *= 10;
		digits++;
	}
	if (sscanf(ev + 4 + nlen, "target_id=%llu nr_regions=%u %llu-%llu: %u %u", &id, &nr,
		   &start, &end, &na, &age) != 6)
		return false;
	if (probes) {
		np = parse_probe_hits(ev + 4 + nlen, out->hits, (int)sizeof(out->hits));
		if (np < 0)
			return false;
	}
	out->ts_ns = sec * 1000000000ull + frac;
	out->target_id = id;
	out->nr_regions = nr;
	out->region = (struct damonctl_rec_region){ start, end, na, age, 0 };
	out->nr_probes = (uint32_t)np;
	return true;
}

void trace_snap_free(struct trace_snap *s)
{
	free(s->regions);
	free(s->out);
	free(s->hits);
	free(s->out_hits);
	memset(s, 0, sizeof(*s));
}
