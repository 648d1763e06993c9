// SPDX-License-Identifier: GPL-2.0-or-later
/* Context and scheme options (see spec.h): parsing, defaults and applying them to the model. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

enum {
	K_OPS = 400, K_SAMPLE, K_AGGR, K_UPDATE, K_NR_REGIONS, K_INTERVALS_GOAL, K_REFRESH,
	K_PAUSE, K_RESUME, K_ACTION, K_MIN_SIZE, K_MAX_SIZE, K_ACCESS_RATE, K_MIN_AGE, K_MAX_AGE,
	K_APPLY_INTERVAL, K_QUOTA_TIME, K_QUOTA_SIZE, K_QUOTA_RESET, K_QUOTA_WEIGHTS, K_GOAL,
	K_GOAL_BP, K_GOAL_TUNER, K_FILTER, K_WMARKS, K_TARGET_NID, K_DEST, K_FAIL_CHARGE,
	K_MAX_SNAPSHOTS, K_ADDR_UNIT,
};

const struct opt spec_context_opts[] = {
	{ "ops", K_OPS, OV_OPS, "OPS", "monitoring operations: vaddr (default), fvaddr or paddr" },
	{ "sample", K_SAMPLE, OV_TIME, "TIME", "sampling interval (default 5ms)" },
	{ "aggr", K_AGGR, OV_TIME, "TIME", "aggregation interval (default 100ms)" },
	{ "update", K_UPDATE, OV_TIME, "TIME", "operations update interval (default 60s)" },
	{ "nr-regions", K_NR_REGIONS, OV_RANGE, "MIN,MAX",
	  "bounds on the number of regions (default 10,1000)" },
	{ "intervals-goal", K_INTERVALS_GOAL, OV_STRING, "ACCESS%,AGGRS,MIN,MAX|auto",
	  "auto-tune the intervals for ACCESS% of samples accessed ('auto': 4%,3,5ms,10s)" },
	{ "refresh", K_REFRESH, OV_TIME, "TIME",
	  "let the kernel refresh stats every TIME (default 1s where supported; 0: never)" },
	{ "pause", K_PAUSE, OV_NONE, NULL,
	  "the context monitors and applies nothing, but takes online commits (7.2)" },
	{ "resume", K_RESUME, OV_NONE, NULL, "a paused context goes on (7.2)" },
	{ "addr-unit", K_ADDR_UNIT, OV_SIZE, "SIZE",
	  "paddr: DAMON's addresses are in units of SIZE bytes (6.18; --regions too)" },
	{ 0 },
};

const struct opt spec_scheme_opts[] = {
	{ "action", K_ACTION, OV_ACTION, "ACTION",
	  "what to do with matching regions: collapse, pageout, hugepage, stat, ..." },
	{ "min-size", K_MIN_SIZE, OV_SIZE, "SIZE", "only regions at least SIZE big" },
	{ "max-size", K_MAX_SIZE, OV_SIZE, "SIZE", "only regions at most SIZE big" },
	{ "access-rate", K_ACCESS_RATE, OV_RANGE, "MIN%[,MAX%]",
	  "only regions whose samples were accessed MIN% to MAX% of the time" },
	{ "min-age", K_MIN_AGE, OV_TIME, "TIME", "only regions that kept their access rate at "
	  "least TIME" },
	{ "max-age", K_MAX_AGE, OV_TIME, "TIME", "only regions that kept it at most TIME" },
	{ "apply-interval", K_APPLY_INTERVAL, OV_TIME, "TIME",
	  "apply the action every TIME (default: every aggregation)" },
	{ "quota-time", K_QUOTA_TIME, OV_TIME, "TIME", "spend at most TIME per quota interval" },
	{ "quota-size", K_QUOTA_SIZE, OV_SIZE, "SIZE", "act on at most SIZE per quota interval" },
	{ "quota-reset", K_QUOTA_RESET, OV_TIME, "TIME", "quota interval (default 1s)" },
	{ "quota-weights", K_QUOTA_WEIGHTS, OV_STRING, "SIZE,ACCESSES,AGE",
	  "priority weights in permil when the quota is short" },
	{ "goal", K_GOAL, OV_GOAL, "METRIC=VALUE[,nid=N][,path=P]",
	  "tune the quota to reach VALUE of METRIC (repeatable)" },
	{ "goal-bp", K_GOAL_BP, OV_BP, "N",
	  "goal: huge pages are N/10000 of used memory (hugepage_mem_bp)" },
	{ "goal-tuner", K_GOAL_TUNER, OV_TUNER, "TUNER", "consist or temporal" },
	{ "filter", K_FILTER, OV_FILTER, "allow|reject:[!]TYPE[:ARG]",
	  "filter memory: anon, memcg:PATH, young, active, unmapped, hugepage_size:MIN-MAX, "
	  "addr:START-END, target:IDX (repeatable)" },
	{ "wmarks", K_WMARKS, OV_STRING, "METRIC,INTERVAL,HIGH,MID,LOW|none",
	  "activate only between free memory watermarks (free_mem_rate, permil)" },
	{ "target-nid", K_TARGET_NID, OV_INT, "N", "node to migrate to (migrate_hot/cold)" },
	{ "dest", K_DEST, OV_STRING, "NODE:WEIGHT", "migration destination (repeatable)" },
	{ "fail-charge", K_FAIL_CHARGE, OV_STRING, "NUM/DENOM",
	  "charge failed attempts NUM/DENOM of their size to the quota" },
	{ "max-snapshots", K_MAX_SNAPSHOTS, OV_INT, "N",
	  "deactivate the scheme after N apply intervals" },
	{ 0 },
};

static char *split2(char *s, char sep)
{
	char *p = strchr(s, sep);

	if (!p)
		return NULL;
	*p = '\0';
	return p + 1;
}

/* spec_parse's "taken" result, unless parsing failed */
static int ok1(int r)
{
	return r ? r : 1;
}

