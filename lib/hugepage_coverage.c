// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Access coverage of huge pages: the share of the accesses DAMON observed that fall in huge
 * pages, each region weighing its nr_accesses times its bytes (a region accessed twice as
 * often counts twice as much), of which the bytes that lie in huge pages are covered. Huge
 * pages pay through the TLB, so this, not the share of memory made huge, says what a budget
 * buys. The huge ranges are the meter's (hugepage_meter.c keeps them from its last walk):
 * reading the coverage walks nothing.
 */
#include <errno.h>
#include <string.h>

#include "pagemap_scan.h"

/* The first of the sorted, disjoint ranges @r that ends after @addr (@nr when none does). */
static size_t first_ending_after(const uint64_t (*r)[2], size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid][1] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The bytes of [@start, @end) that lie in the sorted, disjoint ranges @r. */
static uint64_t bytes_in(const uint64_t (*r)[2], size_t nr, uint64_t start, uint64_t end)
{
	uint64_t sum = 0;
	size_t i;

	for (i = first_ending_after(r, nr, start); i < nr && r[i][0] < end; i++) {
		uint64_t a = r[i][0] > start ? r[i][0] : start;
		uint64_t b = r[i][1] < end ? r[i][1] : end;

		sum += b - a;
	}
	return sum;
}

static bool sorted_disjoint(const uint64_t (*r)[2], size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (r[i][0] >= r[i][1] || (i && r[i][0] < r[i - 1][1]))
			return false;
	return true;
}

static bool usable(const struct damonctl_hugepage_coverage *c)
{
	return c && c->sz >= sizeof(*c);
}

DAMONCTL_API int damonctl_hugepage_coverage_add(struct damonctl_hugepage_coverage *c,
						const struct damonctl_rec_region *regions,
						size_t nr, const uint64_t (*huge)[2],
						size_t nr_huge)
{
	size_t i;

	if (!usable(c) || (nr && !regions) || (nr_huge && !huge) ||
	    !sorted_disjoint(huge, nr_huge))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		const struct damonctl_rec_region *rg = &regions[i];
		uint64_t h;

		if (rg->end <= rg->start)
			continue;
		h = bytes_in(huge, nr_huge, rg->start, rg->end);
		c->bytes += rg->end - rg->start;
		c->huge_bytes += h;
		/* doubles: nr_accesses x bytes passes 2^64 on a big target sampled often */
		c->accessed += (double)rg->nr_accesses * (double)(rg->end - rg->start);
		c->accessed_huge += (double)rg->nr_accesses * (double)h;
	}
	return 0;
}

DAMONCTL_API int damonctl_hugepage_coverage_merge(struct damonctl_hugepage_coverage *into,
						  const struct damonctl_hugepage_coverage *c)
{
	if (!usable(into) || !usable(c))
		return -EINVAL;
	into->bytes += c->bytes;
	into->huge_bytes += c->huge_bytes;
	into->accessed += c->accessed;
	into->accessed_huge += c->accessed_huge;
	return 0;
}

DAMONCTL_API int damonctl_hugepage_coverage_bp(const struct damonctl_hugepage_coverage *c,
					       uint64_t *bp)
{
	double r;

	if (!usable(c) || !bp)
		return -EINVAL;
	/* no access observed: no share of none (neither 0 nor 10000) */
	if (!(c->accessed > 0))
		return -ENODATA;
	r = c->accessed_huge / c->accessed * 10000.0;
	*bp = r >= 10000.0 ? 10000 : (uint64_t)r;
	return 0;
}

DAMONCTL_API int damonctl_hugepage_meter_coverage(const struct damonctl_hugepage_meter *m,
						  int pid,
						  const struct damonctl_rec_region *regions,
						  size_t nr, struct damonctl_hugepage_coverage *c)
{
	const uint64_t (*huge)[2];
	size_t nr_huge;
	int r;

	if (!m || !usable(c))
		return -EINVAL;
	r = dctl_hugepage_meter_ranges(m, pid, &huge, &nr_huge);
	if (r)
		return r;
	return damonctl_hugepage_coverage_add(c, regions, nr, huge, nr_huge);
}
