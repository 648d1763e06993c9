// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Access probes (7.2) in the model: staged and read back from a tree of plain files, through
 * JSON and back, checked against what the kernel takes, refused on a kernel without them,
 * and the tried regions' probe hits read as results.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define C0 "kdamonds/0/contexts/0/"
#define PR C0 "monitoring_attrs/probes/"
#define TR C0 "schemes/0/tried_regions/"

static void put(const struct sysroot *s, const char *rel, const char *value)
{
	char *p = admin_path(s, rel);

	write_file(p, value);
	free(p);
}

static struct damonctl_context *ctx0(struct damonctl_tree *t)
{
	return damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
}

static struct damonctl_probe_filter *add_filter(struct damonctl_probe *p, const char *type,
						bool matching, bool allow, const char *path)
{
	struct damonctl_probe_filter *f = damonctl_probe_add_filter(p);

	assert_non_null(f);
	assert_int_equal(damonctl_probe_filter_set_str(f, DAMONCTL_PROBE_FILTER_TYPE, type), 0);
	assert_int_equal(damonctl_probe_filter_set(f, DAMONCTL_PROBE_FILTER_MATCHING, matching),
			 0);
	assert_int_equal(damonctl_probe_filter_set(f, DAMONCTL_PROBE_FILTER_ALLOW, allow), 0);
	if (path)
		assert_int_equal(damonctl_probe_filter_set_str(f, DAMONCTL_PROBE_FILTER_PATH, path),
				 0);
	return f;
}

/* Probe 0: allow anon; probe 1: reject non-memcg /a, then anon. */
static void add_two_probes(struct damonctl_context *c)
{
	struct damonctl_probe *p = damonctl_context_add_probe(c);

	assert_non_null(p);
	add_filter(p, "anon", true, true, NULL);
	p = damonctl_context_add_probe(c);
	assert_non_null(p);
	add_filter(p, "memcg", false, false, "/a");
	add_filter(p, "anon", true, false, NULL);
}

/* The directories the kernel would create on the nr_* writes of add_two_probes(). */
static void make_probe_dirs(const struct sysroot *s)
{
	static const char *const filters[] = { PR "0/filters/0/", PR "1/filters/0/",
					       PR "1/filters/1/" };
	char rel[256];
	unsigned int i;

	put(s, PR "0/filters/nr_filters", "0\n");
	put(s, PR "1/filters/nr_filters", "0\n");
	for (i = 0; i < ARRAY_SIZE(filters); i++) {
		dctl_fmt(rel, sizeof(rel), "%stype", filters[i]);
		put(s, rel, "anon\n");
		dctl_fmt(rel, sizeof(rel), "%smatching", filters[i]);
		put(s, rel, "N\n");
		dctl_fmt(rel, sizeof(rel), "%sallow", filters[i]);
		put(s, rel, "N\n");
		dctl_fmt(rel, sizeof(rel), "%spath", filters[i]);
		put(s, rel, "\n");
	}
}

static void stage_and_read_back(void **state)
{
	struct sysroot s;
	struct damonctl_tree *have, *want, *back;
	struct damonctl_plan *plan;
	const char *path, *value;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_tree_read(s.ctx, &have), 0);
	assert_int_equal(damonctl_context_nr_probes(ctx0(have)), 0);
	want = damonctl_tree_dup(have);
	add_two_probes(ctx0(want));
	assert_int_equal(damonctl_tree_plan(s.ctx, want, have, &plan), 0);
	/* the count first (it recreates the probes), then only what differs from defaults */
	assert_int_equal(damonctl_plan_write(plan, 0, &path, &value), 0);
	assert_string_equal(path, PR "nr_probes");
	assert_string_equal(value, "2");
	damonctl_plan_free(plan);

	make_probe_dirs(&s);
	assert_int_equal(damonctl_tree_stage(s.ctx, want, have), 0);
	assert_int_equal(damonctl_tree_read(s.ctx, &back), 0);
	assert_models_equal(CDOBJ(want), CDOBJ(back));
	assert_string_equal(damonctl_probe_filter_get_str(damonctl_probe_filter(
		damonctl_context_probe(ctx0(back), 1), 0), DAMONCTL_PROBE_FILTER_PATH), "/a");
	/* 7.2 has no weight file: read as absent */
	assert_false(damonctl_probe_has(damonctl_context_probe(ctx0(back), 0),
					DAMONCTL_PROBE_WEIGHT));
	/* nothing left to write, and a restore takes the probes away again */
	assert_int_equal(damonctl_tree_plan(s.ctx, want, back, &plan), 0);
	assert_int_equal(damonctl_plan_nr_writes(plan), 0);
	damonctl_plan_free(plan);
	assert_int_equal(damonctl_tree_restore(s.ctx, have), 0);
	damonctl_tree_free(back);
	assert_int_equal(damonctl_tree_read(s.ctx, &back), 0);
	assert_int_equal(damonctl_context_nr_probes(ctx0(back)), 0);

	damonctl_tree_free(back);
	damonctl_tree_free(want);
	damonctl_tree_free(have);
	sysroot_teardown(&s);
}

