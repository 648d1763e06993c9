/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the agent did for a kdamond: <sysroot>/run/damonc/agent-<kdamond>.json. */
#ifndef DAMONC_AGENT_STATS_H
#define DAMONC_AGENT_STATS_H

#include "damonc.h"

#define AGENT_MAX_SCHEMES 32

/* The kernel's scheme stats, with the same meaning, for what the agent does in its place;
 * plus what only the agent can tell: bytes that actually became huge, and its time. */
struct agent_scheme_stats {
	unsigned int scheme;
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
	uint64_t sz_collapsed;		/* growth of the target's huge page memory */
	uint64_t busy_us;		/* time spent in process_madvise() */
};

struct agent_stats {
	unsigned int kdamond;
	int kdamond_pid;		/* the kdamond these counts are of */
	long long updated;		/* unix time of the last round */
	uint64_t measured_bp;		/* the last ratio measured */
	uint64_t target_bp;		/* the goal it is measured against (0: none) */
	bool goal_met;			/* measured_bp >= target_bp at the last round */
	uint64_t feeds;			/* goal values fed to the kernel */
	uint64_t rounds;		/* rounds served */
	/* what the agent's last look at DAMON's regions found (collapse budgets) */
	bool observed;			/* the fields below are set */
	uint64_t hot_bytes;		/* hot memory, huge or not */
	uint64_t hot_huge_bytes;	/* of which huge already */
	uint64_t hot_bp;		/* hot memory over what the goal measures it against */
	uint64_t reachable_bp;		/* the ratio with every hot page huge */
	bool unreachable;		/* the goal is above what hot memory can reach */
	uint64_t cold_huge_bytes;	/* huge pages in regions with no access */
	uint64_t cold_huge_idle_us;	/* for how long the longest idle of them was */
	int agent_pid;			/* the process serving it */
	long long since;		/* unix time it started serving it */
	unsigned int nr;
	struct agent_scheme_stats s[AGENT_MAX_SCHEMES];
};

/* An absent file gives empty stats. */
int agent_stats_load(struct damonctl_ctx *ctx, unsigned int kdamond, struct agent_stats *st);
int agent_stats_save(struct damonctl_ctx *ctx, unsigned int kdamond, const struct agent_stats *st);
int agent_stats_remove(struct damonctl_ctx *ctx, unsigned int kdamond);

#endif
