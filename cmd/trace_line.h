/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One line of DAMON trace output as tracefs's trace_pipe, `trace-cmd report` or
 * `perf script` print it:
 *
 *   kdamond.0-174   [001] .....  123.456789: damon_aggregated: target_id=0 nr_regions=11 4096-8192: 0 3
 *   kdamond.0  174 [001] 123.456789: damon:damon_aggregated: target_id=0 ...
 *
 * The fields are the event's TP_printk: "key=value" words (a value followed by bare words is
 * a list, as probe_hits=14 00), and a region as "START-END: NR_ACCESSES AGE". Which fields an
 * event has changed over kernel versions, so none is assumed: what the line says is kept.
 * A pure function: no file access.
 */
#ifndef DAMONC_TRACE_LINE_H
#define DAMONC_TRACE_LINE_H

#include <stdbool.h>
#include <stdint.h>

#define TLINE_MAX_FIELDS 24
#define TLINE_MAX_LIST 32

struct tline_field {
	char key[32];
	uint64_t v[TLINE_MAX_LIST];	/* v[0] for a number; n values for a list */
	unsigned int n;
	bool list;			/* more than "key=value": bare words followed */
	bool text;			/* the value is no number: text[] holds it */
	char str[48];
};

struct tline {
	char task[32];
	int pid, cpu;			/* cpu -1: not printed */
	uint64_t ts_ns;			/* the trace clock's time */
	char event[64];			/* without perf's "damon:" */
	struct tline_field f[TLINE_MAX_FIELDS];
	unsigned int nr;
};

/* 0, or -EINVAL for a line that holds no event (a header, a comment, a lost-events note). */
int tline_parse(const char *line, struct tline *t);
/* The field named @key, or NULL. */
const struct tline_field *tline_field(const struct tline *t, const char *key);

#endif
