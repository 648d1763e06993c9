/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracefs instance of damonc's own (<sysroot>/sys/kernel/tracing/instances/NAME-PID): its
 * own ring buffer and event switches, so nobody else's tracing is touched, removed again
 * when done.
 */
#ifndef DAMONC_TRACEFS_H
#define DAMONC_TRACEFS_H

#include "damonc.h"

struct tfs {
	char dir[4096];
};

/* Whether tracefs has @event ("group/name") and it can be enabled. */
bool tfs_has_event(struct damonctl_ctx *ctx, const char *event);
/* Make instance NAME-<our pid>; -errno (-ENOENT without tracefs). */
int tfs_create(struct damonctl_ctx *ctx, const char *name, struct tfs *t);
/* Write @value to @file of the instance ("events/damon/damon_aggregated/enable"). */
int tfs_put(const struct tfs *t, const char *file, const char *value);
/* Its trace_pipe, non-blocking: an fd or -errno. */
int tfs_open_pipe(const struct tfs *t);
/* Read @file of the instance into @buf (NUL-terminated): its length or -errno. */
ssize_t tfs_get(const struct tfs *t, const char *file, char *buf, size_t size);
/* Open @file of the instance read-only, non-blocking: an fd or -errno. */
int tfs_open(const struct tfs *t, const char *file);
/* Disable @events (NULL-terminated "group/name"s), then remove the instance. */
void tfs_remove(const struct tfs *t, const char *const *events);

#endif
