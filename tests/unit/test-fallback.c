// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/fallback.c: plans of user-space fallbacks on the kernel-tree captures of 6.1, 6.12
 * and 7.2, and a 7.4-like tree (7.2 with the hugepage_mem_bp metric). The expectations
 * follow the rules the public header states ("User-space fallbacks"): which kernel runs
 * what, which schemes the plan adds, in which order.
 */
#include <errno.h>
#include <string.h>

#include "common.h"

struct planned {
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_features *f;
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_scheme *sc;
	struct damonctl_fallbacks *fbs;
	char why[512];
};

/* 400000 kB used, 40000 kB of it huge: 1000 bp system-wide */
static const char meminfo[] = "MemTotal:       1000000 kB\nMemFree:         600000 kB\n"
			      "AnonHugePages:    40000 kB\nShmemHugePages:       0 kB\n"
			      "FileHugePages:        0 kB\n";

/* Capture @capture with @nr_targets targets and its scheme 0 doing @action, with no goal. */
static void setup(struct planned *x, const char *capture, unsigned int nr_targets,
		  const char *action)
{
	char path[4096];

	memset(x, 0, sizeof(*x));
	sysroot_setup(&x->s, capture, NULL, NULL);
	snprintf(path, sizeof(path), "%s/proc/meminfo", x->s.dir);
	write_file(path, meminfo);
	assert_int_equal(damonctl_tree_read(x->s.ctx, &x->t), 0);
	assert_int_equal(damonctl_features_detect(x->s.ctx, &x->f), 0);
	x->k = damonctl_tree_kdamond(x->t, 0);
	x->c = damonctl_kdamond_context(x->k, 0);
	while (damonctl_context_nr_targets(x->c) > nr_targets)
		damonctl_context_remove_target(x->c, damonctl_context_nr_targets(x->c) - 1);
	assert_int_equal(damonctl_context_nr_targets(x->c), nr_targets);
	assert_int_equal(damonctl_context_nr_schemes(x->c), 1);
	x->sc = damonctl_context_scheme(x->c, 0);
	while (damonctl_scheme_nr_goals(x->sc))
		damonctl_scheme_remove_goal(x->sc, 0);
	assert_int_equal(damonctl_scheme_set_str(x->sc, DAMONCTL_SCHEME_ACTION, action), 0);
	damonctl_scheme_set(x->sc, DAMONCTL_SCHEME_QUOTA_MS, 100);
	damonctl_scheme_set(x->sc, DAMONCTL_SCHEME_QUOTA_BYTES, 64 << 20);
	damonctl_scheme_set(x->sc, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS, 500);
	damonctl_scheme_set(x->sc, DAMONCTL_SCHEME_NR_ACCESSES_MIN, 5);
	assert_int_equal(damonctl_fallbacks_new(&x->fbs), 0);
}

static void teardown(struct planned *x)
{
	damonctl_fallbacks_free(x->fbs);
	damonctl_features_free(x->f);
	damonctl_tree_free(x->t);
	sysroot_teardown(&x->s);
}

static void add_goal(struct damonctl_scheme *s, const char *metric, uint64_t target)
{
	struct damonctl_goal *g = damonctl_scheme_add_goal(s);

	assert_non_null(g);
	assert_int_equal(damonctl_goal_set_str(g, DAMONCTL_GOAL_METRIC, metric), 0);
	damonctl_goal_set(g, DAMONCTL_GOAL_TARGET_VALUE, target);
}

static int plan(struct planned *x, bool scope_pid)
{
	x->why[0] = '\0';
	return damonctl_fallback_plan(x->s.ctx, x->k, x->f, scope_pid, x->fbs, x->why,
				      sizeof(x->why));
}

static struct damonctl_fallback entry(const struct planned *x, unsigned int i)
{
	struct damonctl_fallback fb = { .sz = sizeof(fb) };

	assert_int_equal(damonctl_fallbacks_get(x->fbs, i, &fb), 0);
	return fb;
}

static const char *action(const struct planned *x, unsigned int si)
{
	return damonctl_scheme_get_str(damonctl_context_scheme(x->c, si), DAMONCTL_SCHEME_ACTION);
}

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("'%s' does not say '%s'", s, part);
}

static void feature(const struct planned *x, enum damonctl_feature feat, bool want)
{
	assert_int_equal(damonctl_features_has(x->f, feat) == DAMONCTL_YES, want);
}