/* --nr-regions MIN,MAX */
static int parse_nr_regions(struct cli *cli, struct spec *sp, const char *arg)
{
	char buf[256], *second;

	sp->has_nr_regions = true;
	snprintf(buf, sizeof(buf), "%s", arg);
	second = split2(buf, ',');
	if (!second)
		return usage_error(cli, "--nr-regions '%s': expected two values separated by ','",
				   arg);
	if (parse_uint_opt(cli, "nr-regions", buf, UINT64_MAX, &sp->nr_regions_min) ||
	    parse_uint_opt(cli, "nr-regions", second, UINT64_MAX, &sp->nr_regions_max))
		return EXIT_USAGE;
	if (sp->nr_regions_min > sp->nr_regions_max)
		return usage_error(cli, "--nr-regions '%s': the first value exceeds the second",
				   arg);
	return 0;
}

/* --goal's sentences for what damonctl_goal_spec_parse() refused. */
static int parse_goal(struct cli *cli, struct spec *sp, const char *arg)
{
	struct damonctl_parse_error e = DAMONCTL_PARSE_ERROR_INIT;
	struct damonctl_goal_spec *g;

	if (sp->nr_goals >= SPEC_MAX_GOALS)
		return usage_error(cli, "--goal: at most %d goals", SPEC_MAX_GOALS);
	g = &sp->goals[sp->nr_goals];
	g->sz = sizeof(*g);
	if (!damonctl_goal_spec_parse(arg, g, &e)) {
		sp->nr_goals++;
		return 0;
	}
	switch (e.part) {
	case DAMONCTL_PARSE_KEYWORD:
		return usage_error(cli, "--goal '%s': unknown metric '%s' (see 'damonc features')",
				   arg, e.text);
	case DAMONCTL_PARSE_VALUE:
		return usage_error(cli, "--goal '%s': cannot read the value '%s'", arg, e.text);
	case DAMONCTL_PARSE_NID:
		return usage_error(cli, "--goal '%s': bad node id '%s'", arg, e.text);
	case DAMONCTL_PARSE_OPTION:
		return usage_error(cli, "--goal '%s': unknown part '%s' (nid=N or path=P)", arg,
				   e.text);
	default:
		return usage_error(cli, "--goal '%s': expected METRIC=VALUE, e.g. "
				   "hugepage_mem_bp=500 or some_mem_psi_us=10ms", arg);
	}
}

/* What a filter type's argument is, for "needs" sentences. */
static const char *const filter_args[][2] = {
	{ "memcg", "a path" }, { "addr", "START-END" }, { "hugepage_size", "MIN-MAX" },
	{ "target", "an index" },
};

/*
 * One filter, allow|reject:[!]TYPE[:ARG], of the types of @set, into @f; @opt and @arg (the
 * option's whole value) name it in messages, a bad part of its argument first.
 */
static int parse_one_filter(struct cli *cli, const char *opt, const char *arg, const char *text,
			    enum damonctl_kwset set, struct damonctl_filter_spec *f)
{
	struct damonctl_parse_error e = DAMONCTL_PARSE_ERROR_INIT;
	unsigned int i;

	f->sz = sizeof(*f);
	if (!damonctl_filter_spec_parse(text, set, f, &e))
		return 0;
	if (e.part == DAMONCTL_PARSE_FORM)
		return usage_error(cli, "--%s '%s': expected allow:TYPE or reject:TYPE", opt, arg);
	if (e.part == DAMONCTL_PARSE_KEYWORD)
		return usage_error(cli, "--%s '%s': unknown type '%s' (%s)", opt, arg, e.text,
				   set == DAMONCTL_KW_FILTER_TYPE ? "anon, active, memcg, young, "
				   "hugepage_size, unmapped, addr, target" : "anon or memcg");
	if (e.part == DAMONCTL_PARSE_ARG && e.err == -EINVAL)
		return usage_error(cli, "--%s '%s': %s takes no argument", opt, arg, e.text);
	if (e.part == DAMONCTL_PARSE_RANGE)
		usage_error(cli, e.err == -EDOM ? "--%s '%s': the first value exceeds the second" :
			    "--%s '%s': expected two values separated by '-'", opt, e.text);
	else if (e.part != DAMONCTL_PARSE_ARG && !strcmp(f->type, "addr"))
		usage_error(cli, "--%s '%s': expected an address (e.g. 0x7f0000000000)", opt,
			    e.text);
	else if (e.part != DAMONCTL_PARSE_ARG)
		value_error(cli, opt, e.text, e.err, UINT32_MAX, !strcmp(f->type, "target") ?
			    "a non-negative integer" : "a size such as 4096, 2MiB or 1G");
	for (i = 0; i + 1 < sizeof(filter_args) / sizeof(filter_args[0]) &&
		    strcmp(filter_args[i][0], f->type); i++)
		;
	return usage_error(cli, "--%s '%s': %s needs %s", opt, arg, f->type, filter_args[i][1]);
}

