// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Staging (lib/staging.c) on a sysroot of plain files: the model a staging context reads is
 * the kernel's tree exactly (which files it has, results, state), writes through it change
 * the model and never a file, and a commit applies what the staging changed onto the tree
 * as it is then, keeping what others changed meanwhile. The kernel's side of a commit (on,
 * off, commit, nr_* recreation) is the emulator's: tests/emu/batch.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

struct fixture {
	struct sysroot s;
	struct damonctl_ctx *stg;
	char *file;
};

static void setup(struct fixture *fx, const char *capture)
{
	memset(fx, 0, sizeof(*fx));
	sysroot_setup(&fx->s, capture, NULL, NULL);
	assert_true(asprintf(&fx->file, "%s/stage.json", fx->s.dir) > 0);
	assert_int_equal(damonctl_staging_begin(fx->s.ctx, fx->file), 0);
	assert_int_equal(damonctl_new(&fx->stg), 0);
	assert_int_equal(damonctl_set_sysroot(fx->stg, fx->s.dir), 0);
	assert_int_equal(damonctl_set_staging(fx->stg, fx->file), 0);
}

static void teardown(struct fixture *fx)
{
	damonctl_free(fx->stg);
	unlink(fx->file);
	free(fx->file);
	sysroot_teardown(&fx->s);
}

static char *admin_file(struct fixture *fx, const char *rel)
{
	char *p = admin_path(&fx->s, rel), *v = slurp(p);

	free(p);
	assert_non_null(v);
	return v;
}

/* The model read through a staging context is the tree read from the kernel: values, which
 * files exist (6.1 lacks most of them), results and state. */
static void model_is_the_tree(void **state)
{
	static const char *const captures[] = { "6.1-layout.txt", "7.2-defaults.txt" };
	unsigned int c, i;

	(void)state;
	for (c = 0; c < 2; c++) {
		struct damonctl_features *fk, *fs;
		struct damonctl_tree *kt, *st;
		struct fixture fx;

		setup(&fx, captures[c]);
		assert_int_equal(damonctl_tree_read(fx.s.ctx, &kt), 0);
		assert_int_equal(damonctl_tree_read(fx.stg, &st), 0);
		assert_models_equal(CDOBJ(kt), CDOBJ(st));
		assert_string_equal(damonctl_kdamond_get_str(damonctl_tree_kdamond(st, 0),
							     DAMONCTL_KDAMOND_STATE),
				    damonctl_kdamond_get_str(damonctl_tree_kdamond(kt, 0),
							     DAMONCTL_KDAMOND_STATE));
		assert_int_equal(damonctl_features_from_tree(fx.s.ctx, kt, &fk), 0);
		assert_int_equal(damonctl_features_from_tree(fx.stg, st, &fs), 0);
		for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
			if (damonctl_features_has(fk, i) != damonctl_features_has(fs, i))
				fail_msg("%s: feature %u: %d from the kernel, %d staged",
					 captures[c], i, damonctl_features_has(fk, i),
					 damonctl_features_has(fs, i));
		damonctl_features_free(fk);
		damonctl_features_free(fs);
		damonctl_tree_free(kt);
		damonctl_tree_free(st);
		teardown(&fx);
	}
}

/* Transactions through a staging context change the model, and no file. */
static void staged_not_written(void **state)
{
	struct damonctl_kdamond *have, *want;
	struct damonctl_scheme *s;
	enum damonctl_commit_how how;
	struct damonctl_tree *t;
	struct fixture fx;
	char *before, *after;
	int pid = 1;

	(void)state;
	setup(&fx, "7.2-defaults.txt");
	before = admin_file(&fx, "kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min");
	assert_int_equal(damonctl_kdamond_read(fx.stg, 0, &have), 0);
	want = damonctl_kdamond_dup(have);
	s = damonctl_context_scheme(damonctl_kdamond_context(want, 0), 0);
	assert_int_equal(damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MIN, 8192), 0);
	assert_int_equal(damonctl_kdamond_commit(fx.stg, want, have, 0, &how), 0);
	assert_int_equal(how, DAMONCTL_COMMIT_STAGED);	/* kdamond 0 is off */
	assert_int_equal(damonctl_write(fx.stg, "kdamonds/0/refresh_ms", "7"), -EROFS);
	assert_int_equal(damonctl_kdamond_cmd(fx.stg, 0, DAMONCTL_CMD_OFF), -EPERM);
	assert_int_equal(damonctl_kdamond_cmd(fx.stg, 0, DAMONCTL_CMD_ON), 0);
	assert_int_equal(damonctl_kdamond_is_running(fx.stg, 0, &pid), 1);
	assert_int_equal(pid, 0);	/* on in the model, no kernel thread yet */
	assert_int_equal(damonctl_kdamond_is_running(fx.s.ctx, 0, NULL), 0);
	after = admin_file(&fx, "kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min");
	assert_string_equal(before, after);
	assert_int_equal(damonctl_staging_read(fx.file, &t), 0);
	s = damonctl_context_scheme(damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0), 0);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN), 8192);
	assert_int_equal(damonctl_staging_commit(fx.stg, fx.file), -EINVAL);
	damonctl_tree_free(t);
	damonctl_kdamond_free(want);
	damonctl_kdamond_free(have);
	free(before);
	free(after);
	teardown(&fx);
}