/* 6.1: no tried_regions (6.2) to collapse from, no quota goals (6.8) to feed */
static void plan_61(void **state)
{
	struct planned x;

	(void)state;
	setup(&x, "6.1-layout.txt", 1, "collapse");
	feature(&x, DAMONCTL_FEAT_TRIED_REGIONS, false);
	assert_int_equal(plan(&x, false), -EOPNOTSUPP);
	assert_contains(x.why, "scheme 0: ");
	assert_contains(x.why, "tried_regions");
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 0);
	teardown(&x);

	setup(&x, "6.1-layout.txt", 1, "stat");
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	assert_int_equal(plan(&x, false), -EOPNOTSUPP);
	assert_contains(x.why, "quota goals (6.8)");
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 0);
	teardown(&x);

	/* nothing asked of the agent: nothing planned, on any kernel */
	setup(&x, "6.1-layout.txt", 2, "stat");
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 0);
	assert_int_equal(damonctl_context_nr_schemes(x.c), 1);
	teardown(&x);
}

/* 6.12: collapse by the agent, the scheme a stat scheme with the same pattern, an observer
 * per target */
static void plan_612_collapse(void **state)
{
	struct planned x;
	struct damonctl_fallback fb;
	uint64_t pat[DAMONCTL_PAT_NR];

	(void)state;
	setup(&x, "6.12-defaults.txt", 2, "collapse");
	feature(&x, DAMONCTL_FEAT_ACTION_COLLAPSE, false);
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	damonctl_scheme_pattern(x.sc, pat);
	assert_int_equal(plan(&x, false), 0);
	/* per target: the scheme (0, then its copy) and its observer, in that order */
	assert_int_equal(damonctl_context_nr_schemes(x.c), 4);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 2);
	fb = entry(&x, 0);
	assert_int_equal(fb.kind, DAMONCTL_FALLBACK_COLLAPSE);
	assert_false(fb.by_kernel);
	assert_int_equal(fb.scheme, 0);
	assert_int_equal(fb.observer, 1);
	assert_int_equal(fb.tmpl, 0);
	assert_int_equal(fb.target, 0);
	assert_int_equal(fb.target_bp, 3000);
	assert_int_equal(fb.quota_ms, 100);
	assert_int_equal(fb.quota_bytes, 64 << 20);
	assert_int_equal(fb.reset_ms, 500);
	assert_memory_equal(fb.pattern, pat, sizeof(pat));
	fb = entry(&x, 1);
	assert_int_equal(fb.scheme, 2);
	assert_int_equal(fb.observer, 3);
	assert_int_equal(fb.tmpl, 0);
	assert_int_equal(fb.target, 1);
	/* the kernel only finds regions: stat, no quota and no goal left to it */
	assert_string_equal(action(&x, 0), "stat");
	assert_string_equal(action(&x, 2), "stat");
	assert_int_equal(damonctl_scheme_nr_goals(x.sc), 0);
	assert_int_equal(damonctl_scheme_get(x.sc, DAMONCTL_SCHEME_QUOTA_MS), 0);
	assert_int_equal(damonctl_scheme_get(x.sc, DAMONCTL_SCHEME_QUOTA_BYTES), 0);
	/* the observer matches every region */
	damonctl_scheme_pattern(damonctl_context_scheme(x.c, 1), pat);
	assert_int_equal(pat[DAMONCTL_PAT_SZ_MIN], 0);
	assert_int_equal(pat[DAMONCTL_PAT_NR_ACCESSES_MIN], 0);
	assert_int_equal(pat[DAMONCTL_PAT_AGE_MIN], 0);
	assert_string_equal(action(&x, 1), "stat");
	/* which schemes are whose */
	assert_true(damonctl_fallbacks_serves(x.fbs, 3));
	assert_false(damonctl_fallbacks_serves(x.fbs, 4));
	assert_false(damonctl_fallbacks_agents_scheme(x.fbs, 0));
	assert_true(damonctl_fallbacks_agents_scheme(x.fbs, 1));
	assert_true(damonctl_fallbacks_agents_scheme(x.fbs, 2));
	assert_int_equal(damonctl_fallbacks_user_scheme(x.fbs, 1), 0);
	assert_int_equal(damonctl_fallbacks_check_one_scheme(x.fbs, x.why, sizeof(x.why)), 0);
	/* planned again (tune): what is served is left alone */
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 2);
	assert_int_equal(damonctl_context_nr_schemes(x.c), 4);
	teardown(&x);

	/* the agent measures the hugepage_mem_bp goal only */
	setup(&x, "6.12-defaults.txt", 1, "collapse");
	add_goal(x.sc, "some_mem_psi_us", 1000);
	assert_int_equal(plan(&x, false), -EOPNOTSUPP);
	assert_contains(x.why, "not some_mem_psi_us");
	teardown(&x);

	/* physical memory cannot be collapsed */
	setup(&x, "6.12-defaults.txt", 1, "collapse");
	damonctl_context_set_str(x.c, DAMONCTL_CONTEXT_OPERATIONS, "paddr");
	assert_int_equal(plan(&x, false), -EINVAL);
	assert_contains(x.why, "physical addresses");
	teardown(&x);
}