int spec_parse_filter(struct cli *cli, const char *opt, const char *arg,
		      struct damonctl_filter_spec *f)
{
	return parse_one_filter(cli, opt, arg, arg, DAMONCTL_KW_FILTER_TYPE, f);
}

static int parse_filter(struct cli *cli, struct spec *sp, const char *arg)
{
	int r;

	if (sp->nr_filters >= SPEC_MAX_FILTERS)
		return usage_error(cli, "--filter: at most %d filters", SPEC_MAX_FILTERS);
	r = spec_parse_filter(cli, "filter", arg, &sp->filters[sp->nr_filters]);
	if (r)
		return r;
	sp->nr_filters++;
	sp->filters_given = true;
	return 0;
}

int spec_parse_probe(struct cli *cli, const char *arg, struct probe_spec *p)
{
	char buf[1024], *tok, *next;
	int r;

	memset(p, 0, sizeof(*p));
	if (!strcmp(arg, "all"))
		return 0;
	if (!*arg || strlen(arg) >= sizeof(buf))
		return usage_error(cli, "--probe '%s': expected 'all' or FILTER[;FILTER...], each "
				   "allow|reject:[!]anon or allow|reject:[!]memcg:PATH", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = buf; tok; tok = next) {
		next = split2(tok, ';');
		if (p->nr >= SPEC_MAX_PROBE_FILTERS)
			return usage_error(cli, "--probe '%s': at most %d filters per probe", arg,
					   SPEC_MAX_PROBE_FILTERS);
		r = parse_one_filter(cli, "probe", arg, tok, DAMONCTL_KW_PROBE_FILTER_TYPE,
				     &p->f[p->nr]);
		if (r)
			return r;
		p->nr++;
	}
	return 0;
}

