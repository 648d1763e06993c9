// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The generic object model: every directory kind of the ABI is a `struct dobj` whose
 * attributes and child lists are described by the schema tables (schema.c). The public,
 * typed API at the end is a thin layer over it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool is_strtype(enum vtype t)
{
	return t == V_KW || t == V_STR || t == V_LINES;
}

static void set_default(struct dobj *o, unsigned int a)
{
	const struct attr_desc *d = dobj_attr(o, a);

	if (is_strtype(d->type)) {
		free(o->v[a].s);
		o->v[a].s = NULL;	/* NULL means the default string */
	} else {
		o->v[a].u = d->def;
	}
}

struct dobj *dobj_new(enum dkind kind)
{
	const struct kind_desc *kd = &dctl_kinds[kind];
	struct dobj *o = calloc(1, sizeof(*o));
	unsigned int a;

	if (!o)
		return NULL;
	o->kind = kind;
	o->v = calloc(kd->nr_attrs ? kd->nr_attrs : 1, sizeof(*o->v));
	o->lists = calloc(kd->nr_lists ? kd->nr_lists : 1, sizeof(*o->lists));
	if (!o->v || !o->lists) {
		free(o->v);
		free(o->lists);
		free(o);
		return NULL;
	}
	for (a = 0; a < kd->nr_attrs; a++)
		set_default(o, a);
	o->has = kd->nr_attrs >= 64 ? UINT64_MAX : (UINT64_C(1) << kd->nr_attrs) - 1;
	o->lists_has = (1u << kd->nr_lists) - 1;
	return o;
}

void dobj_clear_list(struct dobj *o, unsigned int list)
{
	struct dlist *l = &o->lists[list];
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		dobj_free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->nr = l->cap = 0;
}

void dobj_free(struct dobj *o)
{
	const struct kind_desc *kd;
	unsigned int i;

	if (!o)
		return;
	kd = &dctl_kinds[o->kind];
	for (i = 0; i < kd->nr_attrs; i++)
		if (is_strtype(kd->attrs[i].type))
			free(o->v[i].s);
	for (i = 0; i < kd->nr_lists; i++)
		dobj_clear_list(o, i);
	free(o->v);
	free(o->lists);
	free(o);
}

int dobj_append(struct dobj *o, unsigned int list, struct dobj *child)
{
	struct dlist *l = &o->lists[list];

	if (l->nr == l->cap) {
		unsigned int cap = l->cap ? l->cap * 2 : 4;
		struct dobj **items = realloc(l->items, cap * sizeof(*items));

		if (!items)
			return -ENOMEM;
		l->items = items;
		l->cap = cap;
	}
	child->parent = o;
	child->index = l->nr;
	l->items[l->nr++] = child;
	return 0;
}

struct dobj *dobj_dup(const struct dobj *o, struct dobj *parent)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	struct dobj *n = dobj_new(o->kind);
	unsigned int a, l, i;

	if (!n)
		return NULL;
	n->parent = parent;
	n->index = o->index;
	n->has = o->has;
	n->lists_has = o->lists_has;
	for (a = 0; a < kd->nr_attrs; a++) {
		if (is_strtype(kd->attrs[a].type)) {
			if (o->v[a].s && !(n->v[a].s = strdup(o->v[a].s)))
				goto fail;
		} else {
			n->v[a] = o->v[a];
		}
	}
	for (l = 0; l < kd->nr_lists; l++) {
		for (i = 0; i < o->lists[l].nr; i++) {
			struct dobj *c = dobj_dup(o->lists[l].items[i], n);

			if (!c || dobj_append(n, l, c)) {
				dobj_free(c);
				goto fail;
			}
		}
	}
	return n;
fail:
	dobj_free(n);
	return NULL;
}

struct dobj *dobj_add(struct dobj *o, unsigned int list)
{
	struct dobj *c = dobj_new(dctl_kinds[o->kind].lists[list].child);

