// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Units, parsed and printed in one place: the kernel takes microseconds and bytes, people
 * type "5s", "2MiB" and "80%". Parsing is exact: decimal fractions are handled in integer
 * arithmetic ("1.5s" is 1500000 us, never 1499999), and overflow is -ERANGE.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/*
 * Parse "<digits>[.<digits>]" followed by a suffix; returns the value times @scale,
 * requiring the result to be an integer. *suffix points after the number.
 */
static int parse_scaled(const char *s, uint64_t scale, uint64_t *out, const char **suffix)
{
	uint64_t ip = 0, frac = 0, fdiv = 1;
	const char *p = s;
	bool digits = false;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p) && *p != '.')
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		digits = true;
		if (ip > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		for (; isdigit((unsigned char)*p); p++) {
			digits = true;
			if (fdiv > UINT64_MAX / 10 / 10)
				continue;	/* digits beyond 1e-18 cannot matter */
			frac = frac * 10 + (uint64_t)(*p - '0');
			fdiv *= 10;
		}
	}
	if (!digits)
		return -EINVAL;
	while (isspace((unsigned char)*p))
		p++;
	if (scale && ip > UINT64_MAX / scale)
		return -ERANGE;
	ip *= scale;
	if (frac) {
		/* frac/fdiv * scale must be an integer number of base units */
		unsigned __int128 f = (unsigned __int128)frac * scale;

		if (f % fdiv)
			return -EINVAL;
		f /= fdiv;
		if (ip > UINT64_MAX - (uint64_t)f)
			return -ERANGE;
		ip += (uint64_t)f;
	}
	*out = ip;
	*suffix = p;
	return 0;
}

static bool is_max(const char *s)
{
	return !strcasecmp(s, "max") || !strcasecmp(s, "unlimited");
}

static int parse_with_suffixes(const char *s, const char *const *names, const uint64_t *scales,
			       unsigned int nr, uint64_t bare_scale, uint64_t *out)
{
	uint64_t v;
	const char *suffix;
	unsigned int i;
	int r;

	if (!s)
		return -EINVAL;
	if (is_max(s)) {
		*out = DAMONCTL_MAX;
		return 0;
	}
	/* The suffix decides the scale, so find it first: parse once to locate it. */
	r = parse_scaled(s, 1, &v, &suffix);
	if (r == -EINVAL) {
		/* maybe a fraction that only becomes whole once scaled: retry per suffix */
		const char *p = s;

		while (*p && (isdigit((unsigned char)*p) || *p == '.' || isspace((unsigned char)*p)))
			p++;
		if (p == s)
			return -EINVAL;
		suffix = p;
	} else if (r) {
		/* overflow before scaling is overflow after scaling too */
		return r;
	}
	if (!*suffix)
		return parse_scaled(s, bare_scale, out, &suffix);
	for (i = 0; i < nr; i++) {
		if (strcmp(suffix, names[i]))
			continue;
		r = parse_scaled(s, scales[i], out, &suffix);
		return r;
	}
	return -EINVAL;
}

DAMONCTL_API int damonctl_parse_time_us(const char *s, uint64_t *us)
{
	static const char *const names[] = { "us", "usec", "ms", "msec", "s", "sec",
					      "m", "min", "h", "hour", "d", "day", "ns" };
	static const uint64_t scales[] = { 1, 1, 1000, 1000, 1000000, 1000000,
					   60000000, 60000000, 3600000000ULL, 3600000000ULL,
					   86400000000ULL, 86400000000ULL, 0 };
	uint64_t v;
	int r;

	/* nanoseconds: only whole microseconds */
	if (s && strlen(s) > 2 && !strcmp(s + strlen(s) - 2, "ns") && !isalpha((unsigned char)s[strlen(s) - 3])) {
		const char *suffix;

		r = parse_scaled(s, 1, &v, &suffix);
		if (r)
			return r;
		if (strcmp(suffix, "ns") || v % 1000)
			return -EINVAL;
		*us = v / 1000;
		return 0;
	}
	r = parse_with_suffixes(s, names, scales, ARRAY_SIZE(names) - 1, 1, &v);
	if (r)
		return r;
	*us = v;
	return 0;
}

DAMONCTL_API int damonctl_parse_size(const char *s, uint64_t *bytes)
{
	static const char *const names[] = {
		"B", "K", "KiB", "k", "KB", "kB", "M", "MiB", "MB", "G", "GiB", "GB",
		"T", "TiB", "TB", "P", "PiB", "PB", "E", "EiB", "EB",
	};
	static const uint64_t scales[] = {
		1, 1ULL << 10, 1ULL << 10, 1ULL << 10, 1000, 1000,
		1ULL << 20, 1ULL << 20, 1000000ULL, 1ULL << 30, 1ULL << 30, 1000000000ULL,
		1ULL << 40, 1ULL << 40, 1000000000000ULL, 1ULL << 50, 1ULL << 50,
		1000000000000000ULL, 1ULL << 60, 1ULL << 60, 1000000000000000000ULL,
	};

	return parse_with_suffixes(s, names, scales, ARRAY_SIZE(names), 1, bytes);
}

