// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The engine's algorithms in-process, on emulated physical memory with a simulated clock:
 * no sleeping, a fixed random seed, known scenarios. Each test checks an outcome the kernel's
 * algorithm guarantees (hot found hot, region counts within bounds, quotas honoured, tuners
 * converging...), not exact numbers of one run.
 *
 *   unit-test [TEST]       all tests, or one
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctx.h"
#include "filters.h"
#include "helpers.h"
#include "metrics.h"
#include "monitor.h"
#include "params.h"
#include "quota.h"
#include "regions.h"
#include "scenario.h"
#include "vaddr.h"
#include "walk.h"

#define MiB (1ull << 20)

static struct emu_scheme scheme_all(enum emu_action action)
{
	return (struct emu_scheme){
		.action = action,
		.target_nid = -1,
		.sz = { 0, UINT64_MAX },
		.nr_accesses = { 0, UINT32_MAX },
		.age = { 0, UINT32_MAX },
		.quota_reset_interval_ms = 1000,
	};
}

/* A paddr context over [0, @size) with @text as scenario. */
static struct mon_ctx *sim_new(uint64_t size, struct emu_scheme *s, int ns, const char *text,
			       uint64_t min_nr, uint64_t max_nr)
{
	struct emu_region reg = { 0, size };
	struct emu_target t = { .nr_regions = 1, .regions = &reg };
	struct emu_ctx_params p = {
		.ops = EMU_OPS_PADDR,
		.addr_unit = 1,
		.sample_us = 5000,
		.aggr_us = 100000,
		.update_us = 1000000,
		.min_nr_regions = min_nr,
		.max_nr_regions = max_nr,
		.nr_targets = 1,
		.targets = &t,
		.nr_schemes = ns,
		.schemes = s,
	};
	struct emu_engine_opts o = { .proc_root = "/proc" };
	struct mon_ctx *c = mon_ctx_new(&p, &o, 1000000, 42);

	if (!c)
		return NULL;
	if (text)
		CHECK_EQ(scn_set_text(c->scn, text), 0);
	mon_start(c);
	return c;
}

/* One sampling interval of simulated time. Returns true at the end of an aggregation. */
static bool sim_step(struct mon_ctx *c)
{
	struct mon_iter it;
	bool aggr;

	mon_iter_begin(c, &it);
	c->now_us += it.sample_us ? it.sample_us : 1;
	mon_sample(c, &it);
	aggr = c->passed_sis >= it.next_aggr_sis;
	mon_after_sample(c, &it);
	return aggr;
}

static void sim_aggrs(struct mon_ctx *c, int n)
{
	while (n > 0)
		if (sim_step(c))
			n--;
}

static uint64_t overlap(uint64_t s1, uint64_t e1, uint64_t s2, uint64_t e2)
{
	uint64_t s = s1 > s2 ? s1 : s2, e = e1 < e2 ? e1 : e2;

	return e > s ? e - s : 0;
}

/* Bytes of [start, end) in regions whose last aggregation counted within [lo, hi]. */
static uint64_t bytes_with(const struct mon_ctx *c, uint64_t start, uint64_t end,
			   unsigned int lo, unsigned int hi)
{
	uint64_t sum = 0;

	for (int i = 0; i < c->nr_targets; i++) {
		for (size_t k = 0; k < c->targets[i].nr; k++) {
			const struct mon_region *r = &c->targets[i].regions[k];

			if (r->last_nr_accesses >= lo && r->last_nr_accesses <= hi)
				sum += overlap(r->start, r->end, start, end);
		}
	}
	return sum;
}

static bool regions_sane(const struct mon_ctx *c)
{
	for (int i = 0; i < c->nr_targets; i++) {
		const struct mon_target *t = &c->targets[i];

		for (size_t k = 0; k < t->nr; k++) {
			if (t->regions[k].start >= t->regions[k].end)
				return false;
			if (k && t->regions[k - 1].end > t->regions[k].start)
				return false;
		}
	}
	return true;
}

