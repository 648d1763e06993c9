// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Re-aggregation of a record: each series' snapshots merged into one per window of
 * monitoring time, as a longer aggregation interval would have shown them (what damo adjust
 * --aggregate_interval does). Windows are laid on a grid from the series' first snapshot;
 * a snapshot belongs to the window its end falls in, and a window is given out when a
 * snapshot of a later one arrives (or at the flush).
 *
 * The merged regions are cut at every boundary any merged snapshot had, so nothing is
 * averaged away: a byte's nr_accesses is the sum of the nr_accesses of the regions that held
 * it, and its age that of the newest snapshot that held it. The merged snapshot's aggr_us
 * is the sum of the merged ones', and its sample_us keeps the rate (nr_accesses over the
 * samples an aggregation holds) exact. 7.2's probe hits add up as nr_accesses do, each in
 * the byte the kernel counts them in (a longer aggregation's counter would stop at 255 too).
 * A window's ops filters (what its sz_filter_passed are of) are its snapshots' while they
 * are the same; a window whose snapshots were taken through other filters has none known.
 * Neighbours that end up alike are joined again, so a window of k snapshots holds at most k
 * times their regions. A snapshot of every target
 * (target -1) lists each target's regions after the previous one's (the address goes
 * back): the k-th such run is merged with the k-th.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ops_filters.h"
#include "record_internal.h"

/* probes a merged snapshot may have (the kernel allows 4) */
#define MERGE_MAX_PROBES 16

struct piece {
	uint64_t start, end;
	uint64_t nr;		/* summed nr_accesses */
	uint64_t age_us;	/* the newest snapshot's age, in µs */
	uint64_t sfp;		/* sz_filter_passed, this piece's share */
	uint8_t hits[MERGE_MAX_PROBES];	/* summed probe hits, up to 255 */
};

struct run {
	struct piece *p;
	size_t n, cap;
};

struct series {
	uint32_t kdamond, context;
	int32_t target, scheme;
	bool anchored;		/* anchor_ns is set */
	bool open;		/* a window has snapshots */
	uint64_t anchor_ns;	/* the grid's origin: the first snapshot's start */
	uint64_t window;	/* the open window's index on the grid */
	uint64_t start_ns, end_ns, aggr_us, samples, update_us, sample_us;
	bool same_sample, has_sfp;
	uint32_t nr_probes;	/* the most the window's snapshots had */
	/* the ops filters of the window's snapshots, while they are the same (NULL: none,
	 * unknown, or they changed within the window) */
	char *filters;
	bool filters_changed;
	struct run *runs;
	size_t nr_runs;
};

struct damonctl_rec_merger {
	uint64_t window_ns;
	struct series *s;
	size_t nr, cap;
	size_t flushed;		/* flush: the next series to look at */
	struct damonctl_rec_snapshot snap;	/* the last merged snapshot */
	struct damonctl_rec_region *out;	/* its regions */
	size_t out_cap;
	uint8_t *hits;				/* and their probe hits */
	size_t hits_cap;
	char *filters;				/* and its ops filters */
	struct run tmp;
};

DAMONCTL_API int damonctl_rec_merger_new(uint64_t window_us, struct damonctl_rec_merger **out)
{
	struct damonctl_rec_merger *m;

	if (!out || !window_us || window_us > UINT64_MAX / 1000)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->window_ns = window_us * 1000;
	*out = m;
	return 0;
}

static void free_runs(struct series *s)
{
	free(s->filters);
	s->filters = NULL;
	for (size_t i = 0; i < s->nr_runs; i++)
		free(s->runs[i].p);
	free(s->runs);
	s->runs = NULL;
	s->nr_runs = 0;
}

DAMONCTL_API void damonctl_rec_merger_free(struct damonctl_rec_merger *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr; i++)
		free_runs(&m->s[i]);
	free(m->s);
	free(m->out);
	free(m->hits);
	free(m->filters);
	free(m->tmp.p);
	free(m);
}

