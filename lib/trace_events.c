// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * DAMON's trace events: those kernels have had (docs/damon-abi.md section 6), so that a
 * name outside them can be told for a typo and one inside for a feature this kernel lacks,
 * and those this kernel's tracefs has.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace_internal.h"

static const struct {
	const char *name;
	int since;
} damon_events[] = {
	{ "damon_aggregated", DAMONCTL_VERSION(5, 15) },
	{ "damos_before_apply", DAMONCTL_VERSION(6, 7) },
	{ "damon_monitor_intervals_tune", DAMONCTL_VERSION(6, 17) },
	{ "damos_esz", DAMONCTL_VERSION(6, 17) },
	{ "damos_stat_after_apply_interval", DAMONCTL_VERSION(7, 0) },
	{ "damon_region_aggregated", DAMONCTL_VERSION(7, 2) },
};

DAMONCTL_API const char *damonctl_trace_damon_event(unsigned int i, int *since)
{
	if (i >= sizeof(damon_events) / sizeof(damon_events[0]))
		return NULL;
	if (since)
		*since = damon_events[i].since;
	return damon_events[i].name;
}

DAMONCTL_API int damonctl_trace_kernel_events(struct damonctl_ctx *ctx,
					      int (*fn)(void *data, const char *event),
					      void *data)
{
	char path[4096], rel[512];
	struct dirent *d;
	int r = 0;
	DIR *dir;

	if (damonctl_path(ctx, DAMONCTL_BASE_TRACEFS, "events/damon", path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return errno == ENOTDIR ? -ENOENT : -errno;
	while (!r && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || strlen(d->d_name) >= sizeof(rel) - 7)
			continue;
		snprintf(rel, sizeof(rel), "damon/%s", d->d_name);
		if (damonctl_trace_has_event(ctx, rel))
			r = fn(data, d->d_name);
	}
	closedir(dir);
	return r;
}
