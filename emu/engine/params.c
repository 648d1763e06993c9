// SPDX-License-Identifier: GPL-2.0-or-later
/* Deep copy, free and (un)packing of struct emu_ctx_params. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

int emu_buf_put(struct emu_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->len + n)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d)
			return -ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int emu_buf_put_str(struct emu_buf *b, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : 0;
	int err = emu_buf_put(b, &n, sizeof(n));

	return err ? err : emu_buf_put(b, s, n);
}

void emu_buf_free(struct emu_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int emu_rd_get(struct emu_reader *r, void *p, size_t n)
{
	if (r->len - r->off < n)
		return -EPROTO;
	if (n)
		memcpy(p, r->data + r->off, n);
	r->off += n;
	return 0;
}

char *emu_rd_get_str(struct emu_reader *r)
{
	uint32_t n;
	char *s;

	if (emu_rd_get(r, &n, sizeof(n)) || r->len - r->off < n) {
		errno = EPROTO;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	memcpy(s, r->data + r->off, n);
	s[n] = '\0';
	r->off += n;
	return s;
}

/* Copies @n elements of @size bytes; NULL for none (so free() stays simple). */
static void *dup_array(const void *src, int n, size_t size, int *err)
{
	void *d;

	if (n <= 0 || !src)
		return NULL;
	d = malloc((size_t)n * size);
	if (!d) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(d, src, (size_t)n * size);
	return d;
}

void emu_params_free(struct emu_ctx_params *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nr_targets; i++)
		free(p->targets[i].regions);
	for (int i = 0; i < p->nr_schemes; i++) {
		free(p->schemes[i].goals);
		free(p->schemes[i].filters);
		free(p->schemes[i].dests);
	}
	for (int i = 0; i < p->nr_probes; i++)
		free(p->probes[i].filters);
	free(p->targets);
	free(p->schemes);
	free(p->probes);
	free(p);
}

struct emu_ctx_params *emu_params_dup(const struct emu_ctx_params *p)
{
	struct emu_ctx_params *d = malloc(sizeof(*d));
	int err = 0;

	if (!d)
		return NULL;
	*d = *p;
	d->targets = NULL;
	d->schemes = NULL;
	d->probes = NULL;
	d->nr_targets = d->nr_schemes = d->nr_probes = 0;

	d->targets = dup_array(p->targets, p->nr_targets, sizeof(*p->targets), &err);
	if (err)
		goto fail;
	d->nr_targets = p->nr_targets > 0 ? p->nr_targets : 0;
	for (int i = 0; i < d->nr_targets; i++)
		d->targets[i].regions = NULL;
	for (int i = 0; i < d->nr_targets; i++) {
		d->targets[i].regions = dup_array(p->targets[i].regions, p->targets[i].nr_regions,
						  sizeof(struct emu_region), &err);
		if (err)
			goto fail;
	}

	d->schemes = dup_array(p->schemes, p->nr_schemes, sizeof(*p->schemes), &err);
	if (err)
		goto fail;
	d->nr_schemes = p->nr_schemes > 0 ? p->nr_schemes : 0;
	for (int i = 0; i < d->nr_schemes; i++) {
		d->schemes[i].goals = NULL;
		d->schemes[i].filters = NULL;
		d->schemes[i].dests = NULL;
	}
	for (int i = 0; i < d->nr_schemes; i++) {
		const struct emu_scheme *s = &p->schemes[i];
		struct emu_scheme *ds = &d->schemes[i];

		ds->goals = dup_array(s->goals, s->nr_goals, sizeof(*s->goals), &err);
		ds->filters = dup_array(s->filters, s->nr_filters, sizeof(*s->filters), &err);
		ds->dests = dup_array(s->dests, s->nr_dests, sizeof(*s->dests), &err);
		if (err)
			goto fail;
	}

	d->probes = dup_array(p->probes, p->nr_probes, sizeof(*p->probes), &err);
	if (err)
		goto fail;
	d->nr_probes = p->nr_probes > 0 ? p->nr_probes : 0;
	for (int i = 0; i < d->nr_probes; i++)
		d->probes[i].filters = NULL;
	for (int i = 0; i < d->nr_probes; i++) {
		d->probes[i].filters = dup_array(p->probes[i].filters, p->probes[i].nr_filters,
						 sizeof(struct emu_filter), &err);
		if (err)
			goto fail;
	}
	return d;
fail:
	emu_params_free(d);
	return NULL;
}

/*
 * Field by field, never whole structures: padding bytes of the caller's structures may be
 * uninitialised, and they must not travel (valgrind rightly complains about such writes).
 * One function per structure serves both directions: @x->b set packs, @x->r set unpacks.
 */
struct xfer {
	struct emu_buf *b;
	struct emu_reader *r;
	int err;
};

static void xfer_bytes(struct xfer *x, void *p, size_t n)
{
	if (x->err)
		return;
	x->err = x->b ? emu_buf_put(x->b, p, n) : emu_rd_get(x->r, p, n);
}

#define X(x, field) xfer_bytes((x), &(field), sizeof(field))

static void xfer_str(struct xfer *x, char *s, size_t size)
{
	uint32_t n = 0;

	if (x->b)
		n = (uint32_t)strnlen(s, size - 1);
	X(x, n);
	if (x->err)
		return;
	if (x->r && n >= size) {
		x->err = -EPROTO;
		return;
	}
	xfer_bytes(x, s, n);
	if (x->r && !x->err)
		s[n] = '\0';
}

