// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/fallback_serve.c: the fallback server's goal feeding on a sysroot of plain files
 * (/proc/meminfo and the kdamond's goal and state files), its events and counters, the plan
 * kept in place or anew, the stats' size rule, and which pages a grant lets the kernel
 * collapse. The collapse budgets need DAMON's regions and a process's memory:
 * tests/emu/fallback-server.sh and tests/emu/budget-phases.sh drive them on damon-emu.
 */
#include <errno.h>
#include <json-c/json.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fallback_serve_internal.h"

#define GOAL_FILE "kdamonds/0/contexts/0/schemes/1/quotas/goals/0/current_value"

struct seen {
	unsigned int n;
	struct damonctl_fallback_event ev[8];
};

static void on_event(const struct damonctl_fallback_event *ev, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->ev[s->n++] = *ev;
}

static struct damonctl_fallback goal_entry(unsigned int scheme, uint64_t target_bp,
					   uint64_t reset_ms)
{
	struct damonctl_fallback fb = { .sz = sizeof(fb), .kind = DAMONCTL_FALLBACK_HUGEPAGE_GOAL,
					.scheme = scheme, .goal = 0, .observer = scheme,
					.tmpl = scheme, .target_bp = target_bp,
					.reset_ms = reset_ms };

	return fb;
}

static struct damonctl_fallbacks *plan_of(const struct damonctl_fallback *fb, unsigned int n)
{
	struct damonctl_fallbacks *l;
	unsigned int i;

	assert_int_equal(damonctl_fallbacks_new(&l), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(damonctl_fallbacks_add(l, &fb[i]), 0);
	return l;
}

/* MemTotal 1000000 kB, MemFree 600000 kB: 400000 kB used; @huge_kb of it anonymous huge. */
static void meminfo(const char *dir, unsigned int huge_kb)
{
	char path[4096], text[256];

	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	snprintf(text, sizeof(text), "MemTotal:       1000000 kB\nMemFree:         600000 kB\n"
		 "AnonHugePages:    %u kB\n", huge_kb);
	write_file(path, text);
}

static char *admin_file(const char *dir, const char *rel)
{
	char *p = malloc(4096);

	snprintf(p, 4096, "%s/sys/kernel/mm/damon/admin/%s", dir, rel);
	return p;
}

static void set_admin(const char *dir, const char *rel, const char *value)
{
	char *p = admin_file(dir, rel);

	write_file(p, value);
	free(p);
}

static void assert_admin(const char *dir, const char *rel, const char *want)
{
	char *p = admin_file(dir, rel), *got = slurp(p);

	assert_non_null(got);
	got[strcspn(got, "\n")] = '\0';
	assert_string_equal(got, want);
	free(got);
	free(p);
}

static struct damonctl_fallback_stats stats_of(const struct damonctl_fallback_server *srv)
{
	struct damonctl_fallback_stats st = { .sz = sizeof(st) };

	assert_int_equal(damonctl_fallback_server_stats(srv, &st), 0);
	return st;
}

/*
 * A system-wide goal of 30% (3000 bp) on scheme 1. With 26624 kB huge of 400000 kB used the
 * ratio is 26624 / 400000 = 6.656% -> 665 bp (rounded down, the kernel's); with 200000 kB it
 * is 50% -> 5000 bp, past the goal.
 */
static void test_feed_goal(void **state)
{
	char *dir = tmpdir_new();
	struct damonctl_fallback fb = goal_entry(1, 3000, 400);
	struct damonctl_fallbacks *l = plan_of(&fb, 1);
	struct damonctl_fallback_server_opts o = { .sz = sizeof(o), .on_event = on_event };
	struct damonctl_fallback_server *srv;
	struct damonctl_fallback_stats st;
	struct damonctl_ctx *ctx;
	struct seen seen = { 0 };

	(void)state;
	o.arg = &seen;
	meminfo(dir, 26624);
	set_admin(dir, "kdamonds/0/state", "on");
	set_admin(dir, GOAL_FILE, "0");
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	assert_int_equal(damonctl_fallback_server_new(ctx, 0, l, NULL, 0, &o, &srv), 0);
	assert_int_equal(damonctl_fallback_server_interval_ms(srv), 400);

	/* 1: fed and committed, said once; below the goal from the start is no change */
	assert_int_equal(damonctl_fallback_server_round(srv), 0);
	assert_admin(dir, GOAL_FILE, "665");
	assert_admin(dir, "kdamonds/0/state", "commit_schemes_quota_goals");
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.ev[0].kind, DAMONCTL_FBEV_FEEDING);
	assert_int_equal(seen.ev[0].scheme, 1);
	assert_int_equal(seen.ev[0].bp, 665);
	assert_int_equal(seen.ev[0].target_bp, 3000);
	assert_int_equal(seen.ev[0].reset_ms, 400);
	assert_false(seen.ev[0].scope_pid);
	st = stats_of(srv);
	assert_int_equal(st.rounds, 1);
	assert_int_equal(st.feeds, 1);
	assert_int_equal(st.measured_bp, 665);
	assert_int_equal(st.target_bp, 3000);
	assert_false(st.goal_met);

	/* 2: the same ratio: the kernel keeps it, nothing is written */
	set_admin(dir, "kdamonds/0/state", "on");
	assert_int_equal(damonctl_fallback_server_round(srv), 0);
	assert_admin(dir, "kdamonds/0/state", "on");
	assert_int_equal(seen.n, 1);
	assert_int_equal(stats_of(srv).feeds, 1);
	assert_int_equal(stats_of(srv).rounds, 2);

	/* 3: past the goal: met, fed, not said as a first feed again */
	meminfo(dir, 200000);
	assert_int_equal(damonctl_fallback_server_round(srv), 0);
	assert_admin(dir, GOAL_FILE, "5000");
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.ev[1].kind, DAMONCTL_FBEV_GOAL_MET);
	assert_int_equal(seen.ev[1].bp, 5000);
	assert_true(seen.ev[1].by_kernel);
	assert_true(stats_of(srv).goal_met);

	/* 4: below again: said; 5: still below: not said again */
	meminfo(dir, 26624);
	assert_int_equal(damonctl_fallback_server_round(srv), 0);
	assert_int_equal(damonctl_fallback_server_round(srv), 0);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.ev[2].kind, DAMONCTL_FBEV_GOAL_MISSED);
	assert_int_equal(seen.ev[2].bp, 665);
	assert_int_equal(stats_of(srv).feeds, 3);

	/* the steps that fail: the goal's file gone, then the ratio unmeasurable */
	meminfo(dir, 100000);
	{
		char *p = admin_file(dir, GOAL_FILE);

		unlink(p);
		free(p);
	}
	assert_true(damonctl_fallback_server_round(srv) < 0);
	assert_int_equal(damonctl_fallback_server_failed_step(srv), DAMONCTL_FBSTEP_GOAL_VALUE);
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
		unlink(path);
	}
	assert_true(damonctl_fallback_server_round(srv) < 0);
	assert_int_equal(damonctl_fallback_server_failed_step(srv), DAMONCTL_FBSTEP_MEASURE);

	damonctl_fallback_server_free(srv);
	damonctl_fallbacks_free(l);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* A tuned plan: goals move in place when the entries are the same ones, else anew. */
