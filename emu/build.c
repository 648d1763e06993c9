// SPDX-License-Identifier: GPL-2.0-or-later
/* Params construction and validation; see build.h and docs/damon-abi.md §4. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "emu.h"
#include "resolve.h"
#include "util.h"

static bool is_pow2(unsigned long v)
{
	return v && !(v & (v - 1));
}

static void copy_path(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

static void free_params(struct emu_ctx_params *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nr_targets; i++)
		free(p->targets[i].regions);
	free(p->targets);
	for (int i = 0; i < p->nr_schemes; i++) {
		free(p->schemes[i].goals);
		free(p->schemes[i].filters);
		free(p->schemes[i].dests);
	}
	free(p->schemes);
	for (int i = 0; i < p->nr_probes; i++)
		free(p->probes[i].filters);
	free(p->probes);
	free(p);
}

void emu_built_free(struct emu_built *b)
{
	free_params(b->p);
	b->p = NULL;
}

/* Step 2: damon_set_attrs(). */
static int build_attrs(struct emu_node *ctx, struct emu_ctx_params *p)
{
	struct emu_node *iv = emu_node_at(ctx, "monitoring_attrs/intervals");
	struct emu_node *nr = emu_node_at(ctx, "monitoring_attrs/nr_regions");

	p->sample_us = emu_get_u(iv, "sample_us", 5000);
	p->aggr_us = emu_get_u(iv, "aggr_us", 100000);
	p->update_us = emu_get_u(iv, "update_us", 60000000);
	p->goal_access_bp = emu_get_u(iv, "intervals_goal/access_bp", 0);
	p->goal_aggrs = emu_get_u(iv, "intervals_goal/aggrs", 0);
	p->goal_min_sample_us = emu_get_u(iv, "intervals_goal/min_sample_us", 0);
	p->goal_max_sample_us = emu_get_u(iv, "intervals_goal/max_sample_us", 0);
	p->min_nr_regions = emu_get_u(nr, "min", 10);
	p->max_nr_regions = emu_get_u(nr, "max", 1000);

	if (p->goal_aggrs) {
		if (p->goal_min_sample_us > p->goal_max_sample_us)
			return -EINVAL;
		if (p->sample_us < p->goal_min_sample_us || p->sample_us > p->goal_max_sample_us)
			return -EINVAL;
	}
	if (p->min_nr_regions < 3)
		return -EINVAL;
	if (p->min_nr_regions > p->max_nr_regions)
		return -EINVAL;
	/* added in 6.4 with a stable backport to 6.3.y; 6.1 never checked it */
	if (emu_since(EMU_V(6, 3)) && p->sample_us > p->aggr_us)
		return -EINVAL;
	return 0;
}

static void read_filter(struct emu_node *f, enum emu_filter_dir dir, struct emu_filter *o)
{
	o->dir = dir;
	o->type = emu_get_kw(f, "type", EMU_FILTER_ANON);
	o->matching = emu_get_b(f, "matching", false);
	o->allow = emu_get_b(f, "allow", false);
	copy_path(o->memcg_path, sizeof(o->memcg_path), emu_get_str(f, "memcg_path"));
	o->addr_start = emu_get_u(f, "addr_start", 0);
	o->addr_end = emu_get_u(f, "addr_end", 0);
	o->target_idx = (unsigned int)emu_get_i(f, "damon_target_idx", 0);
	o->min = emu_get_u(f, "min", 0);
	o->max = emu_get_u(f, "max", 0);
}

/* Step 3 (7.2): probes; an unknown memcg path is returned as EINVAL, no quirk here. */
static int build_probes(struct emu_node *ctx, struct emu_ctx_params *p)
{
	struct emu_node *probes = emu_node_at(ctx, "monitoring_attrs/probes");
	int n = probes ? emu_node_count_numbered(probes) : 0;

	if (!n)
		return 0;
	p->probes = emu_xcalloc(n, sizeof(*p->probes));
	for (int i = 0; i < n; i++) {
		struct emu_node *fs = emu_node_at(emu_node_nth(probes, i), "filters");
		int nf = emu_node_count_numbered(fs);
		struct emu_probe *pr = &p->probes[p->nr_probes++];

		pr->filters = emu_xcalloc(nf, sizeof(*pr->filters));
		for (int j = 0; j < nf; j++) {
			struct emu_node *f = emu_node_nth(fs, j);
			struct emu_filter *o = &pr->filters[pr->nr_filters++];

			o->dir = EMU_FDIR_OPS;
			o->type = emu_get_kw(f, "type", EMU_FILTER_ANON);
			o->matching = emu_get_b(f, "matching", false);
			o->allow = emu_get_b(f, "allow", false);
			copy_path(o->memcg_path, sizeof(o->memcg_path), emu_get_str(f, "path"));
			if (o->type == EMU_FILTER_MEMCG && !emu_memcg_exists(emu_get_str(f, "path")))
				return -EINVAL;
		}
	}
	return 0;
}