static int parse_wmarks(struct cli *cli, struct spec *sp, const char *arg)
{
	char buf[256], *p[5], *s = buf;
	int i;

	sp->has_wmarks = true;
	if (!strcmp(arg, "none")) {
		snprintf(sp->wmarks_metric, sizeof(sp->wmarks_metric), "none");
		sp->wmarks_interval_us = sp->wmarks_high = sp->wmarks_mid = sp->wmarks_low = 0;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (i = 0; i < 5; i++) {
		p[i] = s;
		s = split2(s, ',');
		if (!s && i < 4)
			return usage_error(cli, "--wmarks '%s': expected METRIC,INTERVAL,HIGH,MID,LOW",
					   arg);
	}
	if (strcmp(p[0], "free_mem_rate"))
		return usage_error(cli, "--wmarks '%s': the metric is free_mem_rate (or 'none')",
				   arg);
	snprintf(sp->wmarks_metric, sizeof(sp->wmarks_metric), "%s", p[0]);
	if (parse_time_opt(cli, "wmarks", p[1], &sp->wmarks_interval_us) ||
	    parse_uint_opt(cli, "wmarks", p[2], 1000, &sp->wmarks_high) ||
	    parse_uint_opt(cli, "wmarks", p[3], 1000, &sp->wmarks_mid) ||
	    parse_uint_opt(cli, "wmarks", p[4], 1000, &sp->wmarks_low))
		return EXIT_USAGE;
	if (!(sp->wmarks_high >= sp->wmarks_mid && sp->wmarks_mid >= sp->wmarks_low))
		return usage_error(cli, "--wmarks '%s': needs HIGH >= MID >= LOW", arg);
	return 0;
}

static int parse_intervals_goal(struct cli *cli, struct spec *sp, const char *arg)
{
	char buf[256], *p[4], *s = buf;
	int i;

	sp->has_intervals_goal = true;
	if (!strcmp(arg, "auto"))
		arg = "4%,3,5ms,10s";	/* DAMON's documented suggestion */
	if (!strcmp(arg, "off")) {
		sp->ig_access_bp = sp->ig_aggrs = sp->ig_min_sample_us = sp->ig_max_sample_us = 0;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (i = 0; i < 4; i++) {
		p[i] = s;
		s = split2(s, ',');
		if ((!s && i < 3) || (s && i == 3))
			return usage_error(cli, "--intervals-goal '%s': expected ACCESS%%,AGGRS,MIN,"
					   "MAX (four values), 'auto' or 'off'", arg);
	}
	if (parse_percent_opt(cli, "intervals-goal", p[0], &sp->ig_access_bp) ||
	    parse_uint_opt(cli, "intervals-goal", p[1], UINT32_MAX, &sp->ig_aggrs) ||
	    parse_time_opt(cli, "intervals-goal", p[2], &sp->ig_min_sample_us) ||
	    parse_time_opt(cli, "intervals-goal", p[3], &sp->ig_max_sample_us))
		return EXIT_USAGE;
	if (sp->ig_min_sample_us > sp->ig_max_sample_us)
		return usage_error(cli, "--intervals-goal '%s': MIN exceeds MAX", arg);
	return 0;
}

/*
 * The options that set one number of the spec, and how: a kind, where it goes, its `has_`
 * flag and the rule it must keep. spec_parse handles the others, which fill several fields.
 */
enum field_kind {
	F_TIME_US,	/* 5s, 100ms: microseconds */
	F_TIME_MS,	/* a time kept in whole milliseconds */
	F_SIZE,		/* 2MiB: bytes */
	F_COUNT,	/* a plain number */
};

enum field_rule {
	R_ANY,
	R_NONZERO,	/* 0 is refused */
	R_NOT_MAX,	/* "max" (DAMONCTL_MAX) is refused */
};

struct field {
	int key;
	const char *name;	/* the option, for messages */
	enum field_kind kind;
	enum field_rule rule;
	const char *why;	/* what the rule says, after "--NAME 'ARG': " */
	size_t off, has;	/* offsetof(struct spec, value), offsetof(struct spec, has_) */
};

#define FIELD(k, n, kind, rule, why, v, h) \
	{ k, n, kind, rule, why, offsetof(struct spec, v), offsetof(struct spec, h) }

static const struct field fields[] = {
	FIELD(K_SAMPLE, "sample", F_TIME_US, R_ANY, NULL, sample_us, has_sample),
	FIELD(K_AGGR, "aggr", F_TIME_US, R_ANY, NULL, aggr_us, has_aggr),
	FIELD(K_UPDATE, "update", F_TIME_US, R_ANY, NULL, update_us, has_update),
	FIELD(K_REFRESH, "refresh", F_TIME_MS, R_ANY, NULL, refresh_ms, has_refresh),
	FIELD(K_ADDR_UNIT, "addr-unit", F_SIZE, R_NONZERO, "the unit is at least 1 byte",
	      addr_unit, has_addr_unit),
	FIELD(K_MIN_SIZE, "min-size", F_SIZE, R_ANY, NULL, sz_min, has_sz_min),
	FIELD(K_MAX_SIZE, "max-size", F_SIZE, R_ANY, NULL, sz_max, has_sz_max),
	FIELD(K_MIN_AGE, "min-age", F_TIME_US, R_NOT_MAX,
	      "no region is ever that old (max is for --max-age)", age_min_us, has_age_min),
	FIELD(K_MAX_AGE, "max-age", F_TIME_US, R_ANY, NULL, age_max_us, has_age_max),
	FIELD(K_APPLY_INTERVAL, "apply-interval", F_TIME_US, R_ANY, NULL, apply_interval_us,
	      has_apply_interval),
	FIELD(K_QUOTA_TIME, "quota-time", F_TIME_MS, R_ANY, NULL, quota_ms, has_quota_ms),
	FIELD(K_QUOTA_SIZE, "quota-size", F_SIZE, R_ANY, NULL, quota_bytes, has_quota_bytes),
	FIELD(K_QUOTA_RESET, "quota-reset", F_TIME_MS, R_NONZERO, "whole milliseconds, above 0",
	      quota_reset_ms, has_quota_reset),
	FIELD(K_MAX_SNAPSHOTS, "max-snapshots", F_COUNT, R_ANY, NULL, max_snapshots,
	      has_max_snapshots),
};

/* Parse @arg into @f's field of @sp: 1, or EXIT_USAGE with the message given. */
static int parse_field(struct cli *cli, struct spec *sp, const struct field *f, const char *arg)
{
	uint64_t v = 0;
	int r = 0;

	switch (f->kind) {
	case F_TIME_US:
	case F_TIME_MS:
		r = parse_time_opt(cli, f->name, arg, &v);
		break;
	case F_SIZE:
		r = parse_size_opt(cli, f->name, arg, &v);
		break;
	case F_COUNT:
		r = parse_uint_opt(cli, f->name, arg, UINT64_MAX, &v);
		break;
	}
	if (r)
		return EXIT_USAGE;
	if ((f->rule == R_NONZERO && !v) || (f->rule == R_NOT_MAX && v == DAMONCTL_MAX))
		return usage_error(cli, "--%s '%s': %s", f->name, arg, f->why);
	if (f->kind == F_TIME_MS) {
		if (v % 1000)
			return usage_error(cli, "--%s '%s': %s", f->name, arg,
					   f->why ? f->why : "whole milliseconds only");
		v /= 1000;
	}
	*(bool *)((char *)sp + f->has) = true;
	*(uint64_t *)((char *)sp + f->off) = v;
	return 1;
}

static int parse_access_rate(struct cli *cli, struct spec *sp, const char *arg)
{
	char buf[128], *b;

	sp->has_rate = true;
	sp->rate_max_bp = 10000;
	snprintf(buf, sizeof(buf), "%s", arg);
	b = split2(buf, ',');
	if (parse_percent_opt(cli, "access-rate", buf, &sp->rate_min_bp) ||
	    (b && parse_percent_opt(cli, "access-rate", b, &sp->rate_max_bp)))
		return EXIT_USAGE;
	if (sp->rate_min_bp > sp->rate_max_bp)
		return usage_error(cli, "--access-rate '%s': MIN exceeds MAX", arg);
	return 0;
}

static int parse_weights(struct cli *cli, struct spec *sp, const char *arg)
{
	char buf[128], *a, *b;
	uint64_t w[3];

	snprintf(buf, sizeof(buf), "%s", arg);
	a = split2(buf, ',');
	b = a ? split2(a, ',') : NULL;
	if (!a || !b || parse_uint_opt(cli, "quota-weights", buf, 1000000, &w[0]) ||
	    parse_uint_opt(cli, "quota-weights", a, 1000000, &w[1]) ||
	    parse_uint_opt(cli, "quota-weights", b, 1000000, &w[2]))
		return usage_error(cli, "--quota-weights '%s': expected SIZE,ACCESSES,AGE "
				   "in permil", arg);
	sp->has_weights = true;
	sp->weights[0] = (unsigned int)w[0];
	sp->weights[1] = (unsigned int)w[1];
	sp->weights[2] = (unsigned int)w[2];
	return 0;
}

static int parse_goal_bp(struct cli *cli, struct spec *sp, const char *arg)
{
	uint64_t v;

	if (sp->nr_goals >= SPEC_MAX_GOALS)
		return usage_error(cli, "--goal-bp: at most %d goals", SPEC_MAX_GOALS);
	if (parse_bp_opt(cli, "goal-bp", arg, &v))
		return EXIT_USAGE;
	if (!v || v > 10000)
		return usage_error(cli, "--goal-bp '%s': between 1 and 10000 basis points", arg);
	sp->goals[sp->nr_goals] = (struct damonctl_goal_spec)DAMONCTL_GOAL_SPEC_INIT;
	snprintf(sp->goals[sp->nr_goals].metric, sizeof(sp->goals[0].metric), "hugepage_mem_bp");
	sp->goals[sp->nr_goals++].target = v;
	return 0;
}

static int parse_dest(struct cli *cli, struct spec *sp, const char *arg)
{
	char buf[128], *a;
	uint64_t w[2];

	if (sp->nr_dests >= SPEC_MAX_DESTS)
		return usage_error(cli, "--dest: at most %d destinations", SPEC_MAX_DESTS);
	snprintf(buf, sizeof(buf), "%s", arg);
	a = split2(buf, ':');
	if (!a || parse_uint_opt(cli, "dest", buf, 4096, &w[0]) ||
	    parse_uint_opt(cli, "dest", a, UINT32_MAX, &w[1]))
		return usage_error(cli, "--dest '%s': expected NODE:WEIGHT", arg);
	sp->dest_id[sp->nr_dests] = (unsigned int)w[0];
	sp->dest_weight[sp->nr_dests] = (unsigned int)w[1];
	sp->nr_dests++;
	return 0;
}

static int parse_fail_charge(struct cli *cli, struct spec *sp, const char *arg)
{
	char buf[128], *a;
	uint64_t w[2];

	snprintf(buf, sizeof(buf), "%s", arg);
	a = split2(buf, '/');
	if (!a || parse_uint_opt(cli, "fail-charge", buf, UINT32_MAX, &w[0]) ||
	    parse_uint_opt(cli, "fail-charge", a, UINT32_MAX, &w[1]) || !w[1])
		return usage_error(cli, "--fail-charge '%s': expected NUM/DENOM, DENOM > 0", arg);
	sp->has_fail_charge = true;
	sp->fail_num = (unsigned int)w[0];
	sp->fail_denom = (unsigned int)w[1];
	return 0;
}

/* A keyword option (--ops, --action, --goal-tuner): one of the library's words for it. */
static int parse_keyword(struct cli *cli, enum damonctl_kwset kw, const char *opt,
			 const char *words, const char *arg, const char **dest)
{
	enum damonctl_feature feat;

	if (damonctl_keyword_feature(kw, arg, &feat))
		return usage_error(cli, "--%s '%s': %s", opt, arg, words);
	*dest = arg;
	return 0;
}

int spec_parse(struct cli *cli, struct spec *sp, int key, const char *arg)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].key == key)
			return parse_field(cli, sp, &fields[i], arg);
	switch (key) {
	case K_OPS:
		return ok1(parse_keyword(cli, DAMONCTL_KW_OPERATIONS, "ops",
					 "expected vaddr, fvaddr or paddr", arg, &sp->ops));
	case K_NR_REGIONS:
		return ok1(parse_nr_regions(cli, sp, arg));
	case K_INTERVALS_GOAL:
		return ok1(parse_intervals_goal(cli, sp, arg));
	case K_PAUSE:
	case K_RESUME:
		if (sp->has_pause)
			return usage_error(cli, "--pause and --resume: one of them");
		sp->has_pause = true;
		sp->pause = key == K_PAUSE;
		return 1;
	case K_ACTION:
		return ok1(parse_keyword(cli, DAMONCTL_KW_ACTION, "action",
					 "unknown action (willneed, cold, pageout, hugepage, "
					 "nohugepage, collapse, lru_prio, lru_deprio, migrate_hot, "
					 "migrate_cold, stat)", arg, &sp->action));
	case K_ACCESS_RATE:
		return ok1(parse_access_rate(cli, sp, arg));
	case K_QUOTA_WEIGHTS:
		return ok1(parse_weights(cli, sp, arg));
	case K_GOAL:
		return ok1(parse_goal(cli, sp, arg));
	case K_GOAL_BP:
		return ok1(parse_goal_bp(cli, sp, arg));
	case K_GOAL_TUNER:
		return ok1(parse_keyword(cli, DAMONCTL_KW_GOAL_TUNER, "goal-tuner",
					 "expected consist or temporal", arg, &sp->tuner));
	case K_FILTER:
		return ok1(parse_filter(cli, sp, arg));
	case K_WMARKS:
		return ok1(parse_wmarks(cli, sp, arg));
	case K_TARGET_NID:
		if (parse_uint_opt(cli, "target-nid", arg, 4096, &v))
			return EXIT_USAGE;
		sp->has_target_nid = true;
		sp->target_nid = (int)v;
		return 1;
	case K_DEST:
		return ok1(parse_dest(cli, sp, arg));
	case K_FAIL_CHARGE:
		return ok1(parse_fail_charge(cli, sp, arg));
	}
	return 0;
}

