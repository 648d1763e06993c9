// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/hugepage_coverage.c on hand-made regions and huge ranges: each region weighs its
 * nr_accesses times its bytes, the bytes of it in huge pages are covered, and no access at
 * all leaves the coverage undefined.
 */
#include <errno.h>
#include <unistd.h>

#include "common.h"

#define MiB (UINT64_C(1) << 20)

static struct damonctl_hugepage_coverage cov(void)
{
	struct damonctl_hugepage_coverage c = { .sz = sizeof(c) };

	return c;
}

static uint64_t bp_of(const struct damonctl_hugepage_coverage *c)
{
	uint64_t bp = UINT64_MAX;

	assert_int_equal(damonctl_hugepage_coverage_bp(c, &bp), 0);
	return bp;
}

/* A region half in a huge page counts half its accesses; an idle one counts nothing, huge
 * or not. */
static void test_partly_huge(void **state)
{
	const struct damonctl_rec_region rs[] = {
		{ .start = 0, .end = 4 * MiB, .nr_accesses = 10 },
		{ .start = 4 * MiB, .end = 8 * MiB, .nr_accesses = 0 },
	};
	const uint64_t huge[][2] = { { 2 * MiB, 8 * MiB } };
	struct damonctl_hugepage_coverage c = cov();

	(void)state;
	assert_int_equal(damonctl_hugepage_coverage_add(&c, rs, 2, huge, 1), 0);
	assert_int_equal(c.bytes, 8 * MiB);
	assert_int_equal(c.huge_bytes, 6 * MiB);
	assert_true(c.accessed == 10.0 * 4 * MiB);
	assert_true(c.accessed_huge == 10.0 * 2 * MiB);
	assert_int_equal(bp_of(&c), 5000);
}

/* The hot region huge, the warm one not: the hot one's share of the accesses, which is
 * more than its share of the memory. */
static void test_weighted_by_accesses(void **state)
{
	const struct damonctl_rec_region rs[] = {
		/* given out of address order: the ranges are looked up for each */
		{ .start = 10 * MiB, .end = 12 * MiB, .nr_accesses = 4 },
		{ .start = 0, .end = 2 * MiB, .nr_accesses = 20 },
	};
	const uint64_t huge[][2] = { { 0, 2 * MiB } };
	struct damonctl_hugepage_coverage c = cov();

	(void)state;
	assert_int_equal(damonctl_hugepage_coverage_add(&c, rs, 2, huge, 1), 0);
	/* 20 x 2 MiB of 20 x 2 MiB + 4 x 2 MiB */
	assert_int_equal(bp_of(&c), 8333);
	assert_int_equal(c.huge_bytes * 2, c.bytes);
}

/* Ranges that cross regions' edges, several in one region, none in another. */
static void test_ranges_across_regions(void **state)
{
	const struct damonctl_rec_region rs[] = {
		{ .start = 0, .end = 6 * MiB, .nr_accesses = 1 },
		{ .start = 6 * MiB, .end = 10 * MiB, .nr_accesses = 3 },
		{ .start = 10 * MiB, .end = 12 * MiB, .nr_accesses = 5 },
	};
	const uint64_t huge[][2] = { { 0, 2 * MiB }, { 4 * MiB, 8 * MiB }, { 20 * MiB, 22 * MiB } };
	struct damonctl_hugepage_coverage c = cov();

	(void)state;
	assert_int_equal(damonctl_hugepage_coverage_add(&c, rs, 3, huge, 3), 0);
	assert_int_equal(c.huge_bytes, 6 * MiB);
	/* (1 x 4 + 3 x 2) MiB covered of (1 x 6 + 3 x 4 + 5 x 2) MiB accessed */
	assert_true(c.accessed_huge == 10.0 * MiB);
	assert_true(c.accessed == 28.0 * MiB);
	assert_int_equal(bp_of(&c), 3571);
}

/* No access anywhere: the coverage is undefined, not 0 or 100%, however much is huge. */
static void test_no_access_undefined(void **state)
{
	const struct damonctl_rec_region rs[] = {
		{ .start = 0, .end = 4 * MiB, .nr_accesses = 0, .age = 30 },
	};
	const uint64_t huge[][2] = { { 0, 4 * MiB } };
	struct damonctl_hugepage_coverage c = cov();
	uint64_t bp = 42;

	(void)state;
	assert_int_equal(damonctl_hugepage_coverage_bp(&c, &bp), -ENODATA);
	assert_int_equal(damonctl_hugepage_coverage_add(&c, rs, 1, huge, 1), 0);
	assert_int_equal(damonctl_hugepage_coverage_bp(&c, &bp), -ENODATA);
	assert_int_equal(bp, 42);
	assert_int_equal(c.huge_bytes, 4 * MiB);
	/* no huge page at all, accesses: 0, defined */
	assert_int_equal(damonctl_hugepage_coverage_add(&c, (const struct damonctl_rec_region[]){
		{ .start = 8 * MiB, .end = 10 * MiB, .nr_accesses = 2 } }, 1, NULL, 0), 0);
	assert_int_equal(bp_of(&c), 0);
}