/* The commit writes what the staging changed, over what someone else wrote meanwhile,
 * which stays. */
static void commit_merges(void **state)
{
	struct damonctl_kdamond *have, *want;
	struct damonctl_scheme *s;
	struct fixture fx;
	char *p, *v;

	(void)state;
	setup(&fx, "7.2-defaults.txt");
	assert_int_equal(damonctl_kdamond_read(fx.stg, 0, &have), 0);
	want = damonctl_kdamond_dup(have);
	s = damonctl_context_scheme(damonctl_kdamond_context(want, 0), 0);
	assert_int_equal(damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MIN, 8192), 0);
	assert_int_equal(damonctl_kdamond_stage(fx.stg, want, have), 0);
	/* another program, after the staging began */
	p = admin_path(&fx.s, "kdamonds/0/contexts/0/schemes/0/quotas/bytes");
	write_file(p, "12345\n");
	free(p);
	assert_int_equal(damonctl_staging_commit(fx.s.ctx, fx.file), 0);
	v = admin_file(&fx, "kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min");
	assert_int_equal(strncmp(v, "8192", 4), 0);
	free(v);
	v = admin_file(&fx, "kdamonds/0/contexts/0/schemes/0/quotas/bytes");
	assert_int_equal(strncmp(v, "12345", 5), 0);
	free(v);
	damonctl_kdamond_free(want);
	damonctl_kdamond_free(have);
	teardown(&fx);
}

/* A kdamond added after the staging began: the staging's indexes may name another one now,
 * so nothing is committed. */
static void commit_stale(void **state)
{
	struct damonctl_kdamond *have, *want;
	struct fixture fx;
	char *cmd, *p, *before, *after;

	(void)state;
	setup(&fx, "7.2-defaults.txt");
	assert_int_equal(damonctl_kdamond_read(fx.stg, 0, &have), 0);
	want = damonctl_kdamond_dup(have);
	assert_int_equal(damonctl_kdamond_set(want, DAMONCTL_KDAMOND_REFRESH_MS, 500), 0);
	assert_int_equal(damonctl_kdamond_stage(fx.stg, want, have), 0);
	/* another program adds kdamond 1 */
	p = admin_path(&fx.s, "kdamonds");
	assert_true(asprintf(&cmd, "cp -r '%s/0' '%s/1'", p, p) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(p);
	p = admin_path(&fx.s, "kdamonds/nr_kdamonds");
	write_file(p, "2\n");
	free(p);
	before = admin_file(&fx, "kdamonds/0/refresh_ms");
	assert_int_equal(damonctl_staging_commit(fx.s.ctx, fx.file), -ESTALE);
	after = admin_file(&fx, "kdamonds/0/refresh_ms");
	assert_string_equal(before, after);
	free(before);
	free(after);
	damonctl_kdamond_free(want);
	damonctl_kdamond_free(have);
	teardown(&fx);
}

/* Not a staging file: -EINVAL; none: -ENOENT. */
static void bad_files(void **state)
{
	struct damonctl_tree *t;
	struct fixture fx;

	(void)state;
	setup(&fx, "7.2-defaults.txt");
	write_file(fx.file, "{\"kdamonds\": []}\n");
	assert_int_equal(damonctl_staging_read(fx.file, &t), -EINVAL);
	assert_int_equal(damonctl_tree_read(fx.stg, &t), -EINVAL);
	unlink(fx.file);
	assert_int_equal(damonctl_staging_read(fx.file, &t), -ENOENT);
	assert_int_equal(damonctl_staging_begin(fx.stg, fx.file), -EINVAL);
	teardown(&fx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(model_is_the_tree),
		cmocka_unit_test(staged_not_written),
		cmocka_unit_test(commit_merges),
		cmocka_unit_test(commit_stale),
		cmocka_unit_test(bad_files),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
