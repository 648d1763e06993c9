// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Capture through the damon:damon_aggregated trace event (Linux 5.15 on): a tracefs
 * instance of our own, the event filtered to one kdamond's pid, read from its binary ring
 * buffer (or trace_pipe's text). It writes nothing under the DAMON sysfs tree and sees every
 * aggregation; tried_regions costs four sysfs files a region per snapshot. A kdamond with
 * access probes (7.2) is traced through damon_region_aggregated, the same event with each
 * region's probe hits, read as trace_pipe's text: the binary decoder knows
 * damon_aggregated's record only.
 */
#include <dirent.h>
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

#include "capture_internal.h"
#include "trace_snap.h"

#define EVENT_NAME "damon/damon_aggregated"
#define EVENT "events/" EVENT_NAME
#define PROBES_EVENT_NAME "damon/damon_region_aggregated"

/*
 * An event that reached the ring buffer up to this long before we started reading a CPU's
 * buffer is surely in what we read (committed): later ones may still come, from any CPU.
 */
#define RAW_SETTLE_NS 10000000ll

struct raw_ev {
	struct damonctl_trace_region ev;
	bool lost;			/* the kernel lost events on this CPU before it */
};

struct raw_cpu {
	int fd;				/* per_cpu/cpuN/trace_pipe_raw */
	struct raw_ev *q;		/* decoded, not yet handed to the assembler */
	size_t head, nr, cap;
	bool lost;
};

struct dctl_trace_src {
	struct damonctl_trace_instance *inst;	/* instances/damonc-record-PID */
	int64_t mono_to_real_ns;	/* trace clock "mono" to CLOCK_REALTIME */
	bool mono;			/* the trace clock is CLOCK_MONOTONIC */
	struct trace_snap snap;
	const char *event;		/* EVENT_NAME or PROBES_EVENT_NAME */
	bool probes;			/* PROBES_EVENT_NAME: lines end with probe_hits */
	bool raw;
	/* trace_pipe's text */
	int fd;
	char buf[1 << 16];
	size_t off, len;
	/* the binary ring buffer, per CPU */
	struct damonctl_trace_raw *dec;	/* the record's and the page's layouts */
	size_t page_size;
	struct raw_cpu *cpus;
	unsigned int nr_cpus;
	unsigned char *page;
	uint64_t settled_ns;		/* events up to this time are all read */
};

bool dctl_trace_src_available(struct damonctl_ctx *ctx)
{
	return damonctl_trace_has_event(ctx, EVENT_NAME);
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The binary reader: the record's and the page's layouts, one fd per CPU. */
static int raw_open(struct dctl_trace_src *t)
{
	char text[16384];
	char dir[4200];
	struct dirent *de;
	DIR *d;
	int r;

	r = damonctl_trace_raw_new(&t->dec);
	if (r)
		return r;
	if (damonctl_trace_instance_get(t->inst, EVENT "/format", text, sizeof(text)) <= 0 ||
	    damonctl_trace_raw_set_format(t->dec, text))
		return -EOPNOTSUPP;
	if (damonctl_trace_instance_get(t->inst, "events/header_page", text, sizeof(text)) <= 0 ||
	    damonctl_trace_raw_set_header_page(t->dec, text))
		return -EOPNOTSUPP;
	t->page_size = damonctl_trace_raw_page_size(t->dec);
	t->page = malloc(t->page_size);
	if (!t->page)
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "%s/per_cpu", damonctl_trace_instance_dir(t->inst));
	d = opendir(dir);
	if (!d)
		return -errno;
	r = 0;
	while (!r && (de = readdir(d))) {
		char file[300];
		unsigned int cpu;
		void *q;
		int fd;

		if (sscanf(de->d_name, "cpu%u", &cpu) != 1)
			continue;
		snprintf(file, sizeof(file), "per_cpu/%s/trace_pipe_raw", de->d_name);
		fd = damonctl_trace_instance_open(t->inst, file);
		if (fd < 0) {
			r = fd;
			break;
		}
		q = realloc(t->cpus, (t->nr_cpus + 1) * sizeof(*t->cpus));
		if (!q) {
			close(fd);
			r = -ENOMEM;
			break;
		}
		t->cpus = q;
		t->cpus[t->nr_cpus++] = (struct raw_cpu){ .fd = fd };
	}
	closedir(d);
	if (!r && !t->nr_cpus)
		r = -EOPNOTSUPP;
	/* poll() says readable at the first event, not when the buffer is half full */
	if (!r)
		damonctl_trace_instance_put(t->inst, "buffer_percent", "0");
	return r;
}

static void raw_close(struct dctl_trace_src *t)
{
	for (unsigned int i = 0; i < t->nr_cpus; i++) {
		close(t->cpus[i].fd);
		free(t->cpus[i].q);
	}
	free(t->cpus);
	free(t->page);
	damonctl_trace_raw_free(t->dec);
	t->dec = NULL;
	t->cpus = NULL;
	t->nr_cpus = 0;
	t->page = NULL;
}

int dctl_trace_src_open(struct damonctl_ctx *ctx, int kdamond_pid,
			enum damonctl_capture_reader reader, bool probes,
			struct dctl_trace_src **out)
{
	struct dctl_trace_src *t = calloc(1, sizeof(*t));
	char filter[64], file[128];
	int r;

	if (!t)
		return -ENOMEM;
	t->fd = -1;
	/* the probe hits come in their own event, as text; a raw reader asked for (the
	 * benchmark's) keeps damon_aggregated, without them */
	t->probes = probes && reader != DAMONCTL_CAPTURE_READER_RAW &&
		    damonctl_trace_has_event(ctx, PROBES_EVENT_NAME);
	t->event = t->probes ? PROBES_EVENT_NAME : EVENT_NAME;
	if (t->probes)
		reader = DAMONCTL_CAPTURE_READER_TEXT;
	r = damonctl_trace_instance_create(ctx, "damonc-record", &t->inst);
	if (r) {
		free(t);
		return r;
	}
	/* our own ring buffer: big enough for a burst of aggregations while we sleep */
	damonctl_trace_instance_put(t->inst, "buffer_size_kb", "4096");
	/* "mono" is CLOCK_MONOTONIC: convertible to wall-clock time */
	t->mono = !damonctl_trace_instance_put(t->inst, "trace_clock", "mono");
	if (!t->mono)
		damonctl_trace_instance_put(t->inst, "trace_clock", "global");
	t->mono_to_real_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	snprintf(filter, sizeof(filter), "common_pid == %d", kdamond_pid);
	snprintf(file, sizeof(file), "events/%s/filter", t->event);
	r = damonctl_trace_instance_put(t->inst, file, filter);
	snprintf(file, sizeof(file), "events/%s/enable", t->event);
	if (!r)
		r = damonctl_trace_instance_put(t->inst, file, "1");
	/*
	 * The binary ring buffer costs less than trace_pipe's text (tests/bench/trace-read.sh);
	 * the text stays for kernels whose layouts we cannot read. The caller may pick one
	 * (for that benchmark).
	 */
	if (!r && reader != DAMONCTL_CAPTURE_READER_TEXT) {
		r = raw_open(t);
		t->raw = !r;
		if (r && reader == DAMONCTL_CAPTURE_READER_AUTO) {
			raw_close(t);
			r = 0;
		}
	}
	if (!r && !t->raw) {
		t->fd = damonctl_trace_instance_open_pipe(t->inst);
		if (t->fd < 0)
			r = t->fd;
	}
	if (r) {
		dctl_trace_src_close(t);
		return r;
	}
	*out = t;
	return 0;
}

static int snap_done(struct dctl_trace_src *t, struct damonctl_rec_snapshot *snap)
{
	snap->end_ns = (uint64_t)((int64_t)snap->end_ns + t->mono_to_real_ns);
	return 1;
}

/* One line of trace_pipe's text: 1 when it completes a target's snapshot, 0 otherwise. */
static int parse_line(struct dctl_trace_src *t, char *line,
		      struct damonctl_rec_snapshot *snap)
{
	struct trace_line_region l;
	int r;

	if (!trace_snap_parse_line(line, strchr(t->event, '/') + 1, t->probes, &l))
		return 0;
	r = trace_snap_add_hits(&t->snap, l.ts_ns, l.target_id, l.nr_regions, &l.region, l.hits,
				l.nr_probes, snap);
	return r == 1 ? snap_done(t, snap) : r;
}

static int text_next(struct dctl_trace_src *t, int timeout_ms,
		     struct damonctl_rec_snapshot *snap)
{
	for (;;) {
		char *nl;
		ssize_t n;

		/* lines from t->off on; moved to the front once a read's lines are done with */
		while ((nl = memchr(t->buf + t->off, '\n', t->len - t->off))) {
			char *line = t->buf + t->off;
			int r;

			*nl = '\0';
			t->off = (size_t)(nl - t->buf) + 1;
			r = parse_line(t, line, snap);
			if (r)
				return r;
		}
		memmove(t->buf, t->buf + t->off, t->len - t->off);
		t->len -= t->off;
		t->off = 0;
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

static int raw_push(void *arg, const struct damonctl_trace_region *ev)
{
	struct raw_cpu *c = arg;

	if (c->nr == c->cap) {
		if (c->head) {
			memmove(c->q, c->q + c->head, (c->nr - c->head) * sizeof(*c->q));
			c->nr -= c->head;
			c->head = 0;
		} else {
			size_t cap = c->cap ? c->cap * 2 : 1024;
			void *q = realloc(c->q, cap * sizeof(*c->q));

			if (!q)
				return -ENOMEM;
			c->q = q;
			c->cap = cap;
		}
	}
	c->q[c->nr++] = (struct raw_ev){ *ev, c->lost };
	c->lost = false;
	return 0;
}

/* Read every CPU's buffer empty; *got: something was read. */
static int raw_fill(struct dctl_trace_src *t, bool *got)
{
	uint64_t settled = UINT64_MAX;

	*got = false;
	for (unsigned int i = 0; i < t->nr_cpus; i++) {
		struct raw_cpu *c = &t->cpus[i];
		uint64_t early = (uint64_t)(clock_ns(CLOCK_MONOTONIC) - RAW_SETTLE_NS);

		if (early < settled)
			settled = early;
		for (;;) {
			ssize_t n = read(c->fd, t->page, t->page_size);
			bool missed;
			int r;

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0)
				return -errno;
			if (n == 0)
				break;
			*got = true;
			r = damonctl_trace_raw_parse_page(t->dec, t->page, (size_t)n, raw_push, c,
							  &missed);
			if (missed)
				c->lost = true;
			if (r == -ENOMEM)
				return r;
			/* a page that does not add up: what follows it on the page is lost */
			if (r)
				c->lost = true;
		}
	}
	/* with another trace clock, no telling: take everything read */
	t->settled_ns = t->mono ? settled : UINT64_MAX;
	return 0;
}

/* Hand the settled events to the assembler in time order (the kdamond may change CPUs). */
static int raw_emit(struct dctl_trace_src *t, struct damonctl_rec_snapshot *snap)
{
	for (;;) {
		struct raw_cpu *best = NULL;
		struct raw_ev *e;
		int r;

		for (unsigned int i = 0; i < t->nr_cpus; i++) {
			struct raw_cpu *c = &t->cpus[i];

			if (c->head < c->nr &&
			    (!best || c->q[c->head].ev.ts_ns < best->q[best->head].ev.ts_ns))
				best = c;
		}
		if (!best || best->q[best->head].ev.ts_ns > t->settled_ns)
			return 0;
		e = &best->q[best->head++];
		if (best->head == best->nr)
			best->head = best->nr = 0;
		if (e->lost)
			trace_snap_lost(&t->snap);
		r = trace_snap_add(&t->snap, e->ev.ts_ns, e->ev.target_id, e->ev.nr_regions,
				   &(struct damonctl_rec_region){ e->ev.start, e->ev.end,
								  e->ev.nr_accesses, e->ev.age, 0 },
				   snap);
		if (r)
			return r == 1 ? snap_done(t, snap) : r;
	}
}

static int raw_next(struct dctl_trace_src *t, int timeout_ms,
		    struct damonctl_rec_snapshot *snap)
{
	int64_t deadline = clock_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
	struct pollfd pfd[64];
	unsigned int nfd = t->nr_cpus < 64 ? t->nr_cpus : 64;

	for (;;) {
		bool got, held = false;
		int64_t left;
		int r;

		r = raw_fill(t, &got);
		if (!r)
			r = raw_emit(t, snap);
		if (r)
			return r;
		if (got)
			continue;
		left = (deadline - clock_ns(CLOCK_MONOTONIC)) / 1000000;
		if (left <= 0)
			return 0;
		for (unsigned int i = 0; i < t->nr_cpus; i++)
			held |= t->cpus[i].head < t->cpus[i].nr;
		/* events held back settle within RAW_SETTLE_NS: look again then */
		if (held && left > RAW_SETTLE_NS / 1000000)
			left = RAW_SETTLE_NS / 1000000;
		for (unsigned int i = 0; i < nfd; i++)
			pfd[i] = (struct pollfd){ .fd = t->cpus[i].fd, .events = POLLIN };
		if (poll(pfd, nfd, (int)left) < 0 && errno != EINTR)
			return -errno;
		/* more than 64 CPUs: those beyond are read on the next round */
	}
}

int dctl_trace_src_next(struct dctl_trace_src *t, int timeout_ms,
			struct damonctl_rec_snapshot *snap)
{
	return t->raw ? raw_next(t, timeout_ms, snap) : text_next(t, timeout_ms, snap);
}

void dctl_trace_src_close(struct dctl_trace_src *t)
{
	const char *events[] = { NULL, NULL };

	if (!t)
		return;
	events[0] = t->event;
	if (t->fd >= 0)
		close(t->fd);
	raw_close(t);
	damonctl_trace_instance_remove(t->inst, events);
	trace_snap_free(&t->snap);
	free(t);
}
