/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What user space can learn about the pages of a range of a target process: which are
 * present, which are mapped by transparent huge pages, which mappings are anonymous. The
 * kernel walks page tables for this; the emulator asks /proc/PID/pagemap.
 */
#ifndef DAMON_EMU_PAGES_H
#define DAMON_EMU_PAGES_H

#include "ctx.h"

struct page_run {
	uint64_t start, end;
	bool huge;		/* PMD-mapped THP (or hugetlb): 2 MiB folios */
	bool anon;		/* of an anonymous mapping */
};

/*
 * Calls @fn for each run of present pages of @t in [start, end), in address order. Returns
 * 0, or -errno if the pages could not be read (the process is gone, or no permission).
 */
int pages_walk_present(struct mon_ctx *c, struct mon_target *t, uint64_t start, uint64_t end,
		       void (*fn)(const struct page_run *run, void *arg), void *arg);

#endif
