// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading real trees and detecting features from them. Each capture of
 * tests/fixtures/kernel-trees is laid out as plain files under a temporary sysroot; the
 * model damonctl_tree_read() builds must hold exactly the files of the capture, and the
 * features must be those the ABI doc's version tags and the kernels' own answers (the
 * ACCEPTS/REJECTS lines of the behaviour logs) say.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* The 6.18 host (ABI source S1) has CONFIG_DAMON_VADDR=n: only paddr is registered. */
static const char *const host_618[] = {
	"kdamonds/0/contexts/0/avail_operations", "paddr\n", NULL,
};

/* The value a capture shows for @path as the reader returns it: one newline stripped. */
static bool capture_value(const struct sysroot *s, const char *path, char *buf, size_t size)
{
	char *p = admin_path(s, path), *v = slurp(p);
	size_t n;

	free(p);
	if (!v)
		return false;
	n = strlen(v);
	if (n && v[n - 1] == '\n')
		v[--n] = '\0';
	dctl_fmt(buf, size, "%s", v);
	free(v);
	return true;
}

/* Every capture file the model knows is in it with its value; nothing else is. Returns
 * the number of files matched. */
static unsigned int walk_model(const struct sysroot *s, const struct dobj *o, unsigned int *seen)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	char dir[PATH_MAX], path[PATH_MAX], want[4096], got[4096];
	unsigned int a, l, n = 0;

	obj_path(o, dir, sizeof(dir));
	for (a = 0; a < kd->nr_attrs; a++) {
		bool in_capture;

		dctl_fmt(path, sizeof(path), "%s%s%s", dir, *dir ? "/" : "", kd->attrs[a].file);
		in_capture = ftree_find(&s->tree, path) != NULL;
		if (!(o->has >> a & 1)) {
			if (in_capture)
				fail_msg("%s is in the capture but not in the model", path);
			continue;
		}
		if (!in_capture)
			fail_msg("%s is in the model but not in the capture", path);
		assert_true(capture_value(s, path, want, sizeof(want)));
		assert_true(dobj_format(o, a, got, sizeof(got)) >= 0);
		if (strcmp(want, got))
			fail_msg("%s: read '%s', the capture has '%s'", path, got, want);
		n++;
	}
	for (l = 0; l < kd->nr_lists; l++) {
		const struct list_desc *ld = &kd->lists[l];
		unsigned int i;

		if (ld->nr_file) {
			dctl_fmt(path, sizeof(path), "%s%s%s", dir, *dir ? "/" : "", ld->nr_file);
			if (!(o->lists_has >> l & 1)) {
				if (ftree_find(&s->tree, path))
					fail_msg("%s is in the capture but not in the model", path);
				continue;
			}
			assert_true(capture_value(s, path, want, sizeof(want)));
			if ((unsigned int)atoi(want) != o->lists[l].nr)
				fail_msg("%s: %u children read, the capture has %s", path,
					 o->lists[l].nr, want);
			n++;
		}
		for (i = 0; i < o->lists[l].nr; i++)
			n += walk_model(s, o->lists[l].items[i], seen);
	}
	(void)seen;
	return n;
}