static void test_scenario_parse(void)
{
	struct scn_rule *r = NULL;
	size_t n = 0;
	char err[160];
	struct scenario *s = scn_new(NULL);

	CHECK_EQ(scn_parse("# nothing\n\n", &r, &n, err, sizeof(err)), 0);
	CHECK_EQ(n, 0);
	free(r);
	CHECK_EQ(scn_parse("pid=12 addr=0x1000-0x3000 rate=12.5%\n"
			   "addr=all rate=1 from=2s to=500ms\n", &r, &n, err, sizeof(err)),
		 -EINVAL);
	CHECK(strstr(err, "line 2") != NULL);
	CHECK_EQ(scn_parse("addr=0x1000-0x3000", &r, &n, err, sizeof(err)), -EINVAL);
	CHECK_EQ(scn_parse("addr=0x1000-0x3000 rate=100.5%", &r, &n, err, sizeof(err)), -EINVAL);
	CHECK_EQ(scn_parse("addr=0x3000-0x1000 rate=1%", &r, &n, err, sizeof(err)), -EINVAL);
	CHECK_EQ(scn_parse("addr=1-2 rate=1% colour=red", &r, &n, err, sizeof(err)), -EINVAL);
	CHECK_EQ(scn_parse("pid=-3 addr=1-2 rate=1%", &r, &n, err, sizeof(err)), -EINVAL);
	CHECK_EQ(scn_parse("phase from=3s to=1s", &r, &n, err, sizeof(err)), -EINVAL);

	CHECK_EQ(scn_set_text(s, "addr=0-1000 rate=10%          # background\n"
			      "pid=7 addr=100-200 rate=100%\n"
			      "phase from=1s to=2s\n"
			      "addr=500-600 rate=50%\n"
			      "phase\n"
			      "addr=900-950 rate=25% from=1500ms\n"), 0);
	CHECK_EQ(s->nr_rules, 4);
	CHECK_EQ(scn_rate(s, 7, 150, 0), SCN_RATE_FULL);	/* the later rule wins */
	CHECK_EQ(scn_rate(s, 8, 150, 0), 100000);		/* other pid: background */
	CHECK_EQ(scn_rate(s, -1, 150, 0), 100000);		/* paddr: "any" rules only */
	CHECK_EQ(scn_rate(s, 7, 1000, 0), 0);			/* not covered: no access */
	CHECK_EQ(scn_rate(s, 7, 550, 500000), 100000);		/* phase not started */
	CHECK_EQ(scn_rate(s, 7, 550, 1000000), 500000);
	CHECK_EQ(scn_rate(s, 7, 550, 2000000), 100000);		/* phase over */
	CHECK_EQ(scn_rate(s, 7, 920, 1400000), 100000);
	CHECK_EQ(scn_rate(s, 7, 920, 99000000), 250000);	/* from= alone: forever */
	CHECK_EQ(scn_same_rate_end(s, 7, 0, 1000, 0), 100);
	CHECK_EQ(scn_same_rate_end(s, 7, 100, 1000, 0), 200);
	CHECK_EQ(scn_same_rate_end(s, 7, 950, 1000, 99000000), 1000);
	/* a bad text keeps the rules in force */
	CHECK_EQ(scn_set_text(s, "addr=1-2\n"), -EINVAL);
	CHECK_EQ(s->nr_rules, 4);
	scn_free(s);
}

static void test_feed_loop(void)
{
	CHECK_EQ(quota_feed_loop_next_input(100000, 10000), 100000);
	CHECK_EQ(quota_feed_loop_next_input(100000, 5000), 150000);	/* under: more */
	CHECK_EQ(quota_feed_loop_next_input(100000, 15000), 50000);	/* over: less */
	CHECK_EQ(quota_feed_loop_next_input(100000, 20000), 10000);	/* far over: minimum */
	CHECK_EQ(quota_feed_loop_next_input(10000, 19999), 10000);	/* never below it */
	CHECK_EQ(quota_feed_loop_next_input(UINT64_MAX - 1, 0), UINT64_MAX);
}

static void test_three_regions(void)
{
	struct mon_vma v[] = {
		{ 0x400000, 0x500000, true, false },		/* binary */
		{ 0x600000, 0x700000, true, true },		/* heap */
		{ 0x7f0000000000, 0x7f0000100000, true, true },	/* mmap area */
		{ 0x7f0000200000, 0x7f0000300000, true, false },
		{ 0x7ffff0000000, 0x7ffff0021000, true, true },	/* stack */
	};
	struct mon_range out[3];

	CHECK_EQ(va_three_regions(v, 5, 4096, out), 0);
	CHECK_EQ(out[0].start, 0x400000);
	CHECK_EQ(out[0].end, 0x700000);
	CHECK_EQ(out[1].start, 0x7f0000000000);
	CHECK_EQ(out[1].end, 0x7f0000300000);
	CHECK_EQ(out[2].start, 0x7ffff0000000);
	CHECK_EQ(out[2].end, 0x7ffff0021000);
	CHECK_EQ(va_three_regions(v, 2, 4096, out), -EINVAL);	/* one gap only */
}

