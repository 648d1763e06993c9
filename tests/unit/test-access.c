// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/access*.c: the access view, its metrics, histograms, percentiles, ranges and scales,
 * a snapshot's totals and heatmap, damo's template keywords, report times' ranges, on a
 * hand-made snapshot whose every figure is worked out in the comments from the definitions
 * the public header and damonctl_access_view_new(3) give (damo's), not from the library's
 * output.
 *
 * The snapshot: sample 5 ms, aggregation 100 ms (20 samples), four regions:
 *   R0 [0x1000, 0x3000)   8 KiB  nr 10 -> 5000 bp  age 2 -> 200 ms
 *   R1 [0x3000, 0x4000)   4 KiB  nr 0  ->    0 bp  age 5 -> 500 ms
 *   R2 [0x4000, 0x8000)  16 KiB  nr 20 -> 10000 bp age 1 -> 100 ms
 *   R3 [0x10000, 0x11000) 4 KiB  nr 0  ->    0 bp  age 0
 * damo's temperature, weights 0,100,100: R0 50 x 100 + 200000 x 100 = 20005000;
 * R1 -(500000 x 100) = -50000000; R2 100 x 100 + 100000 x 100 = 10010000; R3 0.
 * Idle time: accessed 0 (R0, R2); R1 500000 + 100000 = 600000; R3 0 + 100000 = 100000.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common.h"

static struct damonctl_rec_region regions[] = {
	{ 0x1000, 0x3000, 10, 2, 0 },
	{ 0x3000, 0x4000, 0, 5, 0 },
	{ 0x4000, 0x8000, 20, 1, 0 },
	{ 0x10000, 0x11000, 0, 0, 0 },
};

static struct damonctl_rec_snapshot snap(void)
{
	struct damonctl_rec_snapshot s = { .sz = sizeof(s), .target = 0, .scheme = -1,
					   .sample_us = 5000, .aggr_us = 100000,
					   .total_bytes = 32768, .nr_regions = 4,
					   .regions = regions };

	return s;
}

/* A view of the snapshot with @o; the starts of its regions in its order into @starts */
static size_t view_starts(const struct damonctl_access_opts *o, uint64_t *starts,
			  struct damonctl_access_view **out)
{
	struct damonctl_rec_snapshot s = snap();
	struct damonctl_access_view *v;
	size_t n;

	assert_int_equal(damonctl_access_view_new(o, &v), 0);
	assert_int_equal(damonctl_access_view_build(v, &s), 0);
	n = damonctl_access_view_count(v);
	for (size_t i = 0; i < n; i++)
		starts[i] = damonctl_access_view_region(v, i)->start;
	assert_null(damonctl_access_view_region(v, n));
	if (out)
		*out = v;
	else
		damonctl_access_view_free(v);
	return n;
}

static void sort_keys(void **state)
{
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	uint64_t st[4];
	static const struct {
		enum damonctl_access_key k[2];
		unsigned int n;
		uint64_t want[4];
	} cases[] = {
		{ { DAMONCTL_ACCESS_BY_ADDRESS }, 0, { 0x1000, 0x3000, 0x4000, 0x10000 } },
		/* by temperature: 20005000, 10010000, 0, -50000000 */
		{ { DAMONCTL_ACCESS_BY_TEMPERATURE }, 1, { 0x1000, 0x4000, 0x10000, 0x3000 } },
		{ { DAMONCTL_ACCESS_BY_COLDEST }, 1, { 0x3000, 0x10000, 0x4000, 0x1000 } },
		/* rate descending (R2, R0), then R1 and R3 (0 bp) by age descending */
		{ { DAMONCTL_ACCESS_BY_HOT }, 1, { 0x4000, 0x1000, 0x3000, 0x10000 } },
		{ { DAMONCTL_ACCESS_BY_COLD }, 1, { 0x3000, 0x10000, 0x1000, 0x4000 } },
		{ { DAMONCTL_ACCESS_BY_AGE }, 1, { 0x3000, 0x1000, 0x4000, 0x10000 } },
		/* R1 and R3 are both 4 KiB: the address decides */
		{ { DAMONCTL_ACCESS_BY_SIZE }, 1, { 0x4000, 0x1000, 0x3000, 0x10000 } },
		/* ... or the second key: R3 (0) is warmer than R1 (-50000000) */
		{ { DAMONCTL_ACCESS_BY_SIZE, DAMONCTL_ACCESS_BY_TEMPERATURE }, 2,
		  { 0x4000, 0x1000, 0x10000, 0x3000 } },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		o.nr_keys = cases[c].n;
		memcpy(o.keys, cases[c].k, sizeof(cases[c].k));
		assert_int_equal(view_starts(&o, st, NULL), 4);
		for (int i = 0; i < 4; i++)
			assert_int_equal(st[i], cases[c].want[i]);
	}
}

static void regions_and_filters(void **state)
{
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	const struct damonctl_access_region *r;
	struct damonctl_access_view *v;
	uint64_t st[4];

	(void)state;
	assert_int_equal(view_starts(&o, st, &v), 4);
	r = damonctl_access_view_region(v, 0);
	assert_int_equal(r->rate_bp, 5000);
	assert_int_equal(r->age_us, 200000);
	assert_true(r->temperature == 20005000.0);
	assert_true(r->hz == 100.0);	/* 10 positive samples in 0.1 s */
	assert_true(damonctl_access_view_region(v, 1)->temperature == -50000000.0);
	assert_false(signbit(damonctl_access_view_region(v, 3)->temperature));	/* 0, not -0 */
	assert_int_equal(damonctl_access_view_bytes(v), 32768);
	assert_true(damonctl_access_view_metric(v, 1, DAMONCTL_ACCESS_IDLE_US) == 600000.0);
	assert_true(damonctl_access_view_metric(v, 3, DAMONCTL_ACCESS_IDLE_US) == 100000.0);
	assert_true(damonctl_access_view_metric(v, 0, DAMONCTL_ACCESS_IDLE_US) == 0.0);
	assert_true(isnan(damonctl_access_view_metric(v, 4, DAMONCTL_ACCESS_BYTES)));
	damonctl_access_view_free(v);

	/* the size weight counts in the view's temperature, not in the metric (damo's) */
	o.weights[0] = 1;
	view_starts(&o, st, &v);
	assert_true(damonctl_access_view_region(v, 0)->temperature == 20005000.0 + 8192);
	assert_true(damonctl_access_view_metric(v, 0, DAMONCTL_ACCESS_TEMPERATURE) == 20005000.0);
	damonctl_access_view_free(v);

	o = (struct damonctl_access_opts)DAMONCTL_ACCESS_OPTS_INIT;
	o.rate_min_bp = 1;	/* accessed: R0, R2 */
	assert_int_equal(view_starts(&o, st, NULL), 2);
	assert_int_equal(st[1], 0x4000);
	o = (struct damonctl_access_opts)DAMONCTL_ACCESS_OPTS_INIT;
	o.age_min_us = 200000;	/* R0, R1 */
	assert_int_equal(view_starts(&o, st, NULL), 2);
	assert_int_equal(st[1], 0x3000);
	o = (struct damonctl_access_opts)DAMONCTL_ACCESS_OPTS_INIT;
	o.sz_max = 4096;	/* R1, R3 */
	assert_int_equal(view_starts(&o, st, NULL), 2);
	assert_int_equal(st[1], 0x10000);
	/* the two hottest: R0 and R2, 24 KiB */
	o = (struct damonctl_access_opts)DAMONCTL_ACCESS_OPTS_INIT;
	o.keys[0] = DAMONCTL_ACCESS_BY_TEMPERATURE;
	o.nr_keys = 1;
	o.top = 2;
	assert_int_equal(view_starts(&o, st, &v), 2);
	assert_int_equal(damonctl_access_view_bytes(v), 24576);
	damonctl_access_view_free(v);

	/* bad options */
	o.weights[1] = -1;
	assert_int_equal(damonctl_access_view_new(&o, &v), -EINVAL);
	o = (struct damonctl_access_opts)DAMONCTL_ACCESS_OPTS_INIT;
	o.sz = sizeof(size_t);
	assert_int_equal(damonctl_access_view_new(&o, &v), -EINVAL);
	/* the rate: at most 100%, 0 without intervals */
	assert_int_equal(damonctl_access_rate_bp(40, 5000, 100000), 10000);
	assert_int_equal(damonctl_access_rate_bp(5, 0, 100000), 0);
	assert_int_equal(damonctl_access_rate_bp(1, 5000, 100000), 500);
}

/* Histogram @m of the whole snapshot with @h: its bins' bounds and bytes against @want
 * (lo, hi, bytes triples) */
static void check_hist(enum damonctl_access_metric m, const struct damonctl_access_hist_opts *h,
		       const double *want, unsigned int n)
{
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	struct damonctl_access_view *v;
	struct damonctl_access_hist *hist;
	uint64_t st[4];

	view_starts(&o, st, &v);
	assert_int_equal(damonctl_access_histogram(v, m, h, &hist), 0);
	assert_int_equal(damonctl_access_hist_count(hist), n);
	for (unsigned int i = 0; i < n; i++) {
		const struct damonctl_access_bin *b = damonctl_access_hist_bin(hist, i);

		assert_true(b->lo == want[3 * i]);
		assert_true(b->hi == want[3 * i + 1]);
		assert_int_equal(b->bytes, (uint64_t)want[3 * i + 2]);
	}
	assert_null(damonctl_access_hist_bin(hist, n));
	damonctl_access_hist_free(hist);
	damonctl_access_view_free(v);
}

static void histograms(void **state)
{
	struct damonctl_access_hist_opts h = DAMONCTL_ACCESS_HIST_OPTS_INIT;
	double given[4];
	/* idle times 0 (R0 8K, R2 16K), 100000 (R3 4K), 600000 (R1 4K); linear, 3 bins of
	 * ceil((600000 + 1 - 0) / 3) = 200001 */
	static const double linear[] = { 0, 200001, 28672, 200001, 400002, 0,
					 400002, 600003, 4096 };
	static const double cumulative[] = { 0, 200001, 28672, 0, 400002, 28672,
					     0, 600003, 32768 };
	/* log: a first range of floor(600000 / 2^3) = 75000, each next twice as wide, until
	 * one ends after 600000 */
	static const double logscale[] = { 0, 75000, 24576, 75000, 225000, 4096,
					   225000, 525000, 0, 525000, 1125000, 4096 };
	static const double ranges[] = { 0, 1e6, 32768, 1e6, 1e7, 0 };

	(void)state;
	h.bins = 3;
	check_hist(DAMONCTL_ACCESS_IDLE_US, &h, linear, 3);
	h.cumulate = true;
	check_hist(DAMONCTL_ACCESS_IDLE_US, &h, cumulative, 3);
	h.cumulate = false;
	h.logscale = true;
	check_hist(DAMONCTL_ACCESS_IDLE_US, &h, logscale, 4);
	h.logscale = false;
	assert_int_equal(damonctl_access_parse_ranges("0,1s,1s,10s", true, given, 2), 2);
	h.ranges = given;
	h.nr_ranges = 2;
	check_hist(DAMONCTL_ACCESS_IDLE_US, &h, ranges, 2);
	/* the bytes that passed DAMOS filters: R0 4096, R1 1000 */
	regions[0].sz_filter_passed = 4096;
	regions[1].sz_filter_passed = 1000;
	h = (struct damonctl_access_hist_opts)DAMONCTL_ACCESS_HIST_OPTS_INIT;
	h.bins = 3;
	h.df_passed = true;
	{
		static const double df[] = { 0, 200001, 4096, 200001, 400002, 0,
					     400002, 600003, 1000 };

		check_hist(DAMONCTL_ACCESS_IDLE_US, &h, df, 3);
	}
	regions[0].sz_filter_passed = regions[1].sz_filter_passed = 0;
}

static void histogram_errors(void **state)
{
	struct damonctl_access_hist_opts h = DAMONCTL_ACCESS_HIST_OPTS_INIT;
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	struct damonctl_access_view *v;
	struct damonctl_access_hist *hist;
	struct damonctl_rec_snapshot s = snap();
	double r[4];

	(void)state;
	assert_int_equal(damonctl_access_view_new(&o, &v), 0);
	/* an empty view: no bin */
	assert_int_equal(damonctl_access_histogram(v, DAMONCTL_ACCESS_AGE_US, &h, &hist), 0);
	assert_int_equal(damonctl_access_hist_count(hist), 0);
	damonctl_access_hist_free(hist);
	assert_int_equal(damonctl_access_view_build(v, &s), 0);
	h.bins = 0;
	assert_int_equal(damonctl_access_histogram(v, DAMONCTL_ACCESS_AGE_US, &h, &hist), -EINVAL);
	h.bins = 1;
	assert_int_equal(damonctl_access_histogram(v, DAMONCTL_ACCESS_NR_METRICS, &h, &hist),
			 -EINVAL);
	damonctl_access_view_free(v);
	assert_int_equal(damonctl_access_parse_ranges("-5,2.5", false, r, 2), 1);
	assert_true(r[0] == -5 && r[1] == 2.5);
	assert_int_equal(damonctl_access_parse_ranges("1,0", false, r, 2), -EINVAL);
	assert_int_equal(damonctl_access_parse_ranges("1", false, r, 2), -EINVAL);
	assert_int_equal(damonctl_access_parse_ranges("a,b", false, r, 2), -EINVAL);
	assert_int_equal(damonctl_access_parse_ranges("0,1,2,3", false, r, 1), -EINVAL);
	assert_int_equal(damonctl_access_parse_ranges("1x,2s", true, r, 2), -EINVAL);
}

static void percentiles(void **state)
{
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	struct damonctl_access_view *v;
	uint64_t st[4];
	/* by age: R3 (0, 4K), R2 (100000, 16K), R0 (200000, 8K), R1 (500000, 4K) of 32 KiB:
	 * the bytes up to each are 12.5%, 62.5%, 87.5%, 100% */
	static const double p[] = { 0, 12.5, 13, 50, 62.5, 75, 100 };
	static const double want[] = { 0, 0, 100000, 100000, 100000, 200000, 500000 };
	double out[7];

	(void)state;
	view_starts(&o, st, &v);
	assert_int_equal(damonctl_access_percentiles(v, DAMONCTL_ACCESS_AGE_US, false, p, 7, out),
			 0);
	for (int i = 0; i < 7; i++)
		assert_true(out[i] == want[i]);
	damonctl_access_view_free(v);
	/* nothing in the view: 0 */
	o.sz_min = 1 << 30;
	view_starts(&o, st, &v);
	out[0] = 1;
	assert_int_equal(damonctl_access_percentiles(v, DAMONCTL_ACCESS_AGE_US, false, p, 1, out),
			 0);
	assert_true(out[0] == 0);
	damonctl_access_view_free(v);
}

static void ranges_and_scales(void **state)
{
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	struct damonctl_access_range r = DAMONCTL_ACCESS_RANGE_INIT;
	struct damonctl_access_view *v;
	uint64_t st[4];

	(void)state;
	view_starts(&o, st, &v);
	assert_int_equal(damonctl_access_range_add(&r, v), 0);
	assert_true(r.have);
	assert_true(r.min[DAMONCTL_ACCESS_BYTES] == 4096 && r.max[DAMONCTL_ACCESS_BYTES] == 16384);
	assert_true(r.min[DAMONCTL_ACCESS_RATE_BP] == 0 && r.max[DAMONCTL_ACCESS_RATE_BP] == 10000);
	assert_true(r.min[DAMONCTL_ACCESS_AGE_US] == 0 && r.max[DAMONCTL_ACCESS_AGE_US] == 500000);
	/* R0's age, 200000 of 0..500000, in 1..40 columns: 200000 x 39 / 500000 + 1 = 16.6 */
	assert_int_equal(damonctl_access_rescale(&r, DAMONCTL_ACCESS_AGE_US, 200000, false, 1, 40),
			 16);
	/* log2: 0 stays 0; log2(200000) x 39 / log2(500000) + 1 = 37.28 */
	assert_int_equal(damonctl_access_rescale(&r, DAMONCTL_ACCESS_AGE_US, 200000, true, 1, 40),
			 37);
	/* the rate in percent: log2(50) x 9 / log2(100) = 7.65 */
	assert_int_equal(damonctl_access_rescale(&r, DAMONCTL_ACCESS_RATE_BP, 5000, true, 0, 9), 7);
	/* 8 KiB between 4 and 16 KiB, log2: (13 - 12) x 39 / 2 + 1 = 20.5 */
	assert_int_equal(damonctl_access_rescale(&r, DAMONCTL_ACCESS_BYTES, 8192, true, 1, 40), 20);
	/* one value: the low end */
	r.min[DAMONCTL_ACCESS_BYTES] = r.max[DAMONCTL_ACCESS_BYTES] = 4096;
	assert_int_equal(damonctl_access_rescale(&r, DAMONCTL_ACCESS_BYTES, 4096, false, 3, 9), 3);
	r.sz = 1;
	assert_int_equal(damonctl_access_range_add(&r, v), -EINVAL);
	damonctl_access_view_free(v);
}

static void totals(void **state)
{
	struct damonctl_rec_snapshot s = snap();
	struct damonctl_access_totals t = { .sz = sizeof(t) };

	(void)state;
	regions[0].sz_filter_passed = 4096;
	regions[1].sz_filter_passed = 1000;
	assert_int_equal(damonctl_access_totals(&s, &t), 0);
	/* 8192 x 10 + 16384 x 20 = 409600; 32768 x 20 = 655360; per 0.1 s */
	assert_true(t.observed == 409600 && t.max_observed == 655360);
	assert_true(t.bw == 4096000 && t.max_hz == 200);
	/* 30 positive samples of 4 x 20 */
	assert_true(t.samples_pct == 37.5);
	/* 4096 x 10 + 1000 x 0 per 0.1 s */
	assert_int_equal(t.fp_bytes, 5096);
	assert_true(t.fp_bw == 409600);
	/* a caller's older, smaller struct: only that much is written */
	memset(&t, 0, sizeof(t));
	t.sz = offsetof(struct damonctl_access_totals, max_observed);
	t.bw = -1;
	assert_int_equal(damonctl_access_totals(&s, &t), 0);
	assert_true(t.observed == 409600 && t.max_observed == 0 && t.bw == -1);
	regions[0].sz_filter_passed = regions[1].sz_filter_passed = 0;
}

/* The cells of the heatmap of @rg (@n regions) in @width columns: levels, gaps as -width */
static size_t heat(struct damonctl_rec_region *rg, uint32_t n, unsigned int width, bool fixed,
		   bool df, double *cells)
{
	struct damonctl_rec_snapshot s = { .sz = sizeof(s), .sample_us = 5000, .aggr_us = 100000,
					   .nr_regions = n, .regions = rg };
	struct damonctl_access_heatmap_opts o = { sizeof(o), { 0, 100, 100 }, width, fixed, df };
	struct damonctl_access_heatmap *h;
	size_t c;

	assert_int_equal(damonctl_access_heatmap_new(&s, &o, &h), 0);
	c = damonctl_access_heatmap_count(h);
	for (size_t i = 0; i < c; i++) {
		double gap = 0;
		int level = damonctl_access_heatmap_cell(h, i, &gap);

		cells[i] = level >= 0 ? level : -gap;
	}
	assert_int_equal(damonctl_access_heatmap_cell(h, c, NULL), -ENOENT);
	damonctl_access_heatmap_free(h);
	return c;
}

static void heatmap(void **state)
{
	/* A: 100% accessed, age 0: 100 x 100 = 10000; B: unaccessed for 1 aggregation:
	 * -(100000 x 100) = -1e7. Four columns of 500 bytes: A A B B, the range -1e7..10000
	 * in 9 steps: A 9, B 0 */
	struct damonctl_rec_region two[] = { { 0, 1000, 20, 0, 0 }, { 1000, 2000, 0, 1, 0 } };
	/* A and C alike (10000), 4000 bytes apart: 2000 bytes in 4 columns: A A, a gap from
	 * 1000 to floor(5000 / 500) x 500 = 5000 of 8 columns, C C; all one temperature:
	 * level 0. Fixed: 6000 bytes in 4 columns of 1500: [0, 1500) holds A, the gap to
	 * floor(5000 / 1500) x 1500 = 4500 is 2 columns, [4500, 6000) holds C */
	struct damonctl_rec_region gap[] = { { 0, 1000, 20, 0, 0 }, { 5000, 6000, 20, 0, 0 } };
	struct damonctl_rec_snapshot s = { .sz = sizeof(s), .sample_us = 5000, .aggr_us = 100000,
					   .nr_regions = 2, .regions = two };
	struct damonctl_access_heatmap_opts o = { sizeof(o), { 0, 100, 100 }, 4, false, false };
	struct damonctl_access_heatmap *h;
	double c[16], min, max, unit;

	(void)state;
	assert_int_equal(heat(two, 2, 4, false, false, c), 4);
	assert_true(c[0] == 9 && c[1] == 9 && c[2] == 0 && c[3] == 0);
	assert_int_equal(damonctl_access_heatmap_new(&s, &o, &h), 0);
	damonctl_access_heatmap_scale(h, &min, &max, &unit);
	assert_true(min == -1e7 && max == 10000 && unit == 500);
	damonctl_access_heatmap_free(h);
	assert_int_equal(heat(gap, 2, 4, false, false, c), 5);
	assert_true(c[0] == 0 && c[1] == 0 && c[2] == -8 && c[3] == 0 && c[4] == 0);
	assert_int_equal(heat(gap, 2, 4, true, false, c), 3);
	assert_true(c[0] == 0 && c[1] == -2 && c[2] == 0);
	/* only regions that passed DAMOS filters: none */
	assert_int_equal(heat(gap, 2, 4, false, true, c), 0);
	o.width = 0;
	assert_int_equal(damonctl_access_heatmap_new(&s, &o, &h), -EINVAL);
}

/* A region of the view has its own probe hits (7.2), the view's copy, whatever the order;
 * none without probes. */
static void probe_hits(void **state)
{
	static const uint8_t hits[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	struct damonctl_rec_snapshot s = snap();
	const struct damonctl_access_region *r;
	struct damonctl_access_view *v;
	uint8_t copy[sizeof(hits)];

	(void)state;
	o.keys[0] = DAMONCTL_ACCESS_BY_COLDEST;
	o.nr_keys = 1;
	assert_int_equal(damonctl_access_view_new(&o, &v), 0);
	assert_int_equal(damonctl_access_view_build(v, &s), 0);
	assert_int_equal(damonctl_access_view_region(v, 0)->nr_probes, 0);
	assert_null(damonctl_access_view_region(v, 0)->probe_hits);
	memcpy(copy, hits, sizeof(hits));
	s.nr_probes = 2;
	s.probe_hits = copy;
	assert_int_equal(damonctl_access_view_build(v, &s), 0);
	memset(copy, 0, sizeof(copy));	/* the view keeps no pointer into the snapshot */
	/* coldest first: region 1 (0x3000), region 3, region 2, region 0 */
	r = damonctl_access_view_region(v, 0);
	assert_int_equal(r->start, 0x3000);
	assert_int_equal(r->nr_probes, 2);
	assert_int_equal(r->probe_hits[0], 3);
	assert_int_equal(r->probe_hits[1], 4);
	r = damonctl_access_view_region(v, 3);
	assert_int_equal(r->start, 0x1000);
	assert_int_equal(r->probe_hits[0], 1);
	assert_int_equal(r->probe_hits[1], 2);
	/* a snapshot struct of a build before probes: none */
	s.sz = offsetof(struct damonctl_rec_snapshot, nr_probes);
	assert_int_equal(damonctl_access_view_build(v, &s), 0);
	assert_int_equal(damonctl_access_view_region(v, 0)->nr_probes, 0);
	damonctl_access_view_free(v);
}

/* damo's <filters passed type> of a snapshot's ops filters: filters_pass_type_of() of
 * damo_report_access.py keeps the operations layer's and joins DamosFilter.to_str of each
 * by ", ": "allow" or "reject", "none" when matching is false, the type, then the memcg
 * path of a memcg filter, "[min, max]" of a hugepage_size one in format_sz() (the largest
 * binary unit the size is above, three decimals; bytes otherwise; "max" for ULONG_MAX);
 * "n/a" without any. */
static void filters_text(void **state)
{
	static const struct { const char *json, *want; } cases[] = {
		{ NULL, "n/a" },
		{ "[]", "n/a" },
		{ "[{\"type\":\"anon\",\"matching\":true,\"allow\":true}]", "allow anon" },
		{ "[{\"type\":\"anon\",\"matching\":false,\"allow\":false}]", "reject none anon" },
		/* matching and allow absent: the kernel's defaults, N */
		{ "[{\"type\":\"active\"}]", "reject none active" },
		{ "[{\"type\":\"memcg\",\"matching\":false,\"allow\":false,\"memcg_path\":\"/x\"}]",
		  "reject none memcg /x" },
		{ "[{\"type\":\"memcg\",\"matching\":true,\"allow\":true,\"memcg_path\":\"/a/b c\"}]",
		  "allow memcg /a/b c" },
		/* a memcg filter without a path: damo's words and the empty path after a space */
		{ "[{\"type\":\"memcg\",\"matching\":true,\"allow\":false}]", "reject memcg " },
		/* 2 MiB is above 1 MiB: 2.000 MiB */
		{ "[{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":true,\"min\":2097152,"
		  "\"max\":2097152}]", "allow hugepage_size [2.000 MiB, 2.000 MiB]" },
		/* 4096 is above 1 KiB: 4.000 KiB; 1 GiB is not above 1 GiB: 1024.000 MiB */
		{ "[{\"type\":\"hugepage_size\",\"matching\":false,\"allow\":true,\"min\":4096,"
		  "\"max\":1073741824}]", "allow none hugepage_size [4.000 KiB, 1024.000 MiB]" },
		/* 1024 is not above 1 KiB: bytes; ULONG_MAX: max; 1536 B: 1.500 KiB; 0 B */
		{ "[{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":false,\"min\":1024,"
		  "\"max\":18446744073709551615}]", "reject hugepage_size [1024 B, max]" },
		{ "[{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":false,\"min\":0,"
		  "\"max\":1536}]", "reject hugepage_size [0 B, 1.500 KiB]" },
		/* 3 GiB + 512 MiB = 3.5 GiB; 5 TiB */
		{ "[{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":true,\"min\":3758096384,"
		  "\"max\":5497558138880}]", "allow hugepage_size [3.500 GiB, 5.000 TiB]" },
		/* without a range (damo's hugepage_size None): the words alone */
		{ "[{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":true}]",
		  "allow hugepage_size" },
		/* the core layer's are left out, the others joined in order */
		{ "[{\"type\":\"target\",\"matching\":false,\"damon_target_idx\":1},"
		  "{\"type\":\"young\",\"matching\":true,\"allow\":false},"
		  "{\"type\":\"addr\",\"matching\":true,\"addr_start\":0,\"addr_end\":4096},"
		  "{\"type\":\"unmapped\",\"matching\":true,\"allow\":true},"
		  "{\"type\":\"anon\",\"matching\":true,\"allow\":true}]",
		  "reject young, allow unmapped, allow anon" },
		{ "[{\"type\":\"addr\",\"matching\":true,\"allow\":true}]", "n/a" },
	};
	char buf[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = damonctl_access_filters_text(cases[i].json, buf, sizeof(buf));

		if (n != (int)strlen(cases[i].want) || strcmp(buf, cases[i].want))
			fail_msg("%s: got \"%s\" (%d), want \"%s\"", cases[i].json ? cases[i].json :
				 "NULL", buf, n, cases[i].want);
		assert_int_equal(damonctl_access_filters_installed(cases[i].json),
				 strcmp(cases[i].want, "n/a") != 0);
	}
	/* as snprintf: the length needed, the text cut to the buffer */
	assert_int_equal(damonctl_access_filters_text(cases[2].json, buf, 6), 10);
	assert_string_equal(buf, "allow");
	assert_int_equal(damonctl_access_filters_text(cases[2].json, NULL, 0), 10);
	assert_int_equal(damonctl_access_filters_text(NULL, buf, 2), 3);
	assert_string_equal(buf, "n");
	/* not an array of filters */
	buf[0] = 'x';
	assert_int_equal(damonctl_access_filters_text("{\"type\":\"anon\"}", buf, sizeof(buf)),
			 -EINVAL);
	assert_string_equal(buf, "");
	assert_int_equal(damonctl_access_filters_text("[{\"type\":\"anon\"}", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(damonctl_access_filters_text("[{\"allow\":true}]", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(damonctl_access_filters_text("[1]", buf, sizeof(buf)), -EINVAL);
	assert_false(damonctl_access_filters_installed("[{\"type\":\"anon\""));
	assert_false(damonctl_access_filters_installed("[]"));
}

static void keywords(void **state)
{
	size_t len = 0;
	/* "<a> <size> <b c>": the first unknown is "<a>" at 0, 3 long; without it, "<b c>" at
	 * 7 ("<size> " is 7 characters), 5 long */
	static const char t[] = "<a> <size> <b c>";

	(void)state;
	assert_string_equal(damonctl_access_keyword(DAMONCTL_ACCESS_KW_REGION, 0), "<index>");
	assert_string_equal(damonctl_access_keyword(DAMONCTL_ACCESS_KW_REGION, 10),
			    "<filters passed bytes>");
	assert_string_equal(damonctl_access_keyword(DAMONCTL_ACCESS_KW_REGION, 11),
			    "<probe hits>");
	assert_null(damonctl_access_keyword(DAMONCTL_ACCESS_KW_REGION, 12));
	assert_string_equal(damonctl_access_keyword(DAMONCTL_ACCESS_KW_SNAPSHOT, 24),
			    "<df-passed recency percentiles>");
	assert_string_equal(damonctl_access_keyword(DAMONCTL_ACCESS_KW_SNAPSHOT, 25),
			    "<filters passed type>");
	assert_null(damonctl_access_keyword(DAMONCTL_ACCESS_KW_SNAPSHOT, 26));
	assert_string_equal(damonctl_access_keyword(DAMONCTL_ACCESS_KW_RECORD, 9),
			    "<format strings>");
	assert_null(damonctl_access_keyword(DAMONCTL_ACCESS_KW_RECORD, 10));
	/* a prefix match: the template goes on after the keyword */
	assert_int_equal(damonctl_access_keyword_at(DAMONCTL_ACCESS_KW_REGION, "<size>|x"), 3);
	assert_int_equal(damonctl_access_keyword_at(DAMONCTL_ACCESS_KW_REGION, "<total bytes>"),
			 -1);
	assert_int_equal(damonctl_access_keyword_at(DAMONCTL_ACCESS_KW_SNAPSHOT, "<total bytes>"),
			 0);
	assert_int_equal(damonctl_access_template_check(DAMONCTL_ACCESS_KW_REGION, t, &len), 0);
	assert_int_equal(len, 3);
	assert_int_equal(damonctl_access_template_check(DAMONCTL_ACCESS_KW_REGION, t + 4, &len),
			 7);
	assert_int_equal(len, 5);
	/* '<' without '>' is text; every keyword known */
	assert_int_equal(damonctl_access_template_check(DAMONCTL_ACCESS_KW_RECORD,
							"<duration> <a", &len), -ENOENT);
}

/* A series of the snapshot's region sets, in order, with @ns their start times (each lasts
 * 100 ms): the ranges damonctl_access_times_* make of it, into @out; their count. */
static int times_of(const struct damonctl_access_opts *o, uint64_t bmin, uint64_t bmax,
		    const struct damonctl_rec_region *const *sets, const uint32_t *nrs, int n,
		    size_t span_sz, struct damonctl_access_span *out)
{
	struct damonctl_access_times *t;
	int got = 0;

	assert_int_equal(damonctl_access_times_new(o, bmin, bmax, &t), 0);
	for (int i = 0; i < n; i++) {
		struct damonctl_rec_snapshot s = snap();

		s.regions = sets[i];
		s.nr_regions = nrs[i];
		s.start_ns = (uint64_t)(i + 1) * 100000000;
		s.end_ns = s.start_ns + 100000000;
		out[got].sz = span_sz;
		got += damonctl_access_times_feed(t, &s, &out[got]);
	}
	out[got].sz = span_sz;
	got += damonctl_access_times_end(t, &out[got]);
	damonctl_access_times_free(t);
	return got;
}

/*
 * Pattern: access rate of at least 5000 bp, i.e. R0 (8 KiB) and R2 (16 KiB). The series:
 * 1 all four (24 KiB match), 2 R1 alone (no match), 3 R0 and R1 (8 KiB), 4 all (24 KiB),
 * 5 R0..R2 (24 KiB). Ranges: [1] from 100 ms to 200 ms, one snapshot of 24576; [3..5] from
 * 300 ms to 600 ms, three snapshots, 8192 to 24576. With at least 10000 bytes snapshot 3
 * no longer matches: [1], then [4..5] from 400 ms, two of 24576.
 */
static void time_ranges(void **state)
{
	const struct damonctl_rec_region *sets[] = { regions, regions + 1, regions, regions,
						     regions };
	const uint32_t nrs[] = { 4, 1, 2, 4, 3 };
	struct damonctl_access_opts o = DAMONCTL_ACCESS_OPTS_INIT;
	struct damonctl_access_span sp[6];
	struct damonctl_access_times *t;

	(void)state;
	o.rate_min_bp = 5000;
	assert_int_equal(times_of(&o, 0, UINT64_MAX, sets, nrs, 5, sizeof(sp[0]), sp), 2);
	assert_int_equal(sp[0].start_ns, 100000000);
	assert_int_equal(sp[0].end_ns, 200000000);
	assert_int_equal(sp[0].snapshots, 1);
	assert_int_equal(sp[0].bytes_min, 24576);
	assert_int_equal(sp[0].bytes_max, 24576);
	assert_int_equal(sp[1].start_ns, 300000000);
	assert_int_equal(sp[1].end_ns, 600000000);
	assert_int_equal(sp[1].snapshots, 3);
	assert_int_equal(sp[1].bytes_min, 8192);
	assert_int_equal(sp[1].bytes_max, 24576);

	assert_int_equal(times_of(&o, 10000, UINT64_MAX, sets, nrs, 5, sizeof(sp[0]), sp), 2);
	assert_int_equal(sp[1].start_ns, 400000000);
	assert_int_equal(sp[1].snapshots, 2);
	assert_int_equal(sp[1].bytes_min, 24576);

	/* an older caller's smaller span: only what it has room for is written */
	memset(sp, 0xa5, sizeof(sp));
	assert_int_equal(times_of(&o, 0, UINT64_MAX, sets, nrs, 5,
				  offsetof(struct damonctl_access_span, snapshots), sp), 2);
	assert_int_equal(sp[1].end_ns, 600000000);
	assert_int_equal(sp[1].snapshots, 0xa5a5a5a5a5a5a5a5ull);

	/* no region ever matches: no range */
	o.rate_min_bp = o.rate_max_bp = 7000;
	assert_int_equal(times_of(&o, 0, UINT64_MAX, sets, nrs, 5, sizeof(sp[0]), sp), 0);

	assert_int_equal(damonctl_access_times_new(&o, 2, 1, &t), -EINVAL);
	assert_null(t);
	o.sz = sizeof(size_t);
	assert_int_equal(damonctl_access_times_new(&o, 0, 1, &t), -EINVAL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sort_keys),
		cmocka_unit_test(regions_and_filters),
		cmocka_unit_test(histograms),
		cmocka_unit_test(histogram_errors),
		cmocka_unit_test(percentiles),
		cmocka_unit_test(ranges_and_scales),
		cmocka_unit_test(totals),
		cmocka_unit_test(heatmap),
		cmocka_unit_test(probe_hits),
		cmocka_unit_test(filters_text),
		cmocka_unit_test(keywords),
		cmocka_unit_test(time_ranges),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