/* Element count and array; on unpack the array is allocated, bounded by what is left. */
static void xfer_array(struct xfer *x, void **arr, int *n, size_t size, size_t wire_min,
		       void (*one)(struct xfer *, void *))
{
	int count = *n > 0 ? *n : 0;

	X(x, count);
	if (x->err)
		return;
	if (x->r) {
		*arr = NULL;
		*n = 0;
		if (count < 0 || (size_t)count > (x->r->len - x->r->off) / wire_min) {
			x->err = -EPROTO;
			return;
		}
		if (!count)
			return;
		*arr = calloc((size_t)count, size);
		if (!*arr) {
			x->err = -ENOMEM;
			return;
		}
		*n = count;
	}
	for (int i = 0; i < count && !x->err; i++)
		one(x, (char *)*arr + (size_t)i * size);
}

static void xfer_region(struct xfer *x, void *p)
{
	struct emu_region *r = p;

	X(x, r->start);
	X(x, r->end);
}

static void xfer_range(struct xfer *x, struct emu_range *r)
{
	X(x, r->min);
	X(x, r->max);
}

static void xfer_target(struct xfer *x, void *p)
{
	struct emu_target *t = p;

	X(x, t->pid);
	X(x, t->obsolete);
	xfer_array(x, (void **)&t->regions, &t->nr_regions, sizeof(*t->regions), 16, xfer_region);
}

static void xfer_goal(struct xfer *x, void *p)
{
	struct emu_goal *g = p;

	X(x, g->metric);
	X(x, g->target_value);
	X(x, g->current_value);
	X(x, g->nid);
	xfer_str(x, g->path, sizeof(g->path));
}

static void xfer_filter(struct xfer *x, void *p)
{
	struct emu_filter *f = p;

	X(x, f->dir);
	X(x, f->type);
	X(x, f->matching);
	X(x, f->allow);
	xfer_str(x, f->memcg_path, sizeof(f->memcg_path));
	X(x, f->addr_start);
	X(x, f->addr_end);
	X(x, f->target_idx);
	X(x, f->min);
	X(x, f->max);
}

static void xfer_dest(struct xfer *x, void *p)
{
	struct emu_dest *d = p;

	X(x, d->id);
	X(x, d->weight);
}

static void xfer_scheme(struct xfer *x, void *p)
{
	struct emu_scheme *s = p;

	X(x, s->action);
	X(x, s->apply_interval_us);
	X(x, s->target_nid);
	xfer_range(x, &s->sz);
	xfer_range(x, &s->nr_accesses);
	xfer_range(x, &s->age);
	X(x, s->quota_ms);
	X(x, s->quota_bytes);
	X(x, s->quota_reset_interval_ms);
	X(x, s->fail_charge_num);
	X(x, s->fail_charge_denom);
	X(x, s->weight_sz);
	X(x, s->weight_nr_accesses);
	X(x, s->weight_age);
	X(x, s->goal_tuner);
	xfer_array(x, (void **)&s->goals, &s->nr_goals, sizeof(*s->goals), 20, xfer_goal);
	X(x, s->wmark_metric);
	X(x, s->wmark_interval_us);
	X(x, s->wmark_high);
	X(x, s->wmark_mid);
	X(x, s->wmark_low);
	xfer_array(x, (void **)&s->filters, &s->nr_filters, sizeof(*s->filters), 20,
		   xfer_filter);
	xfer_array(x, (void **)&s->dests, &s->nr_dests, sizeof(*s->dests), 8, xfer_dest);
	X(x, s->max_nr_snapshots);
}

static void xfer_probe(struct xfer *x, void *p)
{
	struct emu_probe *pr = p;

	xfer_array(x, (void **)&pr->filters, &pr->nr_filters, sizeof(*pr->filters), 20,
		   xfer_filter);
}

static void xfer_params(struct xfer *x, struct emu_ctx_params *p)
{
	X(x, p->ops);
	X(x, p->addr_unit);
	X(x, p->pause);
	X(x, p->sample_us);
	X(x, p->aggr_us);
	X(x, p->update_us);
	X(x, p->goal_access_bp);
	X(x, p->goal_aggrs);
	X(x, p->goal_min_sample_us);
	X(x, p->goal_max_sample_us);
	X(x, p->min_nr_regions);
	X(x, p->max_nr_regions);
	xfer_array(x, (void **)&p->targets, &p->nr_targets, sizeof(*p->targets), 9, xfer_target);
	xfer_array(x, (void **)&p->schemes, &p->nr_schemes, sizeof(*p->schemes), 64,
		   xfer_scheme);
	xfer_array(x, (void **)&p->probes, &p->nr_probes, sizeof(*p->probes), 4, xfer_probe);
}

int emu_params_pack(struct emu_buf *b, const struct emu_ctx_params *p)
{
	struct xfer x = { .b = b };

	/* packing only reads: the cast lets one function serve both directions */
	xfer_params(&x, (struct emu_ctx_params *)p);
	return x.err;
}

int emu_params_unpack(struct emu_reader *r, struct emu_ctx_params **out)
{
	struct emu_ctx_params *p = calloc(1, sizeof(*p));
	struct xfer x = { .r = r };

	if (!p)
		return -ENOMEM;
	xfer_params(&x, p);
	if (x.err) {
		emu_params_free(p);
		return x.err;
	}
	*out = p;
	return 0;
}
