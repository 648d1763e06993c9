/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space fallbacks for huge-page features the kernel lacks, planned at `start`:
 *
 * - a hugepage_mem_bp goal (queued for 7.4) becomes a user_input goal with the same target,
 *   whose current value the damonc agent measures (as the kernel would define it) and feeds
 *   with commit_schemes_quota_goals every quota interval; the kernel's tuner does the rest;
 * - the collapse action (7.2) becomes a stat scheme with the same access pattern; the agent
 *   reads the regions it matched (tried_regions) and collapses them itself with
 *   process_madvise(MADV_COLLAPSE), hottest first, within the scheme's quota and until its
 *   hugepage_mem_bp goal, if any, is met.
 *
 * The plan is stored with the started kdamond (started.h), so the agent, `status` and
 * `report hugepage` know which parts the kernel serves and which the agent does.
 */
#ifndef DAMONC_FALLBACK_H
#define DAMONC_FALLBACK_H

#include "damonc.h"

#define MAX_FALLBACKS 16

enum fb_kind {
	FB_HUGEPAGE_GOAL,	/* feed goal `goal` of scheme `scheme` with the measured ratio */
	FB_COLLAPSE,		/* collapse what scheme `scheme` (a stat scheme) matches */
};

struct fallback {
	enum fb_kind kind;
	unsigned int scheme;	/* in context 0 */
	unsigned int goal;	/* FB_HUGEPAGE_GOAL */
	unsigned int target;	/* FB_COLLAPSE: the target (index) whose regions are collapsed */
	uint64_t target_bp;	/* the hugepage_mem_bp goal; 0: none (FB_COLLAPSE only) */
	bool scope_pid;		/* measure over the target processes instead of the system */
	/* FB_COLLAPSE: the scheme's quota, enforced by the agent */
	uint64_t quota_ms, quota_bytes;
	uint64_t reset_ms;	/* the quota interval: the agent's round */
};

struct fallbacks {
	unsigned int nr;
	struct fallback fb[MAX_FALLBACKS];
};

/*
 * Rewrite kdamond @k so that this kernel (@f) can run it, and fill @out with what the agent
 * must do. Returns 0 (out->nr may be 0), -EOPNOTSUPP with @why when no fallback exists
 * (e.g. collapse on a kernel without tried_regions), or -EINVAL with @why.
 */
int fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
		  const struct damonctl_features *f, bool scope_pid, struct fallbacks *out,
		  char *why, size_t size);
/* "hugepage_mem_bp goal fed by the agent; collapse by process_madvise" */
void fallback_describe(const struct fallbacks *fbs, char *buf, size_t size);
json_object *fallback_to_json(const struct fallbacks *fbs);
int fallback_from_json(json_object *arr, struct fallbacks *fbs);
/* The ratio a goal of @scope_pid measures (damonctl_hugepage_measure): over @pids, or
 * system-wide. */
int fallback_measure(struct damonctl_ctx *ctx, bool scope_pid, const int *pids,
		     unsigned int nr_pids, uint64_t *huge, uint64_t *used);

#endif
