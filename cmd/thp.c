// SPDX-License-Identifier: GPL-2.0-or-later
/* Transparent huge page settings and counters (see thp.h). */
#include <stdlib.h>
#include <string.h>

#include "thp.h"

#define KH "kernel/mm/transparent_hugepage/khugepaged/"

const struct thp_file thp_files[THP_NR_FILES] = {
	{ "enabled", "kernel/mm/transparent_hugepage/enabled", THP_MODE,
	  "THP mode for anonymous memory" },
	{ "defrag", "kernel/mm/transparent_hugepage/defrag", THP_MODE,
	  "THP defragmentation mode at page faults" },
	{ "shmem_enabled", "kernel/mm/transparent_hugepage/shmem_enabled", THP_MODE,
	  "THP mode for shmem and tmpfs" },
	{ "defrag", KH "defrag", THP_NUMBER,
	  "whether khugepaged may reclaim and compact to allocate huge pages (1) or not (0)" },
	{ "pages_to_scan", KH "pages_to_scan", THP_NUMBER,
	  "pages khugepaged scans per pass" },
	{ "scan_sleep_millisecs", KH "scan_sleep_millisecs", THP_MILLISECONDS,
	  "khugepaged's sleep between passes" },
	{ "alloc_sleep_millisecs", KH "alloc_sleep_millisecs", THP_MILLISECONDS,
	  "khugepaged's sleep after a failed huge page allocation" },
	{ "max_ptes_none", KH "max_ptes_none", THP_NUMBER,
	  "unmapped small pages khugepaged allows in a range it collapses" },
	{ "max_ptes_swap", KH "max_ptes_swap", THP_NUMBER,
	  "swapped-out small pages khugepaged allows in a range it collapses" },
	{ "max_ptes_shared", KH "max_ptes_shared", THP_NUMBER,
	  "shared small pages khugepaged allows in a range it collapses" },
	{ "pages_collapsed", KH "pages_collapsed", THP_COUNTER,
	  "huge pages khugepaged has collapsed" },
	{ "full_scans", KH "full_scans", THP_COUNTER,
	  "full scans of the memory khugepaged has made" },
};

const char *const thp_vmstat_names[THP_NR_VMSTAT] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
	"thp_collapse_alloc_failed", "thp_file_alloc", "thp_split_page",
	"thp_split_page_failed", "thp_deferred_split_page", "thp_split_pmd",
	"thp_zero_page_alloc", "thp_swpout", "thp_swpout_fallback",
};

void thp_read(struct damonctl_ctx *ctx, struct thp_state *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < THP_NR_FILES; i++)
		st->has[i] = !damonctl_sys_read_setting(ctx, thp_files[i].rel, st->value[i],
							sizeof(st->value[i]));
	damonctl_vmstat_read(ctx, thp_vmstat_names, st->vmstat, THP_NR_VMSTAT);
	damonctl_clear_error(ctx);
}

uint64_t thp_khugepaged_number(const struct thp_state *st, const char *name)
{
	unsigned int i;

	for (i = THP_NR_MODES; i < THP_NR_FILES; i++)
		if (st->has[i] && !strcmp(thp_files[i].name, name))
			return strtoull(st->value[i], NULL, 10);
	return 0;
}
