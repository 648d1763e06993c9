// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The physical address layout: /proc/iomem's top-level resources cut where the memory
 * blocks of /sys/devices/system/node/node<N>/memory<M> (CONFIG_MEMORY_HOTPLUG) change node
 * or state. It is what paddr monitoring needs to know: which ranges are System RAM, and on
 * which NUMA node (damo's pa_layout).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct pa_range {
	uint64_t start, end;
	int node;		/* -1: no memory block covers it */
	char state[16];		/* the block's: online, offline, ... ("" without a block) */
	char resource[64];
};

struct damonctl_pa_layout {
	struct pa_range *v;
	size_t nr, cap;
};

/* memory blocks, merged into runs of one node and state */
struct block_run {
	uint64_t first, last;	/* block indexes */
	int node;
	char state[16];
};

static int push_range(struct damonctl_pa_layout *l, const struct pa_range *r)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		void *p = realloc(l->v, cap * sizeof(*l->v));

		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = cap;
	}
	l->v[l->nr++] = *r;
	return 0;
}

static int by_first(const void *a, const void *b)
{
	const struct block_run *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* One node directory's memory blocks, appended to *runs (one run per block). */
static int node_blocks(struct damonctl_ctx *ctx, int node, struct block_run **runs, size_t *nr,
		       size_t *cap)
{
	char rel[64], path[PATH_MAX], state[32];
	struct dirent *de;
	unsigned long long m;
	DIR *d;
	int r = 0;

	snprintf(rel, sizeof(rel), "devices/system/node/node%d", node);
	if (damonctl_path(ctx, DAMONCTL_BASE_SYS, rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while (!r && (de = readdir(d))) {
		char tail;

		if (sscanf(de->d_name, "memory%llu%c", &m, &tail) != 1)
			continue;	/* memory_failure and the like */
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/memory%llu/state", node, m);
		if (damonctl_sys_read(ctx, rel, state, sizeof(state)) < 0)
			state[0] = '\0';
		if (*nr == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			void *p = realloc(*runs, c * sizeof(**runs));

			if (!p) {
				r = -ENOMEM;
				break;
			}
			*runs = p;
			*cap = c;
		}
		(*runs)[*nr].first = (*runs)[*nr].last = m;
		(*runs)[*nr].node = node;
		snprintf((*runs)[(*nr)++].state, sizeof((*runs)->state), "%s", state);
	}
	closedir(d);
	return r;
}

/* Every node's blocks, in runs; none (and 0) without the node or memory directories. */
static int block_runs(struct damonctl_ctx *ctx, struct block_run **out, size_t *nr,
		      uint64_t *block_size)
{
	char path[PATH_MAX], buf[32];
	struct block_run *runs = NULL;
	size_t n = 0, cap = 0, i, j;
	struct dirent *de;
	DIR *d;
	int r = 0, node;
	char tail;

	*out = NULL;
	*nr = 0;
	*block_size = 0;
	if (damonctl_sys_read(ctx, "devices/system/memory/block_size_bytes", buf, sizeof(buf)) < 0)
		return 0;
	*block_size = strtoull(buf, NULL, 16);
	if (damonctl_path(ctx, DAMONCTL_BASE_SYS, "devices/system/node", path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return 0;
	while (!r && (de = readdir(d)))
		if (sscanf(de->d_name, "node%d%c", &node, &tail) == 1)
			r = node_blocks(ctx, node, &runs, &n, &cap);
	closedir(d);
	if (r) {
		free(runs);
		return r;
	}
	qsort(runs, n, sizeof(*runs), by_first);
	for (i = 0, j = 0; i < n; i++) {
		if (j && runs[j - 1].last + 1 == runs[i].first && runs[j - 1].node == runs[i].node &&
		    !strcmp(runs[j - 1].state, runs[i].state))
			runs[j - 1].last = runs[i].last;
		else
			runs[j++] = runs[i];
	}
	*out = runs;
	*nr = j;
	return 0;
}

/* Resource [s, e) named @name, cut at the block runs. */
static int add_resource(struct damonctl_pa_layout *l, uint64_t s, uint64_t e, const char *name,
			const struct block_run *runs, size_t nr, uint64_t bs)
{
	while (s < e) {
		struct pa_range r = { .start = s, .end = e, .node = -1 };
		size_t i;
		int err;

		snprintf(r.resource, sizeof(r.resource), "%s", name);
		for (i = 0; bs && i < nr; i++) {
			uint64_t rs = runs[i].first * bs, re = (runs[i].last + 1) * bs;

			if (rs <= s && s < re) {
				r.end = e < re ? e : re;
				r.node = runs[i].node;
				snprintf(r.state, sizeof(r.state), "%s", runs[i].state);
				break;
			}
			if (s < rs && rs < r.end)
				r.end = rs;	/* uncovered up to the next run */
		}
		err = push_range(l, &r);
		if (err)
			return err;
		s = r.end;
	}
	return 0;
}

DAMONCTL_API int damonctl_pa_layout_read(struct damonctl_ctx *ctx,
					 struct damonctl_pa_layout **out)
{
	struct damonctl_pa_layout *l = calloc(1, sizeof(*l));
	char path[PATH_MAX], line[256], name[64];
	struct block_run *runs = NULL;
	unsigned long long s, e;
	bool all_zero = true;
	size_t nr = 0;
	uint64_t bs;
	FILE *f = NULL;
	int r;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	r = block_runs(ctx, &runs, &nr, &bs);
	if (r)
		goto out;
	if (damonctl_path(ctx, DAMONCTL_BASE_PROC, "iomem", path, sizeof(path)) < 0) {
		r = -ENAMETOOLONG;
		goto out;
	}
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		dctl_set_error(ctx, r, false, path, "");
		goto out;
	}
	while (!r && fgets(line, sizeof(line), f)) {
		/* "100000000-63fffffff : System RAM"; nested resources are indented */
		if (line[0] == ' ' || sscanf(line, "%llx-%llx : %63[^\n]", &s, &e, name) != 3)
			continue;
		if (s || e)
			all_zero = false;
		r = add_resource(l, s, e + 1, name, runs, nr, bs);
	}
	if (!r && l->nr && all_zero)
		r = -EPERM;	/* what a reader without CAP_SYS_ADMIN sees */
out:
	if (f)
		fclose(f);
	free(runs);
	if (r)
		damonctl_pa_layout_free(l);
	else
		*out = l;
	return r;
}

DAMONCTL_API size_t damonctl_pa_layout_nr(const struct damonctl_pa_layout *l)
{
	return l ? l->nr : 0;
}

DAMONCTL_API int damonctl_pa_layout_range(const struct damonctl_pa_layout *l, size_t i,
					  uint64_t *start, uint64_t *end, int *node,
					  const char **state, const char **resource)
{
	if (!l || i >= l->nr)
		return -ERANGE;
	if (start)
		*start = l->v[i].start;
	if (end)
		*end = l->v[i].end;
	if (node)
		*node = l->v[i].node;
	if (state)
		*state = l->v[i].state;
	if (resource)
		*resource = l->v[i].resource;
	return 0;
}

DAMONCTL_API void damonctl_pa_layout_free(struct damonctl_pa_layout *l)
{
	if (!l)
		return;
	free(l->v);
	free(l);
}

DAMONCTL_API int damonctl_node_ram(const struct damonctl_pa_layout *l, int node,
				   uint64_t (*ranges)[2], size_t cap, size_t *nr)
{
	bool any_node = false;
	size_t i, n = 0;
	uint64_t last_end = 0;

	for (i = 0; l && i < l->nr; i++) {
		const struct pa_range *r = &l->v[i];

		any_node |= r->node >= 0;
		if (r->node != node || strncmp(r->resource, "System RAM", 10))
			continue;
		if (n && last_end == r->start) {
			if (n <= cap)
				ranges[n - 1][1] = r->end;
		} else {
			if (n < cap) {
				ranges[n][0] = r->start;
				ranges[n][1] = r->end;
			}
			n++;
		}
		last_end = r->end;
	}
	*nr = n;
	if (!n)
		return any_node ? -ENOENT : -ENODEV;
	return n > cap ? -E2BIG : 0;
}

static int by_start(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The nodes' System RAM into @ranges: in address order, overlapping and adjacent ranges
 * merged, whole pages only. On -ENOENT *nr is the index of the node without any. */
static int nodes_ram(const struct damonctl_pa_layout *l, const int *nodes, size_t nr_nodes,
		     uint64_t (*ranges)[2], size_t cap, size_t *nr)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t i, j, n = 0, got;
	int r;

	for (i = 0; i < nr_nodes; i++) {
		r = damonctl_node_ram(l, nodes[i], ranges + n, cap - n, &got);
		if (r) {
			*nr = i;
			return r;
		}
		n += got;
	}
	qsort(ranges, n, sizeof(ranges[0]), by_start);
	for (i = 0, j = 0; i < n; i++) {
		if (j && ranges[j - 1][1] >= ranges[i][0]) {
			if (ranges[i][1] > ranges[j - 1][1])
				ranges[j - 1][1] = ranges[i][1];
		} else {
			ranges[j][0] = ranges[i][0];
			ranges[j++][1] = ranges[i][1];
		}
	}
	/* DAMON widens a region to pages, which would take in the part of a page that is not
	 * RAM (the 0x9fc00 end of the first range of a PC) */
	for (i = 0, n = j, j = 0; i < n; i++) {
		uint64_t s = (ranges[i][0] + page - 1) / page * page, e = ranges[i][1] / page * page;

		if (s < e) {
			ranges[j][0] = s;
			ranges[j++][1] = e;
		}
	}
	*nr = j;
	return 0;
}

DAMONCTL_API int damonctl_paddr_regions(struct damonctl_ctx *ctx,
					const struct damonctl_pa_layout *l, const int *nodes,
					size_t nr_nodes, uint64_t addr_unit,
					uint64_t (*ranges)[2], size_t cap, size_t *nr)
{
	size_t i, n = 1;
	int r;

	if (!nr_nodes)
		r = cap ? damonctl_system_ram(ctx, &ranges[0][0], &ranges[0][1]) : -E2BIG;
	else
		r = nodes_ram(l, nodes, nr_nodes, ranges, cap, &n);
	if (r == -ENOENT && nr_nodes)
		*nr = n;	/* which node has none */
	if (r)
		return r;
	/* the whole units inside each range */
	for (i = 0; addr_unit > 1 && i < n; i++) {
		ranges[i][0] = ranges[i][0] / addr_unit + !!(ranges[i][0] % addr_unit);
		ranges[i][1] /= addr_unit;
	}
	*nr = n;
	return 0;
}
