// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A scheme's tried regions read straight into an array, without building a model: this is
 * what `damonc record` pays per snapshot, so it costs one openat/read/close per file and one
 * directory listing, and nothing else. 7.2's probe hits (tried_regions/<R>/probes/<P>/hits)
 * are read only for a capture that asks for them, and only when the context has probes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static int read_u64(int dirfd, const char *file, uint64_t *v)
{
	char buf[32];
	int r = dctl_read_at(dirfd, file, buf, sizeof(buf));

	if (r < 0)
		return r;
	return dctl_kstrtou64(buf, v) ? -EBADMSG : 0;
}

/* How many probes context @context of kdamond @kdamond has (0 before 7.2). */
static unsigned int nr_probes(struct damonctl_ctx *ctx, unsigned int kdamond,
			      unsigned int context)
{
	char rel[128], buf[32];
	uint64_t n;

	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/%u/monitoring_attrs/probes/nr_probes",
		 kdamond, context);
	if (damonctl_read(ctx, rel, buf, sizeof(buf)) || dctl_kstrtou64(buf, &n) ||
	    n > DCTL_MAX_PROBE_HITS) {
		damonctl_clear_error(ctx);
		return 0;
	}
	return (unsigned int)n;
}

/* The hits of region directory @idx's @np probes into @h; a probe directory gone meanwhile
 * reads as no hit. 0 or -errno, @file naming the file that failed. */
static int read_hits(int fd, unsigned int idx, unsigned int np, uint8_t *h, char *file,
		     size_t size)
{
	for (unsigned int p = 0; p < np; p++) {
		uint64_t v;
		int r;

		snprintf(file, size, "%u/probes/%u/hits", idx, p);
		r = read_u64(fd, file, &v);
		if (r && r != -ENOENT)
			return r;
		h[p] = r ? 0 : v > 255 ? 255 : (uint8_t)v;
	}
	return 0;
}

int dctl_tried_regions_read(struct damonctl_ctx *ctx, unsigned int kdamond, unsigned int context,
			    unsigned int scheme, struct damonctl_rec_region **regions,
			    size_t *cap, uint64_t *total_bytes, bool *has_sz_filter_passed,
			    struct dctl_probe_hits *ph)
{
	char rel[128], file[48];
	unsigned int *idx = NULL;
	size_t nr = 0, i;
	uint64_t total = 0, v;
	bool has_total, has_sz = false;
	unsigned int np = 0;
	int fd, r;

	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/%u/schemes/%u/tried_regions", kdamond,
		 context, scheme);
	fd = dctl_admin_open(ctx, rel);
	if (fd < 0)
		return fd;
	r = read_u64(fd, "total_bytes", &v);
	has_total = !r;
	if (r && r != -ENOENT)
		goto out;
	r = dctl_list_indexes(fd, ".", &idx, &nr);
	if (r)
		goto out;
	if (nr > INT32_MAX) {
		r = -E2BIG;
		goto out;
	}
	if (nr > *cap) {
		void *p = realloc(*regions, nr * sizeof(**regions));

		if (!p) {
			r = -ENOMEM;
			goto out;
		}
		*regions = p;
		*cap = nr;
	}
	if (ph)
		np = nr ? nr_probes(ctx, kdamond, context) : 0;
	if (np && nr * np > ph->cap) {
		void *p = realloc(ph->hits, nr * np);

		if (!p) {
			r = -ENOMEM;
			goto out;
		}
		ph->hits = p;
		ph->cap = nr * np;
	}
	for (i = 0; i < nr; i++) {
		struct damonctl_rec_region *rg = &(*regions)[i];
		uint64_t na, age;

		memset(rg, 0, sizeof(*rg));
#define RD(name, dst)								\
		snprintf(file, sizeof(file), "%u/" name, idx[i]);		\
		r = read_u64(fd, file, dst);					\
		if (r)								\
			break;
		RD("start", &rg->start)
		RD("end", &rg->end)
		RD("nr_accesses", &na)
		RD("age", &age)
#undef RD
		rg->nr_accesses = na > UINT32_MAX ? UINT32_MAX : (uint32_t)na;
		rg->age = age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
		if (has_sz_filter_passed && (i == 0 || has_sz)) {
			snprintf(file, sizeof(file), "%u/sz_filter_passed", idx[i]);
			r = read_u64(fd, file, &rg->sz_filter_passed);
			if (r && r != -ENOENT)
				break;
			has_sz = !r;
			r = 0;
		}
		if (np) {
			r = read_hits(fd, idx[i], np, ph->hits + i * np, file, sizeof(file));
			if (r)
				break;
		}
		total += rg->end - rg->start;
	}
	if (r) {
		snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/%s", file);
		dctl_set_error(ctx, r, false, rel, "");
		goto out;
	}
	*total_bytes = has_total ? v : total;
	if (has_sz_filter_passed)
		*has_sz_filter_passed = has_sz;
	if (ph)
		ph->nr_probes = np;
	r = (int)nr;
out:
	if (r < 0 && r != -ENOENT)
		dctl_set_error(ctx, r, false, rel, "");
	free(idx);
	close(fd);
	return r;
}

DAMONCTL_API int damonctl_tried_regions_read(struct damonctl_ctx *ctx, unsigned int kdamond,
					     unsigned int context, unsigned int scheme,
					     struct damonctl_rec_region **regions, size_t *cap,
					     uint64_t *total_bytes, bool *has_sz_filter_passed)
{
	return dctl_tried_regions_read(ctx, kdamond, context, scheme, regions, cap, total_bytes,
				       has_sz_filter_passed, NULL);
}
