/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the agent did for a kdamond: <sysroot>/run/damonc/agent-<kdamond>.json. */
#ifndef DAMONC_AGENT_STATS_H
#define DAMONC_AGENT_STATS_H

#include "damonc.h"

/* libdamonctl's fallback server's counters (damonctl_fallback_server_new(3)), by the names
 * status, report hugepage and metrics know them by: the kernel's scheme stats, with the same
 * meaning, for what the agent does in its place, and its last look at hot memory. */
#define agent_stats damonctl_fallback_stats
#define agent_scheme_stats damonctl_fallback_scheme_stats
#define AGENT_MAX_SCHEMES DAMONCTL_FALLBACK_STATS_MAX_SCHEMES

/* An absent file gives empty stats. */
int agent_stats_load(struct damonctl_ctx *ctx, unsigned int kdamond, struct agent_stats *st);
int agent_stats_save(struct damonctl_ctx *ctx, unsigned int kdamond, const struct agent_stats *st);
int agent_stats_remove(struct damonctl_ctx *ctx, unsigned int kdamond);

#endif
