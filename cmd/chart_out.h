/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the reports' charts go, checked and said the same way by every report that draws:
 * the format -o's name implies, no PNG to a terminal, the picture plugin there, -o's file
 * opened and closed with the errors turned into sentences.
 */
#ifndef DAMONC_CHART_OUT_H
#define DAMONC_CHART_OUT_H

#include <stdio.h>

#include "chart.h"
#include "damonc.h"

/* CHART_PNG or CHART_SVG as @path ends (.png, .svg, any case), or -1. */
int chart_format_of_name(const char *path);
/* EXIT_OK once the picture plugin is loaded; EXIT_USAGE with the sentence when a PNG would
 * go to a terminal, EXIT_UNSUPPORTED when the plugin is not installed. Before any drawing,
 * and before the work whose result is drawn. */
int chart_check_output(struct cli *cli, enum chart_format fmt, const char *output);
/* -o's file, or stdout for none or "-"; NULL once the error is said. */
FILE *chart_open(struct cli *cli, const char *output);
/* Close what chart_open() gave; @draw is what drawing returned (0 or -errno). EXIT_OK, or
 * EXIT_FAIL once the error (@what: "the heatmap") is said. */
int chart_close(struct cli *cli, FILE *f, const char *output, int draw, const char *what);

#endif