static void test_set_plan(void **state)
{
	struct damonctl_fallback fb[2] = { goal_entry(1, 3000, 400), goal_entry(2, 1000, 250) };
	struct damonctl_fallbacks *l = plan_of(fb, 2), *out;
	struct damonctl_fallback_server *srv;
	struct damonctl_fallback got = { .sz = sizeof(got) };
	struct damonctl_ctx *ctx;

	(void)state;
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_fallback_server_new(ctx, 3, l, NULL, 0, NULL, &srv), 0);
	/* the shortest of 400 and 250 ms */
	assert_int_equal(damonctl_fallback_server_interval_ms(srv), 250);
	damonctl_fallbacks_free(l);

	fb[0].target_bp = 4500;
	fb[0].goal = 7;		/* not a field a tune moves: the served one stays */
	l = plan_of(fb, 2);
	assert_int_equal(damonctl_fallback_server_set_plan(srv, l, true), 1);
	assert_int_equal(damonctl_fallbacks_new(&out), 0);
	assert_int_equal(damonctl_fallback_server_plan(srv, out), 0);
	assert_int_equal(damonctl_fallbacks_count(out), 2);
	assert_int_equal(damonctl_fallbacks_get(out, 0, &got), 0);
	assert_int_equal(got.target_bp, 4500);
	assert_int_equal(got.goal, 0);
	damonctl_fallbacks_free(l);

	/* another scheme: taken whole */
	fb[1].scheme = 5;
	l = plan_of(fb, 2);
	assert_int_equal(damonctl_fallback_server_set_plan(srv, l, true), 0);
	assert_int_equal(damonctl_fallback_server_plan(srv, out), 0);
	assert_int_equal(damonctl_fallbacks_get(out, 0, &got), 0);
	assert_int_equal(got.goal, 7);
	damonctl_fallbacks_free(l);

	/* without a plan: 1 s, and a round does nothing, not even count */
	assert_int_equal(damonctl_fallback_server_set_plan(srv, NULL, false), 0);
	assert_int_equal(damonctl_fallback_server_interval_ms(srv), 1000);
	assert_int_equal(damonctl_fallback_server_round(srv), 0);
	assert_int_equal(stats_of(srv).rounds, 0);

	damonctl_fallbacks_free(out);
	damonctl_fallback_server_free(srv);
	damonctl_free(ctx);
}