/* 6.12: a hugepage_mem_bp goal becomes user_input, fed from the measured ratio */
static void plan_612_goal(void **state)
{
	struct planned x;
	struct damonctl_fallback fb;
	struct damonctl_goal *g;

	(void)state;
	setup(&x, "6.12-defaults.txt", 2, "stat");
	feature(&x, DAMONCTL_FEAT_HUGEPAGE_MEM_BP, false);
	add_goal(x.sc, "some_mem_psi_us", 1000);
	add_goal(x.sc, "hugepage_mem_bp", 2500);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 1);
	fb = entry(&x, 0);
	assert_int_equal(fb.kind, DAMONCTL_FALLBACK_HUGEPAGE_GOAL);
	assert_int_equal(fb.scheme, 0);
	assert_int_equal(fb.goal, 1);
	assert_int_equal(fb.target_bp, 2500);
	assert_int_equal(fb.reset_ms, 500);
	assert_false(fb.scope_pid);
	g = damonctl_scheme_goal(x.sc, 1);
	assert_string_equal(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), "user_input");
	assert_int_equal(damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE), 2500);
	assert_int_equal(damonctl_goal_get(g, DAMONCTL_GOAL_CURRENT_VALUE), 1000);
	/* the other goal is the kernel's */
	assert_string_equal(damonctl_goal_get_str(damonctl_scheme_goal(x.sc, 0),
						  DAMONCTL_GOAL_METRIC), "some_mem_psi_us");
	assert_int_equal(damonctl_context_nr_schemes(x.c), 1);
	teardown(&x);

	/* two of the user's schemes need the agent: it serves one per kdamond */
	setup(&x, "6.12-defaults.txt", 1, "stat");
	add_goal(damonctl_context_add_scheme_copy(x.c, x.sc), "hugepage_mem_bp", 4000);
	add_goal(x.sc, "hugepage_mem_bp", 2500);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 2);
	assert_int_equal(damonctl_fallbacks_check_one_scheme(x.fbs, x.why, sizeof(x.why)),
			 -EINVAL);
	assert_contains(x.why, "schemes 0 and 1");
	teardown(&x);
}

/* 7.2: the kernel collapses, on what the agent allows; the goal it cannot measure is fed */
static void plan_72(void **state)
{
	struct planned x;
	struct damonctl_fallback fb;
	unsigned int nf;

	(void)state;
	setup(&x, "7.2-defaults.txt", 1, "collapse");
	feature(&x, DAMONCTL_FEAT_ACTION_COLLAPSE, true);
	feature(&x, DAMONCTL_FEAT_HUGEPAGE_MEM_BP, false);
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	nf = damonctl_scheme_nr_filters(x.sc, DAMONCTL_FILTERS_CORE) +
	     damonctl_scheme_nr_filters(x.sc, DAMONCTL_FILTERS_OPS);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 2);
	fb = entry(&x, 0);
	assert_int_equal(fb.kind, DAMONCTL_FALLBACK_COLLAPSE);
	assert_true(fb.by_kernel);
	assert_int_equal(fb.scheme, 0);
	assert_int_equal(fb.observer, 1);
	assert_int_equal(fb.target_bp, 3000);
	assert_int_equal(fb.quota_bytes, 64 << 20);
	fb = entry(&x, 1);
	assert_int_equal(fb.kind, DAMONCTL_FALLBACK_HUGEPAGE_GOAL);
	assert_int_equal(fb.scheme, 0);
	assert_int_equal(fb.goal, 0);
	/* it keeps its action, now allowed no address */
	assert_string_equal(action(&x, 0), "collapse");
	assert_true(damonctl_scheme_nr_filters(x.sc, DAMONCTL_FILTERS_CORE) +
		    damonctl_scheme_nr_filters(x.sc, DAMONCTL_FILTERS_OPS) > nf);
	assert_string_equal(damonctl_scheme_get_str(x.sc, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER),
			    "temporal");
	teardown(&x);

	/* the agent's closed quota fed back is no quota of the user's */
	setup(&x, "7.2-defaults.txt", 1, "collapse");
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	damonctl_scheme_set(x.sc, DAMONCTL_SCHEME_QUOTA_BYTES,
			    DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(entry(&x, 0).quota_bytes, 0);
	assert_int_equal(damonctl_scheme_get(x.sc, DAMONCTL_SCHEME_QUOTA_BYTES), 0);
	teardown(&x);

	/* without a goal, collapse is the kernel's alone */
	setup(&x, "7.2-defaults.txt", 2, "collapse");
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 0);
	assert_int_equal(damonctl_context_nr_schemes(x.c), 1);
	teardown(&x);
}

