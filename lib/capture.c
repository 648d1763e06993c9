// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Live capture of a kdamond: opening it (the kdamond checked, the capture scheme installed
 * or the trace set up) and closing it (the kdamond's own configuration put back). Taking
 * the items is capture_tick.c's.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture_internal.h"
#include "ops_filters.h"

#define DEFAULT_INTERVAL_US 1000000

uint64_t dctl_capture_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t dctl_capture_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

DAMONCTL_API enum damonctl_capture_method
damonctl_capture_method_for(struct damonctl_ctx *ctx, enum damonctl_capture_method m)
{
	if (m != DAMONCTL_CAPTURE_AUTO)
		return m;
	return dctl_trace_src_available(ctx) ? DAMONCTL_CAPTURE_TRACE :
	       DAMONCTL_CAPTURE_TRIED_REGIONS;
}

DAMONCTL_API bool damonctl_capture_pattern_all(const struct damonctl_scheme *s,
					       unsigned int max_filters)
{
	static const enum damonctl_filter_dir dirs[] = { DAMONCTL_FILTERS_LEGACY,
		DAMONCTL_FILTERS_CORE, DAMONCTL_FILTERS_OPS };
	unsigned int d, nr = 0;

	if (strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "stat") ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX) < UINT32_MAX ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX) < UINT32_MAX ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX) < UINT32_MAX ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES) ||
	    damonctl_scheme_nr_goals(s) ||
	    strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_WMARKS_METRIC), "none"))
		return false;
	for (d = 0; d < 3; d++)
		nr += damonctl_scheme_nr_filters(s, dirs[d]);
	return nr <= max_filters;
}

static int set_capture_pattern(struct damonctl_scheme *s, uint64_t aggr_us, bool apply_iv)
{
	int r = damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, "stat");

	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MIN, 0);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MAX, UINT64_MAX);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN, 0);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX, UINT32_MAX);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MIN, 0);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MAX, UINT32_MAX);
	/* apply once per aggregation: full counts, and the least work for the kernel */
	if (!r && apply_iv)
		r = damonctl_scheme_set(s, DAMONCTL_SCHEME_APPLY_INTERVAL_US, aggr_us);
	return r;
}

/* ---- snapshot filters ---- */

/* The directories a model scheme's snapshot filters may be in, in the kernel's order of
 * evaluation: a kernel installs those of filters/ after those of ops_filters
 * (core_filters/ is refused by dctl_capture_filters_count). */
static const enum damonctl_filter_dir filter_dirs[] = {
	DAMONCTL_FILTERS_OPS, DAMONCTL_FILTERS_LEGACY,
};

int dctl_capture_filters_count(const struct damonctl_scheme *s)
{
	const struct damonctl_filter *flt;
	unsigned int d, i;
	int n = 0;

	if (!s)
		return 0;
	if (damonctl_scheme_nr_filters(s, DAMONCTL_FILTERS_CORE))
		return -EINVAL;
	for (d = 0; d < ARRAY_SIZE(filter_dirs); d++) {
		damonctl_for_each_filter(s, filter_dirs[d], flt, i) {
			/* the core layer's would make sz_filter_passed something else: an allow
			 * one lets the memory it matches skip the operations layer's filters */
			if (dctl_filter_type_is_core(damonctl_filter_get_str(flt,
									     DAMONCTL_FILTER_TYPE)))
				return -EINVAL;
			n++;
		}
	}
	return n;
}

int dctl_capture_filters_supported(const struct damonctl_scheme *s,
				   const struct damonctl_features *f, const char *ops)
{
	const struct damonctl_filter *flt;
	unsigned int d, i;

	/* allow and sz_filter_passed came together (6.14) */
	if (damonctl_features_has(f, DAMONCTL_FEAT_FILTER_ALLOW) != DAMONCTL_YES)
		return -EOPNOTSUPP;
	/* vaddr's stat action counted no filter-passed bytes until 6.18 ("mm/damon/vaddr:
	 * support stat-purpose DAMOS filters"): every region would say 0. That change has no
	 * file of its own; addr_unit came in the same release. */
	if (strcmp(ops, "paddr") &&
	    damonctl_features_has(f, DAMONCTL_FEAT_ADDR_UNIT) != DAMONCTL_YES)
		return -EOPNOTSUPP;
	for (d = 0; d < ARRAY_SIZE(filter_dirs); d++)
		damonctl_for_each_filter(s, filter_dirs[d], flt, i)
			if (damonctl_features_has_keyword(f, DAMONCTL_KW_FILTER_TYPE,
							  damonctl_filter_get_str(flt,
							  DAMONCTL_FILTER_TYPE)) == DAMONCTL_NO)
				return -EOPNOTSUPP;
	return 0;
}

