/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A capture scheme must not outlive its recorder. Before installing one, `damonc record`
 * leaves a note, <sysroot>/run/damonc/capture-K.json (its pid, the kdamond and where the
 * capture schemes are in its scheme list), and removes it once the kdamond's own
 * configuration is back. A recorder killed with SIGKILL cannot do that: the next capture
 * finds the note of a dead recorder and removes the schemes it left, if they are still there
 * and still look like capture schemes (otherwise someone changed the kdamond since, and it
 * is left alone with a warning).
 */
#ifndef DAMONC_CAPTURE_GUARD_H
#define DAMONC_CAPTURE_GUARD_H

#include "damonc.h"

/* The note for schemes [@first, @first + @nr) of kdamond @kdamond's context 0. -errno. */
int capture_guard_write(struct damonctl_ctx *ctx, unsigned int kdamond, int kdamond_pid,
			unsigned int first, unsigned int nr);
void capture_guard_remove(struct damonctl_ctx *ctx, unsigned int kdamond);
/* Undo what dead recorders left on any kdamond, saying so on stderr; an exit code. */
int capture_guard_recover(struct cli *cli);
/* The notes of dead recorders, not yet undone: kdamond and recorder pid, at most @max;
 * returns how many. Reads only. */
unsigned int capture_guard_leftovers(struct damonctl_ctx *ctx, unsigned int *kdamonds,
				     int *pids, unsigned int max);

#endif
