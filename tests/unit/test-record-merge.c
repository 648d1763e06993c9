// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Re-aggregation of records (damonctl_rec_merger_*): windows on a grid from each series'
 * first snapshot, regions cut at every boundary, nr_accesses summed, the newest age in the
 * new aggregation intervals, filter shares split by size, several targets in one snapshot,
 * series kept apart, and the flush.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common.h"

#define S(x) ((uint64_t)(x) * 1000000000ull)
#define R(s_, e_, n_, a_) { .start = (s_), .end = (e_), .nr_accesses = (n_), .age = (a_) }

static struct damonctl_rec_snapshot snap(uint64_t t_ns, const struct damonctl_rec_region *r,
					 uint32_t n)
{
	struct damonctl_rec_snapshot s = {
		.sz = sizeof(s), .target = 0, .scheme = -1, .start_ns = t_ns,
		.end_ns = t_ns + 100000000ull,
		.sample_us = 5000, .aggr_us = 100000, .update_us = 1000000,
		.nr_regions = n, .regions = r,
	};

	return s;
}

static void expect_regions(const struct damonctl_rec_snapshot *s,
			   const struct damonctl_rec_region *want, uint32_t n)
{
	assert_int_equal(s->nr_regions, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct damonctl_rec_region *g = &s->regions[i];

		if (g->start != want[i].start || g->end != want[i].end ||
		    g->nr_accesses != want[i].nr_accesses || g->age != want[i].age ||
		    g->sz_filter_passed != want[i].sz_filter_passed)
			fail_msg("region %u: got [%#lx, %#lx) nr %u age %u sfp %lu, want [%#lx, "
				 "%#lx) nr %u age %u sfp %lu", i, (unsigned long)g->start,
				 (unsigned long)g->end, g->nr_accesses, g->age,
				 (unsigned long)g->sz_filter_passed, (unsigned long)want[i].start,
				 (unsigned long)want[i].end, want[i].nr_accesses, want[i].age,
				 (unsigned long)want[i].sz_filter_passed);
	}
}

/* Three snapshots a second apart into 2 s windows: the first two merge; the third is the
 * next window's, given out by the flush. Boundaries of both are kept, sums where they
 * overlap, alike neighbours joined. */
static void boundaries_and_sums(void **state)
{
	const struct damonctl_rec_region a[] = { R(0, 100, 4, 10), R(100, 300, 0, 30) };
	const struct damonctl_rec_region b[] = { R(0, 50, 2, 3), R(50, 200, 6, 1),
						R(200, 300, 0, 40) };
	const struct damonctl_rec_region c[] = { R(0, 300, 1, 0) };
	/* ages in 200 ms (the merged aggregation): b's ages x 100 ms / 200 ms */
	const struct damonctl_rec_region want[] = { R(0, 50, 6, 1), R(50, 100, 10, 0),
						   R(100, 200, 6, 0), R(200, 300, 0, 20) };
	const struct damonctl_rec_region want2[] = { R(0, 300, 1, 0) };
	struct damonctl_rec_merger *m;
	struct damonctl_rec_snapshot s;
	const struct damonctl_rec_snapshot *out;

	(void)state;
	assert_int_equal(damonctl_rec_merger_new(2000000, &m), 0);
	s = snap(S(10), a, 2);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(11), b, 3);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(12), c, 1);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 1);
	assert_int_equal(out->start_ns, S(10));
	assert_int_equal(out->end_ns, S(11) + 100000000ull);
	assert_int_equal(out->aggr_us, 200000);
	assert_int_equal(out->sample_us, 5000);
	assert_int_equal(out->total_bytes, 300);
	expect_regions(out, want, 4);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_int_equal(out->start_ns, S(12));
	assert_int_equal(out->aggr_us, 100000);
	expect_regions(out, want2, 1);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 0);
	damonctl_rec_merger_free(m);
}

/* Gaps stay gaps; memory only one snapshot had keeps its own count and age; a filter's
 * share follows the bytes when a region is cut. */