/* @src's filters appended to @dst's directory @to, in order, with the files their types
 * use (a kernel that lacks min and max must see their defaults). */
static int copy_filters(struct damonctl_scheme *dst, const struct damonctl_scheme *src,
			enum damonctl_filter_dir to)
{
	const struct damonctl_filter *flt;
	unsigned int d, i;

	for (d = 0; d < ARRAY_SIZE(filter_dirs); d++) {
		damonctl_for_each_filter(src, filter_dirs[d], flt, i) {
			const char *type = damonctl_filter_get_str(flt, DAMONCTL_FILTER_TYPE);
			struct damonctl_filter *c = damonctl_scheme_add_filter(dst, to);
			int r;

			if (!c)
				return -ENOMEM;
			r = damonctl_filter_set_str(c, DAMONCTL_FILTER_TYPE, type);
			r = r ? r : damonctl_filter_set(c, DAMONCTL_FILTER_MATCHING,
							damonctl_filter_get(flt, DAMONCTL_FILTER_MATCHING));
			r = r ? r : damonctl_filter_set(c, DAMONCTL_FILTER_ALLOW,
							damonctl_filter_get(flt, DAMONCTL_FILTER_ALLOW));
			if (!r && !strcmp(type, "memcg"))
				r = damonctl_filter_set_str(c, DAMONCTL_FILTER_MEMCG_PATH,
							    damonctl_filter_get_str(flt,
							    DAMONCTL_FILTER_MEMCG_PATH));
			if (!r && !strcmp(type, "hugepage_size")) {
				r = damonctl_filter_set(c, DAMONCTL_FILTER_MIN,
							damonctl_filter_get(flt, DAMONCTL_FILTER_MIN));
				r = r ? r : damonctl_filter_set(c, DAMONCTL_FILTER_MAX,
								damonctl_filter_get(flt,
								DAMONCTL_FILTER_MAX));
			}
			if (r)
				return r;
		}
	}
	return 0;
}

int dctl_capture_add_filtered_schemes(struct damonctl_context *c, const struct damonctl_features *f,
				      const struct damonctl_scheme *filters)
{
	/* where this kernel takes the operations layer's filters (anon's, as any of their
	 * types): ops_filters from 6.15, else filters/, after the target filter (6.14: reject,
	 * so that memory of the target goes on to them) */
	enum damonctl_filter_dir to = damonctl_filter_dir_for("anon", f);
	unsigned int first = damonctl_context_nr_schemes(c), i;
	int n = damonctl_capture_add_schemes(c, f);

	for (i = 0; n > 0 && filters && i < (unsigned int)n; i++) {
		int r = copy_filters(damonctl_context_scheme(c, first + i), filters, to);

		if (r)
			return r;
	}
	return n;
}

DAMONCTL_API int damonctl_capture_add_schemes(struct damonctl_context *c,
					      const struct damonctl_features *f)
{
	unsigned int nt = damonctl_context_nr_targets(c), n, i;
	/* one scheme per target where a target filter can tell them apart: tried_regions
	 * lists every target's regions one after the other, without saying whose */
	bool per_target = nt > 1 && nt <= DCTL_MAX_CAPTURE_SCHEMES &&
		damonctl_features_has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET) == DAMONCTL_YES;
	bool apply_iv = damonctl_features_has(f, DAMONCTL_FEAT_APPLY_INTERVAL) == DAMONCTL_YES;
	uint64_t aggr_us = damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US);

	n = per_target ? nt : 1;
	for (i = 0; i < n; i++) {
		struct damonctl_scheme *s = damonctl_context_add_scheme(c);
		int r = s ? set_capture_pattern(s, aggr_us, apply_iv) : -ENOMEM;

		if (!r && per_target)
			r = damonctl_scheme_keep_target(s, f, i);
		if (r)
			return r;
	}
	return (int)n;
}

/* Capture schemes [@first, @first + @n) of a context with @nt targets, as
 * damonctl_capture_add_schemes made them. */