static struct series *series_of(struct damonctl_rec_merger *m, const struct damonctl_rec_snapshot *s)
{
	for (size_t i = 0; i < m->nr; i++) {
		struct series *x = &m->s[i];

		if (x->kdamond == s->kdamond && x->context == s->context &&
		    x->target == s->target && x->scheme == s->scheme)
			return x;
	}
	if (m->nr == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 8;
		struct series *ns = realloc(m->s, cap * sizeof(*ns));

		if (!ns)
			return NULL;
		m->s = ns;
		m->cap = cap;
	}
	memset(&m->s[m->nr], 0, sizeof(m->s[m->nr]));
	m->s[m->nr].kdamond = s->kdamond;
	m->s[m->nr].context = s->context;
	m->s[m->nr].target = s->target;
	m->s[m->nr].scheme = s->scheme;
	return &m->s[m->nr++];
}

static int push(struct run *r, struct piece p)
{
	if (r->n && r->p[r->n - 1].end == p.start && r->p[r->n - 1].nr == p.nr &&
	    r->p[r->n - 1].age_us == p.age_us &&
	    !memcmp(r->p[r->n - 1].hits, p.hits, sizeof(p.hits))) {
		r->p[r->n - 1].end = p.end;
		r->p[r->n - 1].sfp += p.sfp;
		return 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct piece *np = realloc(r->p, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		r->p = np;
		r->cap = cap;
	}
	r->p[r->n++] = p;
	return 0;
}

/* @len bytes' share of @sfp bytes that passed the filters in @whole bytes */
static uint64_t share(uint64_t sfp, uint64_t len, uint64_t whole)
{
	return whole ? (uint64_t)((unsigned __int128)sfp * len / whole) : 0;
}

/*
 * @acc's pieces and the regions @b[0..nb) (one target's, sorted; their probe hits @bh, @np
 * a region, or NULL), cut at the boundaries of both, into @out: the sums where they
 * overlap, the newer one's age and filter share.
 */
static int merge_run(const struct run *acc, const struct damonctl_rec_region *b, size_t nb,
		     const uint8_t *bh, uint32_t np, uint64_t aggr_us, struct run *out)
{
	size_t i = 0, j = 0;
	uint64_t cur = 0;

	out->n = 0;
	while (i < acc->n || j < nb) {
		const struct piece *a = i < acc->n ? &acc->p[i] : NULL;
		const struct damonctl_rec_region *r = j < nb ? &b[j] : NULL;
		uint64_t next = UINT64_MAX, lo = UINT64_MAX;
		bool ina, inr;
		struct piece p;

		/* what is behind the cut (or empty) is done */
		if (a && a->end <= cur) {
			i++;
			continue;
		}
		if (r && (r->end <= r->start || r->end <= cur)) {
			j++;
			continue;
		}
		if (a)
			lo = a->start;
		if (r && r->start < lo)
			lo = r->start;
		if (lo > cur)
			cur = lo;
		ina = a && a->start <= cur;
		inr = r && r->start <= cur;
		if (a)
			next = ina ? a->end : a->start;
		if (r && (inr ? r->end : r->start) < next)
			next = inr ? r->end : r->start;
		p.start = cur;
		p.end = next;
		p.nr = (ina ? a->nr : 0) + (inr ? r->nr_accesses : 0);
		/* counts of the region's samples, as nr_accesses: a cut keeps them whole */
		memset(p.hits, 0, sizeof(p.hits));
		for (uint32_t k = 0; k < MERGE_MAX_PROBES; k++) {
			unsigned int h = (ina ? a->hits[k] : 0) +
					 (inr && bh && k < np ? bh[(size_t)j * np + k] : 0);

			p.hits[k] = h > 255 ? 255 : (uint8_t)h;
		}
		if (inr) {
			p.age_us = (uint64_t)r->age * aggr_us;
			p.sfp = share(r->sz_filter_passed, next - cur, r->end - r->start);
		} else {
			p.age_us = a->age_us;
			p.sfp = share(a->sfp, next - cur, a->end - a->start);
		}
		if (push(out, p))
			return -ENOMEM;
		cur = next;
	}
	return 0;
}

/* Fold @s into @x's open window. */
/* The window's ops filters: the first snapshot's, kept while the others have the same. */
static int fold_filters(struct series *x, const struct damonctl_rec_snapshot *s, bool first)
{
	const char *f = s->ops_filters;

	if (first) {
		free(x->filters);
		x->filters = f ? strdup(f) : NULL;
		x->filters_changed = false;
		return f && !x->filters ? -ENOMEM : 0;
	}
	if (x->filters_changed || (f && x->filters ? !strcmp(f, x->filters) : f == x->filters))
		return 0;
	/* sz_filter_passed of two sets of filters: which the window's are is not known */
	x->filters_changed = true;
	free(x->filters);
	x->filters = NULL;
	return 0;
}

static int fold(struct damonctl_rec_merger *m, struct series *x,
		const struct damonctl_rec_snapshot *s)
{
	size_t k = 0, run = 0;

	if (fold_filters(x, s, !x->open))
		return -ENOMEM;
	if (!x->open) {
		x->open = true;
		x->start_ns = s->start_ns;
		x->aggr_us = x->samples = 0;
		x->sample_us = s->sample_us;
		x->same_sample = true;
		x->has_sfp = s->has_sz_filter_passed;
		x->nr_probes = 0;
		for (size_t i = 0; i < x->nr_runs; i++)
			x->runs[i].n = 0;
	}
	x->end_ns = s->end_ns;
	x->aggr_us += s->aggr_us;
	x->samples += s->sample_us ? s->aggr_us / s->sample_us : 0;
	x->update_us = s->update_us;
	if (s->sample_us != x->sample_us)
		x->same_sample = false;
	if (!s->has_sz_filter_passed)
		x->has_sfp = false;
	if (s->probe_hits && s->nr_probes > x->nr_probes)
		x->nr_probes = s->nr_probes;
	while (k < s->nr_regions) {
		size_t e = k + 1;
		struct run t;

		while (e < s->nr_regions && s->regions[e].start >= s->regions[e - 1].end)
			e++;
		if (run == x->nr_runs) {
			struct run *nr = realloc(x->runs, (run + 1) * sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			x->runs = nr;
			memset(&x->runs[run], 0, sizeof(x->runs[run]));
			x->nr_runs++;
		}
		if (merge_run(&x->runs[run], s->regions + k, e - k,
			      s->probe_hits ? s->probe_hits + k * s->nr_probes : NULL,
			      s->nr_probes, s->aggr_us, &m->tmp))
			return -ENOMEM;
		t = x->runs[run];
		x->runs[run] = m->tmp;
		m->tmp = t;
		run++;
		k = e;
	}
	return 0;
}

/* @x's open window as a snapshot in m->snap (regions in m->out), and the window closed. */
static int emit(struct damonctl_rec_merger *m, struct series *x)
{
	struct damonctl_rec_snapshot *out = &m->snap;
	size_t n = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < x->nr_runs; i++)
		n += x->runs[i].n;
	if (n > m->out_cap) {
		struct damonctl_rec_region *no = realloc(m->out, n * sizeof(*no));

		if (!no)
			return -ENOMEM;
		m->out = no;
		m->out_cap = n;
	}
	if (n * x->nr_probes > m->hits_cap) {
		uint8_t *nh = realloc(m->hits, n * x->nr_probes);

		if (!nh)
			return -ENOMEM;
		m->hits = nh;
		m->hits_cap = n * x->nr_probes;
	}
	/* the merger's copy: the series' goes with the next window's first snapshot */
	free(m->filters);
	m->filters = x->filters ? strdup(x->filters) : NULL;
	if (x->filters && !m->filters)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < x->nr_runs; i++) {
		for (size_t j = 0; j < x->runs[i].n; j++) {
			const struct piece *p = &x->runs[i].p[j];
			struct damonctl_rec_region *r = &m->out[n++];
			uint64_t age = x->aggr_us ? p->age_us / x->aggr_us : 0;

			r->start = p->start;
			r->end = p->end;
			r->nr_accesses = p->nr > UINT32_MAX ? UINT32_MAX : (uint32_t)p->nr;
			r->age = age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
			r->sz_filter_passed = x->has_sfp ? p->sfp : 0;
			if (x->nr_probes) /* m->hits may be NULL when no probes */
				memcpy(m->hits + (n - 1) * x->nr_probes, p->hits, x->nr_probes);
			total += p->end - p->start;
		}
	}
	memset(out, 0, sizeof(*out));
	out->sz = sizeof(*out);
	out->kdamond = x->kdamond;
	out->context = x->context;
	out->target = x->target;
	out->scheme = x->scheme;
	out->start_ns = x->start_ns;
	out->end_ns = x->end_ns;
	out->aggr_us = x->aggr_us;
	/* the samples an aggregation holds stay those the merged ones held together */
	out->sample_us = x->same_sample || !x->samples ? x->sample_us :
			 (x->aggr_us + x->samples / 2) / x->samples;
	out->update_us = x->update_us;
	out->total_bytes = total;
	out->has_sz_filter_passed = x->has_sfp;
	out->nr_regions = (uint32_t)n;
	out->regions = m->out;
	out->nr_probes = n ? x->nr_probes : 0;
	out->probe_hits = n && x->nr_probes ? m->hits : NULL;
	out->ops_filters = m->filters;
	x->open = false;
	return 1;
}

