// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damonc's JSON both ways: the schema is the sysfs tree (files are keys with their sysfs
 * names, numbered directories arrays), numbers also as unit strings on input, and errors
 * naming the key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common.h"

/* Every writable attribute of every object set off its default. */
static void fill(struct dobj *o, unsigned int salt)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	unsigned int a;

	for (a = 0; a < kd->nr_attrs; a++) {
		const struct attr_desc *d = &kd->attrs[a];
		unsigned int nr;
		const struct keyword *kw;

		if (d->flags & A_RO)
			continue;
		switch (d->type) {
		case V_U64:
			o->v[a].u = 1000 + salt * 64 + a;
			break;
		case V_U32:
			o->v[a].u = 100 + salt * 64 + a;
			break;
		case V_INT:
			o->v[a].i = -2 - (int64_t)a;
			break;
		case V_BOOL:
			o->v[a].u = 1;
			break;
		case V_KW:
			kw = dctl_keywords(d->kwset, &nr);
			assert_int_equal(dobj_set_str(o, a, kw[(salt + a) % nr].name), 0);
			if (dobj_is_default(o, a))	/* the default was picked: take another */
				assert_int_equal(dobj_set_str(o, a, kw[(salt + a + 1) % nr].name),
						 0);
			break;
		case V_STR:
			assert_int_equal(dobj_set_str(o, a, salt % 2 ? "/sys/fs/cgroup/a" : "/b"),
					 0);
			break;
		default:
			break;
		}
		assert_false(dobj_is_default(o, a));
	}
}

/* A tree with every kind of object, twice where lists allow. */
static struct dobj *full_tree(void)
{
	struct dobj *t = dobj_new(K_TREE), *k, *c, *s, *tg;
	unsigned int l, i, salt = 1;

	assert_non_null(t);
	k = dobj_add(t, L_TREE_KDAMONDS);
	fill(k, salt++);
	c = dobj_add(k, L_KDAMOND_CONTEXTS);
	fill(c, salt++);
	for (i = 0; i < 2; i++) {
		tg = dobj_add(c, L_CONTEXT_TARGETS);
		fill(tg, salt++);
		fill(dobj_add(tg, L_TARGET_REGIONS), salt++);
		fill(dobj_add(tg, L_TARGET_REGIONS), salt++);
		s = dobj_add(c, L_CONTEXT_SCHEMES);
		fill(s, salt++);
		for (l = 0; l < dctl_kinds[K_SCHEME].nr_lists; l++)
			if (!(dctl_kinds[K_SCHEME].lists[l].flags & A_RO))
				fill(dobj_add(s, l), salt++);
	}
	return t;
}

static void round_trip_full(void **state)
{
	struct dobj *t = full_tree();
	struct damonctl_tree *back;
	char *doc, *doc2;

	(void)state;
	/* configuration only, and with results: results are output only */
	doc = damonctl_tree_to_json((struct damonctl_tree *)t, DAMONCTL_JSON_CONFIG);
	assert_non_null(doc);
	back = json_ok(doc);
	assert_models_equal(t, CDOBJ(back));
	/* and the document it gives is the same document */
	doc2 = damonctl_tree_to_json(back, DAMONCTL_JSON_CONFIG);
	assert_string_equal(doc, doc2);
	free(doc2);
	damonctl_tree_free(back);
	free(doc);
	doc = damonctl_tree_to_json((struct damonctl_tree *)t, DAMONCTL_JSON_PRETTY);
	back = json_ok(doc);
	assert_models_equal(t, CDOBJ(back));
	damonctl_tree_free(back);
	free(doc);
	dobj_free(t);
}