bool spec_any_scheme(const struct spec *sp)
{
	return sp->action || sp->has_sz_min || sp->has_sz_max || sp->has_rate ||
	       sp->has_age_min || sp->has_age_max || sp->has_apply_interval || sp->has_quota_ms ||
	       sp->has_quota_bytes || sp->has_quota_reset || sp->has_weights || sp->nr_goals ||
	       sp->tuner || sp->filters_given || sp->has_wmarks || sp->has_target_nid ||
	       sp->nr_dests || sp->has_fail_charge || sp->has_max_snapshots;
}

bool spec_any_context(const struct spec *sp)
{
	return sp->ops || sp->has_sample || sp->has_aggr || sp->has_update || sp->has_nr_regions ||
	       sp->has_intervals_goal || sp->has_refresh || sp->has_pause || sp->has_addr_unit;
}

static int set_failed(struct cli *cli, int r, const char *what)
{
	return usage_error(cli, "cannot set %s: %s", what, strerror(-r));
}

#define CSET(c, attr, v) do {								\
		int r_ = damonctl_context_set(c, DAMONCTL_CONTEXT_##attr, v);		\
		if (r_)									\
			return set_failed(cli, r_, #attr);				\
	} while (0)
#define SSET(s, attr, v) do {								\
		int r_ = damonctl_scheme_set(s, DAMONCTL_SCHEME_##attr, v);		\
		if (r_)									\
			return set_failed(cli, r_, #attr);				\
	} while (0)

int spec_apply_context(struct cli *cli, const struct spec *sp, struct damonctl_context *c,
		       const struct damonctl_features *f)
{
	(void)f;
	if (sp->ops && damonctl_context_set_str(c, DAMONCTL_CONTEXT_OPERATIONS, sp->ops))
		return usage_error(cli, "--ops '%s': not an operations set", sp->ops);
	if (sp->has_sample)
		CSET(c, SAMPLE_US, sp->sample_us);
	if (sp->has_aggr)
		CSET(c, AGGR_US, sp->aggr_us);
	if (sp->has_update)
		CSET(c, UPDATE_US, sp->update_us);
	if (sp->has_nr_regions) {
		CSET(c, MIN_NR_REGIONS, sp->nr_regions_min);
		CSET(c, MAX_NR_REGIONS, sp->nr_regions_max);
	}
	if (sp->has_pause)
		CSET(c, PAUSE, sp->pause);
	if (sp->has_addr_unit)
		CSET(c, ADDR_UNIT, sp->addr_unit);
	if (sp->has_intervals_goal) {
		CSET(c, GOAL_ACCESS_BP, sp->ig_access_bp);
		CSET(c, GOAL_AGGRS, sp->ig_aggrs);
		CSET(c, GOAL_MIN_SAMPLE_US, sp->ig_min_sample_us);
		CSET(c, GOAL_MAX_SAMPLE_US, sp->ig_max_sample_us);
	}
	return 0;
}

static int apply_filters(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s,
			 const struct damonctl_features *f)
{
	static const enum damonctl_filter_dir dirs[] = {
		DAMONCTL_FILTERS_CORE, DAMONCTL_FILTERS_OPS, DAMONCTL_FILTERS_LEGACY,
	};
	unsigned int i, d;

	/* the options replace every filter the scheme had */
	for (d = 0; d < 3; d++)
		while (damonctl_scheme_nr_filters(s, dirs[d]))
			damonctl_scheme_remove_filter(s, dirs[d], 0);
	for (i = 0; i < sp->nr_filters; i++) {
		const struct damonctl_filter_spec *fs = &sp->filters[i];
		struct damonctl_filter *flt = damonctl_scheme_add_filter(s,
			damonctl_filter_dir_for(fs->type, f));

		if (!flt)
			return set_failed(cli, -ENOMEM, "filter");
		if (damonctl_filter_set_spec(flt, fs))
			return set_failed(cli, -EINVAL, "filter");
	}
	return 0;
}

/* The goal of @s with the same metric (and node and path) as @gs, if any. */
static struct damonctl_goal *same_goal(struct damonctl_scheme *s,
				       const struct damonctl_goal_spec *gs)
{
	struct damonctl_goal *g;
	unsigned int i;

	damonctl_for_each_goal(s, g, i) {
		if (strcmp(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), gs->metric))
			continue;
		if (gs->has_nid && damonctl_goal_get_int(g, DAMONCTL_GOAL_NID) != gs->nid)
			continue;
		if (*gs->path && strcmp(damonctl_goal_get_str(g, DAMONCTL_GOAL_PATH), gs->path))
			continue;
		return g;
	}
	return NULL;
}

/* Fresh schemes get exactly the goals given; existing ones have the goal of the same
 * metric retargeted, or a new one added. */
static int apply_goals(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s,
		       bool fresh)
{
	unsigned int i;

	while (fresh && damonctl_scheme_nr_goals(s))
		damonctl_scheme_remove_goal(s, 0);
	for (i = 0; i < sp->nr_goals; i++) {
		const struct damonctl_goal_spec *gs = &sp->goals[i];
		struct damonctl_goal *g = fresh ? NULL : same_goal(s, gs);

		if (!g)
			g = damonctl_scheme_add_goal(s);
		if (!g)
			return set_failed(cli, -ENOMEM, "goal");
		if (damonctl_goal_set_spec(g, gs))
			return set_failed(cli, -EINVAL, "goal");
	}
	return 0;
}

/* The access pattern. Fresh schemes match everything by default (the kernel's defaults,
 * all zero, match nothing); collapse defaults to hot regions. */
static int apply_pattern(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s,
			 uint64_t sample_us, uint64_t aggr_us, bool fresh, bool collapse)
{
	if (sp->has_sz_min)
		SSET(s, SZ_MIN, sp->sz_min);
	else if (fresh)
		SSET(s, SZ_MIN, collapse ? 2u << 20 : 0);
	if (sp->has_sz_max)
		SSET(s, SZ_MAX, sp->sz_max);
	else if (fresh)
		SSET(s, SZ_MAX, DAMONCTL_MAX);
	if (sp->has_rate || fresh) {
		uint64_t lo = sp->has_rate ? sp->rate_min_bp : collapse ? 500 : 0;
		uint64_t hi = sp->has_rate ? sp->rate_max_bp : 10000;
		uint64_t nlo = damonctl_rate_bp_to_nr_accesses(lo, sample_us, aggr_us, true);

		/* a positive rate means at least one sample */
		if (lo && !nlo)
			nlo = 1;
		SSET(s, NR_ACCESSES_MIN, nlo);
		SSET(s, NR_ACCESSES_MAX, hi >= 10000 ? UINT32_MAX :
		     damonctl_rate_bp_to_nr_accesses(hi, sample_us, aggr_us, false));
	}
	if (sp->has_age_min)	/* ages are u32 aggregations in the kernel, as AGE_MAX */
		SSET(s, AGE_MIN, damonctl_age_us_to_aggrs(sp->age_min_us, aggr_us) > UINT32_MAX ?
		     UINT32_MAX : damonctl_age_us_to_aggrs(sp->age_min_us, aggr_us));
	else if (fresh)
		SSET(s, AGE_MIN, collapse ? damonctl_age_us_to_aggrs(1000000, aggr_us) : 0);
	if (sp->has_age_max)
		SSET(s, AGE_MAX, sp->age_max_us == DAMONCTL_MAX ? UINT32_MAX :
		     sp->age_max_us / (aggr_us ? aggr_us : 1));
	else if (fresh)
		SSET(s, AGE_MAX, UINT32_MAX);
	if (sp->has_apply_interval)
		SSET(s, APPLY_INTERVAL_US, sp->apply_interval_us);
	return 0;
}

/* Quotas: collapse is expensive (it copies memory), so by default it spends at most 100 ms
 * of a CPU per second, hottest regions first. */
static int apply_quota(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s,
		       bool fresh, bool collapse)
{
	if (sp->has_quota_ms)
		SSET(s, QUOTA_MS, sp->quota_ms);
	else if (fresh && collapse)
		SSET(s, QUOTA_MS, 100);
	if (sp->has_quota_bytes)
		SSET(s, QUOTA_BYTES, sp->quota_bytes);
	if (sp->has_quota_reset)
		SSET(s, QUOTA_RESET_INTERVAL_MS, sp->quota_reset_ms);
	else if (fresh && (collapse || sp->nr_goals || sp->has_quota_ms || sp->has_quota_bytes))
		SSET(s, QUOTA_RESET_INTERVAL_MS, 1000);
	if (sp->has_weights) {
		SSET(s, WEIGHT_SZ_PERMIL, sp->weights[0]);
		SSET(s, WEIGHT_NR_ACCESSES_PERMIL, sp->weights[1]);
		SSET(s, WEIGHT_AGE_PERMIL, sp->weights[2]);
	} else if (fresh && collapse) {
		SSET(s, WEIGHT_NR_ACCESSES_PERMIL, 1000);
	}
	if (sp->has_fail_charge) {
		SSET(s, QUOTA_FAIL_CHARGE_NUM, sp->fail_num);
		SSET(s, QUOTA_FAIL_CHARGE_DENOM, sp->fail_denom);
	}
	return 0;
}

/* The goals and their tuner: a fresh scheme with a huge-page goal takes the temporal tuner
 * where the kernel has one (reach the goal, then stop collapsing). */
static int apply_goals_tuner(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s,
			     const struct damonctl_features *f, bool fresh)
{
	bool hugepage_goal = false;
	unsigned int i;
	int r;

	if (sp->nr_goals) {
		r = apply_goals(cli, sp, s, fresh);
		if (r)
			return r;
	}
	if (sp->tuner) {
		if (damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, sp->tuner))
			return usage_error(cli, "--goal-tuner '%s': unknown tuner", sp->tuner);
		return 0;
	}
	if (!fresh || !sp->nr_goals)
		return 0;
	for (i = 0; i < sp->nr_goals; i++)
		hugepage_goal |= !strcmp(sp->goals[i].metric, "hugepage_mem_bp");
	if (hugepage_goal && damonctl_features_has(f, DAMONCTL_FEAT_GOAL_TUNER) == DAMONCTL_YES)
		damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, "temporal");
	return 0;
}

