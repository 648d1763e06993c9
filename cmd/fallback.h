/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the damonc agent does for a kdamond, planned at `start` (and at `tune` when a goal
 * arrives):
 *
 * - a hugepage_mem_bp goal the kernel cannot measure (before 7.4, or over the target
 *   processes rather than the system) becomes a user_input goal with the same target, whose
 *   current value the agent measures (damonctl_hugepage_measure) and feeds with
 *   commit_schemes_quota_goals;
 * - a collapse scheme becomes a collapse budget counted in huge pages. A stat scheme that
 *   matches every region of the target (the observer) lets the agent see DAMON's regions
 *   (tried_regions); its collapse plan (damonctl_hugepage_plan) picks the hot, confirmed,
 *   still small 2 MiB pages, hottest first, as many as bring the ratio nearest the goal, and
 *   - where the kernel has the collapse action (7.2), the kernel collapses them: the agent
 *     lets the collapse scheme act on those pages only (addr allow filters, committed
 *     online), none once the goal is met;
 *   - where it has not, the collapse scheme becomes a stat scheme with the same access
 *     pattern and the agent collapses them itself with process_madvise(MADV_COLLAPSE),
 *     within the scheme's quota.
 *   Without a goal, the agent collapses (6.2-7.1) every confirmed hot page within the
 *   quota; on 7.2+ a collapse scheme without a goal is the kernel's alone.
 *
 * The plan is stored with the started kdamond (started.h), so the agent, `status` and
 * `report hugepage` know which parts the kernel serves and which the agent does.
 */
#ifndef DAMONC_FALLBACK_H
#define DAMONC_FALLBACK_H

#include "damonc.h"

#define MAX_FALLBACKS 48

enum fb_kind {
	FB_HUGEPAGE_GOAL,	/* feed goal `goal` of scheme `scheme` with the measured ratio */
	FB_COLLAPSE,		/* a collapse budget for target `target` (see above) */
};

struct fallback {
	enum fb_kind kind;
	/* FB_HUGEPAGE_GOAL: the scheme with the goal. FB_COLLAPSE: the collapse scheme, the
	 * kernel's (by_kernel) or the stat scheme standing in for it */
	unsigned int scheme;
	unsigned int goal;	/* FB_HUGEPAGE_GOAL */
	unsigned int observer;	/* FB_COLLAPSE: the stat scheme matching every region */
	unsigned int tmpl;	/* FB_COLLAPSE: the user's scheme it was made from (per-target
				 * copies share it: tune changes them together) */
	unsigned int target;	/* FB_COLLAPSE: the target (index) whose memory it collapses */
	bool by_kernel;		/* FB_COLLAPSE: the kernel collapses what the agent allows */
	uint64_t target_bp;	/* the hugepage_mem_bp goal; 0: none (FB_COLLAPSE only) */
	bool scope_pid;		/* measure over the target processes instead of the system */
	/* FB_COLLAPSE by the agent: the scheme's quota, enforced by the agent. By the kernel:
	 * quota_bytes is the user's size quota, which the agent puts back when it allows
	 * something (see FB_CLOSED_QUOTA_BYTES) */
	uint64_t quota_ms, quota_bytes;
	uint64_t reset_ms;	/* the quota interval: the agent's round */
	uint64_t hot[DAMONCTL_PAT_NR];	/* FB_COLLAPSE: the scheme's access pattern */
};

/*
 * The size quota of a kernel's collapse scheme while the agent allows it nothing. The kernel
 * cuts a region where the effective quota ends before it looks at the filters, and does not
 * charge what they reject: with a time quota (whose effective size is at least 4 KiB) and
 * a goal met, every region would be cut into 4 KiB pieces at every apply, and the observer
 * scheme would list each piece. A quota under the minimum region size cuts nothing.
 */
#define FB_CLOSED_QUOTA_BYTES 1

struct fallbacks {
	unsigned int nr;
	struct fallback fb[MAX_FALLBACKS];
};

/*
 * Rewrite kdamond @k so that this kernel (@f) runs it with the agent's help where that is
 * needed, appending to @out what the agent must do. Schemes an entry of @out already serves
 * (a kdamond planned before, being tuned) are left as they are. Returns 0 (nothing may be
 * needed), -EOPNOTSUPP with @why when neither the kernel nor the agent can do it (e.g.
 * collapse on a kernel without tried_regions), or -EINVAL with @why.
 */
int fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
		  const struct damonctl_features *f, bool scope_pid, struct fallbacks *out,
		  char *why, size_t size);
/* After a change of @k's schemes (tune): take their access pattern and quota again. */
void fallback_refresh(struct fallbacks *fbs, const struct damonctl_kdamond *k);
/* Whether scheme @si is one the agent serves (or observes with). */
bool fallback_serves(const struct fallbacks *fbs, unsigned int si);
/* Whether scheme @si is the agent's own (an observer, a per-target copy), not the user's. */
bool fallback_agents_scheme(const struct fallbacks *fbs, unsigned int si);
/* The user's scheme that entry @fi serves: a per-target copy stands for its template. */
unsigned int fallback_user_scheme(const struct fallbacks *fbs, unsigned int fi);
/*
 * The agent keeps one set of figures per kdamond (the measured ratio, the goal, whether it
 * is met), so it serves one of the user's schemes in each: -EINVAL with @why if @fbs asks it
 * to serve more.
 */
int fallback_check_one_scheme(const struct fallbacks *fbs, char *why, size_t size);
/* "hugepage_mem_bp goal fed by the agent; collapse by process_madvise" */
void fallback_describe(const struct fallbacks *fbs, char *buf, size_t size);
json_object *fallback_to_json(const struct fallbacks *fbs);
int fallback_from_json(json_object *arr, struct fallbacks *fbs);
/* The ratio a goal of @scope_pid measures (damonctl_hugepage_measure): over @pids, or
 * system-wide. */
int fallback_measure(struct damonctl_ctx *ctx, bool scope_pid, const int *pids,
		     unsigned int nr_pids, uint64_t *huge, uint64_t *used);

#endif
