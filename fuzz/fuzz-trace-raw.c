// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The binary ring buffer reader of `damonc record --method trace` (lib/trace_raw.c) and the
 * snapshot assembler after it (lib/trace_snap.c). A page comes from the kernel, but a
 * kernel whose layouts differ from what the format files say, or a torn read, must not make
 * the decoder read outside the page or hand out events it did not find there. The first
 * byte picks what the rest is: 0 a format file, 1 a header_page file, else one page decoded
 * with Linux 7.2's layouts and its events assembled into snapshots.
 */
#include <stdbool.h>
#include <stdio.h>

#include "lib/trace_snap.h"
#include "fuzz.h"
#include "lib/trace_internal.h"
#include "tests/unit/trace-raw-formats.h"

struct feed {
	struct trace_snap snap;
	size_t events, max_events;
};

static int feed(void *arg, const struct damonctl_trace_region *ev)
{
	struct feed *f = arg;
	struct damonctl_rec_region r = {
		.start = ev->start, .end = ev->end, .nr_accesses = ev->nr_accesses, .age = ev->age,
	};
	struct damonctl_rec_snapshot s;

	/* each event is a record of at least min_size bytes behind a 4-byte header */
	if (++f->events > f->max_events) {
		fprintf(stderr, "%zu events out of a page that holds at most %zu\n", f->events,
			f->max_events);
		abort();
	}
	if (trace_snap_add(&f->snap, ev->ts_ns, ev->target_id, ev->nr_regions, &r, &s) != 1)
		return 0;
	/* the assembler drops what does not follow: a snapshot's regions are in order */
	for (uint32_t i = 1; i < s.nr_regions; i++)
		if (s.regions[i].start < s.regions[i - 1].end) {
			fprintf(stderr, "snapshot region %u starts before region %u ends\n", i,
				i - 1);
			abort();
		}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct damonctl_trace_raw *r72;
	struct damonctl_trace_raw *r;
	bool missed;

	if (!r72 && (damonctl_trace_raw_new(&r72) ||
		     damonctl_trace_raw_set_format(r72, format_72) ||
		     damonctl_trace_raw_set_header_page(r72, header_page)))
		abort();
	if (size < 1)
		return 0;
	if (data[0] < 2) {
		char *s = fuzz_string(data + 1, size - 1);
		const struct traw_format *f;

		if (damonctl_trace_raw_new(&r))
			abort();
		f = &r->fmt;
		if (data[0] == 0 && !damonctl_trace_raw_set_format(r, s) &&
		    (!f->target_id.size || !f->start.size || !f->end.size || f->min_size <
		     f->end.off + f->end.size)) {
			fprintf(stderr, "a format accepted without the fields it needs\n");
			abort();
		}
		if (data[0] == 1)
			damonctl_trace_raw_set_header_page(r, s);
		damonctl_trace_raw_free(r);
		free(s);
		return 0;
	}

	struct feed fd = { .max_events = (size - 1) / (4 + r72->fmt.min_size) + 1 };
	/* a copy of exactly the input's length, so that ASan sees a read past its end */
	unsigned char *page = malloc(size - 1 ? size - 1 : 1);

	if (!page)
		abort();
	memcpy(page, data + 1, size - 1);
	damonctl_trace_raw_parse_page(r72, page, size - 1, feed, &fd, &missed);
	trace_snap_free(&fd.snap);
	free(page);
	return 0;
}