static void test_set_ranges(void)
{
	struct mon_target t = { .pidfd = -1 };
	struct mon_region r = { 0 };
	struct mon_range a[] = { { 0x1000, 0x9000 } }, b[] = { { 0x3000, 0x5000 },
							      { 0x8000, 0xc000 } };

	r.start = 0x1000;
	r.end = 0x2000;
	r.age = 5;
	reg_insert(&t, 0, &r);
	r.start = 0x2000;
	r.end = 0x3000;
	reg_insert(&t, 1, &r);
	r.start = 0x6000;
	r.end = 0x7000;
	reg_insert(&t, 2, &r);
	/* holes are filled, edges stretched */
	CHECK_EQ(reg_set_ranges(&t, a, 1, 0x1000), 0);
	CHECK_EQ(t.nr, 4);
	CHECK_EQ(t.regions[0].start, 0x1000);
	CHECK_EQ(t.regions[0].age, 5);	/* kept: the same memory */
	CHECK_EQ(t.regions[2].start, 0x3000);
	CHECK_EQ(t.regions[2].end, 0x6000);
	CHECK_EQ(t.regions[3].end, 0x9000);
	/* regions outside every range go; new ranges get new regions */
	CHECK_EQ(reg_set_ranges(&t, b, 2, 0x1000), 0);
	CHECK(t.nr >= 2);
	CHECK_EQ(t.regions[0].start, 0x3000);
	CHECK_EQ(t.regions[t.nr - 1].end, 0xc000);
	for (size_t i = 0; i < t.nr; i++)
		CHECK(overlap(t.regions[i].start, t.regions[i].end, 0x5000, 0x8000) == 0);
	free(t.regions);
}

static void test_hot_found(void)
{
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c = sim_new(400 * MiB, &s, 1,
				    "addr=100000000-200000000 rate=100%\n"
				    "addr=300000000-320000000 rate=40%\n", 10, 1000);
	uint64_t max = mon_max_nr_accesses(&c->attrs);

	CHECK_EQ(max, 20);
	for (int i = 0; i < 60; i++) {
		sim_aggrs(c, 1);
		CHECK(regions_sane(c));
		CHECK(mon_nr_regions(c) >= 10 && mon_nr_regions(c) <= 1000);
	}
	/* hot found hot, cold found cold, the warm range in between */
	CHECK(bytes_with(c, 100000000, 200000000, 18, 20) >= 90000000);
	CHECK(bytes_with(c, 0, 100000000, 0, 1) >= 90000000);
	CHECK(bytes_with(c, 200000000, 300000000, 0, 1) >= 90000000);
	CHECK(bytes_with(c, 300000000, 320000000, 3, 14) >= 15000000);
	CHECK(mon_nr_regions(c) < 100);	/* similar neighbours were merged */
	/* the ages of stable regions grow */
	for (size_t k = 0; k < c->targets[0].nr; k++)
		if (overlap(c->targets[0].regions[k].start, c->targets[0].regions[k].end, 0,
			    90000000) == mon_region_sz(&c->targets[0].regions[k]))
			CHECK(c->targets[0].regions[k].age >= 5);
	mon_ctx_free(c);
}

static void test_region_bounds(void)
{
	char text[4096] = "";
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c;

	/* 40 slices of alternating rates: more distinct ranges than max_nr_regions allows */
	for (int i = 0; i < 40; i++) {
		char line[96];

		snprintf(line, sizeof(line), "addr=%llu-%llu rate=%d%%\n",
			 (unsigned long long)(i * 10 * MiB), (unsigned long long)((i + 1) * 10 * MiB),
			 (i * 37) % 101);
		strcat(text, line);
	}
	c = sim_new(400 * MiB, &s, 1, text, 5, 16);
	for (int i = 0; i < 100; i++) {
		sim_aggrs(c, 1);
		CHECK(mon_nr_regions(c) >= 5);
		CHECK(mon_nr_regions(c) <= 16);
		CHECK(regions_sane(c));
	}
	mon_ctx_free(c);
}

/* Runs whole quota windows (reset interval 1 s = 10 aggregations). */
static struct emu_scheme_stats run_windows(struct mon_ctx *c, int windows)
{
	sim_aggrs(c, windows * 10);
	return c->schemes[0].stat;
}

static void test_size_quota(void)
{
	struct emu_scheme s = scheme_all(EMU_ACT_PAGEOUT);
	struct mon_ctx *c;
	struct emu_scheme_stats st;

	s.quota_bytes = 10 * MiB;
	c = sim_new(400 * MiB, &s, 1, NULL, 10, 1000);
	st = run_windows(c, 6);
	/* each window applies at most its quota, and uses it up: all memory is eligible */
	CHECK(st.sz_applied <= 7 * 10 * MiB);
	CHECK(st.sz_applied >= 5 * 10 * MiB);
	CHECK(st.qt_exceeds >= 5);
	CHECK_EQ(c->schemes[0].q.esz, 10 * MiB);
	mon_ctx_free(c);

	/* the time quota converts to a size; the smaller of the two wins */
	s.quota_bytes = 0;
	s.quota_ms = 1;
	c = sim_new(400 * MiB, &s, 1, NULL, 10, 1000);
	sim_aggrs(c, 1);
	CHECK_EQ(c->schemes[0].q.esz, c->page_size * 1024);	/* guessed throughput x 1 ms */
	mon_ctx_free(c);
	s.quota_bytes = 1 * MiB;
	c = sim_new(400 * MiB, &s, 1, NULL, 10, 1000);
	sim_aggrs(c, 1);
	CHECK_EQ(c->schemes[0].q.esz, 1 * MiB);
	mon_ctx_free(c);
}

