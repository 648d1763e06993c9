/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damonc metrics: what status, report hugepage and the agent know, as Prometheus metrics
 * (damonc-metrics(1)); and the textfile the agent keeps fresh for node_exporter.
 */
#ifndef DAMONC_METRICS_H
#define DAMONC_METRICS_H

#include "damonc.h"

/* The agent's --metrics-textfile: rewritten atomically at most once a second while the
 * agent runs (metrics_textfile_update() after its rounds), and once more as it exits. */
struct metrics_textfile {
	const char *path;	/* NULL: none */
	uint64_t interval_us;	/* between writes (0: METRICS_TEXTFILE_INTERVAL_US) */
	uint64_t last_ms;	/* CLOCK_MONOTONIC of the last write */
	bool failing;		/* the last write failed: the next try waits a minute */
	/* the targets' huge pages, kept between writes: their page tables are walked only
	 * when something changed them (damonctl_hugepage_meter_new(3)) */
	struct damonctl_hugepage_meter *meter;
};

/* The agent's default between two writes of its textfile: Prometheus scrapes every 15 s or
 * more, and each write reads the whole DAMON tree. */
#define METRICS_TEXTFILE_INTERVAL_US 15000000

/* Check FILE for --metrics-textfile (its directory exists, its name ends in .prom, which
 * is all the textfile collector reads) and keep it in @mt; 0 or EXIT_USAGE. */
int metrics_textfile_option(struct cli *cli, const char *arg, struct metrics_textfile *mt);
/* Write the textfile if one is set and its interval has passed since the last write (a
 * minute after a failure), or at once with @now. Failures go to stderr (the agent's log). */
void metrics_textfile_update(struct cli *cli, struct metrics_textfile *mt, bool now);
/* What the textfile keeps between writes. */
void metrics_textfile_free(struct metrics_textfile *mt);

#endif
