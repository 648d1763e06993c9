// SPDX-License-Identifier: GPL-2.0-or-later
/* The --faults rule language. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "faults.h"

static struct emu_fault_rules *parse_ok(const char *text)
{
	char err[200] = "";
	struct emu_fault_rules *r = emu_faults_parse(text, err, sizeof(err));

	if (!r)
		fail_msg("parse failed: %s", err);
	return r;
}

static void test_nth(void **state)
{
	struct emu_fault_rules *r = parse_ok("# the third write\nnth=3 errno=ENOMEM\n");

	(void)state;
	assert_int_equal(emu_faults_match(r, "a", "1", NULL), 0);
	assert_int_equal(emu_faults_match(r, "b", "1", NULL), 0);
	assert_int_equal(emu_faults_match(r, "c", "1", NULL), ENOMEM);
	assert_int_equal(emu_faults_match(r, "d", "1", NULL), 0);
	emu_faults_free(r);
}

static void test_path_value_times(void **state)
{
	struct emu_fault_rules *r =
		parse_ok("path=kdamonds/*/state value=on errno=EBUSY times=2\n"
			 "path=*nr_schemes errno=5\n");

	(void)state;
	assert_int_equal(emu_faults_match(r, "kdamonds/0/state", "off\n", NULL), 0);
	assert_int_equal(emu_faults_match(r, "kdamonds/0/state", "on\n", NULL), EBUSY);
	assert_int_equal(emu_faults_match(r, "kdamonds/1/state", "on", NULL), EBUSY);
	assert_int_equal(emu_faults_match(r, "kdamonds/0/state", "on", NULL), 0);
	assert_int_equal(emu_faults_match(r, "kdamonds/0/contexts/0/schemes/nr_schemes", "1", NULL),
			 EIO);
	assert_int_equal(emu_faults_match(r, "kdamonds/nr_kdamonds", "1", NULL), 0);
	emu_faults_free(r);
}

static void test_nth_of_path(void **state)
{
	struct emu_fault_rules *r =
		parse_ok("path=x nth=2 errno=EINVAL\n\n   \npath=y value=\"a b\\n\" errno=EPERM\n");

	(void)state;
	assert_int_equal(emu_faults_match(r, "z", "1", NULL), 0);
	assert_int_equal(emu_faults_match(r, "x", "1", NULL), 0);
	assert_int_equal(emu_faults_match(r, "z", "1", NULL), 0);
	assert_int_equal(emu_faults_match(r, "x", "1", NULL), EINVAL);
	assert_int_equal(emu_faults_match(r, "x", "1", NULL), 0);
	/* one trailing newline of the written value is ignored, not two */
	assert_int_equal(emu_faults_match(r, "y", "a b\n\n", NULL), EPERM);
	assert_int_equal(emu_faults_match(r, "y", "a b\n\n\n", NULL), 0);
	emu_faults_free(r);
}

/* kill=: the writer of the k-th write is killed, before the write (which then fails) or
 * after it (which succeeds). */
static void test_kill(void **state)
{
	struct emu_fault_rules *r =
		parse_ok("nth=2 kill=before\npath=s value=on kill=after\n");
	int kill;

	(void)state;
	assert_int_equal(emu_faults_match(r, "a", "1", &kill), 0);
	assert_int_equal(kill, 0);
	assert_int_equal(emu_faults_match(r, "a", "1", &kill), EINTR);
	assert_int_equal(kill, EMU_FAULT_KILL_BEFORE);
	assert_int_equal(emu_faults_match(r, "a", "1", &kill), 0);
	assert_int_equal(kill, 0);
	assert_int_equal(emu_faults_match(r, "s", "on\n", &kill), 0);
	assert_int_equal(kill, EMU_FAULT_KILL_AFTER);
	emu_faults_free(r);
}

static void test_errors(void **state)
{
	char err[200];

	(void)state;
	assert_null(emu_faults_parse("path=x\n", err, sizeof(err)));
	assert_null(emu_faults_parse("errno=ENOTANERRNO\n", err, sizeof(err)));
	assert_null(emu_faults_parse("nth=0 errno=EIO\n", err, sizeof(err)));
	assert_null(emu_faults_parse("bogus errno=EIO\n", err, sizeof(err)));
	assert_null(emu_faults_parse("value=\"open errno=EIO\n", err, sizeof(err)));
	assert_null(emu_faults_parse("errno=EIO color=red\n", err, sizeof(err)));
	assert_null(emu_faults_parse("kill=later\n", err, sizeof(err)));
	assert_null(emu_faults_parse("kill=after errno=EIO\n", err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nth),
		cmocka_unit_test(test_path_value_times),
		cmocka_unit_test(test_nth_of_path),
		cmocka_unit_test(test_kill),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