/* Step 4: targets and their regions. */
static int build_targets(struct emu_node *ctx, struct emu_ctx_params *p)
{
	struct emu_node *ts = emu_node_at(ctx, "targets");
	int n = emu_node_count_numbered(ts);
	bool has_pid = p->ops != EMU_OPS_PADDR;

	/* multiple physical address space targets make no sense */
	if (!has_pid && n > 1)
		return -EINVAL;
	p->targets = emu_xcalloc(n, sizeof(*p->targets));
	for (int i = 0; i < n; i++) {
		struct emu_node *t = emu_node_nth(ts, i);
		struct emu_node *rs = emu_node_at(t, "regions");
		int nr = emu_node_count_numbered(rs);
		struct emu_target *o = &p->targets[p->nr_targets++];

		o->pid = (pid_t)emu_get_i(t, "pid_target", 0);
		if (has_pid && !emu_pid_exists(o->pid))
			return -EINVAL;
		o->obsolete = emu_get_b(t, "obsolete_target", false);
		o->regions = emu_xcalloc(nr, sizeof(*o->regions));
		for (int j = 0; j < nr; j++) {
			struct emu_node *r = emu_node_nth(rs, j);
			struct emu_region *reg = &o->regions[o->nr_regions++];

			reg->start = emu_get_u(r, "start", 0);
			reg->end = emu_get_u(r, "end", 0);
			if (reg->start > reg->end)
				return -EINVAL;
			if (j && o->regions[j - 1].end > reg->start)
				return -EINVAL;
		}
	}
	return 0;
}

static bool goal_has_nid(enum emu_goal_metric m)
{
	return m == EMU_METRIC_NODE_MEM_USED_BP || m == EMU_METRIC_NODE_MEM_FREE_BP ||
	       m == EMU_METRIC_NODE_MEMCG_USED_BP || m == EMU_METRIC_NODE_MEMCG_FREE_BP ||
	       m == EMU_METRIC_NODE_ELIGIBLE_MEM_BP;
}

static bool goal_has_memcg(enum emu_goal_metric m)
{
	return m == EMU_METRIC_NODE_MEMCG_USED_BP || m == EMU_METRIC_NODE_MEMCG_FREE_BP;
}

/* damos_sysfs_add_quota_score(): -EINVAL for an unknown memcg, as the kernel returns it. */
static int build_goals(struct emu_node *scheme, struct emu_scheme *s)
{
	struct emu_node *gs = emu_node_at(scheme, "quotas/goals");
	int n = gs ? emu_node_count_numbered(gs) : 0;

	s->goals = emu_xcalloc(n, sizeof(*s->goals));
	for (int i = 0; i < n; i++) {
		struct emu_node *g = emu_node_nth(gs, i);
		struct emu_goal *o;
		uint64_t target = emu_get_u(g, "target_value", 0);

		/* 7.2 silently skips goals without a target */
		if (emu_since(EMU_V(7, 2)) && !target)
			continue;
		o = &s->goals[s->nr_goals++];
		/* 6.8 had no target_metric file: every goal was user_input */
		o->metric = emu_get_kw(g, "target_metric", EMU_METRIC_USER_INPUT);
		o->target_value = target;
		if (o->metric == EMU_METRIC_USER_INPUT)
			o->current_value = emu_get_u(g, "current_value", 0);
		if (goal_has_nid(o->metric))
			o->nid = (int)emu_get_i(g, "nid", 0);
		if (goal_has_memcg(o->metric)) {
			if (!emu_memcg_exists(emu_get_str(g, "path")))
				return -EINVAL;
			copy_path(o->path, sizeof(o->path), emu_get_str(g, "path"));
		}
	}
	return 0;
}

static int add_filters(struct emu_node *scheme, const char *dirname, enum emu_filter_dir dir,
		       struct emu_scheme *s)
{
	struct emu_node *fs = emu_node_child(scheme, dirname);
	int n = fs ? emu_node_count_numbered(fs) : 0;