static void check_read(const char *capture, const char *const *overrides)
{
	struct sysroot s;
	struct damonctl_tree *t;
	unsigned int files = 0, matched;
	size_t i;

	sysroot_setup(&s, capture, NULL, overrides);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	matched = walk_model(&s, CDOBJ(t), NULL);
	for (i = 0; i < s.tree.n; i++)
		if (!s.tree.e[i].dir)
			files++;
	/* and every file of the capture was found by the walk */
	assert_int_equal(matched, files);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static void read_captures(void **state)
{
	(void)state;
	check_read("6.1-layout.txt", NULL);
	check_read("6.12-defaults.txt", NULL);
	check_read("6.18-layout.txt", host_618);
	check_read("7.2-defaults.txt", NULL);
}

static void read_612_details(void **state)
{
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_context *c;
	struct damonctl_scheme *sc;
	struct damonctl_filter *f;

	(void)state;
	sysroot_setup(&s, "6.12-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	assert_int_equal(damonctl_tree_nr_kdamonds(t), 1);
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	assert_non_null(c);
	/* the capture's target pids and region counts */
	assert_int_equal(damonctl_context_nr_targets(c), 2);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 165);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 1),
						 DAMONCTL_TARGET_PID), 166);
	assert_int_equal(damonctl_target_nr_regions(damonctl_context_target(c, 0)), 1);
	assert_int_equal(damonctl_target_nr_regions(damonctl_context_target(c, 1)), 0);
	/* 6.12 has neither addr_unit (6.18) nor obsolete_target (6.19) nor refresh_ms (6.17) */
	assert_false(damonctl_context_has(c, DAMONCTL_CONTEXT_ADDR_UNIT));
	assert_false(damonctl_target_has(damonctl_context_target(c, 0),
					 DAMONCTL_TARGET_OBSOLETE));
	assert_false(damonctl_kdamond_has(damonctl_tree_kdamond(t, 0),
					  DAMONCTL_KDAMOND_REFRESH_MS));
	assert_true(damonctl_kdamond_has(damonctl_tree_kdamond(t, 0), DAMONCTL_KDAMOND_PID));
	assert_int_equal(damonctl_kdamond_get_int(damonctl_tree_kdamond(t, 0),
						  DAMONCTL_KDAMOND_PID), -1);
	sc = damonctl_context_scheme(c, 0);
	assert_true(damonctl_scheme_has(sc, DAMONCTL_SCHEME_TARGET_NID));
	assert_int_equal(damonctl_scheme_get_int(sc, DAMONCTL_SCHEME_TARGET_NID), -1);
	assert_true(damonctl_scheme_has(sc, DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES));
	assert_false(damonctl_scheme_has(sc, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER));
	assert_false(damonctl_scheme_has(sc, DAMONCTL_SCHEME_STAT_SZ_OPS_FILTER_PASSED));
	assert_int_equal(damonctl_scheme_nr_goals(sc), 1);
	assert_string_equal(damonctl_goal_get_str(damonctl_scheme_goal(sc, 0),
						  DAMONCTL_GOAL_METRIC), "user_input");
	assert_false(damonctl_goal_has(damonctl_scheme_goal(sc, 0), DAMONCTL_GOAL_NID));
	f = damonctl_scheme_filter(sc, DAMONCTL_FILTERS_LEGACY, 0);
	assert_non_null(f);
	assert_true(damonctl_filter_has(f, DAMONCTL_FILTER_ADDR_START));
	assert_false(damonctl_filter_has(f, DAMONCTL_FILTER_ALLOW));
	assert_false(damonctl_filter_has(f, DAMONCTL_FILTER_MIN));
	/* no core_filters/ops_filters/dests directories on 6.12 */
	assert_false(CDOBJ(sc)->lists_has >> L_SCHEME_CORE_FILTERS & 1);
	assert_false(CDOBJ(sc)->lists_has >> L_SCHEME_DESTS & 1);
	assert_true(CDOBJ(sc)->lists_has >> L_SCHEME_TRIED & 1);
	assert_int_equal(damonctl_scheme_nr_tried_regions(sc), 0);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static void read_72_details(void **state)
{
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_context *c;
	struct damonctl_scheme *sc;
	struct damonctl_kdamond *k;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	assert_true(damonctl_context_has(c, DAMONCTL_CONTEXT_PAUSE));
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_PAUSE), 0);
	assert_string_equal(damonctl_context_get_str(c, DAMONCTL_CONTEXT_AVAIL_OPERATIONS),
			    "vaddr\nfvaddr\npaddr");
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 1),
						 DAMONCTL_TARGET_PID), 142);
	sc = damonctl_context_scheme(c, 0);
	assert_string_equal(damonctl_scheme_get_str(sc, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER),
			    "consist");
	assert_true(damonctl_scheme_has(sc, DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_DENOM));
	assert_true(damonctl_scheme_has(sc, DAMONCTL_SCHEME_MAX_NR_SNAPSHOTS));
	assert_int_equal(damonctl_scheme_nr_filters(sc, DAMONCTL_FILTERS_LEGACY), 1);
	assert_int_equal(damonctl_scheme_nr_filters(sc, DAMONCTL_FILTERS_CORE), 1);
	assert_int_equal(damonctl_scheme_nr_filters(sc, DAMONCTL_FILTERS_OPS), 1);
	assert_int_equal(damonctl_scheme_nr_dests(sc), 1);
	assert_true(damonctl_goal_has(damonctl_scheme_goal(sc, 0), DAMONCTL_GOAL_PATH));

	/* one kdamond alone, from its own directory */
	assert_int_equal(damonctl_kdamond_read(s.ctx, 0, &k), 0);
	assert_models_equal(CDOBJ(damonctl_tree_kdamond(t, 0)), CDOBJ(k));
	damonctl_kdamond_free(k);
	assert_int_equal(damonctl_kdamond_read(s.ctx, 1, &k), -ENOENT);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static void read_618_layout(void **state)
{
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_context *c;
	struct damonctl_scheme *sc;

	(void)state;
	sysroot_setup(&s, "6.18-layout.txt", NULL, host_618);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	/* the layout: one paddr context, one target with one region, one scheme with two
	 * ops filters, empty core filters, filters and dests */
	assert_int_equal(damonctl_context_nr_targets(c), 1);
	assert_int_equal(damonctl_target_nr_regions(damonctl_context_target(c, 0)), 1);
	sc = damonctl_context_scheme(c, 0);
	assert_int_equal(damonctl_scheme_nr_filters(sc, DAMONCTL_FILTERS_OPS), 2);
	assert_int_equal(damonctl_scheme_nr_filters(sc, DAMONCTL_FILTERS_CORE), 0);
	assert_int_equal(damonctl_scheme_nr_filters(sc, DAMONCTL_FILTERS_LEGACY), 0);
	assert_true(CDOBJ(sc)->lists_has >> L_SCHEME_DESTS & 1);
	assert_int_equal(damonctl_scheme_nr_goals(sc), 0);
	/* 6.18: addr_unit yes; obsolete_target (6.19), goal_tuner (7.1), snapshots (7.0) and
	 * pause (7.2) no */
	assert_true(damonctl_context_has(c, DAMONCTL_CONTEXT_ADDR_UNIT));
	assert_false(damonctl_context_has(c, DAMONCTL_CONTEXT_PAUSE));
	assert_false(damonctl_target_has(damonctl_context_target(c, 0), DAMONCTL_TARGET_OBSOLETE));
	assert_false(damonctl_scheme_has(sc, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER));
	assert_false(damonctl_scheme_has(sc, DAMONCTL_SCHEME_MAX_NR_SNAPSHOTS));
	assert_true(damonctl_filter_has(damonctl_scheme_filter(sc, DAMONCTL_FILTERS_OPS, 1),
					DAMONCTL_FILTER_MAX));
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static void read_errors(void **state)
{
	struct sysroot s;
	struct damonctl_tree *t = NULL;
	struct damonctl_error e;
	char *p;

	(void)state;
	/* no admin directory at all: no DAMON sysfs interface */
	sysroot_setup(&s, NULL, NULL, NULL);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), -ENOENT);
	assert_null(t);
	{
		/* the sentence says so, and what to check, not "the tree changed" */
		char why[1024];

		damonctl_strerror(s.ctx, -ENOENT, why, sizeof(why));
		assert_non_null(strstr(why, "there is no DAMON sysfs interface at "));
		assert_non_null(strstr(why, "/sys/kernel/mm/damon/admin: check that the kernel "
					    "is built with CONFIG_DAMON_SYSFS=y"));
		assert_non_null(strstr(why, "sysfs is mounted on "));
		assert_null(strstr(why, "changed under us"));
		/* a sysroot that does not exist: that is the reason */
		assert_int_equal(damonctl_set_sysroot(s.ctx, "/nonexistent/damonc-sysroot"), 0);
		assert_int_equal(damonctl_tree_read(s.ctx, &t), -ENOENT);
		damonctl_strerror(s.ctx, -ENOENT, why, sizeof(why));
		assert_non_null(strstr(why, "there is no DAMON sysfs interface at "
					    "/nonexistent/damonc-sysroot/sys/kernel/mm/damon/admin: "
					    "the sysroot /nonexistent/damonc-sysroot does not exist"));
	}
	sysroot_teardown(&s);

	/* nr_targets says 2, but only one directory exists */
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	p = admin_path(&s, "kdamonds/0/contexts/0/targets/nr_targets");
	write_file(p, "3\n");
	free(p);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), -ENOENT);
	assert_true(damonctl_last_error(s.ctx, &e));
	assert_string_equal(e.path, "kdamonds/0/contexts/0/targets/2");
	assert_false(e.write);
	damonctl_clear_error(s.ctx);
	assert_false(damonctl_last_error(s.ctx, &e));

	/* a value the file's type cannot hold */
	p = admin_path(&s, "kdamonds/0/contexts/0/targets/nr_targets");
	write_file(p, "2\n");
	free(p);
	p = admin_path(&s, "kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us");
	write_file(p, "5 ms\n");
	free(p);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), -EBADMSG);
	assert_true(damonctl_last_error(s.ctx, &e));
	assert_string_equal(e.path, "kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us");
	sysroot_teardown(&s);
}

