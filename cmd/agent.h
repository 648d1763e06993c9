/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The damonc agent: one long-running process serving the user-space fallbacks (fallback.h)
 * of every kdamond damonc started, and following their target processes (their exits, and
 * with --follow-children their children). `damonc agent` runs it; `start` makes sure it
 * runs, or serves its kdamond itself with --foreground.
 */
#ifndef DAMONC_AGENT_H
#define DAMONC_AGENT_H

#include "damonc.h"

/* Serve kdamond @kdamond from this process until it stops or a signal comes; on a signal,
 * the kdamond is stopped unless @leave_running. */
int agent_serve_foreground(struct cli *cli, unsigned int kdamond, bool leave_running);
/* Start `damonc agent` in the background unless one already runs (pid file under
 * <sysroot>/run/damonc). */
int agent_ensure_running(struct cli *cli);
/* The pid of the running background agent, or 0 when none runs. */
int agent_running_pid(struct cli *cli);

#endif
