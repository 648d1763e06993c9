/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What khugepaged's scans find, for `report hugepage --khugepaged-trace TIME`: the
 * huge_memory:mm_khugepaged_scan_pmd trace event (one per PMD-sized range khugepaged
 * scans, with why it collapsed it or not), read for a while in a tracefs instance of our
 * own, counted by outcome.
 */
#ifndef DAMONC_KHUGEPAGED_H
#define DAMONC_KHUGEPAGED_H

#include "damonc.h"

#define KHP_MAX_STATUS 24

struct khp_scans {
	uint64_t duration_us;
	uint64_t scans;			/* events seen */
	unsigned int nr;
	struct {
		char status[48];	/* "succeeded", "no_referenced_page", ... */
		uint64_t count;
	} by[KHP_MAX_STATUS];
};

/* Whether this kernel's tracefs has the event. */
bool khugepaged_trace_available(struct damonctl_ctx *ctx);
/* Count the scans for @duration_us; -errno (-ENOENT: no tracefs or no event). */
int khugepaged_trace(struct damonctl_ctx *ctx, uint64_t duration_us, struct khp_scans *out);

#endif