	for (int i = 0; i < n; i++) {
		struct emu_node *f = emu_node_nth(fs, i);
		struct emu_filter *o = &s->filters[s->nr_filters++];

		read_filter(f, dir, o);
		switch (o->type) {
		case EMU_FILTER_MEMCG:
			if (!emu_memcg_exists(emu_get_str(f, "memcg_path")))
				return -EINVAL;
			break;
		case EMU_FILTER_ADDR:
			if (o->addr_end < o->addr_start)
				return -EINVAL;
			break;
		case EMU_FILTER_HUGEPAGE_SIZE:
			if (o->min > o->max)
				return -EINVAL;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int count_filters(struct emu_node *scheme)
{
	static const char *const dirs[] = { "core_filters", "ops_filters", "filters" };
	int n = 0;

	for (size_t i = 0; i < 3; i++) {
		struct emu_node *fs = emu_node_child(scheme, dirs[i]);

		n += fs ? emu_node_count_numbered(fs) : 0;
	}
	return n;
}

/* damon_sysfs_mk_scheme(); any failure makes it return NULL. */
static int build_scheme(struct emu_node *sn, struct emu_scheme *s)
{
	struct emu_node *ap = emu_node_at(sn, "access_pattern");
	struct emu_node *q = emu_node_at(sn, "quotas");
	struct emu_node *wm = emu_node_at(sn, "watermarks");
	struct emu_node *ds = emu_node_at(sn, "dests");
	int nd = ds ? emu_node_count_numbered(ds) : 0;
	int err;

	s->action = emu_get_kw(sn, "action", EMU_ACT_STAT);
	s->apply_interval_us = emu_get_u(sn, "apply_interval_us", 0);
	s->target_nid = (int)emu_get_i(sn, "target_nid", -1);
	s->sz.min = emu_get_u(ap, "sz/min", 0);
	s->sz.max = emu_get_u(ap, "sz/max", 0);
	/* the kernel keeps these two in unsigned int: larger values are truncated */
	s->nr_accesses.min = (unsigned int)emu_get_u(ap, "nr_accesses/min", 0);
	s->nr_accesses.max = (unsigned int)emu_get_u(ap, "nr_accesses/max", 0);
	s->age.min = (unsigned int)emu_get_u(ap, "age/min", 0);
	s->age.max = (unsigned int)emu_get_u(ap, "age/max", 0);
	s->quota_ms = emu_get_u(q, "ms", 0);
	s->quota_bytes = emu_get_u(q, "bytes", 0);
	s->quota_reset_interval_ms = emu_get_u(q, "reset_interval_ms", 0);
	s->fail_charge_num = (unsigned int)emu_get_u(q, "fail_charge_num", 0);
	s->fail_charge_denom = (unsigned int)emu_get_u(q, "fail_charge_denom", 0);
	s->weight_sz = (unsigned int)emu_get_u(q, "weights/sz_permil", 0);
	s->weight_nr_accesses = (unsigned int)emu_get_u(q, "weights/nr_accesses_permil", 0);
	s->weight_age = (unsigned int)emu_get_u(q, "weights/age_permil", 0);
	s->goal_tuner = emu_get_kw(q, "goal_tuner", EMU_TUNER_CONSIST);
	s->wmark_metric = emu_get_kw(wm, "metric", EMU_WMARK_NONE);
	s->wmark_interval_us = emu_get_u(wm, "interval_us", 0);
	s->wmark_high = emu_get_u(wm, "high", 0);
	s->wmark_mid = emu_get_u(wm, "mid", 0);
	s->wmark_low = emu_get_u(wm, "low", 0);
	s->max_nr_snapshots = emu_get_u(sn, "stats/max_nr_snapshots", 0);

	err = build_goals(sn, s);
	if (err)
		return err;
	/* the kernel adds core_filters, then ops_filters, then the legacy filters */
	s->filters = emu_xcalloc(count_filters(sn), sizeof(*s->filters));
	err = add_filters(sn, "core_filters", EMU_FDIR_CORE, s);
	if (!err)
		err = add_filters(sn, "ops_filters", EMU_FDIR_OPS, s);
	if (!err)
		err = add_filters(sn, "filters", EMU_FDIR_LEGACY, s);
	if (err)
		return err;
	s->dests = emu_xcalloc(nd, sizeof(*s->dests));
	for (int i = 0; i < nd; i++) {
		struct emu_node *d = emu_node_nth(ds, i);

		s->dests[i].id = (unsigned int)emu_get_u(d, "id", 0);
		s->dests[i].weight = (unsigned int)emu_get_u(d, "weight", 0);
	}
	s->nr_dests = nd;
	return 0;
}

/* Step 5: schemes. damon_sysfs_add_schemes() reports any failed scheme as -ENOMEM. */
static int build_schemes(struct emu_node *ctx, struct emu_ctx_params *p)
{
	struct emu_node *ss = emu_node_at(ctx, "schemes");
	int n = emu_node_count_numbered(ss);

	p->schemes = emu_xcalloc(n, sizeof(*p->schemes));
	for (int i = 0; i < n; i++) {
		struct emu_scheme *s = &p->schemes[p->nr_schemes++];

		if (build_scheme(emu_node_nth(ss, i), s))
			return -ENOMEM;
	}
	return 0;
}

int emu_build_params(struct emu_node *ctx, struct emu_built *out)
{
	struct emu_ctx_params *p = emu_xcalloc(1, sizeof(*p));
	int err;

	out->p = p;
	/* Step 1: the operations set must be registered. */
	p->ops = emu_get_kw(ctx, "operations", EMU_OPS_VADDR);
	if (!(emu_opt.avail_ops & (1u << p->ops))) {
		err = -EINVAL;
		goto fail;
	}
	p->addr_unit = emu_get_u(ctx, "addr_unit", 1);
	out->min_region_sz = emu_page_size();
	/* only paddr scales by addr_unit (6.18) */
	if (p->ops == EMU_OPS_PADDR && p->addr_unit) {
		out->min_region_sz = emu_page_size() / p->addr_unit;
		if (!out->min_region_sz)
			out->min_region_sz = 1;
	}
	p->pause = emu_get_b(ctx, "pause", false);

	err = build_attrs(ctx, p);
	if (!err)
		err = build_probes(ctx, p);
	if (!err)
		err = build_targets(ctx, p);
	if (!err)
		err = build_schemes(ctx, p);
	if (!err)
		return 0;
fail:
	emu_built_free(out);
	return err;
}

int emu_build_goals(struct emu_node *ctx, int nr_schemes, struct emu_built *out)
{
	struct emu_ctx_params *p = emu_xcalloc(1, sizeof(*p));
	struct emu_node *ss = emu_node_at(ctx, "schemes");
	int n = emu_node_count_numbered(ss);
	int err = 0;

	out->p = p;
	out->min_region_sz = emu_page_size();
	p->ops = emu_get_kw(ctx, "operations", EMU_OPS_VADDR);
	if (n > nr_schemes)
		n = nr_schemes;
	p->schemes = emu_xcalloc(n, sizeof(*p->schemes));
	for (int i = 0; i < n && !err; i++)
		err = build_goals(emu_node_nth(ss, i), &p->schemes[p->nr_schemes++]);
	if (err)
		emu_built_free(out);
	return err;
}

static bool node_eligible_without_paddr(const struct emu_ctx_params *p)
{
	if (p->ops == EMU_OPS_PADDR)
		return false;
	for (int i = 0; i < p->nr_schemes; i++) {
		for (int j = 0; j < p->schemes[i].nr_goals; j++) {
			if (p->schemes[i].goals[j].metric == EMU_METRIC_NODE_ELIGIBLE_MEM_BP)
				return true;
		}
	}
	return false;
}

int emu_check_start(const struct emu_built *b)
{
	if (!is_pow2(b->min_region_sz))
		return -EINVAL;
	/*
	 * 7.2 checks node_eligible_mem_bp's operations set at commit only; 7.3 refuses it
	 * at `on` too (real 7.3.4: EINVAL, 7.2.13: started). Where 7.3 checks it is not
	 * known: it is put with the other damon_start() check, before the EBUSY one.
	 */
	if (emu_since(EMU_V(7, 3)) && node_eligible_without_paddr(b->p))
		return -EINVAL;
	if (emu_exclusive_user_running())
		return -EBUSY;
	return 0;
}

int emu_check_commit(const struct emu_built *b, int nr_cur_targets)
{
	const struct emu_ctx_params *p = b->p;

	if (!is_pow2(b->min_region_sz))
		return -EINVAL;
	if (node_eligible_without_paddr(p))
		return -EINVAL;
	/* an obsolete target must name an existing one */
	for (int i = nr_cur_targets; i < p->nr_targets; i++) {
		if (p->targets[i].obsolete)
			return -EINVAL;
	}
	return 0;
}

int emu_targets_after_commit(const struct emu_ctx_params *p, int nr_cur)
{
	int n = 0;

	for (int i = 0; i < nr_cur; i++)
		n += i < p->nr_targets && !p->targets[i].obsolete;
	if (p->nr_targets > nr_cur)
		n += p->nr_targets - nr_cur;
	return n;
}
