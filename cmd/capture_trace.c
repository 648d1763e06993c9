// SPDX-License-Identifier: GPL-2.0-or-later
/* Capture through the damon_aggregated trace event (see capture_trace.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture_trace.h"
#include "tracefs.h"

#define EVENT_NAME "damon/damon_aggregated"
#define EVENT "events/" EVENT_NAME

struct trace_src {
	struct tfs inst;		/* instances/damonc-record-PID */
	int fd;				/* its trace_pipe */
	int64_t mono_to_real_ns;	/* trace clock "mono" to CLOCK_REALTIME */
	char buf[1 << 16];
	size_t len;
	/* the target being assembled */
	bool open;
	uint64_t id;
	uint32_t want;
	uint64_t ts_ns;
	struct damonctl_rec_region *regions;
	uint32_t nr;
	size_t cap;
	/* target ids (kernel pointers before 5.16) to indexes */
	uint64_t ids[64];
	unsigned int nr_ids;
	uint64_t dropped;
	/* the snapshot handed out */
	struct damonctl_rec_region *out;
	size_t out_cap;
};

bool trace_available(struct damonctl_ctx *ctx)
{
	return tfs_has_event(ctx, EVENT_NAME);
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int trace_open(struct damonctl_ctx *ctx, int kdamond_pid, struct trace_src **out)
{
	struct trace_src *t = calloc(1, sizeof(*t));
	char filter[64];
	int r;

	if (!t)
		return -ENOMEM;
	t->fd = -1;
	r = tfs_create(ctx, "damonc-record", &t->inst);
	if (r) {
		free(t);
		return r;
	}
	/* our own ring buffer: big enough for a burst of aggregations while we sleep */
	tfs_put(&t->inst, "buffer_size_kb", "4096");
	/* "mono" is CLOCK_MONOTONIC: convertible to wall-clock time */
	if (tfs_put(&t->inst, "trace_clock", "mono"))
		tfs_put(&t->inst, "trace_clock", "global");
	t->mono_to_real_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	snprintf(filter, sizeof(filter), "common_pid == %d", kdamond_pid);
	r = tfs_put(&t->inst, EVENT "/filter", filter);
	if (!r)
		r = tfs_put(&t->inst, EVENT "/enable", "1");
	if (!r) {
		t->fd = tfs_open_pipe(&t->inst);
		if (t->fd < 0)
			r = t->fd;
	}
	if (r) {
		trace_close(t);
		return r;
	}
	*out = t;
	return 0;
}

uint64_t trace_dropped(const struct trace_src *t)
{
	return t->dropped;
}

static int32_t index_of(struct trace_src *t, uint64_t id)
{
	unsigned int i;

	/* an index already (5.16 on) */
	if (id < 64)
		return (int32_t)id;
	for (i = 0; i < t->nr_ids; i++)
		if (t->ids[i] == id)
			return (int32_t)i;
	if (t->nr_ids < 64)
		t->ids[t->nr_ids++] = id;
	return (int32_t)t->nr_ids - 1;
}

/*
 * "  kdamond.0-174  [000] ..... 123.456789: damon_aggregated: target_id=0 nr_regions=12
 *  4194304-79998976: 0 60" -> 1 when a target's snapshot is complete, 0 otherwise.
 */
static int parse_line(struct trace_src *t, char *line, struct damonctl_rec_snapshot *snap)
{
	char *ev = strstr(line, ": damon_aggregated: "), *p;
	unsigned long long id, start, end, sec, frac;
	unsigned int nr, na, age;
	int digits = 0;

	if (!ev)
		return 0;
	*ev = '\0';
	p = strrchr(line, ' ');
	p = p ? p + 1 : line;
	if (sscanf(p, "%llu.%llu", &sec, &frac) != 2)
		return 0;
	for (char *d = strchr(p, '.') + 1; *d >= '0' && *d <= '9'; d++)
		digits++;
	while (digits < 9) {
		frac *= 10;
		digits++;
	}
	if (sscanf(ev + 20, "target_id=%llu nr_regions=%u %llu-%llu: %u %u", &id, &nr, &start,
		   &end, &na, &age) != 6)
		return 0;
	/* a region that does not follow: events were lost, the partial snapshot goes */
	if (t->open && (id != t->id || t->nr >= t->want ||
			(t->nr && start < t->regions[t->nr - 1].end))) {
		t->open = false;
		t->dropped++;
	}
	if (!t->open) {
		t->open = true;
		t->id = id;
		t->want = nr;
		t->nr = 0;
		t->ts_ns = sec * 1000000000ull + frac;
	}
	if (t->nr >= t->cap) {
		size_t c = t->cap ? t->cap * 2 : 1024;
		void *q = realloc(t->regions, c * sizeof(*t->regions));

		if (!q)
			return -ENOMEM;
		t->regions = q;
		t->cap = c;
	}
	t->regions[t->nr++] = (struct damonctl_rec_region){ start, end, na, age, 0 };
	if (t->nr < t->want)
		return 0;
	/* hand out a copy: the next lines may start the next snapshot at once */
	if (t->nr > t->out_cap) {
		void *q = realloc(t->out, t->nr * sizeof(*t->out));

		if (!q)
			return -ENOMEM;
		t->out = q;
		t->out_cap = t->nr;
	}
	memcpy(t->out, t->regions, t->nr * sizeof(*t->out));
	memset(snap, 0, sizeof(*snap));
	snap->target = index_of(t, id);
	snap->scheme = -1;
	snap->end_ns = (uint64_t)((int64_t)t->ts_ns + t->mono_to_real_ns);
	snap->nr_regions = t->nr;
	snap->regions = t->out;
	for (uint32_t i = 0; i < t->nr; i++)
		snap->total_bytes += t->out[i].end - t->out[i].start;
	t->open = false;
	return 1;
}

int trace_next(struct trace_src *t, int timeout_ms, struct damonctl_rec_snapshot *snap)
{
	for (;;) {
		char *nl;
		ssize_t n;

		while ((nl = memchr(t->buf, '\n', t->len))) {
			size_t used = (size_t)(nl - t->buf) + 1;
			int r;

			*nl = '\0';
			r = parse_line(t, t->buf, snap);
			memmove(t->buf, t->buf + used, t->len - used);
			t->len -= used;
			if (r)
				return r;
		}
		if (t->len == sizeof(t->buf))
			t->len = 0;	/* no line is this long: not ours to read */
		n = read(t->fd, t->buf + t->len, sizeof(t->buf) - t->len);
		if (n > 0) {
			t->len += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		{
			struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
			int pr = poll(&pfd, 1, timeout_ms);

			if (pr == 0 || (pr < 0 && errno == EINTR))
				return 0;
			if (pr < 0)
				return -errno;
		}
	}
}

void trace_close(struct trace_src *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	static const char *const events[] = { EVENT_NAME, NULL };

	tfs_remove(&t->inst, events);
	free(t->regions);
	free(t->out);
	free(t);
}