static void gaps_and_filter_shares(void **state)
{
	struct damonctl_rec_region a[] = { R(0, 100, 2, 1), R(200, 300, 5, 2) };
	struct damonctl_rec_region b[] = { R(50, 250, 1, 4) };
	struct damonctl_rec_merger *m;
	struct damonctl_rec_snapshot s;
	const struct damonctl_rec_snapshot *out;

	(void)state;
	a[0].sz_filter_passed = 100;
	a[1].sz_filter_passed = 0;
	b[0].sz_filter_passed = 200;
	const struct damonctl_rec_region want[] = {
		{ 0, 50, 2, 0, 50 }, { 50, 100, 3, 2, 50 }, { 100, 200, 1, 2, 100 },
		{ 200, 250, 6, 2, 50 }, { 250, 300, 5, 1, 0 },
	};
	assert_int_equal(damonctl_rec_merger_new(10000000, &m), 0);
	s = snap(S(1), a, 2);
	s.has_sz_filter_passed = true;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(2), b, 1);
	s.has_sz_filter_passed = true;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_true(out->has_sz_filter_passed);
	assert_int_equal(out->total_bytes, 300);
	expect_regions(out, want, 5);
	damonctl_rec_merger_free(m);
}

/* A snapshot of every target (target -1): the address goes back where the next target's
 * regions begin; each target's run is merged with the same run of the next snapshot. */
static void targets_in_one_snapshot(void **state)
{
	const struct damonctl_rec_region a[] = { R(1000, 2000, 1, 0), R(0, 100, 2, 0) };
	const struct damonctl_rec_region b[] = { R(1000, 1500, 3, 0), R(1500, 2000, 1, 0),
						R(0, 100, 4, 0) };
	const struct damonctl_rec_region want[] = { R(1000, 1500, 4, 0), R(1500, 2000, 2, 0),
						   R(0, 100, 6, 0) };
	struct damonctl_rec_merger *m;
	struct damonctl_rec_snapshot s;
	const struct damonctl_rec_snapshot *out;

	(void)state;
	assert_int_equal(damonctl_rec_merger_new(5000000, &m), 0);
	s = snap(S(0), a, 2);
	s.target = -1;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(1), b, 3);
	s.target = -1;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_int_equal(out->target, -1);
	expect_regions(out, want, 3);
	damonctl_rec_merger_free(m);
}

/* Series are merged apart and flushed in the order they came; different sampling intervals
 * give the sample_us that keeps the rate (20 + 10 samples in 300 ms: 10 ms). */
static void series_and_rates(void **state)
{
	const struct damonctl_rec_region a[] = { R(0, 10, 20, 0) };
	const struct damonctl_rec_region b[] = { R(0, 10, 10, 0) };
	struct damonctl_rec_merger *m;
	struct damonctl_rec_snapshot s;
	const struct damonctl_rec_snapshot *out;

	(void)state;
	assert_int_equal(damonctl_rec_merger_new(60000000, &m), 0);
	s = snap(S(0), a, 1);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s.target = 1;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(1), b, 1);
	s.sample_us = 20000;
	s.aggr_us = 200000;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_int_equal(out->target, 0);
	assert_int_equal(out->aggr_us, 300000);
	assert_int_equal(out->sample_us, 10000);
	assert_int_equal(out->regions[0].nr_accesses, 30);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_int_equal(out->target, 1);
	assert_int_equal(out->regions[0].nr_accesses, 20);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 0);
	damonctl_rec_merger_free(m);
}

/* 7.2's probe hits add up where regions overlap, stay whole where one is cut, stop at 255
 * (the kernel's byte), keep neighbours of other hits apart, and a snapshot of fewer probes
 * adds nothing to the others. */
static void probe_hits(void **state)
{
	const struct damonctl_rec_region a[] = { R(0, 100, 1, 0), R(100, 200, 1, 0) };
	const uint8_t ah[] = { 200, 1, 5, 2 };
	const struct damonctl_rec_region b[] = { R(0, 50, 1, 0), R(50, 200, 1, 0) };
	const uint8_t bh[] = { 100, 0 };	/* one probe */
	const struct damonctl_rec_region c[] = { R(0, 200, 1, 0) };
	/* [0, 50): 200 + 100 stops at 255, 1 + nothing; [50, 100): a's first region's, b's
	 * second adding 0; [100, 200): a's second's, not joined with [50, 100) though its
	 * nr_accesses and age are alike */
	const struct damonctl_rec_region want[] = { R(0, 50, 2, 0), R(50, 100, 2, 0),
						   R(100, 200, 2, 0) };
	const uint8_t wanth[] = { 255, 1, 200, 1, 5, 2 };
	struct damonctl_rec_merger *m;
	struct damonctl_rec_snapshot s;
	const struct damonctl_rec_snapshot *out;

	(void)state;
	assert_int_equal(damonctl_rec_merger_new(2000000, &m), 0);
	s = snap(S(0), a, 2);
	s.nr_probes = 2;
	s.probe_hits = ah;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(1), b, 2);
	s.nr_probes = 1;
	s.probe_hits = bh;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(2), c, 1);	/* the next window, without probes */
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 1);
	expect_regions(out, want, 3);
	assert_int_equal(out->nr_probes, 2);
	assert_memory_equal(out->probe_hits, wanth, sizeof(wanth));
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_int_equal(out->nr_probes, 0);
	assert_null(out->probe_hits);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 0);
	damonctl_rec_merger_free(m);

	/* more probes than a merged snapshot holds */
	assert_int_equal(damonctl_rec_merger_new(2000000, &m), 0);
	s = snap(S(0), a, 2);
	s.nr_probes = 17;
	s.probe_hits = ah;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), -E2BIG);
	damonctl_rec_merger_free(m);
}

