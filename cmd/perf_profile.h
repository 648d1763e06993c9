/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A `perf record` profile of the whole system beside a record (damo's record --profile):
 * started before the first snapshot, stopped with SIGINT when the record ends. Its samples
 * are stamped with CLOCK_REALTIME (-k), the clock of the record's snapshot times, so that
 * `damonc report profile` can hand the record's time ranges to `perf report --time`.
 */
#ifndef DAMONC_PERF_PROFILE_H
#define DAMONC_PERF_PROFILE_H

#include "damonc.h"

/* perf's --clockid: the clock of record's times (docs/record-format.md) */
#define PERF_PROFILE_CLOCK "CLOCK_REALTIME"

struct perf_profile {
	int pid;		/* 0: not running */
	int status;		/* its wait status once it ended, else -1 */
	bool asked;		/* it was sent SIGINT: ending by it is the normal end */
	int ctl_fd;		/* perf's control fd, kept open: perf 6.1 fails when it closes */
	const char *perf, *file;
};

/* Start @perf writing @file and wait until its events are enabled (its control fd's ack):
 * 0, or an exit code after saying why (perf missing, perf failing to open its events). */
int perf_profile_start(struct cli *cli, const char *perf, const char *file,
		       struct perf_profile *p);
/* SIGINT, then wait (SIGKILL if a signal comes to us while waiting). 0 when perf ended as
 * asked, else EXIT_FAIL after saying how it ended. A profile not running: 0. */
int perf_profile_stop(struct cli *cli, struct perf_profile *p);
/* "ended as asked", "exited with status 1", "was killed by signal 9": for the summary. */
const char *perf_profile_outcome(const struct perf_profile *p, char *buf, size_t size);
bool perf_profile_ok(const struct perf_profile *p);

#endif
