// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace line parser of `damonc trace` (libdamonctl's damonctl_trace_event_*,
 * lib/trace_line.c), on lines as tracefs's
 * trace_pipe, trace-cmd (with and without the latency column) and perf script print them,
 * with the TP_printk formats of include/trace/events/damon.h over the kernel versions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "damonctl/damonctl.h"

typedef struct damonctl_trace_event tev;

/* A new event for each test, freed by teardown. */
static int setup(void **state)
{
	tev *t;

	assert_int_equal(damonctl_trace_event_new(&t), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	damonctl_trace_event_free(*state);
	return 0;
}

/* The field named @key: its index. */
static unsigned int field(const tev *t, const char *key)
{
	int i = damonctl_trace_event_field_index(t, key);

	assert_true(i >= 0);
	assert_string_equal(damonctl_trace_event_field_key(t, (unsigned int)i), key);
	return (unsigned int)i;
}

static uint64_t num(const tev *t, const char *key)
{
	unsigned int i = field(t, key);

	assert_null(damonctl_trace_event_field_text(t, i));
	assert_false(damonctl_trace_event_field_is_list(t, i));
	assert_int_equal(damonctl_trace_event_field_nr_values(t, i), 1);
	return damonctl_trace_event_field_u64(t, i, 0);
}

static int parse(tev *t, const char *line)
{
	return damonctl_trace_event_parse(t, line);
}

static void test_trace_pipe(void **state)
{
	tev *t = *state;

	assert_int_equal(parse(t, "       kdamond.0-174     [001] .....  1394.412830: "
				  "damon_aggregated: target_id=2 nr_regions=11 "
				  "4096-8192: 5 3\n"), 0);
	assert_string_equal(damonctl_trace_event_task(t), "kdamond.0");
	assert_int_equal(damonctl_trace_event_pid(t), 174);
	assert_int_equal(damonctl_trace_event_cpu(t), 1);
	assert_int_equal(damonctl_trace_event_ts_ns(t), 1394412830000ull);
	assert_string_equal(damonctl_trace_event_name(t), "damon_aggregated");
	assert_int_equal(damonctl_trace_event_nr_fields(t), 6);
	assert_int_equal(num(t, "target_id"), 2);
	assert_int_equal(num(t, "nr_regions"), 11);
	assert_int_equal(num(t, "start"), 4096);
	assert_int_equal(num(t, "end"), 8192);
	assert_int_equal(num(t, "nr_accesses"), 5);
	assert_int_equal(num(t, "age"), 3);
}

/* trace-cmd 3.2 prints no latency column; an unknown task is "<...>"; a name may hold
 * spaces and dashes (the pid is after the last dash). */
static void test_trace_cmd(void **state)
{
	tev *t = *state;

	assert_int_equal(parse(t, "<...>-764 [000] 101029.459185: damon_aggregated:     "
				  "target_id=0 nr_regions=1 8335224832-8371830784: 0 560"), 0);
	assert_string_equal(damonctl_trace_event_task(t), "<...>");
	assert_int_equal(damonctl_trace_event_pid(t), 764);
	assert_int_equal(damonctl_trace_event_cpu(t), 0);
	assert_int_equal(damonctl_trace_event_ts_ns(t), 101029459185000ull);
	assert_int_equal(num(t, "end"), 8371830784ull);
	assert_int_equal(parse(t, "my worker-x-9 [3] ..s1. 5.5: damos_esz: ctx_idx=1 "
				  "scheme_idx=2 esz=4096"), 0);
	assert_string_equal(damonctl_trace_event_task(t), "my worker-x");
	assert_int_equal(damonctl_trace_event_pid(t), 9);
	assert_int_equal(damonctl_trace_event_ts_ns(t), 5500000000ull);
	assert_int_equal(num(t, "esz"), 4096);
}

static void test_perf_script(void **state)
{
	tev *t = *state;

	assert_int_equal(parse(t, "kdamond.0  129062 [004] 100952.251360: "
				  "damon:damos_before_apply: ctx_idx=0 scheme_idx=1 "
				  "target_idx=3 nr_regions=11 1234-5678: 10 45"), 0);
	assert_string_equal(damonctl_trace_event_task(t), "kdamond.0");
	assert_int_equal(damonctl_trace_event_pid(t), 129062);
	assert_int_equal(damonctl_trace_event_cpu(t), 4);
	assert_string_equal(damonctl_trace_event_name(t), "damos_before_apply");
	assert_int_equal(num(t, "target_idx"), 3);
	assert_int_equal(num(t, "start"), 1234);
	assert_int_equal(num(t, "age"), 45);
	/* perf script without the CPU column */
	assert_int_equal(parse(t, "kdamond.0 77 12.000001: damon:damon_monitor_intervals_tune: "
				  "sample_us=5000"), 0);
	assert_int_equal(damonctl_trace_event_cpu(t), -1);
	assert_int_equal(damonctl_trace_event_pid(t), 77);
	assert_int_equal(num(t, "sample_us"), 5000);
}

/* 7.2's probes: the hits in hex after probe_hits=, none at all when no probe is set. */
static void test_probe_hits(void **state)
{
	tev *t = *state;
	unsigned int f;

	assert_int_equal(parse(t, "kdamond.0-1 [005] 1.000000: damon_region_aggregated: "
				  "target_id=0 nr_regions=1 4096-8192: 0 974 "
				  "probe_hits=14 00 ff"), 0);
	f = field(t, "probe_hits");
	assert_true(damonctl_trace_event_field_is_list(t, f));
	assert_int_equal(damonctl_trace_event_field_nr_values(t, f), 3);
	assert_int_equal(damonctl_trace_event_field_u64(t, f, 0), 0x14);
	assert_int_equal(damonctl_trace_event_field_u64(t, f, 1), 0);
	assert_int_equal(damonctl_trace_event_field_u64(t, f, 2), 0xff);
	assert_int_equal(damonctl_trace_event_field_u64(t, f, 3), 0);	/* past the end */
	assert_int_equal(num(t, "age"), 974);
	assert_int_equal(parse(t, "kdamond.0-1 [005] 1.000000: damon_region_aggregated: "
				  "target_id=0 nr_regions=1 4096-8192: 0 974 probe_hits="), 0);
	f = field(t, "probe_hits");
	assert_int_equal(damonctl_trace_event_field_nr_values(t, f), 0);
	assert_null(damonctl_trace_event_field_text(t, f));
	/* an index out of range */
	f = damonctl_trace_event_nr_fields(t);
	assert_null(damonctl_trace_event_field_key(t, f));
	assert_int_equal(damonctl_trace_event_field_nr_values(t, f), 0);
	assert_false(damonctl_trace_event_field_is_list(t, f));
}

/* 5.15's damon_aggregated had no age; a value that is no number is kept as text. */
static void test_old_and_text(void **state)
{
	tev *t = *state;
	unsigned int f;

	assert_int_equal(parse(t, "kdamond.0-5 [000] .... 2.5: damon_aggregated: "
				  "target_id=18446612686384316416 nr_regions=3 10-20: 7"), 0);
	assert_int_equal(num(t, "target_id"), 18446612686384316416ull);
	assert_int_equal(num(t, "nr_accesses"), 7);
	assert_int_equal(damonctl_trace_event_field_index(t, "age"), -ENOENT);
	assert_int_equal(parse(t, "kdamond.0-5 [000] 2.5: damos_x: mode=fast n=-1"), 0);
	f = field(t, "mode");
	assert_string_equal(damonctl_trace_event_field_text(t, f), "fast");
	assert_int_equal(damonctl_trace_event_field_nr_values(t, f), 0);
	assert_int_equal(damonctl_trace_event_field_u64(t, f, 0), 0);
	assert_string_equal(damonctl_trace_event_field_text(t, field(t, "n")), "-1");
}

static void test_not_events(void **state)
{
	static const char *const lines[] = {
		"# tracer: nop",
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
		"CPU:1 [LOST 12 EVENTS]",
		"",
		"1394.412830: damon_aggregated: target_id=0",	/* no task */
		"kdamond.0-174 [001] 1394.412830 damon_aggregated target_id=0",
		"kdamond.0 [001] 1.5: damon_aggregated: target_id=0",	/* no pid */
		"kdamond.0-174 [001] 1.5: :",
	};
	tev *t = *state;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(parse(t, lines[i]), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trace_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_cmd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perf_script, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_hits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_and_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
