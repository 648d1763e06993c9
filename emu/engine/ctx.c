// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Building a context from a parameter set, and online commits (damon_commit_ctx() in
 * mm/damon/core.c): schemes and targets are updated in place by index, so that their
 * statistics, quota state and regions survive a commit, as they do in the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctx.h"
#include "filters.h"
#include "metrics.h"
#include "regions.h"
#include "scenario.h"
#include "util.h"
#include "vaddr.h"
#include "walk.h"

uint64_t mon_max_nr_accesses(const struct mon_attrs *a)
{
	uint64_t n = a->aggr_us / (a->sample_us ? a->sample_us : 1);

	if (n > UINT32_MAX)
		n = UINT32_MAX;
	return n ? n : 1;
}

void mon_scheme_set_next_apply(struct mon_ctx *c, struct mon_scheme *s)
{
	uint64_t sample = c->attrs.sample_us ? c->attrs.sample_us : 1;
	uint64_t interval = s->p.apply_interval_us ? s->p.apply_interval_us : c->attrs.aggr_us;

	s->next_apply_sis = c->passed_sis + interval / sample;
}

static void attrs_from_params(struct mon_attrs *a, const struct emu_ctx_params *p)
{
	*a = (struct mon_attrs){
		.sample_us = p->sample_us,
		.aggr_us = p->aggr_us,
		.update_us = p->update_us,
		.goal_access_bp = p->goal_access_bp,
		.goal_aggrs = p->goal_aggrs,
		.goal_min_sample_us = p->goal_min_sample_us,
		.goal_max_sample_us = p->goal_max_sample_us,
		.min_nr_regions = p->min_nr_regions,
		.max_nr_regions = p->max_nr_regions,
	};
}

static bool attrs_equal(const struct mon_attrs *a, const struct mon_attrs *b)
{
	return a->sample_us == b->sample_us && a->aggr_us == b->aggr_us &&
	       a->update_us == b->update_us && a->goal_access_bp == b->goal_access_bp &&
	       a->goal_aggrs == b->goal_aggrs && a->goal_min_sample_us == b->goal_min_sample_us &&
	       a->goal_max_sample_us == b->goal_max_sample_us &&
	       a->min_nr_regions == b->min_nr_regions && a->max_nr_regions == b->max_nr_regions;
}

/* nr_accesses means "out of aggr/sample samples": rescale it when those change. */
static unsigned int rescale_nr_accesses(unsigned int n, const struct mon_attrs *old,
					const struct mon_attrs *new)
{
	uint64_t bp = emu_mult_frac(n, 10000, mon_max_nr_accesses(old));

	return (unsigned int)(bp * mon_max_nr_accesses(new) / 10000);
}

void mon_set_attrs(struct mon_ctx *c, const struct mon_attrs *attrs)
{
	struct mon_attrs a = *attrs;
	const struct mon_attrs *old = &c->attrs;
	uint64_t sample = a.sample_us ? a.sample_us : 1;
	bool aggregating = c->passed_sis < c->next_aggr_sis;

	if (!a.aggr_samples)
		a.aggr_samples = a.aggr_us / sample;
	c->next_aggr_sis = c->passed_sis + a.aggr_us / sample;
	c->next_update_sis = c->passed_sis + a.update_us / sample;

	if (old->sample_us && old->aggr_us && a.sample_us && a.aggr_us) {
		for (int i = 0; i < c->nr_targets; i++) {
			struct mon_target *t = &c->targets[i];

			for (size_t k = 0; k < t->nr; k++) {
				struct mon_region *r = &t->regions[k];

				if (!aggregating) {
					r->nr_accesses = rescale_nr_accesses(r->nr_accesses, old, &a);
					r->nr_accesses_bp = r->nr_accesses * 10000;
				} else {
					/* mid-interval: restart this interval's counting */
					r->last_nr_accesses =
						rescale_nr_accesses(r->last_nr_accesses, old, &a);
					r->nr_accesses_bp = r->last_nr_accesses * 10000;
					r->nr_accesses = 0;
				}
				r->age = (unsigned int)((uint64_t)r->age * old->aggr_us / a.aggr_us);
			}
		}
	}
	c->attrs = a;
	for (int i = 0; i < c->nr_schemes; i++)
		mon_scheme_set_next_apply(c, &c->schemes[i]);
}