static void round_trip_capture(void **state)
{
	struct sysroot s;
	struct damonctl_tree *t, *back;
	char *doc;

	(void)state;
	sysroot_setup(&s, "7.2-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	doc = damonctl_tree_to_json(t, 0);
	back = json_ok(doc);
	assert_models_equal(CDOBJ(t), CDOBJ(back));
	damonctl_tree_free(back);
	free(doc);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static json_object *parse(const char *doc)
{
	json_object *j = json_tokener_parse(doc);

	assert_non_null(j);
	return j;
}

static json_object *at(json_object *j, const char *path)
{
	char buf[256], *tok, *save = NULL;

	dctl_fmt(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		json_object *next = NULL;

		if (json_object_is_type(j, json_type_array))
			next = json_object_array_get_idx(j, (size_t)atoi(tok));
		else if (!json_object_object_get_ex(j, tok, &next))
			return NULL;
		j = next;
	}
	return j;
}

static void output_shape(void **state)
{
	struct sysroot s;
	struct damonctl_tree *t;
	json_object *j;
	char *doc;

	(void)state;
	sysroot_setup(&s, "6.12-defaults.txt", NULL, NULL);
	assert_int_equal(damonctl_tree_read(s.ctx, &t), 0);
	doc = damonctl_tree_to_json(t, 0);
	/* format_version first, as damonc's documents start */
	assert_int_equal(strncmp(doc, "{\"format_version\":1,", 20), 0);
	j = parse(doc);
	/* the sysfs names and shapes: numbers as numbers, booleans, arrays for directories */
	assert_string_equal(json_object_get_string(at(j, "kdamonds.0.state")), "off");
	assert_int_equal(json_object_get_int(at(j, "kdamonds.0.pid")), -1);
	assert_int_equal(json_object_get_int(at(j,
		"kdamonds.0.contexts.0.monitoring_attrs.intervals.update_us")), 60000000);
	assert_int_equal(json_object_get_int(at(j, "kdamonds.0.contexts.0.targets.1.pid_target")),
			 166);
	assert_string_equal(json_object_get_string(at(j,
		"kdamonds.0.contexts.0.avail_operations.2")), "paddr");
	assert_true(json_object_is_type(at(j, "kdamonds.0.contexts.0.schemes.0.filters.0.matching"),
					json_type_boolean));
	assert_non_null(at(j, "kdamonds.0.contexts.0.schemes.0.tried_regions.total_bytes"));
	assert_non_null(at(j, "kdamonds.0.contexts.0.schemes.0.quotas.goals.0.target_metric"));
	/* what 6.12 lacks is left out, not written as a default */
	assert_null(at(j, "kdamonds.0.refresh_ms"));
	assert_null(at(j, "kdamonds.0.contexts.0.addr_unit"));
	assert_null(at(j, "kdamonds.0.contexts.0.schemes.0.dests"));
	assert_null(at(j, "kdamonds.0.contexts.0.schemes.0.filters.0.allow"));
	json_object_put(j);
	free(doc);

	/* configuration only: no results (state, pid, stats, effective quota, tried regions) */
	doc = damonctl_tree_to_json(t, DAMONCTL_JSON_CONFIG | DAMONCTL_JSON_PRETTY);
	assert_non_null(strchr(doc, '\n'));
	j = parse(doc);
	assert_null(at(j, "kdamonds.0.state"));
	assert_null(at(j, "kdamonds.0.pid"));
	assert_null(at(j, "kdamonds.0.contexts.0.avail_operations"));
	assert_null(at(j, "kdamonds.0.contexts.0.schemes.0.stats"));
	assert_null(at(j, "kdamonds.0.contexts.0.schemes.0.quotas.effective_bytes"));
	assert_null(at(j, "kdamonds.0.contexts.0.schemes.0.tried_regions"));
	assert_non_null(at(j, "kdamonds.0.contexts.0.schemes.0.quotas.ms"));
	json_object_put(j);
	free(doc);
	damonctl_tree_free(t);
	sysroot_teardown(&s);
}

static void unit_strings(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_context *c;
	struct damonctl_scheme *s;

	(void)state;
	/* the forms of damonctl.h's parsers, by the unit of each file */
	t = json_ok("{\"format_version\": 1, \"kdamonds\": [{\"refresh_ms\": \"2s\", "
		    "\"contexts\": [{\"addr_unit\": \"4K\", \"monitoring_attrs\": {"
		    "\"intervals\": {\"sample_us\": \"5ms\", \"aggr_us\": \"0.1s\", "
		    "\"update_us\": \"2m\", \"intervals_goal\": {\"access_bp\": \"4%\", "
		    "\"min_sample_us\": \"5ms\", \"max_sample_us\": \"10s\"}}, "
		    "\"nr_regions\": {\"min\": \"0x10\", \"max\": \"max\"}}, "
		    "\"targets\": [{\"pid_target\": \"0x10\", \"regions\": [{\"start\": \"4K\", "
		    "\"end\": \"1GiB\"}]}], "
		    "\"schemes\": [{\"access_pattern\": {\"sz\": {\"min\": \"2MiB\", \"max\": "
		    "\"max\"}}, \"apply_interval_us\": \"1.5s\", \"quotas\": {\"ms\": \"1s\", "
		    "\"bytes\": \"1.5G\", \"reset_interval_ms\": \"max\", \"weights\": "
		    "{\"sz_permil\": \"max\"}, \"goals\": [{\"target_value\": \"99.7%\"}]}, "
		    "\"filters\": [{\"type\": \"hugepage_size\", \"min\": \"2MiB\", \"max\": "
		    "\"1G\", \"matching\": \"Y\", \"allow\": 1}]}]}]}]}");
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	s = damonctl_context_scheme(c, 0);
	assert_int_equal(damonctl_kdamond_get(damonctl_tree_kdamond(t, 0),
					      DAMONCTL_KDAMOND_REFRESH_MS), 2000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_ADDR_UNIT), 4096);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US), 5000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US), 100000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_UPDATE_US), 120000000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_ACCESS_BP), 400);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_GOAL_MAX_SAMPLE_US), 10000000);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_MIN_NR_REGIONS), 16);
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_MAX_NR_REGIONS), DAMONCTL_MAX);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 16);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN), 2 << 20);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX), DAMONCTL_MAX);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_APPLY_INTERVAL_US), 1500000);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS), 1000);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES), 3ULL << 29);
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS),
			 DAMONCTL_MAX);
	/* "max" of a 32-bit file is its largest value */
	assert_int_equal(damonctl_scheme_get(s, DAMONCTL_SCHEME_WEIGHT_SZ_PERMIL), UINT32_MAX);
	assert_int_equal(damonctl_goal_get(damonctl_scheme_goal(s, 0), DAMONCTL_GOAL_TARGET_VALUE),
			 9970);
	assert_int_equal(damonctl_filter_get(damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 0),
					     DAMONCTL_FILTER_MAX), 1ULL << 30);
	assert_int_equal(damonctl_filter_get(damonctl_scheme_filter(s, DAMONCTL_FILTERS_LEGACY, 0),
					     DAMONCTL_FILTER_ALLOW), 1);
	damonctl_tree_free(t);
}

