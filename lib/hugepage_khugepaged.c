// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What khugepaged's scans find: the huge_memory:mm_khugepaged_scan_pmd trace event (one per
 * PMD-sized range khugepaged scans, with why it collapsed it or not), read for a while in a
 * tracefs instance the caller names, counted by outcome in the order first seen.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define EVENT_NAME "huge_memory/mm_khugepaged_scan_pmd"
#define MAX_STATUS 24

struct damonctl_khugepaged_scans {
	uint64_t scans;			/* events seen */
	size_t nr;
	struct {
		char status[48];	/* "succeeded", "no_referenced_page", ... */
		uint64_t count;
	} by[MAX_STATUS];
};

DAMONCTL_API bool damonctl_khugepaged_trace_available(struct damonctl_ctx *ctx)
{
	return damonctl_trace_has_event(ctx, EVENT_NAME);
}

DAMONCTL_API int damonctl_khugepaged_scans_new(struct damonctl_khugepaged_scans **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

DAMONCTL_API void damonctl_khugepaged_scans_free(struct damonctl_khugepaged_scans *s)
{
	free(s);
}

/* "... mm_khugepaged_scan_pmd: mm=..., scan_pfn=0x..., writable=1, referenced=0,
 * none_or_zero=0, status=no_referenced_page, unmapped=0" */
DAMONCTL_API int damonctl_khugepaged_scans_add_line(struct damonctl_khugepaged_scans *s,
						     const char *line)
{
	const char *p = strstr(line, "mm_khugepaged_scan_pmd:");
	char status[48];
	size_t i;

	if (!p || !(p = strstr(p, "status=")) || sscanf(p + 7, "%47[^, \n]", status) != 1)
		return 0;
	s->scans++;
	for (i = 0; i < s->nr; i++) {
		if (!strcmp(s->by[i].status, status)) {
			s->by[i].count++;
			return 1;
		}
	}
	if (s->nr < MAX_STATUS) {	/* the kernel has about 20 results */
		snprintf(s->by[s->nr].status, sizeof(s->by[0].status), "%s", status);
		s->by[s->nr++].count = 1;
	}
	return 1;
}

DAMONCTL_API uint64_t damonctl_khugepaged_scans_total(const struct damonctl_khugepaged_scans *s)
{
	return s->scans;
}

DAMONCTL_API size_t damonctl_khugepaged_scans_nr_status(const struct damonctl_khugepaged_scans *s)
{
	return s->nr;
}

DAMONCTL_API const char *damonctl_khugepaged_scans_status(const struct damonctl_khugepaged_scans *s,
							  size_t i, uint64_t *count)
{
	if (i >= s->nr)
		return NULL;
	if (count)
		*count = s->by[i].count;
	return s->by[i].status;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The pipe's lines until @end (monotonic us), each counted. */
static void count_pipe(int fd, uint64_t end, struct damonctl_khugepaged_scans *s)
{
	char buf[8192], line[1024];
	size_t len = 0;

	for (;;) {
		uint64_t now = mono_us();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (now >= end)
			break;
		if (poll(&p, 1, (int)((end - now + 999) / 1000)) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			damonctl_khugepaged_scans_add_line(s, line);
			len = 0;
		}
	}
}

DAMONCTL_API int damonctl_khugepaged_trace(struct damonctl_ctx *ctx, const char *instance,
					   uint64_t duration_us,
					   struct damonctl_khugepaged_scans *s)
{
	static const char *const events[] = { EVENT_NAME, NULL };
	struct damonctl_trace_instance *t;
	int fd, r;

	if (!damonctl_khugepaged_trace_available(ctx))
		return -ENOENT;
	r = damonctl_trace_instance_create(ctx, instance, &t);
	if (r)
		return r;
	r = damonctl_trace_instance_put(t, "events/" EVENT_NAME "/enable", "1");
	fd = r ? r : damonctl_trace_instance_open_pipe(t);
	if (fd < 0) {
		damonctl_trace_instance_remove(t, events);
		return fd;
	}
	count_pipe(fd, mono_us() + duration_us, s);
	close(fd);
	damonctl_trace_instance_remove(t, events);
	return 0;
}
