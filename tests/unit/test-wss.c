// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/rec_wss.c: a snapshot's working set at several access-rate floors, worked out from
 * the regions' sizes and rates (nr_accesses x sample / aggregation), and the working set of
 * all targets summed per aggregation, in time order and in damo's target-after-target
 * order.
 */
#include <string.h>

#include "common.h"

#define S 1000000000ull

/* 20 samples an aggregation: [0, 100) never accessed, [100, 300) in 2 (1000 bp),
 * [300, 1000) in 20 (10000 bp) */
static const struct damonctl_rec_region regs[] = {
	{ 0, 100, 0, 0, 0 }, { 100, 300, 2, 0, 0 }, { 300, 1000, 20, 0, 0 },
};

static struct damonctl_rec_snapshot snap(uint64_t end_ns, int32_t target, uint32_t nr)
{
	return (struct damonctl_rec_snapshot){ .sz = sizeof(struct damonctl_rec_snapshot),
		.end_ns = end_ns, .target = target,
		.scheme = -1, .sample_us = 5000, .aggr_us = 100000, .nr_regions = nr,
		.regions = regs };
}

static void bytes(void **state)
{
	struct damonctl_rec_snapshot s = snap(S, 0, 3);

	(void)state;
	assert_int_equal(damonctl_wss_bytes(&s, 0), 200 + 700);
	assert_int_equal(damonctl_wss_bytes(&s, 1000), 200 + 700);
	assert_int_equal(damonctl_wss_bytes(&s, 1001), 700);
	assert_int_equal(damonctl_wss_bytes(&s, 10000), 700);
	/* without intervals a rate is unknown: accessed regions count only with no floor */
	s.aggr_us = 0;
	assert_int_equal(damonctl_wss_bytes(&s, 0), 900);
	assert_int_equal(damonctl_wss_bytes(&s, 1), 0);
}

/* Target 0 has all three regions (900 accessed), target 1 the first two (200): each
 * aggregation's total is 1100, whichever order the snapshots come in. */
static void totals(void **state)
{
	static const int32_t tg[2][4] = { { 0, 1, 0, 1 }, { 0, 0, 1, 1 } };
	static const uint64_t at[2][4] = { { 1, 1, 2, 2 }, { 1, 2, 1, 2 } };
	unsigned int order, i;

	(void)state;
	for (order = 0; order < 2; order++) {
		struct damonctl_wss_total *t = damonctl_wss_total_new();
		const struct damonctl_qhist *v;

		assert_non_null(t);
		for (i = 0; i < 4; i++) {
			struct damonctl_rec_snapshot s = snap(at[order][i] * S, tg[order][i],
							      tg[order][i] ? 2 : 3);

			damonctl_wss_total_feed(t, &s);
		}
		v = damonctl_wss_total_values(t);
		assert_int_equal(damonctl_qhist_count(v), 2);
		assert_int_equal(damonctl_qhist_min(v), 1100);
		assert_int_equal(damonctl_qhist_max(v), 1100);
		damonctl_wss_total_free(t);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes),
		cmocka_unit_test(totals),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
