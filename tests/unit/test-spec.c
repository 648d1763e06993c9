// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Filters and goals given as text (lib/spec.c): what each filter type's argument is, each
 * goal metric's unit, the part a refusal names, where a filter goes on a kernel, and the
 * specs set on the model's objects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static void filter_ok(const char *text, struct damonctl_filter_spec *f)
{
	struct damonctl_parse_error e = DAMONCTL_PARSE_ERROR_INIT;

	*f = (struct damonctl_filter_spec)DAMONCTL_FILTER_SPEC_INIT;
	if (damonctl_filter_spec_parse(text, DAMONCTL_KW_FILTER_TYPE, f, &e))
		fail_msg("%s: part %d, %d, '%s'", text, e.part, e.err, e.text);
}

/* The refusal of @text: its errno, and @part and @bad in the error. */
static void filter_bad(const char *text, enum damonctl_kwset set, int err,
		       enum damonctl_parse_part part, const char *bad)
{
	struct damonctl_filter_spec f = DAMONCTL_FILTER_SPEC_INIT;
	struct damonctl_parse_error e = DAMONCTL_PARSE_ERROR_INIT;

	assert_int_equal(damonctl_filter_spec_parse(text, set, &f, &e), err);
	assert_int_equal(e.err, err);
	assert_int_equal(e.part, part);
	assert_string_equal(e.text, bad);
}

static void filters(void **state)
{
	struct damonctl_filter_spec f;

	(void)state;
	filter_ok("allow:anon", &f);
	assert_true(f.allow && f.matching);
	assert_string_equal(f.type, "anon");
	filter_ok("reject:!memcg:/a/b:c", &f);
	assert_true(!f.allow && !f.matching);
	assert_string_equal(f.memcg, "/a/b:c");
	filter_ok("allow:addr:0x1000-8192", &f);
	assert_true(f.lo == 0x1000 && f.hi == 8192);
	filter_ok("reject:hugepage_size:2M-1G", &f);
	assert_true(f.lo == 2u << 20 && f.hi == 1u << 30);
	filter_ok("allow:target:3", &f);
	assert_int_equal(f.target_idx, 3);
	filter_ok("allow:target:max", &f);
	assert_int_equal(f.target_idx, UINT32_MAX);

	filter_bad("allow", DAMONCTL_KW_FILTER_TYPE, -EINVAL, DAMONCTL_PARSE_FORM, "allow");
	filter_bad("keep:anon", DAMONCTL_KW_FILTER_TYPE, -EINVAL, DAMONCTL_PARSE_FORM,
		   "keep:anon");
	filter_bad("allow:bogus", DAMONCTL_KW_FILTER_TYPE, -ENOENT, DAMONCTL_PARSE_KEYWORD,
		   "bogus");
	/* a probe's filters are anon and memcg only */
	filter_bad("allow:young", DAMONCTL_KW_PROBE_FILTER_TYPE, -ENOENT,
		   DAMONCTL_PARSE_KEYWORD, "young");
	filter_bad("allow:memcg:", DAMONCTL_KW_FILTER_TYPE, -ENODATA, DAMONCTL_PARSE_ARG,
		   "memcg");
	filter_bad("allow:addr", DAMONCTL_KW_FILTER_TYPE, -ENODATA, DAMONCTL_PARSE_ARG, "addr");
	filter_bad("allow:!young:1", DAMONCTL_KW_FILTER_TYPE, -EINVAL, DAMONCTL_PARSE_ARG,
		   "young");
	filter_bad("allow:addr:4096", DAMONCTL_KW_FILTER_TYPE, -EINVAL, DAMONCTL_PARSE_RANGE,
		   "4096");
	filter_bad("allow:addr:zz-0x10", DAMONCTL_KW_FILTER_TYPE, -EINVAL, DAMONCTL_PARSE_START,
		   "zz");
	filter_bad("allow:hugepage_size:2M-99999999999999999999", DAMONCTL_KW_FILTER_TYPE,
		   -ERANGE, DAMONCTL_PARSE_END, "99999999999999999999");
	filter_bad("allow:addr:0x20-0x10", DAMONCTL_KW_FILTER_TYPE, -EDOM, DAMONCTL_PARSE_RANGE,
		   "0x20-0x10");
	filter_bad("allow:target:4294967296", DAMONCTL_KW_FILTER_TYPE, -EDOM,
		   DAMONCTL_PARSE_VALUE, "4294967296");
	filter_bad("allow:target:x", DAMONCTL_KW_FILTER_TYPE, -EINVAL, DAMONCTL_PARSE_VALUE, "x");
	/* an older caller's smaller struct, and no error wanted */
	f.sz = 1;
	assert_int_equal(damonctl_filter_spec_parse("allow:anon", DAMONCTL_KW_FILTER_TYPE, &f,
						    NULL), -EINVAL);
	f.sz = sizeof(f);
	assert_int_equal(damonctl_filter_spec_parse("x", DAMONCTL_KW_FILTER_TYPE, &f, NULL),
			 -EINVAL);
}

