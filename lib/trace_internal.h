/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The insides of the trace objects (include/damonctl/damonctl.h, "Trace events"): opaque to
 * callers, so that their limits can grow; unit tests look at them.
 */
#ifndef DAMONCTL_TRACE_INTERNAL_H
#define DAMONCTL_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "damonctl/damonctl.h"

/* One line of trace text (trace_line.c). */
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

struct damonctl_trace_event {
	char task[32];
	int pid, cpu;			/* cpu -1: not printed */
	uint64_t ts_ns;			/* the trace clock's time */
	char event[64];			/* without perf's "damon:" */
	struct tline_field f[TLINE_MAX_FIELDS];
	unsigned int nr;
};

/* The binary ring buffer (trace_raw.c). Where a field lies in a record or a page header;
 * size 0: absent. */
struct traw_field {
	uint32_t off, size;
};

/* The damon_aggregated record, from its format file. */
struct traw_format {
	uint32_t id;			/* common_type of its records */
	struct traw_field type, target_id, nr_regions, start, end, nr_accesses, age;
	uint32_t min_size;		/* a record must hold every field */
};

/* The ring buffer page, from events/header_page. */
struct traw_layout {
	struct traw_field timestamp, commit, data;
	size_t page_size;		/* what one read of trace_pipe_raw returns */
};

struct damonctl_trace_raw {
	struct traw_format fmt;
	struct traw_layout lay;
	bool has_fmt, has_lay;
};

/* Ring buffer event types (type_len above the data lengths). */
enum {
	TRAW_PADDING = 29,
	TRAW_TIME_EXTEND = 30,
	TRAW_TIME_STAMP = 31,
};
#define TRAW_COMMIT_MASK ((1u << 27) - 1)	/* size bits of commit; flags above */
#define TRAW_MISSED_EVENTS (1ull << 31)		/* events were lost before this page */

/* A tracefs instance (tracefs.c). */
struct damonctl_trace_instance {
	char dir[4096];
};

#endif