static uint64_t min_region_sz_of(uint64_t page_size, uint64_t addr_unit)
{
	uint64_t sz = page_size / (addr_unit ? addr_unit : 1);

	return sz ? sz : 1;
}

static void target_free(struct mon_target *t)
{
	va_close_target(t);
	free(t->regions);
	free(t->vmas);
	free(t->memcg);
	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
}

/* Fits the target to the given regions; none given keeps the current ones. */
static int target_set_regions(struct mon_target *t, const struct emu_target *src,
			      uint64_t min_sz)
{
	struct mon_range *ranges;
	int err;

	if (src->nr_regions <= 0)
		return 0;
	ranges = malloc((size_t)src->nr_regions * sizeof(*ranges));
	if (!ranges)
		return -ENOMEM;
	for (int i = 0; i < src->nr_regions; i++)
		ranges[i] = (struct mon_range){ src->regions[i].start, src->regions[i].end };
	err = reg_set_ranges(t, ranges, (size_t)src->nr_regions, min_sz);
	free(ranges);
	return err;
}

/* A process changes with the pid only; the same pid keeps its pidfd and mappings. */
static void target_set_pid(struct mon_ctx *c, struct mon_target *t, enum emu_ops ops, pid_t pid)
{
	if (!mon_ops_is_va(ops)) {
		va_close_target(t);
		t->pid = -1;
		return;
	}
	if (t->pid == pid && t->pidfd >= 0)
		return;
	va_close_target(t);
	free(t->vmas);
	free(t->memcg);
	t->vmas = NULL;
	t->nr_vmas = 0;
	t->vmas_read_us = 0;
	t->memcg = NULL;
	t->memcg_read = false;
	t->pid = pid;
	va_open_target(t);
	(void)c;
}

static void scheme_free(struct mon_scheme *s)
{
	free(s->p.goals);
	free(s->p.filters);
	free(s->p.dests);
	free(s->goal_last_psi);
	memset(s, 0, sizeof(*s));
}

static int copy_array(void **dst, const void *src, int n, size_t size)
{
	*dst = NULL;
	if (n <= 0)
		return 0;
	*dst = malloc((size_t)n * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, (size_t)n * size);
	return 0;
}

/* damos_commit_quota_goals(): goals by index; PSI history stays with its index. */
static int commit_goals(struct mon_ctx *c, struct mon_scheme *s, const struct emu_scheme *src)
{
	struct emu_goal *goals = NULL;
	uint64_t *psi = NULL;
	int n = src->nr_goals > 0 ? src->nr_goals : 0;

	if (n) {
		goals = calloc((size_t)n, sizeof(*goals));
		psi = calloc((size_t)n, sizeof(*psi));
		if (!goals || !psi) {
			free(goals);
			free(psi);
			return -ENOMEM;
		}
	}
	for (int i = 0; i < n; i++) {
		const struct emu_goal *g = &src->goals[i];
		bool existed = i < s->p.nr_goals;

		goals[i] = *g;
		/* the kernel takes current_value from the user for user_input only */
		if (existed && g->metric != EMU_METRIC_USER_INPUT)
			goals[i].current_value = s->p.goals[i].current_value;
		else if (!existed && g->metric != EMU_METRIC_USER_INPUT)
			goals[i].current_value = 0;
		/* PSI is a delta: the first one counts from now */
		psi[i] = existed ? s->goal_last_psi[i] : metrics_psi_some_total_us(c->proc_root);
	}
	free(s->p.goals);
	free(s->goal_last_psi);
	s->p.goals = goals;
	s->goal_last_psi = psi;
	s->p.nr_goals = n;
	return 0;
}