/* ---- features ---- */

struct fexp {
	enum damonctl_feature f;
	enum damonctl_support s;
};

#define Y DAMONCTL_YES
#define N DAMONCTL_NO
#define U DAMONCTL_UNKNOWN

static void check_features(const char *capture, const char *behaviour,
			   const char *const *overrides, const enum damonctl_support *want,
			   int vmin, int vmax, const char *desc)
{
	struct sysroot s;
	struct damonctl_features *f;
	char buf[64];
	int lo, hi;
	unsigned int i;

	sysroot_setup(&s, capture, behaviour, overrides);
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
		if (damonctl_features_has(f, i) != want[i])
			fail_msg("%s: %s is %d, expected %d", capture, damonctl_feature_name(i),
				 damonctl_features_has(f, i), want[i]);
	damonctl_features_version_range(f, &lo, &hi);
	assert_int_equal(lo, vmin);
	assert_int_equal(hi, vmax);
	assert_true(damonctl_features_describe_version(f, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, desc);
	damonctl_features_free(f);
	sysroot_teardown(&s);
}

/*
 * 6.1 (tiny build): the capture has none of the files of 6.2 and later (no tried_regions,
 * filters, goals, ...), so nothing newer than 6.1 is there; the three operations sets are
 * in avail_operations.
 */
static void features_61(void **state)
{
	enum damonctl_support want[DAMONCTL_NR_FEATURES];
	unsigned int i;

	(void)state;
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
		want[i] = N;
	want[DAMONCTL_FEAT_SYSFS] = Y;
	want[DAMONCTL_FEAT_OPS_VADDR] = want[DAMONCTL_FEAT_OPS_FVADDR] = Y;
	want[DAMONCTL_FEAT_OPS_PADDR] = Y;
	check_features("6.1-layout.txt", "behaviour-6.1-tiny.txt", NULL, want,
		       DAMONCTL_VERSION(6, 1), DAMONCTL_VERSION(6, 1), "6.1");
}

/*
 * 6.12: target_nid (6.11) is there, filters/0/allow and stats/sz_ops_filter_passed (6.14)
 * are not, so the kernel is 6.11 to 6.13. Goals (6.8) with target_metric (6.9) yes; young
 * filters (6.10) follow from the floor; collapse (7.2) and goal_tuner (7.1) no; the queued
 * hugepage_mem_bp cannot be in a kernel below 6.14.
 */
static void features_612(void **state)
{
	static const struct fexp exp[] = {
		{ DAMONCTL_FEAT_SYSFS, Y }, { DAMONCTL_FEAT_OPS_VADDR, Y },
		{ DAMONCTL_FEAT_OPS_FVADDR, Y }, { DAMONCTL_FEAT_OPS_PADDR, Y },
		{ DAMONCTL_FEAT_TRIED_REGIONS, Y }, { DAMONCTL_FEAT_FILTERS, Y },
		{ DAMONCTL_FEAT_TRIED_BYTES, Y }, { DAMONCTL_FEAT_FILTER_ADDR_TARGET, Y },
		{ DAMONCTL_FEAT_APPLY_INTERVAL, Y }, { DAMONCTL_FEAT_QUOTA_GOALS, Y },
		{ DAMONCTL_FEAT_GOAL_METRICS, Y }, { DAMONCTL_FEAT_EFFECTIVE_QUOTA, Y },
		{ DAMONCTL_FEAT_FILTER_YOUNG, Y }, { DAMONCTL_FEAT_TARGET_NID, Y },
		{ DAMONCTL_FEAT_FILTER_ALLOW, N }, { DAMONCTL_FEAT_CORE_OPS_FILTERS, N },
		{ DAMONCTL_FEAT_INTERVALS_GOAL, N }, { DAMONCTL_FEAT_GOAL_NID, N },
		{ DAMONCTL_FEAT_REFRESH_MS, N }, { DAMONCTL_FEAT_DESTS, N },
		{ DAMONCTL_FEAT_ADDR_UNIT, N }, { DAMONCTL_FEAT_OBSOLETE_TARGET, N },
		{ DAMONCTL_FEAT_GOAL_PATH, N }, { DAMONCTL_FEAT_SNAPSHOTS, N },
		{ DAMONCTL_FEAT_GOAL_TUNER, N }, { DAMONCTL_FEAT_PAUSE, N },
		{ DAMONCTL_FEAT_PROBES, N }, { DAMONCTL_FEAT_FAIL_CHARGE, N },
		{ DAMONCTL_FEAT_ACTION_COLLAPSE, N }, { DAMONCTL_FEAT_HUGEPAGE_MEM_BP, N },
		{ DAMONCTL_FEAT_PROBE_WEIGHT, N },
	};
	enum damonctl_support want[DAMONCTL_NR_FEATURES];
	unsigned int i;

	(void)state;
	assert_int_equal(ARRAY_SIZE(exp), DAMONCTL_NR_FEATURES);
	for (i = 0; i < ARRAY_SIZE(exp); i++)
		want[exp[i].f] = exp[i].s;
	check_features("6.12-defaults.txt", "behaviour-6.12.117.txt", NULL, want,
		       DAMONCTL_VERSION(6, 11), DAMONCTL_VERSION(6, 13), "6.11 to 6.13");
}

/*
 * The 6.18 host (S1): addr_unit (6.18) yes, obsolete_target (6.19) no, so exactly 6.18.
 * Goal metrics and node goals (6.9, 6.16) follow from the floor although no goal directory
 * exists; node_memcg goals (6.19) and everything of 7.x no. Only paddr is registered.
 */
static void features_618(void **state)
{
	static const struct fexp exp[] = {
		{ DAMONCTL_FEAT_SYSFS, Y }, { DAMONCTL_FEAT_OPS_VADDR, N },
		{ DAMONCTL_FEAT_OPS_FVADDR, N }, { DAMONCTL_FEAT_OPS_PADDR, Y },
		{ DAMONCTL_FEAT_TRIED_REGIONS, Y }, { DAMONCTL_FEAT_FILTERS, Y },
		{ DAMONCTL_FEAT_TRIED_BYTES, Y }, { DAMONCTL_FEAT_FILTER_ADDR_TARGET, Y },
		{ DAMONCTL_FEAT_APPLY_INTERVAL, Y }, { DAMONCTL_FEAT_QUOTA_GOALS, Y },
		{ DAMONCTL_FEAT_GOAL_METRICS, Y }, { DAMONCTL_FEAT_EFFECTIVE_QUOTA, Y },
		{ DAMONCTL_FEAT_FILTER_YOUNG, Y }, { DAMONCTL_FEAT_TARGET_NID, Y },
		{ DAMONCTL_FEAT_FILTER_ALLOW, Y }, { DAMONCTL_FEAT_CORE_OPS_FILTERS, Y },
		{ DAMONCTL_FEAT_INTERVALS_GOAL, Y }, { DAMONCTL_FEAT_GOAL_NID, Y },
		{ DAMONCTL_FEAT_REFRESH_MS, Y }, { DAMONCTL_FEAT_DESTS, Y },
		{ DAMONCTL_FEAT_ADDR_UNIT, Y }, { DAMONCTL_FEAT_OBSOLETE_TARGET, N },
		{ DAMONCTL_FEAT_GOAL_PATH, N }, { DAMONCTL_FEAT_SNAPSHOTS, N },
		{ DAMONCTL_FEAT_GOAL_TUNER, N }, { DAMONCTL_FEAT_PAUSE, N },
		{ DAMONCTL_FEAT_PROBES, N }, { DAMONCTL_FEAT_FAIL_CHARGE, N },
		{ DAMONCTL_FEAT_ACTION_COLLAPSE, N }, { DAMONCTL_FEAT_HUGEPAGE_MEM_BP, N },
		{ DAMONCTL_FEAT_PROBE_WEIGHT, N },
	};
	enum damonctl_support want[DAMONCTL_NR_FEATURES];
	unsigned int i;

	(void)state;
	assert_int_equal(ARRAY_SIZE(exp), DAMONCTL_NR_FEATURES);
	for (i = 0; i < ARRAY_SIZE(exp); i++)
		want[exp[i].f] = exp[i].s;
	check_features("6.18-layout.txt", NULL, host_618, want, DAMONCTL_VERSION(6, 18),
		       DAMONCTL_VERSION(6, 18), "6.18");
}

/*
 * 7.2: every file damonc knows is there (pause and fail_charge_* are 7.2), nothing sets a
 * ceiling. collapse (7.2) follows from the floor, probes (7.2) from nr_probes;
 * hugepage_mem_bp is queued for 7.4 and only a probe can tell, and so is a probe's weight
 * (queued for 7.3) while no probe directory exists.
 */
static void features_72(void **state)
{
	enum damonctl_support want[DAMONCTL_NR_FEATURES];
	unsigned int i;

	(void)state;
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
		want[i] = Y;
	want[DAMONCTL_FEAT_HUGEPAGE_MEM_BP] = U;
	want[DAMONCTL_FEAT_PROBE_WEIGHT] = U;
	check_features("7.2-defaults.txt", "behaviour-7.2.13.txt", NULL, want,
		       DAMONCTL_VERSION(7, 2), 0, "7.2 or later");
}

/*
 * A 6.19 tree: the 7.2 capture without the files the ABI doc tags 7.0 and later
 * (nr_snapshots, max_nr_snapshots [7.0], goal_tuner [7.1], pause, fail_charge_*, probes
 * [7.2]). obsolete_target and goals' path (6.19) are there, so the kernel is exactly 6.19:
 * the release before 7.0.
 */
static void features_619(void **state)
{
	static const char *const gone[] = {
		"stats/nr_snapshots", "stats/max_nr_snapshots", "quotas/goal_tuner",
		"contexts/0/pause", "quotas/fail_charge_num", "quotas/fail_charge_denom",
		"probes/nr_probes",
	};
	struct sysroot s;
	struct damonctl_features *f;
	char buf[64];
	size_t i, j;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	for (i = 0; i < s.tree.n; i++) {
		for (j = 0; j < ARRAY_SIZE(gone); j++) {
			size_t n = strlen(s.tree.e[i].path), m = strlen(gone[j]);
			char *p;

			if (n < m || strcmp(s.tree.e[i].path + n - m, gone[j]))
				continue;
			p = admin_path(&s, s.tree.e[i].path);
			assert_int_equal(unlink(p), 0);
			free(p);
		}
	}
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_OBSOLETE_TARGET), Y);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_GOAL_PATH), Y);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_SNAPSHOTS), N);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_ACTION_COLLAPSE), N);
	assert_true(damonctl_features_describe_version(f, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "6.19");
	damonctl_features_free(f);
	sysroot_teardown(&s);
}