static void errors_name_the_key(void **state)
{
	const char *why;

	(void)state;
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"operations\": \"paddr\", "
			 "\"bogus\": 1}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].bogus: unknown key for a context");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"monitoring_attrs\": {\"intervals\": "
			 "{\"sample_us\": true}}}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].monitoring_attrs.intervals.sample_us: "
			    "expected a number");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"monitoring_attrs\": {\"intervals\": "
			 "{\"aggr_us\": \"5 parsecs\"}}}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].monitoring_attrs.intervals.aggr_us: "
			    "cannot read '5 parsecs'");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"schemes\": [{\"quotas\": "
			 "{\"ms\": -1}}]}]}]}", -ERANGE);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].quotas.ms: negative values "
			    "are not allowed");
	/* a millisecond file takes whole milliseconds */
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"schemes\": [{\"quotas\": "
			 "{\"ms\": \"1.5ms\"}}]}]}]}", -EINVAL);
	assert_non_null(strstr(why, "schemes[0].quotas.ms: cannot read '1.5ms'"));
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"schemes\": [{\"quotas\": "
			 "{\"weights\": {\"age_permil\": 4294967296}}}]}]}]}", -ERANGE);
	assert_non_null(strstr(why, "quotas.weights.age_permil: 4294967296 is out of range"));
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"schemes\": [{\"action\": "
			 "\"bogus\"}]}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].action: unknown keyword "
			    "'bogus'");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"schemes\": [{\"target_nid\": "
			 "1099511627776}]}]}]}", -ERANGE);
	assert_non_null(strstr(why, "schemes[0].target_nid: 1099511627776 is out of range"));
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"targets\": [{\"pid_target\": "
			 "\"abc\"}]}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].targets[0].pid_target: expected an "
			    "integer (decimal or 0x, never octal), not 'abc'");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"schemes\": [{\"filters\": "
			 "[{\"matching\": 2}]}]}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].schemes[0].filters[0].matching: "
			    "expected true or false");
	why = json_fails("{\"kdamonds\": [{\"contexts\": {}}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts: expected an array");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [1]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0]: expected an object");
	why = json_fails("{\"kdamonds\": [{\"contexts\": [{\"monitoring_attrs\": 5}]}]}", -EINVAL);
	assert_string_equal(why, "kdamonds[0].contexts[0].monitoring_attrs: expected an object");
	why = json_fails("{\"format_version\": 2, \"kdamonds\": []}", -EINVAL);
	assert_non_null(strstr(why, "format_version 2 is not supported"));
	why = json_fails("[1, 2]", -EINVAL);
	assert_non_null(strstr(why, "expected a JSON object at the top"));
	assert_non_null(strstr(why, "found an array"));
	why = json_fails("{\"kdamonds\": [", -EINVAL);
	assert_non_null(strstr(why, "the document ends early"));
	why = json_fails("{\"format_version\": \"1\", \"kdamonds\": []}", -EINVAL);
	assert_string_equal(why, "format_version: expected a number such as 1, found a string \"1\"");
	why = json_fails("{\"format_version\": 1, \"kdamonds\": [{\"contexts\": [{\"targets\": "
			 "[{\"pid_target\": 18446744073709551615}]}]}]}", -ERANGE);
	assert_non_null(strstr(why, "pid_target: 18446744073709551615 is out of range"));
}

