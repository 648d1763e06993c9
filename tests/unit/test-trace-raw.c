// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The binary ring buffer reader of `damonc record --method trace` (libdamonctl's
 * damonctl_trace_raw_*, lib/trace_raw.c) and the
 * snapshot assembler both readers share (lib/trace_snap.c). The pages are built here from
 * the documented format (kernel/trace/ring_buffer.c, include/linux/ring_buffer.h: a page
 * header of a u64 time stamp and a commit word, then 4-byte event headers of type_len:5
 * and time_delta:27 on little-endian machines), not by the code under test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "trace_internal.h"	/* the layouts read, for test_formats */
#include "lib/trace_snap.h"
#include "tests/unit/trace-raw-formats.h"

/* include/linux/ring_buffer.h's event types and the commit word's flag */
enum { RB_PADDING = 29, RB_TIME_EXTEND = 30, RB_TIME_STAMP = 31 };
#define RB_MISSED_EVENTS (1ull << 31)

/* An older order without age (5.15 had none): the offsets come from the file. */
static const char format_old[] =
	"name: damon_aggregated\n"
	"ID: 77\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int nr_regions;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int nr_accesses;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long target_id;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long start;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long end;\toffset:32;\tsize:8;\tsigned:0;\n";

/* --- pages, built by hand ------------------------------------------------------------ */
#define PAGE 4096
#define HDR 16

struct page {
	unsigned char b[PAGE];
	size_t used;		/* bytes of data */
};

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + HDR + p->used, &v, 4);
	p->used += 4;
}

static void put(struct page *p, const void *v, size_t n)
{
	memcpy(p->b + HDR + p->used, v, n);
	p->used += n;
}

/* little-endian bitfield order: type_len in the low 5 bits */
static uint32_t head(uint32_t type_len, uint32_t delta)
{
	return type_len | delta << 5;
}

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
}

static void page_done(struct page *p, uint64_t flags)
{
	uint64_t commit = p->used | flags;

	memcpy(p->b + 8, &commit, 8);
}

/* A data event: short (type_len = words) or long (type_len 0, array[0] its length). */
static void event(struct page *p, uint32_t delta, const unsigned char *r, size_t n, bool lng)
{
	if (lng) {
		put32(p, head(0, delta));
		put32(p, (uint32_t)(n + 4));
	} else {
		put32(p, head((uint32_t)(n / 4), delta));
	}
	put(p, r, n);
}

static void region(struct page *p, uint32_t delta, uint64_t id, uint32_t nr, uint64_t start,
		   uint64_t end)
{
	unsigned char r[48];

	record72(r, 1403, id, nr, start, end, 5, 9);
	event(p, delta, r, sizeof(r), false);
}

/* A time extend: the delta's low 27 bits in the header, the rest in array[0]. */
static void extend(struct page *p, uint64_t delta)
{
	put32(p, head(RB_TIME_EXTEND, (uint32_t)(delta & ((1u << 27) - 1))));
	put32(p, (uint32_t)(delta >> 27));
}

static void stamp(struct page *p, uint64_t ts)
{
	put32(p, head(RB_TIME_STAMP, (uint32_t)(ts & ((1u << 27) - 1))));
	put32(p, (uint32_t)(ts >> 27));
}

/* A discarded event of @n data bytes: padding, array[0] its length. */
static void discarded(struct page *p, uint32_t delta, size_t n)
{
	put32(p, head(RB_PADDING, delta));
	put32(p, (uint32_t)(n + 4));
	memset(p->b + HDR + p->used, 0xee, n);
	p->used += n;
}

/* The unused end of a page: padding with no delta. */
static void end_padding(struct page *p)
{
	put32(p, head(RB_PADDING, 0));
}

/* --- what the parser hands out --------------------------------------------------------- */
struct got {
	struct damonctl_trace_region ev[16];
	int n;
};

static int collect(void *arg, const struct damonctl_trace_region *ev)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	g->ev[g->n++] = *ev;
	return 0;
}