static void json_round_trip(void **state)
{
	struct damonctl_tree *t = damonctl_tree_new(), *back;
	struct damonctl_kdamond *k = damonctl_tree_add_kdamond(t);
	struct damonctl_context *c = damonctl_kdamond_add_context(k);
	char *doc;

	(void)state;
	add_two_probes(c);
	assert_int_equal(damonctl_probe_set(damonctl_context_probe(c, 1), DAMONCTL_PROBE_WEIGHT,
					    7), 0);
	doc = damonctl_tree_to_json(t, DAMONCTL_JSON_CONFIG);
	assert_non_null(doc);
	assert_non_null(strstr(doc, "\"max\":1000},\"probes\":[{\"weight\":0,\"filters\":"
				    "[{\"type\":\"anon\",\"matching\":true,\"allow\":true,"
				    "\"path\":\"\"}]}"));
	assert_non_null(strstr(doc, "\"weight\":7"));
	back = json_ok(doc);
	assert_models_equal(CDOBJ(t), CDOBJ(back));
	free(doc);
	damonctl_tree_free(back);
	damonctl_tree_free(t);

	/* damonc's own keys are the files' names */
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"monitoring_attrs\": {\"probes\": "
		    "[{\"filters\": [{\"type\": \"memcg\", \"path\": \"/b\"}]}]}}]}]}");
	c = ctx0(t);
	assert_int_equal(damonctl_context_nr_probes(c), 1);
	assert_string_equal(damonctl_probe_filter_get_str(damonctl_probe_filter(
		damonctl_context_probe(c, 0), 0), DAMONCTL_PROBE_FILTER_PATH), "/b");
	damonctl_tree_free(t);
	assert_non_null(strstr(json_fails("{\"kdamonds\": [{\"contexts\": [{\"monitoring_attrs\": "
					  "{\"probes\": [{\"filters\": [{\"type\": \"young\"}]}]}}]}]}",
					  -EINVAL), "unknown keyword 'young'"));
}

