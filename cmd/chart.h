/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Charts for the reports, PNG or SVG from one drawing (cairo): a picture a person reads
 * alone, with a title, labelled axes and, for a heatmap, a colour scale.
 *
 *   chart_time_series()  values over time, one line per series (report wss; report
 *                        hugepage --watch can draw its ratio and goal with CHART_Y_BP)
 *   chart_heatmap()      a grid of rates in [0, 1] over time (x) and address (y)
 *
 * Both write the whole picture to @f and return 0 or -errno (-EINVAL: nothing to draw).
 * The drawing is damonc's picture plugin (chart.c, picture.so); these two call it, once
 * chart_check_output() (chart_out.h) has loaded it.
 */
#ifndef DAMONC_CHART_H
#define DAMONC_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plugin.h"

enum chart_format { CHART_PNG, CHART_SVG };

/* How the y values read. */
enum chart_unit {
	CHART_Y_PLAIN,	/* numbers */
	CHART_Y_BYTES,	/* bytes: ticks in KiB, MiB, GiB */
	CHART_Y_BP,	/* basis points: ticks in percent */
};

struct chart_series {
	const char *name;	/* for the legend */
	const double *y;	/* one per x; NaN: no value there (a gap in the line) */
	bool dashed;		/* e.g. a goal */
};

struct chart_ts {
	const char *title;	/* "Working set size: kdamond 0 target 0" */
	const char *subtitle;	/* what and when: "damonc.rec, 0.1 s to 12.3 s, 124 snapshots" */
	const char *y_label;	/* "working set size" */
	const char *x_label;	/* NULL: "time since the record began" */
	enum chart_unit y_unit;
	const double *x;	/* seconds since the start, increasing */
	size_t n;
	const struct chart_series *series;
	size_t nr_series;
};

int chart_time_series(FILE *f, enum chart_format fmt, const struct chart_ts *c);

struct chart_heatmap {
	const char *title;
	const char *subtitle;
	unsigned int nt, na;	/* columns (time, left to right), rows (address, bottom up) */
	double t0_s, t1_s;	/* the time the columns span, in seconds */
	/* the rate of a cell in [0, 1], or < 0 for no data */
	double (*cell)(const void *data, unsigned int t, unsigned int a);
	/* the address where row @a begins (a == na: where the last one ends) */
	uint64_t (*row_addr)(const void *data, unsigned int a);
	/* rows where a gap in the address space lies (the axis leaves it out), ascending */
	const unsigned int *gaps;
	size_t nr_gaps;
	const void *data;
	unsigned int cell_px;	/* pixels per cell side; 0: the cells fill a plot of about
				 * 800 x 400 */
};

int chart_heatmap(FILE *f, enum chart_format fmt, const struct chart_heatmap *h);

/* The picture plugin's table (its symbol CHART_PLUGIN_SYMBOL). */
struct chart_plugin {
	struct plugin_head head;
	int (*time_series)(FILE *f, enum chart_format fmt, const struct chart_ts *c);
	int (*heatmap)(FILE *f, enum chart_format fmt, const struct chart_heatmap *h);
};
#define CHART_PLUGIN_SYMBOL "damonc_chart_plugin"

#endif
