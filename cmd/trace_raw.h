/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The binary form of tracefs's ring buffer (per_cpu/cpuN/trace_pipe_raw), decoded without
 * libtraceevent: the page header's layout from events/header_page, the damon_aggregated
 * record's from its events/.../format (its fields changed over kernel versions), and the
 * event headers (type_len:5, time_delta:27) as kernel/trace/ring_buffer.c writes them:
 * data, padding (discarded events, the unused end of a page), time extends and absolute
 * time stamps. Pure functions on buffers: no file access.
 */
#ifndef DAMONC_TRACE_RAW_H
#define DAMONC_TRACE_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a field lies in a record or a page header; size 0: absent. */
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

/* Ring buffer event types (type_len above the data lengths). */
enum {
	TRAW_PADDING = 29,
	TRAW_TIME_EXTEND = 30,
	TRAW_TIME_STAMP = 31,
};
#define TRAW_COMMIT_MASK ((1u << 27) - 1)	/* size bits of commit; flags above */
#define TRAW_MISSED_EVENTS (1ull << 31)		/* events were lost before this page */

struct traw_event {
	uint64_t ts_ns;			/* trace clock */
	uint64_t target_id, start, end;
	uint32_t nr_regions, nr_accesses, age;
};

/* 0, or -EINVAL when a field damonc needs is missing (target_id, nr_regions, start, end,
 * nr_accesses; age is 0 where absent). */
int traw_parse_format(const char *text, struct traw_format *f);
int traw_parse_header_page(const char *text, struct traw_layout *l);

typedef int (*traw_cb)(void *arg, const struct traw_event *ev);
/*
 * Decode one page of @len bytes: @cb for each damon_aggregated record, in order. 0, @cb's
 * nonzero return, or -EINVAL for a page that does not add up (its decoding stops there).
 * *@missed: the kernel lost events before this page (a full buffer).
 */
int traw_parse_page(const struct traw_layout *l, const struct traw_format *f,
		    const unsigned char *page, size_t len, traw_cb cb, void *arg, bool *missed);

#endif