/* Where a migrating action's memory goes: a node, or weighted destinations. */
static int apply_targets(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s)
{
	unsigned int i;
	int r;

	if (sp->has_target_nid) {
		r = damonctl_scheme_set_int(s, DAMONCTL_SCHEME_TARGET_NID, sp->target_nid);
		if (r)
			return set_failed(cli, r, "target_nid");
	}
	if (!sp->nr_dests)
		return 0;
	while (damonctl_scheme_nr_dests(s))
		damonctl_scheme_remove_dest(s, 0);
	for (i = 0; i < sp->nr_dests; i++) {
		struct damonctl_dest *d = damonctl_scheme_add_dest(s);

		if (!d)
			return set_failed(cli, -ENOMEM, "dest");
		damonctl_dest_set(d, DAMONCTL_DEST_ID, sp->dest_id[i]);
		damonctl_dest_set(d, DAMONCTL_DEST_WEIGHT, sp->dest_weight[i]);
	}
	return 0;
}

int spec_apply_scheme(struct cli *cli, const struct spec *sp, struct damonctl_scheme *s,
		      uint64_t sample_us, uint64_t aggr_us, const struct damonctl_features *f,
		      bool fresh)
{
	const char *action = sp->action ? sp->action :
		damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION);
	bool collapse = !strcmp(action, "collapse");
	int r;

	if (sp->action && damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, sp->action))
		return usage_error(cli, "--action '%s': unknown action", sp->action);
	if (sp->has_age_min && sp->has_age_max && sp->age_min_us > sp->age_max_us) {
		char a[32], b[32];

		return usage_error(cli, "--min-age %s exceeds --max-age %s",
				   fmt_time(sp->age_min_us, a, sizeof(a)),
				   fmt_time(sp->age_max_us, b, sizeof(b)));
	}
	r = apply_pattern(cli, sp, s, sample_us, aggr_us, fresh, collapse);
	if (!r)
		r = apply_quota(cli, sp, s, fresh, collapse);
	if (!r)
		r = apply_goals_tuner(cli, sp, s, f, fresh);
	if (!r && sp->filters_given)
		r = apply_filters(cli, sp, s, f);
	if (r)
		return r;
	if (sp->has_wmarks) {
		damonctl_scheme_set_str(s, DAMONCTL_SCHEME_WMARKS_METRIC, sp->wmarks_metric);
		SSET(s, WMARKS_INTERVAL_US, sp->wmarks_interval_us);
		SSET(s, WMARKS_HIGH, sp->wmarks_high);
		SSET(s, WMARKS_MID, sp->wmarks_mid);
		SSET(s, WMARKS_LOW, sp->wmarks_low);
	}
	r = apply_targets(cli, sp, s);
	if (r)
		return r;
	if (sp->has_max_snapshots)
		SSET(s, MAX_NR_SNAPSHOTS, sp->max_snapshots);
	return 0;
}

