// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/rec_select.c: which items of a record a selection keeps (kdamond, target, the first
 * series, a time range from the first snapshot's start) and how it clips regions to an
 * address range, on small hand-made records whose answers are worked out in the comments.
 */
#include <errno.h>
#include <string.h>

#include "common.h"

#define MS 1000000ull		/* ns */
#define T0 (1000 * MS)

/* [0, 100) [100, 300) with 50 filter-passed bytes, [300, 1000) */
static const struct damonctl_rec_region regs[] = {
	{ 0, 100, 1, 0, 0 }, { 100, 300, 2, 0, 50 }, { 300, 1000, 3, 0, 0 },
};

/* A snapshot's item, its struct in @s (the last one made, when NULL) */
static struct damonctl_rec_item snap_in(struct damonctl_rec_snapshot *s, uint32_t kd,
					int32_t target, uint64_t start_ms, uint64_t end_ms)
{
	static struct damonctl_rec_snapshot last;

	if (!s)
		s = &last;
	*s = (struct damonctl_rec_snapshot){ .sz = sizeof(*s), .kdamond = kd, .target = target,
		.scheme = -1, .start_ns = T0 + start_ms * MS, .end_ns = T0 + end_ms * MS,
		.total_bytes = 1000, .nr_regions = 3, .regions = regs };
	return (struct damonctl_rec_item){ .sz = sizeof(struct damonctl_rec_item),
					   .type = DAMONCTL_REC_SNAPSHOT, .snapshot = s };
}

static struct damonctl_rec_item snap(uint32_t kd, int32_t target, uint64_t start_ms,
				     uint64_t end_ms)
{
	return snap_in(NULL, kd, target, start_ms, end_ms);
}

static int feed(struct damonctl_rec_select *sel, struct damonctl_rec_item it)
{
	return damonctl_rec_select_item(sel, &it);
}

static void series(void **state)
{
	struct damonctl_rec_select_opts o = DAMONCTL_REC_SELECT_OPTS_INIT;
	struct damonctl_rec_select *sel;
	struct damonctl_rec_snapshot s = DAMONCTL_REC_SNAPSHOT_INIT;

	(void)state;
	o.kdamond = 1;
	assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
	assert_int_equal(damonctl_rec_select_series(sel, &s), -ENOENT);
	/* kdamond 0 is not asked for, yet its snapshot is the record's first: the origin */
	assert_int_equal(feed(sel, snap(0, 0, 0, 100)), 0);
	assert_int_equal(damonctl_rec_select_base_ns(sel), T0);
	assert_int_equal(damonctl_rec_select_series(sel, &s), -ENOENT);
	/* kdamond 1 target 2 comes first: the series; target 3 is another one */
	assert_int_equal(feed(sel, snap(1, 2, 100, 200)), 1);
	assert_int_equal(feed(sel, snap(1, 3, 100, 200)), 0);
	assert_int_equal(feed(sel, snap(1, 2, 200, 300)), 1);
	assert_int_equal(damonctl_rec_select_series(sel, &s), 0);
	assert_int_equal(s.kdamond, 1);
	assert_int_equal(s.target, 2);
	assert_int_equal(s.scheme, -1);
	damonctl_rec_select_free(sel);

	/* every series, but only target 3 */
	o.kdamond = -1;
	o.target = 3;
	o.one_series = false;
	assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
	assert_int_equal(feed(sel, snap(0, 2, 0, 100)), 0);
	assert_int_equal(feed(sel, snap(0, 3, 0, 100)), 1);
	assert_int_equal(feed(sel, snap(1, 3, 0, 100)), 1);
	assert_int_equal(damonctl_rec_select_series(sel, &s), -ENOENT);
	damonctl_rec_select_free(sel);
}

