// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Feature detection from the tree itself, never from `uname -r`.
 *
 * Every file in the schema belongs to a feature with a known kernel version. Reading the
 * live tree tells, for every directory that exists, which of its files are there: a present
 * file proves its feature (and raises the version floor), a missing one disproves it (and
 * lowers the version ceiling). The DAMON modules' parameters add more markers. A feature
 * nothing speaks for or against is decided by the version bounds, else left unknown; only a
 * keyword write can reveal keyword-only features, which damonctl_features_probe() does on a
 * kdamond of the caller's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_internal.h"

#define V(maj, min) DAMONCTL_VERSION(maj, min)
#define QUEUED 0x40000000	/* flag on versions of features not in any released kernel */

static const struct {
	const char *name;
	int version;
	const char *desc;
} feats[DAMONCTL_NR_FEATURES] = {
	[DAMONCTL_FEAT_SYSFS] = { "sysfs", V(5, 18), "the DAMON sysfs interface" },
	[DAMONCTL_FEAT_OPS_VADDR] = { "ops_vaddr", V(5, 18), "virtual address monitoring (vaddr)" },
	[DAMONCTL_FEAT_OPS_FVADDR] = { "ops_fvaddr", V(5, 19),
				       "fixed virtual address ranges (fvaddr)" },
	[DAMONCTL_FEAT_OPS_PADDR] = { "ops_paddr", V(5, 18), "physical address monitoring (paddr)" },
	[DAMONCTL_FEAT_TRIED_REGIONS] = { "tried_regions", V(6, 2),
					  "the regions each scheme tried (tried_regions)" },
	[DAMONCTL_FEAT_FILTERS] = { "filters", V(6, 3), "DAMOS filters (anon, memcg)" },
	[DAMONCTL_FEAT_TRIED_BYTES] = { "tried_bytes", V(6, 6), "tried_regions/total_bytes" },
	[DAMONCTL_FEAT_FILTER_ADDR_TARGET] = { "filter_addr_target", V(6, 6),
					       "addr and target filters" },
	[DAMONCTL_FEAT_APPLY_INTERVAL] = { "apply_interval", V(6, 7),
					   "per-scheme apply interval" },
	[DAMONCTL_FEAT_QUOTA_GOALS] = { "quota_goals", V(6, 8), "quota goals (user_input)" },
	[DAMONCTL_FEAT_GOAL_METRICS] = { "goal_metrics", V(6, 9),
					 "goal metrics (target_metric, some_mem_psi_us)" },
	[DAMONCTL_FEAT_EFFECTIVE_QUOTA] = { "effective_quota", V(6, 9),
					    "the effective quota (effective_bytes)" },
	[DAMONCTL_FEAT_FILTER_YOUNG] = { "filter_young", V(6, 10), "the young filter" },
	[DAMONCTL_FEAT_TARGET_NID] = { "target_nid", V(6, 11),
				       "migrate_hot/migrate_cold actions and target_nid" },
	[DAMONCTL_FEAT_FILTER_ALLOW] = { "filter_allow", V(6, 14),
					 "allow filters and sz_ops_filter_passed" },
	[DAMONCTL_FEAT_CORE_OPS_FILTERS] = { "core_ops_filters", V(6, 15),
					     "core_filters/ops_filters, active, hugepage_size "
					     "and unmapped filters" },
	[DAMONCTL_FEAT_INTERVALS_GOAL] = { "intervals_goal", V(6, 15),
					   "monitoring intervals auto-tuning" },
	[DAMONCTL_FEAT_GOAL_NID] = { "goal_nid", V(6, 16), "node_mem_used_bp/node_mem_free_bp goals" },
	[DAMONCTL_FEAT_REFRESH_MS] = { "refresh_ms", V(6, 17), "periodic stats refresh (refresh_ms)" },
	[DAMONCTL_FEAT_DESTS] = { "dests", V(6, 17), "migration destinations (dests)" },
	[DAMONCTL_FEAT_ADDR_UNIT] = { "addr_unit", V(6, 18), "paddr address unit (addr_unit)" },
	[DAMONCTL_FEAT_OBSOLETE_TARGET] = { "obsolete_target", V(6, 19),
					    "removing targets online (obsolete_target)" },
	[DAMONCTL_FEAT_GOAL_PATH] = { "goal_path", V(6, 19),
				      "node_memcg_used_bp/node_memcg_free_bp goals" },
	[DAMONCTL_FEAT_SNAPSHOTS] = { "snapshots", V(7, 0),
				      "nr_snapshots/max_nr_snapshots, active_mem_bp goals" },
	[DAMONCTL_FEAT_GOAL_TUNER] = { "goal_tuner", V(7, 1),
				       "quota goal tuners (consist, temporal)" },
	[DAMONCTL_FEAT_PAUSE] = { "pause", V(7, 2), "pausing a context (pause)" },
	[DAMONCTL_FEAT_PROBES] = { "probes", V(7, 2), "access probes" },
	[DAMONCTL_FEAT_FAIL_CHARGE] = { "fail_charge", V(7, 2), "quota charge of failed attempts" },
	[DAMONCTL_FEAT_ACTION_COLLAPSE] = { "action_collapse", V(7, 2),
					    "the collapse action (MADV_COLLAPSE)" },
	[DAMONCTL_FEAT_HUGEPAGE_MEM_BP] = { "hugepage_mem_bp", V(7, 4) | QUEUED,
					    "the hugepage_mem_bp quota goal metric" },
	[DAMONCTL_FEAT_PROBE_WEIGHT] = { "probe_weight", V(7, 3) | QUEUED,
					 "access probe weights (weight)" },
};

