/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transparent huge pages as damonc reports them (report hugepage, metrics): the THP modes
 * and khugepaged's settings and counters under <sysroot>/sys/kernel/mm/transparent_hugepage,
 * and the THP counters of /proc/vmstat. Read only: damonc never changes them.
 */
#ifndef DAMONC_THP_H
#define DAMONC_THP_H

#include "damonc.h"

enum thp_kind {
	THP_MODE,		/* "always [madvise] never": the bracketed one is in force */
	THP_NUMBER,		/* a setting */
	THP_MILLISECONDS,	/* a setting, in ms */
	THP_COUNTER,		/* counts up from boot */
};

struct thp_file {
	const char *name;	/* the file's name */
	const char *rel;	/* under <sysroot>/sys */
	enum thp_kind kind;
	const char *help;
};

#define THP_NR_MODES 3		/* the first files: enabled, defrag, shmem_enabled */
#define THP_NR_FILES 12		/* then khugepaged's */
#define THP_NR_VMSTAT 12
extern const struct thp_file thp_files[THP_NR_FILES];
extern const char *const thp_vmstat_names[THP_NR_VMSTAT];

struct thp_state {
	char value[THP_NR_FILES][64];
	bool has[THP_NR_FILES];		/* files this kernel lacks are left out */
	uint64_t vmstat[THP_NR_VMSTAT];
};

/* The settings as selected ("madvise", not "always [madvise] never") and the counters. */
void thp_read(struct damonctl_ctx *ctx, struct thp_state *st);
/* The number in khugepaged's file @name ("pages_collapsed"); 0 when it is not there. */
uint64_t thp_khugepaged_number(const struct thp_state *st, const char *name);

#endif
