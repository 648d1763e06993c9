// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Units: the public parsers and printers (forms documented in damonctl.h), the internal
 * parsers with damo's forms (src/_damo_fmt_str.py of damonitor/damo), and the access-rate
 * and age conversions.
 */
#include <errno.h>
#include <string.h>

#include "common.h"

typedef int (*parse_fn)(const char *, uint64_t *);

struct pcase {
	const char *in;
	int err;
	uint64_t v;
};

static void check_cases(const char *name, parse_fn fn, const struct pcase *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v = 0xdeadbeef;
		int r = fn(c[i].in, &v);

		if (r != c[i].err)
			fail_msg("%s(\"%s\") = %d, expected %d", name, c[i].in, r, c[i].err);
		if (!r && v != c[i].v)
			fail_msg("%s(\"%s\") gave %llu, expected %llu", name, c[i].in,
				 (unsigned long long)v, (unsigned long long)c[i].v);
		if (r)	/* out-parameters are left untouched on failure (damonctl.h) */
			assert_int_equal(v, 0xdeadbeef);
	}
}

#define CHECK(fn, cases) check_cases(#fn, fn, cases, ARRAY_SIZE(cases))
#define MAXV DAMONCTL_MAX

static void parse_time(void **state)
{
	/* damonctl.h: "5s", "100ms", "250us", "1.5m", "2h", "max"; a bare number is us */
	static const struct pcase cases[] = {
		{ "5s", 0, 5000000 }, { "100ms", 0, 100000 }, { "250us", 0, 250 },
		{ "1.5m", 0, 90000000 }, { "2h", 0, 7200000000ULL }, { "max", 0, MAXV },
		{ "5000", 0, 5000 }, { "0", 0, 0 },
		/* suffix variants and spacing */
		{ "5 ms", 0, 5000 }, { "5msec", 0, 5000 }, { "3usec", 0, 3 }, { "2sec", 0, 2000000 },
		{ "2min", 0, 120000000 }, { "1hour", 0, 3600000000ULL },
		{ "1d", 0, 86400000000ULL }, { "1day", 0, 86400000000ULL },
		{ "2000ns", 0, 2 }, { "MAX", 0, MAXV }, { "unlimited", 0, MAXV },
		{ "1.5s", 0, 1500000 }, { ".5s", 0, 500000 },
		/* not whole microseconds */
		{ "1.5us", -EINVAL, 0 }, { "1500ns", -EINVAL, 0 }, { "1.0000005s", -EINVAL, 0 },
		{ "0.5", -EINVAL, 0 }, { "1.0000000000000000001s", -EINVAL, 0 },
		/* overflow */
		{ "18446744073709551615", 0, UINT64_MAX - 0 },
		{ "18446744073709551616", -ERANGE, 0 }, { "18446744073709552s", -ERANGE, 0 },
		{ "213503983d", -ERANGE, 0 },
		/* not times */
		{ "", -EINVAL, 0 }, { "s", -EINVAL, 0 }, { "-5s", -EINVAL, 0 }, { "5 parsecs", -EINVAL, 0 },
		{ "5ms ", -EINVAL, 0 }, { "1,000", -EINVAL, 0 }, { "1 m 30 s", -EINVAL, 0 },
		{ "min", -EINVAL, 0 }, { "0x10", -EINVAL, 0 },
	};
	uint64_t v;

	(void)state;
	CHECK(damonctl_parse_time_us, cases);
	assert_int_equal(damonctl_parse_time_us(NULL, &v), -EINVAL);
}