static void test_fail_charge(void)
{
	struct emu_scheme s = scheme_all(EMU_ACT_PAGEOUT);
	struct mon_ctx *c;
	uint64_t plain, cheap;

	/* everything young: paddr pageout skips young pages, so nothing is applied */
	s.quota_bytes = 10 * MiB;
	c = sim_new(400 * MiB, &s, 1, "addr=all rate=100%\n", 10, 1000);
	plain = run_windows(c, 3).sz_tried;
	CHECK_EQ(c->schemes[0].stat.sz_applied, 0);
	mon_ctx_free(c);
	/* failures charged at a tenth: about ten times more is tried per window */
	s.fail_charge_num = 1;
	s.fail_charge_denom = 10;
	c = sim_new(400 * MiB, &s, 1, "addr=all rate=100%\n", 10, 1000);
	cheap = run_windows(c, 3).sz_tried;
	printf("fail_charge: tried %llu bytes plain, %llu with 1/10\n",
	       (unsigned long long)plain, (unsigned long long)cheap);
	CHECK(cheap >= plain * 5);
	mon_ctx_free(c);
}

/* Where the scheme of @c tried, after the next apply interval (an in-process walk). */
static void walk_once(struct mon_ctx *c, uint64_t *in, uint64_t in_start, uint64_t in_end,
		      uint64_t *total)
{
	CHECK_EQ(walk_start(c), 0);
	CHECK_EQ(walk_start(c), -EBUSY);
	for (int i = 0; i < 1000 && c->walk.state == MON_WALK_ACTIVE; i++)
		sim_step(c);
	CHECK_EQ(c->walk.state, MON_WALK_DONE);
	*in = 0;
	*total = c->walk.total_bytes[0];
	for (size_t i = 0; i < c->walk.lists[0].nr; i++) {
		const struct emu_tried_region *r = &c->walk.lists[0].regions[i];

		*in += overlap(r->start, r->end, in_start, in_end);
	}
	walk_reset(c);
}

static void test_prioritisation(void)
{
	const char *text = "addr=0-104857600 rate=100%\n";	/* the first 100 MiB hot */
	struct emu_scheme s = scheme_all(EMU_ACT_PAGEOUT);
	struct mon_ctx *c;
	uint64_t in, total;

	/* pageout under a short quota goes for the coldest memory first */
	s.quota_bytes = 20 * MiB;
	s.weight_nr_accesses = 1000;
	c = sim_new(400 * MiB, &s, 1, text, 10, 1000);
	sim_aggrs(c, 30);
	walk_once(c, &in, 0, 100 * MiB, &total);
	CHECK(total > 0);
	CHECK_EQ(in, 0);
	mon_ctx_free(c);
	/* migrate_hot the hottest */
	s.action = EMU_ACT_MIGRATE_HOT;
	c = sim_new(400 * MiB, &s, 1, text, 10, 1000);
	sim_aggrs(c, 30);
	walk_once(c, &in, 0, 100 * MiB, &total);
	CHECK(total > 0);
	CHECK_EQ(in, total);
	mon_ctx_free(c);
}

/* A metric proportional to the quota, that reaches its goal (10000) at @done_at. */
static uint64_t emu_test_score(uint64_t esz, uint64_t done_at)
{
	return esz > UINT64_MAX / 10000 ? UINT64_MAX : esz * 10000 / done_at;
}

/* Closes the loop: the goal's metric follows the effective quota (done at 50 MiB). */
static void test_consist_tuner(void)
{
	struct emu_goal g = { .metric = EMU_METRIC_USER_INPUT, .target_value = 10000 };
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c;
	uint64_t esz = 0;

	s.nr_goals = 1;
	s.goals = &g;
	s.quota_reset_interval_ms = 100;	/* a window per aggregation */
	c = sim_new(400 * MiB, &s, 1, NULL, 10, 1000);
	for (int i = 0; i < 300; i++) {
		sim_aggrs(c, 1);
		esz = c->schemes[0].q.esz;
		c->schemes[0].p.goals[0].current_value = emu_test_score(esz, 50 * MiB);
	}
	printf("consist: effective quota %llu for a goal met at %llu\n", (unsigned long long)esz,
	       (unsigned long long)(50 * MiB));
	CHECK(esz >= 45 * MiB && esz <= 55 * MiB);
	mon_ctx_free(c);
}

