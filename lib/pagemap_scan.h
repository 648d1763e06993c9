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

#endif