/*
 * With no kdamond created yet, only the DAMON modules' parameters tell the version (ABI
 * section 7): the 6.12 kernel's damon_reclaim has quota_mem_pressure_us (6.9) but not
 * addr_unit (6.18); 7.2's damon_stat has kdamond_pid (7.2); the 6.1 build's damon_reclaim
 * lacks skip_anon (6.3). A missing parameter counts only in a complete module directory
 * (one with the parameters every version has): a partial one, as in an emulated sysroot,
 * proves only what it holds.
 */
static void features_modules(void **state)
{
	static const struct {
		const char *log;
		const char *only;	/* a partial directory: just this parameter */
		int vmin, vmax;
		const char *desc;
	} cases[] = {
		{ "behaviour-6.12.117.txt", NULL, DAMONCTL_VERSION(6, 9), DAMONCTL_VERSION(6, 17),
		  "6.9 to 6.17" },
		{ "behaviour-7.2.13.txt", NULL, DAMONCTL_VERSION(7, 2), 0, "7.2 or later" },
		{ "behaviour-6.1-tiny.txt", NULL, DAMONCTL_VERSION(6, 1), DAMONCTL_VERSION(6, 2),
		  "6.1 to 6.2" },
		{ NULL, "damon_reclaim/parameters/addr_unit", DAMONCTL_VERSION(6, 18), 0,
		  "6.18 or later" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sysroot s;
		struct damonctl_features *f;
		char buf[64], *p;
		int lo, hi;

		sysroot_setup(&s, NULL, cases[i].log, NULL);
		p = admin_path(&s, "kdamonds/nr_kdamonds");
		write_file(p, "0\n");
		free(p);
		if (cases[i].only) {
			assert_true(asprintf(&p, "%s/sys/module/%s", s.dir, cases[i].only) > 0);
			write_file(p, "1\n");
			free(p);
		}
		assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
		damonctl_features_version_range(f, &lo, &hi);
		assert_int_equal(lo, cases[i].vmin);
		assert_int_equal(hi, cases[i].vmax);
		assert_true(damonctl_features_describe_version(f, buf, sizeof(buf)) > 0);
		assert_string_equal(buf, cases[i].desc);
		/* no context was seen: the operations sets are unknown */
		assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_OPS_PADDR), U);
		assert_true(damonctl_features_incomplete(f));
		damonctl_features_free(f);
		sysroot_teardown(&s);
	}
}

