/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One scheme as damonc presents it, with the kernel's part and the agent's told apart: the
 * action it was started for (collapse, where the kernel runs a stat stand-in), its goals
 * (a user_input goal the agent feeds shows as the hugepage_mem_bp goal it stands for), the
 * kernel's stats and the agent's, and who serves the agent's part. `report hugepage` and
 * `metrics` read schemes through it.
 */
#ifndef DAMONC_SCHEME_VIEW_H
#define DAMONC_SCHEME_VIEW_H

#include "agent_stats.h"
#include "agent_view.h"
#include "started.h"

#define SCHEME_VIEW_MAX_GOALS 16

struct scheme_view_goal {
	char metric[32];
	uint64_t target, current;
	bool fed;			/* measured by the agent (its current value is the agent's) */
};

struct scheme_view {
	unsigned int kdamond, scheme;
	char action[24];
	bool ours;			/* started by damonc */
	bool agent;			/* the agent collapses or feeds the goal */
	char tuner[16];
	unsigned int nr_goals;
	struct scheme_view_goal goals[SCHEME_VIEW_MAX_GOALS];
	/* the quota: the scheme's, or the one the agent enforces where it collapses */
	uint64_t quota_ms, quota_bytes, quota_reset_ms;
	bool has_effective;		/* the kernel's effective quota (where the agent
					 * collapses, its stat stand-in's) */
	uint64_t effective_bytes;
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
	bool agent_collapses;		/* the agent, not the kernel, collapses */
	bool agent_paces;		/* the kernel collapses what the agent allows it */
	struct damonctl_fallback_stats hot;	/* the agent's last look at hot and cold memory */
	uint64_t agent_nr_applied, agent_sz_applied;
	uint64_t agent_nr_tried, agent_sz_tried, agent_qt_exceeds, agent_sz_collapsed;
	enum agent_server server;	/* who serves the agent's part now */
	int server_pid;
};

/* Whether scheme @si (context 0) of a kdamond is about huge pages: a collapse or hugepage
 * action, a hugepage_mem_bp goal, or a fallback of damonc's (@e: its record, or NULL). */
bool scheme_view_is_hugepage(const struct started_entry *e, const struct damonctl_scheme *s,
			     unsigned int si);
/* Fill @sv for scheme @si of kdamond @kdamond (context 0). @e: damonc's record of the
 * kdamond (NULL: not started by damonc); @ast: the agent's stats for it (NULL: none). */
void scheme_view_read(struct cli *cli, const struct started_entry *e,
		      const struct damonctl_fallback_stats *ast, unsigned int kdamond,
		      const struct damonctl_scheme *s, unsigned int si, struct scheme_view *sv);
/* Bytes a collapse scheme has collapsed, whoever did it (the agent's applied bytes where it
 * collapses, else the kernel's); 0 for other actions. */
uint64_t scheme_view_collapsed(const struct scheme_view *sv);

#endif
