/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One scheme as damonc presents it: libdamonctl's view of it as what it stands for
 * (damonctl_fallback_view(3): the kernel's part and the agent's told apart), and damonc's
 * own knowledge beside it: whether damonc started it, who serves the agent's part now, and
 * the agent's last look at hot and cold memory. `report hugepage` and `metrics` read
 * schemes through it.
 */
#ifndef DAMONC_SCHEME_VIEW_H
#define DAMONC_SCHEME_VIEW_H

#include "agent_stats.h"
#include "agent_view.h"
#include "started.h"

struct scheme_view {
	unsigned int kdamond;
	bool ours;			/* started by damonc */
	enum agent_server server;	/* who serves the agent's part now */
	int server_pid;
	struct damonctl_fallback_stats hot;	/* the agent's last look at hot and cold memory */
	struct damonctl_fallback_view v;
};

/* Whether scheme @si (context 0) of a kdamond is about huge pages (@e: damonc's record of
 * the kdamond, or NULL). */
bool scheme_view_is_hugepage(const struct started_entry *e, const struct damonctl_scheme *s,
			     unsigned int si);
/* Fill @sv for scheme @si of kdamond @kdamond (context 0). @e: damonc's record of the
 * kdamond (NULL: not started by damonc); @ast: the agent's stats for it (NULL: none). */
void scheme_view_read(struct cli *cli, const struct started_entry *e,
		      const struct damonctl_fallback_stats *ast, unsigned int kdamond,
		      const struct damonctl_scheme *s, unsigned int si, struct scheme_view *sv);

#endif
