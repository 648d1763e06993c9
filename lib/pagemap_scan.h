/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A process's page tables, read through its /proc/PID/pagemap: the PAGEMAP_SCAN ioctl's ABI
 * (include/uapi/linux/fs.h, 6.7) for build hosts whose headers predate it, and a process's
 * /proc file opened (hugepage.c's huge ranges, hugepage_meter.c's counts).
 */
#ifndef DCTL_PAGEMAP_SCAN_H
#define DCTL_PAGEMAP_SCAN_H

#include <stdint.h>
#include <sys/ioctl.h>

#include "internal.h"

#ifndef PAGEMAP_SCAN
struct page_region {
	uint64_t start, end, categories;
};

struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_PFNZERO (1 << 5)
#define PAGE_IS_HUGE (1 << 6)
#endif

/* /proc/@pid/@name opened read-only: a fd, -ESRCH when there is no such process, -errno. */
int dctl_open_pid_file(struct damonctl_ctx *ctx, int pid, const char *name);

/* The huge (PMD-mapped) ranges of @pid that the meter's last walk found, sorted and merged:
 * 0 and *@r, *@nr (valid until the meter's next read), or -ENOENT where it has none (not one
 * of its pids, gone, or measured with smaps_rollup). */
int dctl_hugepage_meter_ranges(const struct damonctl_hugepage_meter *m, int pid,
			       const uint64_t (**r)[2], size_t *nr);
/* damonctl_hugepage_plan_observe() with the huge ranges of @pid given (@huge, @nr_huge:
 * sorted, as dctl_hugepage_meter_ranges() gives them) instead of walked; NULL: walked. */
int dctl_hugepage_plan_observe_huge(struct damonctl_ctx *ctx, struct damonctl_hugepage_plan *p,
				    int pid, const struct damonctl_rec_region *regions, size_t nr,
				    const uint64_t pattern[DAMONCTL_PAT_NR],
				    const uint64_t (*huge)[2], size_t nr_huge);

#endif
