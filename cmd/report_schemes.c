// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report schemes: what each scheme of the recorded kdamond did over time, from the
 * stats the recorder took with every snapshot: regions and bytes tried and applied, quota
 * exceeds, the effective quota. Counters are cumulative in the kernel; a counter that goes
 * down (the kdamond restarted) counts from zero again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_input.h"

#define MAX_SCHEMES 64

struct schemes_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	uint64_t window_us;
};

enum { O_WINDOW = 300 };

static const struct opt schemes_opts[] = {
	RIN_OPTS,
	{ "window", O_WINDOW, OV_TIME, "TIME", "also show what each scheme did per window of "
	  "TIME" },
	{ 0 },
};

static int schemes_parse(struct cli *cli, int key, const char *arg)
{
	struct schemes_opts *so = cli->opts;
	int r = rin_parse(cli, key, arg);

	if (r >= 0)
		return r;
	if (key == O_WINDOW) {
		if (parse_time_opt(cli, "window", arg, &so->window_us))
			return EXIT_USAGE;
		return so->window_us ? check_wait(cli, "window", arg, so->window_us) :
			usage_error(cli, "--window '%s': expected a time above 0", arg);
	}
	return EXIT_USAGE;
}

/* Deltas are summed for these; the effective quota is a level, shown as its last value. */
static const enum damonctl_rec_stat counters[] = {
	DAMONCTL_REC_NR_TRIED, DAMONCTL_REC_SZ_TRIED, DAMONCTL_REC_NR_APPLIED,
	DAMONCTL_REC_SZ_APPLIED, DAMONCTL_REC_SZ_OPS_FILTER_PASSED, DAMONCTL_REC_QT_EXCEEDS,
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))
static const char *const counter_names[] = {
	"nr_tried", "sz_tried", "nr_applied", "sz_applied", "sz_ops_filter_passed", "qt_exceeds",
};

struct sch {
	uint32_t kdamond, scheme;
	char action[24];
	uint32_t has;
	uint64_t nr_stats, first_ns, last_ns;
	uint64_t prev[DAMONCTL_REC_NR_STATS];
	uint64_t total[NR_COUNTERS], win[NR_COUNTERS];
	uint64_t effective;
	uint64_t w0;
	bool win_open;
	json_object *windows;
};

static void add(struct sch *s, const struct damonctl_rec_stats *st)
{
	unsigned int i;

	for (i = 0; i < NR_COUNTERS; i++) {
		uint64_t cur = st->v[counters[i]], d;

		if (!(st->has & (1u << counters[i])) || !s->nr_stats)
			continue;
		d = cur >= s->prev[counters[i]] ? cur - s->prev[counters[i]] : cur;
		s->total[i] += d;
		s->win[i] += d;
	}
	memcpy(s->prev, st->v, sizeof(s->prev));
	s->has |= st->has;
	if (st->has & (1u << DAMONCTL_REC_EFFECTIVE_BYTES))
		s->effective = st->v[DAMONCTL_REC_EFFECTIVE_BYTES];
}

static void flush_window(struct cli *cli, struct sch *s)
{
	const struct schemes_opts *so = cli->opts;
	char a[32], b[32];
	unsigned int i;

	if (!s->win_open)
		return;
	if (cli->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "start_us", json_object_new_uint64(s->w0));
		json_object_object_add(o, "end_us", json_object_new_uint64(s->w0 + so->window_us));
		for (i = 0; i < NR_COUNTERS; i++)
			if (s->has & (1u << counters[i]))
				json_object_object_add(o, counter_names[i],
						       json_object_new_uint64(s->win[i]));
		json_object_array_add(s->windows, o);
	} else {
		printf(" %9.1f s %10" PRIu64 " %11s %10" PRIu64 " %11s %8" PRIu64 "\n",
		       (double)s->w0 / 1e6, s->win[0], fmt_size_col(s->win[1], a, sizeof(a)),
		       s->win[2], fmt_size_col(s->win[3], b, sizeof(b)), s->win[5]);
	}
	memset(s->win, 0, sizeof(s->win));
}

static struct sch *find(struct sch *t, unsigned int *nr, const struct damonctl_rec_stats *st)
{
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (t[i].kdamond == st->kdamond && t[i].scheme == st->scheme)
			return &t[i];
	if (*nr >= MAX_SCHEMES)
		return NULL;
	memset(&t[*nr], 0, sizeof(t[*nr]));
	t[*nr].kdamond = st->kdamond;
	t[*nr].scheme = st->scheme;
	memcpy(t[*nr].action, st->action, sizeof(t[*nr].action));
	return &t[(*nr)++];
}

/* The record's stats into the schemes' table @t (*nr of them); with --window, a text
 * window prints as soon as the next one of its scheme begins. rin_next's result: 0 at the
 * end, or -errno. */
static int take_stats(struct cli *cli, struct rin *in, struct sch *t, unsigned int *nr)
{
	const struct schemes_opts *so = cli->opts;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int r;

	while ((r = rin_next(in, &it)) == 1) {
		struct sch *s;
		uint64_t t_us;

		if (it.type != DAMONCTL_REC_STATS || !(s = find(t, nr, it.stats)))
			continue;
		t_us = (it.stats->time_ns - rin_base_ns(in)) / 1000;
		if (so->window_us) {
			uint64_t w = t_us / so->window_us * so->window_us;

			if (cli->json && !s->windows)
				s->windows = json_object_new_array();
			if (s->win_open && w != s->w0) {
				if (!cli->json)
					printf("kdamond %u scheme %-3u", s->kdamond, s->scheme);
				flush_window(cli, s);
			}
			s->w0 = w;
			s->win_open = true;
		}
		if (!s->nr_stats)
			s->first_ns = it.stats->time_ns;
		s->last_ns = it.stats->time_ns;
		add(s, it.stats);
		s->nr_stats++;
	}
	return r;
}