/* Per process, then over a kdamond's targets: the sum of their weights, not the mean of
 * their ratios. */
static void test_merge_targets(void **state)
{
	const struct damonctl_rec_region a[] = { { .start = 0, .end = 2 * MiB, .nr_accesses = 9 } };
	const struct damonctl_rec_region b[] = { { .start = 0, .end = 8 * MiB, .nr_accesses = 1 } };
	const uint64_t huge_a[][2] = { { 0, 2 * MiB } };
	struct damonctl_hugepage_coverage ca = cov(), cb = cov(), all = cov();

	(void)state;
	assert_int_equal(damonctl_hugepage_coverage_add(&ca, a, 1, huge_a, 1), 0);
	assert_int_equal(damonctl_hugepage_coverage_add(&cb, b, 1, NULL, 0), 0);
	assert_int_equal(bp_of(&ca), 10000);
	assert_int_equal(bp_of(&cb), 0);
	assert_int_equal(damonctl_hugepage_coverage_merge(&all, &ca), 0);
	assert_int_equal(damonctl_hugepage_coverage_merge(&all, &cb), 0);
	/* 18 MiB of 18 + 8 */
	assert_int_equal(bp_of(&all), 6923);
	assert_int_equal(all.bytes, 10 * MiB);
}

/* Weights past 2^64 (many samples, a big target) do not wrap. */
static void test_big_weights(void **state)
{
	const struct damonctl_rec_region rs[] = {
		{ .start = 0, .end = UINT64_C(1) << 46, .nr_accesses = UINT32_MAX },
		{ .start = UINT64_C(1) << 46, .end = UINT64_C(1) << 47, .nr_accesses = UINT32_MAX },
	};
	const uint64_t huge[][2] = { { 0, UINT64_C(1) << 46 } };
	struct damonctl_hugepage_coverage c = cov();

	(void)state;
	assert_int_equal(damonctl_hugepage_coverage_add(&c, rs, 2, huge, 1), 0);
	assert_int_equal(bp_of(&c), 5000);
}

static void test_bad_input(void **state)
{
	const struct damonctl_rec_region rs[] = { { .start = 0, .end = 2 * MiB, .nr_accesses = 1 } };
	const uint64_t unsorted[][2] = { { 4 * MiB, 6 * MiB }, { 0, 2 * MiB } };
	const uint64_t empty[][2] = { { 2 * MiB, 2 * MiB } };
	struct damonctl_hugepage_coverage c = cov(), old = { .sz = sizeof(size_t) };
	struct damonctl_hugepage_meter *m;
	struct damonctl_ctx *ctx;
	uint64_t bp;

	(void)state;
	assert_int_equal(damonctl_hugepage_coverage_add(&c, rs, 1, unsorted, 2), -EINVAL);
	assert_int_equal(damonctl_hugepage_coverage_add(&c, rs, 1, empty, 1), -EINVAL);
	assert_int_equal(damonctl_hugepage_coverage_add(&c, NULL, 1, NULL, 0), -EINVAL);
	assert_int_equal(damonctl_hugepage_coverage_add(&old, rs, 1, NULL, 0), -EINVAL);
	assert_int_equal(damonctl_hugepage_coverage_add(NULL, rs, 1, NULL, 0), -EINVAL);
	assert_int_equal(damonctl_hugepage_coverage_merge(&c, &old), -EINVAL);
	assert_int_equal(damonctl_hugepage_coverage_bp(&c, NULL), -EINVAL);
	assert_int_equal(damonctl_hugepage_coverage_bp(&old, &bp), -EINVAL);
	/* nothing was added by the refused calls */
	assert_int_equal(c.bytes, 0);
	/* a meter knows no ranges of a pid it does not measure, nor before its first read */
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_hugepage_meter_new(ctx, &m), 0);
	assert_int_equal(damonctl_hugepage_meter_coverage(m, getpid(), rs, 1, &c), -ENOENT);
	assert_int_equal(damonctl_hugepage_meter_set_pids(m, (int[]){ getpid() }, 1), 0);
	assert_int_equal(damonctl_hugepage_meter_coverage(m, getpid(), rs, 1, &c), -ENOENT);
	assert_int_equal(damonctl_hugepage_meter_coverage(NULL, getpid(), rs, 1, &c), -EINVAL);
	damonctl_hugepage_meter_free(m);
	damonctl_free(ctx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partly_huge),
		cmocka_unit_test(test_weighted_by_accesses),
		cmocka_unit_test(test_ranges_across_regions),
		cmocka_unit_test(test_no_access_undefined),
		cmocka_unit_test(test_merge_targets),
		cmocka_unit_test(test_big_weights),
		cmocka_unit_test(test_bad_input),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