/* damos_commit(): user parameters replace ours; stats and quota state stay. */
static int scheme_commit(struct mon_ctx *c, struct mon_scheme *s, const struct emu_scheme *src)
{
	struct emu_scheme p = *src;
	int err;

	p.goals = s->p.goals;
	p.nr_goals = s->p.nr_goals;
	p.filters = NULL;
	p.dests = NULL;
	err = copy_array((void **)&p.filters, src->filters, src->nr_filters, sizeof(*p.filters));
	if (!err)
		err = copy_array((void **)&p.dests, src->dests, src->nr_dests, sizeof(*p.dests));
	if (err) {
		free(p.filters);
		free(p.dests);
		return err;
	}
	p.nr_filters = src->nr_filters > 0 ? src->nr_filters : 0;
	p.nr_dests = src->nr_dests > 0 ? src->nr_dests : 0;
	free(s->p.filters);
	free(s->p.dests);
	s->p = p;
	err = commit_goals(c, s, src);
	if (err)
		return err;
	s->wmark_active = true;	/* the committed watermarks start activated */
	filters_set_default_reject(s);
	return 0;
}

static int scheme_init(struct mon_ctx *c, struct mon_scheme *s, const struct emu_scheme *src)
{
	memset(s, 0, sizeof(*s));
	s->q.charge_target_from = -1;
	return scheme_commit(c, s, src);
}

static void probes_free(struct mon_ctx *c)
{
	for (int i = 0; i < c->nr_probes; i++)
		free(c->probes[i].filters);
	free(c->probes);
	c->probes = NULL;
	c->nr_probes = 0;
}

/* Monitoring probes (7.2) are replaced as a whole; the regions' hit counts stay. */
static int set_probes(struct mon_ctx *c, const struct emu_ctx_params *p)
{
	int n = p->nr_probes > 0 ? p->nr_probes : 0;
	struct emu_probe *arr = NULL;

	if (n > EMU_MAX_PROBES)
		n = EMU_MAX_PROBES;
	if (n) {
		arr = calloc((size_t)n, sizeof(*arr));
		if (!arr)
			return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		int nf = p->probes[i].nr_filters > 0 ? p->probes[i].nr_filters : 0;

		if (copy_array((void **)&arr[i].filters, p->probes[i].filters, nf,
			       sizeof(*arr[i].filters))) {
			for (int k = 0; k < i; k++)
				free(arr[k].filters);
			free(arr);
			return -ENOMEM;
		}
		arr[i].nr_filters = nf;
	}
	probes_free(c);
	c->probes = arr;
	c->nr_probes = n;
	return 0;
}

/*
 * What damon_commit_ctx() refuses. The kernel finds these on a test context first (sysfs),
 * so a refused commit leaves the running one as it was; so do we, by checking up front.
 */
static int check_params(const struct mon_ctx *c, const struct emu_ctx_params *p)
{
	/* targets added at the end may not be obsolete: there is nothing to remove */
	for (int i = c ? c->nr_targets : 0; i < p->nr_targets; i++)
		if (p->targets[i].obsolete)
			return -EINVAL;
	if (p->ops == EMU_OPS_PADDR)
		return 0;
	/* node_eligible_mem_bp is a paddr-only metric (damon_commit_ctx) */
	for (int i = 0; i < p->nr_schemes; i++)
		for (int g = 0; g < p->schemes[i].nr_goals; g++)
			if (p->schemes[i].goals[g].metric == EMU_METRIC_NODE_ELIGIBLE_MEM_BP)
				return -EINVAL;
	return 0;
}