static void parse_size(void **state)
{
	/* damonctl.h: "4096", "4K", "2MiB", "1.5G" (binary), "1MB" (decimal), "max" */
	static const struct pcase cases[] = {
		{ "4096", 0, 4096 }, { "4K", 0, 4096 }, { "2MiB", 0, 2 << 20 },
		{ "1.5G", 0, 3ULL << 29 }, { "1MB", 0, 1000000 }, { "max", 0, MAXV },
		{ "1B", 0, 1 }, { "1k", 0, 1024 }, { "1KiB", 0, 1024 }, { "1KB", 0, 1000 },
		{ "1kB", 0, 1000 }, { "1M", 0, 1 << 20 }, { "1GiB", 0, 1ULL << 30 },
		{ "1GB", 0, 1000000000 }, { "1T", 0, 1ULL << 40 }, { "1TiB", 0, 1ULL << 40 },
		{ "1TB", 0, 1000000000000ULL }, { "1P", 0, 1ULL << 50 }, { "1PiB", 0, 1ULL << 50 },
		{ "1PB", 0, 1000000000000000ULL }, { "1E", 0, 1ULL << 60 },
		{ "15EiB", 0, 15ULL << 60 }, { "1EB", 0, 1000000000000000000ULL },
		{ "4 KiB", 0, 4096 }, { "4.000 KiB", 0, 4096 }, { "0.5K", 0, 512 },
		{ "16EiB", -ERANGE, 0 }, { "18446744073709551616", -ERANGE, 0 },
		{ "1.5", -EINVAL, 0 }, { "1.5B", -EINVAL, 0 }, { "1.177 MiB", -EINVAL, 0 },
		{ "4Q", -EINVAL, 0 }, { "4kib", -EINVAL, 0 }, { "", -EINVAL, 0 },
	};

	(void)state;
	CHECK(damonctl_parse_size, cases);
}

static void parse_ratios(void **state)
{
	/* damonctl.h: percent_bp: "80%", "12.5%", "500bp", bare = percent; bp: bare = bp */
	static const struct pcase pct[] = {
		{ "80%", 0, 8000 }, { "12.5%", 0, 1250 }, { "500bp", 0, 500 }, { "5", 0, 500 },
		{ "0.01%", 0, 1 }, { "100 %", 0, 10000 }, { "12.345%", -EINVAL, 0 },
		{ "0.5bp", -EINVAL, 0 }, { "5x", -EINVAL, 0 },
		/* a ratio has no "max" */
		{ "max", -EINVAL, 0 }, { "unlimited", -EINVAL, 0 },
		{ "184467440737095517%", -ERANGE, 0 },
	};
	static const struct pcase bp[] = {
		{ "500", 0, 500 }, { "500bp", 0, 500 }, { "5%", 0, 500 }, { "0.5", -EINVAL, 0 },
		{ "max", -EINVAL, 0 },
	};

	(void)state;
	CHECK(damonctl_parse_percent_bp, pct);
	CHECK(damonctl_parse_bp, bp);
}

