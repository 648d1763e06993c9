/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rendering the DAMON tree for people (text) and programs (JSON): status, start --dry-run. */
#ifndef DAMONC_STATUS_H
#define DAMONC_STATUS_H

#include <stdio.h>

#include "damonc.h"
#include "started.h"

/* What damonc adds after a kdamond it started (the agent's part), as text and as a JSON
 * member "agent" of the kdamond; either may give nothing (NULL). */
struct status_extra {
	void (*text)(FILE *out, unsigned int kdamond, void *data);
	json_object *(*json)(unsigned int kdamond, void *data);
	void *data;
	/* What a killed damonc command left on the kdamond (a sentence), or NULL: shown as
	 * text and as the JSON member "damonc_leftover" of any kdamond. */
	const char *(*leftover)(unsigned int kdamond, void *data);
	/* The CPU time a running kdamond's thread @pid has used and how long it has run,
	 * in microseconds; false when they cannot be read (it stopped meanwhile). */
	bool (*cpu)(int pid, uint64_t *cpu_us, uint64_t *run_us, void *data);
	/* The @i-th DAMON module that is enabled (it holds DAMON exclusively, so no kdamond
	 * of the sysfs interface can start), *pid its kdamond's or -1; NULL past the last.
	 * Text after the kdamonds; JSON "modules_enabled". */
	const char *(*module)(unsigned int i, int *pid, void *data);
	/* every running kdamond was asked to update its stats (and tuned intervals) just
	 * before the tree was read: status --refresh */
	bool refreshed;
	/* transparent_hugepage/enabled's mode ("never"...), or NULL: unknown */
	const char *thp_enabled;
};
/* Whether running kdamond @k's stats files are current: the kernel refreshes them
 * (refresh_ms, 6.17) or they were just updated (@x->refreshed). A running kdamond whose
 * files are not shows its stats and intervals as of their last update. */
bool status_stats_current(const struct damonctl_kdamond *k, const struct status_extra *x);

/* @only: a kdamond index, or -1 for all. @started and @x may be NULL. */
int status_print_text(FILE *out, const struct damonctl_tree *t, const struct started *started,
		      int only, bool all_regions, const struct status_extra *x);
int status_print_json(const struct damonctl_tree *t, const struct started *started, int only,
		      const struct status_extra *x);
/* How much of the results to show: none (a config, e.g. start --dry-run), the number of
 * tried regions, or every one. */
enum { REGIONS_NO_RESULTS, REGIONS_COUNT, REGIONS_ALL };
/* One kdamond's text (@x: its CPU use, when it has a cpu callback; may be NULL). */
void status_print_kdamond(FILE *out, const struct damonctl_kdamond *k, const char *note,
			  int regions, const struct status_extra *x);

#endif