DAMONCTL_API int damonctl_parse_percent_bp(const char *s, uint64_t *bp)
{
	static const char *const names[] = { "%", "bp" };
	static const uint64_t scales[] = { 100, 1 };
	uint64_t v;
	int r;

	if (s && is_max(s))
		return -EINVAL;
	r = parse_with_suffixes(s, names, scales, ARRAY_SIZE(names), 100, &v);
	if (r)
		return r;
	*bp = v;
	return 0;
}

DAMONCTL_API int damonctl_parse_bp(const char *s, uint64_t *bp)
{
	static const char *const names[] = { "%", "bp" };
	static const uint64_t scales[] = { 100, 1 };
	uint64_t v;
	int r;

	if (s && is_max(s))
		return -EINVAL;
	r = parse_with_suffixes(s, names, scales, ARRAY_SIZE(names), 1, &v);
	if (r)
		return r;
	*bp = v;
	return 0;
}

DAMONCTL_API int damonctl_parse_u64(const char *s, uint64_t *v)
{
	if (!s)
		return -EINVAL;
	if (is_max(s)) {
		*v = DAMONCTL_MAX;
		return 0;
	}
	return dctl_kstrtou64(s, v);
}

static int put(size_t size, int n)
{
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

/* "<whole>[.<frac>] <unit>" with trailing zeros of the fraction dropped. */
static int fmt_scaled(uint64_t v, uint64_t scale, unsigned int decimals, const char *unit,
		      char *buf, size_t size)
{
	uint64_t whole = v / scale, rem = v % scale, pow = 1, frac;
	unsigned int i;

	for (i = 0; i < decimals; i++)
		pow *= 10;
	frac = (uint64_t)(((unsigned __int128)rem * pow + scale / 2) / scale);
	if (frac >= pow) {	/* rounding carried into the whole part */
		whole++;
		frac -= pow;
	}
	while (decimals && frac % 10 == 0) {
		frac /= 10;
		decimals--;
	}
	if (!decimals)
		return put(size, snprintf(buf, size, "%llu %s", (unsigned long long)whole,
					       unit));
	return put(size, snprintf(buf, size, "%llu.%0*llu %s", (unsigned long long)whole,
				       (int)decimals, (unsigned long long)frac, unit));
}

DAMONCTL_API int damonctl_fmt_time_us(uint64_t us, char *buf, size_t size)
{
	if (us == DAMONCTL_MAX)
		return put(size, snprintf(buf, size, "max"));
	if (us < 1000)
		return fmt_scaled(us, 1, 0, "us", buf, size);
	if (us < 1000000)
		return fmt_scaled(us, 1000, 3, "ms", buf, size);
	if (us < 60000000ULL * 2)
		return fmt_scaled(us, 1000000, 3, "s", buf, size);
	if (us < 3600000000ULL * 2)
		return fmt_scaled(us, 60000000ULL, 2, "min", buf, size);
	if (us < 86400000000ULL * 2)
		return fmt_scaled(us, 3600000000ULL, 2, "h", buf, size);
	return fmt_scaled(us, 86400000000ULL, 2, "d", buf, size);
}

DAMONCTL_API int damonctl_fmt_size(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int i = 0;

	if (bytes == DAMONCTL_MAX)
		return put(size, snprintf(buf, size, "max"));
	while (i + 1 < ARRAY_SIZE(units) && bytes >> (10 * (i + 1)))
		i++;
	return fmt_scaled(bytes, UINT64_C(1) << (10 * i), i ? 2 : 0, units[i], buf, size);
}

DAMONCTL_API int damonctl_fmt_bp(uint64_t bp, char *buf, size_t size)
{
	return put(size, snprintf(buf, size, "%llu.%02llu%%", (unsigned long long)(bp / 100),
				       (unsigned long long)(bp % 100)));
}

DAMONCTL_API uint64_t damonctl_rate_bp_to_nr_accesses(uint64_t bp, uint64_t sample_us,
						      uint64_t aggr_us, bool round_up)
{
	unsigned __int128 max_nr, v;

	if (!sample_us)
		return 0;
	max_nr = aggr_us / sample_us;
	v = max_nr * bp;
	if (round_up)
		v += 9999;
	return (uint64_t)(v / 10000);
}

DAMONCTL_API uint64_t damonctl_nr_accesses_to_rate_bp(uint64_t nr, uint64_t sample_us,
						      uint64_t aggr_us)
{
	uint64_t max_nr = sample_us ? aggr_us / sample_us : 0;

	if (!max_nr)
		return 0;
	return (uint64_t)((unsigned __int128)nr * 10000 / max_nr);
}

DAMONCTL_API uint64_t damonctl_age_us_to_aggrs(uint64_t us, uint64_t aggr_us)
{
	if (us == DAMONCTL_MAX)
		return DAMONCTL_MAX;
	if (!aggr_us)
		return 0;
	return (us + aggr_us - 1) / aggr_us;	/* at least that old */
}
