/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capture through the damon:damon_aggregated trace event (Linux 5.15 on): a tracefs
 * instance of our own, the event filtered to one kdamond's pid, read from its trace_pipe.
 * It writes nothing under the DAMON sysfs tree and sees every aggregation; tried_regions
 * costs four sysfs files a region per snapshot.
 */
#ifndef DAMONC_CAPTURE_TRACE_H
#define DAMONC_CAPTURE_TRACE_H

#include "damonc.h"

struct trace_src;

/* Whether <sysroot>/sys/kernel/tracing has the event. */
bool trace_available(struct damonctl_ctx *ctx);
/* -errno; the instance is set up and the event enabled for @kdamond_pid. */
int trace_open(struct damonctl_ctx *ctx, int kdamond_pid, struct trace_src **out);
/* The next whole snapshot of one target (kdamond/context/intervals left to the caller):
 * 1, 0 when @timeout_ms passed first, -errno. Regions live until the next call. */
int trace_next(struct trace_src *t, int timeout_ms, struct damonctl_rec_snapshot *snap);
/* Snapshots dropped because events were lost (a full ring buffer). */
uint64_t trace_dropped(const struct trace_src *t);
/* Disable the event and remove the instance. */
void trace_close(struct trace_src *t);

#endif