struct mon_ctx *mon_ctx_new(const struct emu_ctx_params *p, const struct emu_engine_opts *opts,
			    uint64_t now_us, uint64_t seed)
{
	struct mon_ctx *c = calloc(1, sizeof(*c));
	long page = sysconf(_SC_PAGESIZE);

	if (!c)
		return NULL;
	c->page_size = page > 0 ? (uint64_t)page : 4096;
	c->ops = p->ops;
	c->addr_unit = p->addr_unit ? p->addr_unit : 1;
	c->min_region_sz = min_region_sz_of(c->page_size, c->addr_unit);
	c->pause = p->pause;
	attrs_from_params(&c->attrs, p);
	c->attrs.aggr_samples = c->attrs.aggr_us / (c->attrs.sample_us ? c->attrs.sample_us : 1);
	c->start_us = c->now_us = now_us;
	c->rng = seed ? seed : 1;
	snprintf(c->proc_root, sizeof(c->proc_root), "%s",
		 opts && opts->proc_root && *opts->proc_root ? opts->proc_root : "/proc");
	snprintf(c->cgroup_root, sizeof(c->cgroup_root), "%s",
		 opts && opts->cgroup_root && *opts->cgroup_root ? opts->cgroup_root :
								   "/sys/fs/cgroup");
	c->real_actions = opts && opts->real_actions;
	c->hugepage_metric = opts && opts->hugepage_metric;
	c->scn = scn_new(opts ? opts->scenario_path : NULL);
	if (!c->scn)
		goto fail;

	if (p->nr_targets > 0) {
		c->targets = calloc((size_t)p->nr_targets, sizeof(*c->targets));
		if (!c->targets)
			goto fail;
	}
	for (int i = 0; i < p->nr_targets; i++) {
		struct mon_target *t = &c->targets[i];

		c->nr_targets++;
		t->pidfd = -1;
		t->pid = -1;
		t->obsolete = p->targets[i].obsolete;
		target_set_pid(c, t, c->ops, p->targets[i].pid);
		if (target_set_regions(t, &p->targets[i], c->min_region_sz))
			goto fail;
	}
	if (p->nr_schemes > 0) {
		c->schemes = calloc((size_t)p->nr_schemes, sizeof(*c->schemes));
		if (!c->schemes)
			goto fail;
	}
	for (int i = 0; i < p->nr_schemes; i++) {
		c->nr_schemes++;
		if (scheme_init(c, &c->schemes[i], &p->schemes[i]))
			goto fail;
	}
	if (set_probes(c, p))
		goto fail;
	return c;
fail:
	mon_ctx_free(c);
	return NULL;
}

void mon_ctx_free(struct mon_ctx *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_targets; i++)
		target_free(&c->targets[i]);
	for (int i = 0; i < c->nr_schemes; i++)
		scheme_free(&c->schemes[i]);
	free(c->targets);
	free(c->schemes);
	probes_free(c);
	walk_reset(c);
	scn_free(c->scn);
	free(c);
}

static int commit_schemes(struct mon_ctx *c, const struct emu_ctx_params *p)
{
	int n = p->nr_schemes > 0 ? p->nr_schemes : 0, old = c->nr_schemes;

	if (n != old)
		walk_cancel(c);	/* the walk was asked of other schemes */
	for (int i = n; i < old; i++)
		scheme_free(&c->schemes[i]);
	if (n > old) {
		struct mon_scheme *arr = realloc(c->schemes, (size_t)n * sizeof(*arr));

		if (!arr) {
			c->nr_schemes = old < n ? old : n;
			return -ENOMEM;
		}
		c->schemes = arr;
	}
	c->nr_schemes = n < old ? n : old;
	for (int i = 0; i < c->nr_schemes; i++) {
		int err = scheme_commit(c, &c->schemes[i], &p->schemes[i]);

		if (err)
			return err;
	}
	for (int i = old; i < n; i++) {
		if (scheme_init(c, &c->schemes[i], &p->schemes[i]))
			return -ENOMEM;
		c->nr_schemes++;
		mon_scheme_set_next_apply(c, &c->schemes[i]);
	}
	return 0;
}

