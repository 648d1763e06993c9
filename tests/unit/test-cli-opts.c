// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc's options parsed from their table entries (cmd/util.c opt_store, struct opt's
 * dest): every command's table is checked for entries parsing could not honour, and the
 * parser for what it stores and refuses. Expected values are worked out by hand: 5s is
 * 5,000,000 us, 2MiB 2,097,152 bytes, 5% 500 basis points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/damonc.h"

/* The C type each destination kind writes, and the value kinds it may parse. */
static size_t dest_size(enum opt_dest d)
{
	switch (d) {
	case OD_FLAG:
		return sizeof(bool);
	case OD_STRING:
		return sizeof(const char *);
	case OD_INT:
	case OD_PID:
	case OD_CHOICE:
		return sizeof(int);
	default:
		return sizeof(uint64_t);
	}
}

static bool value_fits(const struct opt *o)
{
	switch (o->dest) {
	case OD_FLAG:
		return o->value == OV_NONE;
	case OD_STRING:
		return o->value == OV_STRING || o->value == OV_FILE || o->value == OV_DIR;
	case OD_INT:
	case OD_U64:
		return o->value == OV_INT;
	case OD_TIME:
		return o->value == OV_TIME;
	case OD_SIZE:
		return o->value == OV_SIZE;
	case OD_BP:
		return o->value == OV_BP || o->value == OV_PERCENT;
	case OD_PID:
		return o->value == OV_PID;
	case OD_CHOICE:
		return opt_choice_name(o, 1, NULL) != NULL;
	default:
		return false;
	}
}

static void check_cmd(const char *parent, const struct cmd *c, unsigned int *with_dest)
{
	const struct cmd *const *sub;
	const struct opt *o;

	for (o = cmd_opts(c); o && o->name; o++) {
		if (!o->dest) {
			/* a command without a parse function takes only table options */
			if (!c->parse)
				fail_msg("%s %s: --%s has no destination and no parse function",
					 parent, c->name, o->name);
			continue;
		}
		(*with_dest)++;
		if (!c->opts_size || !c->opts_init)
			fail_msg("%s %s: --%s has a destination but the command no options "
				 "struct", parent, c->name, o->name);
		if (o->off + dest_size(o->dest) > c->opts_size)
			fail_msg("%s %s: --%s is stored past the options struct", parent, c->name,
				 o->name);
		if (!value_fits(o))
			fail_msg("%s %s: --%s: destination kind %d for value kind %d", parent,
				 c->name, o->name, o->dest, o->value);
		/* OD_TIME's: a wait of damonc's own, bounded by check_wait() */
		if (o->max && o->dest != OD_INT && o->dest != OD_U64 &&
		    !(o->dest == OD_TIME && o->max == DAMONCTL_WAIT_MAX_US))
			fail_msg("%s %s: --%s: a maximum for a kind without one", parent,
				 c->name, o->name);
	}
	for (sub = c->subcmds; sub && *sub; sub++)
		check_cmd(c->name, *sub, with_dest);
}

static void test_tables(void **state)
{
	unsigned int i, with_dest = 0;

	(void)state;
	for (i = 0; damonc_cmds[i]; i++)
		check_cmd("damonc", damonc_cmds[i], &with_dest);
	/* the check above checked something: module, trace, stop and tune have such entries */
	assert_true(with_dest >= 10);
}

struct sample {
	bool flag;
	const char *str;
	int i, pid, choice;
	uint64_t u, t, sz, bp, pct;
};