/*
 * Features from a tree already read are those detect() finds; a kernel whose every released
 * feature is known is complete (damonctl.h: "some released feature is still unknown"), and
 * a kdamond uses an unknown feature only when a non-default value (or its operations set)
 * needs one.
 */
static void features_reuse_and_unknowns(void **state)
{
	struct sysroot s;
	struct damonctl_features *f, *g;
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	struct damonctl_goal *goal;
	unsigned int i;
	int lo1, hi1, lo2, hi2;
	char *p;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", "behaviour-7.2.13.txt", NULL);
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	assert_int_equal(damonctl_features_from_tree(s.ctx, t, &g), 0);
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
		assert_int_equal(damonctl_features_has(f, i), damonctl_features_has(g, i));
	damonctl_features_version_range(f, &lo1, &hi1);
	damonctl_features_version_range(g, &lo2, &hi2);
	assert_int_equal(lo1, lo2);
	assert_int_equal(hi1, hi2);
	/* 7.2: only hugepage_mem_bp, queued for 7.4, is unknown */
	assert_false(damonctl_features_incomplete(f));
	k = damonctl_tree_kdamond(t, 0);
	assert_false(damonctl_kdamond_uses_unknown(k, f));
	goal = damonctl_scheme_goal(damonctl_context_scheme(damonctl_kdamond_context(k, 0), 0), 0);
	assert_int_equal(damonctl_goal_set_str(goal, DAMONCTL_GOAL_METRIC, "hugepage_mem_bp"), 0);
	assert_true(damonctl_kdamond_uses_unknown(k, f));
	assert_int_equal(damonctl_goal_set_str(goal, DAMONCTL_GOAL_METRIC, "user_input"), 0);
	assert_false(damonctl_kdamond_uses_unknown(k, f));
	damonctl_features_free(g);
	damonctl_features_free(f);

	/* no kdamond directory yet: the operations sets are unknown, and any kdamond needs one */
	p = admin_path(&s, "kdamonds/nr_kdamonds");
	write_file(p, "0\n");
	free(p);
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	assert_true(damonctl_features_incomplete(f));
	assert_true(damonctl_kdamond_uses_unknown(k, f));
	damonctl_features_free(f);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

/* Which keyword set an ACCEPTS line's file takes; core/ops_filters accept per directory. */
static int kwset_of(const char *file, enum damonctl_kwset *set)
{
	size_t n = strlen(file);

	if (strstr(file, "core_filters/") || strstr(file, "ops_filters/"))
		return -1;
	if (n >= 7 && !strcmp(file + n - 7, "/action"))
		*set = DAMONCTL_KW_ACTION;
	else if (n >= 10 && !strcmp(file + n - 10, "operations"))
		*set = DAMONCTL_KW_OPERATIONS;
	else if (n >= 5 && !strcmp(file + n - 5, "/type"))
		*set = DAMONCTL_KW_FILTER_TYPE;
	else if (n >= 13 && !strcmp(file + n - 13, "target_metric"))
		*set = DAMONCTL_KW_GOAL_METRIC;
	else if (n >= 17 && !strcmp(file + n - 17, "watermarks/metric"))
		*set = DAMONCTL_KW_WMARK_METRIC;
	else
		return -1;
	return 0;
}

/* The keywords each kernel accepted and rejected (ACCEPTS lines of its behaviour log). */
static void check_keywords(const char *capture, const char *behaviour)
{
	struct sysroot s;
	struct damonctl_features *f;
	char rel[PATH_MAX], *text, *line, *save = NULL;
	unsigned int checked = 0;

	sysroot_setup(&s, capture, behaviour, NULL);
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	dctl_fmt(rel, sizeof(rel), "kernel-trees/%s", behaviour);
	text = fixture_text(rel);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon, *rejects, *tok, *save2 = NULL;
		enum damonctl_kwset set;
		bool accepted = true;

		if (strncmp(line, "ACCEPTS ", 8))
			continue;
		colon = strchr(line, ':');
		rejects = strstr(line, "| REJECTS:");
		assert_non_null(colon);
		assert_non_null(rejects);
		*colon = '\0';
		if (kwset_of(line + 8, &set))
			continue;
		for (tok = strtok_r(colon + 1, " ", &save2); tok; tok = strtok_r(NULL, " ", &save2)) {
			enum damonctl_support want;

			if (!strcmp(tok, "|")) {
				continue;
			} else if (!strcmp(tok, "REJECTS:")) {
				accepted = false;
				continue;
			}
			want = accepted ? DAMONCTL_YES : DAMONCTL_NO;
			if (damonctl_features_has_keyword(f, set, tok) != want)
				fail_msg("%s: %s '%s' is %d, the kernel %s it", capture, line + 8,
					 tok, damonctl_features_has_keyword(f, set, tok),
					 accepted ? "accepted" : "rejected");
			checked++;
		}
	}
	assert_true(checked > 10);
	free(text);
	damonctl_features_free(f);
	sysroot_teardown(&s);
}

