// SPDX-License-Identifier: GPL-2.0-or-later
/* damon-emu's kernel-compatible parsers against the kernel's documented behaviour. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kstrto.h"

static void test_ull(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(emu_kstrtoull("0", 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(emu_kstrtoull("42\n", 0, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(emu_kstrtoull("+42", 0, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(emu_kstrtoull("0x1F", 0, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(emu_kstrtoull("0X1f", 0, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(emu_kstrtoull("017", 0, &v), 0);
	assert_int_equal(v, 15);
	assert_int_equal(emu_kstrtoull("18446744073709551615", 0, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(emu_kstrtoull("0xffffffffffffffff", 0, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(emu_kstrtoull("18446744073709551616", 0, &v), -ERANGE);
	/* overflow wins over trailing garbage */
	assert_int_equal(emu_kstrtoull("99999999999999999999x", 0, &v), -ERANGE);
	assert_int_equal(emu_kstrtoull("", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("\n", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("-1", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull(" 1", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("1 ", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("1\n\n", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("0x", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("0xg", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("08", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("++1", 0, &v), -EINVAL);
	assert_int_equal(emu_kstrtoull("1.5", 0, &v), -EINVAL);
}

static void test_ll_int_uint(void **state)
{
	int64_t l;
	int i;
	unsigned int u;

	(void)state;
	assert_int_equal(emu_kstrtoll("-9223372036854775808", 0, &l), 0);
	assert_true(l == INT64_MIN);
	assert_int_equal(emu_kstrtoll("-9223372036854775809", 0, &l), -ERANGE);
	assert_int_equal(emu_kstrtoll("9223372036854775808", 0, &l), -ERANGE);
	assert_int_equal(emu_kstrtoll("-0", 0, &l), 0);
	assert_true(l == 0);
	assert_int_equal(emu_kstrtoll("--1", 0, &l), -EINVAL);
	assert_int_equal(emu_kstrtoll("-+1", 0, &l), -EINVAL);
	assert_int_equal(emu_kstrtoint("-2147483648", 0, &i), 0);
	assert_int_equal(i, INT_MIN);
	assert_int_equal(emu_kstrtoint("2147483648", 0, &i), -ERANGE);
	assert_int_equal(emu_kstrtoint("-0x10\n", 0, &i), 0);
	assert_int_equal(i, -16);
	assert_int_equal(emu_kstrtouint("4294967295", 0, &u), 0);
	assert_true(u == UINT_MAX);
	assert_int_equal(emu_kstrtouint("4294967296", 0, &u), -ERANGE);
	assert_int_equal(emu_kstrtouint("-1", 0, &u), -EINVAL);
}

static void test_bool(void **state)
{
	bool b = false;

	(void)state;
	assert_int_equal(emu_kstrtobool("Y", &b), 0);
	assert_true(b);
	assert_int_equal(emu_kstrtobool("no", &b), 0);
	assert_false(b);
	assert_int_equal(emu_kstrtobool("1whatever", &b), 0);
	assert_true(b);
	assert_int_equal(emu_kstrtobool("0", &b), 0);
	assert_false(b);
	assert_int_equal(emu_kstrtobool("oN", &b), 0);
	assert_true(b);
	assert_int_equal(emu_kstrtobool("Off", &b), 0);
	assert_false(b);
	/* 't'/'f' since 5.19: 6.12, 7.2 and 7.3 kernels took "true" for filters/0/matching */
	assert_int_equal(emu_kstrtobool("true", &b), 0);
	assert_true(b);
	assert_int_equal(emu_kstrtobool("F", &b), 0);
	assert_false(b);
	assert_int_equal(emu_kstrtobool("Tx", &b), 0);
	assert_true(b);
	assert_int_equal(emu_kstrtobool("false\n", &b), 0);
	assert_false(b);
	assert_int_equal(emu_kstrtobool("o", &b), -EINVAL);
	assert_int_equal(emu_kstrtobool("ox", &b), -EINVAL);
	assert_int_equal(emu_kstrtobool("", &b), -EINVAL);
	assert_int_equal(emu_kstrtobool("2", &b), -EINVAL);
}

static void test_streq(void **state)
{
	(void)state;
	assert_true(emu_sysfs_streq("on", "on"));
	assert_true(emu_sysfs_streq("on", "on\n"));
	assert_true(emu_sysfs_streq("on\n", "on"));
	assert_false(emu_sysfs_streq("on", "on\n\n"));
	assert_false(emu_sysfs_streq("on", "o"));
	assert_false(emu_sysfs_streq("on", "onx"));
	assert_false(emu_sysfs_streq("on", " on"));
	assert_false(emu_sysfs_streq("on", "ON"));
	assert_true(emu_sysfs_streq("", "\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ull),
		cmocka_unit_test(test_ll_int_uint),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_streq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