static void setup(struct damonctl_trace_raw **r)
{
	assert_int_equal(damonctl_trace_raw_new(r), 0);
	assert_int_equal(damonctl_trace_raw_set_format(*r, format_72), 0);
	assert_int_equal(damonctl_trace_raw_set_header_page(*r, header_page), 0);
}

static void test_formats(void **state)
{
	struct damonctl_trace_raw *r;

	(void)state;
	setup(&r);
	assert_int_equal(r->fmt.id, 1403);
	assert_int_equal(r->fmt.type.off, 0);
	assert_int_equal(r->fmt.type.size, 2);
	assert_int_equal(r->fmt.target_id.off, 8);
	assert_int_equal(r->fmt.nr_regions.off, 16);
	assert_int_equal(r->fmt.nr_regions.size, 4);
	assert_int_equal(r->fmt.start.off, 24);
	assert_int_equal(r->fmt.end.off, 32);
	assert_int_equal(r->fmt.nr_accesses.off, 40);
	assert_int_equal(r->fmt.age.off, 44);
	assert_int_equal(r->fmt.min_size, 48);
	assert_int_equal(r->lay.timestamp.off, 0);
	assert_int_equal(r->lay.commit.off, 8);
	assert_int_equal(r->lay.commit.size, 8);
	assert_int_equal(r->lay.data.off, 16);
	assert_int_equal(r->lay.page_size, 4096);

	assert_int_equal(damonctl_trace_raw_set_format(r, format_old), 0);
	assert_int_equal(r->fmt.id, 77);
	assert_int_equal(r->fmt.target_id.off, 16);
	assert_int_equal(r->fmt.nr_accesses.off, 12);
	assert_int_equal(r->fmt.age.size, 0);
	assert_int_equal(r->fmt.min_size, 40);

	/* without nr_accesses damonc cannot use it */
	assert_int_equal(damonctl_trace_raw_set_format(r, "ID: 5\n\tfield:unsigned short "
						       "common_type;\toffset:0;\tsize:2;"
						       "\tsigned:0;\n"), -EINVAL);
	assert_int_equal(damonctl_trace_raw_set_header_page(r, "nothing"), -EINVAL);
	/* a refused file leaves what was read before */
	assert_int_equal(r->fmt.id, 77);
	assert_int_equal(damonctl_trace_raw_page_size(r), 4096);
	damonctl_trace_raw_free(r);

	/* nothing to decode with before both files are read */
	assert_int_equal(damonctl_trace_raw_new(&r), 0);
	assert_int_equal(damonctl_trace_raw_page_size(r), 0);
	assert_int_equal(damonctl_trace_raw_set_format(r, format_72), 0);
	{
		static const unsigned char page[64];
		bool missed = true;

		assert_int_equal(damonctl_trace_raw_parse_page(r, page, sizeof(page), NULL, NULL,
							       &missed), -EINVAL);
		assert_false(missed);
	}
	damonctl_trace_raw_free(r);
}

/* Short and long records, a time extend, a discarded event, an absolute time stamp. */
static void test_page_events(void **state)
{
	struct damonctl_trace_raw *r;
	struct page p;
	struct got g = { .n = 0 };
	unsigned char rec[48];
	bool missed = true;

	(void)state;
	setup(&r);
	page_init(&p, 1000000000ull);
	region(&p, 100, 0, 3, 4096, 8192);			/* 1000000100 */
	extend(&p, 5000000000ull);				/* a delta over 27 bits */
	record72(rec, 1403, 0, 3, 8192, 12288, 7, 2);
	event(&p, 50, rec, sizeof(rec), true);			/* 6000000150 */
	discarded(&p, 30, 48);					/* + 30 */
	record72(rec, 999, 0, 3, 0, 1, 0, 0);			/* another event: skipped */
	event(&p, 20, rec, sizeof(rec), false);			/* + 20 */
	stamp(&p, 7000000000ull);
	region(&p, 0, 0, 3, 12288, 20480);			/* 7000000000 */
	end_padding(&p);
	page_done(&p, 0);

	assert_int_equal(damonctl_trace_raw_parse_page(r, p.b, PAGE, collect, &g, &missed), 0);
	assert_false(missed);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.ev[0].ts_ns, 1000000100ull);
	assert_int_equal(g.ev[0].start, 4096);
	assert_int_equal(g.ev[0].end, 8192);
	assert_int_equal(g.ev[0].nr_regions, 3);
	assert_int_equal(g.ev[0].nr_accesses, 5);
	assert_int_equal(g.ev[0].age, 9);
	assert_int_equal(g.ev[1].ts_ns, 6000000150ull);
	assert_int_equal(g.ev[1].start, 8192);
	assert_int_equal(g.ev[1].nr_accesses, 7);
	assert_int_equal(g.ev[1].age, 2);
	assert_int_equal(g.ev[2].ts_ns, 7000000000ull);
	assert_int_equal(g.ev[2].end, 20480);
	damonctl_trace_raw_free(r);
}

