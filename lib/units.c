// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Units, parsed and printed in one place: the kernel takes microseconds and bytes, people
 * type "5s", "2MiB" and "80%". Parsing is exact: decimal fractions are handled in integer
 * arithmetic ("1.5s" is 1500000 us, never 1499999), and overflow is -ERANGE.
 *
 * The internal dctl_parse_*() take flags for the forms other tools print, damo above all
 * ("1,000", "1 m 30 s", "4.000 KiB" meaning 4096, "1.177 MiB" cut to whole bytes); the public
 * parsers are those with no flags.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* A decimal number as written: ip + frac / fdiv. */
struct decimal {
	uint64_t ip;
	uint64_t frac, fdiv;	/* fdiv a power of ten, at most 1e19 */
	bool lost;		/* non-zero digits beyond what frac can hold */
};

/*
 * Scan "<digits>[.<digits>]" at *pp, spaces before and after allowed; with DCTL_U_GROUPING
 * the integer part may be grouped by threes ("18,446,744,073,709,551,615"). *pp moves past
 * the number and the spaces after it.
 */
static int scan_decimal(const char **pp, unsigned int flags, struct decimal *d)
{
	const char *p = *pp;
	unsigned int group = 0;		/* digits in the current group */
	bool digits = false, grouped = false;

	memset(d, 0, sizeof(*d));
	d->fdiv = 1;
	while (isspace((unsigned char)*p))
		p++;
	if (p[0] == '0' && isdigit((unsigned char)p[1]))
		return -EINVAL;		/* 010: never octal, and not 10 either */
	for (;; p++) {
		if (isdigit((unsigned char)*p)) {
			uint64_t c = (uint64_t)(*p - '0');

			if (d->ip > (UINT64_MAX - c) / 10)
				return -ERANGE;
			d->ip = d->ip * 10 + c;
			digits = true;
			if (++group > 3 && grouped)
				return -EINVAL;
			continue;
		}
		if (*p == ',' && (flags & DCTL_U_GROUPING) && digits) {
			/* a first group of one to three digits, then groups of exactly three */
			if (grouped ? group != 3 : group > 3)
				return -EINVAL;
			grouped = true;
			group = 0;
			continue;
		}
		break;
	}
	if (grouped && group != 3)
		return -EINVAL;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++) {
			digits = true;
			if (d->fdiv > UINT64_MAX / 10) {
				if (*p != '0')
					d->lost = true;
				continue;
			}
			d->frac = d->frac * 10 + (uint64_t)(*p - '0');
			d->fdiv *= 10;
		}
	}
	if (!digits)
		return -EINVAL;
	while (isspace((unsigned char)*p))
		p++;
	*pp = p;
	return 0;
}

/* @d * mul / div: exactly, or cut to an integer with DCTL_U_TRUNCATE. */
static int scale_decimal(const struct decimal *d, uint64_t mul, uint64_t div, unsigned int flags,
			 uint64_t *out)
{
	unsigned __int128 whole = (unsigned __int128)d->ip * mul;
	unsigned __int128 q = whole / div;
	unsigned __int128 fnum = (unsigned __int128)d->frac * mul + (whole % div) * d->fdiv;
	unsigned __int128 fden = (unsigned __int128)d->fdiv * div;

	q += fnum / fden;
	if (q > UINT64_MAX)
		return -ERANGE;
	if ((fnum % fden || d->lost) && !(flags & DCTL_U_TRUNCATE))
		return -EINVAL;		/* not a whole number of base units */
	*out = (uint64_t)q;
	return 0;
}

struct unit {
	const char *name;
	uint64_t mul, div;	/* base units per unit: mul / div */
	uint64_t binary_mul;	/* with DCTL_U_SI_BINARY, if non-zero */
};

static const struct unit *find_unit(const struct unit *u, unsigned int nr, const char *name,
				    size_t len)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (strlen(u[i].name) == len && !strncmp(u[i].name, name, len))
			return &u[i];
	return NULL;
}

static int scale_unit(const struct decimal *d, const struct unit *u, unsigned int flags,
		      uint64_t *out)
{
	uint64_t mul = (flags & DCTL_U_SI_BINARY) && u->binary_mul ? u->binary_mul : u->mul;

	return scale_decimal(d, mul, u->div, flags, out);
}

