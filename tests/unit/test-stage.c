// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Staging into a directory of plain files: which files damonctl_tree_stage() writes, and in
 * which order, for a wanted model against the one read. Plain files do not react like the
 * kernel (no nr_* recreation; the emulator tests cover that), so where the kernel would
 * create directories after an nr_* write, the test creates them first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_WRITES 64

struct writes {
	char line[MAX_WRITES][512];
	unsigned int n;
};

/* Every sysfs write is logged at DEBUG level: "write <path> <= '<value>': <result>". */
static void collect(void *data, enum damonctl_log_level level, const char *msg)
{
	struct writes *w = data;

	if (level != DAMONCTL_LOG_DEBUG || strncmp(msg, "write ", 6))
		return;
	assert_true(w->n < MAX_WRITES);
	dctl_fmt(w->line[w->n++], sizeof(w->line[0]), "%s", msg + 6);
}

static void expect_writes(const struct writes *w, const char *const *want, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < w->n && i < n; i++)
		if (strcmp(w->line[i], want[i]))
			fail_msg("write %u: '%s', expected '%s'", i, w->line[i], want[i]);
	if (w->n != n)
		fail_msg("%u writes, expected %u (first extra: '%s')", w->n, n,
			 w->n > n ? w->line[n] : want[w->n]);
}

/*
 * The content of a file after staging starts with the value written. sysfs takes one value
 * per write and the library does not truncate, so on a plain file the tail of a longer old
 * value stays: "1" over "2\n" leaves "1\n".
 */
static void expect_file(const struct sysroot *s, const char *rel, const char *want)
{
	char *p = admin_path(s, rel), *v = slurp(p);

	assert_non_null(v);
	if (strncmp(v, want, strlen(want)))
		fail_msg("%s holds '%s', expected '%s' written", rel, v, want);
	free(v);
	free(p);
}

struct fixture {
	struct sysroot s;
	struct damonctl_tree *have, *want;
	struct writes w;
};

static void setup_tree(struct fixture *fx, const char *capture)
{
	memset(fx, 0, sizeof(*fx));
	sysroot_setup(&fx->s, capture, NULL, NULL);
	assert_int_equal(damonctl_tree_read(fx->s.ctx, &fx->have), 0);
	fx->want = damonctl_tree_dup(fx->have);
	assert_non_null(fx->want);
	damonctl_set_log(fx->s.ctx, collect, &fx->w, DAMONCTL_LOG_DEBUG);
}

static void teardown_tree(struct fixture *fx)
{
	damonctl_tree_free(fx->have);
	damonctl_tree_free(fx->want);
	sysroot_teardown(&fx->s);
}

static struct damonctl_context *ctx0(struct damonctl_tree *t)
{
	return damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
}

static void nothing_to_do(void **state)
{
	struct fixture fx;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), 0);
	expect_writes(&fx.w, NULL, 0);
	teardown_tree(&fx);
}

static void only_differences(void **state)
{
	/* in the order of the walk: an object's files, then its lists, each in table order */
	static const char *const want[] = {
		"kdamonds/0/refresh_ms <= '1000': ok",
		"kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us <= '10000': ok",
		"kdamonds/0/contexts/0/targets/1/pid_target <= '4242': ok",
		"kdamonds/0/contexts/0/schemes/0/action <= 'pageout': ok",
		"kdamonds/0/contexts/0/schemes/0/quotas/goal_tuner <= 'temporal': ok",
		"kdamonds/0/contexts/0/schemes/0/quotas/goals/0/target_value <= '500': ok",
		"kdamonds/0/contexts/0/schemes/0/ops_filters/0/allow <= 'Y': ok",
	};
	struct fixture fx;
	struct damonctl_context *c;
	struct damonctl_scheme *s;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	c = ctx0(fx.want);
	s = damonctl_context_scheme(c, 0);
	assert_int_equal(damonctl_kdamond_set(damonctl_tree_kdamond(fx.want, 0),
					      DAMONCTL_KDAMOND_REFRESH_MS, 1000), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_SAMPLE_US, 10000), 0);
	assert_int_equal(damonctl_target_set_int(damonctl_context_target(c, 1),
						 DAMONCTL_TARGET_PID, 4242), 0);
	assert_int_equal(damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, "pageout"), 0);
	assert_int_equal(damonctl_scheme_set_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, "temporal"),
			 0);
	assert_int_equal(damonctl_goal_set(damonctl_scheme_goal(s, 0), DAMONCTL_GOAL_TARGET_VALUE,
					   500), 0);
	assert_int_equal(damonctl_filter_set(damonctl_scheme_filter(s, DAMONCTL_FILTERS_OPS, 0),
					     DAMONCTL_FILTER_ALLOW, 1), 0);
	/* results are never written, whatever the model says */
	CDOBJ(s)->v[DAMONCTL_SCHEME_STAT_NR_TRIED].u = 7;
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), 0);
	expect_writes(&fx.w, want, ARRAY_SIZE(want));
	expect_file(&fx.s, "kdamonds/0/contexts/0/schemes/0/action", "pageout");
	expect_file(&fx.s, "kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us", "10000");
	expect_file(&fx.s, "kdamonds/0/contexts/0/schemes/0/stats/nr_tried", "0\n");
	expect_file(&fx.s, "kdamonds/0/contexts/0/schemes/0/quotas/goal_tuner", "temporal");
	teardown_tree(&fx);
}

