// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unit parsers of lib/units.c: times, sizes, percentages, basis points, integers. What
 * parses must format, and a formatted size or time that parses again (a fraction of a byte
 * does not) must be the value, give or take the formatting's rounding.
 */
#include <stdio.h>

#include "damonctl/damonctl.h"
#include "fuzz.h"

/* Whether @back is within the rounding of a formatted value (three significant digits). */
static int near(uint64_t v, uint64_t back)
{
	uint64_t d = v > back ? v - back : back - v;

	return d <= v / 100 + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), buf[64];
	uint64_t v, back;

	/* a formatted value need not parse back ("9.77 KiB" is no whole number of bytes), but
	 * one that does is the value, give or take the rounding */
	if (!damonctl_parse_time_us(s, &v) && v != DAMONCTL_MAX &&
	    damonctl_fmt_time_us(v, buf, sizeof(buf)) > 0 &&
	    !damonctl_parse_time_us(buf, &back) && !near(v, back)) {
		fprintf(stderr, "time '%s' = %llu formats as '%s', which parses as %llu\n", s,
			(unsigned long long)v, buf, (unsigned long long)back);
		abort();
	}
	if (!damonctl_parse_size(s, &v) && v != DAMONCTL_MAX &&
	    damonctl_fmt_size(v, buf, sizeof(buf)) > 0 && !damonctl_parse_size(buf, &back) &&
	    !near(v, back)) {
		fprintf(stderr, "size '%s' = %llu formats as '%s', which parses as %llu\n", s,
			(unsigned long long)v, buf, (unsigned long long)back);
		abort();
	}
	if (!damonctl_parse_percent_bp(s, &v))
		damonctl_fmt_bp(v, buf, sizeof(buf));
	damonctl_parse_bp(s, &v);
	damonctl_parse_u64(s, &v);
	free(s);
	return 0;
}