int dctl_feature_version(enum damonctl_feature f)
{
	return feats[f].version & ~QUEUED;
}

bool dctl_feature_queued(enum damonctl_feature f)
{
	return feats[f].version & QUEUED;
}

DAMONCTL_API const char *damonctl_feature_name(enum damonctl_feature f)
{
	return (unsigned int)f < DAMONCTL_NR_FEATURES ? feats[f].name : NULL;
}

DAMONCTL_API const char *damonctl_feature_description(enum damonctl_feature f)
{
	return (unsigned int)f < DAMONCTL_NR_FEATURES ? feats[f].desc : NULL;
}

DAMONCTL_API const char *damonctl_feature_since(enum damonctl_feature f)
{
	static const char *const since[DAMONCTL_NR_FEATURES] = {
		[DAMONCTL_FEAT_SYSFS] = "5.18", [DAMONCTL_FEAT_OPS_VADDR] = "5.18",
		[DAMONCTL_FEAT_OPS_FVADDR] = "5.19", [DAMONCTL_FEAT_OPS_PADDR] = "5.18",
		[DAMONCTL_FEAT_TRIED_REGIONS] = "6.2", [DAMONCTL_FEAT_FILTERS] = "6.3",
		[DAMONCTL_FEAT_TRIED_BYTES] = "6.6", [DAMONCTL_FEAT_FILTER_ADDR_TARGET] = "6.6",
		[DAMONCTL_FEAT_APPLY_INTERVAL] = "6.7", [DAMONCTL_FEAT_QUOTA_GOALS] = "6.8",
		[DAMONCTL_FEAT_GOAL_METRICS] = "6.9", [DAMONCTL_FEAT_EFFECTIVE_QUOTA] = "6.9",
		[DAMONCTL_FEAT_FILTER_YOUNG] = "6.10", [DAMONCTL_FEAT_TARGET_NID] = "6.11",
		[DAMONCTL_FEAT_FILTER_ALLOW] = "6.14", [DAMONCTL_FEAT_CORE_OPS_FILTERS] = "6.15",
		[DAMONCTL_FEAT_INTERVALS_GOAL] = "6.15", [DAMONCTL_FEAT_GOAL_NID] = "6.16",
		[DAMONCTL_FEAT_REFRESH_MS] = "6.17", [DAMONCTL_FEAT_DESTS] = "6.17",
		[DAMONCTL_FEAT_ADDR_UNIT] = "6.18", [DAMONCTL_FEAT_OBSOLETE_TARGET] = "6.19",
		[DAMONCTL_FEAT_GOAL_PATH] = "6.19", [DAMONCTL_FEAT_SNAPSHOTS] = "7.0",
		[DAMONCTL_FEAT_GOAL_TUNER] = "7.1", [DAMONCTL_FEAT_PAUSE] = "7.2",
		[DAMONCTL_FEAT_PROBES] = "7.2", [DAMONCTL_FEAT_FAIL_CHARGE] = "7.2",
		[DAMONCTL_FEAT_ACTION_COLLAPSE] = "7.2",
		[DAMONCTL_FEAT_HUGEPAGE_MEM_BP] = "queued for 7.4",
		[DAMONCTL_FEAT_PROBE_WEIGHT] = "queued for 7.3",
	};

	return (unsigned int)f < DAMONCTL_NR_FEATURES ? since[f] : NULL;
}