/* Padding ends the page's data: nothing after it counts, whatever the commit says. */
static void test_padding_ends_page(void **state)
{
	struct damonctl_trace_raw *r;
	struct page p;
	struct got g = { .n = 0 };
	bool missed;

	(void)state;
	setup(&r);
	page_init(&p, 10);
	region(&p, 1, 0, 2, 0, 4096);
	end_padding(&p);
	region(&p, 1, 0, 2, 4096, 8192);
	page_done(&p, 0);
	assert_int_equal(damonctl_trace_raw_parse_page(r, p.b, PAGE, collect, &g, &missed), 0);
	assert_int_equal(g.n, 1);
	damonctl_trace_raw_free(r);
}

/* Events lost before a page; a page that does not add up. */
static void test_missed_and_bad(void **state)
{
	struct damonctl_trace_raw *r;
	struct page p;
	struct got g = { .n = 0 };
	bool missed = false;

	(void)state;
	setup(&r);
	page_init(&p, 10);
	region(&p, 1, 0, 2, 0, 4096);
	page_done(&p, RB_MISSED_EVENTS);
	assert_int_equal(damonctl_trace_raw_parse_page(r, p.b, PAGE, collect, &g, &missed), 0);
	assert_true(missed);
	assert_int_equal(g.n, 1);

	/* a commit beyond what was read */
	assert_int_equal(damonctl_trace_raw_parse_page(r, p.b, 40, collect, &g, &missed), -EINVAL);
	/* a record running past the commit */
	page_init(&p, 10);
	region(&p, 1, 0, 2, 0, 4096);
	p.used -= 8;
	page_done(&p, 0);
	g.n = 0;
	assert_int_equal(damonctl_trace_raw_parse_page(r, p.b, PAGE, collect, &g, &missed),
			 -EINVAL);
	assert_int_equal(g.n, 0);
	damonctl_trace_raw_free(r);
}

/* --- snapshots across pages ------------------------------------------------------------ */
struct feed {
	struct trace_snap s;
	struct damonctl_rec_snapshot snap;
	int done;
	uint32_t nr_done[4];
	uint64_t ts_done[4];
};

static int to_snap(void *arg, const struct damonctl_trace_region *ev)
{
	struct feed *fd = arg;
	struct damonctl_rec_region r = { ev->start, ev->end, ev->nr_accesses, ev->age, 0 };
	int ret = trace_snap_add(&fd->s, ev->ts_ns, ev->target_id, ev->nr_regions, &r, &fd->snap);

	assert_true(ret >= 0);
	if (ret == 1) {
		fd->nr_done[fd->done] = fd->snap.nr_regions;
		fd->ts_done[fd->done++] = fd->snap.end_ns;
		assert_int_equal(fd->snap.target, 1);
		assert_int_equal(fd->snap.regions[0].start, 0);
		assert_int_equal(fd->snap.regions[fd->snap.nr_regions - 1].end,
				 (uint64_t)fd->snap.nr_regions * 4096);
		assert_int_equal(fd->snap.total_bytes, (uint64_t)fd->snap.nr_regions * 4096);
	}
	return 0;
}

