// SPDX-License-Identifier: GPL-2.0-or-later
/* The access pattern options of the reports (report_pattern.h). */
#include <string.h>

#include "report_pattern.h"

int parse_min_max(struct cli *cli, const char *opt, const char *arg,
		  int (*parse)(const char *, uint64_t *), uint64_t *lo, uint64_t *hi,
		  const char *expect)
{
	const char *comma = strchr(arg, ',');
	char a[64];
	size_t n;

	if (!comma || (n = (size_t)(comma - arg)) >= sizeof(a))
		return usage_error(cli, "--%s '%s': expected MIN,MAX (either may be empty)", opt,
				   arg);
	memcpy(a, arg, n);
	a[n] = '\0';
	if ((n && parse(a, lo)) || (comma[1] && parse(comma + 1, hi)))
		return usage_error(cli, "--%s '%s': expected %s", opt, arg, expect);
	if (*lo > *hi)
		return usage_error(cli, "--%s '%s': MIN is above MAX", opt, arg);
	return 0;
}

int pattern_parse(struct cli *cli, struct pattern *p, int key, const char *arg)
{
	int r;

	switch (key) {
	case 520:
		return parse_min_max(cli, "size", arg, damonctl_parse_size, &p->a.sz_min,
				     &p->a.sz_max, "sizes such as 4K or 2MiB");
	case 521:
		r = parse_min_max(cli, "access-rate", arg, damonctl_parse_percent_bp,
				  &p->a.rate_min_bp, &p->a.rate_max_bp, "percentages such as 5% or 50%");
		if (!r && p->a.rate_max_bp > 10000)
			return usage_error(cli, "--access-rate '%s': at most 100%%", arg);
		return r;
	case 522:
		r = parse_min_max(cli, "age", arg, damonctl_parse_time_us, &p->a.age_min_us,
				  &p->a.age_max_us, "times such as 100ms or 10s");
		if (!r) {
			char min[64];

			snprintf(min, sizeof(min), "%.*s", (int)strcspn(arg, ","), arg);
			time_unit_warn(cli, "age", min);
			if (arg[strlen(min)])
				time_unit_warn(cli, "age", arg + strlen(min) + 1);
		}
		return r;
	}
	return -1;
}
