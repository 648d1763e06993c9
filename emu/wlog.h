/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --log FILE: one line per write (state commands included), appended as it completes:
 *   W <path> '<value, C-escaped>' <ok|ERRNAME>[ fault| killed][ pid=N]
 * (pid=N, the writer's, with --log-pids: which of several programs wrote it)
 */
#ifndef DAMON_EMU_WLOG_H
#define DAMON_EMU_WLOG_H

#include <stdbool.h>
#include <stddef.h>

/* @pids: end each line with the writer's pid. */
int emu_wlog_open(const char *path, bool pids);
/* @mark: NULL, "fault" (failed by --faults) or "killed" (its writer was killed by them);
 * @pid: the writer's (0: unknown). */
void emu_wlog_write(const char *path, const char *value, size_t len, int err, const char *mark,
		    int pid);
void emu_wlog_close(void);

#endif