static void goals(void **state)
{
	struct damonctl_goal_spec g = DAMONCTL_GOAL_SPEC_INIT;
	struct damonctl_parse_error e = DAMONCTL_PARSE_ERROR_INIT;

	(void)state;
	/* each metric in its unit */
	assert_int_equal(damonctl_goal_spec_parse("some_mem_psi_us=10ms", &g, &e), 0);
	assert_string_equal(g.metric, "some_mem_psi_us");
	assert_int_equal(g.target, 10000);
	assert_int_equal(damonctl_goal_spec_parse("node_mem_used_bp=50%,nid=1,path=/a", &g, &e),
			 0);
	assert_int_equal(g.target, 5000);
	assert_true(g.has_nid && g.nid == 1);
	assert_string_equal(g.path, "/a");
	assert_int_equal(damonctl_goal_spec_parse("user_input=0x10", &g, &e), 0);
	assert_int_equal(g.target, 16);
	assert_false(g.has_nid);
	assert_string_equal(g.path, "");
	/* the part refused */
	assert_int_equal(damonctl_goal_spec_parse("x", &g, &e), -EINVAL);
	assert_int_equal(e.part, DAMONCTL_PARSE_FORM);
	assert_int_equal(damonctl_goal_spec_parse("nosuch=1", &g, &e), -ENOENT);
	assert_int_equal(e.part, DAMONCTL_PARSE_KEYWORD);
	assert_string_equal(e.text, "nosuch");
	assert_int_equal(damonctl_goal_spec_parse("some_mem_psi_us=1parsec", &g, &e), -EINVAL);
	assert_int_equal(e.part, DAMONCTL_PARSE_VALUE);
	assert_string_equal(e.text, "1parsec");
	assert_int_equal(damonctl_goal_spec_parse("user_input=1,nid=4097", &g, &e), -EINVAL);
	assert_int_equal(e.part, DAMONCTL_PARSE_NID);
	assert_string_equal(e.text, "4097");
	assert_int_equal(damonctl_goal_spec_parse("user_input=1,,", &g, &e), -EINVAL);
	assert_int_equal(e.part, DAMONCTL_PARSE_OPTION);
	assert_string_equal(e.text, "");
}

static void onto_the_model(void **state)
{
	struct damonctl_tree *t = damonctl_tree_new();
	struct damonctl_context *c = damonctl_kdamond_add_context(damonctl_tree_add_kdamond(t));
	struct damonctl_scheme *s = damonctl_context_add_scheme(c);
	struct damonctl_probe *p = damonctl_context_add_probe(c);
	struct damonctl_goal_spec gs = DAMONCTL_GOAL_SPEC_INIT;
	struct damonctl_filter_spec f;
	struct damonctl_filter *flt;
	struct damonctl_goal *g;
	struct damonctl_probe_filter *pf;
	struct damonctl_features *none = NULL;

	(void)state;
	/* where filters go: filters/ when the kernel's layout is not known to have the others */
	assert_int_equal(damonctl_filter_dir_for("addr", none), DAMONCTL_FILTERS_LEGACY);
	filter_ok("allow:addr:4096-8192", &f);
	flt = damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_CORE);
	assert_int_equal(damonctl_filter_set_spec(flt, &f), 0);
	assert_string_equal(damonctl_filter_get_str(flt, DAMONCTL_FILTER_TYPE), "addr");
	assert_int_equal(damonctl_filter_get(flt, DAMONCTL_FILTER_ADDR_END), 8192);
	filter_ok("reject:!hugepage_size:2M-4M", &f);
	flt = damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_OPS);
	assert_int_equal(damonctl_filter_set_spec(flt, &f), 0);
	assert_int_equal(damonctl_filter_get(flt, DAMONCTL_FILTER_MATCHING), 0);
	assert_int_equal(damonctl_filter_get(flt, DAMONCTL_FILTER_MAX), 4u << 20);
	filter_ok("allow:memcg:/w", &f);
	pf = damonctl_probe_add_filter(p);
	assert_int_equal(damonctl_probe_filter_set_spec(pf, &f), 0);
	assert_string_equal(damonctl_probe_filter_get_str(pf, DAMONCTL_PROBE_FILTER_PATH), "/w");
	filter_ok("allow:young", &f);	/* not a probe filter type */
	assert_int_equal(damonctl_probe_filter_set_spec(pf, &f), -EINVAL);
	assert_int_equal(damonctl_goal_spec_parse("node_memcg_used_bp=500,nid=2,path=/a", &gs,
						  NULL), 0);
	g = damonctl_scheme_add_goal(s);
	assert_int_equal(damonctl_goal_set_spec(g, &gs), 0);
	assert_string_equal(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), "node_memcg_used_bp");
	assert_int_equal(damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE), 500);
	assert_int_equal(damonctl_goal_get_int(g, DAMONCTL_GOAL_NID), 2);
	assert_string_equal(damonctl_goal_get_str(g, DAMONCTL_GOAL_PATH), "/a");
	damonctl_tree_free(t);
}

/* Where a filter goes, on kernels that have core_filters/ and ops_filters/ and on one that
 * has not: from the features of fixtures' trees. */
static void filter_dirs(void **state)
{
	static const struct {
		const char *capture;
		enum damonctl_filter_dir addr, anon;
	} k[] = {
		{ "6.12-defaults.txt", DAMONCTL_FILTERS_LEGACY, DAMONCTL_FILTERS_LEGACY },
		{ "7.2-defaults.txt", DAMONCTL_FILTERS_CORE, DAMONCTL_FILTERS_OPS },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct sysroot sr;
		struct damonctl_features *f;

		sysroot_setup(&sr, k[i].capture, NULL, NULL);
		assert_int_equal(damonctl_features_detect(sr.ctx, &f), 0);
		assert_int_equal(damonctl_filter_dir_for("addr", f), k[i].addr);
		assert_int_equal(damonctl_filter_dir_for("target", f), k[i].addr);
		assert_int_equal(damonctl_filter_dir_for("anon", f), k[i].anon);
		assert_int_equal(damonctl_filter_dir_for("hugepage_size", f), k[i].anon);
		damonctl_features_free(f);
		sysroot_teardown(&sr);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(filters),
		cmocka_unit_test(goals),
		cmocka_unit_test(onto_the_model),
		cmocka_unit_test(filter_dirs),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