static void use_capture_schemes(struct damonctl_capture *c, unsigned int first, unsigned int n,
				unsigned int nt)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		c->cs[i].index = first + i;
		c->cs[i].target = n > 1 ? (int32_t)i : nt == 1 ? 0 : -1;
	}
	c->nr_cs = n;
}

static int install(struct damonctl_capture *c, const struct damonctl_kdamond *orig_k)
{
	struct damonctl_tree *want = damonctl_tree_dup(c->orig);
	struct damonctl_kdamond *wk;
	struct damonctl_context *wc;
	int r;

	if (!want)
		return -ENOMEM;
	wk = damonctl_tree_kdamond(want, c->kdamond);
	wc = damonctl_kdamond_context(wk, 0);
	r = dctl_capture_add_filtered_schemes(wc, c->f, c->filters);
	if (r < 0) {
		damonctl_tree_free(want);
		return r;
	}
	use_capture_schemes(c, c->nr_user_schemes, (unsigned int)r,
			    damonctl_context_nr_targets(wc));
	if (c->filters) {
		/* what the capture schemes got, the target filter left out */
		c->filters_json = dctl_ops_filters_of_scheme(damonctl_context_scheme(wc,
							c->nr_user_schemes));
		if (!c->filters_json) {
			damonctl_tree_free(want);
			return errno ? -errno : -EINVAL;
		}
	}
	if (c->state_dir) {
		r = dctl_capture_guard_write(c->state_dir, c->kdamond, c->kdamond_pid,
					     c->nr_user_schemes, c->nr_cs);
		if (r) {
			dctl_set_error(c->ctx, r, true, c->state_dir, "capture note");
			damonctl_tree_free(want);
			return r;
		}
	}
	/* a failed commit puts the staged files back as they were */
	r = damonctl_kdamond_commit(c->ctx, wk, orig_k, DAMONCTL_COMMIT_F_FULL, NULL);
	damonctl_tree_free(want);
	if (r) {
		dctl_capture_guard_remove(c->state_dir, c->kdamond);
		return r;
	}
	c->installed = true;
	return 0;
}

void dctl_capture_read_intervals(struct damonctl_capture *c)
{
	char rel[128], buf[32];
	uint64_t v;

	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/monitoring_attrs/intervals/sample_us",
		 c->kdamond);
	if (!damonctl_read(c->ctx, rel, buf, sizeof(buf)) && !damonctl_parse_u64(buf, &v))
		c->sample_us = v;
	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/monitoring_attrs/intervals/aggr_us",
		 c->kdamond);
	if (!damonctl_read(c->ctx, rel, buf, sizeof(buf)) && !damonctl_parse_u64(buf, &v))
		c->aggr_us = v;
	damonctl_clear_error(c->ctx);
}

/* A refusal of the capture's own: no file access to name. */
static int refuse(struct damonctl_capture *c, int err)
{
	damonctl_clear_error(c->ctx);
	return err;
}

