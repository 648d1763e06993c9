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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_and_yaml),
		cmocka_unit_test(failures_say_why),
		cmocka_unit_test(damonc_documents_fed_back),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