/* 7.4-like: the kernel measures hugepage_mem_bp system-wide, not over the targets */
static void plan_74(void **state)
{
	struct planned x;

	(void)state;
	setup(&x, "7.2-defaults.txt", 1, "stat");
	x.f->has[DAMONCTL_FEAT_HUGEPAGE_MEM_BP] = DAMONCTL_YES;
	add_goal(x.sc, "hugepage_mem_bp", 2500);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 0);
	assert_string_equal(damonctl_goal_get_str(damonctl_scheme_goal(x.sc, 0),
						  DAMONCTL_GOAL_METRIC), "hugepage_mem_bp");
	assert_int_equal(plan(&x, true), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 1);
	assert_true(entry(&x, 0).scope_pid);
	teardown(&x);

	/* collapse paced to a goal the kernel measures: one budget, no goal fed */
	setup(&x, "7.2-defaults.txt", 1, "collapse");
	x.f->has[DAMONCTL_FEAT_HUGEPAGE_MEM_BP] = DAMONCTL_YES;
	add_goal(x.sc, "hugepage_mem_bp", 2500);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 1);
	assert_int_equal(entry(&x, 0).kind, DAMONCTL_FALLBACK_COLLAPSE);
	assert_true(entry(&x, 0).by_kernel);
	teardown(&x);
}

/* A plan damonc 0.2 stored (run/damonc/started.json) reads back and writes out the same */
static const char stored[] =
	"[{\"kind\":\"collapse\",\"scheme\":0,\"target\":0,\"observer\":1,\"template\":0,"
	"\"collapsed_by\":\"agent\",\"hot\":{\"sz_min\":4096,\"sz_max\":18446744073709551615,"
	"\"nr_accesses_min\":5,\"nr_accesses_max\":4294967295,\"age_min\":0,"
	"\"age_max\":4294967295},\"target_bp\":3000,\"scope\":\"pid\",\"quota_ms\":100,"
	"\"quota_bytes\":67108864,\"reset_ms\":500},"
	"{\"kind\":\"hugepage_mem_bp\",\"scheme\":2,\"goal\":1,\"target_bp\":2500,"
	"\"scope\":\"system\",\"reset_ms\":1000},"
	"{\"kind\":\"collapse\",\"scheme\":3,\"target\":1,\"observer\":4,\"template\":0,"
	"\"collapsed_by\":\"kernel\",\"hot\":{\"sz_min\":0,\"sz_max\":0,\"nr_accesses_min\":0,"
	"\"nr_accesses_max\":0,\"age_min\":0,\"age_max\":0},\"target_bp\":0,"
	"\"scope\":\"system\",\"quota_bytes\":0,\"reset_ms\":1000}]";

static void json_round_trip(void **state)
{
	struct damonctl_fallbacks *fbs;
	struct damonctl_fallback fb = { .sz = sizeof(fb) };
	char why[256], *doc;

	(void)state;
	assert_int_equal(damonctl_fallbacks_new(&fbs), 0);
	assert_int_equal(damonctl_fallbacks_from_json(stored, fbs, why, sizeof(why)), 0);
	assert_int_equal(damonctl_fallbacks_count(fbs), 3);
	assert_int_equal(damonctl_fallbacks_get(fbs, 0, &fb), 0);
	assert_int_equal(fb.pattern[DAMONCTL_PAT_SZ_MAX], UINT64_MAX);
	assert_true(fb.scope_pid);
	assert_int_equal(damonctl_fallbacks_get(fbs, 2, &fb), 0);
	assert_true(fb.by_kernel);
	assert_int_equal(fb.observer, 4);
	doc = damonctl_fallbacks_to_json(fbs);
	assert_non_null(doc);
	assert_string_equal(doc, stored);
	free(doc);

	/* the oldest entries lack observer and template: the scheme stands for both */
	assert_int_equal(damonctl_fallbacks_from_json(
		"[{\"kind\":\"collapse\",\"scheme\":7}]", fbs, why, sizeof(why)), 0);
	assert_int_equal(damonctl_fallbacks_count(fbs), 1);
	assert_int_equal(damonctl_fallbacks_get(fbs, 0, &fb), 0);
	assert_int_equal(fb.observer, 7);
	assert_int_equal(fb.tmpl, 7);

	/* not a plan: refused, the plan held kept */
	assert_int_equal(damonctl_fallbacks_from_json("{}", fbs, why, sizeof(why)), -EBADMSG);
	assert_contains(why, "not an array");
	assert_int_equal(damonctl_fallbacks_from_json("[{\"scheme\":1}]", fbs, why, sizeof(why)),
			 -EBADMSG);
	assert_contains(why, "fallback 0");
	assert_int_equal(damonctl_fallbacks_from_json("[", fbs, why, sizeof(why)), -EBADMSG);
	assert_int_equal(damonctl_fallbacks_count(fbs), 1);
	damonctl_fallbacks_free(fbs);
}

