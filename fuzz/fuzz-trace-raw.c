// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The binary ring buffer reader of `damonc record --method trace` (cmd/trace_raw.c) and the
 * snapshot assembler after it (cmd/trace_snap.c). A page comes from the kernel, but a
 * kernel whose layouts differ from what the format files say, or a torn read, must not make
 * the decoder read outside the page or hand out events it did not find there. The first
 * byte picks what the rest is: 0 a format file, 1 a header_page file, else one page decoded
 * with Linux 7.2's layouts and its events assembled into snapshots.
 */
#include <stdbool.h>
#include <stdio.h>

#include "cmd/trace_raw.h"
#include "cmd/trace_snap.h"
#include "fuzz.h"
#include "tests/unit/trace-raw-formats.h"

struct feed {
	struct trace_snap snap;
	size_t events, max_events;
};

static int feed(void *arg, const struct traw_event *ev)
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
	static struct traw_format f72;
	static struct traw_layout l72;
	struct traw_format f;
	struct traw_layout l;
	bool missed;

	if (!f72.min_size && (traw_parse_format(format_72, &f72) ||
			      traw_parse_header_page(header_page, &l72)))
		abort();
	if (size < 1)
		return 0;
	if (data[0] < 2) {
		char *s = fuzz_string(data + 1, size - 1);

		if (data[0] == 0 && !traw_parse_format(s, &f) &&
		    (!f.target_id.size || !f.start.size || !f.end.size || f.min_size <
		     f.end.off + f.end.size)) {
			fprintf(stderr, "a format accepted without the fields it needs\n");
			abort();
		}
		if (data[0] == 1)
			traw_parse_header_page(s, &l);
		free(s);
		return 0;
	}

	struct feed fd = { .max_events = (size - 1) / (4 + f72.min_size) + 1 };
	/* a copy of exactly the input's length, so that ASan sees a read past its end */
	unsigned char *page = malloc(size - 1 ? size - 1 : 1);

	if (!page)
		abort();
	memcpy(page, data + 1, size - 1);
	traw_parse_page(&l72, &f72, page, size - 1, feed, &fd, &missed);
	trace_snap_free(&fd.snap);
	free(page);
	return 0;
}
