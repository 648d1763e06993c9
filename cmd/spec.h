/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Context and scheme settings given as command-line options, shared by `start` (applied to
 * a fresh kdamond, with defaults) and `tune` (applied to a running one, only what was given).
 */
#ifndef DAMONC_SPEC_H
#define DAMONC_SPEC_H

#include "damonc.h"

#define SPEC_MAX_GOALS 8
#define SPEC_MAX_FILTERS 16
#define SPEC_MAX_DESTS 8
#define SPEC_MAX_SCHEMES 8

/* An access probe (7.2): its filters, none for every access. */
#define SPEC_MAX_PROBE_FILTERS 8
struct probe_spec {
	unsigned int nr;
	struct damonctl_filter_spec f[SPEC_MAX_PROBE_FILTERS];
};

/* Each field counts only when its `has_` flag is set. */
struct spec {
	/* context */
	const char *ops;
	bool has_sample, has_aggr, has_update, has_nr_regions, has_intervals_goal, has_refresh;
	bool has_pause, pause, has_addr_unit;
	uint64_t addr_unit;
	uint64_t sample_us, aggr_us, update_us, nr_regions_min, nr_regions_max, refresh_ms;
	uint64_t ig_access_bp, ig_aggrs, ig_min_sample_us, ig_max_sample_us;
	/* scheme */
	const char *action;
	bool has_sz_min, has_sz_max, has_rate, has_age_min, has_age_max, has_apply_interval;
	uint64_t sz_min, sz_max, rate_min_bp, rate_max_bp, age_min_us, age_max_us;
	uint64_t apply_interval_us;
	bool has_quota_ms, has_quota_bytes, has_quota_reset, has_weights;
	uint64_t quota_ms, quota_bytes, quota_reset_ms;
	unsigned int weights[3];	/* size, accesses, age (permil) */
	unsigned int nr_goals;
	struct damonctl_goal_spec goals[SPEC_MAX_GOALS];
	const char *tuner;
	unsigned int nr_filters;
	bool filters_given;
	struct damonctl_filter_spec filters[SPEC_MAX_FILTERS];
	bool has_wmarks;
	char wmarks_metric[24];
	uint64_t wmarks_interval_us, wmarks_high, wmarks_mid, wmarks_low;
	bool has_target_nid;
	int target_nid;
	unsigned int nr_dests;
	unsigned int dest_id[SPEC_MAX_DESTS], dest_weight[SPEC_MAX_DESTS];
	bool has_fail_charge;
	unsigned int fail_num, fail_denom;
	bool has_max_snapshots;
	uint64_t max_snapshots;
};

/* Option keys (>= 400) and tables. */
extern const struct opt spec_context_opts[];
extern const struct opt spec_scheme_opts[];
/* 0 if @key was not a spec option, 1 if taken, or EXIT_USAGE. */
int spec_parse(struct cli *cli, struct spec *sp, int key, const char *arg);
/*
 * The options of one command line: the context and one or more schemes. A repeated
 * --action begins a new scheme; the scheme options after it are that scheme's, those before
 * the first --action the first scheme's. Context options always go to sp[0], whose context
 * part is the only one read. A scheme option given twice for one scheme is an error, unless
 * it is repeatable (--goal, --goal-bp, --filter, --dest).
 */
struct spec_line {
	unsigned int max;	/* schemes allowed: SPEC_MAX_SCHEMES, or 1 (tune) */
	unsigned int nr;	/* schemes begun: 1 + the --action options after the first */
	uint32_t given[SPEC_MAX_SCHEMES];	/* scheme options each scheme has, by key */
	struct spec sp[SPEC_MAX_SCHEMES];
};
/* As spec_parse, for @l (whose max is set; 0 reads as SPEC_MAX_SCHEMES). */
int spec_line_parse(struct cli *cli, struct spec_line *l, int key, const char *arg);
/* Whether any scheme or context option was given (for -c exclusivity). */
bool spec_any_scheme(const struct spec *sp);
bool spec_any_context(const struct spec *sp);

/* Apply context options to @c. */
int spec_apply_context(struct cli *cli, const struct spec *sp, struct damonctl_context *c,
		       const struct damonctl_features *f);
/*
 * Apply scheme options to @s, which belongs to a context with the given intervals. With
 * @fresh, unset fields get damonc's defaults (e.g. hot regions for `collapse`).
 */
int spec_apply_scheme(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s,
		      uint64_t sample_us, uint64_t aggr_us, const struct damonctl_features *f,
		      bool fresh);
/* One --probe value into @p: "all", or FILTER[;FILTER...], each spelt as --filter's
 * (allow|reject:[!]TYPE[:ARG]) with the probe filter types, anon and memcg:PATH. */
int spec_parse_probe(struct cli *cli, const char *arg, struct probe_spec *p);
/* A scheme filter as --filter takes it (allow|reject:[!]TYPE[:ARG]), for option --@opt: 0, or
 * an exit code after saying what was wrong. */
int spec_parse_filter(struct cli *cli, const char *opt, const char *arg,
		      struct damonctl_filter_spec *f);
/* Append probe @p to @c. */
int spec_apply_probe(struct cli *cli, const struct probe_spec *p, struct damonctl_context *c);

#endif