static void parse_u64(void **state)
{
	/* damonc's one grammar: decimal or 0x, never octal (010 is refused, not read as 8 as the
	 * kernel's base 0 would), no underscore, sign, blank or newline */
	static const struct pcase cases[] = {
		{ "42", 0, 42 }, { "0x10", 0, 16 }, { "0X1f", 0, 31 }, { "0", 0, 0 },
		{ "010", -EINVAL, 0 }, { "00", -EINVAL, 0 }, { "0x", -EINVAL, 0 },
		{ "1_000", -EINVAL, 0 }, { "0x1_000", -EINVAL, 0 }, { "42\n", -EINVAL, 0 },
		{ "max", 0, MAXV }, { "18446744073709551615", 0, UINT64_MAX },
		{ "0xffffffffffffffff", 0, UINT64_MAX }, { "0x10000000000000000", -ERANGE, 0 },
		{ "18446744073709551616", -ERANGE, 0 }, { "-1", -EINVAL, 0 }, { "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 }, { "1k", -EINVAL, 0 }, { "", -EINVAL, 0 },
	};
	static const struct pcase sizes[] = {
		{ "0x200000", 0, 0x200000 }, { "010", -EINVAL, 0 }, { "010KiB", -EINVAL, 0 },
		{ "0.5KiB", 0, 512 }, { "0x10KiB", -EINVAL, 0 },
	};

	(void)state;
	CHECK(damonctl_parse_u64, cases);
	CHECK(damonctl_parse_size, sizes);
}

/* ---- the internal parsers with damo's forms ---- */

static unsigned int g_flags;
static uint64_t g_bare = 1, g_denom = 10000;

static int time_flags(const char *s, uint64_t *v)
{
	return dctl_parse_time(s, g_flags, g_bare, v);
}

static int size_flags(const char *s, uint64_t *v)
{
	return dctl_parse_size(s, g_flags, v);
}

static int count_flags(const char *s, uint64_t *v)
{
	return dctl_parse_count(s, g_flags, v);
}

static int ratio_flags(const char *s, uint64_t *v)
{
	return dctl_parse_ratio(s, g_flags, g_denom, g_bare, v);
}

static void damo_counts(void **state)
{
	/* text_to_nr() drops the commas of format_nr(); grouping must be by threes here */
	static const struct pcase damo[] = {
		{ "1,000", 0, 1000 }, { "18,446,744,073,709,551,615", 0, UINT64_MAX },
		{ "999", 0, 999 }, { "1,000,000.7", 0, 1000000 }, { "max", 0, MAXV },
		{ "min", 0, 0 }, { "1,00", -EINVAL, 0 }, { "1,0000", -EINVAL, 0 },
		{ "1000,000", -EINVAL, 0 }, { ",100", -EINVAL, 0 }, { "1,", -EINVAL, 0 },
		{ "18,446,744,073,709,551,616", -ERANGE, 0 }, { "0x10", -EINVAL, 0 },
	};
	static const struct pcase plain[] = {
		{ "1,000", -EINVAL, 0 }, { "1.5", -EINVAL, 0 }, { "min", -EINVAL, 0 },
		{ "max", 0, MAXV }, { "12", 0, 12 },
	};

	(void)state;
	g_flags = DCTL_U_DAMO;
	CHECK(count_flags, damo);
	g_flags = 0;
	CHECK(count_flags, plain);
}

static void damo_times(void **state)
{
	/* format_time_ns() prints sums ("1 h 2 m 5.500 s"); text_to_ns() adds the pairs up */
	static const struct pcase damo[] = {
		{ "1 m 30 s", 0, 90000000 }, { "1 h 2 m 5.500 s", 0, 3725500000ULL },
		{ "1 ms 500 us", 0, 1500 }, { "0 ns", 0, 0 }, { "5 ms", 0, 5000 },
		{ "2 m", 0, 120000000 }, { "max", 0, MAXV }, { "min", 0, 0 },
		{ "5000", 0, 5000 }, { "1,000", 0, 1000 }, { "1m30s", 0, 90000000 },
		/* float microseconds are cut when damo writes them ('%d') */
		{ "1 ms 500 ns", 0, 1000 }, { "1.5 us", 0, 1 },
		{ "5 ms 3", -EINVAL, 0 }, { "1 m 30", -EINVAL, 0 }, { "30 parsecs", -EINVAL, 0 },
		{ "s", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "213503982 d", 0, 213503982ULL * 86400000000ULL },
		{ "213503982 d 1 d", -ERANGE, 0 },
	};
	/* text_to_ms(): a bare number counts milliseconds */
	static const struct pcase ms[] = {
		{ "1,000", 0, 1000000 }, { "10", 0, 10000 }, { "1 s", 0, 1000000 },
	};
	static const struct pcase plain[] = {
		{ "1 m 30 s", -EINVAL, 0 }, { "1 ms 500 us", -EINVAL, 0 },
	};

	(void)state;
	g_flags = DCTL_U_DAMO;
	g_bare = 1;
	CHECK(time_flags, damo);
	g_bare = 1000;
	CHECK(time_flags, ms);
	g_flags = 0;
	g_bare = 1;
	CHECK(time_flags, plain);
}

static void damo_sizes(void **state)
{
	/* unit_to_bytes: KB, MB, ... are binary; format_sz() prints "%.3f KiB" and
	 * text_to_bytes() cuts with int() */
	static const struct pcase damo[] = {
		{ "4.000 KiB", 0, 4096 }, { "1.177 MiB", 0, 1234173 }, { "1KB", 0, 1024 },
		{ "100MB", 0, 100ULL << 20 }, { "1 GB", 0, 1ULL << 30 }, { "0 B", 0, 0 },
		{ "1,024 B", 0, 1024 }, { "max", 0, MAXV }, { "min", 0, 0 },
	};
	static const struct pcase trunc_only[] = {
		{ "1.177 MiB", 0, 1234173 }, { "1KB", 0, 1000 }, { "1,024", -EINVAL, 0 },
	};

	(void)state;
	g_flags = DCTL_U_DAMO;
	CHECK(size_flags, damo);
	g_flags = DCTL_U_TRUNCATE;
	CHECK(size_flags, trunc_only);
}

static void damo_ratios(void **state)
{
	/* text_to_permil(): "50 %" is 500 permil, a bare number is permil */
	static const struct pcase permil[] = {
		{ "50 %", 0, 500 }, { "0.1 %", 0, 1 }, { "500", 0, 500 }, { "1.000000", 0, 1 },
		{ "max", 0, MAXV }, { "5bp", 0, 0 },
	};
	/* text_to_percent() for access rates: a bare number is percent; result in bp */
	static const struct pcase pct[] = {
		{ "5 %", 0, 500 }, { "5", 0, 500 }, { "12.5 %", 0, 1250 },
		{ "18,446,744,073,709,551,615 %", -ERANGE, 0 },
	};
	uint64_t v;

	(void)state;
	g_flags = DCTL_U_DAMO;
	g_denom = 1000;
	g_bare = 1;
	CHECK(ratio_flags, permil);
	g_denom = 10000;
	g_bare = 100;
	CHECK(ratio_flags, pct);
	/* without truncation half a permil is refused */
	assert_int_equal(dctl_parse_ratio("5bp", 0, 1000, 1, &v), -EINVAL);
	assert_int_equal(dctl_parse_ratio("5", 0, 0, 1, &v), -EINVAL);
}

/* ---- printers ---- */

typedef int (*fmt_fn)(uint64_t, char *, size_t);

static void check_fmt(const char *name, fmt_fn fn, uint64_t v, const char *want)
{
	char buf[64];
	int n = fn(v, buf, sizeof(buf));

	if (n < 0 || strcmp(buf, want))
		fail_msg("%s(%llu) = %d \"%s\", expected \"%s\"", name, (unsigned long long)v, n,
			 n < 0 ? "" : buf, want);
	assert_int_equal(n, strlen(want));
}

#define FMT(fn, v, s) check_fmt(#fn, fn, v, s)

static void printers(void **state)
{
	char small[4];

	(void)state;
	/* damonctl.h: "5 ms", "1.500 s", "max"; "2 MiB", "1.50 GiB", "max"; "5.00%" */
	FMT(damonctl_fmt_time_us, 5000, "5 ms");
	FMT(damonctl_fmt_time_us, 1500000, "1.500 s");
	FMT(damonctl_fmt_time_us, DAMONCTL_MAX, "max");
	FMT(damonctl_fmt_size, 2 << 20, "2 MiB");
	FMT(damonctl_fmt_size, 3ULL << 29, "1.50 GiB");
	FMT(damonctl_fmt_size, DAMONCTL_MAX, "max");
	FMT(damonctl_fmt_bp, 500, "5.00%");
	/* every scale of the time printer, whole and not */
	FMT(damonctl_fmt_time_us, 0, "0 us");
	FMT(damonctl_fmt_time_us, 999, "999 us");
	FMT(damonctl_fmt_time_us, 1001, "1.001 ms");
	FMT(damonctl_fmt_time_us, 90000000, "90 s");
	FMT(damonctl_fmt_time_us, 180000000, "3 min");
	FMT(damonctl_fmt_time_us, 150000000, "2.50 min");
	FMT(damonctl_fmt_time_us, 7200000000ULL, "2 h");
	FMT(damonctl_fmt_time_us, 5400000000ULL, "90 min");
	FMT(damonctl_fmt_time_us, 3 * 86400000000ULL, "3 d");
	/* a value that rounds to a whole number still shows it is not one */
	FMT(damonctl_fmt_time_us, 1999999, "2.000 s");
	FMT(damonctl_fmt_time_us, 1234567, "1.235 s");
	FMT(damonctl_fmt_size, 0, "0 B");
	FMT(damonctl_fmt_size, 1023, "1023 B");
	FMT(damonctl_fmt_size, 1024, "1 KiB");
	FMT(damonctl_fmt_size, 1536, "1.50 KiB");
	FMT(damonctl_fmt_size, 15ULL << 60, "15 EiB");
	FMT(damonctl_fmt_bp, 0, "0.00%");
	FMT(damonctl_fmt_bp, 12345, "123.45%");
	/* a buffer too small is refused, not silently cut */
	assert_int_equal(damonctl_fmt_time_us(1500000, small, sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(damonctl_fmt_size(3ULL << 29, small, sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(damonctl_fmt_bp(12345, small, sizeof(small)), -ENAMETOOLONG);
}

static void round_trips(void **state)
{
	static const uint64_t times[] = {
		0, 1, 999, 1000, 5000, 100000, 1500000, 90000000, 180000000, 7200000000ULL,
		3 * 86400000000ULL, 1001, 2500, DAMONCTL_MAX,
	};
	static const uint64_t sizes[] = {
		0, 1, 1023, 1024, 1536, 4096, 2 << 20, 3ULL << 29, 1ULL << 40, 15ULL << 60,
		DAMONCTL_MAX,
	};
	static const uint64_t bps[] = { 0, 1, 500, 9970, 10000, 12345 };
	char buf[64];
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(times); i++) {
		assert_true(damonctl_fmt_time_us(times[i], buf, sizeof(buf)) > 0);
		assert_int_equal(damonctl_parse_time_us(buf, &v), 0);
		assert_int_equal(v, times[i]);
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		assert_true(damonctl_fmt_size(sizes[i], buf, sizeof(buf)) > 0);
		assert_int_equal(damonctl_parse_size(buf, &v), 0);
		assert_int_equal(v, sizes[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bps); i++) {
		assert_true(damonctl_fmt_bp(bps[i], buf, sizeof(buf)) > 0);
		assert_int_equal(damonctl_parse_percent_bp(buf, &v), 0);
		assert_int_equal(v, bps[i]);
	}
	/* three decimals are kept: 1234567 us prints as 1.235 s and reads back as such */
	assert_true(damonctl_fmt_time_us(1234567, buf, sizeof(buf)) > 0);
	assert_int_equal(damonctl_parse_time_us(buf, &v), 0);
	assert_int_equal(v, 1235000);
}

static void conversions(void **state)
{
	(void)state;
	/* the kernel counts at most aggr/sample positive samples per aggregation interval
	 * (ABI section 2, access_pattern): 5 ms / 100 ms gives 20 */
	assert_int_equal(damonctl_rate_bp_to_nr_accesses(500, 5000, 100000, false), 1);
	assert_int_equal(damonctl_rate_bp_to_nr_accesses(1250, 5000, 100000, false), 2);
	assert_int_equal(damonctl_rate_bp_to_nr_accesses(1250, 5000, 100000, true), 3);
	assert_int_equal(damonctl_rate_bp_to_nr_accesses(10000, 5000, 100000, true), 20);
	assert_int_equal(damonctl_rate_bp_to_nr_accesses(0, 5000, 100000, true), 0);
	assert_int_equal(damonctl_rate_bp_to_nr_accesses(500, 0, 100000, false), 0);
	assert_int_equal(damonctl_nr_accesses_to_rate_bp(1, 5000, 100000), 500);
	assert_int_equal(damonctl_nr_accesses_to_rate_bp(20, 5000, 100000), 10000);
	assert_int_equal(damonctl_nr_accesses_to_rate_bp(3, 100000, 5000), 0);
	/* ages count aggregation intervals, rounded up: at least that old */
	assert_int_equal(damonctl_age_us_to_aggrs(150000, 100000), 2);
	assert_int_equal(damonctl_age_us_to_aggrs(200000, 100000), 2);
	assert_int_equal(damonctl_age_us_to_aggrs(0, 100000), 0);
	assert_int_equal(damonctl_age_us_to_aggrs(DAMONCTL_MAX, 100000), DAMONCTL_MAX);
	assert_int_equal(damonctl_age_us_to_aggrs(100, 0), 0);
}

/* What a DAMON module's parameter takes for what people type. */
static void module_params(void **state)
{
	static const struct { const char *param, *in, *out; } ok[] = {
		{ "min_age", "5s", "5000000" },
		{ "min_age", "120000000", "120000000" },	/* bare: the parameter's us */
		{ "cold_min_age", "2m", "120000000" },
		{ "quota_ms", "20ms", "20" },
		{ "quota_ms", "10", "10" },			/* bare: ms */
		{ "quota_reset_interval_ms", "1s", "1000" },
		{ "quota_sz", "1GiB", "1073741824" },
		{ "wmarks_high", "60%", "600" },
		{ "wmarks_low", "200", "200" },			/* bare: per mille */
		{ "hot_thres_access_freq", "50%", "500" },
		{ "active_mem_bp", "40%", "4000" },
		{ "skip_anon", "yes", "Y" },
		{ "filter_young_pages", "off", "N" },
		{ "autotune_monitoring_intervals", "1", "Y" },
		{ "monitor_region_end", "0x100000", "1048576" },
		{ "some_future_param", "a b", "a b" },		/* unknown: copied */
	};
	static const struct { const char *param, *in; int err; } bad[] = {
		{ "min_age", "soon", -EINVAL },
		{ "quota_ms", "1500us", -EINVAL },		/* not a whole ms */
		{ "quota_sz", "-1", -EINVAL },
		{ "skip_anon", "maybe", -EINVAL },
		{ "min_nr_regions", "", -EINVAL },
		{ "min_age", "5s\n", -EINVAL },
		{ "kdamond_pid", "1", -EACCES },
		{ "nr_quota_exceeds", "0", -EACCES },
		{ "estimated_memory_bandwidth", "0", -EACCES },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(damonctl_module_param_convert(ok[i].param, ok[i].in, out,
							       sizeof(out)), 0);
		assert_string_equal(out, ok[i].out);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(damonctl_module_param_convert(bad[i].param, bad[i].in, out,
							       sizeof(out)), bad[i].err);
	assert_int_equal(damonctl_module_param_convert("quota_sz", "1GiB", out, 4), -ERANGE);
	assert_true(damonctl_module_param_writable("min_age"));
	assert_false(damonctl_module_param_writable("bytes_reclaimed_regions"));
	assert_string_equal(damonctl_module_lookup("reclaim"), "damon_reclaim");
	assert_string_equal(damonctl_module_lookup("damon_stat"), "damon_stat");
	assert_null(damonctl_module_lookup("damon_bogus"));
	assert_null(damonctl_module_lookup("damon_"));
	assert_null(damonctl_module_name(3));
	assert_int_equal(damonctl_module_param_format("quota_sz", "134217728", out, sizeof(out)), 0);
	assert_string_equal(out, "128 MiB");
	assert_int_equal(damonctl_module_param_format("quota_ms", "20", out, sizeof(out)), 0);
	assert_string_equal(out, "20 ms");
	assert_int_equal(damonctl_module_param_format("wmarks_high", "600", out, sizeof(out)), 0);
	assert_string_equal(out, "60.00%");
	assert_int_equal(damonctl_module_param_format("min_nr_regions", "10", out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(damonctl_module_param_format("min_age", "N", out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_time),
		cmocka_unit_test(parse_size),
		cmocka_unit_test(parse_ratios),
		cmocka_unit_test(parse_u64),
		cmocka_unit_test(damo_counts),
		cmocka_unit_test(damo_times),
		cmocka_unit_test(damo_sizes),
		cmocka_unit_test(damo_ratios),
		cmocka_unit_test(printers),
		cmocka_unit_test(round_trips),
		cmocka_unit_test(conversions),
		cmocka_unit_test(module_params),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
