// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/rec_heatmap.c on hand-made snapshots whose cells are worked out below from the rules
 * damonctl_heatmap_new(3) states: spans without their gaps, a column per snapshot when they
 * are few, rates weighted by bytes and capped at 1, rows of a power of two of bytes at
 * multiples of it, and what the footprints say was never mapped left out.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common.h"

#define S 1000000000ull		/* ns */

/* sample 5 ms, aggregation 100 ms: 20 samples, nr_accesses 20 is a rate of 1 */
static struct damonctl_rec_snapshot snap(uint64_t end_ns, const struct damonctl_rec_region *r,
					 uint32_t nr)
{
	return (struct damonctl_rec_snapshot){ .sz = sizeof(struct damonctl_rec_snapshot),
		.end_ns = end_ns, .start_ns = end_ns - S / 10,
		.sample_us = 5000, .aggr_us = 100000, .update_us = 1000000,
		.target = 0, .scheme = -1, .nr_regions = nr, .regions = r };
}

/* Two spans with a gap: [0x1000, 0x3000) (8 KiB) and [0x10000, 0x11000) (4 KiB).
 * Snapshot A at 1 s: 0x1000-0x2000 rate 1, 0x2000-0x3000 rate 0, 0x10000-0x11000 rate 0.5;
 * snapshot B at 2 s: 0x1000-0x3000 rate 0.5, 0x10000-0x11000 rate 0. */
static const struct damonctl_rec_region ra[] = {
	{ 0x1000, 0x2000, 20, 0, 0 }, { 0x2000, 0x3000, 0, 0, 0 }, { 0x10000, 0x11000, 10, 0, 0 },
};
static const struct damonctl_rec_region rb[] = {
	{ 0x1000, 0x3000, 10, 0, 0 }, { 0x10000, 0x11000, 0, 0, 0 },
};

static void near(double got, double want)
{
	assert_true(fabs(got - want) < 1e-9);
}

/* 2 x 3 cells over 12 KiB: rows of 4 KiB, row 0 = 0x1000-0x2000, row 1 = 0x2000-0x3000,
 * row 2 = 0x10000-0x11000 (the gap left out); two snapshots in two columns, one each. */
static void two_spans(void **state)
{
	struct damonctl_heatmap *h = damonctl_heatmap_new();
	struct damonctl_heatmap_layout l = DAMONCTL_HEATMAP_LAYOUT_INIT;
	struct damonctl_rec_snapshot a = snap(1 * S, ra, 3), b = snap(2 * S, rb, 2);
	uint64_t start, end, off;

	(void)state;
	assert_non_null(h);
	assert_int_equal(damonctl_heatmap_feed(h, &a), -EINVAL);	/* no grid yet */
	assert_int_equal(damonctl_heatmap_grid(h, 2, 3), -EINVAL);	/* nothing scanned */
	assert_int_equal(damonctl_heatmap_scan(h, &a), 0);
	assert_int_equal(damonctl_heatmap_scan(h, &b), 0);
	assert_int_equal(damonctl_heatmap_nr_spans(h), 2);
	assert_int_equal(damonctl_heatmap_span(h, 0, &start, &end, NULL), 0);
	assert_int_equal(start, 0x1000);
	assert_int_equal(end, 0x3000);
	assert_int_equal(damonctl_heatmap_span(h, 2, &start, &end, NULL), -ERANGE);
	assert_int_equal(damonctl_heatmap_grid(h, 2, 3), 0);
	assert_int_equal(damonctl_heatmap_grid(h, 2, 3), -EINVAL);	/* gridded already */
	assert_int_equal(damonctl_heatmap_span(h, 1, &start, &end, &off), 0);
	assert_int_equal(start, 0x10000);
	assert_int_equal(off, 8192);
	assert_int_equal(damonctl_heatmap_layout(h, &l), 0);
	assert_int_equal(l.nr_snapshots, 2);
	assert_int_equal(l.first_ns, 1 * S);
	assert_int_equal(l.last_ns, 2 * S);
	assert_int_equal(l.time_bins, 2);
	assert_int_equal(l.address_bins, 3);
	assert_int_equal(l.covered_bytes, 12288);
	assert_int_equal(l.address_bin_bytes, 4096);
	/* ceil((2 s - 1 s + 1 ns) / 2) */
	assert_int_equal(l.time_bin_ns, 500000001);
	assert_int_equal(damonctl_heatmap_address(h, 0), 0x1000);
	assert_int_equal(damonctl_heatmap_address(h, 8191), 0x2fff);
	assert_int_equal(damonctl_heatmap_address(h, 8192), 0x10000);
	assert_int_equal(damonctl_heatmap_feed(h, &a), 0);
	assert_int_equal(damonctl_heatmap_feed(h, &b), 0);
	near(damonctl_heatmap_cell(h, 0, 0), 1);
	near(damonctl_heatmap_cell(h, 0, 1), 0);
	near(damonctl_heatmap_cell(h, 0, 2), 0.5);
	near(damonctl_heatmap_cell(h, 1, 0), 0.5);
	near(damonctl_heatmap_cell(h, 1, 1), 0.5);
	near(damonctl_heatmap_cell(h, 1, 2), 0);
	assert_true(damonctl_heatmap_cell(h, 2, 0) == -1);	/* outside the grid */
	damonctl_heatmap_free(h);
}