#define AT(kind, m) OPT_TO(kind, struct sample, m)
static const struct opt table[] = {
	{ "flag", 300, OV_NONE, NULL, "", AT(OD_FLAG, flag) },
	{ "str", 301, OV_FILE, "FILE", "", AT(OD_STRING, str) },
	{ "int", 302, OV_INT, "N", "", AT(OD_INT, i), .max = 100 },
	{ "pid", 303, OV_PID, "PID", "", AT(OD_PID, pid) },
	{ "choice", 304, OV_STRING, "one|two|three", "", AT(OD_CHOICE, choice) },
	{ "u", 305, OV_INT, "N", "", AT(OD_U64, u), .positive = true },
	{ "time", 306, OV_TIME, "TIME", "", AT(OD_TIME, t), .positive = true },
	{ "size", 307, OV_SIZE, "SIZE", "", AT(OD_SIZE, sz) },
	{ "bp", 308, OV_BP, "BP", "", AT(OD_BP, bp) },
	{ "pct", 309, OV_PERCENT, "PCT", "", AT(OD_BP, pct) },
	{ "int32", 310, OV_INT, "N", "", AT(OD_INT, i) },
	{ 0 },
};
#undef AT

static int store(struct sample *s, unsigned int i, const char *arg)
{
	struct cli cli = { .opts = s };

	snprintf(cli.cmd_name, sizeof(cli.cmd_name), "test");
	return opt_store(&cli, &table[i], arg);
}

static void test_store(void **state)
{
	struct sample s = { .i = -1, .choice = -1 };

	(void)state;
	assert_int_equal(store(&s, 0, NULL), 0);
	assert_true(s.flag);
	assert_int_equal(store(&s, 1, "-"), 0);
	assert_string_equal(s.str, "-");
	assert_int_equal(store(&s, 2, "100"), 0);
	assert_int_equal(s.i, 100);
	assert_int_equal(store(&s, 3, "4242"), 0);
	assert_int_equal(s.pid, 4242);
	assert_int_equal(store(&s, 4, "three"), 0);
	assert_int_equal(s.choice, 2);
	assert_int_equal(store(&s, 5, "7"), 0);
	assert_int_equal(s.u, 7);
	assert_int_equal(store(&s, 6, "5s"), 0);
	assert_int_equal(s.t, 5000000);
	assert_int_equal(store(&s, 7, "2MiB"), 0);
	assert_int_equal(s.sz, 2097152);
	assert_int_equal(store(&s, 8, "500"), 0);
	assert_int_equal(s.bp, 500);
	assert_int_equal(store(&s, 9, "5%"), 0);
	assert_int_equal(s.pct, 500);
	assert_int_equal(store(&s, 10, "2147483647"), 0);
	assert_int_equal(s.i, 2147483647);
}

static void test_refuse(void **state)
{
	struct sample s = { .i = -1, .choice = -1 };

	(void)state;
	assert_int_equal(store(&s, 2, "101"), EXIT_USAGE);	/* above .max */
	assert_int_equal(store(&s, 2, "-1"), EXIT_USAGE);
	assert_int_equal(store(&s, 2, "max"), EXIT_USAGE);	/* no int holds "max" */
	assert_int_equal(store(&s, 10, "2147483648"), EXIT_USAGE);	/* INT32_MAX + 1 */
	assert_int_equal(s.i, -1);
	assert_int_equal(store(&s, 3, "0"), EXIT_USAGE);
	assert_int_equal(store(&s, 4, "four"), EXIT_USAGE);
	assert_int_equal(s.choice, -1);
	assert_int_equal(store(&s, 5, "0"), EXIT_USAGE);	/* .positive */
	assert_int_equal(store(&s, 6, "0s"), EXIT_USAGE);
	assert_int_equal(store(&s, 6, "5 parsecs"), EXIT_USAGE);
	assert_int_equal(s.t, 0);
	assert_int_equal(store(&s, 7, "2 MiBs"), EXIT_USAGE);
	assert_int_equal(store(&s, 9, "101%"), EXIT_USAGE);
	assert_int_equal(s.pct, 0);
}

/* Out of memory is no bad input: exit 1, where usage errors are 2 (issue 29) */
static void test_oom(void **state)
{
	struct cli cli = { 0 };

	(void)state;
	snprintf(cli.cmd_name, sizeof(cli.cmd_name), "test");
	assert_int_equal(oom_error(&cli), EXIT_FAIL);
	assert_int_not_equal(EXIT_FAIL, EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_oom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