	if (!c)
		return NULL;
	if (dobj_append(o, list, c)) {
		dobj_free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

int dobj_remove(struct dobj *o, unsigned int list, unsigned int i)
{
	struct dlist *l = &o->lists[list];
	unsigned int j;

	if (i >= l->nr)
		return -ENOENT;
	dobj_free(l->items[i]);
	for (j = i; j + 1 < l->nr; j++) {
		l->items[j] = l->items[j + 1];
		l->items[j]->index = j;
	}
	l->nr--;
	return 0;
}

struct dobj *dobj_child(const struct dobj *o, unsigned int list, unsigned int i)
{
	if (!o || list >= dctl_kinds[o->kind].nr_lists || i >= o->lists[list].nr)
		return NULL;
	return o->lists[list].items[i];
}

unsigned int dobj_nr(const struct dobj *o, unsigned int list)
{
	if (!o || list >= dctl_kinds[o->kind].nr_lists)
		return 0;
	return o->lists[list].nr;
}

static const char *str_or_default(const struct dobj *o, unsigned int a)
{
	return o->v[a].s ? o->v[a].s : dobj_attr(o, a)->defs;
}

bool dobj_is_default(const struct dobj *o, unsigned int a)
{
	const struct attr_desc *d = dobj_attr(o, a);

	if (is_strtype(d->type))
		return !strcmp(str_or_default(o, a), d->defs);
	return o->v[a].u == d->def;
}

bool dobj_val_equal(const struct dobj *x, const struct dobj *y, unsigned int a)
{
	if (is_strtype(dobj_attr(x, a)->type))
		return !strcmp(str_or_default(x, a), str_or_default(y, a));
	return x->v[a].u == y->v[a].u;
}

int dobj_set_str(struct dobj *o, unsigned int a, const char *s)
{
	const struct attr_desc *d = dobj_attr(o, a);
	char *copy;

	if (d->type == V_KW && !dctl_keyword_find(d->kwset, s))
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	free(o->v[a].s);
	o->v[a].s = copy;
	return 0;
}

int dobj_parse(struct dobj *o, unsigned int a, const char *text)
{
	const struct attr_desc *d = dobj_attr(o, a);
	uint64_t u;
	int64_t i;
	int r;

	switch (d->type) {
	case V_U64:
	case V_U32:
		r = dctl_kstrtou64(text, &u);
		if (r)
			return r;
		if (d->type == V_U32 && u > UINT32_MAX)
			return -ERANGE;
		o->v[a].u = u;
		return 0;
	case V_INT:
		r = dctl_kstrtos64(text, &i);
		if (r)
			return r;
		if (i < INT32_MIN || i > INT32_MAX)
			return -ERANGE;
		o->v[a].i = i;
		return 0;
	case V_BOOL:
		if (!strcmp(text, "Y") || !strcmp(text, "1"))
			o->v[a].u = 1;
		else if (!strcmp(text, "N") || !strcmp(text, "0"))
			o->v[a].u = 0;
		else
			return -EINVAL;
		return 0;
	case V_KW:
		/* The kernel may know keywords this library does not: keep them verbatim. */
	case V_STR:
	case V_LINES: {
		char *copy = strdup(text);

		if (!copy)
			return -ENOMEM;
		free(o->v[a].s);
		o->v[a].s = copy;
		return 0;
	}
	}
	return -EINVAL;
}

int dobj_format(const struct dobj *o, unsigned int a, char *buf, size_t size)
{
	const struct attr_desc *d = dobj_attr(o, a);
	int n;

	switch (d->type) {
	case V_U64:
	case V_U32:
		n = snprintf(buf, size, "%llu", (unsigned long long)o->v[a].u);
		break;
	case V_INT:
		n = snprintf(buf, size, "%lld", (long long)o->v[a].i);
		break;
	case V_BOOL:
		n = snprintf(buf, size, "%s", o->v[a].u ? "Y" : "N");
		break;
	default:
		n = snprintf(buf, size, "%s", str_or_default(o, a));
		break;
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

/* ---- the public typed layer ---- */

static bool attr_ok(const struct dobj *o, enum dkind kind, unsigned int a)
{
	return o && o->kind == kind && a < dctl_kinds[kind].nr_attrs;
}

static uint64_t attr_get(const struct dobj *o, enum dkind kind, unsigned int a)
{
	if (!attr_ok(o, kind, a) || is_strtype(dobj_attr(o, a)->type))
		return 0;
	return o->v[a].u;
}

static const char *attr_get_str(const struct dobj *o, enum dkind kind, unsigned int a)
{
	if (!attr_ok(o, kind, a) || !is_strtype(dobj_attr(o, a)->type))
		return NULL;
	return str_or_default(o, a);
}

static int attr_set(struct dobj *o, enum dkind kind, unsigned int a, uint64_t v, bool is_signed)
{
	const struct attr_desc *d;

	if (!attr_ok(o, kind, a))
		return -EINVAL;
	d = dobj_attr(o, a);
	if (d->flags & A_RO || is_strtype(d->type))
		return -EINVAL;
	if (is_signed != (d->type == V_INT))
		return -EINVAL;
	if (d->type == V_BOOL && v > 1)
		return -EINVAL;
	if (d->type == V_U32 && v > UINT32_MAX)
		return -ERANGE;
	if (d->type == V_INT && ((int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX))
		return -ERANGE;
	o->v[a].u = v;
	return 0;
}

static int attr_set_str(struct dobj *o, enum dkind kind, unsigned int a, const char *s)
{
	const struct attr_desc *d;

	if (!attr_ok(o, kind, a) || !s)
		return -EINVAL;
	d = dobj_attr(o, a);
	if (d->flags & A_RO || !is_strtype(d->type))
		return -EINVAL;
	return dobj_set_str(o, a, s);
}

#define DEFINE_ATTRS(obj, KIND)								\
	DAMONCTL_API uint64_t damonctl_##obj##_get(const struct damonctl_##obj *o,		\
						 enum damonctl_##obj##_attr a)			\
	{ return attr_get(CDOBJ(o), KIND, a); }							\
	DAMONCTL_API int64_t damonctl_##obj##_get_int(const struct damonctl_##obj *o,	\
						    enum damonctl_##obj##_attr a)		\
	{ return (int64_t)attr_get(CDOBJ(o), KIND, a); }					\
	DAMONCTL_API const char *damonctl_##obj##_get_str(const struct damonctl_##obj *o,	\
							enum damonctl_##obj##_attr a)		\
	{ return attr_get_str(CDOBJ(o), KIND, a); }						\
	DAMONCTL_API int damonctl_##obj##_set(struct damonctl_##obj *o,			\
					    enum damonctl_##obj##_attr a, uint64_t v)	\
	{ return attr_set(DOBJ(o), KIND, a, v, false); }					\
	DAMONCTL_API int damonctl_##obj##_set_int(struct damonctl_##obj *o,		\
						enum damonctl_##obj##_attr a, int64_t v)	\
	{ return attr_set(DOBJ(o), KIND, a, (uint64_t)v, true); }				\
	DAMONCTL_API int damonctl_##obj##_set_str(struct damonctl_##obj *o,		\
						enum damonctl_##obj##_attr a, const char *v)	\
	{ return attr_set_str(DOBJ(o), KIND, a, v); }						\
	DAMONCTL_API bool damonctl_##obj##_has(const struct damonctl_##obj *o,		\
					     enum damonctl_##obj##_attr a)			\
	{ return attr_ok(CDOBJ(o), KIND, a) && (CDOBJ(o)->has >> a & 1); }			\
	DAMONCTL_API const char *damonctl_##obj##_attr_name(enum damonctl_##obj##_attr a)	\
	{ return (unsigned int)a < dctl_kinds[KIND].nr_attrs ?				\
		 dctl_kinds[KIND].attrs[a].file : NULL; }

DEFINE_ATTRS(kdamond, K_KDAMOND)
DEFINE_ATTRS(context, K_CONTEXT)
DEFINE_ATTRS(target, K_TARGET)
DEFINE_ATTRS(scheme, K_SCHEME)
DEFINE_ATTRS(goal, K_GOAL)
DEFINE_ATTRS(filter, K_FILTER)
DEFINE_ATTRS(dest, K_DEST)
DEFINE_ATTRS(tried_region, K_TRIED)
DEFINE_ATTRS(probe, K_PROBE)
DEFINE_ATTRS(probe_filter, K_PROBE_FILTER)

DAMONCTL_API struct damonctl_tree *damonctl_tree_new(void)
{
	struct dobj *o = dobj_new(K_TREE);

	if (!o)
		errno = ENOMEM;
	return (struct damonctl_tree *)o;
}

DAMONCTL_API void damonctl_tree_free(struct damonctl_tree *t)
{
	dobj_free(DOBJ(t));
}

DAMONCTL_API void damonctl_kdamond_free(struct damonctl_kdamond *k)
{
	dobj_free(DOBJ(k));
}

DAMONCTL_API struct damonctl_kdamond *damonctl_kdamond_dup(const struct damonctl_kdamond *k)
{
	/* detached, as damonctl_kdamond_read() gives it: same index, no tree */
	struct dobj *o = dobj_dup(CDOBJ(k), NULL);

	if (!o)
		errno = ENOMEM;
	return (struct damonctl_kdamond *)o;
}

DAMONCTL_API struct damonctl_tree *damonctl_tree_dup(const struct damonctl_tree *t)
{
	struct dobj *o = dobj_dup(CDOBJ(t), NULL);

	if (!o)
		errno = ENOMEM;
	return (struct damonctl_tree *)o;
}

#define DEFINE_LIST(parent, child, LIST)							\
	DAMONCTL_API unsigned int damonctl_##parent##_nr_##child##s(				\
		const struct damonctl_##parent *p)						\
	{ return dobj_nr(CDOBJ(p), LIST); }							\
	DAMONCTL_API struct damonctl_##child *damonctl_##parent##_##child(			\
		const struct damonctl_##parent *p, unsigned int i)				\
	{ return (struct damonctl_##child *)dobj_child(CDOBJ(p), LIST, i); }

DEFINE_LIST(tree, kdamond, L_TREE_KDAMONDS)
DEFINE_LIST(kdamond, context, L_KDAMOND_CONTEXTS)
DEFINE_LIST(context, target, L_CONTEXT_TARGETS)
DEFINE_LIST(context, scheme, L_CONTEXT_SCHEMES)
DEFINE_LIST(scheme, goal, L_SCHEME_GOALS)
DEFINE_LIST(scheme, dest, L_SCHEME_DESTS)
DEFINE_LIST(scheme, tried_region, L_SCHEME_TRIED)
DEFINE_LIST(context, probe, L_CONTEXT_PROBES)

#define DEFINE_ADD(parent, child, LIST)							\
	DAMONCTL_API struct damonctl_##child *damonctl_##parent##_add_##child(			\
		struct damonctl_##parent *p)							\
	{ return (struct damonctl_##child *)dobj_add(DOBJ(p), LIST); }

DEFINE_ADD(tree, kdamond, L_TREE_KDAMONDS)
DEFINE_ADD(kdamond, context, L_KDAMOND_CONTEXTS)
DEFINE_ADD(context, target, L_CONTEXT_TARGETS)
DEFINE_ADD(context, scheme, L_CONTEXT_SCHEMES)
DEFINE_ADD(scheme, goal, L_SCHEME_GOALS)
DEFINE_ADD(scheme, dest, L_SCHEME_DESTS)
DEFINE_ADD(context, probe, L_CONTEXT_PROBES)

DAMONCTL_API int damonctl_tree_remove_kdamond(struct damonctl_tree *t, unsigned int i)
{
	return dobj_remove(DOBJ(t), L_TREE_KDAMONDS, i);
}

DAMONCTL_API struct damonctl_kdamond *damonctl_tree_add_kdamond_copy(
	struct damonctl_tree *t, const struct damonctl_kdamond *k)
{
	struct dobj *c = dobj_dup(CDOBJ(k), DOBJ(t));

	if (!c || dobj_append(DOBJ(t), L_TREE_KDAMONDS, c)) {
		dobj_free(c);
		errno = ENOMEM;
		return NULL;
	}
	return (struct damonctl_kdamond *)c;
}

DAMONCTL_API struct damonctl_scheme *damonctl_context_add_scheme_copy(
	struct damonctl_context *c, const struct damonctl_scheme *s)
{
	struct dobj *n = dobj_dup(CDOBJ(s), DOBJ(c));

	if (!n || dobj_append(DOBJ(c), L_CONTEXT_SCHEMES, n)) {
		dobj_free(n);
		errno = ENOMEM;
		return NULL;
	}
	return (struct damonctl_scheme *)n;
}

DAMONCTL_API struct damonctl_kdamond *damonctl_tree_replace_kdamond(struct damonctl_tree *t,
								    unsigned int i)
{
	struct dlist *l = &DOBJ(t)->lists[L_TREE_KDAMONDS];
	struct dobj *c;

	if (i >= l->nr) {
		errno = ENOENT;
		return NULL;
	}
	c = dobj_new(K_KDAMOND);
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->parent = DOBJ(t);
	c->index = i;
	dobj_free(l->items[i]);
	l->items[i] = c;
	return (struct damonctl_kdamond *)c;
}

DAMONCTL_API int damonctl_context_remove_target(struct damonctl_context *c, unsigned int i)
{
	return dobj_remove(DOBJ(c), L_CONTEXT_TARGETS, i);
}

DAMONCTL_API int damonctl_context_remove_scheme(struct damonctl_context *c, unsigned int i)
{
	return dobj_remove(DOBJ(c), L_CONTEXT_SCHEMES, i);
}

DAMONCTL_API int damonctl_context_remove_probe(struct damonctl_context *c, unsigned int i)
{
	return dobj_remove(DOBJ(c), L_CONTEXT_PROBES, i);
}

/* A probe's filters are probe filters, not struct damonctl_filter: DEFINE_LIST would name
 * the wrong type. */
DAMONCTL_API unsigned int damonctl_probe_nr_filters(const struct damonctl_probe *p)
{
	return dobj_nr(CDOBJ(p), L_PROBE_FILTERS);
}

DAMONCTL_API struct damonctl_probe_filter *damonctl_probe_filter(const struct damonctl_probe *p,
								 unsigned int i)
{
	return (struct damonctl_probe_filter *)dobj_child(CDOBJ(p), L_PROBE_FILTERS, i);
}

DAMONCTL_API struct damonctl_probe_filter *damonctl_probe_add_filter(struct damonctl_probe *p)
{
	return (struct damonctl_probe_filter *)dobj_add(DOBJ(p), L_PROBE_FILTERS);
}

DAMONCTL_API int damonctl_probe_remove_filter(struct damonctl_probe *p, unsigned int i)
{
	return dobj_remove(DOBJ(p), L_PROBE_FILTERS, i);
}

DAMONCTL_API unsigned int damonctl_tried_region_nr_probes(const struct damonctl_tried_region *r)
{
	return dobj_nr(CDOBJ(r), L_TRIED_PROBES);
}

DAMONCTL_API uint64_t damonctl_tried_region_probe_hits(const struct damonctl_tried_region *r,
						       unsigned int i)
{
	const struct dobj *h = dobj_child(CDOBJ(r), L_TRIED_PROBES, i);

	return h ? h->v[A_TRIED_PROBE_HITS].u : 0;
}

DAMONCTL_API int damonctl_scheme_remove_dest(struct damonctl_scheme *s, unsigned int i)
{
	return dobj_remove(DOBJ(s), L_SCHEME_DESTS, i);
}

DAMONCTL_API int damonctl_scheme_remove_goal(struct damonctl_scheme *s, unsigned int i)
{
	return dobj_remove(DOBJ(s), L_SCHEME_GOALS, i);
}

static unsigned int filter_list(enum damonctl_filter_dir dir)
{
	switch (dir) {
	case DAMONCTL_FILTERS_CORE:
		return L_SCHEME_CORE_FILTERS;
	case DAMONCTL_FILTERS_OPS:
		return L_SCHEME_OPS_FILTERS;
	default:
		return L_SCHEME_FILTERS;
	}
}

DAMONCTL_API unsigned int damonctl_scheme_nr_filters(const struct damonctl_scheme *s,
						     enum damonctl_filter_dir dir)
{
	return dobj_nr(CDOBJ(s), filter_list(dir));
}

DAMONCTL_API struct damonctl_filter *damonctl_scheme_filter(const struct damonctl_scheme *s,
							    enum damonctl_filter_dir dir,
							    unsigned int i)
{
	return (struct damonctl_filter *)dobj_child(CDOBJ(s), filter_list(dir), i);
}

DAMONCTL_API struct damonctl_filter *damonctl_scheme_add_filter(struct damonctl_scheme *s,
								enum damonctl_filter_dir dir)
{
	return (struct damonctl_filter *)dobj_add(DOBJ(s), filter_list(dir));
}

DAMONCTL_API int damonctl_scheme_remove_filter(struct damonctl_scheme *s,
					       enum damonctl_filter_dir dir, unsigned int i)
{
	return dobj_remove(DOBJ(s), filter_list(dir), i);
}

DAMONCTL_API unsigned int damonctl_target_nr_regions(const struct damonctl_target *t)
{
	return dobj_nr(CDOBJ(t), L_TARGET_REGIONS);
}

DAMONCTL_API int damonctl_target_region(const struct damonctl_target *t, unsigned int i,
					uint64_t *start, uint64_t *end)
{
	const struct dobj *r = dobj_child(CDOBJ(t), L_TARGET_REGIONS, i);

	if (!r)
		return -ENOENT;
	*start = r->v[A_REGION_START].u;
	*end = r->v[A_REGION_END].u;
	return 0;
}

DAMONCTL_API int damonctl_target_add_region(struct damonctl_target *t, uint64_t start,
					    uint64_t end)
{
	struct dobj *r;

	if (start > end)
		return -EINVAL;
	r = dobj_add(DOBJ(t), L_TARGET_REGIONS);
	if (!r)
		return -ENOMEM;
	r->v[A_REGION_START].u = start;
	r->v[A_REGION_END].u = end;
	return 0;
}

DAMONCTL_API void damonctl_target_clear_regions(struct damonctl_target *t)
{
	if (t)
		dobj_clear_list(DOBJ(t), L_TARGET_REGIONS);
}

DAMONCTL_API unsigned int damonctl_kdamond_index(const struct damonctl_kdamond *k)
{
	return CDOBJ(k)->index;
}

DAMONCTL_API unsigned int damonctl_context_index(const struct damonctl_context *c)
{
	return CDOBJ(c)->index;
}

DAMONCTL_API unsigned int damonctl_scheme_index(const struct damonctl_scheme *s)
{
	return CDOBJ(s)->index;
}

DAMONCTL_API struct damonctl_kdamond *damonctl_context_kdamond(const struct damonctl_context *c)
{
	return (struct damonctl_kdamond *)CDOBJ(c)->parent;
}

DAMONCTL_API struct damonctl_context *damonctl_scheme_context(const struct damonctl_scheme *s)
{
	return (struct damonctl_context *)CDOBJ(s)->parent;
}
