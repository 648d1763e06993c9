/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record reports run on a record at @input with their default options, as `damonc
 * monitor` shows each window it captured: text, or with cli->json their --json document, on
 * stdout. Each returns the report's exit code.
 */
#ifndef DAMONC_REPORT_WINDOW_H
#define DAMONC_REPORT_WINDOW_H

#include "damonc.h"

/* @tbins x @abins cells (the text heatmap is 21 columns wider than @tbins) */
int report_heatmap_of(struct cli *cli, const char *input, unsigned int tbins,
		      unsigned int abins);
int report_wss_of(struct cli *cli, const char *input);
int report_access_of(struct cli *cli, const char *input);
int report_holistic_of(struct cli *cli, const char *input);

/* A report's run (struct cmd's) with @opts as its options: a copy of its defaults made for
 * the window, which the run may complete; the caller's cli->opts (monitor's) after it. */
static inline int report_window_run(struct cli *cli, void *opts,
				    int (*run)(struct cli *cli, int argc, char **argv))
{
	void *caller = cli->opts;
	int r;

	cli->opts = opts;
	r = run(cli, 0, NULL);
	cli->opts = caller;
	return r;
}

#endif
