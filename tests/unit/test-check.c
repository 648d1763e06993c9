// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damonctl_tree_check()/damonctl_kdamond_check(): what a kernel cannot express (its version,
 * from the captures) and what `on` would refuse (ABI section 4); and damonctl_strerror()'s
 * sentences for the errno and file pairs the ABI doc and the captures document.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const char *const host_618[] = {
	"kdamonds/0/contexts/0/avail_operations", "paddr\n", NULL,
};

struct checked {
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_features *f;
	struct damonctl_context *c;
	struct damonctl_scheme *sc;
	char why[512];
};

/*
 * A capture read back, made valid for `on`: real regions instead of [0, 0), and core filters
 * of a type core_filters take (the kernel creates them as anon, ABI section 5).
 */
static void setup_checked(struct checked *x, const char *capture, const char *const *ov)
{
	unsigned int i;

	memset(x, 0, sizeof(*x));
	sysroot_setup(&x->s, capture, NULL, ov);
	assert_int_equal(damonctl_tree_read(x->s.ctx, &x->t), 0);
	assert_int_equal(damonctl_features_detect(x->s.ctx, &x->f), 0);
	x->c = damonctl_kdamond_context(damonctl_tree_kdamond(x->t, 0), 0);
	x->sc = damonctl_context_scheme(x->c, 0);
	for (i = 0; i < damonctl_context_nr_targets(x->c); i++) {
		struct damonctl_target *tg = damonctl_context_target(x->c, i);

		damonctl_target_clear_regions(tg);
		assert_int_equal(damonctl_target_add_region(tg, 4096, 1 << 20), 0);
	}
	for (i = 0; x->sc && i < damonctl_scheme_nr_filters(x->sc, DAMONCTL_FILTERS_CORE); i++)
		assert_int_equal(damonctl_filter_set_str(damonctl_scheme_filter(x->sc,
					DAMONCTL_FILTERS_CORE, i), DAMONCTL_FILTER_TYPE, "target"), 0);
}

static void teardown_checked(struct checked *x)
{
	damonctl_features_free(x->f);
	damonctl_tree_free(x->t);
	sysroot_teardown(&x->s);
}

static int check(struct checked *x)
{
	x->why[0] = '\0';
	return damonctl_tree_check(x->t, x->f, x->why, sizeof(x->why));
}

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("'%s' does not say '%s'", s, part);
}

static void captures_pass(void **state)
{
	struct checked x;

	(void)state;
	/* what a kernel shows, it can take back: each capture checks clean on itself */
	setup_checked(&x, "6.12-defaults.txt", NULL);
	assert_int_equal(check(&x), 0);
	assert_string_equal(x.why, "");
	teardown_checked(&x);
	setup_checked(&x, "7.2-defaults.txt", NULL);
	assert_int_equal(check(&x), 0);
	teardown_checked(&x);
	setup_checked(&x, "6.1-layout.txt", NULL);
	assert_int_equal(check(&x), 0);
	teardown_checked(&x);
	/* the 6.18 host registers paddr only (ABI source S1) */
	setup_checked(&x, "6.18-layout.txt", host_618);
	assert_int_equal(damonctl_context_set_str(x.c, DAMONCTL_CONTEXT_OPERATIONS, "paddr"), 0);
	assert_int_equal(check(&x), 0);
	teardown_checked(&x);
}

