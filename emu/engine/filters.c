// SPDX-License-Identifier: GPL-2.0-or-later
/* DAMOS filters: core ones on regions, ops ones on page properties (see filters.h). */
#include <string.h>

#include "filters.h"
#include "pages.h"
#include "regions.h"
#include "scenario.h"
#include "util.h"
#include "vaddr.h"

bool filters_has_ops(const struct mon_scheme *s)
{
	for (int i = 0; i < s->p.nr_filters; i++)
		if (!filter_is_core(s->p.filters[i].type))
			return true;
	return false;
}

/* The last filter of a group decides what the group does with memory no filter matched. */
static bool group_default_reject(const struct mon_scheme *s, bool core)
{
	const struct emu_filter *last = NULL;

	for (int i = 0; i < s->p.nr_filters; i++)
		if (filter_is_core(s->p.filters[i].type) == core)
			last = &s->p.filters[i];
	return last ? last->allow : false;
}

void filters_set_default_reject(struct mon_scheme *s)
{
	/* with ops filters after them, unmatched memory goes on to the ops filters */
	s->core_default_reject = filters_has_ops(s) ? false : group_default_reject(s, true);
	s->ops_default_reject = group_default_reject(s, false);
}

static bool core_match(struct mon_ctx *c, int ti, size_t ri, const struct emu_filter *f)
{
	struct mon_target *t = &c->targets[ti];
	struct mon_region *r = &t->regions[ri];
	uint64_t start, end;
	bool matched;

	if (f->type == EMU_FILTER_TARGET)
		return ((unsigned int)ti == f->target_idx) == f->matching;

	start = emu_align_down(f->addr_start, c->min_region_sz);
	end = emu_align_down(f->addr_end, c->min_region_sz);
	if (start <= r->start && r->end <= end) {
		matched = true;
	} else if (r->end <= start || end <= r->start) {
		matched = false;
	} else if (r->start < start) {
		/* starts before the range: the part before it does not match */
		reg_split_at(t, ri, start - r->start);
		matched = false;
	} else {
		/* starts inside: the part inside matches, the rest is seen next */
		reg_split_at(t, ri, end - r->start);
		matched = true;
	}
	return matched == f->matching;
}

bool filters_core_out(struct mon_ctx *c, int ti, size_t ri, struct mon_scheme *s)
{
	s->core_filters_allowed = false;
	for (int i = 0; i < s->p.nr_filters; i++) {
		const struct emu_filter *f = &s->p.filters[i];

		if (!filter_is_core(f->type))
			continue;
		if (core_match(c, ti, ri, f)) {
			if (f->allow)
				s->core_filters_allowed = true;
			return !f->allow;
		}
	}
	return s->core_default_reject;
}

/* sysfs_streq(): equal but for one trailing newline on either side. */
static bool streq_nl(const char *a, const char *b)
{
	size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

	return la == lb && !strncmp(a, b, la) && (a[la] == '\0' || !strcmp(a + la, "\n")) &&
	       (b[lb] == '\0' || !strcmp(b + lb, "\n"));
}

static bool ops_match(const struct emu_filter *f, const struct page_props *pp)
{
	bool matched = false;

	switch (f->type) {
	case EMU_FILTER_ANON:
		matched = pp->anon;
		break;
	case EMU_FILTER_ACTIVE:
		matched = pp->active;
		break;
	case EMU_FILTER_MEMCG:
		matched = pp->memcg && streq_nl(pp->memcg, f->memcg_path);
		break;
	case EMU_FILTER_YOUNG:
		matched = pp->young;
		break;
	case EMU_FILTER_HUGEPAGE_SIZE:
		matched = f->min <= pp->folio_sz && pp->folio_sz <= f->max;
		break;
	case EMU_FILTER_UNMAPPED:
		matched = pp->unmapped;
		break;
	default:
		return false;
	}
	return matched == f->matching;
}

static bool ops_pass(const struct mon_scheme *s, const struct page_props *pp, bool reject_young)
{
	if (s->core_filters_allowed)
		return true;
	for (int i = 0; i < s->p.nr_filters; i++) {
		const struct emu_filter *f = &s->p.filters[i];

		if (filter_is_core(f->type))
			continue;
		if (ops_match(f, pp))
			return f->allow;
	}
	/* paddr pageout's own "young: reject" filter, installed after the user's */
	if (reject_young && pp->young)
		return false;
	return !s->ops_default_reject;
}

bool filters_ops_pass(const struct mon_scheme *s, const struct page_props *pp)
{
	return ops_pass(s, pp, false);
}

bool filters_probe_pass(const struct emu_probe *p, const struct page_props *pp)
{
	bool pass = true;

	for (int i = 0; i < p->nr_filters; i++) {
		const struct emu_filter *f = &p->filters[i];

		if (ops_match(f, pp))
			return f->allow;
		pass = !f->allow;
	}
	return pass;
}

struct passed_acc {
	struct mon_ctx *c;
	struct mon_target *t;
	const struct mon_scheme *s;
	const char *memcg;
	bool has_young, reject_young;
	uint64_t bytes;
};

/* Adds the passing bytes of a piece of uniform properties but for youngness. */
static void account(struct passed_acc *a, uint64_t start, uint64_t end, struct page_props pp)
{
	pid_t pid = a->t->pid;
	uint64_t t_us = a->c->now_us - a->c->start_us, unit = a->c->addr_unit;

	if (!a->has_young) {
		pp.young = false;
		if (ops_pass(a->s, &pp, false))
			a->bytes += end - start;
		return;
	}
	while (start < end) {
		uint64_t piece_end = scn_same_rate_end(a->c->scn, pid, start * unit, end * unit,
						       t_us) / unit;
		uint64_t rate, sz, young_sz;

		if (piece_end <= start)
			piece_end = end;
		rate = scn_rate(a->c->scn, pid, start * unit, t_us);
		sz = piece_end - start;
		young_sz = emu_mult_frac(sz, rate, SCN_RATE_FULL);
		pp.young = true;
		if (ops_pass(a->s, &pp, a->reject_young))
			a->bytes += young_sz;
		pp.young = false;
		if (ops_pass(a->s, &pp, a->reject_young))
			a->bytes += sz - young_sz;
		start = piece_end;
	}
}

static void account_run(const struct page_run *run, void *arg)
{
	struct passed_acc *a = arg;
	struct page_props pp = {
		.anon = run->anon,
		.folio_sz = run->huge ? 2u << 20 : a->c->page_size,
		.memcg = a->memcg,
	};

	account(a, run->start, run->end, pp);
}

uint64_t filters_passed_bytes(struct mon_ctx *c, struct mon_target *t, uint64_t start,
			      uint64_t end, const struct mon_scheme *s, bool reject_young)
{
	struct passed_acc a = { .c = c, .t = t, .s = s };

	for (int i = 0; i < s->p.nr_filters; i++)
		if (s->p.filters[i].type == EMU_FILTER_YOUNG)
			a.has_young = true;
	/* the implicit young filter only comes when the user gave none */
	a.reject_young = reject_young && !a.has_young;
	if (a.reject_young)
		a.has_young = true;
	if (mon_ops_is_va(c->ops)) {
		a.memcg = va_target_memcg(c, t);
		if (pages_walk_present(c, t, start, end, account_run, &a))
			return 0;
		return a.bytes;
	}
	account(&a, start, end, (struct page_props){ .folio_sz = c->page_size });
	return a.bytes;	/* core address units, as the kernel counts them */
}