#define evidence dctl_evidence

/* The release before @version: 7.0 follows 6.19, not "6.999". */
static int previous_version(int version)
{
	/* the last minor release of each finished major series */
	static const int last_minor[] = { [3] = 19, [4] = 20, [5] = 19, [6] = 19 };
	int major = version / 1000, minor = version % 1000;

	if (minor || major < 1 || (unsigned int)(major - 1) >= ARRAY_SIZE(last_minor) ||
	    !last_minor[major - 1])
		return version - 1;
	return V(major - 1, last_minor[major - 1]);
}

static void saw_version(struct evidence *ev, int version, bool present)
{
	int before = previous_version(version);

	if (present) {
		if (version > ev->vmin)
			ev->vmin = version;
	} else if (!ev->vmax || before < ev->vmax) {
		ev->vmax = before;
	}
}

static void saw(struct evidence *ev, int feature, bool present)
{
	if (feature == FEAT_NONE)
		return;
	if (present)
		ev->present[feature] = true;
	else
		ev->absent[feature] = true;
	saw_version(ev, dctl_feature_version(feature), present);
}

static void walk(struct evidence *ev, const struct dobj *o)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	unsigned int a, l, i;

	for (a = 0; a < kd->nr_attrs; a++)
		saw(ev, kd->attrs[a].feature, o->has >> a & 1);
	if (o->kind == K_CONTEXT && (o->has >> DAMONCTL_CONTEXT_AVAIL_OPERATIONS & 1)) {
		const char *s = o->v[DAMONCTL_CONTEXT_AVAIL_OPERATIONS].s;
		char buf[256], *tok, *save;

		ev->ops_known = true;
		snprintf(buf, sizeof(buf), "%s", s ? s : "");
		for (tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
			if (!strcmp(tok, "vaddr"))
				ev->ops[0] = true;
			else if (!strcmp(tok, "fvaddr"))
				ev->ops[1] = true;
			else if (!strcmp(tok, "paddr"))
				ev->ops[2] = true;
		}
	}
	for (l = 0; l < kd->nr_lists; l++) {
		saw(ev, kd->lists[l].feature, o->lists_has >> l & 1);
		for (i = 0; i < o->lists[l].nr; i++)
			walk(ev, o->lists[l].items[i]);
	}
}