/* A caller built against an older, shorter struct: only its fields are read or written */
static void sized_entries(void **state)
{
	struct damonctl_fallbacks *fbs;
	struct damonctl_fallback fb = { .sz = sizeof(fb), .kind = DAMONCTL_FALLBACK_COLLAPSE,
					.scheme = 3, .quota_ms = 9 }, small;
	unsigned int i;

	(void)state;
	assert_int_equal(damonctl_fallbacks_new(&fbs), 0);
	assert_int_equal(damonctl_fallbacks_add(fbs, &fb), 0);
	memset(&small, 0xa5, sizeof(small));
	small.sz = offsetof(struct damonctl_fallback, quota_ms);
	assert_int_equal(damonctl_fallbacks_get(fbs, 0, &small), 0);
	assert_int_equal(small.scheme, 3);
	assert_int_equal(small.quota_ms, 0xa5a5a5a5a5a5a5a5ULL);	/* not its field */
	small.quota_ms = 0;
	/* written with the short size: the fields it lacks become 0 */
	assert_int_equal(damonctl_fallbacks_set(fbs, 0, &small), 0);
	assert_int_equal(damonctl_fallbacks_get(fbs, 0, &fb), 0);
	assert_int_equal(fb.quota_ms, 0);
	small.sz = 4;
	assert_int_equal(damonctl_fallbacks_get(fbs, 0, &small), -EINVAL);
	assert_int_equal(damonctl_fallbacks_get(fbs, 1, &fb), -ENOENT);
	fb.kind = 7;
	assert_int_equal(damonctl_fallbacks_add(fbs, &fb), -EINVAL);
	fb.kind = DAMONCTL_FALLBACK_HUGEPAGE_GOAL;
	for (i = 1; i < 160; i++)
		assert_int_equal(damonctl_fallbacks_add(fbs, &fb), 0);
	assert_int_equal(damonctl_fallbacks_add(fbs, &fb), -ENOSPC);
	assert_int_equal(damonctl_fallbacks_remove(fbs, 0), 0);
	assert_int_equal(damonctl_fallbacks_count(fbs), 159);
	assert_int_equal(damonctl_fallbacks_remove(fbs, 159), -ENOENT);
	damonctl_fallbacks_free(fbs);
}

/* Tuned schemes: their pattern and the user's quota taken again */
static void refresh(void **state)
{
	struct planned x;

	(void)state;
	setup(&x, "7.2-defaults.txt", 1, "collapse");
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	assert_int_equal(plan(&x, false), 0);
	damonctl_scheme_set(x.sc, DAMONCTL_SCHEME_NR_ACCESSES_MIN, 9);
	damonctl_scheme_set(x.sc, DAMONCTL_SCHEME_QUOTA_BYTES, 1 << 20);
	damonctl_scheme_set(x.sc, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS, 2000);
	damonctl_fallbacks_refresh(x.fbs, x.k);
	assert_int_equal(entry(&x, 0).pattern[DAMONCTL_PAT_NR_ACCESSES_MIN], 9);
	assert_int_equal(entry(&x, 0).quota_bytes, 1 << 20);
	assert_int_equal(entry(&x, 0).reset_ms, 2000);
	/* the agent's closed quota is not the user's */
	damonctl_scheme_set(x.sc, DAMONCTL_SCHEME_QUOTA_BYTES,
			    DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES);
	damonctl_fallbacks_refresh(x.fbs, x.k);
	assert_int_equal(entry(&x, 0).quota_bytes, 1 << 20);
	teardown(&x);
}

/* The target index scheme @si is kept to (its rejecting target filter); -1: none. */
static int64_t kept_to(const struct planned *x, unsigned int si)
{
	const struct damonctl_scheme *s = damonctl_context_scheme(x->c, si);
	enum damonctl_filter_dir dirs[] = { DAMONCTL_FILTERS_CORE, DAMONCTL_FILTERS_OPS,
					    DAMONCTL_FILTERS_LEGACY };
	struct damonctl_filter *flt;
	unsigned int d, i;

	for (d = 0; d < 3; d++)
		damonctl_for_each_filter(s, dirs[d], flt, i)
			if (!strcmp(damonctl_filter_get_str(flt, DAMONCTL_FILTER_TYPE), "target") &&
			    !damonctl_filter_get(flt, DAMONCTL_FILTER_MATCHING))
				return (int64_t)damonctl_filter_get(flt, DAMONCTL_FILTER_TARGET_IDX);
	return -1;
}

