/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the agent did for a kdamond: <sysroot>/run/damonc/agent-<kdamond>.json. */
#ifndef DAMONC_AGENT_STATS_H
#define DAMONC_AGENT_STATS_H

#include "damonc.h"

/* The counters are libdamonctl's fallback server's (struct damonctl_fallback_stats, see
 * damonctl_fallback_server_new(3)): the kernel's scheme stats, with the same meaning, for
 * what the agent does in its place, and its last look at hot memory. An absent file gives
 * empty stats. */
int agent_stats_load(struct damonctl_ctx *ctx, unsigned int kdamond,
		     struct damonctl_fallback_stats *st);
int agent_stats_save(struct damonctl_ctx *ctx, unsigned int kdamond,
		     const struct damonctl_fallback_stats *st);
int agent_stats_remove(struct damonctl_ctx *ctx, unsigned int kdamond);

#endif