static void test_temporal_tuner(void)
{
	struct emu_goal g = { .metric = EMU_METRIC_USER_INPUT, .target_value = 1000,
			      .current_value = 10 };
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c;
	uint64_t tried;

	s.nr_goals = 1;
	s.goals = &g;
	s.goal_tuner = EMU_TUNER_TEMPORAL;
	s.quota_reset_interval_ms = 100;
	c = sim_new(400 * MiB, &s, 1, NULL, 10, 1000);
	/* under-achieved: as much as it can */
	sim_aggrs(c, 3);
	CHECK_EQ(c->schemes[0].q.esz, UINT64_MAX / 10000);
	/* with a size quota, up to that */
	s.quota_bytes = 8 * MiB;
	CHECK_EQ(mon_commit(c, &(struct emu_ctx_params){
		.ops = EMU_OPS_PADDR, .addr_unit = 1, .sample_us = 5000, .aggr_us = 100000,
		.update_us = 1000000, .min_nr_regions = 10, .max_nr_regions = 1000,
		.nr_targets = 1, .targets = &(struct emu_target){ 0 },
		.nr_schemes = 1, .schemes = &s }), 0);
	sim_aggrs(c, 3);
	CHECK_EQ(c->schemes[0].q.esz, 8 * MiB);
	/* achieved: nothing at all */
	c->schemes[0].p.goals[0].current_value = 1000;
	sim_aggrs(c, 3);
	CHECK_EQ(c->schemes[0].q.esz, 0);
	tried = c->schemes[0].stat.nr_tried;
	sim_aggrs(c, 5);
	CHECK_EQ(c->schemes[0].stat.nr_tried, tried);
	mon_ctx_free(c);
}

static void test_snapshots(void)
{
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c;
	uint64_t tried;

	s.max_nr_snapshots = 3;
	c = sim_new(100 * MiB, &s, 1, NULL, 10, 1000);
	sim_aggrs(c, 3);
	tried = c->schemes[0].stat.nr_tried;
	CHECK_EQ(c->schemes[0].stat.nr_snapshots, 3);
	sim_aggrs(c, 10);
	CHECK_EQ(c->schemes[0].stat.nr_snapshots, 3);
	CHECK_EQ(c->schemes[0].stat.nr_tried, tried);
	mon_ctx_free(c);
}

static void test_apply_interval(void)
{
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c;

	s.apply_interval_us = 500000;	/* every 5 aggregations */
	c = sim_new(100 * MiB, &s, 1, NULL, 10, 1000);
	sim_aggrs(c, 20);
	CHECK_EQ(c->schemes[0].stat.nr_snapshots, 4);
	mon_ctx_free(c);
}

static void test_intervals_tuning(void)
{
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c;
	struct emu_ctx_params p;

	/* everything accessed, far above a 4% goal: the intervals shrink to the minimum */
	c = sim_new(100 * MiB, &s, 1, "addr=all rate=100%\n", 10, 1000);
	p = (struct emu_ctx_params){
		.ops = EMU_OPS_PADDR, .addr_unit = 1, .sample_us = 5000, .aggr_us = 100000,
		.update_us = 1000000, .min_nr_regions = 10, .max_nr_regions = 1000,
		.goal_access_bp = 400, .goal_aggrs = 3, .goal_min_sample_us = 1000,
		.goal_max_sample_us = 20000, .nr_targets = 1,
		.targets = &(struct emu_target){ 0 }, .nr_schemes = 1, .schemes = &s };
	CHECK_EQ(mon_commit(c, &p), 0);
	sim_aggrs(c, 60);
	CHECK_EQ(c->attrs.sample_us, 1000);
	CHECK_EQ(c->attrs.aggr_us, 20000);	/* the samples per aggregation stay */
	mon_ctx_free(c);
	/* nothing accessed: they grow to the maximum */
	c = sim_new(100 * MiB, &s, 1, NULL, 10, 1000);
	CHECK_EQ(mon_commit(c, &p), 0);
	sim_aggrs(c, 60);
	CHECK_EQ(c->attrs.sample_us, 20000);
	CHECK_EQ(c->attrs.aggr_us, 400000);
	mon_ctx_free(c);
}

static void test_addr_filter(void)
{
	struct emu_filter f = { .dir = EMU_FDIR_CORE, .type = EMU_FILTER_ADDR, .matching = true,
				.allow = true, .addr_start = 100 * MiB, .addr_end = 150 * MiB };
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct mon_ctx *c;
	uint64_t in, total;

	s.nr_filters = 1;
	s.filters = &f;
	c = sim_new(400 * MiB, &s, 1, NULL, 10, 1000);
	sim_aggrs(c, 5);
	walk_once(c, &in, 100 * MiB, 150 * MiB, &total);
	CHECK_EQ(total, 50 * MiB);	/* only the allowed range, cut at its edges */
	CHECK_EQ(in, 50 * MiB);
	mon_ctx_free(c);
}