/* A window's ops filters are those its snapshots were taken through while they are the
 * same; when they change within it, which ones its sz_filter_passed are of is unknown
 * (NULL). The merged snapshot's text is the merger's copy: the next window's first
 * snapshot does not change it. */
static void ops_filters(void **state)
{
	static const char anon[] = "[{\"type\":\"anon\",\"matching\":true,\"allow\":true}]";
	static const char young[] = "[{\"type\":\"young\",\"matching\":true,\"allow\":true}]";
	const struct damonctl_rec_region a[] = { R(0, 100, 1, 0) };
	char same[sizeof(anon)];
	struct damonctl_rec_merger *m;
	struct damonctl_rec_snapshot s;
	const struct damonctl_rec_snapshot *out;

	(void)state;
	memcpy(same, anon, sizeof(anon));	/* equal text, another pointer */
	assert_int_equal(damonctl_rec_merger_new(2000000, &m), 0);
	s = snap(S(0), a, 1);
	s.ops_filters = anon;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	s = snap(S(1), a, 1);
	s.ops_filters = same;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	/* the next window: young, then anon */
	s = snap(S(2), a, 1);
	s.ops_filters = young;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 1);
	assert_string_equal(out->ops_filters, anon);
	assert_ptr_not_equal(out->ops_filters, anon);
	assert_ptr_not_equal(out->ops_filters, same);
	s = snap(S(3), a, 1);
	s.ops_filters = anon;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	/* the third window: none at all, then "[]" (none too) */
	s = snap(S(4), a, 1);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 1);
	assert_null(out->ops_filters);
	s = snap(S(5), a, 1);
	s.ops_filters = "[]";
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	/* the fourth: anon, then none */
	s = snap(S(6), a, 1);
	s.ops_filters = anon;
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 1);
	assert_null(out->ops_filters);
	s = snap(S(7), a, 1);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_null(out->ops_filters);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 0);
	damonctl_rec_merger_free(m);

	/* a caller built before ops_filters: its sz does not cover them */
	assert_int_equal(damonctl_rec_merger_new(2000000, &m), 0);
	s = snap(S(0), a, 1);
	s.ops_filters = anon;
	s.sz = offsetof(struct damonctl_rec_snapshot, ops_filters);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), 0);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 1);
	assert_null(out->ops_filters);
	damonctl_rec_merger_free(m);
}

static void bad_arguments(void **state)
{
	struct damonctl_rec_merger *m = NULL;
	struct damonctl_rec_snapshot s = snap(0, NULL, 1);
	const struct damonctl_rec_snapshot *out;

	(void)state;
	assert_int_equal(damonctl_rec_merger_new(0, &m), -EINVAL);
	assert_int_equal(damonctl_rec_merger_new(UINT64_MAX, &m), -EINVAL);
	assert_int_equal(damonctl_rec_merger_new(1000, &m), 0);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), -EINVAL);
	/* a snapshot struct shorter than the first with sz */
	s = snap(0, NULL, 0);
	s.sz = offsetof(struct damonctl_rec_snapshot, regions);
	assert_int_equal(damonctl_rec_merger_add(m, &s, &out), -EINVAL);
	assert_int_equal(damonctl_rec_merger_flush(m, &out), 0);
	damonctl_rec_merger_free(m);
	damonctl_rec_merger_free(NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(boundaries_and_sums),
		cmocka_unit_test(gaps_and_filter_shares),
		cmocka_unit_test(targets_in_one_snapshot),
		cmocka_unit_test(series_and_rates),
		cmocka_unit_test(probe_hits),
		cmocka_unit_test(ops_filters),
		cmocka_unit_test(bad_arguments),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