static int commit_targets(struct mon_ctx *c, const struct emu_ctx_params *p)
{
	int n = p->nr_targets > 0 ? p->nr_targets : 0, old = c->nr_targets, kept = 0;
	uint64_t min_sz = min_region_sz_of(c->page_size, p->addr_unit);
	int *new_index = calloc((size_t)(old ? old : 1), sizeof(int));
	struct mon_target *arr;

	if (!new_index)
		return -ENOMEM;
	arr = calloc((size_t)(n > old ? n : (old ? old : 1)), sizeof(*arr));
	if (!arr) {
		free(new_index);
		return -ENOMEM;
	}
	/* dst target i pairs with src target i, whatever was removed before it */
	for (int i = 0; i < old; i++) {
		struct mon_target *t = &c->targets[i];

		new_index[i] = -1;
		if (i >= n || p->targets[i].obsolete) {
			target_free(t);
			continue;
		}
		if (target_set_regions(t, &p->targets[i], min_sz))
			goto nomem;
		target_set_pid(c, t, p->ops, p->targets[i].pid);
		t->obsolete = false;
		new_index[i] = kept;
		arr[kept++] = *t;
		memset(t, 0, sizeof(*t));	/* moved: the old slot owns nothing now */
		t->pidfd = -1;
	}
	for (int i = old; i < n; i++) {
		struct mon_target *t = &arr[kept];

		t->pidfd = -1;
		t->pid = -1;
		target_set_pid(c, t, p->ops, p->targets[i].pid);
		kept++;
		if (target_set_regions(t, &p->targets[i], min_sz))
			goto nomem;
	}
	for (int i = 0; i < c->nr_schemes; i++) {
		struct mon_quota *q = &c->schemes[i].q;

		if (q->charge_target_from >= 0) {
			q->charge_target_from = q->charge_target_from < old ?
				new_index[q->charge_target_from] : -1;
			if (q->charge_target_from < 0)
				q->charge_addr_from = 0;
		}
	}
	free(c->targets);
	free(new_index);
	c->targets = arr;
	c->nr_targets = kept;
	return 0;
nomem:
	/* half-updated: the kdamond cannot go on with this context (it is marked corrupted) */
	for (int i = 0; i < old; i++)
		target_free(&c->targets[i]);
	for (int i = 0; i < kept; i++)
		target_free(&arr[i]);
	free(arr);
	free(new_index);
	free(c->targets);
	c->targets = NULL;
	c->nr_targets = 0;
	return -ENOMEM;
}

int mon_commit(struct mon_ctx *c, const struct emu_ctx_params *p)
{
	struct mon_attrs attrs;
	uint64_t addr_unit = p->addr_unit ? p->addr_unit : 1;
	int err;

	err = check_params(c, p);
	if (err)
		return err;
	/* from here on a failure (ENOMEM) leaves a half-updated context: the kdamond stops */
	c->corrupted = true;
	err = commit_schemes(c, p);
	if (!err)
		err = commit_targets(c, p);
	if (!err)
		err = set_probes(c, p);
	if (err)
		return err;
	attrs_from_params(&attrs, p);
	if (!attrs_equal(&c->attrs, &attrs))
		mon_set_attrs(c, &attrs);
	c->pause = p->pause;
	c->ops = p->ops;
	c->addr_unit = addr_unit;
	c->min_region_sz = min_region_sz_of(c->page_size, addr_unit);
	c->corrupted = false;
	return 0;
}

int mon_commit_goals(struct mon_ctx *c, const struct emu_ctx_params *p)
{
	for (int i = 0; i < c->nr_schemes && i < p->nr_schemes; i++) {
		int err = commit_goals(c, &c->schemes[i], &p->schemes[i]);

		if (err)
			return err;
	}
	return 0;
}