/* 6.12, two targets planned: budget 0 is schemes 0+1 for target 0, budget 1 schemes 2+3
 * for target 1 (plan_612_collapse checks that). */
static void retarget_setup(struct planned *x)
{
	setup(x, "6.12-defaults.txt", 2, "collapse");
	feature(x, DAMONCTL_FEAT_FILTER_ADDR_TARGET, true);
	add_goal(x->sc, "hugepage_mem_bp", 3000);
	assert_int_equal(plan(x, false), 0);
	assert_int_equal(damonctl_fallbacks_count(x->fbs), 2);
}

/* Following the targets: budgets follow their targets, a gone target's serves the child,
 * else copies; leftovers go nowhere. */
static void retarget(void **state)
{
	const unsigned int second[] = { 1 }, both[] = { 0, 1 };
	struct damonctl_fallback fb = { .sz = sizeof(fb), .kind = DAMONCTL_FALLBACK_HUGEPAGE_GOAL };
	struct planned x;
	unsigned int i;

	(void)state;
	/* target 0 gone, target 1 now 0, the child 1: budget 1 follows to 0, budget 0 (of
	 * the gone target) serves the child; no scheme added */
	retarget_setup(&x);
	assert_int_equal(damonctl_fallbacks_retarget(x.fbs, x.c, x.f, second, 1, 1, 17), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 2);
	assert_int_equal(damonctl_context_nr_schemes(x.c), 4);
	assert_int_equal(entry(&x, 0).target, 1);
	assert_int_equal(entry(&x, 1).target, 0);
	assert_int_equal(kept_to(&x, 0), 1);
	assert_int_equal(kept_to(&x, 1), 1);
	assert_int_equal(kept_to(&x, 2), 0);
	assert_int_equal(kept_to(&x, 3), 0);
	teardown(&x);

	/* both live, the child 2: copies of budget 0's schemes (4 of 0, 5 of 1) serve it */
	retarget_setup(&x);
	assert_int_equal(damonctl_fallbacks_retarget(x.fbs, x.c, x.f, both, 2, 2, 17), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 3);
	assert_int_equal(damonctl_context_nr_schemes(x.c), 6);
	assert_int_equal(entry(&x, 0).target, 0);
	assert_int_equal(entry(&x, 1).target, 1);
	assert_int_equal(entry(&x, 2).kind, DAMONCTL_FALLBACK_COLLAPSE);
	assert_int_equal(entry(&x, 2).scheme, 4);
	assert_int_equal(entry(&x, 2).observer, 5);
	assert_int_equal(entry(&x, 2).tmpl, 0);
	assert_int_equal(entry(&x, 2).target, 2);
	assert_string_equal(action(&x, 4), "stat");
	assert_int_equal(kept_to(&x, 4), 2);
	assert_int_equal(kept_to(&x, 5), 2);
	assert_int_equal(kept_to(&x, 2), 1);
	teardown(&x);

	/* both gone, the child 0: budget 0 serves it, budget 1 leaves, its schemes kept to 17 */
	retarget_setup(&x);
	assert_int_equal(damonctl_fallbacks_retarget(x.fbs, x.c, x.f, NULL, 0, 0, 17), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 1);
	assert_int_equal(entry(&x, 0).scheme, 0);
	assert_int_equal(entry(&x, 0).target, 0);
	assert_int_equal(kept_to(&x, 0), 0);
	assert_int_equal(kept_to(&x, 2), 17);
	assert_int_equal(kept_to(&x, 3), 17);
	teardown(&x);

	/* no room for a copy (159 entries + goal and budget > 160): -ENOSPC, plan untouched */
	retarget_setup(&x);
	for (i = 2; i < 159; i++)
		assert_int_equal(damonctl_fallbacks_add(x.fbs, &fb), 0);
	assert_int_equal(damonctl_fallbacks_retarget(x.fbs, x.c, x.f, both, 2, 2, 17), -ENOSPC);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 159);
	assert_int_equal(entry(&x, 1).target, 1);
	assert_int_equal(damonctl_fallbacks_retarget(NULL, x.c, x.f, both, 2, 2, 17), -EINVAL);
	teardown(&x);
}