/* Strict JSON: what json-c would take but JSON is not, refused with a line and a column. */
static void strict_json(void **state)
{
	static const struct { const char *doc, *why; } bad[] = {
		{ "", "line 1, column 1: the document is empty" },
		{ "  \n ", "line 2, column 2: the document is empty" },
		{ "{}xyz", "line 1, column 3: 'x' after the end of the document" },
		{ "{} {}", "line 1, column 4: '{' after the end of the document" },
		{ "// c\n{}", "line 1, column 1: comments are not JSON" },
		{ "{\"a\": 1 /* c */}", "line 1, column 9: comments are not JSON" },
		{ "{'a': 1}", "line 1, column 2: single quotes are not JSON" },
		{ "{\"a\": 'x'}", "line 1, column 7: single quotes are not JSON" },
		{ "{\"a\": NaN}", "line 1, column 7: 'NaN' is not a JSON value" },
		{ "{\"a\": Infinity}", "'Infinity' is not a JSON value" },
		{ "{\"a\": True}", "'True' is not a JSON value" },
		{ "[1,]", "line 1, column 4: a comma before ']' is not JSON" },
		{ "{\"a\":1,}", "a comma before '}' is not JSON" },
		{ "{\"a\" 1}", "expected ':' after the member name, found '1'" },
		{ "{\"a\": 1 \"b\": 2}", "expected ',' or '}' after a member, found '\"'" },
		{ "[1 2]", "expected ',' or ']' after an element, found '2'" },
		{ "{", "line 1, column 2: the document ends early" },
		{ "[[[", "the document ends early" },
		{ "\"abc", "line 1, column 1: the string that starts here does not end" },
		{ "{\"a\": 01}", "numbers do not start with 0" },
		{ "{\"a\": -}", "expected a digit after '-'" },
		{ "{\"a\": 1.}", "expected a digit after '.'" },
		{ "{\"a\": 1e}", "expected the digits of an exponent" },
		{ "{\"a\": 18446744073709551616}", "the integer 18446744073709551616 is out of range" },
		{ "{\"a\": -9223372036854775809}", "the integer -9223372036854775809 is out of range" },
		{ "{\"a\": 1e999}", "the number 1e999 is out of range" },
		{ "{\"a\": \"\\q\"}", "'\\q' is not a JSON escape" },
		{ "{\"a\": \"\\u12\"}", "'\\u' needs four hex digits" },
		{ "{\"a\": \"\\ud800\"}", "a high surrogate (\\ud800) without its low half" },
		{ "{\"a\": \"\\udc00\"}", "a lone low surrogate" },
		{ "{\"a\": \"\\u0000\"}", "'\\u0000' (a NUL character) cannot be kept" },
		{ "{\"a\": \"\xff\"}", "line 1, column 8: the byte \\xff is not UTF-8 text" },
		{ "{\"a\": \"\xc0\xaf\"}", "the byte \\xc0 is not UTF-8 text" },
		{ "{\"a\": \"\x01\"}", "the byte \\x01 inside a string" },
		{ "\xef\xbb\xbf{}", "a byte-order mark is not JSON" },
		{ "{\"a\":\n  [1,\n   x]}", "line 3, column 4: 'x' is not a JSON value" },
	};
	static const char *const good[] = {
		"{}", " [] ", "0", "-0", "1.5e-3", "18446744073709551615", "-9223372036854775808",
		"\"\\ud83d\\ude00 \xc3\xa9\"", "{\"a\": [true, false, null, {\"b\": \"\\n\"}]}\n",
		"1e308",
	};
	char why[256], deep[200];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(damonctl_json_check(bad[i].doc, strlen(bad[i].doc), why,
						     sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i].why))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].doc, why, bad[i].why);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (damonctl_json_check(good[i], strlen(good[i]), why, sizeof(why)))
			fail_msg("'%s' refused: %s", good[i], why);
	/* an embedded NUL is not the end of the document */
	assert_int_equal(damonctl_json_check("{}\0{}", 5, why, sizeof(why)), -EINVAL);
	/* 64 levels are fine, 65 are not */
	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	assert_int_equal(damonctl_json_check(deep, 128, why, sizeof(why)), 0);
	memset(deep, '[', 65);
	memset(deep + 65, ']', 65);
	assert_int_equal(damonctl_json_check(deep, 130, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "nested more than 64 deep"));
}