/* Whether kdamond @k can be captured as asked: 0 or a refusal (see damonctl_capture_open). */
static int check_kdamond(struct damonctl_capture *c, const struct damonctl_kdamond *k)
{
	if (strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on"))
		return refuse(c, -ESRCH);
	if (c->o.method == DAMONCTL_CAPTURE_TRACE && !dctl_trace_src_available(c->ctx))
		return refuse(c, -EOPNOTSUPP);
	c->o.method = damonctl_capture_method_for(c->ctx, c->o.method);
	if (c->o.method == DAMONCTL_CAPTURE_TRIED_REGIONS && !c->may_write)
		return refuse(c, -EPERM);
	if (damonctl_kdamond_nr_contexts(k) != 1)
		return refuse(c, -EINVAL);
	return 0;
}

/* The kdamond's monitoring as found: intervals (the tuned ones when they can be read
 * back), operations, targets and schemes. */
static int take_monitoring(struct damonctl_capture *c, struct damonctl_context *ctx0)
{
	struct damonctl_target *t;
	unsigned int i;

	c->sample_us = damonctl_context_get(ctx0, DAMONCTL_CONTEXT_SAMPLE_US);
	c->aggr_us = damonctl_context_get(ctx0, DAMONCTL_CONTEXT_AGGR_US);
	c->update_us = damonctl_context_get(ctx0, DAMONCTL_CONTEXT_UPDATE_US);
	c->tuned = damonctl_context_has(ctx0, DAMONCTL_CONTEXT_GOAL_AGGRS) &&
		damonctl_context_get(ctx0, DAMONCTL_CONTEXT_GOAL_AGGRS) != 0;
	if (c->tuned && c->may_write) {
		/* the tuned values, so that our commit does not reset them */
		damonctl_kdamond_cmd(c->ctx, c->kdamond, DAMONCTL_CMD_UPDATE_TUNED_INTERVALS);
		damonctl_clear_error(c->ctx);
		dctl_capture_read_intervals(c);
		damonctl_context_set(ctx0, DAMONCTL_CONTEXT_SAMPLE_US, c->sample_us);
		damonctl_context_set(ctx0, DAMONCTL_CONTEXT_AGGR_US, c->aggr_us);
	}
	c->vaddr = strcmp(damonctl_context_get_str(ctx0, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
	c->addr_unit = !c->vaddr && damonctl_context_has(ctx0, DAMONCTL_CONTEXT_ADDR_UNIT) ?
		       damonctl_context_get(ctx0, DAMONCTL_CONTEXT_ADDR_UNIT) : 1;
	damonctl_for_each_target(ctx0, t, i)
		if (c->nr_pids < DCTL_CAPTURE_MAX_PIDS)
			c->pids[c->nr_pids++] = (int)damonctl_target_get_int(t,
									   DAMONCTL_TARGET_PID);
	c->nr_user_schemes = damonctl_context_nr_schemes(ctx0);
	if (c->nr_user_schemes > DCTL_MAX_USER_SCHEMES)
		return refuse(c, -E2BIG);
	if (c->o.builtin && (c->o.builtin > c->nr_user_schemes ||
			     c->o.builtin > DCTL_MAX_CAPTURE_SCHEMES))
		return refuse(c, -ESTALE);
	return 0;
}

/* The kdamond's schemes: their actions (for STATS), and a capture scheme among them (one
 * its start put there, or one of its own that shows every region) to use as it is; with
 * snapshot filters, none is: the capture installs its own. */
static void take_schemes(struct damonctl_capture *c, struct damonctl_context *ctx0)
{
	struct damonctl_scheme *s;
	unsigned int i;

	if (c->o.builtin && !c->filters && !c->of_scheme)
		use_capture_schemes(c, 0, c->o.builtin, damonctl_context_nr_targets(ctx0));
	damonctl_for_each_scheme(ctx0, s, i) {
		snprintf(c->user_actions[i], sizeof(c->user_actions[i]), "%s",
			 damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION));
		if (!c->nr_cs && !c->filters && damonctl_capture_pattern_all(s, 0)) {
			c->cs[0].index = i;
			c->cs[0].target = damonctl_context_nr_targets(ctx0) == 1 ? 0 : -1;
			c->nr_cs = 1;
		}
	}
}

/* damo's --tried_regions_of: the kdamond's scheme o.scheme is the one captured, as it is */
static int take_own_scheme(struct damonctl_capture *c, struct damonctl_context *ctx0)
{
	if (c->o.scheme >= c->nr_user_schemes)
		return refuse(c, -ENOENT);
	c->cs[0].index = c->o.scheme;
	c->cs[0].target = damonctl_context_nr_targets(ctx0) == 1 ? 0 : -1;
	c->nr_cs = 1;
	c->filters_json = dctl_ops_filters_of_scheme(damonctl_context_scheme(ctx0, c->o.scheme));
	return !c->filters_json && errno ? -errno : 0;
}

/* The CONFIG item: the monitoring, without the capture schemes its start put there. */
static int take_config(struct damonctl_capture *c, const struct damonctl_kdamond *k)
{
	struct damonctl_tree *one = damonctl_tree_new();
	struct damonctl_kdamond *kc = one ? damonctl_tree_add_kdamond_copy(one, k) : NULL;
	unsigned int i;

	for (i = 0; kc && i < c->o.builtin; i++)
		damonctl_context_remove_scheme(damonctl_kdamond_context(kc, 0), 0);
	if (kc)
		c->config_json = damonctl_tree_to_json(one, DAMONCTL_JSON_CONFIG);
	damonctl_tree_free(one);
	return c->config_json ? 0 : -ENOMEM;
}

/* The pid the capture ends with, watched through a pidfd where there is one. */
static void watch_end_pid(struct damonctl_capture *c)
{
	c->end_pidfd = -1;
#ifdef SYS_pidfd_open
	if (c->o.end_pid > 0)
		c->end_pidfd = (int)syscall(SYS_pidfd_open, c->o.end_pid, 0);
#endif
}

static void capture_free(struct damonctl_capture *c)
{
	unsigned int i;

	if (c->end_pidfd >= 0)
		close(c->end_pidfd);
	for (i = 0; i < c->nr_cs; i++) {
		free(c->cs[i].regions);
		free(c->cs[i].hits.hits);
	}
	damonctl_features_free(c->f);
	damonctl_tree_free(c->orig);
	free(c->filters_json);
	free(c->config_json);
	free(c->footprint_json);
	free(c->state_dir);
	free(c);
}

/* Everything open does once the options are in @c. */
static int setup(struct damonctl_capture *c)
{
	struct damonctl_kdamond *k;
	struct damonctl_context *ctx0;
	int r = damonctl_tree_read_flags(c->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &c->orig);

	if (r)
		return r;
	if (c->kdamond >= damonctl_tree_nr_kdamonds(c->orig))
		return refuse(c, -ENOENT);
	k = damonctl_tree_kdamond(c->orig, c->kdamond);
	r = check_kdamond(c, k);
	if (r)
		return r;
	c->kdamond_pid = (int)damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID);
	r = damonctl_features_from_tree(c->ctx, c->orig, &c->f);
	if (r)
		return r;
	if (c->o.method == DAMONCTL_CAPTURE_TRIED_REGIONS &&
	    damonctl_features_has(c->f, DAMONCTL_FEAT_TRIED_REGIONS) != DAMONCTL_YES)
		return refuse(c, -EOPNOTSUPP);
	ctx0 = damonctl_kdamond_context(k, 0);
	if (c->filters) {
		/* before anything is written (take_monitoring may ask for tuned intervals) */
		r = dctl_capture_filters_supported(c->filters, c->f,
						   damonctl_context_get_str(ctx0,
									    DAMONCTL_CONTEXT_OPERATIONS));
		if (!r) {
			r = dctl_check_filters_memcg(c->ctx, c->filters);
			if (r == -ENOENT)
				return r;	/* the last error names the cgroup */
		}
		if (r)
			return refuse(c, r);
	}
	r = take_monitoring(c, ctx0);
	if (r)
		return r;
	if (c->of_scheme) {
		r = take_own_scheme(c, ctx0);
		if (r)
			return r;
	}
	take_schemes(c, ctx0);
	r = take_config(c, k);
	if (r)
		return r;
	if (c->o.method == DAMONCTL_CAPTURE_TRACE)
		return dctl_trace_src_open(c->ctx, c->kdamond_pid, c->o.trace_reader,
					   damonctl_context_nr_probes(ctx0) > 0, &c->trace);
	return c->nr_cs ? 0 : install(c, k);
}

DAMONCTL_API int damonctl_capture_open(struct damonctl_ctx *ctx, unsigned int kdamond,
				       const struct damonctl_capture_opts *opts,
				       struct damonctl_capture **out)
{
	struct damonctl_capture *c;
	int r;

	if (!ctx || !opts || !out || opts->sz < sizeof(size_t) ||
	    (unsigned int)opts->method > DAMONCTL_CAPTURE_TRACE)
		return -EINVAL;
	if (opts->sz > offsetof(struct damonctl_capture_opts, trace_reader) &&
	    (unsigned int)opts->trace_reader > DAMONCTL_CAPTURE_READER_RAW)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ctx = ctx;
	/* the caller's struct may be older (shorter) or newer (longer) than ours */
	memcpy(&c->o, opts, opts->sz < sizeof(c->o) ? opts->sz : sizeof(c->o));
	c->o.sz = sizeof(c->o);
	/* in nanoseconds, added to clocks: a year at most, never a wrap to a tiny interval */
	if (c->o.interval_us > DAMONCTL_WAIT_MAX_US || c->o.duration_us > DAMONCTL_WAIT_MAX_US) {
		free(c);
		return -ERANGE;
	}
	/* snapshot filters: checked before the kernel is looked at; only tried regions have
	 * sz_filter_passed (no trace event carries it), so AUTO takes them */
	r = opts->sz >= DCTL_SZ_TO(struct damonctl_capture_opts, snapshot_filters) ?
	    dctl_capture_filters_count(c->o.snapshot_filters) : 0;
	if (r > 0 && c->o.method == DAMONCTL_CAPTURE_TRACE)
		r = -EINVAL;
	c->of_scheme = opts->sz >= DCTL_SZ_TO(struct damonctl_capture_opts, scheme) &&
		       c->o.of_scheme;
	/* a scheme's tried regions: no scheme of ours to put filters on, no trace event */
	if (c->of_scheme && (r > 0 || c->o.method == DAMONCTL_CAPTURE_TRACE))
		r = -EINVAL;
	if (c->of_scheme)
		c->o.method = DAMONCTL_CAPTURE_TRIED_REGIONS;
	if (r < 0) {
		damonctl_clear_error(ctx);
		free(c);
		return r;
	}
	if (r > 0) {
		c->filters = c->o.snapshot_filters;
		c->o.method = DAMONCTL_CAPTURE_TRIED_REGIONS;
	}
	c->o.snapshot_filters = NULL;
	c->kdamond = kdamond;
	c->may_write = c->o.allow_foreign;
	c->state_dir = c->o.state_dir ? strdup(c->o.state_dir) : NULL;
	c->o.state_dir = NULL;
	watch_end_pid(c);
	r = opts->state_dir && !c->state_dir ? -ENOMEM : setup(c);
	c->filters = NULL;	/* the caller's: not kept */
	if (r) {
		capture_free(c);
		return r;
	}
	c->start_ns = dctl_capture_now_ns();
	c->next_tick_ns = dctl_capture_mono_ns();
	if (!c->o.interval_us)
		c->o.interval_us = DEFAULT_INTERVAL_US;
	/* the CONFIG item goes first */
	c->pending[0].type = DAMONCTL_REC_CONFIG;
	c->pending[0].time_ns = c->start_ns;
	c->pending[0].json = c->config_json;
	c->nr_pending = 1;
	*out = c;
	return 0;
}

/* Put kdamond's configuration back as found: committed, or only staged when it stopped or
 * was restarted meanwhile (or a target exited, and no commit may name it). */
static int restore(struct damonctl_capture *c)
{
	struct damonctl_kdamond *now = NULL, *orig = damonctl_tree_kdamond(c->orig, c->kdamond);
	int r = damonctl_kdamond_read(c->ctx, c->kdamond, &now);

	if (!r && dctl_capture_kdamond_gone(c)) {
		r = damonctl_kdamond_stage(c->ctx, orig, now);
	} else if (!r) {
		r = damonctl_kdamond_commit(c->ctx, orig, now, DAMONCTL_COMMIT_F_FULL, NULL);
		if (r == -ECANCELED || r == -ESRCH || (r && dctl_capture_kdamond_gone(c))) {
			if (r == -ESRCH && !dctl_capture_kdamond_gone(c))
				dctl_log(c->ctx, DAMONCTL_LOG_WARN, "kdamond %u keeps the capture "
					 "scheme until its next commit: a target of it exited (its "
					 "files are put back)", c->kdamond);
			damonctl_clear_error(c->ctx);
			damonctl_kdamond_free(now);
			now = NULL;
			r = damonctl_kdamond_read(c->ctx, c->kdamond, &now);
			if (!r)
				r = damonctl_kdamond_stage(c->ctx, orig, now);
		}
	}
	damonctl_kdamond_free(now);
	return r;
}

DAMONCTL_API int damonctl_capture_close(struct damonctl_capture *c)
{
	int r = 0;

	if (!c)
		return 0;
	dctl_trace_src_close(c->trace);
	/* drop the region directories the snapshots made the kernel create */
	if (!c->trace)
		damonctl_kdamond_cmd(c->ctx, c->kdamond, DAMONCTL_CMD_CLEAR_SCHEMES_TRIED_REGIONS);
	damonctl_clear_error(c->ctx);
	if (c->installed) {
		r = restore(c);
		if (!r)
			dctl_capture_guard_remove(c->state_dir, c->kdamond);
	}
	capture_free(c);
	return r;
}

DAMONCTL_API enum damonctl_capture_method
damonctl_capture_get_method(const struct damonctl_capture *c)
{
	return c->trace ? DAMONCTL_CAPTURE_TRACE : DAMONCTL_CAPTURE_TRIED_REGIONS;
}

DAMONCTL_API unsigned int damonctl_capture_kdamond(const struct damonctl_capture *c)
{
	return c->kdamond;
}
