/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transparent huge pages as `damonc metrics` exports them: the library's THP settings and
 * counters (damonctl_thp_read) with the help text of each exported family. Read only.
 */
#ifndef DAMONC_THP_H
#define DAMONC_THP_H

#include "damonc.h"

enum thp_kind {
	THP_MODE = DAMONCTL_THP_MODE,
	THP_NUMBER = DAMONCTL_THP_NUMBER,
	THP_MILLISECONDS = DAMONCTL_THP_MILLISECONDS,
	THP_COUNTER = DAMONCTL_THP_COUNTER,
};

struct thp_file {
	const char *name;	/* the file's name */
	enum thp_kind kind;
	const char *help;
};

#define THP_NR_MODES 3		/* the first files: enabled, defrag, shmem_enabled */
#define THP_NR_FILES 12		/* then khugepaged's, in damonctl_thp_setting_name()'s order */
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

#endif
