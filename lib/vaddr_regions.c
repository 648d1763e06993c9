// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The regions DAMON's vaddr operations give a process when they start monitoring it
 * (damon_va_three_regions() in mm/damon/vaddr.c): its mappings as one range, less the two
 * largest gaps between them. A target added to a running kdamond gets them written with it;
 * without regions it would be monitored only from the next update interval on (60 s by
 * default).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct spans {
	uint64_t (*r)[2];
	size_t n, cap;
	int err;
};

static int add_span(void *data, const struct damonctl_vma *v)
{
	struct spans *s = data;

	/* the gate area shows in the maps, but is no mapping of the process's own */
	if (!strcmp(v->name, "[vsyscall]"))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t (*r)[2] = realloc(s->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->r = r;
		s->cap = cap;
	}
	s->r[s->n][0] = v->start;
	s->r[s->n][1] = v->end;
	s->n++;
	return 0;
}

DAMONCTL_API int damonctl_proc_init_regions(struct damonctl_ctx *ctx, int pid,
					    uint64_t regions[3][2])
{
	struct spans s = { 0 };
	uint64_t gap[2][2] = { { 0, 0 }, { 0, 0 } };	/* the largest, then the second */
	size_t i;
	int r = damonctl_proc_vmas(ctx, pid, add_span, &s), n = 0;

	if (r || !s.n) {
		free(s.r);
		return r;
	}
	for (i = 1; i < s.n; i++) {
		uint64_t gs = s.r[i - 1][1], ge = s.r[i][0];

		if (ge <= gs)
			continue;
		if (ge - gs > gap[0][1] - gap[0][0]) {
			memcpy(gap[1], gap[0], sizeof(gap[0]));
			gap[0][0] = gs;
			gap[0][1] = ge;
		} else if (ge - gs > gap[1][1] - gap[1][0]) {
			gap[1][0] = gs;
			gap[1][1] = ge;
		}
	}
	/* the gaps in address order; an empty one (fewer gaps) goes last */
	if (gap[1][1] > gap[1][0] && gap[1][0] < gap[0][0]) {
		uint64_t t[2];

		memcpy(t, gap[0], sizeof(t));
		memcpy(gap[0], gap[1], sizeof(t));
		memcpy(gap[1], t, sizeof(t));
	}
	regions[n][0] = s.r[0][0];
	for (i = 0; i < 2 && gap[i][1] > gap[i][0]; i++) {
		regions[n++][1] = gap[i][0];
		regions[n][0] = gap[i][1];
	}
	regions[n++][1] = s.r[s.n - 1][1];
	free(s.r);
	return n;
}

DAMONCTL_API int damonctl_target_seed_regions(struct damonctl_ctx *ctx,
					      struct damonctl_target *t, int pid)
{
	uint64_t r[3][2];
	int i, n = damonctl_proc_init_regions(ctx, pid, r);

	/* cleared in any case: the regions a target had may be another process's */
	damonctl_target_clear_regions(t);
	for (i = 0; i < n; i++) {
		int e = damonctl_target_add_region(t, r[i][0], r[i][1]);

		if (e)
			return e;
	}
	return n;
}