/* A heatmap of span 1 alone: snapshot A's and B's regions in span 0 are left out; one row
 * of 0x10000-0x11000 with 0.5 then 0. */
static void one_span(void **state)
{
	struct damonctl_heatmap *h = damonctl_heatmap_new(), *s;
	struct damonctl_heatmap_layout l = DAMONCTL_HEATMAP_LAYOUT_INIT;
	struct damonctl_rec_snapshot a = snap(1 * S, ra, 3), b = snap(2 * S, rb, 2);
	uint64_t start, end;

	(void)state;
	damonctl_heatmap_scan(h, &a);
	damonctl_heatmap_scan(h, &b);
	errno = 0;
	assert_null(damonctl_heatmap_of_span(h, 2));
	assert_int_equal(errno, ERANGE);
	s = damonctl_heatmap_of_span(h, 1);
	assert_non_null(s);
	assert_int_equal(damonctl_heatmap_nr_spans(s), 1);
	assert_int_equal(damonctl_heatmap_span(s, 0, &start, &end, NULL), 0);
	assert_int_equal(start, 0x10000);
	assert_int_equal(end, 0x11000);
	assert_int_equal(damonctl_heatmap_grid(s, 10, 1), 0);
	assert_int_equal(damonctl_heatmap_layout(s, &l), 0);
	assert_int_equal(l.time_bins, 2);	/* two snapshots: no more columns */
	assert_int_equal(l.address_bins, 1);
	assert_int_equal(l.covered_bytes, 4096);
	damonctl_heatmap_feed(s, &a);
	damonctl_heatmap_feed(s, &b);
	near(damonctl_heatmap_cell(s, 0, 0), 0.5);
	near(damonctl_heatmap_cell(s, 1, 0), 0);
	damonctl_heatmap_free(s);
	damonctl_heatmap_free(h);
}

/* One cell of [0, 300): 100 bytes at rate 1 and 200 at rate 0 make 1/3; a region over the
 * samples' count is capped at 1 (40 of 20 samples: 300 bytes at 1); a snapshot without
 * intervals is left out. */
static void weights_and_caps(void **state)
{
	static const struct damonctl_rec_region r1[] = { { 0, 100, 20, 0, 0 },
							 { 100, 300, 0, 0, 0 } };
	static const struct damonctl_rec_region r2[] = { { 0, 300, 40, 0, 0 } };
	struct damonctl_heatmap *h = damonctl_heatmap_new(), *g = damonctl_heatmap_new();
	struct damonctl_rec_snapshot a = snap(1 * S, r1, 2), b = snap(1 * S, r2, 1);
	struct damonctl_rec_snapshot z = snap(1 * S, r2, 1);

	(void)state;
	z.aggr_us = 0;
	damonctl_heatmap_scan(h, &a);
	assert_int_equal(damonctl_heatmap_grid(h, 1, 1), 0);
	damonctl_heatmap_feed(h, &a);
	near(damonctl_heatmap_cell(h, 0, 0), 1.0 / 3);
	damonctl_heatmap_scan(g, &b);
	assert_int_equal(damonctl_heatmap_grid(g, 1, 1), 0);
	damonctl_heatmap_feed(g, &z);
	assert_true(damonctl_heatmap_cell(g, 0, 0) == -1);
	damonctl_heatmap_feed(g, &b);
	near(damonctl_heatmap_cell(g, 0, 0), 1);
	damonctl_heatmap_free(h);
	damonctl_heatmap_free(g);
}

/* Four snapshots at 0, 1, 2 and 3 s in 2 columns: columns of ceil((3 s + 1 ns) / 2) =
 * 1.500000001 s, so 0 s and 1 s fall in column 0 (rates 1 and 0: 0.5), 2 s and 3 s in
 * column 1 (rates 1 and 1: 1). */
static void binned_by_time(void **state)
{
	static const struct damonctl_rec_region hot[] = { { 0, 4096, 20, 0, 0 } };
	static const struct damonctl_rec_region cold[] = { { 0, 4096, 0, 0, 0 } };
	struct damonctl_heatmap *h = damonctl_heatmap_new();
	struct damonctl_heatmap_layout l = DAMONCTL_HEATMAP_LAYOUT_INIT;
	struct damonctl_rec_snapshot s[4] = { snap(S / 10, hot, 1), snap(S / 10 + S, cold, 1),
					      snap(S / 10 + 2 * S, hot, 1),
					      snap(S / 10 + 3 * S, hot, 1) };
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++)
		damonctl_heatmap_scan(h, &s[i]);
	assert_int_equal(damonctl_heatmap_grid(h, 2, 1), 0);
	assert_int_equal(damonctl_heatmap_layout(h, &l), 0);
	assert_int_equal(l.time_bin_ns, 1500000001);
	for (i = 0; i < 4; i++)
		damonctl_heatmap_feed(h, &s[i]);
	near(damonctl_heatmap_cell(h, 0, 0), 0.5);
	near(damonctl_heatmap_cell(h, 1, 0), 1);
	/* a layout struct of an older, smaller size is refused, not overrun */
	l.sz = sizeof(size_t) + sizeof(uint64_t);
	assert_int_equal(damonctl_heatmap_layout(h, &l), -EINVAL);
	damonctl_heatmap_free(h);
}