/* The name of scheme option @key, for messages. */
static const char *scheme_opt_name(int key)
{
	const struct opt *o;

	for (o = spec_scheme_opts; o->name; o++)
		if (o->key == key)
			return o->name;
	return "?";
}

int spec_line_parse(struct cli *cli, struct spec_line *l, int key, const char *arg)
{
	unsigned int max = l->max ? l->max : SPEC_MAX_SCHEMES, cur;
	uint32_t bit;

	if (!l->nr)
		l->nr = 1;
	cur = l->nr - 1;
	if (key < K_ACTION || key > K_MAX_SNAPSHOTS)	/* the context's, or not ours */
		return spec_parse(cli, &l->sp[0], key, arg);
	bit = 1u << (key - K_ACTION);
	if (key == K_ACTION && (l->given[cur] & bit)) {
		if (max == 1)
			return usage_error(cli, "--action '%s': this command changes one scheme, and "
					   "--action was given twice", arg);
		if (l->nr >= max)
			return usage_error(cli, "--action '%s': at most %u schemes on one command "
					   "line (for more, use -c FILE)", arg, max);
		cur = l->nr++;
	} else if ((l->given[cur] & bit) && key != K_GOAL && key != K_GOAL_BP &&
		   key != K_FILTER && key != K_DEST) {
		if (l->nr == 1)
			return usage_error(cli, "--%s '%s': given twice for one scheme (a repeated "
					   "--action begins a new scheme, and the options after it "
					   "are that scheme's)", scheme_opt_name(key), arg);
		return usage_error(cli, "--%s '%s': given twice for scheme %u (the one begun by "
				   "--action %s)", scheme_opt_name(key), arg, cur,
				   l->sp[cur].action ? l->sp[cur].action : "?");
	}
	l->given[cur] |= bit;
	return spec_parse(cli, &l->sp[cur], key, arg);
}

int spec_apply_probe(struct cli *cli, const struct probe_spec *p, struct damonctl_context *c)
{
	struct damonctl_probe *probe = damonctl_context_add_probe(c);
	unsigned int i;

	if (!probe)
		return oom_error(cli);
	for (i = 0; i < p->nr; i++) {
		struct damonctl_probe_filter *f = damonctl_probe_add_filter(probe);
		int r;

		if (!f)
			return oom_error(cli);
		r = damonctl_probe_filter_set_spec(f, &p->f[i]);
		if (r)
			return set_failed(cli, r, "a probe filter");
	}
	return 0;
}
