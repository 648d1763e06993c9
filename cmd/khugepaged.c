// SPDX-License-Identifier: GPL-2.0-or-later
/* khugepaged's scans through the mm_khugepaged_scan_pmd trace event (see khugepaged.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "khugepaged.h"

#define EVENT_NAME "huge_memory/mm_khugepaged_scan_pmd"

bool khugepaged_trace_available(struct damonctl_ctx *ctx)
{
	return damonctl_trace_has_event(ctx, EVENT_NAME);
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* "... mm_khugepaged_scan_pmd: mm=..., scan_pfn=0x..., writable=1, referenced=0,
 * none_or_zero=0, status=no_referenced_page, unmapped=0" */
static void count_line(const char *line, struct khp_scans *out)
{
	const char *p = strstr(line, "mm_khugepaged_scan_pmd:");
	char status[48];
	unsigned int i;

	if (!p || !(p = strstr(p, "status=")) || sscanf(p + 7, "%47[^, \n]", status) != 1)
		return;
	out->scans++;
	for (i = 0; i < out->nr; i++) {
		if (!strcmp(out->by[i].status, status)) {
			out->by[i].count++;
			return;
		}
	}
	if (out->nr < KHP_MAX_STATUS) {
		snprintf(out->by[out->nr].status, sizeof(out->by[0].status), "%s", status);
		out->by[out->nr++].count = 1;
	}
}

int khugepaged_trace(struct damonctl_ctx *ctx, uint64_t duration_us, struct khp_scans *out)
{
	static const char *const events[] = { EVENT_NAME, NULL };
	char buf[8192], line[1024];
	size_t len = 0;
	uint64_t end;
	struct damonctl_trace_instance *t;
	int fd, r;

	memset(out, 0, sizeof(*out));
	if (!khugepaged_trace_available(ctx))
		return -ENOENT;
	r = damonctl_trace_instance_create(ctx, "damonc-khugepaged", &t);
	if (r)
		return r;
	r = damonctl_trace_instance_put(t, "events/" EVENT_NAME "/enable", "1");
	fd = r ? r : damonctl_trace_instance_open_pipe(t);
	if (fd < 0) {
		damonctl_trace_instance_remove(t, events);
		return fd;
	}
	end = mono_us() + duration_us;
	for (;;) {
		uint64_t now = mono_us();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (now >= end)
			break;
		if (poll(&p, 1, (int)((end - now + 999) / 1000)) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			count_line(line, out);
			len = 0;
		}
	}
	close(fd);
	damonctl_trace_instance_remove(t, events);
	out->duration_us = duration_us;
	return 0;
}
