// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damonctl_start() (lib/start.c) on a sysroot of plain files: a dry run lists the very writes
 * the start then makes; refusals (busy, bad input, a missing feature, a callback's error)
 * write nothing and say which; the caller's stopped kdamonds are staged over before any is
 * added; the options are validated. The kernel's side of a start (nr_* recreating
 * directories, a probe on a fresh tree) is the emulator's: tests/emu/dry-run.sh and
 * tests/journeys.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* What the build callback makes: a paddr context over one range, with one scheme. */
struct want {
	const char *action;
	uint64_t sample_us;	/* 0: the default */
	bool pause;
	int err;		/* returned instead */
	unsigned int calls;
};

static int build(void *data, struct damonctl_kdamond *k, unsigned int i,
		 const struct damonctl_features *f)
{
	struct want *w = data;
	struct damonctl_context *c = damonctl_kdamond_add_context(k);
	struct damonctl_target *t = c ? damonctl_context_add_target(c) : NULL;
	struct damonctl_scheme *s = c ? damonctl_context_add_scheme(c) : NULL;

	(void)i;
	assert_non_null(f);
	w->calls++;
	if (w->err)
		return w->err;
	assert_non_null(t);
	assert_non_null(s);
	assert_int_equal(damonctl_context_set_str(c, DAMONCTL_CONTEXT_OPERATIONS, "paddr"), 0);
	if (w->sample_us)
		damonctl_context_set(c, DAMONCTL_CONTEXT_SAMPLE_US, w->sample_us);
	if (w->pause)
		damonctl_context_set(c, DAMONCTL_CONTEXT_PAUSE, 1);
	assert_int_equal(damonctl_target_add_region(t, 1 << 20, 64 << 20), 0);
	return damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, w->action);
}

static struct damonctl_start *run(struct sysroot *s, struct want *w, unsigned int flags,
				  const unsigned int *reuse, unsigned int nr_reuse, int want_r)
{
	struct damonctl_start_opts o = DAMONCTL_START_OPTS_INIT;
	struct damonctl_start *st;

	o.flags = flags;
	o.build = build;
	o.data = w;
	o.reuse = reuse;
	o.nr_reuse = nr_reuse;
	assert_int_equal(damonctl_start_new(s->ctx, &o, &st), 0);
	assert_int_equal(damonctl_start(st), want_r);
	return st;
}

/* The dry run's list is the start's: the staging writes, then `on`. */
static void dry_run_is_the_start(void **state)
{
	static const unsigned int reuse[] = { 0 };
	struct want w = { .action = "pageout" };
	struct damonctl_start *dry, *real;
	struct sysroot s;
	const char *p1, *v1, *p2, *v2;
	char *statef;
	size_t i;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	statef = admin_path(&s, "kdamonds/0/state");
	dry = run(&s, &w, DAMONCTL_START_DRY_RUN, reuse, 1, 0);
	assert_int_equal(damonctl_start_outcome(dry), DAMONCTL_START_PLANNED);
	assert_false(damonctl_start_probed(dry));
	assert_int_equal(damonctl_start_kdamond(dry, 0), 0);
	assert_false(damonctl_start_adds(dry));
	assert_true(damonctl_start_nr_writes(dry) > 2);
	assert_int_equal(damonctl_start_write(dry, damonctl_start_nr_writes(dry) - 1, &p1, &v1,
					      NULL), 0);
	assert_string_equal(p1, "kdamonds/0/state");
	assert_string_equal(v1, "on");
	v1 = slurp(statef);
	assert_string_equal(v1, "off\n");	/* nothing written */
	free((char *)v1);

	real = run(&s, &w, 0, reuse, 1, 0);
	assert_int_equal(damonctl_start_outcome(real), DAMONCTL_START_STARTED);
	assert_int_equal(damonctl_start_nr_writes(real), damonctl_start_nr_writes(dry));
	for (i = 0; i < damonctl_start_nr_writes(dry); i++) {
		damonctl_start_write(dry, i, &p1, &v1, NULL);
		damonctl_start_write(real, i, &p2, &v2, NULL);
		assert_string_equal(p1, p2);
		assert_string_equal(v1, v2);
	}
	assert_int_equal(damonctl_start_write(real, i, NULL, NULL, NULL), -ENOENT);
	/* a plain file keeps what a shorter write leaves: "on" over "off\n" */
	v1 = slurp(statef);
	assert_memory_equal(v1, "on", 2);
	free((char *)v1);
	damonctl_start_free(dry);
	damonctl_start_free(real);
	free(statef);
	sysroot_teardown(&s);
}