/* One snapshot of 80 regions over two pages: the first full to its last bytes' padding. */
static void test_snapshot_across_pages(void **state)
{
	struct damonctl_trace_raw *r;
	struct page a, b;
	struct feed fd;
	bool missed;
	int i;

	(void)state;
	memset(&fd, 0, sizeof(fd));
	setup(&r);
	page_init(&a, 5000);
	/* 52 bytes a region: 78 fit in the 4080 bytes of data, 24 bytes left */
	for (i = 0; i < 78; i++)
		region(&a, i ? 2 : 0, 1, 80, (uint64_t)i * 4096, (uint64_t)(i + 1) * 4096);
	/* the writer's padding of the page's end: a length, the delta at least 1 */
	put32(&a, head(RB_PADDING, 1));
	put32(&a, (uint32_t)(PAGE - HDR - a.used - 4));
	page_done(&a, 0);
	page_init(&b, 5000 + 77 * 2 + 3);
	region(&b, 0, 1, 80, 78 * 4096, 79 * 4096);
	region(&b, 2, 1, 80, 79 * 4096, 80 * 4096);
	/* the next aggregation begins on the same page */
	region(&b, 100000, 1, 80, 0, 4096);
	page_done(&b, 0);

	assert_int_equal(damonctl_trace_raw_parse_page(r, a.b, PAGE, to_snap, &fd, &missed), 0);
	assert_int_equal(fd.done, 0);
	assert_int_equal(damonctl_trace_raw_parse_page(r, b.b, PAGE, to_snap, &fd, &missed), 0);
	assert_int_equal(fd.done, 1);
	assert_int_equal(fd.nr_done[0], 80);
	assert_int_equal(fd.ts_done[0], 5000);	/* its first event's time */
	assert_true(fd.s.open);
	assert_int_equal(fd.s.nr, 1);
	assert_int_equal(fd.s.dropped, 0);
	trace_snap_free(&fd.s);
	damonctl_trace_raw_free(r);
}

/* A snapshot whose middle was lost is dropped, not glued to the next one. */
static void test_snapshot_lost(void **state)
{
	struct trace_snap s;
	struct damonctl_rec_snapshot snap;
	struct damonctl_rec_region r = { 0, 4096, 1, 1, 0 };

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(trace_snap_add(&s, 1, 0, 3, &r, &snap), 0);
	trace_snap_lost(&s);
	r = (struct damonctl_rec_region){ 0, 4096, 1, 1, 0 };
	assert_int_equal(trace_snap_add(&s, 2, 0, 2, &r, &snap), 0);
	r = (struct damonctl_rec_region){ 4096, 8192, 1, 1, 0 };
	assert_int_equal(trace_snap_add(&s, 3, 0, 2, &r, &snap), 1);
	assert_int_equal(snap.nr_regions, 2);
	assert_int_equal(snap.end_ns, 2);
	assert_int_equal(s.dropped, 1);
	/* out of order: a new snapshot starts */
	r = (struct damonctl_rec_region){ 8192, 12288, 1, 1, 0 };
	assert_int_equal(trace_snap_add(&s, 4, 0, 2, &r, &snap), 0);
	r = (struct damonctl_rec_region){ 0, 4096, 1, 1, 0 };
	assert_int_equal(trace_snap_add(&s, 5, 0, 2, &r, &snap), 0);
	assert_int_equal(s.dropped, 2);
	trace_snap_free(&s);
}

/* trace_pipe's text: damon_aggregated's lines, and 7.2's damon_region_aggregated with each
 * region's probe hits (damo's test lines), assembled into a snapshot with its hits. */