/* "max" (and "unlimited"), and with DCTL_U_MINMAX "min": 1 if @s is one of them. */
static int special(const char *s, unsigned int flags, bool max_ok, uint64_t *out)
{
	if ((max_ok || (flags & DCTL_U_MINMAX)) &&
	    (!strcasecmp(s, "max") || !strcasecmp(s, "unlimited"))) {
		*out = DAMONCTL_MAX;
		return 1;
	}
	if ((flags & DCTL_U_MINMAX) && !strcasecmp(s, "min")) {
		*out = 0;
		return 1;
	}
	return 0;
}

/* One number with an optional unit; a bare number counts @bare_mul base units. */
static int parse_one(const char *s, unsigned int flags, const struct unit *units,
		     unsigned int nr, uint64_t bare_mul, uint64_t *out)
{
	const struct unit *u;
	struct decimal d;
	const char *p = s;
	int r;

	r = scan_decimal(&p, flags, &d);
	if (r)
		return r;
	if (!*p)
		return scale_decimal(&d, bare_mul, 1, flags, out);
	u = find_unit(units, nr, p, strlen(p));
	if (!u)
		return -EINVAL;
	return scale_unit(&d, u, flags, out);
}

static const struct unit time_units[] = {
	{ "ns", 1, 1000, 0 }, { "us", 1, 1, 0 }, { "usec", 1, 1, 0 },
	{ "ms", 1000, 1, 0 }, { "msec", 1000, 1, 0 },
	{ "s", 1000000, 1, 0 }, { "sec", 1000000, 1, 0 },
	{ "m", 60000000, 1, 0 }, { "min", 60000000, 1, 0 },
	{ "h", 3600000000ULL, 1, 0 }, { "hour", 3600000000ULL, 1, 0 },
	{ "d", 86400000000ULL, 1, 0 }, { "day", 86400000000ULL, 1, 0 },
};

int dctl_parse_time(const char *s, unsigned int flags, uint64_t bare_mul, uint64_t *us)
{
	uint64_t total = 0, v;
	unsigned int terms = 0;
	const char *p = s;
	int r;

	if (!s)
		return -EINVAL;
	if (special(s, flags, true, us))
		return 0;
	if (!(flags & DCTL_U_COMPOUND))
		return parse_one(s, flags, time_units, ARRAY_SIZE(time_units), bare_mul, us);
	/* a sum of terms, "1 h 2 m 5.500 s", as damo's format_time_ns() prints */
	while (*p) {
		const struct unit *u;
		const char *q;
		struct decimal d;

		r = scan_decimal(&p, flags, &d);
		if (r)
			return r;
		for (q = p; isalpha((unsigned char)*q); q++)
			;
		if (q == p) {
			/* no unit: only a lone number may go without */
			if (terms || *p)
				return -EINVAL;
			return scale_decimal(&d, bare_mul, 1, flags, us);
		}
		u = find_unit(time_units, ARRAY_SIZE(time_units), p, (size_t)(q - p));
		if (!u)
			return -EINVAL;
		r = scale_unit(&d, u, flags, &v);
		if (r)
			return r;
		if (total > UINT64_MAX - v)
			return -ERANGE;
		total += v;
		terms++;
		for (p = q; isspace((unsigned char)*p); p++)
			;
	}
	if (!terms)
		return -EINVAL;
	*us = total;
	return 0;
}

/* Binary multiples; KB, MB... are decimal unless DCTL_U_SI_BINARY (damo's unit_to_bytes). */
static const struct unit size_units[] = {
	{ "B", 1, 1, 0 },
	{ "K", 1ULL << 10, 1, 0 }, { "KiB", 1ULL << 10, 1, 0 }, { "k", 1ULL << 10, 1, 0 },
	{ "KB", 1000, 1, 1ULL << 10 }, { "kB", 1000, 1, 1ULL << 10 },
	{ "M", 1ULL << 20, 1, 0 }, { "MiB", 1ULL << 20, 1, 0 }, { "MB", 1000000, 1, 1ULL << 20 },
	{ "G", 1ULL << 30, 1, 0 }, { "GiB", 1ULL << 30, 1, 0 },
	{ "GB", 1000000000ULL, 1, 1ULL << 30 },
	{ "T", 1ULL << 40, 1, 0 }, { "TiB", 1ULL << 40, 1, 0 },
	{ "TB", 1000000000000ULL, 1, 1ULL << 40 },
	{ "P", 1ULL << 50, 1, 0 }, { "PiB", 1ULL << 50, 1, 0 },
	{ "PB", 1000000000000000ULL, 1, 1ULL << 50 },
	{ "E", 1ULL << 60, 1, 0 }, { "EiB", 1ULL << 60, 1, 0 },
	{ "EB", 1000000000000000000ULL, 1, 1ULL << 60 },
};