/* Refused before any write, each said as what it is. */
static void refusals(void **state)
{
	static const char *const running[] = { "kdamonds/0/state", "on", NULL };
	struct want w = { .action = "pageout" };
	struct damonctl_start *st;
	struct sysroot s;

	(void)state;
	/* a kdamond runs: busy, whether a dry run or not */
	sysroot_setup(&s, "7.2-defaults.txt", NULL, running);
	st = run(&s, &w, 0, NULL, 0, -EBUSY);
	assert_int_equal(damonctl_start_outcome(st), DAMONCTL_START_BUSY);
	assert_int_equal(damonctl_start_busy_kdamond(st), 0);
	assert_int_equal(damonctl_start_nr_writes(st), 0);
	damonctl_start_free(st);
	st = run(&s, &w, DAMONCTL_START_DRY_RUN, NULL, 0, -EBUSY);
	assert_int_equal(damonctl_start_outcome(st), DAMONCTL_START_BUSY);
	damonctl_start_free(st);
	sysroot_teardown(&s);

	/* what the kernel would refuse at `on`: a sampling interval above the aggregation's */
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	w.sample_us = 10000000;
	st = run(&s, &w, 0, NULL, 0, -EINVAL);
	assert_int_equal(damonctl_start_outcome(st), DAMONCTL_START_BAD_INPUT);
	assert_non_null(strstr(damonctl_start_why(st), "sampling interval"));
	damonctl_start_free(st);
	w.sample_us = 0;

	/* a callback's error, as it is */
	w.err = -E2BIG;
	st = run(&s, &w, 0, NULL, 0, -E2BIG);
	assert_int_equal(damonctl_start_outcome(st), DAMONCTL_START_FAILED);
	assert_int_equal(damonctl_start_nr_writes(st), 0);
	damonctl_start_free(st);
	w.err = 0;
	sysroot_teardown(&s);

	/* 6.12 has no pause: a feature missing for sure */
	sysroot_setup(&s, "6.12-defaults.txt", NULL, NULL);
	w.pause = true;
	st = run(&s, &w, DAMONCTL_START_DRY_RUN, NULL, 0, -EOPNOTSUPP);
	assert_int_equal(damonctl_start_outcome(st), DAMONCTL_START_UNSUPPORTED);
	assert_non_null(strstr(damonctl_start_why(st), "7.2"));
	assert_int_equal(damonctl_start_nr_writes(st), 0);
	damonctl_start_free(st);
	sysroot_teardown(&s);
}

/* The caller's stopped kdamonds are staged over before any is added; a running one, or an
 * index past the tree, is not reused. */
static void reuse_first(void **state)
{
	static const unsigned int bad[] = { 7 }, good[] = { 7, 0 };
	struct want w = { .action = "stat" };
	struct damonctl_start *st;
	struct sysroot s;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	st = run(&s, &w, DAMONCTL_START_DRY_RUN, NULL, 0, 0);
	assert_int_equal(damonctl_start_kdamond(st, 0), 1);
	assert_true(damonctl_start_adds(st));
	assert_null(damonctl_start_fallbacks(st, 0));
	damonctl_start_free(st);
	st = run(&s, &w, DAMONCTL_START_DRY_RUN, bad, 1, 0);
	assert_int_equal(damonctl_start_kdamond(st, 0), 1);
	damonctl_start_free(st);
	st = run(&s, &w, DAMONCTL_START_DRY_RUN, good, 2, 0);
	assert_int_equal(damonctl_start_kdamond(st, 0), 0);
	assert_false(damonctl_start_adds(st));
	assert_int_equal(damonctl_start_kdamond(st, 1), UINT32_MAX);
	damonctl_start_free(st);
	sysroot_teardown(&s);
}