static void shorter_list(void **state)
{
	/* nr_targets changes, so the kernel recreates every target with defaults: target 0
	 * gets its non-default pid again and its one region */
	static const char *const want[] = {
		"kdamonds/0/contexts/0/targets/nr_targets <= '1': ok",
		"kdamonds/0/contexts/0/targets/0/pid_target <= '141': ok",
		"kdamonds/0/contexts/0/targets/0/regions/nr_regions <= '1': ok",
	};
	struct fixture fx;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	assert_int_equal(damonctl_context_remove_target(ctx0(fx.want), 1), 0);
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), 0);
	expect_writes(&fx.w, want, ARRAY_SIZE(want));
	expect_file(&fx.s, "kdamonds/0/contexts/0/targets/nr_targets", "1");
	teardown_tree(&fx);
}

static void longer_list(void **state)
{
	static const char *const want[] = {
		"kdamonds/0/contexts/0/schemes/0/quotas/goals/nr_goals <= '2': ok",
		("kdamonds/0/contexts/0/schemes/0/quotas/goals/1/target_metric <= "
		 "'node_mem_free_bp': ok"),
		"kdamonds/0/contexts/0/schemes/0/quotas/goals/1/target_value <= '9970': ok",
		"kdamonds/0/contexts/0/schemes/0/quotas/goals/1/nid <= '1': ok",
	};
	static const char *const files[] = {
		"target_metric", "target_value", "current_value", "nid", "path",
	};
	struct fixture fx;
	struct damonctl_goal *g;
	unsigned int i;
	char *p;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	g = damonctl_scheme_add_goal(damonctl_context_scheme(ctx0(fx.want), 0));
	assert_non_null(g);
	assert_int_equal(damonctl_goal_set_str(g, DAMONCTL_GOAL_METRIC, "node_mem_free_bp"), 0);
	assert_int_equal(damonctl_goal_set(g, DAMONCTL_GOAL_TARGET_VALUE, 9970), 0);
	assert_int_equal(damonctl_goal_set_int(g, DAMONCTL_GOAL_NID, 1), 0);
	/* what the kernel creates on "2 > nr_goals": goal 1 with default files */
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char rel[PATH_MAX];

		dctl_fmt(rel, sizeof(rel), "kdamonds/0/contexts/0/schemes/0/quotas/goals/1/%s",
			 files[i]);
		p = admin_path(&fx.s, rel);
		write_file(p, abi_default(rel));
		free(p);
	}
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), 0);
	expect_writes(&fx.w, want, ARRAY_SIZE(want));
	teardown_tree(&fx);
}

static void missing_directory(void **state)
{
	static const char *const want[] = {
		"kdamonds/0/contexts/0/schemes/0/dests/nr_dests <= '2': ok",
		"kdamonds/0/contexts/0/schemes/0/dests/1/weight <= '5': No such file or directory",
	};
	struct fixture fx;
	struct damonctl_error e;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	/* a longer list whose new directory the kernel did not create: the first write into
	 * it fails, and the error names it */
	assert_int_equal(damonctl_dest_set(damonctl_scheme_add_dest(damonctl_context_scheme(
			 ctx0(fx.want), 0)), DAMONCTL_DEST_WEIGHT, 5), 0);
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), -EOPNOTSUPP);
	expect_writes(&fx.w, want, ARRAY_SIZE(want));
	assert_true(damonctl_last_error(fx.s.ctx, &e));
	assert_string_equal(e.path, "kdamonds/0/contexts/0/schemes/0/dests/1/weight");
	assert_string_equal(e.value, "5");
	teardown_tree(&fx);
}