/* 7.2, the kernel collapses: a copy for the child brings a copy of the goal fed on it */
static void retarget_72(void **state)
{
	const unsigned int first[] = { 0 };
	struct planned x;

	(void)state;
	setup(&x, "7.2-defaults.txt", 1, "collapse");
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	assert_int_equal(plan(&x, false), 0);
	/* collapse budget (schemes 0+1), then the goal of scheme 0 (plan_72) */
	assert_int_equal(damonctl_fallbacks_retarget(x.fbs, x.c, x.f, first, 1, 1, 17), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 4);
	assert_int_equal(damonctl_context_nr_schemes(x.c), 4);
	assert_int_equal(entry(&x, 2).kind, DAMONCTL_FALLBACK_HUGEPAGE_GOAL);
	assert_int_equal(entry(&x, 2).scheme, 2);
	assert_int_equal(entry(&x, 2).goal, 0);
	assert_int_equal(entry(&x, 3).kind, DAMONCTL_FALLBACK_COLLAPSE);
	assert_true(entry(&x, 3).by_kernel);
	assert_int_equal(entry(&x, 3).scheme, 2);
	assert_int_equal(entry(&x, 3).observer, 3);
	assert_int_equal(entry(&x, 3).target, 1);
	assert_string_equal(action(&x, 2), "collapse");
	assert_int_equal(kept_to(&x, 2), 1);
	assert_int_equal(kept_to(&x, 0), 0);
	teardown(&x);

	/* no collapse budget: nothing to follow, nothing changed */
	setup(&x, "7.2-defaults.txt", 1, "stat");
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_retarget(x.fbs, x.c, x.f, first, 1, 1, 17), 0);
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 0);
	assert_int_equal(damonctl_context_nr_schemes(x.c), 1);
	teardown(&x);
}

/*
 * Schemes as what they stand for (damonctl_fallback_view): on 6.12 a collapse planned for the
 * agent is a stat scheme with no quota and no goal in the kernel; the view shows the
 * collapse with the plan's quota and goal, measured by the agent, and the agent's counts;
 * the observer is no huge-page scheme of the user's but is the plan's. A hugepage_mem_bp
 * goal made user_input shows as hugepage_mem_bp, fed, and the other goal as the kernel's.
 */
static void views(void **state)
{
	struct damonctl_fallback_stats st = { .sz = sizeof(st), .measured_bp = 1200, .nr = 1,
					       .s = { { .scheme = 2, .nr_applied = 3,
							.sz_applied = 6 << 20 } } };
	struct damonctl_fallback_view v = { .sz = sizeof(v) }, small;
	struct planned x;

	(void)state;
	setup(&x, "6.12-defaults.txt", 2, "collapse");
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallback_view(damonctl_context_scheme(x.c, 2), 2, x.fbs, &st, &v),
			 0);
	assert_int_equal(v.scheme, 2);
	assert_string_equal(v.action, "collapse");
	assert_true(v.served);
	assert_true(v.program_collapses);
	assert_false(v.program_paces);
	assert_int_equal(v.quota_ms, 100);
	assert_int_equal(v.quota_bytes, 64 << 20);
	assert_int_equal(v.quota_reset_ms, 500);
	assert_int_equal(v.nr_goals, 1);
	assert_string_equal(v.goals[0].metric, "hugepage_mem_bp");
	assert_int_equal(v.goals[0].target, 3000);
	assert_int_equal(v.goals[0].current, 1200);
	assert_true(v.goals[0].fed);
	assert_int_equal(v.program.nr_applied, 3);
	/* collapsed: the agent's bytes, not the stat stand-in's */
	assert_int_equal(damonctl_fallback_view_collapsed(&v), 6 << 20);
	assert_int_equal(v.sz_applied, 0);
	assert_false(damonctl_fallback_scheme_is_hugepage(damonctl_context_scheme(x.c, 1), 1,
							  x.fbs));
	assert_true(damonctl_fallback_scheme_is_hugepage(damonctl_context_scheme(x.c, 2), 2,
							 x.fbs));
	/* without a plan it is the kernel's stat scheme */
	assert_int_equal(damonctl_fallback_view(damonctl_context_scheme(x.c, 2), 2, NULL, NULL,
						&v), 0);
	assert_string_equal(v.action, "stat");
	assert_false(v.served);
	assert_int_equal(v.nr_goals, 0);
	assert_int_equal(damonctl_fallback_view_collapsed(&v), 0);
	/* an older caller's struct without room for goals gets none */
	small.sz = offsetof(struct damonctl_fallback_view, goals);
	assert_int_equal(damonctl_fallback_view(damonctl_context_scheme(x.c, 0), 0, x.fbs, &st,
						&small), 0);
	assert_int_equal(small.nr_goals, 0);
	assert_string_equal(small.action, "collapse");
	small.sz = 8;
	assert_int_equal(damonctl_fallback_view(x.sc, 0, x.fbs, &st, &small), -EINVAL);
	teardown(&x);

	setup(&x, "6.12-defaults.txt", 1, "stat");
	add_goal(x.sc, "some_mem_psi_us", 1000);
	add_goal(x.sc, "hugepage_mem_bp", 2500);
	assert_true(damonctl_fallback_scheme_is_hugepage(x.sc, 0, NULL));
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallback_view(x.sc, 0, x.fbs, NULL, &v), 0);
	assert_int_equal(v.nr_goals, 2);
	assert_string_equal(v.goals[0].metric, "some_mem_psi_us");
	assert_false(v.goals[0].fed);
	assert_string_equal(v.goals[1].metric, "hugepage_mem_bp");
	assert_true(v.goals[1].fed);
	assert_int_equal(v.goals[1].target, 2500);
	assert_true(v.served);
	assert_false(v.program_collapses);
	assert_true(damonctl_fallback_scheme_is_hugepage(x.sc, 0, x.fbs));
	teardown(&x);
}

