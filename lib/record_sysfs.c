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

/* @buf of @*cap elements of @size grown to hold @n; 0 or -ENOMEM. */
static int grow(void **buf, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap)
		return 0;
	p = realloc(*buf, n * size);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

/* What the reading of one region needs and finds. */
struct region_read {
	int fd;
	unsigned int np;		/* probes to read the hits of */
	bool want_sz, has_sz;		/* sz_filter_passed: asked for, and found so far */
	char file[48];			/* the file read last, for the error */
};

/* Region directory @idx into @rg (and its probe hits into @hits). 0 or -errno. */
static int read_region(struct region_read *rr, unsigned int idx, bool first,
		       struct damonctl_rec_region *rg, uint8_t *hits)
{
	uint64_t na, age;
	int r;

	memset(rg, 0, sizeof(*rg));
#define RD(name, dst)								\
	snprintf(rr->file, sizeof(rr->file), "%u/" name, idx);			\
	r = read_u64(rr->fd, rr->file, dst);					\
	if (r)									\
		return r;
	RD("start", &rg->start)
	RD("end", &rg->end)
	RD("nr_accesses", &na)
	RD("age", &age)
#undef RD
	rg->nr_accesses = na > UINT32_MAX ? UINT32_MAX : (uint32_t)na;
	rg->age = age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
	/* a kernel without the file shows it at the first region already */
	if (rr->want_sz && (first || rr->has_sz)) {
		snprintf(rr->file, sizeof(rr->file), "%u/sz_filter_passed", idx);
		r = read_u64(rr->fd, rr->file, &rg->sz_filter_passed);
		if (r && r != -ENOENT)
			return r;
		rr->has_sz = !r;
	}
	return rr->np ? read_hits(rr->fd, idx, rr->np, hits, rr->file, sizeof(rr->file)) : 0;
}

int dctl_tried_regions_read(struct damonctl_ctx *ctx, unsigned int kdamond, unsigned int context,
			    unsigned int scheme, struct damonctl_rec_region **regions,
			    size_t *cap, uint64_t *total_bytes, bool *has_sz_filter_passed,
			    struct dctl_probe_hits *ph)
{
	struct region_read rr = { .want_sz = has_sz_filter_passed != NULL };
	unsigned int *idx = NULL;
	uint64_t total = 0, v;
	size_t nr = 0, i;
	char rel[128];
	bool has_total;
	int r;

	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/%u/schemes/%u/tried_regions", kdamond,
		 context, scheme);
	rr.fd = dctl_admin_open(ctx, rel);
	if (rr.fd < 0)
		return rr.fd;
	r = read_u64(rr.fd, "total_bytes", &v);
	has_total = !r;
	if (r && r != -ENOENT)
		goto out;
	r = dctl_list_indexes(rr.fd, ".", &idx, &nr);
	if (!r && nr > INT32_MAX)
		r = -E2BIG;
	if (!r)
		r = grow((void **)regions, cap, nr, sizeof(**regions));
	if (!r && ph)
		rr.np = nr ? nr_probes(ctx, kdamond, context) : 0;
	if (!r && rr.np)
		r = grow((void **)&ph->hits, &ph->cap, nr * rr.np, 1);
	if (r)
		goto out;
	for (i = 0; i < nr; i++) {
		r = read_region(&rr, idx[i], i == 0, &(*regions)[i],
				rr.np ? ph->hits + i * rr.np : NULL);
		if (r) {
			snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/%s", rr.file);
			dctl_set_error(ctx, r, false, rel, "");
			goto out;
		}
		total += (*regions)[i].end - (*regions)[i].start;
	}
	*total_bytes = has_total ? v : total;
	if (has_sz_filter_passed)
		*has_sz_filter_passed = rr.has_sz;
	if (ph)
		ph->nr_probes = rr.np;
	r = (int)nr;
out:
	/* a region's own failure named its file already */
	if (r < 0 && (!ctx->have_err || ctx->err.err != r))
		dctl_set_error(ctx, r, false, rel, "");
	free(idx);
	close(rr.fd);
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