static void too_new_for_the_kernel(void **state)
{
	struct checked x;

	(void)state;
	/* collapse arrived in 7.2 (ABI section 8a); the 6.12 capture is 6.11 to 6.13 */
	setup_checked(&x, "6.12-defaults.txt", NULL);
	assert_int_equal(damonctl_scheme_set_str(x.sc, DAMONCTL_SCHEME_ACTION, "collapse"), 0);
	assert_int_equal(check(&x), -EOPNOTSUPP);
	assert_contains(x.why, "kdamond 0, context 0, scheme 0: ");
	assert_contains(x.why, "action 'collapse'");
	assert_contains(x.why, "arrived in Linux 7.2");
	assert_contains(x.why, "this kernel is 6.11 to 6.13");
	/* the same for the one kdamond */
	x.why[0] = '\0';
	assert_int_equal(damonctl_kdamond_check(damonctl_tree_kdamond(x.t, 0), x.f, x.why,
						sizeof(x.why)), -EOPNOTSUPP);
	assert_contains(x.why, "arrived in Linux 7.2");
	/* without features only what `on` refuses is checked */
	assert_int_equal(damonctl_kdamond_check(damonctl_tree_kdamond(x.t, 0), NULL, NULL, 0), 0);
	assert_int_equal(damonctl_scheme_set_str(x.sc, DAMONCTL_SCHEME_ACTION, "stat"), 0);

	/* addr_unit arrived in 6.18 */
	assert_int_equal(damonctl_context_set(x.c, DAMONCTL_CONTEXT_ADDR_UNIT, 4096), 0);
	assert_int_equal(check(&x), -EOPNOTSUPP);
	assert_contains(x.why, "kdamond 0, context 0: addr_unit");
	assert_contains(x.why, "arrived in Linux 6.18");
	assert_int_equal(damonctl_context_set(x.c, DAMONCTL_CONTEXT_ADDR_UNIT, 1), 0);

	/* dests arrived in 6.17 */
	assert_non_null(damonctl_scheme_add_dest(x.sc));
	assert_int_equal(check(&x), -EOPNOTSUPP);
	assert_contains(x.why, "scheme 0: dests");
	assert_contains(x.why, "arrived in Linux 6.17");
	teardown_checked(&x);

	/* hugepage_mem_bp is queued for 7.4: a 6.12 kernel cannot have it */
	setup_checked(&x, "6.12-defaults.txt", NULL);
	assert_int_equal(damonctl_goal_set_str(damonctl_scheme_goal(x.sc, 0), DAMONCTL_GOAL_METRIC,
					       "hugepage_mem_bp"), 0);
	assert_int_equal(check(&x), -EOPNOTSUPP);
	assert_contains(x.why, "scheme 0, goal 0: target_metric 'hugepage_mem_bp'");
	assert_contains(x.why, "queued for 7.4");
	assert_contains(x.why, "no released kernel");
	teardown_checked(&x);

	/* ...but on 7.2 only a probe can tell: not refused */
	setup_checked(&x, "7.2-defaults.txt", NULL);
	assert_int_equal(damonctl_goal_set_str(damonctl_scheme_goal(x.sc, 0), DAMONCTL_GOAL_METRIC,
					       "hugepage_mem_bp"), 0);
	assert_int_equal(damonctl_scheme_set_str(x.sc, DAMONCTL_SCHEME_ACTION, "collapse"), 0);
	assert_int_equal(check(&x), 0);
	teardown_checked(&x);

	/* the 6.18 host has no vaddr (a vaddr target needs a pid first) */
	setup_checked(&x, "6.18-layout.txt", host_618);
	assert_int_equal(damonctl_target_set_int(damonctl_context_target(x.c, 0),
						 DAMONCTL_TARGET_PID, 4242), 0);
	assert_int_equal(check(&x), -EOPNOTSUPP);
	assert_contains(x.why, "operations 'vaddr' is not available");
	assert_contains(x.why, "CONFIG_DAMON_VADDR");
	teardown_checked(&x);
}

static struct damonctl_kdamond *one_kdamond(struct damonctl_tree **t, const char *ops)
{
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_target *tg;

	*t = damonctl_tree_new();
	k = damonctl_tree_add_kdamond(*t);
	c = damonctl_kdamond_add_context(k);
	assert_int_equal(damonctl_context_set_str(c, DAMONCTL_CONTEXT_OPERATIONS, ops), 0);
	tg = damonctl_context_add_target(c);
	assert_int_equal(damonctl_target_set_int(tg, DAMONCTL_TARGET_PID, 4242), 0);
	assert_int_equal(damonctl_target_add_region(tg, 4096, 8192), 0);
	assert_non_null(damonctl_context_add_scheme(c));
	return k;
}

static int kcheck(struct damonctl_kdamond *k, char *why, size_t size)
{
	why[0] = '\0';
	return damonctl_kdamond_check(k, NULL, why, size);
}

/* addr_unit (6.18): 0 is refused at write; on paddr, a page over the unit is the smallest
 * region, which `on` wants a power of 2 (6.18.y); other operations sets ignore the unit */
static void addr_unit_refused(void **state)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_tree *t;
	char why[512];

	(void)state;
	k = one_kdamond(&t, "paddr");
	c = damonctl_kdamond_context(k, 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_ADDR_UNIT, 0), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "addr_unit is 0");
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_ADDR_UNIT, 3), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "addr_unit 3: the page size");
	assert_contains(why, "is not a power of 2");
	/* a power of 2 below a page, a page, and any unit above a page (the region is 1) */
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_ADDR_UNIT, page / 4), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_ADDR_UNIT, page), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_ADDR_UNIT, 3 * page), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);
	damonctl_tree_free(t);
	k = one_kdamond(&t, "vaddr");
	c = damonctl_kdamond_context(k, 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_ADDR_UNIT, 3), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);
	damonctl_tree_free(t);
}