static void plans(void **state)
{
	struct fixture fx;
	struct damonctl_plan *p;
	const char *path, *value;
	char line[512];
	size_t i;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	assert_int_equal(damonctl_context_remove_target(ctx0(fx.want), 1), 0);
	assert_int_equal(damonctl_scheme_set_str(damonctl_context_scheme(ctx0(fx.want), 0),
						 DAMONCTL_SCHEME_ACTION, "pageout"), 0);
	/* a plan is the writes staging makes, in order, without any I/O */
	assert_int_equal(damonctl_tree_plan(fx.s.ctx, fx.want, fx.have, &p), 0);
	expect_writes(&fx.w, NULL, 0);
	assert_int_equal(damonctl_plan_apply(fx.s.ctx, p), 0);
	assert_int_equal(damonctl_plan_nr_writes(p), fx.w.n);
	assert_int_equal(fx.w.n, 4);
	for (i = 0; i < fx.w.n; i++) {
		assert_int_equal(damonctl_plan_write(p, i, &path, &value), 0);
		dctl_fmt(line, sizeof(line), "%s <= '%s': ok", path, value);
		assert_string_equal(line, fx.w.line[i]);
	}
	assert_int_equal(damonctl_plan_write(p, fx.w.n, &path, &value), -ENOENT);
	damonctl_plan_free(p);
	/* what the kernel lacks fails the plan already */
	teardown_tree(&fx);
	setup_tree(&fx, "6.12-defaults.txt");
	assert_int_equal(damonctl_context_set(ctx0(fx.want), DAMONCTL_CONTEXT_ADDR_UNIT, 4096), 0);
	p = NULL;
	assert_int_equal(damonctl_tree_plan(fx.s.ctx, fx.want, fx.have, &p), -EOPNOTSUPP);
	assert_null(p);
	teardown_tree(&fx);
}

static void older_kernel(void **state)
{
	struct fixture fx;
	struct damonctl_error e;
	char *p, *v;

	(void)state;
	/* 6.12 has no addr_unit (6.18): a non-default value cannot be expressed, and nothing
	 * is written before that is found */
	setup_tree(&fx, "6.12-defaults.txt");
	assert_int_equal(damonctl_context_set(ctx0(fx.want), DAMONCTL_CONTEXT_SAMPLE_US, 10000),
			 0);
	assert_int_equal(damonctl_context_set(ctx0(fx.want), DAMONCTL_CONTEXT_ADDR_UNIT, 4096), 0);
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), -EOPNOTSUPP);
	assert_true(damonctl_last_error(fx.s.ctx, &e));
	assert_true(e.write);
	assert_int_equal(e.err, -EOPNOTSUPP);
	assert_string_equal(e.path, "kdamonds/0/contexts/0/addr_unit");
	assert_string_equal(e.value, "4096");
	expect_writes(&fx.w, NULL, 0);
	p = admin_path(&fx.s, "kdamonds/0/contexts/0/addr_unit");
	v = slurp(p);
	assert_null(v);
	free(p);
	teardown_tree(&fx);

	/* nor dests (6.17), a list the kernel lacks */
	setup_tree(&fx, "6.12-defaults.txt");
	assert_non_null(damonctl_scheme_add_dest(damonctl_context_scheme(ctx0(fx.want), 0)));
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), -EOPNOTSUPP);
	assert_true(damonctl_last_error(fx.s.ctx, &e));
	assert_string_equal(e.path, "kdamonds/0/contexts/0/schemes/0/dests/nr_dests");
	assert_string_equal(e.value, "1");
	teardown_tree(&fx);

	/* defaults of files the kernel lacks are fine: nothing to write */
	setup_tree(&fx, "6.12-defaults.txt");
	assert_int_equal(damonctl_context_set(ctx0(fx.want), DAMONCTL_CONTEXT_ADDR_UNIT, 1), 0);
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), 0);
	expect_writes(&fx.w, NULL, 0);
	teardown_tree(&fx);
}