/* Counters go on from what a restarted program gives; a caller's older, shorter struct is
 * filled only as far as its size. */
static void test_stats(void **state)
{
	struct damonctl_fallback_server *srv;
	struct damonctl_fallback_stats st = { .sz = sizeof(st) }, small;
	struct damonctl_ctx *ctx;
	int pids[2] = { 10, -11 };

	(void)state;
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_fallback_server_new(ctx, 0, NULL, pids, 2, NULL, &srv), 0);
	assert_int_equal(damonctl_fallback_server_set_targets(srv, pids, 65), -EINVAL);
	st.rounds = 7;
	st.feeds = 3;
	st.nr = 1;
	st.s[0].scheme = 2;
	st.s[0].nr_applied = 5;
	assert_int_equal(damonctl_fallback_server_set_stats(srv, &st), 0);

	memset(&small, 0xff, sizeof(small));
	small.sz = offsetof(struct damonctl_fallback_stats, feeds);
	assert_int_equal(damonctl_fallback_server_stats(srv, &small), 0);
	assert_int_equal(small.rounds, 7);
	assert_int_equal(small.feeds, UINT64_MAX);	/* past its size: untouched */

	st = stats_of(srv);
	assert_int_equal(st.feeds, 3);
	assert_int_equal(st.nr, 1);
	assert_int_equal(st.s[0].nr_applied, 5);
	small.sz = 1;
	assert_int_equal(damonctl_fallback_server_stats(srv, &small), -EINVAL);
	damonctl_fallback_server_free(srv);
	damonctl_free(ctx);
}

/* The counters' document, read from a hand-written one and written back: every key, with
 * "hot" only once something was observed; a scheme list longer than 32 keeps 32. */
