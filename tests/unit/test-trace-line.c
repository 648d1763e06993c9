// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace line parser of `damonc trace` (cmd/trace_line.c), on lines as tracefs's
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

#include "cmd/trace_line.h"

static uint64_t num(const struct tline *t, const char *key)
{
	const struct tline_field *f = tline_field(t, key);

	assert_non_null(f);
	assert_false(f->text);
	assert_int_equal(f->n, 1);
	return f->v[0];
}

static void test_trace_pipe(void **state)
{
	struct tline t;

	(void)state;
	assert_int_equal(tline_parse("       kdamond.0-174     [001] .....  1394.412830: "
				     "damon_aggregated: target_id=2 nr_regions=11 "
				     "4096-8192: 5 3\n", &t), 0);
	assert_string_equal(t.task, "kdamond.0");
	assert_int_equal(t.pid, 174);
	assert_int_equal(t.cpu, 1);
	assert_int_equal(t.ts_ns, 1394412830000ull);
	assert_string_equal(t.event, "damon_aggregated");
	assert_int_equal(t.nr, 6);
	assert_int_equal(num(&t, "target_id"), 2);
	assert_int_equal(num(&t, "nr_regions"), 11);
	assert_int_equal(num(&t, "start"), 4096);
	assert_int_equal(num(&t, "end"), 8192);
	assert_int_equal(num(&t, "nr_accesses"), 5);
	assert_int_equal(num(&t, "age"), 3);
}

/* trace-cmd 3.2 prints no latency column; an unknown task is "<...>"; a name may hold
 * spaces and dashes (the pid is after the last dash). */
static void test_trace_cmd(void **state)
{
	struct tline t;

	(void)state;
	assert_int_equal(tline_parse("<...>-764 [000] 101029.459185: damon_aggregated:     "
				     "target_id=0 nr_regions=1 8335224832-8371830784: 0 560",
				     &t), 0);
	assert_string_equal(t.task, "<...>");
	assert_int_equal(t.pid, 764);
	assert_int_equal(t.cpu, 0);
	assert_int_equal(t.ts_ns, 101029459185000ull);
	assert_int_equal(num(&t, "end"), 8371830784ull);
	assert_int_equal(tline_parse("my worker-x-9 [3] ..s1. 5.5: damos_esz: ctx_idx=1 "
				     "scheme_idx=2 esz=4096", &t), 0);
	assert_string_equal(t.task, "my worker-x");
	assert_int_equal(t.pid, 9);
	assert_int_equal(t.ts_ns, 5500000000ull);
	assert_int_equal(num(&t, "esz"), 4096);
}

static void test_perf_script(void **state)
{
	struct tline t;

	(void)state;
	assert_int_equal(tline_parse("kdamond.0  129062 [004] 100952.251360: "
				     "damon:damos_before_apply: ctx_idx=0 scheme_idx=1 "
				     "target_idx=3 nr_regions=11 1234-5678: 10 45", &t), 0);
	assert_string_equal(t.task, "kdamond.0");
	assert_int_equal(t.pid, 129062);
	assert_int_equal(t.cpu, 4);
	assert_string_equal(t.event, "damos_before_apply");
	assert_int_equal(num(&t, "target_idx"), 3);
	assert_int_equal(num(&t, "start"), 1234);
	assert_int_equal(num(&t, "age"), 45);
	/* perf script without the CPU column */
	assert_int_equal(tline_parse("kdamond.0 77 12.000001: damon:damon_monitor_intervals_tune: "
				     "sample_us=5000", &t), 0);
	assert_int_equal(t.cpu, -1);
	assert_int_equal(t.pid, 77);
	assert_int_equal(num(&t, "sample_us"), 5000);
}

/* 7.2's probes: the hits in hex after probe_hits=, none at all when no probe is set. */
static void test_probe_hits(void **state)
{
	const struct tline_field *f;
	struct tline t;

	(void)state;
	assert_int_equal(tline_parse("kdamond.0-1 [005] 1.000000: damon_region_aggregated: "
				     "target_id=0 nr_regions=1 4096-8192: 0 974 probe_hits=14 00 ff",
				     &t), 0);
	f = tline_field(&t, "probe_hits");
	assert_non_null(f);
	assert_true(f->list);
	assert_int_equal(f->n, 3);
	assert_int_equal(f->v[0], 0x14);
	assert_int_equal(f->v[1], 0);
	assert_int_equal(f->v[2], 0xff);
	assert_int_equal(num(&t, "age"), 974);
	assert_int_equal(tline_parse("kdamond.0-1 [005] 1.000000: damon_region_aggregated: "
				     "target_id=0 nr_regions=1 4096-8192: 0 974 probe_hits=", &t), 0);
	f = tline_field(&t, "probe_hits");
	assert_non_null(f);
	assert_int_equal(f->n, 0);
}

/* 5.15's damon_aggregated had no age; a value that is no number is kept as text. */
static void test_old_and_text(void **state)
{
	const struct tline_field *f;
	struct tline t;

	(void)state;
	assert_int_equal(tline_parse("kdamond.0-5 [000] .... 2.5: damon_aggregated: "
				     "target_id=18446612686384316416 nr_regions=3 10-20: 7", &t), 0);
	assert_int_equal(num(&t, "target_id"), 18446612686384316416ull);
	assert_int_equal(num(&t, "nr_accesses"), 7);
	assert_null(tline_field(&t, "age"));
	assert_int_equal(tline_parse("kdamond.0-5 [000] 2.5: damos_x: mode=fast n=-1", &t), 0);
	f = tline_field(&t, "mode");
	assert_non_null(f);
	assert_true(f->text);
	assert_string_equal(f->str, "fast");
	assert_true(tline_field(&t, "n")->text);
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
	struct tline t;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(tline_parse(lines[i], &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_pipe),  cmocka_unit_test(test_trace_cmd),
		cmocka_unit_test(test_perf_script), cmocka_unit_test(test_probe_hits),
		cmocka_unit_test(test_old_and_text), cmocka_unit_test(test_not_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
