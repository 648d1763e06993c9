/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the damonc agent serves for a kdamond damonc started, as `status` and `report
 * hugepage` show it: who serves it (the background agent, `start --foreground`, or nobody
 * because neither runs), what it stands in for, and what it did (agent_stats.h).
 */
#ifndef DAMONC_AGENT_VIEW_H
#define DAMONC_AGENT_VIEW_H

#include "agent_stats.h"
#include "damonc.h"
#include "started.h"

enum agent_server { AGENT_NOBODY, AGENT_BACKGROUND, AGENT_FOREGROUND };

/* Who serves @e now, and its pid (0 for nobody). */
enum agent_server agent_view_server(struct cli *cli, const struct started_entry *e, int *pid);
/* "the damonc agent (pid 12)", "damonc start --foreground (pid 12)", "nobody: ..." */
const char *agent_view_server_text(enum agent_server who, int pid, char *buf, size_t size);
const char *agent_view_server_key(enum agent_server who);	/* "agent", "foreground", "none" */
/* The text block after the kdamond in `status` (nothing when it needs no agent). */
void agent_view_text(FILE *out, struct cli *cli, const struct started_entry *e);
/* What the agent's last look at DAMON's regions found: hot memory, whether the goal can be
 * reached, huge pages gone cold (nothing before a first look). */
void agent_view_hot_text(FILE *out, const struct damonctl_fallback_stats *st, const char *indent);
json_object *agent_view_hot_json(const struct damonctl_fallback_stats *st);
/* The access coverage of huge pages the agent's last look found (damonctl_hugepage_coverage_add
 * (3)), over the targets and per target: text (nothing before a look), JSON (NULL: unknown). */
void agent_view_coverage_text(FILE *out, const struct damonctl_fallback_stats *st,
			      const char *indent);
json_object *agent_view_coverage_json(const struct damonctl_fallback_stats *st);
/* The kdamond's "agent" member in `status --json`; NULL when it needs no agent. */
json_object *agent_view_json(struct cli *cli, const struct started_entry *e);

#endif
