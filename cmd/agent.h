/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The damonc agent: one long-running process serving the user-space fallbacks (fallback.h)
 * of every kdamond damonc started. `damonc agent` runs it; `start` makes sure it runs.
 */
#ifndef DAMONC_AGENT_H
#define DAMONC_AGENT_H

#include "damonc.h"

/* Serve kdamond @kdamond's fallbacks from this process until it stops or a signal comes. */
int agent_serve_foreground(struct cli *cli, unsigned int kdamond);
/* Start `damonc agent` in the background unless one already runs (pid file under
 * <sysroot>/run/damonc). */
int agent_ensure_running(struct cli *cli);

#endif