/* skip_series: each series in turn, in the order of their first snapshots */
static void skipped_series(void **state)
{
	struct damonctl_rec_select_opts o = DAMONCTL_REC_SELECT_OPTS_INIT;
	struct damonctl_rec_select *sel;
	struct damonctl_rec_snapshot s = DAMONCTL_REC_SNAPSHOT_INIT;
	/* (kdamond, target) of a record's snapshots: 0/0 0/1 1/0 0/0 1/0 0/1 */
	static const int rec[][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 0, 0 }, { 1, 0 }, { 0, 1 } };
	/* what skip 0, 1, 2, 3 keep of them: each series' snapshots, none past the last */
	static const int kept[4][6] = { { 1, 0, 0, 1, 0, 0 }, { 0, 1, 0, 0, 0, 1 },
					{ 0, 0, 1, 0, 1, 0 }, { 0 } };

	(void)state;
	for (uint32_t k = 0; k < 4; k++) {
		o.skip_series = k;
		assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
		for (unsigned int i = 0; i < 6; i++)
			assert_int_equal(feed(sel, snap((uint32_t)rec[i][0], rec[i][1], i * 100,
							i * 100 + 100)), kept[k][i]);
		assert_int_equal(damonctl_rec_select_series(sel, &s), k < 3 ? 0 : -ENOENT);
		if (k < 3) {
			assert_int_equal(s.kdamond, rec[k == 0 ? 0 : k == 1 ? 1 : 2][0]);
			assert_int_equal(s.target, rec[k == 0 ? 0 : k == 1 ? 1 : 2][1]);
		}
		damonctl_rec_select_free(sel);
	}
	/* a time range (from 350 ms: the last three snapshots): the series are counted among
	 * the snapshots in it, 0/0 first, then 1/0, then 0/1 (0/1's first, ending at 200 ms,
	 * is out of it) */
	o.time_from_us = 350000;
	for (uint32_t k = 0; k < 3; k++) {
		static const int kept_late[3][6] = { { 0, 0, 0, 1, 0, 0 }, { 0, 0, 0, 0, 1, 0 },
						     { 0, 0, 0, 0, 0, 1 } };

		o.skip_series = k;
		assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
		for (unsigned int i = 0; i < 6; i++)
			assert_int_equal(feed(sel, snap((uint32_t)rec[i][0], rec[i][1], i * 100,
							i * 100 + 100)), kept_late[k][i]);
		damonctl_rec_select_free(sel);
	}
	o.time_from_us = 0;
	/* kdamond 1 only: its one series is the first, nothing after it */
	o.kdamond = 1;
	o.skip_series = 1;
	assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(feed(sel, snap((uint32_t)rec[i][0], rec[i][1], i * 100,
						i * 100 + 100)), 0);
	damonctl_rec_select_free(sel);
}

static void time_range(void **state)
{
	struct damonctl_rec_select_opts o = DAMONCTL_REC_SELECT_OPTS_INIT;
	struct damonctl_rec_item fp = { .sz = sizeof(fp), .type = DAMONCTL_REC_FOOTPRINT };
	struct damonctl_rec_stats stats = DAMONCTL_REC_STATS_INIT;
	struct damonctl_rec_item st = { .sz = sizeof(st), .type = DAMONCTL_REC_STATS,
					.stats = &stats };
	struct damonctl_rec_item end = { .sz = sizeof(end), .type = DAMONCTL_REC_END };
	struct damonctl_rec_select *sel;

	(void)state;
	/* snapshots that ended 150 ms to 300 ms (both included) after the first one began */
	o.time_from_us = 150000;
	o.time_to_us = 300000;
	assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
	/* stats at T0 + 50 ms come first: they set the origin, and are before the range */
	stats.time_ns = T0 + 50 * MS;
	assert_int_equal(damonctl_rec_select_item(sel, &st), 0);
	assert_int_equal(damonctl_rec_select_base_ns(sel), T0 + 50 * MS);
	/* relative ends: 50 ms, 150 ms, 250 ms, 350 ms */
	assert_int_equal(feed(sel, snap(0, 0, 0, 100)), 0);
	assert_int_equal(feed(sel, snap(0, 0, 100, 200)), 1);
	assert_int_equal(feed(sel, snap(0, 0, 200, 300)), 1);
	assert_int_equal(feed(sel, snap(0, 0, 300, 400)), 0);
	/* 350 ms: out; 300 ms exactly: in */
	fp.time_ns = T0 + 400 * MS;
	assert_int_equal(damonctl_rec_select_item(sel, &fp), 0);
	fp.time_ns = T0 + 350 * MS;
	assert_int_equal(damonctl_rec_select_item(sel, &fp), 1);
	/* a time before the origin counts as 0 */
	fp.time_ns = T0;
	assert_int_equal(damonctl_rec_select_item(sel, &fp), 0);
	assert_int_equal(damonctl_rec_select_item(sel, &end), 1);
	damonctl_rec_select_free(sel);

	o.time_from_us = 2;
	o.time_to_us = 1;
	assert_int_equal(damonctl_rec_select_new(&o, &sel), -EINVAL);
	o = (struct damonctl_rec_select_opts)DAMONCTL_REC_SELECT_OPTS_INIT;
	o.sz = sizeof(size_t);
	assert_int_equal(damonctl_rec_select_new(&o, &sel), -EINVAL);
}