/* 32 KiB at 0x1000 in at most 3 rows: 8 KiB rows would need 5 (0x0 to 0xa000), 16 KiB rows
 * need 3, from 0x0, 0x4000 and 0x8000; the first holds 12 KiB of the region, the last 4. */
static void aligned_rows(void **state)
{
	static const struct damonctl_rec_region r[] = { { 0x1000, 0x9000, 20, 0, 0 } };
	struct damonctl_heatmap *h = damonctl_heatmap_new();
	struct damonctl_heatmap_layout l = DAMONCTL_HEATMAP_LAYOUT_INIT;
	struct damonctl_rec_snapshot a = snap(1 * S, r, 1);

	(void)state;
	damonctl_heatmap_scan(h, &a);
	assert_int_equal(damonctl_heatmap_grid(h, 1, 3), 0);
	assert_int_equal(damonctl_heatmap_layout(h, &l), 0);
	assert_int_equal(l.address_bin_bytes, 0x4000);
	assert_int_equal(l.address_bins, 3);
	assert_int_equal(l.covered_bytes, 0xc000);
	assert_int_equal(damonctl_heatmap_address(h, 0), 0);
	assert_int_equal(damonctl_heatmap_address(h, 0x4000), 0x4000);
	assert_int_equal(damonctl_heatmap_address(h, 0x8000), 0x8000);
	damonctl_heatmap_feed(h, &a);
	near(damonctl_heatmap_cell(h, 0, 0), 1);
	near(damonctl_heatmap_cell(h, 0, 2), 1);
	damonctl_heatmap_free(h);
}

/* A region over [0, 1 MiB) of which the footprints say only [0, 16 KiB) and
 * [0xf0000, 1 MiB) were mapped: the axis is their 80 KiB (rows of 1 KiB: 512 B ones would
 * be 160, over the 100 asked), the row after the first mapping's is the second's, and the
 * unmapped bytes count in no cell. A footprint of another target, or without mappings,
 * changes nothing; one that is no JSON is refused. */
static void unmapped_left_out(void **state)
{
	static const struct damonctl_rec_region r[] = { { 0, 0x100000, 20, 0, 0 } };
	struct damonctl_heatmap *h = damonctl_heatmap_new();
	struct damonctl_heatmap_layout l = DAMONCTL_HEATMAP_LAYOUT_INIT;
	struct damonctl_rec_snapshot a = snap(1 * S, r, 1);
	uint64_t start, end, off;

	(void)state;
	damonctl_heatmap_scan(h, &a);
	assert_int_equal(damonctl_heatmap_footprint(h, 0, "{\"targets\": [{\"target\": 1, "
			 "\"vmas\": [[0, 4096, \"rw-p\", \"\"]]}, {\"target\": 0, \"vmas\": "
			 "[[0, 16384, \"rw-p\", \"\"], [983040, 1048576, \"rw-p\", \"[heap]\"]]}]}"),
			 0);
	assert_int_equal(damonctl_heatmap_footprint(h, 0, "{\"targets\": [{\"target\": 0}]}"),
			 0);
	assert_int_equal(damonctl_heatmap_footprint(h, 0, "{\"system\": {}}"), 0);
	assert_int_equal(damonctl_heatmap_footprint(h, 0, "not json"), -EINVAL);
	assert_int_equal(damonctl_heatmap_grid(h, 1, 100), 0);
	assert_int_equal(damonctl_heatmap_footprint(h, 0, "{}"), -EINVAL);	/* gridded */
	assert_int_equal(damonctl_heatmap_layout(h, &l), 0);
	assert_int_equal(l.address_bin_bytes, 1024);
	assert_int_equal(l.address_bins, 80);
	assert_int_equal(l.covered_bytes, 0x14000);
	assert_int_equal(damonctl_heatmap_address(h, 0x3fff), 0x3fff);
	assert_int_equal(damonctl_heatmap_address(h, 0x4000), 0xf0000);
	assert_int_equal(damonctl_heatmap_nr_spans(h), 1);	/* the regions' span, whole */
	assert_int_equal(damonctl_heatmap_span(h, 0, &start, &end, &off), 0);
	assert_int_equal(end, 0x100000);
	assert_int_equal(off, 0);
	damonctl_heatmap_feed(h, &a);
	near(damonctl_heatmap_cell(h, 0, 0), 1);
	near(damonctl_heatmap_cell(h, 0, 79), 1);
	damonctl_heatmap_free(h);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_spans),
		cmocka_unit_test(one_span),
		cmocka_unit_test(weights_and_caps),
		cmocka_unit_test(binned_by_time),
		cmocka_unit_test(aligned_rows),
		cmocka_unit_test(unmapped_left_out),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
