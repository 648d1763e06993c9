// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damonctl_config_parse(): a configuration as damo's and damonc's start take it, JSON or
 * YAML told by the name or the text, damonc's own documents fed back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static struct damonctl_tree *config_ok(const char *name, const char *text)
{
	struct damonctl_tree *t = NULL;
	char why[512];
	int r = damonctl_config_parse(name, text, &t, why, sizeof(why));

	if (r)
		fail_msg("config_parse(%s): %d: %s", name ? name : "NULL", r, why);
	return t;
}

static const char *ops_of(const struct damonctl_tree *t, unsigned int k)
{
	return damonctl_context_get_str(damonctl_kdamond_context(damonctl_tree_kdamond(t, k), 0),
					DAMONCTL_CONTEXT_OPERATIONS);
}

static void json_and_yaml(void **state)
{
	static const char json[] = "{\"kdamonds\": [{\"contexts\": [{\"operations\": \"paddr\"}]}]}";
	static const char yaml[] = "kdamonds:\n  - contexts:\n      - operations: paddr\n";
	struct damonctl_tree *t;

	(void)state;
	/* by the text: JSON begins with '{', anything else is YAML */
	t = config_ok(NULL, json);
	assert_string_equal(ops_of(t, 0), "paddr");
	damonctl_tree_free(t);
	t = config_ok(NULL, yaml);
	assert_string_equal(ops_of(t, 0), "paddr");
	damonctl_tree_free(t);
	t = config_ok("my.conf", "  \n\t{\"kdamonds\": []}");
	assert_int_equal(damonctl_tree_nr_kdamonds(t), 0);
	damonctl_tree_free(t);
	/* by the name: YAML's flow style begins with '{' too */
	t = config_ok("c.yaml", "{kdamonds: [{contexts: [{operations: paddr}]}]}");
	assert_string_equal(ops_of(t, 0), "paddr");
	damonctl_tree_free(t);
	t = config_ok("c.yml", yaml);
	damonctl_tree_free(t);
	t = config_ok("c.json", json);
	damonctl_tree_free(t);
}

