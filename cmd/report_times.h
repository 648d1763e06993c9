/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The time ranges of a record whose snapshots have regions of an access pattern (damo's
 * report times): computed once, for 'report times' to print and 'report profile' to hand to
 * perf. A snapshot matches when at least one of its regions in the address range has the
 * pattern (and, with --snapshot-size, those regions' bytes are in range); consecutive
 * matching snapshots of the series make one range, from the first's start to the last's end.
 */
#ifndef DAMONC_REPORT_TIMES_H
#define DAMONC_REPORT_TIMES_H

#include "report_pattern.h"

struct times_sel {
	struct pattern pat;
	uint64_t bytes_min, bytes_max;
};
#define TIMES_SEL_ANY { .pat = PATTERN_ANY, .bytes_max = UINT64_MAX }

/* report times' options: what report profile's begin with too */
struct times_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	struct times_sel sel;
};
#define TIMES_OPTS_INIT { .rin = RIN_OPTS_INIT, .sel = TIMES_SEL_ANY }

/* The input's, the pattern's and --snapshot-size (key 300). */
#define TIMES_OPTS \
	RIN_OPTS, \
	PATTERN_OPTS, \
	{ "snapshot-size", 300, OV_RANGE, "MIN,MAX", "only snapshots whose regions of the " \
	  "pattern total MIN to MAX bytes (damo's --sz_snapshot; e.g. 1GiB,)" }

/* 0, an exit code, or -1 when @key is none of TIMES_OPTS. */
int times_sel_parse(struct cli *cli, struct times_sel *sel, int key, const char *arg);

/* Read @in to its end, calling @emit with each range as it closes (0 or an exit code, which
 * stops the scan), the ranges libdamonctl's damonctl_access_times_* make. Returns 0 or an
 * exit code; *@seen: the snapshots read. */
int times_scan(struct rin *in, const struct times_sel *sel,
	       int (*emit)(void *arg, const struct damonctl_access_span *sp), void *arg,
	       uint64_t *seen);

#endif