/* Module parameters that appeared in known versions: more markers, without any write. */
static const struct {
	const char *module;
	const char *param;	/* NULL: the module's presence itself */
	int version;
} module_markers[] = {
	{ "damon_reclaim", "skip_anon", V(6, 3) },
	{ "damon_reclaim", "quota_mem_pressure_us", V(6, 9) },
	{ "damon_reclaim", "addr_unit", V(6, 18) },
	{ "damon_reclaim", "autotune_monitoring_intervals", V(7, 2) },
	{ "damon_lru_sort", "active_mem_bp", V(7, 0) },
	{ "damon_lru_sort", "addr_unit", V(6, 18) },
	{ "damon_lru_sort", "autotune_monitoring_intervals", V(7, 2) },
	{ "damon_stat", NULL, V(6, 17) },
	{ "damon_stat", "aggr_interval_us", V(6, 18) },
	{ "damon_stat", "kdamond_pid", V(7, 2) },
};

/* A parameter every version of the module has: without it the directory is partial (an
 * emulated sysroot, say) and what it lacks proves nothing. */
static const char *module_baseline(const char *module)
{
	if (!strcmp(module, "damon_stat"))
		return "estimated_memory_bandwidth";
	return "quota_ms";	/* damon_reclaim, damon_lru_sort */
}

static bool module_param_exists(struct damonctl_ctx *ctx, const char *module, const char *param)
{
	char rel[128], path[PATH_MAX];

	if (param)
		snprintf(rel, sizeof(rel), "module/%s/parameters/%s", module, param);
	else
		snprintf(rel, sizeof(rel), "module/%s/parameters", module);
	if (damonctl_path(ctx, DAMONCTL_BASE_SYS, rel, path, sizeof(path)) < 0)
		return false;
	return access(path, F_OK) == 0;
}

static void module_evidence(struct damonctl_ctx *ctx, struct evidence *ev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(module_markers); i++) {
		const char *mod = module_markers[i].module;

		if (!module_param_exists(ctx, mod, NULL))
			continue;	/* configured out, or not loaded: proves nothing */
		if (!module_markers[i].param) {
			saw_version(ev, module_markers[i].version, true);
			continue;
		}
		if (module_param_exists(ctx, mod, module_markers[i].param))
			saw_version(ev, module_markers[i].version, true);
		else if (module_param_exists(ctx, mod, module_baseline(mod)))
			saw_version(ev, module_markers[i].version, false);
	}
}

static void decide(struct damonctl_features *f, const struct evidence *ev_in)
{
	struct evidence fixed = *ev_in, *ev = &fixed;
	unsigned int i;

	/* conflicting markers (a backport, a vendor kernel): trust what is there */
	if (ev->vmax && ev->vmax < ev->vmin)
		ev->vmax = 0;
	f->ev = *ev_in;
	f->vmin = ev->vmin;
	f->vmax = ev->vmax;
	f->ops_known = ev->ops_known;
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		int v = dctl_feature_version(i);

		if (ev->present[i])
			f->has[i] = DAMONCTL_YES;
		else if (ev->absent[i])
			f->has[i] = DAMONCTL_NO;
		else if (dctl_feature_queued(i))
			/* not in any release: only a probe can tell, unless we know it is old */
			f->has[i] = ev->vmax && v > ev->vmax ? DAMONCTL_NO : DAMONCTL_UNKNOWN;
		else if (v <= ev->vmin)
			f->has[i] = DAMONCTL_YES;
		else if (ev->vmax && v > ev->vmax)
			f->has[i] = DAMONCTL_NO;
		else
			f->has[i] = DAMONCTL_UNKNOWN;
	}
	f->has[DAMONCTL_FEAT_SYSFS] = DAMONCTL_YES;
	if (ev->ops_known) {
		f->has[DAMONCTL_FEAT_OPS_VADDR] = ev->ops[0] ? DAMONCTL_YES : DAMONCTL_NO;
		f->has[DAMONCTL_FEAT_OPS_FVADDR] = ev->ops[1] ? DAMONCTL_YES : DAMONCTL_NO;
		f->has[DAMONCTL_FEAT_OPS_PADDR] = ev->ops[2] ? DAMONCTL_YES : DAMONCTL_NO;
	} else {
		f->has[DAMONCTL_FEAT_OPS_VADDR] = DAMONCTL_UNKNOWN;
		f->has[DAMONCTL_FEAT_OPS_FVADDR] = DAMONCTL_UNKNOWN;
		f->has[DAMONCTL_FEAT_OPS_PADDR] = DAMONCTL_UNKNOWN;
	}
}

