// SPDX-License-Identifier: GPL-2.0-or-later
/* Transparent huge page settings and counters for metrics (see thp.h). */
#include <string.h>

#include "thp.h"

const struct thp_file thp_files[THP_NR_FILES] = {
	{ "enabled", THP_MODE, "THP mode for anonymous memory" },
	{ "defrag", THP_MODE, "THP defragmentation mode at page faults" },
	{ "shmem_enabled", THP_MODE, "THP mode for shmem and tmpfs" },
	{ "defrag", THP_NUMBER,
	  "whether khugepaged may reclaim and compact to allocate huge pages (1) or not (0)" },
	{ "pages_to_scan", THP_NUMBER, "pages khugepaged scans per pass" },
	{ "scan_sleep_millisecs", THP_MILLISECONDS, "khugepaged's sleep between passes" },
	{ "alloc_sleep_millisecs", THP_MILLISECONDS,
	  "khugepaged's sleep after a failed huge page allocation" },
	{ "max_ptes_none", THP_NUMBER,
	  "unmapped small pages khugepaged allows in a range it collapses" },
	{ "max_ptes_swap", THP_NUMBER,
	  "swapped-out small pages khugepaged allows in a range it collapses" },
	{ "max_ptes_shared", THP_NUMBER,
	  "shared small pages khugepaged allows in a range it collapses" },
	{ "pages_collapsed", THP_COUNTER, "huge pages khugepaged has collapsed" },
	{ "full_scans", THP_COUNTER, "full scans of the memory khugepaged has made" },
};

const char *const thp_vmstat_names[THP_NR_VMSTAT] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
	"thp_collapse_alloc_failed", "thp_file_alloc", "thp_split_page",
	"thp_split_page_failed", "thp_deferred_split_page", "thp_split_pmd",
	"thp_zero_page_alloc", "thp_swpout", "thp_swpout_fallback",
};

/* The library's settings by name ("khugepaged/defrag" is thp_files' second "defrag"). */
void thp_read(struct damonctl_ctx *ctx, struct thp_state *st)
{
	struct damonctl_thp *t;
	size_t i, j;

	memset(st, 0, sizeof(*st));
	if (damonctl_thp_read(ctx, &t))
		return;
	for (i = 0; i < damonctl_thp_nr_settings(); i++) {
		const char *name = damonctl_thp_setting_name(i, NULL), *v = damonctl_thp_setting(t, i);
		const char *base = strrchr(name, '/');
		bool kh = base != NULL;

		for (j = kh ? THP_NR_MODES : 0; v && j < (kh ? THP_NR_FILES : THP_NR_MODES); j++)
			if (!strcmp(thp_files[j].name, kh ? base + 1 : name))
				st->has[j] = snprintf(st->value[j], sizeof(st->value[j]), "%s", v) >= 0;
	}
	for (i = 0; i < damonctl_thp_nr_vmstat(); i++)
		for (j = 0; j < THP_NR_VMSTAT; j++)
			if (!strcmp(thp_vmstat_names[j], damonctl_thp_vmstat_name(i)))
				st->vmstat[j] = damonctl_thp_vmstat(t, i);
	damonctl_thp_free(t);
}