static void results_are_ignored(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;

	(void)state;
	/* state, pid and stats describe a run; a document carrying them configures nothing */
	t = json_ok("{\"kdamonds\": [{\"state\": \"on\", \"pid\": 391, \"contexts\": "
		    "[{\"avail_operations\": [\"paddr\"], \"schemes\": [{\"stats\": "
		    "{\"nr_tried\": 5}, \"tried_regions\": {\"total_bytes\": 4096, "
		    "\"regions\": [{\"start\": 0, \"end\": 4096}]}}]}]}]}");
	k = damonctl_tree_kdamond(t, 0);
	assert_string_equal(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "off");
	assert_int_equal(damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID), -1);
	assert_int_equal(damonctl_scheme_get(damonctl_context_scheme(damonctl_kdamond_context(k, 0),
								     0),
					     DAMONCTL_SCHEME_STAT_NR_TRIED), 0);
	assert_int_equal(damonctl_scheme_nr_tried_regions(damonctl_context_scheme(
		damonctl_kdamond_context(k, 0), 0)), 0);
	damonctl_tree_free(t);
}

static void damonc_without_version(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_context *c;

	(void)state;
	/* no format_version, but damonc's names: damonc's schema and its defaults */
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"operations\": \"paddr\"}]}]}");
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	assert_string_equal(damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
	assert_int_equal(damonctl_context_get(c, DAMONCTL_CONTEXT_UPDATE_US), 60000000);
	damonctl_tree_free(t);
	/* nothing telling: an empty tree either way */
	t = json_ok("{\"kdamonds\": []}");
	assert_int_equal(damonctl_tree_nr_kdamonds(t), 0);
	damonctl_tree_free(t);
	t = json_ok("{\"kdamonds\": [{\"contexts\": [{\"targets\": [{\"pid_target\": 7}]}]}]}");
	c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
	assert_int_equal(damonctl_target_get_int(damonctl_context_target(c, 0),
						 DAMONCTL_TARGET_PID), 7);
	damonctl_tree_free(t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_full),
		cmocka_unit_test(round_trip_capture),
		cmocka_unit_test(output_shape),
		cmocka_unit_test(unit_strings),
		cmocka_unit_test(errors_name_the_key),
		cmocka_unit_test(strict_json),
		cmocka_unit_test(results_are_ignored),
		cmocka_unit_test(damonc_without_version),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