static void fresh_kdamond(void **state)
{
	/* against a freshly created kdamond (have NULL) only non-defaults are written */
	static const char *const want[] = {
		"kdamonds/0/contexts/nr_contexts <= '1': ok",
		"kdamonds/0/contexts/0/operations <= 'paddr': ok",
		"kdamonds/0/contexts/0/monitoring_attrs/nr_regions/max <= '2000': ok",
		"kdamonds/0/contexts/0/targets/nr_targets <= '1': ok",
		"kdamonds/0/contexts/0/targets/0/regions/nr_regions <= '1': ok",
		"kdamonds/0/contexts/0/targets/0/regions/0/start <= '4096': ok",
		"kdamonds/0/contexts/0/targets/0/regions/0/end <= '8192': ok",
	};
	struct sysroot s;
	struct writes w = { .n = 0 };
	struct damonctl_tree *t = damonctl_tree_new();
	struct damonctl_kdamond *k = damonctl_tree_add_kdamond(t);
	struct damonctl_context *c = damonctl_kdamond_add_context(k);
	struct damonctl_target *tg = damonctl_context_add_target(c);

	(void)state;
	assert_int_equal(damonctl_context_set_str(c, DAMONCTL_CONTEXT_OPERATIONS, "paddr"), 0);
	assert_int_equal(damonctl_context_set(c, DAMONCTL_CONTEXT_MAX_NR_REGIONS, 2000), 0);
	assert_int_equal(damonctl_target_add_region(tg, 4096, 8192), 0);
	/* the files and directories the kernel has by then (their values do not matter) */
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	damonctl_set_log(s.ctx, collect, &w, DAMONCTL_LOG_DEBUG);
	assert_int_equal(damonctl_kdamond_stage(s.ctx, k, NULL), 0);
	expect_writes(&w, want, ARRAY_SIZE(want));
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static void restore(void **state)
{
	/* back from the staged tree to the saved one: only what differs is written again */
	static const char *const want[] = {
		"kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us <= '5000': ok",
		"kdamonds/0/contexts/0/targets/nr_targets <= '2': ok",
		"kdamonds/0/contexts/0/targets/0/pid_target <= '141': ok",
		"kdamonds/0/contexts/0/targets/0/regions/nr_regions <= '1': ok",
		"kdamonds/0/contexts/0/targets/1/pid_target <= '142': ok",
	};
	struct fixture fx;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	/* "10000" and "1" are as long as or longer than what they replace, so the plain files
	 * read back as the kernel's would (writes do not truncate, see expect_file()) */
	assert_int_equal(damonctl_context_set(ctx0(fx.want), DAMONCTL_CONTEXT_SAMPLE_US, 10000),
			 0);
	assert_int_equal(damonctl_context_remove_target(ctx0(fx.want), 1), 0);
	assert_int_equal(damonctl_tree_stage(fx.s.ctx, fx.want, fx.have), 0);
	fx.w.n = 0;
	assert_int_equal(damonctl_tree_restore(fx.s.ctx, fx.have), 0);
	expect_writes(&fx.w, want, ARRAY_SIZE(want));
	teardown_tree(&fx);
}

struct diffs {
	char line[16][512];
	unsigned int n, stop_at;
};

static int on_diff(void *data, const char *path, const char *old, const char *new)
{
	struct diffs *d = data;

	assert_true(d->n < ARRAY_SIZE(d->line));
	dctl_fmt(d->line[d->n++], sizeof(d->line[0]), "%s: %s -> %s", path, old ? old : "-",
		 new ? new : "-");
	return d->n == d->stop_at ? 42 : 0;
}

static void diff(void **state)
{
	static const char *const want[] = {
		"contexts/0/monitoring_attrs/intervals/sample_us: 5000 -> 10000",
		"contexts/0/targets/nr_targets: 2 -> 1",
		"contexts/0/targets/1/pid_target: 142 -> -",
		"contexts/0/targets/1/obsolete_target: N -> -",
	};
	struct fixture fx;
	struct damonctl_kdamond *a, *b;
	struct diffs d = { .n = 0 };
	unsigned int i;

	(void)state;
	setup_tree(&fx, "7.2-defaults.txt");
	a = damonctl_tree_kdamond(fx.have, 0);
	b = damonctl_tree_kdamond(fx.want, 0);
	assert_int_equal(damonctl_kdamond_diff(a, b, 0, on_diff, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(damonctl_context_set(ctx0(fx.want), DAMONCTL_CONTEXT_SAMPLE_US, 10000),
			 0);
	assert_int_equal(damonctl_context_remove_target(ctx0(fx.want), 1), 0);
	/* results are left out unless asked for */
	CDOBJ(damonctl_context_scheme(ctx0(fx.want), 0))->v[DAMONCTL_SCHEME_STAT_NR_TRIED].u = 9;
	assert_int_equal(damonctl_kdamond_diff(a, b, 0, on_diff, &d), 0);
	assert_int_equal(d.n, ARRAY_SIZE(want));
	for (i = 0; i < d.n; i++)
		assert_string_equal(d.line[i], want[i]);
	d.n = 0;
	assert_int_equal(damonctl_kdamond_diff(a, b, DAMONCTL_DIFF_RESULTS, on_diff, &d), 0);
	assert_int_equal(d.n, 5);
	assert_string_equal(d.line[4], "contexts/0/schemes/0/stats/nr_tried: 0 -> 9");
	/* a non-zero return stops the walk and is returned */
	d.n = 0;
	d.stop_at = 2;
	assert_int_equal(damonctl_kdamond_diff(a, b, 0, on_diff, &d), 42);
	assert_int_equal(d.n, 2);
	assert_int_equal(damonctl_kdamond_diff(a, NULL, 0, on_diff, &d), -EINVAL);
	teardown_tree(&fx);
}

static void commands(void **state)
{
	struct sysroot s;
	int pid = 0;
	char *p;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_kdamond_is_running(s.ctx, 0, &pid), 0);
	assert_int_equal(pid, -1);
	assert_int_equal(damonctl_kdamond_cmd(s.ctx, 0, DAMONCTL_CMD_UPDATE_SCHEMES_STATS), 0);
	expect_file(&s, "kdamonds/0/state", "update_schemes_stats");
	assert_int_equal(damonctl_kdamond_cmd(s.ctx, 0, (enum damonctl_cmd)99), -EINVAL);
	/* a running kdamond as the files show it */
	p = admin_path(&s, "kdamonds/0/state");
	write_file(p, "on\n");
	free(p);
	p = admin_path(&s, "kdamonds/0/pid");
	write_file(p, "391\n");
	free(p);
	assert_int_equal(damonctl_kdamond_is_running(s.ctx, 0, &pid), 1);
	assert_int_equal(pid, 391);
	assert_int_equal(damonctl_kdamond_is_running(s.ctx, 1, &pid), -ENOENT);
	sysroot_teardown(&s);
}

/* Fresh stats: update_schemes_stats, and effective quotas where the kernel has them (the
 * features say so, or unknown). */
static void refresh_stats(void **state)
{
	static const char *const both[] = {
		"kdamonds/0/state <= 'update_schemes_stats': ok",
		"kdamonds/0/state <= 'update_schemes_effective_quotas': ok",
	};
	struct damonctl_features *f;
	struct writes w = { .n = 0 };
	struct sysroot s;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	damonctl_set_log(s.ctx, collect, &w, DAMONCTL_LOG_DEBUG);
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	assert_int_equal(damonctl_kdamond_refresh_stats(s.ctx, 0, f), 0);
	expect_writes(&w, both, 2);
	w.n = 0;
	assert_int_equal(damonctl_kdamond_refresh_stats(s.ctx, 0, NULL), 0);
	expect_writes(&w, both, 2);
	damonctl_features_free(f);
	/* no such kdamond: the first write fails, and nothing follows */
	w.n = 0;
	assert_int_equal(damonctl_kdamond_refresh_stats(s.ctx, 3, NULL), -ENOENT);
	assert_int_equal(w.n, 1);
	sysroot_teardown(&s);
	/* 6.1: no effective quotas */
	sysroot_setup(&s, "6.1-layout.txt", NULL, NULL);
	damonctl_set_log(s.ctx, collect, &w, DAMONCTL_LOG_DEBUG);
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	w.n = 0;
	assert_int_equal(damonctl_kdamond_refresh_stats(s.ctx, 0, f), 0);
	expect_writes(&w, both, 1);
	damonctl_features_free(f);
	sysroot_teardown(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_to_do),
		cmocka_unit_test(only_differences),
		cmocka_unit_test(shorter_list),
		cmocka_unit_test(longer_list),
		cmocka_unit_test(missing_directory),
		cmocka_unit_test(plans),
		cmocka_unit_test(older_kernel),
		cmocka_unit_test(fresh_kdamond),
		cmocka_unit_test(restore),
		cmocka_unit_test(diff),
		cmocka_unit_test(commands),
		cmocka_unit_test(refresh_stats),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