/* Options of another size: shorter is fine, a longer tail must be zero; 1 to 16 kdamonds. */
static void options(void **state)
{
	struct {
		struct damonctl_start_opts o;
		char tail[16];
	} big = { .o = DAMONCTL_START_OPTS_INIT };
	struct damonctl_start_opts o = DAMONCTL_START_OPTS_INIT;
	struct damonctl_start *st;
	struct sysroot s;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	big.o.sz = sizeof(big);
	assert_int_equal(damonctl_start_new(s.ctx, &big.o, &st), 0);
	assert_int_equal(damonctl_start_outcome(st), DAMONCTL_START_NOT_RUN);
	damonctl_start_free(st);
	big.tail[3] = 1;
	assert_int_equal(damonctl_start_new(s.ctx, &big.o, &st), -EINVAL);
	o.nr_kdamonds = 0;
	assert_int_equal(damonctl_start_new(s.ctx, &o, &st), -EINVAL);
	o.nr_kdamonds = 17;
	assert_int_equal(damonctl_start_new(s.ctx, &o, &st), -EINVAL);
	o.nr_kdamonds = 1;
	o.nr_reuse = 1;
	assert_int_equal(damonctl_start_new(s.ctx, &o, &st), -EINVAL);
	o.nr_reuse = 0;
	assert_int_equal(damonctl_start_new(s.ctx, &o, &st), 0);
	/* once only */
	damonctl_start(st);
	assert_int_equal(damonctl_start(st), -EINVAL);
	damonctl_start_free(st);
	damonctl_start_free(NULL);
	sysroot_teardown(&s);
}

/* What a probe found, kept as JSON and learned by a start on a tree that shows nothing (no
 * kdamond directory): the features of the tree that showed them, and no probe. */
static void known_features(void **state)
{
	static const char *const empty[] = { NULL };
	struct damonctl_start_opts o = DAMONCTL_START_OPTS_INIT;
	struct want w = { .action = "pageout" };
	struct damonctl_features *f, *g;
	struct damonctl_start *st;
	struct sysroot s, e;
	char *json, *path;
	unsigned int i;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	json = damonctl_features_to_json(f);
	assert_non_null(json);
	/* a tree with no kdamond: most is unknown */
	sysroot_setup(&e, NULL, NULL, empty);
	path = admin_path(&e, "kdamonds");
	assert_int_equal(damonctl_make_dirs(path), 0);
	free(path);
	path = admin_path(&e, "kdamonds/nr_kdamonds");
	write_file(path, "0\n");
	free(path);
	assert_int_equal(damonctl_features_detect(e.ctx, &g), 0);
	assert_true(damonctl_features_incomplete(g));
	assert_true(damonctl_features_learn(g, json) > 0);
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
		if (damonctl_features_has(f, i) != DAMONCTL_UNKNOWN)
			assert_int_equal(damonctl_features_has(g, i), damonctl_features_has(f, i));
	assert_int_equal(damonctl_features_learn(g, "[1]"), -EINVAL);
	damonctl_features_free(g);
	/* the start learns it: nothing left to probe, the dry run plans without writing */
	o.flags = DAMONCTL_START_DRY_RUN;
	o.build = build;
	o.data = &w;
	o.known_features = json;
	assert_int_equal(damonctl_start_new(e.ctx, &o, &st), 0);
	assert_int_equal(damonctl_start(st), 0);
	assert_false(damonctl_start_probed(st));
	assert_int_equal(damonctl_features_has(damonctl_start_features(st),
					       DAMONCTL_FEAT_PAUSE), DAMONCTL_YES);
	damonctl_start_free(st);
	damonctl_features_free(f);
	free(json);
	sysroot_teardown(&e);
	sysroot_teardown(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_features),
		cmocka_unit_test(dry_run_is_the_start),
		cmocka_unit_test(refusals),
		cmocka_unit_test(reuse_first),
		cmocka_unit_test(options),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