/* A goal the plan stands in for, moved (tune --goal-bp): the entry and the user_input goal
 * the kernel tunes to; a scope given moves with it. On 6.12 a collapse's budgets move, the
 * per-target copies' too. */
static void set_goal(void **state)
{
	struct damonctl_fallback fb;
	struct planned x;

	(void)state;
	setup(&x, "6.12-defaults.txt", 1, "stat");
	add_goal(x.sc, "some_mem_psi_us", 1000);
	add_goal(x.sc, "hugepage_mem_bp", 2500);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_set_goal(x.fbs, x.c, 0, 4000, -1), 1);
	fb = entry(&x, 0);
	assert_int_equal(fb.target_bp, 4000);
	assert_false(fb.scope_pid);
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(x.sc, 1),
					   DAMONCTL_GOAL_TARGET_VALUE), 4000);
	/* the kernel's own goal is left alone */
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(x.sc, 0),
					   DAMONCTL_GOAL_TARGET_VALUE), 1000);
	assert_int_equal(damonctl_fallbacks_set_goal(x.fbs, x.c, 0, 500, 1), 1);
	fb = entry(&x, 0);
	assert_true(fb.scope_pid);
	assert_int_equal(fb.target_bp, 500);
	/* a scheme the plan does not serve; bad arguments */
	damonctl_context_add_scheme(x.c);
	assert_int_equal(damonctl_fallbacks_set_goal(x.fbs, x.c, 1, 500, -1), 0);
	assert_int_equal(damonctl_fallbacks_set_goal(x.fbs, x.c, 9, 500, -1), -EINVAL);
	assert_int_equal(damonctl_fallbacks_set_goal(x.fbs, x.c, 0, 500, 2), -EINVAL);
	teardown(&x);

	setup(&x, "6.12-defaults.txt", 2, "collapse");
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	assert_int_equal(plan(&x, false), 0);
	/* the per-target copy (scheme 2, made from scheme 0) follows its scheme: both
	 * targets' budgets aim at the new goal */
	assert_int_equal(damonctl_fallbacks_set_goal(x.fbs, x.c, 0, 800, -1), 2);
	assert_int_equal(entry(&x, 0).target_bp, 800);
	assert_int_equal(entry(&x, 1).target_bp, 800);
	teardown(&x);

	/* 7.2: the kernel collapses, each copy with a user_input goal the agent feeds: those
	 * the kernel tunes to move too */
	setup(&x, "7.2-defaults.txt", 2, "collapse");
	add_goal(x.sc, "hugepage_mem_bp", 3000);
	assert_int_equal(plan(&x, false), 0);
	assert_int_equal(damonctl_fallbacks_set_goal(x.fbs, x.c, 0, 800, -1),
			 (int)damonctl_fallbacks_count(x.fbs));
	for (unsigned int i = 0; i < damonctl_fallbacks_count(x.fbs); i++) {
		struct damonctl_fallback e = entry(&x, i);

		assert_int_equal(e.target_bp, 800);
		if (e.kind == DAMONCTL_FALLBACK_HUGEPAGE_GOAL)
			assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(
				damonctl_context_scheme(x.c, e.scheme), e.goal),
				DAMONCTL_GOAL_TARGET_VALUE), 800);
	}
	assert_int_equal(damonctl_fallbacks_count(x.fbs), 4);
	teardown(&x);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_61),
		cmocka_unit_test(plan_612_collapse),
		cmocka_unit_test(plan_612_goal),
		cmocka_unit_test(plan_72),
		cmocka_unit_test(plan_74),
		cmocka_unit_test(json_round_trip),
		cmocka_unit_test(sized_entries),
		cmocka_unit_test(refresh),
		cmocka_unit_test(retarget),
		cmocka_unit_test(retarget_72),
		cmocka_unit_test(views),
		cmocka_unit_test(set_goal),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