static void address_range(void **state)
{
	struct damonctl_rec_select_opts o = DAMONCTL_REC_SELECT_OPTS_INIT;
	struct damonctl_rec_snapshot s;
	struct damonctl_rec_item it = snap_in(&s, 0, 0, 0, 100);
	struct damonctl_rec_select *sel;
	const struct damonctl_rec_region *r;

	(void)state;
	/* no range: the regions are the record's own */
	assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
	assert_int_equal(damonctl_rec_select_item(sel, &it), 1);
	assert_ptr_equal(it.snapshot->regions, regs);
	assert_int_equal(it.snapshot->total_bytes, 1000);
	damonctl_rec_select_free(sel);

	/* [150, 400): [100, 300) cut to [150, 300), 150 of 200 bytes, so 50 * 3/4 = 37.5
	 * filter-passed bytes, rounded down; [300, 1000) cut to [300, 400); [0, 100) out */
	o.addr_start = 150;
	o.addr_end = 400;
	assert_int_equal(damonctl_rec_select_new(&o, &sel), 0);
	assert_int_equal(damonctl_rec_select_item(sel, &it), 1);
	r = it.snapshot->regions;
	assert_int_equal(it.snapshot->nr_regions, 2);
	assert_int_equal(r[0].start, 150);
	assert_int_equal(r[0].end, 300);
	assert_int_equal(r[0].nr_accesses, 2);
	assert_int_equal(r[0].sz_filter_passed, 37);
	assert_int_equal(r[1].start, 300);
	assert_int_equal(r[1].end, 400);
	assert_int_equal(r[1].nr_accesses, 3);
	assert_int_equal(it.snapshot->total_bytes, 150 + 100);
	assert_int_equal(it.snapshot->nr_probes, 0);
	assert_null(it.snapshot->probe_hits);
	/* the record's snapshot and regions are untouched */
	assert_int_equal(regs[1].start, 100);
	assert_int_equal(s.nr_regions, 3);
	assert_ptr_equal(s.regions, regs);
	/* a range that misses every region: an empty snapshot, still kept */
	it = snap_in(&s, 0, 0, 0, 100);
	s.nr_regions = 1;
	assert_int_equal(damonctl_rec_select_item(sel, &it), 1);
	assert_int_equal(it.snapshot->nr_regions, 0);
	assert_int_equal(it.snapshot->total_bytes, 0);
	/* probe hits follow their regions, whole where a region is cut */
	{
		static const uint8_t h[] = { 1, 2, 3, 4, 5, 6 };
		static const uint8_t want[] = { 3, 4, 5, 6 };

		it = snap_in(&s, 0, 0, 0, 100);
		s.nr_probes = 2;
		s.probe_hits = h;
		assert_int_equal(damonctl_rec_select_item(sel, &it), 1);
		assert_int_equal(it.snapshot->nr_regions, 2);
		assert_int_equal(it.snapshot->nr_probes, 2);
		assert_memory_equal(it.snapshot->probe_hits, want, sizeof(want));
		assert_ptr_equal(s.probe_hits, h);
	}
	/* the ops filters the regions' sz_filter_passed are of stay the snapshot's */
	{
		static const char f[] = "[{\"type\":\"anon\",\"matching\":true,\"allow\":true}]";

		it = snap_in(&s, 0, 0, 0, 100);
		s.ops_filters = f;
		assert_int_equal(damonctl_rec_select_item(sel, &it), 1);
		assert_ptr_not_equal(it.snapshot, &s);	/* the clipped copy */
		assert_int_equal(it.snapshot->nr_regions, 2);
		assert_ptr_equal(it.snapshot->ops_filters, f);
		/* a caller's snapshot too short for them: none */
		it = snap_in(&s, 0, 0, 0, 100);
		s.ops_filters = f;
		s.sz = offsetof(struct damonctl_rec_snapshot, ops_filters);
		assert_int_equal(damonctl_rec_select_item(sel, &it), 1);
		assert_null(it.snapshot->ops_filters);
	}
	/* items and snapshots shorter than the first ones with sz */
	it = snap_in(&s, 0, 0, 0, 100);
	it.sz = offsetof(struct damonctl_rec_item, end);
	assert_int_equal(damonctl_rec_select_item(sel, &it), -EINVAL);
	it = snap_in(&s, 0, 0, 0, 100);
	s.sz = offsetof(struct damonctl_rec_snapshot, regions);
	assert_int_equal(damonctl_rec_select_item(sel, &it), -EINVAL);
	damonctl_rec_select_free(sel);
}

