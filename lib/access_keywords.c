// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damo's report templates' keywords (its region, snapshot and record formatters of
 * damo_report_access.py), in a fixed order a program's switch can rely on, and the check of a
 * template against them.
 */
#include <errno.h>
#include <string.h>

#include <damonctl/damonctl.h>

static const char *const region[] = {
	"<index>", "<start address>", "<end address>", "<size>", "<access rate>",
	"<nr_accesses>", "<age>", "<temperature>", "<box>", "<access hz>",
	"<filters passed bytes>", "<probe hits>", NULL,
};

static const char *const snapshot[] = {
	"<total bytes>", "<duration>", "<start time>", "<end time>", "<abs start time>",
	"<abs end time>", "<number of regions>", "<snapshot intervals>",
	"<intervals tuning status>", "<estimated memory bandwidth>", "<filters passed bytes>",
	"<filters passed estimated memory bandwidth>", "<positive access samples ratio>",
	"<temperature-sz histogram>", "<recency-sz histogram>", "<temperature percentiles>",
	"<recency percentiles>", "<region box colors>", "<damos stats>", "<heatmap>",
	"<filters passed heatmap>", "<temperature-df-passed-sz histogram>",
	"<recency-df-passed-sz histogram>", "<df-passed temperature percentiles>",
	"<df-passed recency percentiles>", "<filters passed type>", NULL,
};

static const char *const record[] = {
	"<kdamond index>", "<context index>", "<scheme index>", "<target id>",
	"<abs start time>", "<duration>", "<intervals>", "<intervals goal>", "<data source>",
	"<format strings>", NULL,
};

static const char *const *set_of(enum damonctl_access_kwset set)
{
	switch (set) {
	case DAMONCTL_ACCESS_KW_REGION: return region;
	case DAMONCTL_ACCESS_KW_SNAPSHOT: return snapshot;
	case DAMONCTL_ACCESS_KW_RECORD: return record;
	}
	return NULL;
}

const char *damonctl_access_keyword(enum damonctl_access_kwset set, unsigned int i)
{
	const char *const *tab = set_of(set);

	for (unsigned int k = 0; tab && tab[k]; k++)
		if (k == i)
			return tab[k];
	return NULL;
}

int damonctl_access_keyword_at(enum damonctl_access_kwset set, const char *p)
{
	const char *const *tab = set_of(set);

	if (*p != '<')	/* most of a template: no keyword to look for */
		return -1;
	for (int i = 0; tab && tab[i]; i++)
		if (!strncmp(p, tab[i], strlen(tab[i])))
			return i;
	return -1;
}

long damonctl_access_template_check(enum damonctl_access_kwset set, const char *t, size_t *len)
{
	for (const char *p = t; *p; p++) {
		const char *close;

		if (*p != '<' || damonctl_access_keyword_at(set, p) >= 0)
			continue;
		close = strchr(p, '>');
		if (close) {	/* a '<' without '>' is text */
			*len = (size_t)(close - p + 1);
			return p - t;
		}
	}
	return -ENOENT;
}