static void test_stats_json(void **state)
{
	const char *doc = "{ \"format_version\": 1, \"kdamond\": 2, \"updated\": 1700000000, "
		"\"kdamond_pid\": 41, \"measured_bp\": 665, \"feeds\": 9, \"target_bp\": 3000, "
		"\"goal_met\": false, \"rounds\": 12, \"agent_pid\": 40, \"since\": 1699999990, "
		"\"hot\": { \"bytes\": 4194304, \"huge_bytes\": 2097152, \"bp\": 100, "
		"\"reachable_bp\": 150, \"unreachable\": true, \"cold_huge_bytes\": 0, "
		"\"cold_huge_idle_us\": 0 }, \"schemes\": [ { \"scheme\": 0, \"nr_tried\": 3, "
		"\"sz_tried\": 6291456, \"nr_applied\": 2, \"sz_applied\": 4194304, "
		"\"qt_exceeds\": 1, \"sz_collapsed\": 4194304, \"busy_us\": 800 } ] }";
	struct damonctl_fallback_stats st = { .sz = sizeof(st) }, back = { .sz = sizeof(back) };
	json_object *o, *v, *hot;
	char *text;

	(void)state;
	assert_int_equal(damonctl_fallback_stats_from_json("[1]", &st), -EBADMSG);
	assert_int_equal(damonctl_fallback_stats_from_json(doc, &st), 0);
	assert_int_equal(st.kdamond, 2);
	assert_int_equal(st.kdamond_pid, 41);
	assert_int_equal(st.agent_pid, 40);
	assert_int_equal(st.rounds, 12);
	assert_int_equal(st.measured_bp, 665);
	assert_true(st.observed);
	assert_true(st.unreachable);
	assert_int_equal(st.hot_bytes, 4 << 20);
	assert_int_equal(st.nr, 1);
	assert_int_equal(st.s[0].sz_tried, 3 * (2 << 20));
	assert_int_equal(st.s[0].busy_us, 800);

	text = damonctl_fallback_stats_to_json(&st);
	assert_non_null(text);
	o = json_tokener_parse(text);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "since", &v));
	assert_int_equal(json_object_get_int64(v), 1699999990);
	assert_true(json_object_object_get_ex(o, "hot", &hot));
	assert_true(json_object_object_get_ex(hot, "reachable_bp", &v));
	assert_int_equal(json_object_get_int(v), 150);
	assert_int_equal(json_object_object_length(o), 13);
	json_object_put(o);
	assert_int_equal(damonctl_fallback_stats_from_json(text, &back), 0);
	assert_memory_equal(&back, &st, sizeof(st));
	free(text);

	/* nothing observed: no "hot" */
	st.observed = false;
	text = damonctl_fallback_stats_to_json(&st);
	assert_null(strstr(text, "\"hot\""));
	free(text);
}

/* The access coverage in the counters' document: over the targets and per target, weights
 * as numbers, kept through a write and a read; none before a look that knew huge ranges. */
static void test_stats_json_coverage(void **state)
{
	const char *doc = "{ \"format_version\": 1, \"kdamond\": 0, \"coverage\": { "
		"\"bytes\": 8388608, \"huge_bytes\": 2097152, \"accessed\": 41943040, "
		"\"accessed_huge\": 20971520.5, \"targets\": [ { \"pid\": 7, \"bytes\": 8388608, "
		"\"huge_bytes\": 2097152, \"accessed\": 41943040, \"accessed_huge\": 20971520.5 "
		"} ] }, \"schemes\": [] }";
	struct damonctl_fallback_stats st = { .sz = sizeof(st) }, back = { .sz = sizeof(back) };
	uint64_t bp;
	char *text;

	(void)state;
	assert_int_equal(damonctl_fallback_stats_from_json(doc, &st), 0);
	assert_true(st.coverage_known);
	assert_int_equal(st.nr_coverage, 1);
	assert_int_equal(st.tc[0].pid, 7);
	assert_int_equal(st.coverage.huge_bytes, 2 << 20);
	assert_int_equal(damonctl_hugepage_coverage_bp(&st.coverage, &bp), 0);
	assert_int_equal(bp, 5000);
	assert_int_equal(damonctl_hugepage_coverage_bp(&st.tc[0].c, &bp), 0);
	assert_int_equal(bp, 5000);
	text = damonctl_fallback_stats_to_json(&st);
	assert_non_null(text);
	assert_int_equal(damonctl_fallback_stats_from_json(text, &back), 0);
	free(text);
	assert_true(back.coverage_known);
	assert_int_equal(back.nr_coverage, 1);
	assert_int_equal(back.tc[0].pid, 7);
	assert_true(back.coverage.accessed_huge == st.coverage.accessed_huge);
	assert_true(back.tc[0].c.accessed == st.tc[0].c.accessed);
	assert_int_equal(back.coverage.bytes, st.coverage.bytes);

	st.coverage_known = false;
	text = damonctl_fallback_stats_to_json(&st);
	assert_null(strstr(text, "\"coverage\""));
	free(text);
}

#define HP(i) (0x40000000ull + (uint64_t)(i) * DAMONCTL_HUGEPAGE_SIZE)

