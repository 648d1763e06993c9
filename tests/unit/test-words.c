// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The word splitter of `damonc shell` and `damonc --batch` (cmd/words.c): words as a POSIX
 * shell splits them (the expectations are what `sh -c 'printf "[%s]" ...'` prints for the
 * same text), comments, errors, and the partial lines completion gives it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/words.h"

/* @line split into the words of @want ("[a][b c]" form), or the error @err. */
static void check(const char *line, bool partial, int err, const char *want)
{
	struct words w;
	const char *why = NULL;
	char got[512] = "";
	int i, r = words_split(line, partial, &w, &why);

	if (r != err)
		fail_msg("words_split(\"%s\") = %d, expected %d", line, r, err);
	if (r) {
		assert_non_null(why);
		assert_null(w.v);
		return;
	}
	assert_null(w.v[w.n]);
	for (i = 0; i < w.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "[%s]", w.v[i]);
	if (strcmp(got, want))
		fail_msg("words_split(\"%s\") gave %s, expected %s", line, got, want);
	words_free(&w);
}

static void test_plain(void **state)
{
	(void)state;
	check("", false, 0, "");
	check("   \t ", false, 0, "");
	check("status", false, 0, "[status]");
	check("  tune  --kdamond 0\t--quota-size 1MiB  ", false, 0,
	      "[tune][--kdamond][0][--quota-size][1MiB]");
	check("report hugepage\n", false, 0, "[report][hugepage]");
}

static void test_quotes(void **state)
{
	(void)state;
	check("start --label 'my job'", false, 0, "[start][--label][my job]");
	check("a 'x\"y\\z'", false, 0, "[a][x\"y\\z]");
	check("a \"x 'y' \\\"z\\\" \\$ \\n\"", false, 0, "[a][x 'y' \"z\" $ \\n]");
	check("a''b \"\"c", false, 0, "[ab][c]");
	check("'' \"\"", false, 0, "[][]");
	check("a\\ b c\\\\d \\'", false, 0, "[a b][c\\d][']");
	check("x'y'\"z\"w", false, 0, "[xyzw]");
}

static void test_comments(void **state)
{
	(void)state;
	check("# a comment", false, 0, "");
	check("status # the state", false, 0, "[status]");
	check("status#not-a-comment", false, 0, "[status#not-a-comment]");
	check("a '#' \\# \"#\"", false, 0, "[a][#][#][#]");
	check("   #", false, 0, "");
}

static void test_errors(void **state)
{
	(void)state;
	check("start --label 'open", false, -EINVAL, NULL);
	check("start --label \"open", false, -EINVAL, NULL);
	check("a \"\\\"", false, -EINVAL, NULL);
	check("status \\", false, -EINVAL, NULL);
	/* a quote inside a comment is no quote */
	check("status # it's fine", false, 0, "[status]");
}

static void test_partial(void **state)
{
	struct words w;
	const char *why;

	(void)state;
	check("start --label 'open wo", true, 0, "[start][--label][open wo]");
	check("status \\", true, 0, "[status][]");	/* the cursor is in a word */
	assert_int_equal(words_split("tune --kd", true, &w, &why), 0);
	assert_int_equal(w.n, 2);
	assert_true(w.open);
	words_free(&w);
	assert_int_equal(words_split("tune --kdamond ", true, &w, &why), 0);
	assert_int_equal(w.n, 2);
	assert_false(w.open);
	words_free(&w);
	assert_int_equal(words_split("", true, &w, &why), 0);
	assert_int_equal(w.n, 0);
	assert_false(w.open);
	words_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_quotes),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
