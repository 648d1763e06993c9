// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A process's huge pages: its memory figures (smaps_rollup), the ratio a pid-scope
 * hugepage_mem_bp goal measures, and optionally its mappings ranked by huge-page coverage
 * (AnonHugePages over RSS): the few with the most and the few with the least.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define TOP_MAX 64

struct damonctl_hugepage_proc {
	struct damonctl_proc_mem mem;
	size_t top, nr[2];		/* [0]: the least covered, [1]: the most */
	struct damonctl_vma *rank[2];
};

static double coverage(const struct damonctl_vma *v)
{
	return v->rss ? 100.0 * (double)v->anon_huge / (double)v->rss : 0;
}

/* Insert @v into one ranking, kept to @top entries; a tie goes after its equals. */
static void insert_top(struct damonctl_hugepage_proc *p, int most, const struct damonctl_vma *v)
{
	struct damonctl_vma *arr = p->rank[most];
	size_t i, pos = p->nr[most];
	double cv = coverage(v);

	for (i = 0; i < p->nr[most]; i++) {
		double ci = coverage(&arr[i]);

		if (most ? cv > ci : cv < ci) {
			pos = i;
			break;
		}
	}
	if (pos >= p->top)
		return;
	if (p->nr[most] < p->top)
		p->nr[most]++;
	memmove(&arr[pos + 1], &arr[pos], (p->nr[most] - pos - 1) * sizeof(*arr));
	arr[pos] = *v;
}

static int on_vma(void *data, const struct damonctl_vma *v)
{
	struct damonctl_hugepage_proc *p = data;

	/* only mappings that could hold a huge page and hold memory */
	if (v->end - v->start < DAMONCTL_HUGEPAGE_SIZE || !v->rss)
		return 0;
	insert_top(p, 1, v);
	insert_top(p, 0, v);
	return 0;
}

DAMONCTL_API void damonctl_hugepage_proc_free(struct damonctl_hugepage_proc *p)
{
	if (!p)
		return;
	free(p->rank[0]);
	free(p->rank[1]);
	free(p);
}

DAMONCTL_API int damonctl_hugepage_proc_read(struct damonctl_ctx *ctx, int pid, size_t top,
					     struct damonctl_hugepage_proc **out)
{
	struct damonctl_hugepage_proc *p;
	int r;

	if (!ctx || !out || top > TOP_MAX)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->top = top;
	if (top && (!(p->rank[0] = calloc(top, sizeof(*p->rank[0]))) ||
		    !(p->rank[1] = calloc(top, sizeof(*p->rank[1]))))) {
		damonctl_hugepage_proc_free(p);
		return -ENOMEM;
	}
	r = damonctl_proc_mem_read(ctx, pid, &p->mem);
	/* the mappings are a bonus: a process that ends meanwhile keeps its figures */
	if (!r && top)
		damonctl_proc_vmas(ctx, pid, on_vma, p);
	if (r) {
		damonctl_hugepage_proc_free(p);
		return r;
	}
	*out = p;
	return 0;
}

DAMONCTL_API const struct damonctl_proc_mem *
damonctl_hugepage_proc_mem(const struct damonctl_hugepage_proc *p)
{
	return &p->mem;
}

DAMONCTL_API uint64_t damonctl_hugepage_proc_bp(const struct damonctl_hugepage_proc *p)
{
	return damonctl_hugepage_bp(damonctl_proc_mem_huge(&p->mem), p->mem.rss);
}

DAMONCTL_API size_t damonctl_hugepage_proc_nr_vmas(const struct damonctl_hugepage_proc *p,
						   bool most)
{
	return p->nr[most];
}

DAMONCTL_API const struct damonctl_vma *
damonctl_hugepage_proc_vma(const struct damonctl_hugepage_proc *p, bool most, size_t i)
{
	return i < p->nr[most] ? &p->rank[most][i] : NULL;
}