static void failures_say_why(void **state)
{
	struct damonctl_tree *t = NULL;
	char why[512];

	(void)state;
	/* neither: the YAML parser's reason, said as such */
	assert_int_equal(damonctl_config_parse("c.yaml", "kdamonds: [1, 2\n", &t, why,
					       sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not JSON, nor YAML: line "));
	assert_null(t);
	/* a .json name is JSON, whatever it holds */
	assert_int_equal(damonctl_config_parse("c.json", "kdamonds: []\n", &t, why, sizeof(why)),
			 -EINVAL);
	assert_null(strstr(why, "YAML"));
	/* an empty text is no JSON document, and said so */
	assert_int_equal(damonctl_config_parse(NULL, "", &t, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "the document is empty"));
	/* the reasons of damonctl_tree_from_json() */
	assert_int_equal(damonctl_config_parse(NULL, "{\"kdamonds\": [{\"bogus_key\": 1}]}", &t,
					       why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "bogus_key"));
	assert_int_equal(damonctl_config_parse(NULL, "[]", &t, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "found an array"));
	/* no room for a reason */
	assert_int_equal(damonctl_config_parse(NULL, "x: [", &t, NULL, 0), -EINVAL);
}

static void damonc_documents_fed_back(void **state)
{
	/* a status document: facts of the document and of each kdamond */
	static const char status[] =
		"{\"format_version\": 1, \"modules_enabled\": [], \"kdamonds\": [{\"index\": 0, "
		"\"started_by_damonc\": true, \"cpu\": {\"run_time_us\": 5}, \"agent\": {}, "
		"\"damonc_leftover\": \"start\", \"state\": \"on\", \"contexts\": [{\"operations\": "
		"\"fvaddr\"}]}]}";
	static const char dry_run[] =
		"{\"format_version\": 1, \"kdamonds\": [{\"index\": 2, \"contexts\": []}], "
		"\"writes\": [{\"path\": \"kdamonds/nr_kdamonds\", \"value\": \"3\"}], "
		"\"fallbacks\": []}";
	struct damonctl_tree *t = NULL;
	char why[512];

	(void)state;
	t = config_ok("status.json", status);
	assert_string_equal(ops_of(t, 0), "fvaddr");
	damonctl_tree_free(t);
	t = config_ok(NULL, dry_run);
	assert_int_equal(damonctl_tree_nr_kdamonds(t), 1);
	damonctl_tree_free(t);
	/* the same keys elsewhere are still unknown */
	assert_int_equal(damonctl_config_parse(NULL, "{\"kdamonds\": [{\"contexts\": [{\"index\": "
					       "0}]}]}", &t, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "index"));
}

/* config_parse(@name, @text) fails with a reason holding @frag. */
static void refused(const char *name, const char *text, const char *frag)
{
	struct damonctl_tree *t = NULL;
	char why[512];

	if (damonctl_config_parse(name, text, &t, why, sizeof(why)) != -EINVAL) {
		damonctl_tree_free(t);
		fail_msg("accepted: %s", text);
	}
	if (!strstr(why, frag))
		fail_msg("'%s': the reason '%s' lacks '%s'", text, why, frag);
	assert_null(t);
}

static int64_t pid_of(const struct damonctl_tree *t)
{
	return damonctl_target_get_int(damonctl_context_target(damonctl_kdamond_context(
		damonctl_tree_kdamond(t, 0), 0), 0), DAMONCTL_TARGET_PID);
}

#define PID_YAML(v) "kdamonds:\n  - contexts:\n      - targets:\n          - pid_target: " v "\n"
#define PID_JSON(v) "{\"kdamonds\": [{\"contexts\": [{\"targets\": [{\"pid_target\": " v "}]}]}]}"

/* One integer grammar in JSON, YAML and the strings of both: decimal or 0x; what YAML 1.1
 * (damo's PyYAML) reads another way is refused, never read as something else. */
static void integer_grammar(void **state)
{
	struct damonctl_tree *t;

	(void)state;
	t = config_ok(NULL, PID_YAML("1234"));
	assert_int_equal(pid_of(t), 1234);
	damonctl_tree_free(t);
	t = config_ok(NULL, PID_YAML("0x10"));
	assert_int_equal(pid_of(t), 16);
	damonctl_tree_free(t);
	t = config_ok(NULL, PID_JSON("\"0x10\""));
	assert_int_equal(pid_of(t), 16);
	damonctl_tree_free(t);
	refused(NULL, PID_YAML("010"), "line 4: '010': damonc takes integers in decimal or 0x");
	refused(NULL, PID_YAML("0o10"), "octal, binary or base 60");
	refused(NULL, PID_YAML("0b11"), "octal, binary or base 60");
	refused(NULL, PID_YAML("1:30"), "octal, binary or base 60");
	refused(NULL, PID_YAML("1_000"), "underscores are not taken");
	refused(NULL, PID_YAML("0x1_000"), "underscores are not taken");
	refused(NULL, PID_YAML("18446744073709551616"), "out of range");
	refused(NULL, PID_YAML("-9223372036854775809"), "out of range");
	refused(NULL, PID_JSON("010"), "octal is not JSON");
	refused(NULL, PID_JSON("\"010\""), "010");
	refused(NULL, PID_JSON("18446744073709551616"), "out of range");
}

/* A key given twice is refused with its name, in JSON (escaped too) and in YAML. */
static void duplicate_keys(void **state)
{
	(void)state;
	refused(NULL, PID_JSON("5, \"pid_target\": 1"), "\"pid_target\" is given twice");
	refused(NULL, PID_JSON("5, \"pid\\u005ftarget\": 1"), "\"pid_target\" is given twice");
	refused(NULL, "{\"kdamonds\": [], \"kdamonds\": []}", "\"kdamonds\" is given twice");
	refused(NULL, "{\"a\\n\": 1, \"a\\n\": 2}", "\"a?\" is given twice");
	refused(NULL, PID_YAML("5\n            pid_target: 1"), "'pid_target' is given twice");
	refused("c.yaml", "{kdamonds: [], kdamonds: []}", "'kdamonds' is given twice");
}

/* Nested aliases of a few hundred bytes would make billions of nodes: a budget, aliases
 * counted at each use. */
static void yaml_alias_budget(void **state)
{
	static const char bomb[] =
		"a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
		"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
		"i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n"
		"kdamonds: [*i]\n";
	struct damonctl_tree *t;

	(void)state;
	refused("bomb.yaml", bomb, "more than 200000 nodes, aliases followed");
	/* aliases within the budget are followed */
	t = config_ok("ok.yaml", "kdamonds:\n  - contexts:\n      - operations: &ops paddr\n"
		      "  - contexts:\n      - operations: *ops\n");
	assert_string_equal(ops_of(t, 1), "paddr");
	damonctl_tree_free(t);
}

/* What one context may hold: damonctl_kdamond_check() refuses more, naming the bound. */
static void context_bounds(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_context *c;
	char why[512];
	unsigned int i;

	(void)state;
	t = config_ok(NULL, "{\"kdamonds\": [{\"contexts\": [{\"operations\": \"vaddr\"}]}]}");
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	for (i = 0; i < DAMONCTL_MAX_TARGETS; i++)
		damonctl_target_set_int(damonctl_context_add_target(c), DAMONCTL_TARGET_PID, 1);
	assert_int_equal(damonctl_kdamond_check(damonctl_tree_kdamond(t, 0), NULL, why,
						sizeof(why)), 0);
	damonctl_target_set_int(damonctl_context_add_target(c), DAMONCTL_TARGET_PID, 1);
	assert_int_equal(damonctl_kdamond_check(damonctl_tree_kdamond(t, 0), NULL, why,
						sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "1025 targets; damonc takes at most 1024"));
	damonctl_tree_free(t);
	t = config_ok(NULL, "{\"kdamonds\": [{\"contexts\": [{\"targets\": [{\"pid_target\": 1}]"
		      "}]}]}");
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	{
		struct damonctl_scheme *s = damonctl_context_add_scheme(c);

		/* every filter list of every scheme counts */
		for (i = 0; i < DAMONCTL_MAX_FILTERS / 2; i++)
			damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_OPS);
		s = damonctl_context_add_scheme(c);
		for (i = 0; i < DAMONCTL_MAX_FILTERS / 2; i++)
			damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_LEGACY);
		assert_int_equal(damonctl_kdamond_check(damonctl_tree_kdamond(t, 0), NULL, why,
							sizeof(why)), 0);
		damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_OPS);
	}
	assert_int_equal(damonctl_kdamond_check(damonctl_tree_kdamond(t, 0), NULL, why,
						sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "257 DAMOS filters; damonc takes at most 256"));
	while (damonctl_context_nr_schemes(c) <= DAMONCTL_MAX_SCHEMES)
		damonctl_context_add_scheme(c);
	assert_int_equal(damonctl_kdamond_check(damonctl_tree_kdamond(t, 0), NULL, why,
						sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "257 schemes; damonc takes at most 256"));
	damonctl_tree_free(t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_and_yaml),
		cmocka_unit_test(failures_say_why),
		cmocka_unit_test(damonc_documents_fed_back),
		cmocka_unit_test(integer_grammar),
		cmocka_unit_test(duplicate_keys),
		cmocka_unit_test(yaml_alias_budget),
		cmocka_unit_test(context_bounds),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