DAMONCTL_API int damonctl_rec_merger_add_v0_4(struct damonctl_rec_merger *m,
					      const struct damonctl_rec_snapshot *snap,
					      const struct damonctl_rec_snapshot **out)
{
	struct damonctl_rec_snapshot full, *s = &full;
	struct series *x;
	uint64_t w;
	int r = 0;

	if (!m || !out || rec_snapshot_in(snap, &full) || (s->nr_regions && !s->regions))
		return -EINVAL;
	if (s->probe_hits && s->nr_probes > MERGE_MAX_PROBES)
		return -E2BIG;
	if (s->ops_filters && dctl_ops_filters_check(s->ops_filters) == 1)
		s->ops_filters = NULL;	/* "[]": none */
	x = series_of(m, s);
	if (!x)
		return -ENOMEM;
	if (!x->anchored) {
		x->anchored = true;
		x->anchor_ns = s->start_ns < s->end_ns ? s->start_ns : s->end_ns;
	}
	w = s->end_ns > x->anchor_ns ? (s->end_ns - x->anchor_ns) / m->window_ns : 0;
	if (x->open && w != x->window) {
		/* emit() fills m->snap and m->out, which the fold below does not touch */
		r = emit(m, x);
		if (r < 0)
			return r;
		*out = &m->snap;
	}
	x->window = w;
	if (fold(m, x, s))
		return -ENOMEM;
	return r;
}
DCTL_DEFAULT_VERSION(damonctl_rec_merger_add_v0_4, damonctl_rec_merger_add, LIBDAMONCTL_0.4)

DAMONCTL_API int damonctl_rec_merger_flush_v0_4(struct damonctl_rec_merger *m,
						const struct damonctl_rec_snapshot **out)
{
	if (!m || !out)
		return -EINVAL;
	for (; m->flushed < m->nr; m->flushed++) {
		if (m->s[m->flushed].open) {
			int r = emit(m, &m->s[m->flushed++]);

			if (r == 1)
				*out = &m->snap;
			return r;
		}
	}
	return 0;
}
DCTL_DEFAULT_VERSION(damonctl_rec_merger_flush_v0_4, damonctl_rec_merger_flush, LIBDAMONCTL_0.4)