/* One scheme in the JSON document; its windows move into it. */
static json_object *scheme_json(struct rin *in, struct sch *s)
{
	json_object *o = json_object_new_object(), *tot = json_object_new_object();
	unsigned int j;

	json_object_object_add(o, "kdamond", json_object_new_int((int)s->kdamond));
	json_object_object_add(o, "scheme", json_object_new_int((int)s->scheme));
	json_object_object_add(o, "action", json_object_new_string(s->action));
	json_object_object_add(o, "stats_taken", json_object_new_uint64(s->nr_stats));
	json_object_object_add(o, "first_us", json_object_new_uint64(
		(s->first_ns - rin_base_ns(in)) / 1000));
	json_object_object_add(o, "last_us", json_object_new_uint64(
		(s->last_ns - rin_base_ns(in)) / 1000));
	for (j = 0; j < NR_COUNTERS; j++)
		if (s->has & (1u << counters[j]))
			json_object_object_add(tot, counter_names[j],
					       json_object_new_uint64(s->total[j]));
	json_object_object_add(o, "totals", tot);
	json_object_object_add(o, "effective_bytes",
		s->has & (1u << DAMONCTL_REC_EFFECTIVE_BYTES) ?
		json_object_new_uint64(s->effective) : NULL);
	if (s->windows) {
		json_object_object_add(o, "windows", s->windows);
		s->windows = NULL;
	}
	return o;
}

static int print_json(struct rin *in, struct sch *t, unsigned int nr)
{
	json_object *doc = json_doc_new(), *arr = json_object_new_array();
	unsigned int i;

	json_object_object_add(doc, "input", rin_input_json(in));
	for (i = 0; i < nr; i++)
		json_object_array_add(arr, scheme_json(in, &t[i]));
	json_object_object_add(doc, "schemes", arr);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

/* A scheme's totals for people, with the rates over the time its stats span. */
static void print_scheme_text(struct rin *in, const struct sch *s)
{
	double secs = (double)(s->last_ns - s->first_ns) / 1e9;
	char a[32], b[32], act[128];

	/* the record's word: control characters shown, never sent to the terminal */
	printf("kdamond %u scheme %u (%s): %" PRIu64 " stats from %.3f s to %.3f s\n",
	       s->kdamond, s->scheme, safe_str(s->action, act, sizeof(act)), s->nr_stats,
	       rin_rel_s(in, s->first_ns),
	       rin_rel_s(in, s->last_ns));
	printf("  tried   %12" PRIu64 " regions %11s", s->total[0],
	       fmt_size(s->total[1], a, sizeof(a)));
	if (secs > 0)
		printf("  (%.1f regions/s, %s/s)", (double)s->total[0] / secs,
		       fmt_size((uint64_t)((double)s->total[1] / secs), b, sizeof(b)));
	printf("\n  applied %12" PRIu64 " regions %11s", s->total[2],
	       fmt_size(s->total[3], a, sizeof(a)));
	if (secs > 0)
		printf("  (%.1f regions/s, %s/s)", (double)s->total[2] / secs,
		       fmt_size((uint64_t)((double)s->total[3] / secs), b, sizeof(b)));
	printf("\n  quota exceeded %" PRIu64 " times\n", s->total[5]);
	if (s->has & (1u << DAMONCTL_REC_EFFECTIVE_BYTES))
		printf("  effective quota at the end: %s\n", fmt_size(s->effective, a, sizeof(a)));
}

static int schemes_run(struct cli *cli, int argc, char **argv)
{
	const struct schemes_opts *so = cli->opts;
	struct sch *t = calloc(MAX_SCHEMES, sizeof(*t));
	unsigned int nr = 0, i;
	struct rin *in = NULL;
	int r, e;

	if (!t)
		return oom_error(cli);
	if (argc) {
		free(t);
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	}
	e = rin_open(cli, false, 0, &in);
	if (e) {
		free(t);
		return e;
	}
	/* text windows print as they complete; rows name their scheme */
	if (so->window_us && !cli->json)
		printf("%-20s %11s %10s %11s %10s %11s %8s\n", "scheme", "window", "tried",
		       "tried", "applied", "applied", "quota");
	r = take_stats(cli, in, t, &nr);
	if (r < 0) {
		e = -r;
		goto out;
	}
	for (i = 0; i < nr && so->window_us; i++) {
		if (!cli->json && t[i].win_open)
			printf("kdamond %u scheme %-3u", t[i].kdamond, t[i].scheme);
		flush_window(cli, &t[i]);
	}
	if (cli->json)
		e = print_json(in, t, nr);
	else if (!nr)
		printf("no scheme stats in %s (the kdamond had no scheme of its own, or the record "
		       "has no stats)\n", so->rin.input ? so->rin.input : "the capture");
	for (i = 0; i < nr && !cli->json; i++)
		print_scheme_text(in, &t[i]);
out:
	for (i = 0; i < nr; i++)
		json_object_put(t[i].windows);
	free(t);
	r = rin_close(in);
	return e ? e : r;
}

const struct cmd cmd_report_schemes = {
	.name = "schemes",
	.summary = "what each scheme tried and applied over time, from the recorded stats",
	.usage = "[-i FILE|-] [--window TIME] [--time-range START,END] [--json]",
	.opts = schemes_opts,
	.parse = schemes_parse,
	.run = schemes_run,
	.opts_size = sizeof(struct schemes_opts),
	.opts_init = &(const struct schemes_opts){ .rin = RIN_OPTS_INIT },
};