static void parse(void **state)
{
	struct damonctl_rec_select_opts o = DAMONCTL_REC_SELECT_OPTS_INIT;
	size_t bad = 99;

	(void)state;
	/* 5 s to 1 min, in microseconds */
	assert_int_equal(damonctl_rec_select_parse_time("5s,1m", &o, &bad), 0);
	assert_int_equal(o.time_from_us, 5000000);
	assert_int_equal(o.time_to_us, 60000000);
	/* either side empty: from 0, to the end */
	assert_int_equal(damonctl_rec_select_parse_time(",2s", &o, &bad), 0);
	assert_int_equal(o.time_from_us, 0);
	assert_int_equal(o.time_to_us, 2000000);
	assert_int_equal(damonctl_rec_select_parse_time("3s,", &o, &bad), 0);
	assert_int_equal(o.time_from_us, 3000000);
	assert_true(o.time_to_us == UINT64_MAX);
	/* errors leave @o as it was */
	assert_int_equal(damonctl_rec_select_parse_time("5s", &o, &bad), -EINVAL);
	assert_int_equal(damonctl_rec_select_parse_time("x,1m", &o, &bad), -EBADMSG);
	assert_int_equal(bad, 0);
	/* "10s," is 4 characters: END starts at 4 */
	assert_int_equal(damonctl_rec_select_parse_time("10s,y", &o, &bad), -EBADMSG);
	assert_int_equal(bad, 4);
	assert_int_equal(damonctl_rec_select_parse_time("2s,1s", &o, &bad), -ERANGE);
	assert_int_equal(o.time_from_us, 3000000);

	/* 0x100000 = 1 MiB; 4M = 4 MiB */
	assert_int_equal(damonctl_rec_select_parse_addr("0x100000-4M", &o), 0);
	assert_int_equal(o.addr_start, 1 << 20);
	assert_int_equal(o.addr_end, 4 << 20);
	assert_int_equal(damonctl_rec_select_parse_addr("4096-8192", &o), 0);
	assert_int_equal(o.addr_start, 4096);
	assert_int_equal(o.addr_end, 8192);
	assert_int_equal(damonctl_rec_select_parse_addr("4096", &o), -EINVAL);
	assert_int_equal(damonctl_rec_select_parse_addr("-4096", &o), -EINVAL);
	assert_int_equal(damonctl_rec_select_parse_addr("4096-zz", &o), -EBADMSG);
	assert_int_equal(damonctl_rec_select_parse_addr("8192-4096", &o), -ERANGE);
	assert_int_equal(damonctl_rec_select_parse_addr("4096-4096", &o), -ERANGE);
	assert_int_equal(o.addr_start, 4096);
	assert_int_equal(o.addr_end, 8192);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(series),
		cmocka_unit_test(skipped_series),
		cmocka_unit_test(time_range),
		cmocka_unit_test(address_range),
		cmocka_unit_test(parse),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
