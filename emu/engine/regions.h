/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Region bookkeeping of a target: insertion, splitting, merging and fitting to address
 * ranges, with the kernel's rules (mm/damon/core.c: damon_set_regions,
 * damon_merge_regions_of, damon_split_regions_of, damon_apply_min_nr_regions).
 */
#ifndef DAMON_EMU_REGIONS_H
#define DAMON_EMU_REGIONS_H

#include "ctx.h"

struct mon_range {
	uint64_t start, end;
};

int reg_insert(struct mon_target *t, size_t idx, const struct mon_region *r);
void reg_remove(struct mon_target *t, size_t idx);
/* Splits region @idx so that it keeps the first @sz bytes; the rest becomes @idx + 1. */
int reg_split_at(struct mon_target *t, size_t idx, uint64_t sz);
/* Fits the regions to @ranges (sorted, non-overlapping), aligned to @min_sz. */
int reg_set_ranges(struct mon_target *t, const struct mon_range *ranges, size_t n,
		   uint64_t min_sz);

/* Upper size limit of each region so that min_nr_regions can hold. */
uint64_t mon_region_sz_limit(const struct mon_ctx *c);
/* Splits regions larger than that limit; returns the limit. */
uint64_t mon_apply_min_nr_regions(struct mon_ctx *c);
/* Per-aggregation merge of regions with similar access counts; ages the regions. */
void mon_merge_regions(struct mon_ctx *c, unsigned int threshold, uint64_t sz_limit);
/* Per-aggregation random split while there are few regions. */
void mon_split_regions(struct mon_ctx *c);
size_t mon_nr_regions(const struct mon_ctx *c);

#endif