static struct fbs_grant grant_of(const uint64_t *pages, unsigned int n)
{
	struct fbs_grant g = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		g.start[g.nr] = pages[i];
		g.end[g.nr++] = pages[i] + DAMONCTL_HUGEPAGE_SIZE;
	}
	return g;
}

static void assert_grant(const struct fbs_grant *g, const uint64_t *ranges, unsigned int nr)
{
	unsigned int i;

	assert_int_equal(g->nr, nr);
	for (i = 0; i < nr; i++) {
		assert_int_equal(g->start[i], ranges[2 * i]);
		assert_int_equal(g->end[i], ranges[2 * i + 1]);
	}
}

/* Pages a grant lets the kernel collapse: the last grant's first, hottest next, in merged
 * ranges; a move to other pages first lets the old ones go. */
static void test_grant_pick(void **state)
{
	struct fbs_grant g, prev;
	(void)state;

	/* none before: the two hottest of three, in address order */
	{
		const uint64_t cand[] = { HP(7), HP(2), HP(3) };

		dctl_fbs_grant_pick(cand, 3, 2, NULL, &g);
		assert_grant(&g, (const uint64_t[]){ HP(2), HP(3), HP(7), HP(8) }, 2);
		/* adjacent pages are one range */
		dctl_fbs_grant_pick(cand, 3, 3, NULL, &g);
		assert_grant(&g, (const uint64_t[]){ HP(2), HP(4), HP(7), HP(8) }, 2);
	}
	/* the pages granted before come first, even when cooler: the kernel is not chased */
	{
		const uint64_t was[] = { HP(5), HP(6) }, cand[] = { HP(1), HP(5), HP(6), HP(9) };

		prev = grant_of(was, 2);
		dctl_fbs_grant_pick(cand, 4, 2, &prev, &g);
		assert_grant(&g, (const uint64_t[]){ HP(5), HP(7) }, 1);
		/* and more, the hottest others: nothing let go, so they are taken at once */
		dctl_fbs_grant_pick(cand, 4, 3, &prev, &g);
		assert_grant(&g, (const uint64_t[]){ HP(1), HP(2), HP(5), HP(7) }, 2);
	}
	/* one page granted before is no longer a candidate (collapsed meanwhile, or gone
	 * cold): the kernel may have collapsed it since it was measured, so no other page is
	 * taken in its place this round, only the one still wanted is kept */
	{
		const uint64_t was[] = { HP(5), HP(6) }, cand[] = { HP(1), HP(6), HP(9) };

		prev = grant_of(was, 2);
		dctl_fbs_grant_pick(cand, 3, 2, &prev, &g);
		assert_grant(&g, (const uint64_t[]){ HP(6), HP(7) }, 1);
		/* none of them still a candidate: nothing this round */
		dctl_fbs_grant_pick(cand + 2, 1, 2, &prev, &g);
		assert_int_equal(g.nr, 0);
		/* fewer wanted than granted: a shrink is safe */
		dctl_fbs_grant_pick((const uint64_t[]){ HP(5), HP(6) }, 2, 1, &prev, &g);
		assert_grant(&g, (const uint64_t[]){ HP(5), HP(6) }, 1);
	}
	/* after an empty grant, or one not known (the first commit), new pages come at once */
	{
		const uint64_t cand[] = { HP(4) };

		prev.nr = 0;
		dctl_fbs_grant_pick(cand, 1, 1, &prev, &g);
		assert_grant(&g, (const uint64_t[]){ HP(4), HP(5) }, 1);
		prev.nr = UINT32_MAX;
		dctl_fbs_grant_pick(cand, 1, 1, &prev, &g);
		assert_grant(&g, (const uint64_t[]){ HP(4), HP(5) }, 1);
		/* nothing wanted: nothing granted */
		dctl_fbs_grant_pick(cand, 1, 0, &prev, &g);
		assert_int_equal(g.nr, 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feed_goal),
		cmocka_unit_test(test_set_plan),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_stats_json),
		cmocka_unit_test(test_stats_json_coverage),
		cmocka_unit_test(test_grant_pick),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
