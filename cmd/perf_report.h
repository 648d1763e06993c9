/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hottest entries of a perf profile: `perf report -i FILE --stdio` run and its table
 * parsed, keeping the first rows only (report holistic's hotspot functions, as damo's).
 */
#ifndef DAMONC_PERF_REPORT_H
#define DAMONC_PERF_REPORT_H

#include <stddef.h>

struct perf_row {
	double overhead;		/* percent of the samples */
	char *command, *object, *symbol;
	char where;			/* '.': user space, 'k': kernel, ... (perf's [x]) */
};

struct perf_rows {
	struct perf_row *v;
	size_t n;
};

/* Runs @perf (a name looked up in PATH, or a path) on @file and keeps its first @top rows.
 * 0; -ENOENT when @perf cannot be found; -ECHILD when perf failed (its exit status in
 * *@status, 128 + N for signal N); another -errno. */
int perf_report_top(const char *perf, const char *file, size_t top, struct perf_rows *out,
		    int *status);
/* A line of the table into @row (strings allocated); 1, 0 (not a row), or -ENOMEM. */
int perf_parse_row(const char *line, struct perf_row *row);
void perf_rows_free(struct perf_rows *rows);

#endif