static void checks(void **state)
{
	struct damonctl_tree *t = damonctl_tree_new();
	struct damonctl_kdamond *k = damonctl_tree_add_kdamond(t);
	struct damonctl_context *c = damonctl_kdamond_add_context(k);
	struct damonctl_probe_filter *f;
	char why[512];
	unsigned int i;

	(void)state;
	assert_non_null(damonctl_context_add_target(c));
	damonctl_target_set_int(damonctl_context_target(c, 0), DAMONCTL_TARGET_PID, 1);
	for (i = 0; i < DAMONCTL_MAX_PROBES; i++)
		assert_non_null(damonctl_context_add_probe(c));
	assert_int_equal(damonctl_kdamond_check(k, NULL, why, sizeof(why)), 0);
	assert_non_null(damonctl_context_add_probe(c));
	assert_int_equal(damonctl_kdamond_check(k, NULL, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "kdamond 0, context 0: 5 access probes; the kernel takes at most "
			    "4 (DAMON_MAX_PROBES)");
	assert_int_equal(damonctl_context_remove_probe(c, 4), 0);
	f = add_filter(damonctl_context_probe(c, 2), "memcg", true, true, NULL);
	assert_int_equal(damonctl_kdamond_check(k, NULL, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "kdamond 0, context 0, probe 2, probe filter 0: a memcg filter "
			    "needs a path");
	assert_int_equal(damonctl_probe_filter_set_str(f, DAMONCTL_PROBE_FILTER_PATH, "a\n"), 0);
	assert_int_equal(damonctl_kdamond_check(k, NULL, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "control character"));
	assert_int_equal(damonctl_probe_remove_filter(damonctl_context_probe(c, 2), 0), 0);
	assert_int_equal(damonctl_probe_nr_filters(damonctl_context_probe(c, 2)), 0);
	/* a probe filter's type is one of its own set */
	f = damonctl_probe_add_filter(damonctl_context_probe(c, 0));
	assert_int_equal(damonctl_probe_filter_set_str(f, DAMONCTL_PROBE_FILTER_TYPE, "young"),
			 -EINVAL);
	damonctl_tree_free(t);
}

/* A 6.12 kernel has no probes: said before anything is written, and staging refuses too. */
static void older_kernel(void **state)
{
	struct sysroot s;
	struct damonctl_tree *have, *want, *fresh = damonctl_tree_new();
	struct damonctl_kdamond *k = damonctl_tree_add_kdamond(fresh);
	struct damonctl_context *c = damonctl_kdamond_add_context(k);
	struct damonctl_features *f;
	struct damonctl_error e;
	char why[512];

	(void)state;
	sysroot_setup(&s, "6.12-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_tree_read(s.ctx, &have), 0);
	assert_int_equal(damonctl_features_from_tree(s.ctx, have, &f), 0);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_PROBES), DAMONCTL_NO);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_PROBE_WEIGHT), DAMONCTL_NO);
	/* a kdamond that is fine in every other way */
	assert_int_equal(damonctl_target_set_int(damonctl_context_add_target(c),
						 DAMONCTL_TARGET_PID, 1), 0);
	assert_int_equal(damonctl_kdamond_check(k, f, why, sizeof(why)), 0);
	assert_non_null(damonctl_context_add_probe(c));
	assert_int_equal(damonctl_kdamond_check(k, f, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "monitoring_attrs/probes needs access probes, which arrived in "
				    "Linux 7.2"));
	damonctl_tree_free(fresh);
	want = damonctl_tree_dup(have);
	assert_non_null(damonctl_context_add_probe(ctx0(want)));
	assert_int_equal(damonctl_tree_stage(s.ctx, want, have), -EOPNOTSUPP);
	assert_true(damonctl_last_error(s.ctx, &e));
	assert_string_equal(e.path, PR "nr_probes");
	damonctl_features_free(f);
	damonctl_tree_free(want);
	damonctl_tree_free(have);
	sysroot_teardown(&s);

	/* 7.2: probes yes; a probe without a weight file says 7.3's weight is not there */
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	put(&s, PR "0/filters/nr_filters", "0\n");
	put(&s, PR "nr_probes", "1\n");
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_PROBES), DAMONCTL_YES);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_PROBE_WEIGHT), DAMONCTL_NO);
	damonctl_features_free(f);
	put(&s, PR "0/weight", "0\n");
	assert_int_equal(damonctl_features_detect(s.ctx, &f), 0);
	assert_int_equal(damonctl_features_has(f, DAMONCTL_FEAT_PROBE_WEIGHT), DAMONCTL_YES);
	damonctl_features_free(f);
	sysroot_teardown(&s);
}