static int detect(struct damonctl_ctx *ctx, const struct dobj *tree, struct damonctl_features *f)
{
	struct evidence ev = { .vmin = DAMONCTL_VERSION(5, 18) };

	/* damonc supports 6.1 and later; the sysfs tree of older kernels looks alike. */
	saw_version(&ev, DAMONCTL_VERSION(6, 1), true);
	walk(&ev, tree);
	module_evidence(ctx, &ev);
	decide(f, &ev);
	return 0;
}

DAMONCTL_API int damonctl_features_detect(struct damonctl_ctx *ctx,
					  struct damonctl_features **out)
{
	struct damonctl_features *f;
	struct damonctl_tree *t;
	int r;

	/* the regions DAMON tried say nothing of features (that the directory is there does,
	 * and is read anyway), and they can be thousands of files */
	r = damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t);
	if (r)
		return r;
	f = calloc(1, sizeof(*f));
	if (!f) {
		damonctl_tree_free(t);
		return -ENOMEM;
	}
	detect(ctx, CDOBJ(t), f);
	damonctl_tree_free(t);
	*out = f;
	return 0;
}

DAMONCTL_API int damonctl_features_from_tree(struct damonctl_ctx *ctx,
					     const struct damonctl_tree *t,
					     struct damonctl_features **out)
{
	struct damonctl_features *f = calloc(1, sizeof(*f));
	struct damonctl_tree *base = NULL;
	int r;

	if (!f)
		return -ENOMEM;
	/* staging: what the kernel showed, not kdamonds the model added (whose files and
	 * avail_operations no kernel has shown yet) */
	if (ctx && ctx->staging) {
		r = dctl_staged_base(ctx, &base);
		if (r) {
			free(f);
			return r;
		}
		t = base;
	}
	detect(ctx, CDOBJ(t), f);
	damonctl_tree_free(base);
	*out = f;
	return 0;
}

DAMONCTL_API char *damonctl_features_to_json(const struct damonctl_features *f)
{
	json_object *o = json_object_new_object();
	char *text = NULL;
	unsigned int i;

	for (i = 0; o && f && i < DAMONCTL_NR_FEATURES; i++)
		if (f->has[i] != DAMONCTL_UNKNOWN)
			json_object_object_add(o, feats[i].name,
					       json_object_new_boolean(f->has[i] == DAMONCTL_YES));
	if (o && f)
		text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return text;
}

DAMONCTL_API int damonctl_features_learn(struct damonctl_features *f, const char *json)
{
	json_object *o = json ? json_tokener_parse(json) : NULL, *v;
	struct evidence ev;
	unsigned int i;
	int n = 0;

	if (!f || !o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EINVAL;
	}
	static const enum damonctl_feature ops[3] = { DAMONCTL_FEAT_OPS_VADDR,
						      DAMONCTL_FEAT_OPS_FVADDR,
						      DAMONCTL_FEAT_OPS_PADDR };
	unsigned int nr_ops = 0;

	ev = f->ev;
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		/* what the tree shows now wins over what was learned before */
		if (f->has[i] != DAMONCTL_UNKNOWN || !json_object_object_get_ex(o, feats[i].name, &v) ||
		    !json_object_is_type(v, json_type_boolean))
			continue;
		saw(&ev, (int)i, json_object_get_boolean(v));
		n++;
	}
	/* the operations sets are known together (avail_operations), or not at all */
	for (i = 0; !ev.ops_known && i < 3; i++)
		if (json_object_object_get_ex(o, feats[ops[i]].name, &v) &&
		    json_object_is_type(v, json_type_boolean)) {
			ev.ops[i] = json_object_get_boolean(v);
			nr_ops++;
		}
	if (nr_ops == 3)
		ev.ops_known = true;
	json_object_put(o);
	if (n)
		decide(f, &ev);
	return n;
}