static void refused_at_on(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_target *tg;
	struct damonctl_scheme *s;
	struct damonctl_filter *f;
	char why[512];

	(void)state;
	k = one_kdamond(&t, "vaddr");
	c = damonctl_kdamond_context(k, 0);
	tg = damonctl_context_target(c, 0);
	s = damonctl_context_scheme(c, 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);

	/* ABI section 4.2: nr_regions/min below 3, min above max, sample above aggr */
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_MIN_NR_REGIONS, 2), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "kdamond 0, context 0: the minimum number of regions is 2");
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_MIN_NR_REGIONS, 2000), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "(2000) exceeds the maximum (1000)");
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_MIN_NR_REGIONS, 10), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_SAMPLE_US, 200000), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "sampling interval (200000 us) exceeds the aggregation interval");
	/* aggrs != 0 and sample_us outside [min, max]_sample_us */
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_SAMPLE_US, 5000), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_GOAL_AGGRS, 3), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_GOAL_MIN_SAMPLE_US, 10000), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_GOAL_MAX_SAMPLE_US, 20000), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "intervals goal: the sampling interval (5000 us) is outside");
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_GOAL_MIN_SAMPLE_US, 30000), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "min_sample_us (30000) exceeds max_sample_us (20000)");
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_GOAL_AGGRS, 0), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);

	/* 4.4: vaddr needs a pid; regions must not be reversed or overlap */
	assert_int_equal(damonctl_target_set_int(tg, DAMONCTL_TARGET_PID, 0), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "context 0, target 0: vaddr needs a process id");
	assert_int_equal(damonctl_target_set_int(tg, DAMONCTL_TARGET_PID, 4242), 0);
	assert_int_equal(damonctl_target_add_region(tg, 8000, 9000), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "regions 0 and 1 overlap");
	damonctl_target_clear_regions(tg);
	assert_int_equal(damonctl_target_add_region(tg, 8192, 8192), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "region 0 [0x2000, 0x2000) is empty or reversed");
	damonctl_target_clear_regions(tg);
	/* paddr monitors one target, and needs no pid */
	assert_int_equal(damonctl_context_set_str(c, DAMONCTL_CONTEXT_OPERATIONS, "paddr"), 0);
	assert_int_equal(damonctl_target_set_int(tg, DAMONCTL_TARGET_PID, 0), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);
	assert_non_null(damonctl_context_add_target(c));
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "paddr monitors one target, not 2");
	assert_int_equal(damonctl_context_remove_target(c, 1), 0);

	/* a scheme whose range is empty can never apply */
	assert_int_equal(damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MIN, 10), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "scheme 0: the age range has its minimum (10) above its maximum (0)");
	assert_int_equal(damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MAX, DAMONCTL_MAX), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);

	/* 4.5: filters the kernel cannot build (reported as ENOMEM by the kernel) */
	f = damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_LEGACY);
	assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, "memcg"), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "scheme 0, filter 0: a memcg filter needs memcg_path");
	assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, "addr"), 0);
	assert_int_equal(damonctl_filter_set(f, DAMONCTL_FILTER_ADDR_START, 100), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "addr_end is below addr_start");
	assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, "hugepage_size"), 0);
	assert_int_equal(damonctl_filter_set(f, DAMONCTL_FILTER_MIN, 2 << 20), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "min is above max");
	assert_int_equal(damonctl_scheme_remove_filter(s, DAMONCTL_FILTERS_LEGACY, 0), 0);
	/* core_filters take addr and target only, ops_filters the rest (ABI section 2) */
	f = damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_CORE);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "scheme 0, core filter 0: core_filters take only addr and target");
	assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, "target"), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);
	f = damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_OPS);
	assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, "addr"), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "ops filter 0: ops_filters do not take 'addr' filters");
	assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, "young"), 0);
	assert_int_equal(kcheck(k, why, sizeof(why)), 0);

	/* ABI section 2: nr_contexts is 0 or 1 */
	assert_non_null(damonctl_kdamond_add_context(k));
	assert_int_equal(kcheck(k, why, sizeof(why)), -EINVAL);
	assert_contains(why, "a kdamond runs one context, not 2");
	/* the tree check names the kdamond */
	assert_non_null(damonctl_tree_add_kdamond(t));
	why[0] = '\0';
	assert_int_equal(damonctl_tree_check(t, NULL, why, sizeof(why)), -EINVAL);
	assert_contains(why, "kdamond 0: a kdamond runs one context");
	/* no sentence wanted */
	assert_int_equal(damonctl_tree_check(t, NULL, NULL, 0), -EINVAL);
	damonctl_tree_free(t);
}