static void test_text_lines(void **state)
{
	char l1[] = "  kdamond.0-174  [000] ..... 123.456789: damon_aggregated: target_id=0 "
		    "nr_regions=12 4194304-79998976: 3 60";
	char l2[] = "kdamond.0-9 [001] d..1. 10.5: damon_region_aggregated: target_id=0 "
		    "nr_regions=2 0-4096: 0 600 probe_hits=13 00";
	char l3[] = "kdamond.0-9 [001] d..1. 10.5: damon_region_aggregated: target_id=0 "
		    "nr_regions=2 4096-12288: 13 27 probe_hits=12 0f";
	char l4[] = "kdamond.0-9 [001] d..1. 11.0: damon_region_aggregated: target_id=0 "
		    "nr_regions=1 0-4096: 0 600 probe_hits=";
	char other[] = "kdamond.0-9 [001] 11.0: damos_esz: ctx_idx=0 scheme_idx=0 esz=4096";
	char l5[] = "kdamond.0-9 [001] d..1. 12.0: damon_region_aggregated: target_id=0 "
		    "nr_regions=2 0-4096: 0 600 probe_hits=ff";
	char l6[] = "kdamond.0-9 [001] d..1. 12.0: damon_region_aggregated: target_id=0 "
		    "nr_regions=2 4096-8192: 0 600 probe_hits=01 02";
	static const uint8_t want[] = { 0x13, 0x00, 0x12, 0x0f };
	struct damonctl_rec_snapshot snap;
	struct trace_line_region l;
	struct trace_snap s;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_true(trace_snap_parse_line(l1, "damon_aggregated", false, &l));
	assert_int_equal(l.ts_ns, 123456789000ull);
	assert_int_equal(l.nr_regions, 12);
	assert_int_equal(l.region.start, 4194304);
	assert_int_equal(l.region.end, 79998976);
	assert_int_equal(l.region.nr_accesses, 3);
	assert_int_equal(l.region.age, 60);
	assert_int_equal(l.nr_probes, 0);
	assert_false(trace_snap_parse_line(other, "damon_region_aggregated", true, &l));
	assert_true(trace_snap_parse_line(l2, "damon_region_aggregated", true, &l));
	assert_int_equal(l.nr_probes, 2);
	assert_int_equal(trace_snap_add_hits(&s, l.ts_ns, l.target_id, l.nr_regions, &l.region,
					     l.hits, l.nr_probes, &snap), 0);
	assert_true(trace_snap_parse_line(l3, "damon_region_aggregated", true, &l));
	assert_int_equal(trace_snap_add_hits(&s, l.ts_ns, l.target_id, l.nr_regions, &l.region,
					     l.hits, l.nr_probes, &snap), 1);
	assert_int_equal(snap.nr_regions, 2);
	assert_int_equal(snap.regions[1].nr_accesses, 13);
	assert_int_equal(snap.nr_probes, 2);
	assert_memory_equal(snap.probe_hits, want, sizeof(want));
	/* "probe_hits=" and nothing: no probes */
	assert_true(trace_snap_parse_line(l4, "damon_region_aggregated", true, &l));
	assert_int_equal(l.nr_probes, 0);
	assert_int_equal(trace_snap_add_hits(&s, l.ts_ns, l.target_id, l.nr_regions, &l.region,
					     l.hits, l.nr_probes, &snap), 1);
	assert_int_equal(snap.nr_probes, 0);
	assert_null(snap.probe_hits);
	/* a region of another number of probes: the partial snapshot is dropped */
	assert_true(trace_snap_parse_line(l5, "damon_region_aggregated", true, &l));
	assert_int_equal(trace_snap_add_hits(&s, l.ts_ns, l.target_id, l.nr_regions, &l.region,
					     l.hits, l.nr_probes, &snap), 0);
	assert_true(trace_snap_parse_line(l6, "damon_region_aggregated", true, &l));
	assert_int_equal(trace_snap_add_hits(&s, l.ts_ns, l.target_id, l.nr_regions, &l.region,
					     l.hits, l.nr_probes, &snap), 0);
	assert_int_equal(s.dropped, 1);
	trace_snap_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_page_events),
		cmocka_unit_test(test_padding_ends_page),
		cmocka_unit_test(test_missed_and_bad),
		cmocka_unit_test(test_snapshot_across_pages),
		cmocka_unit_test(test_snapshot_lost),
		cmocka_unit_test(test_text_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