DAMONCTL_API bool damonctl_features_incomplete(const struct damonctl_features *f)
{
	unsigned int i;

	/* queued features are unknown on every kernel that may have them: not a gap */
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
		if (f->has[i] == DAMONCTL_UNKNOWN && !dctl_feature_queued(i))
			return true;
	return false;
}

DAMONCTL_API void damonctl_features_free(struct damonctl_features *f)
{
	free(f);
}

DAMONCTL_API enum damonctl_support damonctl_features_has(const struct damonctl_features *f,
							 enum damonctl_feature feat)
{
	if (!f || (unsigned int)feat >= DAMONCTL_NR_FEATURES)
		return DAMONCTL_UNKNOWN;
	return f->has[feat];
}

DAMONCTL_API void damonctl_features_version_range(const struct damonctl_features *f, int *min,
						  int *max)
{
	if (min)
		*min = f->vmin;
	if (max)
		*max = f->vmax;
}

DAMONCTL_API enum damonctl_support damonctl_features_has_keyword(
	const struct damonctl_features *f, enum damonctl_kwset set, const char *name)
{
	const struct keyword *kw = dctl_keyword_find(set, name);

	if (!kw)
		return DAMONCTL_NO;
	if (set == DAMONCTL_KW_OPERATIONS) {
		if (!strcmp(name, "vaddr"))
			return damonctl_features_has(f, DAMONCTL_FEAT_OPS_VADDR);
		if (!strcmp(name, "fvaddr"))
			return damonctl_features_has(f, DAMONCTL_FEAT_OPS_FVADDR);
		return damonctl_features_has(f, DAMONCTL_FEAT_OPS_PADDR);
	}
	if (kw->feature == FEAT_NONE)
		return DAMONCTL_YES;
	return damonctl_features_has(f, kw->feature);
}

/*
 * Keyword probes: a feature, the file (relative to the scheme directory) whose keyword set
 * reveals it, and the keyword. Written to a stopped kdamond's staging files only.
 */
static const struct {
	enum damonctl_feature feat;
	const char *file;
	const char *keyword;
} probes[] = {
	{ DAMONCTL_FEAT_HUGEPAGE_MEM_BP, "quotas/goals/0/target_metric", "hugepage_mem_bp" },
	{ DAMONCTL_FEAT_ACTION_COLLAPSE, "action", "collapse" },
	{ DAMONCTL_FEAT_TARGET_NID, "action", "migrate_hot" },
	{ DAMONCTL_FEAT_GOAL_METRICS, "quotas/goals/0/target_metric", "some_mem_psi_us" },
	{ DAMONCTL_FEAT_GOAL_NID, "quotas/goals/0/target_metric", "node_mem_used_bp" },
	{ DAMONCTL_FEAT_GOAL_PATH, "quotas/goals/0/target_metric", "node_memcg_used_bp" },
	{ DAMONCTL_FEAT_SNAPSHOTS, "quotas/goals/0/target_metric", "active_mem_bp" },
	{ DAMONCTL_FEAT_FILTER_YOUNG, "filters/0/type", "young" },
	{ DAMONCTL_FEAT_GOAL_TUNER, "quotas/goal_tuner", "temporal" },
};