/* A bare 0x number of bytes or a count, as damonctl_parse_u64() takes it (not in damo's
 * forms: damo's text_to_nr() takes no hexadecimal): 1 when @s is one, *@r its result. */
static bool bare_hex(const char *s, unsigned int flags, uint64_t *v, int *r)
{
	if (flags || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	*r = dctl_parse_unsigned(s, v);
	return true;
}

int dctl_parse_size(const char *s, unsigned int flags, uint64_t *bytes)
{
	int r = 0;

	if (!s)
		return -EINVAL;
	if (special(s, flags, true, bytes))
		return 0;
	if (bare_hex(s, flags, bytes, &r))
		return r;
	return parse_one(s, flags, size_units, ARRAY_SIZE(size_units), 1, bytes);
}

int dctl_parse_ratio(const char *s, unsigned int flags, uint64_t denom, uint64_t bare_mul,
		     uint64_t *v)
{
	/* the result is in 1/@denom: "%" is @denom/100 of them, "bp" @denom/10000 */
	const struct unit units[] = { { "%", denom, 100, 0 }, { "bp", denom, 10000, 0 } };

	if (!s || !denom)
		return -EINVAL;
	if (special(s, flags, false, v))
		return 0;
	return parse_one(s, flags, units, ARRAY_SIZE(units), bare_mul, v);
}

int dctl_parse_count(const char *s, unsigned int flags, uint64_t *v)
{
	int r = 0;

	if (!s)
		return -EINVAL;
	if (special(s, flags, true, v))
		return 0;
	if (bare_hex(s, flags, v, &r))
		return r;
	return parse_one(s, flags, NULL, 0, 1, v);
}

/* damonc's one integer grammar: "0", decimal without a leading 0, or 0x hexadecimal; no
 * sign, blank, underscore or octal (a leading 0 is refused, never read as base 8). */
int dctl_parse_unsigned(const char *s, uint64_t *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = hex ? s + 2 : s;
	unsigned int base = hex ? 16 : 10;
	uint64_t n = 0;

	if (!*p || (!hex && p[0] == '0' && p[1]))
		return -EINVAL;
	for (; *p; p++) {
		unsigned int d;

		if (isdigit((unsigned char)*p))
			d = (unsigned int)(*p - '0');
		else if (hex && isxdigit((unsigned char)*p))
			d = (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);
		else
			return -EINVAL;
		if (n > (UINT64_MAX - d) / base)
			return -ERANGE;
		n = n * base + d;
	}
	*v = n;
	return 0;
}

int dctl_parse_integer(const char *s, int64_t *v)
{
	uint64_t u;
	int r = dctl_parse_unsigned(s + (*s == '-'), &u);

	if (r)
		return r;
	if (*s == '-' ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
		return -ERANGE;
	*v = *s == '-' ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

DAMONCTL_API int damonctl_parse_time_us(const char *s, uint64_t *us)
{
	return dctl_parse_time(s, 0, 1, us);
}

DAMONCTL_API int damonctl_parse_size(const char *s, uint64_t *bytes)
{
	return dctl_parse_size(s, 0, bytes);
}

DAMONCTL_API int damonctl_parse_percent_bp(const char *s, uint64_t *bp)
{
	return dctl_parse_ratio(s, 0, 10000, 100, bp);
}

DAMONCTL_API int damonctl_parse_bp(const char *s, uint64_t *bp)
{
	return dctl_parse_ratio(s, 0, 10000, 1, bp);
}

DAMONCTL_API int damonctl_parse_u64(const char *s, uint64_t *v)
{
	uint64_t max;

	if (!s)
		return -EINVAL;
	if (special(s, 0, true, &max)) {
		*v = max;
		return 0;
	}
	return dctl_parse_unsigned(s, v);
}

static int put(size_t size, int n)
{
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

/*
 * "<whole> <unit>" when @v is a whole number of units, else "<whole>.<frac> <unit>" with
 * exactly @decimals digits ("1.500 s", "1.50 GiB", as the header documents): a fraction
 * that rounds to zeros still shows the value is not whole.
 */
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
	if (!rem || !decimals)
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