static void test_probes(void)
{
	struct emu_filter anon = { .type = EMU_FILTER_ANON, .matching = true, .allow = true };
	struct emu_probe probes[2] = { { 0, NULL }, { 1, &anon } };
	struct emu_region reg = { 0, 100 * MiB };
	struct emu_target t = { .nr_regions = 1, .regions = &reg };
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct emu_ctx_params p = {
		.ops = EMU_OPS_PADDR, .addr_unit = 1, .sample_us = 5000, .aggr_us = 100000,
		.update_us = 1000000, .min_nr_regions = 10, .max_nr_regions = 1000,
		.nr_targets = 1, .targets = &t, .nr_schemes = 1, .schemes = &s,
		.nr_probes = 2, .probes = probes,
	};
	struct emu_engine_opts o = { .proc_root = "/proc" };
	struct mon_ctx *c = mon_ctx_new(&p, &o, 1, 7);
	bool seen = false;

	mon_start(c);
	CHECK_EQ(walk_start(c), 0);
	for (int i = 0; i < 1000 && c->walk.state == MON_WALK_ACTIVE; i++)
		sim_step(c);
	CHECK_EQ(c->walk.state, MON_WALK_DONE);
	/* no filter: every sample counts; anon allowed: emulated physical memory is not anon */
	for (size_t i = 0; i < c->walk.lists[0].nr; i++) {
		CHECK_EQ(c->walk.lists[0].regions[i].probe_hits[0], 20);
		CHECK_EQ(c->walk.lists[0].regions[i].probe_hits[1], 0);
		seen = true;
	}
	CHECK(seen);
	walk_reset(c);
	mon_ctx_free(c);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_metrics(void)
{
	char root[] = "/tmp/emu-unit-proc.XXXXXX", path[128];
	struct emu_meminfo m;
	struct emu_goal g[4] = { { .metric = EMU_METRIC_HUGEPAGE_MEM_BP, .target_value = 1 },
				 { .metric = EMU_METRIC_SOME_MEM_PSI_US, .target_value = 1 },
				 { .metric = EMU_METRIC_NODE_MEMCG_USED_BP, .target_value = 1,
				   .path = "/test\n" },
				 { .metric = EMU_METRIC_NODE_MEMCG_FREE_BP, .target_value = 1,
				   .nid = 1, .path = "/test" } };
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct emu_region reg = { 0, MiB };
	struct emu_target t = { .nr_regions = 1, .regions = &reg };
	struct emu_ctx_params p = {
		.ops = EMU_OPS_PADDR, .addr_unit = 1, .sample_us = 5000, .aggr_us = 100000,
		.min_nr_regions = 10, .max_nr_regions = 1000, .nr_targets = 1, .targets = &t,
		.nr_schemes = 1, .schemes = &s,
	};
	struct emu_engine_opts o = { .proc_root = root, .hugepage_metric = true,
				     .cgroup_root = root };
	struct mon_ctx *c;
	uint64_t v;

	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/meminfo", root);
	write_file(path, "MemTotal: 1000000 kB\nMemFree: 500000 kB\nAnonHugePages: 80000 kB\n"
			 "ShmemHugePages: 20000 kB\nFileHugePages: 0 kB\n");
	CHECK_EQ(metrics_read_meminfo(root, &m), 0);
	CHECK_EQ(metrics_hugepage_mem_bp(&m), 2000);	/* 100000 / (1000000 - 500000) */
	m.free = m.total;
	CHECK_EQ(metrics_hugepage_mem_bp(&m), 10000);
	snprintf(path, sizeof(path), "%s/pressure", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/pressure/memory", root);
	write_file(path, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n"
			 "full avg10=0.00 avg60=0.00 avg300=0.00 total=10\n");
	snprintf(path, sizeof(path), "%s/test", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/test/memory.stat", root);
	write_file(path, "anon 1\nactive_anon 51200000\ninactive_anon 25600000\n"
			 "active_file 12800000\ninactive_file 12800000\nfile 2\n");
	s.nr_goals = 4;
	s.goals = g;
	c = mon_ctx_new(&p, &o, 1, 1);
	/* the memcg's LRU pages against all memory, on node 0; another node is invalid */
	metrics_update_goal(c, &c->schemes[0], 2);
	CHECK_EQ(c->schemes[0].p.goals[2].current_value, 1000);
	metrics_update_goal(c, &c->schemes[0], 3);
	CHECK_EQ(c->schemes[0].p.goals[3].current_value, 10000);
	snprintf(path, sizeof(path), "%s/pressure/memory", root);
	metrics_update_goal(c, &c->schemes[0], 0);
	CHECK_EQ(c->schemes[0].p.goals[0].current_value, 2000);
	/* PSI: the delta since the last measurement (the first counts from the start) */
	write_file(path, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1750\n");
	metrics_update_goal(c, &c->schemes[0], 1);
	CHECK_EQ(c->schemes[0].p.goals[1].current_value, 750);
	metrics_update_goal(c, &c->schemes[0], 1);
	CHECK_EQ(c->schemes[0].p.goals[1].current_value, 0);
	CHECK_EQ(metrics_wmark_value(c, EMU_WMARK_FREE_MEM_RATE, &v), 0);
	CHECK_EQ(v, 500);	/* permil */
	CHECK_EQ(metrics_wmark_value(c, EMU_WMARK_NONE, &v), -EINVAL);
	mon_ctx_free(c);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	CHECK_EQ(system(path), 0);
}

/* damon_commit_ctx(): by index, stats kept, obsolete targets dropped, refusals harmless. */
static void test_commit(void)
{
	struct emu_region ra = { 0, 64 * MiB }, rb = { 128 * MiB, 192 * MiB };
	struct emu_target t[3] = { { .nr_regions = 1, .regions = &ra },
				   { .nr_regions = 1, .regions = &rb } };
	struct emu_scheme s[2] = { scheme_all(EMU_ACT_STAT), scheme_all(EMU_ACT_STAT) };
	struct emu_ctx_params p = {
		.ops = EMU_OPS_PADDR, .addr_unit = 1, .sample_us = 5000, .aggr_us = 100000,
		.update_us = 1000000, .min_nr_regions = 10, .max_nr_regions = 1000,
		.nr_targets = 2, .targets = t, .nr_schemes = 1, .schemes = s,
	};
	struct emu_engine_opts o = { .proc_root = "/proc" };
	struct mon_ctx *c = mon_ctx_new(&p, &o, 1, 5);
	uint64_t tried;

	mon_start(c);
	sim_aggrs(c, 5);
	tried = c->schemes[0].stat.nr_tried;
	CHECK(tried > 0);
	/* a new target that is obsolete has nothing to remove: refused, nothing changed */
	p.nr_targets = 3;
	t[2].obsolete = true;
	CHECK_EQ(mon_commit(c, &p), -EINVAL);
	CHECK(!c->corrupted);
	CHECK_EQ(c->nr_targets, 2);
	/* the first target obsolete: removed; the second keeps its regions; a scheme added */
	p.nr_targets = 2;
	t[0].obsolete = true;
	t[1].nr_regions = 0;	/* none given: keep the current ones */
	p.nr_schemes = 2;
	CHECK_EQ(mon_commit(c, &p), 0);
	CHECK_EQ(c->nr_targets, 1);
	CHECK_EQ(c->targets[0].regions[0].start, 128 * MiB);
	CHECK_EQ(c->targets[0].regions[c->targets[0].nr - 1].end, 192 * MiB);
	CHECK_EQ(c->nr_schemes, 2);
	CHECK_EQ(c->schemes[0].stat.nr_tried, tried);
	CHECK_EQ(c->schemes[1].stat.nr_tried, 0);
	sim_aggrs(c, 2);
	CHECK(c->schemes[1].stat.nr_tried > 0);
	/* intervals change: the next aggregation comes on the new clock */
	p.aggr_us = 200000;
	CHECK_EQ(mon_commit(c, &p), 0);
	CHECK_EQ(c->next_aggr_sis, c->passed_sis + 40);
	mon_ctx_free(c);
}

/* vaddr regions follow the target's mappings, re-read every update_us. */
static void test_va_update(void)
{
	char root[] = "/tmp/emu-unit-proc.XXXXXX", path[128];
	struct emu_target t = { .pid = getpid() };
	struct emu_scheme s = scheme_all(EMU_ACT_STAT);
	struct emu_ctx_params p = {
		.ops = EMU_OPS_VADDR, .addr_unit = 1, .sample_us = 5000, .aggr_us = 100000,
		.update_us = 1000000, .min_nr_regions = 10, .max_nr_regions = 1000,
		.nr_targets = 1, .targets = &t, .nr_schemes = 1, .schemes = &s,
	};
	struct emu_engine_opts o = { .proc_root = root };
	struct mon_ctx *c;
	const struct mon_target *mt;
	bool found = false;

	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/%d", root, (int)getpid());
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/maps", root, (int)getpid());
	write_file(path, "00400000-00500000 r-xp 00000000 fe:00 123 /bin/x\n"
			 "00600000-00700000 rw-p 00000000 00:00 0 [heap]\n"
			 "7f0000000000-7f0000100000 rw-p 00000000 00:00 0\n"
			 "7ffff0000000-7ffff0021000 rw-p 00000000 00:00 0 [stack]\n"
			 "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n");
	c = mon_ctx_new(&p, &o, 1, 3);
	mon_start(c);
	mt = &c->targets[0];
	CHECK(mon_need_stop(c) == false);
	CHECK_EQ(mt->regions[0].start, 0x400000);
	CHECK_EQ(mt->regions[mt->nr - 1].end, 0x7ffff0021000);	/* not the vsyscall page */
	CHECK(mon_nr_regions(c) >= 10);
	/* a new mapping, and accesses to it */
	write_file(path, "00400000-00500000 r-xp 00000000 fe:00 123 /bin/x\n"
			 "00600000-00700000 rw-p 00000000 00:00 0 [heap]\n"
			 "7e0000000000-7e0000400000 rw-p 00000000 00:00 0\n"
			 "7e0000400000-7e0000600000 ---p 00000000 00:00 0\n"
			 "7f0000000000-7f0000100000 rw-p 00000000 00:00 0\n"
			 "7ffff0000000-7ffff0021000 rw-p 00000000 00:00 0 [stack]\n");
	CHECK_EQ(scn_set_text(c->scn, "addr=0x7e0000000000-0x7e0000600000 rate=100%\n"), 0);
	sim_aggrs(c, 30);
	mt = &c->targets[0];
	for (size_t i = 0; i < mt->nr; i++)
		if (mt->regions[i].start == 0x7e0000000000)
			found = true;
	CHECK(found);
	CHECK(bytes_with(c, 0x7e0000000000, 0x7e0000400000, 18, 20) >= 0x300000);
	/* the PROT_NONE part cannot be accessed, whatever the scenario says */
	CHECK(bytes_with(c, 0x7e0000400000, 0x7e0000600000, 0, 1) >= 0x180000);
	mon_ctx_free(c);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	CHECK_EQ(system(path), 0);
}

static void test_params_roundtrip(void)
{
	struct emu_region regs[2] = { { 1, 2 }, { 3, 4 } };
	struct emu_target t[2] = { { .pid = 5, .nr_regions = 2, .regions = regs },
				   { .pid = 6, .obsolete = true } };
	struct emu_goal g = { .metric = EMU_METRIC_NODE_MEMCG_USED_BP, .target_value = 9,
			      .nid = 1, .path = "/a/b\n" };
	struct emu_filter f = { .type = EMU_FILTER_HUGEPAGE_SIZE, .min = 2, .max = 3,
				.memcg_path = "x" };
	struct emu_dest d = { 1, 2 };
	struct emu_probe pr = { 1, &f };
	struct emu_scheme s = scheme_all(EMU_ACT_COLLAPSE);
	struct emu_ctx_params p = { .ops = EMU_OPS_FVADDR, .sample_us = 7, .nr_targets = 2,
				    .targets = t, .nr_schemes = 1, .schemes = &s,
				    .nr_probes = 1, .probes = &pr };
	struct emu_ctx_params *q = NULL, *d2;
	struct emu_buf b = { 0 };
	struct emu_reader r;

	s.nr_goals = 1;
	s.goals = &g;
	s.nr_filters = 1;
	s.filters = &f;
	s.nr_dests = 1;
	s.dests = &d;
	s.max_nr_snapshots = 11;
	CHECK_EQ(emu_params_pack(&b, &p), 0);
	r = (struct emu_reader){ .data = b.data, .len = b.len };
	CHECK_EQ(emu_params_unpack(&r, &q), 0);
	CHECK_EQ(r.off, b.len);
	if (q) {
		CHECK_EQ(q->ops, EMU_OPS_FVADDR);
		CHECK_EQ(q->sample_us, 7);
		CHECK_EQ(q->nr_targets, 2);
		CHECK_EQ(q->targets[0].regions[1].end, 4);
		CHECK(q->targets[1].obsolete);
		CHECK_EQ(q->schemes[0].action, EMU_ACT_COLLAPSE);
		CHECK(!strcmp(q->schemes[0].goals[0].path, "/a/b\n"));
		CHECK_EQ(q->schemes[0].filters[0].max, 3);
		CHECK_EQ(q->schemes[0].dests[0].weight, 2);
		CHECK_EQ(q->schemes[0].max_nr_snapshots, 11);
		CHECK_EQ(q->probes[0].filters[0].type, EMU_FILTER_HUGEPAGE_SIZE);
		d2 = emu_params_dup(q);
		CHECK(d2 && d2->probes[0].filters != q->probes[0].filters);
		emu_params_free(d2);
	}
	emu_params_free(q);
	/* a truncated stream is refused, not half-read */
	r = (struct emu_reader){ .data = b.data, .len = b.len - 3 };
	q = NULL;
	CHECK_EQ(emu_params_unpack(&r, &q), -EPROTO);
	CHECK(q == NULL);
	emu_buf_free(&b);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "scenario-parse", test_scenario_parse },
	{ "feed-loop", test_feed_loop },
	{ "three-regions", test_three_regions },
	{ "set-ranges", test_set_ranges },
	{ "hot-found", test_hot_found },
	{ "region-bounds", test_region_bounds },
	{ "size-quota", test_size_quota },
	{ "fail-charge", test_fail_charge },
	{ "prioritisation", test_prioritisation },
	{ "consist-tuner", test_consist_tuner },
	{ "temporal-tuner", test_temporal_tuner },
	{ "snapshots", test_snapshots },
	{ "apply-interval", test_apply_interval },
	{ "intervals-tuning", test_intervals_tuning },
	{ "addr-filter", test_addr_filter },
	{ "probes", test_probes },
	{ "metrics", test_metrics },
	{ "commit", test_commit },
	{ "va-update", test_va_update },
	{ "params-roundtrip", test_params_roundtrip },
};

int main(int argc, char **argv)
{
	bool found = false;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = t_failures;

		if (argc > 1 && strcmp(argv[1], tests[i].name))
			continue;
		found = true;
		tests[i].fn();
		printf("%s: %s\n", tests[i].name, t_failures == before ? "ok" : "FAILED");
	}
	if (!found) {
		fprintf(stderr, "no test '%s'\n", argv[1]);
		return 2;
	}
	return t_failures ? 1 : 0;
}
