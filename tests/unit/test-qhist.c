// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/qhist.c: percentiles against the nearest-rank definition and damo's (the value at
 * index int(p/100 * n), as damo's _damo_dist.get_percentile() computes it) worked out here
 * from the sorted values: exact while the values are kept (2^20 of them), and past that
 * exact where the header says (small integers, one distinct value per bucket) and within a
 * bucket's width (1/64 of the value) elsewhere; and the parsing of percentile lists.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of @n sorted values. */
static uint64_t nearest_rank(const uint64_t *sorted, size_t n, double p)
{
	double r = ceil(p / 100 * (double)n);

	if (r < 1)
		r = 1;
	return sorted[(size_t)r - 1];
}

static void empty(void **state)
{
	struct damonctl_qhist *h = damonctl_qhist_new();

	(void)state;
	assert_non_null(h);
	assert_int_equal(damonctl_qhist_count(h), 0);
	assert_int_equal(damonctl_qhist_percentile(h, 50), 0);
	assert_int_equal(damonctl_qhist_min(h), 0);
	assert_int_equal(damonctl_qhist_max(h), 0);
	assert_true(damonctl_qhist_mean(h) == 0);
	damonctl_qhist_free(h);
}

/* 1..100 added backwards: integers below 128 have a bucket each, so every answer is exact;
 * min 1, max 100, mean 5050 / 100. */
static void small_integers_exact(void **state)
{
	static const double ps[] = { 0, 1, 25, 33.3, 50, 75, 90, 99, 99.9, 100 };
	struct damonctl_qhist *h = damonctl_qhist_new();
	uint64_t v[100];
	unsigned int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		v[i] = i + 1;
		damonctl_qhist_add(h, 100 - i);
	}
	assert_int_equal(damonctl_qhist_count(h), 100);
	assert_int_equal(damonctl_qhist_min(h), 1);
	assert_int_equal(damonctl_qhist_max(h), 100);
	assert_true(fabs(damonctl_qhist_mean(h) - 50.5) < 1e-9);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		assert_int_equal(damonctl_qhist_percentile(h, ps[i]), nearest_rank(v, 100, ps[i]));
	/* p33.3 of 100 values: rank 34 */
	assert_int_equal(damonctl_qhist_percentile(h, 33.3), 34);
	damonctl_qhist_reset(h);
	assert_int_equal(damonctl_qhist_count(h), 0);
	assert_int_equal(damonctl_qhist_percentile(h, 50), 0);
	damonctl_qhist_free(h);
}

/* One value many times (a bucket whose extremes agree) is exact at every percentile. */
static void one_value_exact(void **state)
{
	struct damonctl_qhist *h = damonctl_qhist_new();
	unsigned int i;

	(void)state;
	for (i = 0; i < 1000; i++)
		damonctl_qhist_add(h, 123456789);
	for (i = 0; i <= 100; i += 5)
		assert_int_equal(damonctl_qhist_percentile(h, i), 123456789);
	damonctl_qhist_free(h);
}

/* damo's percentile of @n sorted values. */
static uint64_t damo_index(const uint64_t *sorted, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)n);

	return sorted[i < n ? i : n - 1];
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* 1000 pseudo-random values up to 2^40, kept: every percentile exact, by both definitions
 * (they differ: at 50, damo's is the 501st value, nearest-rank's the 500th). */
static void kept_values_exact(void **state)
{
	enum { N = 1000 };
	struct damonctl_qhist *h = damonctl_qhist_new();
	uint64_t v[N], x = 88172645463325252ull;
	unsigned int i;
	double p;

	(void)state;
	for (i = 0; i < N; i++) {
		v[i] = xorshift(&x) >> (24 + i % 20);
		damonctl_qhist_add(h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	assert_true(damonctl_qhist_exact(h));
	for (p = 0; p <= 100; p += 0.5) {
		assert_int_equal(damonctl_qhist_percentile(h, p), nearest_rank(v, N, p));
		assert_int_equal(damonctl_qhist_value_at(h, p), damo_index(v, N, p));
	}
	assert_int_equal(damonctl_qhist_value_at(h, 50), v[500]);
	assert_int_equal(damonctl_qhist_percentile(h, 50), v[499]);
	/* a reset empties it; it is exact again */
	damonctl_qhist_reset(h);
	assert_int_equal(damonctl_qhist_value_at(h, 50), 0);
	damonctl_qhist_add(h, 7);
	assert_int_equal(damonctl_qhist_value_at(h, 100), 7);
	damonctl_qhist_free(h);
}

/* Past 2^20 values (2^20 + 5000 pseudo-random ones up to 2^40) the histogram answers: each
 * answer lies within 1/64 of the true one (a bucket spans less than 1/64 of its values),
 * the extremes are exact. */
static void large_values_close(void **state)
{
	enum { N = (1 << 20) + 5000 };
	struct damonctl_qhist *h = damonctl_qhist_new();
	uint64_t *v = malloc(N * sizeof(*v)), x = 88172645463325252ull;
	unsigned int i;
	double p;

	(void)state;
	assert_non_null(v);
	for (i = 0; i < N; i++) {
		v[i] = xorshift(&x) >> (24 + i % 20);
		damonctl_qhist_add(h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	assert_false(damonctl_qhist_exact(h));
	for (p = 0; p <= 100; p += 0.5) {
		double want = (double)nearest_rank(v, N, p);
		double got = (double)damonctl_qhist_percentile(h, p);

		assert_true(fabs(got - want) <= want / 64 + 1);
		want = (double)damo_index(v, N, p);
		got = (double)damonctl_qhist_value_at(h, p);
		assert_true(fabs(got - want) <= want / 64 + 1);
	}
	assert_int_equal(damonctl_qhist_percentile(h, 0), v[0]);
	assert_int_equal(damonctl_qhist_percentile(h, 100), v[N - 1]);
	assert_int_equal(damonctl_qhist_min(h), v[0]);
	assert_int_equal(damonctl_qhist_max(h), v[N - 1]);
	free(v);
	damonctl_qhist_free(h);
}

static void parse_lists(void **state)
{
	double p[4];

	(void)state;
	assert_int_equal(damonctl_percentiles_parse("0,50,99.9", p, 4), 3);
	assert_true(p[0] == 0 && p[1] == 50 && p[2] == 99.9);
	assert_int_equal(damonctl_percentiles_parse("100", p, 4), 1);
	assert_true(p[0] == 100);
	assert_int_equal(damonctl_percentiles_parse("", p, 4), -EINVAL);
	assert_int_equal(damonctl_percentiles_parse("101", p, 4), -EINVAL);
	assert_int_equal(damonctl_percentiles_parse("-1", p, 4), -EINVAL);
	assert_int_equal(damonctl_percentiles_parse("1,,2", p, 4), -EINVAL);
	assert_int_equal(damonctl_percentiles_parse("5x", p, 4), -EINVAL);
	assert_int_equal(damonctl_percentiles_parse("nan", p, 4), -EINVAL);
	assert_int_equal(damonctl_percentiles_parse("1,2,3", p, 2), -EINVAL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty),
		cmocka_unit_test(small_integers_exact),
		cmocka_unit_test(one_value_exact),
		cmocka_unit_test(kept_values_exact),
		cmocka_unit_test(large_values_close),
		cmocka_unit_test(parse_lists),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