/* ---- strerror ---- */

static const char *say(struct damonctl_ctx *ctx, int err)
{
	static char buf[1024];
	int n = damonctl_strerror(ctx, err, buf, sizeof(buf));

	assert_int_equal(n, strlen(buf));
	return buf;
}

/* damonctl_kdamond_check_system(): a memcg filter's path, in filters/ as in ops_filters/,
 * names a directory of the sysroot's cgroup v2 hierarchy; without a hierarchy nothing is
 * checked (an emulated root cannot tell) */
static void memcg_paths_checked(void **state)
{
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	struct damonctl_scheme *sc;
	struct damonctl_filter *legacy, *ops;
	char path[PATH_MAX], why[512];
	FILE *fp;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	k = one_kdamond(&t, "paddr");
	sc = damonctl_context_scheme(damonctl_kdamond_context(k, 0), 0);
	legacy = damonctl_scheme_add_filter(sc, DAMONCTL_FILTERS_LEGACY);
	ops = damonctl_scheme_add_filter(sc, DAMONCTL_FILTERS_OPS);
	assert_int_equal(damonctl_filter_set_str(legacy, DAMONCTL_FILTER_TYPE, "memcg"), 0);
	assert_int_equal(damonctl_filter_set_str(legacy, DAMONCTL_FILTER_MEMCG_PATH, "/db"), 0);
	assert_int_equal(damonctl_filter_set_str(ops, DAMONCTL_FILTER_TYPE, "memcg"), 0);
	assert_int_equal(damonctl_filter_set_str(ops, DAMONCTL_FILTER_MEMCG_PATH, "/web"), 0);

	/* no hierarchy in the sysroot: the paths cannot be checked */
	assert_int_equal(damonctl_kdamond_check_system(s.ctx, k, why, sizeof(why)), 0);

	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/db", s.dir);
	assert_int_equal(damonctl_make_dirs(path), 0);
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/cgroup.controllers", s.dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("cpu memory\n", fp);
	fclose(fp);
	assert_int_equal(damonctl_kdamond_check_system(s.ctx, k, why, sizeof(why)), -ENOENT);
	assert_contains(why, "memcg_path '/web' names no cgroup");
	assert_int_equal(damonctl_filter_set_str(ops, DAMONCTL_FILTER_MEMCG_PATH, "/db"), 0);
	assert_int_equal(damonctl_kdamond_check_system(s.ctx, k, why, sizeof(why)), 0);
	assert_int_equal(damonctl_filter_set_str(legacy, DAMONCTL_FILTER_MEMCG_PATH, "/gone"), 0);
	assert_int_equal(damonctl_kdamond_check_system(s.ctx, k, why, sizeof(why)), -ENOENT);
	assert_contains(why, "memcg_path '/gone' names no cgroup");

	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static void sentences(void **state)
{
	struct sysroot s;
	struct damonctl_ctx *ctx;
	char small[16], *p;
	int n;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", "behaviour-7.2.13.txt", NULL);
	ctx = s.ctx;

	/* ABI section 2: nr_kdamonds gives EBUSY while any kdamond runs */
	dctl_set_error(ctx, -EBUSY, true, "kdamonds/nr_kdamonds", "1");
	assert_string_equal(say(ctx, -EBUSY),
			    "nr_kdamonds cannot change while any kdamond runs "
			    "(kdamonds/nr_kdamonds: 1) (Device or resource busy)");

	/* the 7.2 capture: Debian runs DAMON_STAT at boot, and `on` is EBUSY until it is
	 * disabled */
	assert_true(asprintf(&p, "%s/sys/module/damon_stat/parameters/enabled", s.dir) > 0);
	write_file(p, "Y\n");
	free(p);
	dctl_set_error(ctx, -EBUSY, true, "kdamonds/0/state", "on");
	assert_string_equal(say(ctx, -EBUSY),
			    "the kernel refused to start kdamond 0 (kdamonds/0/state: on): "
			    "DAMON_STAT holds DAMON exclusively; disable it first (echo N > "
			    "/sys/module/damon_stat/parameters/enabled) (Device or resource busy)");
	assert_true(asprintf(&p, "%s/sys/module/damon_stat/parameters/enabled", s.dir) > 0);
	write_file(p, "N\n");
	free(p);
	assert_contains(say(ctx, -EBUSY), "already running, or an exclusive DAMON user");
	/* section 7: a module's enabled gives EBUSY (6.12 and later) while DAMON is held */
	dctl_set_error(ctx, -EBUSY, true, "/sys/module/damon_reclaim/parameters/enabled", "Y");
	assert_contains(say(ctx, -EBUSY), "DAMON is in use: the module runs DAMON exclusively");

	/* section 3: off after a self-stop is EPERM, off before any on is EINVAL */
	dctl_set_error(ctx, -EPERM, true, "kdamonds/0/state", "off");
	assert_contains(say(ctx, -EPERM), "already stopped by itself");
	dctl_set_error(ctx, -EINVAL, true, "kdamonds/0/state", "off");
	assert_contains(say(ctx, -EINVAL), "the kdamond was never started");
	/* section 4: any scheme build failure comes back as ENOMEM */
	dctl_set_error(ctx, -ENOMEM, true, "kdamonds/1/state", "on");
	n = damonctl_strerror(ctx, -ENOMEM, NULL, 0);
	assert_true(n > 0);
	assert_contains(say(ctx, -ENOMEM), "the kernel refused to start kdamond 1");
	assert_contains(say(ctx, -ENOMEM), "an unknown memcg path");
	dctl_set_error(ctx, -EINVAL, true, "kdamonds/0/state", "on");
	assert_contains(say(ctx, -EINVAL), "the kernel rejected the configuration");
	/* commit on a kdamond that stopped: ECANCELED after the 2026 race fixes */
	dctl_set_error(ctx, -ECANCELED, true, "kdamonds/0/state", "commit");
	assert_string_equal(say(ctx, -ECANCELED),
			    "the kernel refused to commit to kdamond 0 (kdamonds/0/state: "
			    "commit): the kdamond is not running any more (Operation canceled)");
	/* a busy tried-regions walk */
	dctl_set_error(ctx, -EBUSY, true, "kdamonds/0/state", "update_schemes_tried_regions");
	assert_contains(say(ctx, -EBUSY), "another tried-regions update is in progress");
	/* the test namespace's read-only host directory */
	dctl_set_error(ctx, -EROFS, true, "kdamonds/0/state", "on");
	assert_contains(say(ctx, -EROFS), "read-only");
	/* reads name the file without a value */
	dctl_set_error(ctx, -ENOENT, false, "kdamonds/0/refresh_ms", "");
	assert_string_equal(say(ctx, -ENOENT),
			    "the file does not exist: the tree changed under us, or the kernel "
			    "lacks it (kdamonds/0/refresh_ms) (No such file or directory)");
	/* an errno other than the last failure's: no file is named */
	assert_string_equal(say(ctx, -ERANGE),
			    "the value is out of range for this file (Numerical result out of "
			    "range)");
	damonctl_clear_error(ctx);
	assert_contains(say(ctx, -ENOENT), "no DAMON sysfs interface");
	assert_string_equal(say(ctx, -EXDEV), "Invalid cross-device link");
	/* truncation reports the full length, as snprintf */
	n = damonctl_strerror(ctx, -EOPNOTSUPP, small, sizeof(small));
	assert_int_equal(n, strlen(say(ctx, -EOPNOTSUPP)));
	assert_int_equal(strlen(small), sizeof(small) - 1);

	/* a real failed access records itself */
	assert_int_equal(damonctl_write(ctx, "kdamonds/0/bogus", "1"), -ENOENT);
	assert_string_equal(say(ctx, -ENOENT),
			    "the file does not exist: the tree changed under us, or the kernel "
			    "lacks it (kdamonds/0/bogus: 1) (No such file or directory)");
	sysroot_teardown(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(captures_pass),
		cmocka_unit_test(too_new_for_the_kernel),
		cmocka_unit_test(refused_at_on),
		cmocka_unit_test(addr_unit_refused),
		cmocka_unit_test(memcg_paths_checked),
		cmocka_unit_test(sentences),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