static void keywords_as_kernels_answered(void **state)
{
	(void)state;
	check_keywords("6.1-layout.txt", "behaviour-6.1-tiny.txt");
	check_keywords("6.12-defaults.txt", "behaviour-6.12.117.txt");
	check_keywords("7.2-defaults.txt", "behaviour-7.2.13.txt");
}

/* Settings files: the THP choices give the selected one; plain values read as they are. */
static void sys_settings(void **state)
{
	struct sysroot s;
	char buf[64], *p;
	size_t i;
	static const char *const files[][3] = {
		{ "kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n", "madvise" },
		{ "kernel/mm/transparent_hugepage/defrag",
		  "always defer defer+madvise [madvise] never\n", "madvise" },
		{ "kernel/mm/transparent_hugepage/shmem_enabled",
		  "always within_size advise [never] deny force\n", "never" },
		{ "kernel/mm/transparent_hugepage/khugepaged/pages_to_scan", "4096\n", "4096" },
	};

	(void)state;
	sysroot_setup(&s, NULL, NULL, NULL);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (asprintf(&p, "%s/sys/%s", s.dir, files[i][0]) < 0)
			fail();
		write_file(p, files[i][1]);
		free(p);
		assert_int_equal(damonctl_sys_read_setting(s.ctx, files[i][0], buf, sizeof(buf)), 0);
		assert_string_equal(buf, files[i][2]);
	}
	assert_int_equal(damonctl_sys_read(s.ctx, files[0][0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "always [madvise] never");
	assert_int_equal(damonctl_sys_read_setting(s.ctx, "kernel/mm/none", buf, sizeof(buf)),
			 -ENOENT);
	sysroot_teardown(&s);
}

/* damonctl_diagnose on the 6.18 capture: its kdamond 0 says "on"; without its thread in the
 * sysroot's proc that is an error, with it nothing is wrong. */
struct findings {
	char codes[256];
	int levels[8];
	unsigned int nr;
};

static void note_finding(void *data, enum damonctl_finding level, const char *code,
			 int kdamond, int scheme, const char *message)
{
	struct findings *f = data;

	(void)kdamond;
	(void)scheme;
	assert_non_null(message);
	if (f->nr < 8)
		f->levels[f->nr] = level;
	f->nr++;
	strncat(f->codes, code, sizeof(f->codes) - strlen(f->codes) - 2);
	strcat(f->codes, " ");
}

static void diagnose_thread(void **state)
{
	static const char *const running[] = {
		"kdamonds/0/contexts/0/avail_operations", "paddr\n",
		"kdamonds/0/state", "on\n", "kdamonds/0/pid", "4242\n", NULL,
	};
	struct findings f = { 0 };
	struct damonctl_tree *t;
	struct sysroot s;
	char path[4096];

	(void)state;
	sysroot_setup(&s, "6.18-layout.txt", NULL, running);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	assert_int_equal(damonctl_diagnose(s.ctx, t, note_finding, &f), 1);
	assert_string_equal(f.codes, "kdamond_no_thread ");
	assert_int_equal(f.levels[0], DAMONCTL_FINDING_ERROR);
	/* its thread, running: nothing wrong */
	snprintf(path, sizeof(path), "%s/proc/4242/stat", s.dir);
	write_file(path, "4242 (kdamond.0) S 2 0 0 0 -1\n");
	memset(&f, 0, sizeof(f));
	assert_int_equal(damonctl_diagnose(s.ctx, t, note_finding, &f), 0);
	assert_int_equal(f.nr, 0);
	/* a zombie is no thread */
	write_file(path, "4242 (kdamond.0) Z 2 0 0 0 -1\n");
	memset(&f, 0, sizeof(f));
	assert_int_equal(damonctl_diagnose(s.ctx, t, note_finding, &f), 1);
	assert_int_equal(damonctl_diagnose(NULL, t, NULL, NULL), -EINVAL);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

/* <sysroot>/sys/module/@module/parameters/@param holds @value. */
static void module_param(const struct sysroot *s, const char *module, const char *param,
			 const char *value)
{
	char *p;

	assert_true(asprintf(&p, "%s/sys/module/%s/parameters/%s", s->dir, module, param) > 0);
	write_file(p, value);
	free(p);
}

/* Which module holds DAMON (damonctl_module_enabled): the kernel prints enabled as Y or N and
 * kdamond_pid -1 while none runs; the modules of the 7.2 log, one of them turned on here. */
static void modules_enabled(void **state)
{
	struct sysroot s;
	int pid = 0;

	(void)state;
	sysroot_setup(&s, NULL, "behaviour-7.2.13.txt", NULL);
	module_param(&s, "damon_reclaim", "enabled", "N\n");
	module_param(&s, "damon_reclaim", "kdamond_pid", "-1\n");
	assert_int_equal(damonctl_module_enabled(s.ctx, "damon_reclaim", &pid), 0);
	assert_int_equal(pid, -1);
	module_param(&s, "damon_lru_sort", "enabled", "Y\n");
	module_param(&s, "damon_lru_sort", "kdamond_pid", "4242\n");
	assert_int_equal(damonctl_module_enabled(s.ctx, "damon_lru_sort", &pid), 1);
	assert_int_equal(pid, 4242);
	assert_int_equal(damonctl_module_enabled(s.ctx, "damon_lru_sort", NULL), 1);
	assert_int_equal(damonctl_module_enabled(s.ctx, "damon_nothing", &pid), -EINVAL);
	assert_int_equal(pid, -1);
	sysroot_teardown(&s);
	/* a kernel without the module */
	sysroot_setup(&s, NULL, NULL, NULL);
	assert_int_equal(damonctl_module_enabled(s.ctx, "damon_stat", NULL), -ENOENT);
	sysroot_teardown(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_captures),
		cmocka_unit_test(read_612_details),
		cmocka_unit_test(read_72_details),
		cmocka_unit_test(read_618_layout),
		cmocka_unit_test(read_errors),
		cmocka_unit_test(sys_settings),
		cmocka_unit_test(features_61),
		cmocka_unit_test(features_612),
		cmocka_unit_test(features_618),
		cmocka_unit_test(features_72),
		cmocka_unit_test(features_619),
		cmocka_unit_test(features_modules),
		cmocka_unit_test(features_reuse_and_unknowns),
		cmocka_unit_test(keywords_as_kernels_answered),
		cmocka_unit_test(diagnose_thread),
		cmocka_unit_test(modules_enabled),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