DAMONCTL_API int damonctl_features_probe(struct damonctl_ctx *ctx, struct damonctl_features *f,
					 unsigned int kdamond)
{
	struct damonctl_kdamond *k;
	struct evidence ev;
	char rel[PATH_MAX], orig[256];
	unsigned int i;
	int r, running;

	running = damonctl_kdamond_is_running(ctx, kdamond, NULL);
	if (running < 0)
		return running;
	if (running)
		return -EBUSY;

	/* The files of the caller's directories add to what was seen. */
	r = damonctl_kdamond_read(ctx, kdamond, &k);
	if (r)
		return r;
	ev = f->ev;
	walk(&ev, CDOBJ(k));
	damonctl_kdamond_free(k);
	decide(f, &ev);

	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (f->has[probes[i].feat] != DAMONCTL_UNKNOWN)
			continue;
		snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/schemes/0/%s", kdamond,
			 probes[i].file);
		if (damonctl_read(ctx, rel, orig, sizeof(orig)))
			continue;	/* no such directory here: stays unknown */
		r = damonctl_write(ctx, rel, probes[i].keyword);
		if (r == -EINVAL) {
			saw(&ev, probes[i].feat, false);
			decide(f, &ev);
			damonctl_clear_error(ctx);
			continue;
		}
		if (r)
			return r;
		saw(&ev, probes[i].feat, true);
		decide(f, &ev);
		r = damonctl_write(ctx, rel, orig);
		if (r)
			return r;
	}
	return 0;
}

DAMONCTL_API int damonctl_features_probe_fresh(struct damonctl_ctx *ctx,
					       struct damonctl_features *f)
{
	static const char *const optional_dirs[] = {
		"contexts/0/schemes/0/quotas/goals/nr_goals",
		"contexts/0/schemes/0/filters/nr_filters",
		"contexts/0/schemes/0/core_filters/nr_filters",
		"contexts/0/schemes/0/ops_filters/nr_filters",
		"contexts/0/schemes/0/dests/nr_dests",
		/* a probe directory shows whether it has a weight file */
		"contexts/0/monitoring_attrs/probes/nr_probes",
	};
	struct damonctl_tree *have, *want;
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct dctl_txn txn;
	unsigned int i, idx;
	int r, r2;

	r = damonctl_tree_read(ctx, &have);
	if (r)
		return r;
	for (i = 0; i < damonctl_tree_nr_kdamonds(have); i++) {
		if (!strcmp(damonctl_kdamond_get_str(damonctl_tree_kdamond(have, i),
						     DAMONCTL_KDAMOND_STATE), "on")) {
			damonctl_tree_free(have);
			return -EBUSY;	/* no kdamond can be added while one runs */
		}
	}
	want = damonctl_tree_dup(have);
	k = want ? damonctl_tree_add_kdamond(want) : NULL;
	c = k ? damonctl_kdamond_add_context(k) : NULL;
	if (!c || !damonctl_context_add_scheme(c) || !damonctl_context_add_target(c)) {
		damonctl_tree_free(want);
		damonctl_tree_free(have);
		return -ENOMEM;
	}
	idx = damonctl_tree_nr_kdamonds(want) - 1;
	r = dctl_txn_begin_start(&txn, ctx, have, &idx, 1);
	if (r) {
		damonctl_tree_free(want);
		damonctl_tree_free(have);
		return r;
	}
	r = damonctl_tree_stage(ctx, want, have);
	for (i = 0; !r && i < ARRAY_SIZE(optional_dirs); i++) {
		char rel[256];

		snprintf(rel, sizeof(rel), "kdamonds/%u/%s", idx, optional_dirs[i]);
		r = damonctl_write(ctx, rel, "1");
		if (r == -ENOENT) {	/* this kernel lacks the directory: that is the answer */
			damonctl_clear_error(ctx);
			r = 0;
		}
	}
	if (!r)
		r = damonctl_features_probe(ctx, f, idx);
	/* whatever happened, the tree goes back as it was */
	dctl_txn_event(&txn, DAMONCTL_TXN_UNDO);
	r2 = damonctl_tree_restore(ctx, have);
	dctl_txn_end(&txn, !r2);
	damonctl_tree_free(want);
	damonctl_tree_free(have);
	return r ? r : r2;
}