static void tried_region_hits(void **state)
{
	static const char *const region[][2] = {
		{ TR "0/start", "4096\n" }, { TR "0/end", "8192\n" },
		{ TR "0/nr_accesses", "3\n" }, { TR "0/age", "1\n" },
		{ TR "0/sz_filter_passed", "0\n" },
	};
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_scheme *sch;
	struct damonctl_tried_region *r;
	unsigned int i;
	char *doc;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	for (i = 0; i < ARRAY_SIZE(region); i++)
		put(&s, region[i][0], region[i][1]);
	put(&s, TR "0/probes/0/hits", "5\n");
	put(&s, TR "0/probes/1/hits", "0\n");
	/* no probe in the context: the regions' probes directories are not read */
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	r = damonctl_scheme_tried_region(damonctl_context_scheme(ctx0(t), 0), 0);
	assert_non_null(r);
	assert_int_equal(damonctl_tried_region_nr_probes(r), 0);
	damonctl_tree_free(t);
	put(&s, PR "nr_probes", "2\n");
	put(&s, PR "0/filters/nr_filters", "0\n");
	put(&s, PR "1/filters/nr_filters", "0\n");
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	sch = damonctl_context_scheme(ctx0(t), 0);
	r = damonctl_scheme_tried_region(sch, 0);
	assert_non_null(r);
	assert_int_equal(damonctl_tried_region_nr_probes(r), 2);
	assert_int_equal(damonctl_tried_region_probe_hits(r, 0), 5);
	assert_int_equal(damonctl_tried_region_probe_hits(r, 1), 0);
	assert_int_equal(damonctl_tried_region_probe_hits(r, 2), 0);
	doc = damonctl_tree_to_json(t, 0);
	assert_non_null(strstr(doc, "\"probes\":[{\"hits\":5},{\"hits\":0}]"));
	free(doc);
	/* results, not configuration */
	doc = damonctl_tree_to_json(t, DAMONCTL_JSON_CONFIG);
	assert_null(strstr(doc, "hits"));
	free(doc);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

/* The record's fast path (what a capture reads each tick): the hits of each region's
 * probes, none without probes in the context, a probe directory gone meanwhile read as 0,
 * the library's array grown as the regions are. */
static void tried_regions_fast_hits(void **state)
{
	struct damonctl_rec_region *regions = NULL;
	struct dctl_probe_hits ph = { 0 };
	struct damonctl_error e;
	static const uint8_t want[] = { 5, 0, 255, 7, 1, 0 };
	uint64_t total = 0;
	size_t cap = 0;
	struct sysroot s;
	char rel[128], v[32];
	unsigned int i;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	for (i = 0; i < 3; i++) {
		dctl_fmt(rel, sizeof(rel), TR "%u/start", i);
		dctl_fmt(v, sizeof(v), "%u\n", 4096 * (i + 1));
		put(&s, rel, v);
		dctl_fmt(rel, sizeof(rel), TR "%u/end", i);
		dctl_fmt(v, sizeof(v), "%u\n", 4096 * (i + 2));
		put(&s, rel, v);
		dctl_fmt(rel, sizeof(rel), TR "%u/nr_accesses", i);
		put(&s, rel, "1\n");
		dctl_fmt(rel, sizeof(rel), TR "%u/age", i);
		put(&s, rel, "2\n");
	}
	put(&s, TR "0/probes/0/hits", "5\n");
	put(&s, TR "0/probes/1/hits", "0\n");
	put(&s, TR "1/probes/0/hits", "255\n");
	put(&s, TR "1/probes/1/hits", "7\n");
	put(&s, TR "2/probes/0/hits", "1\n");	/* probe 1's directory is gone */
	assert_int_equal(dctl_tried_regions_read(s.ctx, 0, 0, 0, &regions, &cap, &total, NULL,
						 &ph), 3);
	assert_int_equal(ph.nr_probes, 0);	/* the context has none: not read */
	put(&s, PR "nr_probes", "2\n");
	assert_int_equal(dctl_tried_regions_read(s.ctx, 0, 0, 0, &regions, &cap, &total, NULL,
						 &ph), 3);
	assert_int_equal(ph.nr_probes, 2);
	assert_true(ph.cap >= sizeof(want));
	assert_memory_equal(ph.hits, want, sizeof(want));
	assert_int_equal(regions[2].start, 3 * 4096);
	/* a hits file that is no number fails, naming it */
	put(&s, TR "1/probes/1/hits", "x\n");
	assert_int_equal(dctl_tried_regions_read(s.ctx, 0, 0, 0, &regions, &cap, &total, NULL,
						 &ph), -EBADMSG);
	assert_true(damonctl_last_error(s.ctx, &e));
	assert_non_null(strstr(e.path, "tried_regions/1/probes/1/hits"));
	free(regions);
	free(ph.hits);
	sysroot_teardown(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stage_and_read_back),
		cmocka_unit_test(json_round_trip),
		cmocka_unit_test(checks),
		cmocka_unit_test(older_kernel),
		cmocka_unit_test(tried_region_hits),
		cmocka_unit_test(tried_regions_fast_hits),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
