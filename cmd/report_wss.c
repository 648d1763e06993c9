// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report wss: the working set size (bytes of regions accessed in at least a given
 * share of the samples) over time, as percentiles over the whole range or per window, or
 * snapshot by snapshot. Percentiles come from a fixed-size histogram (damonctl_qhist), and the
 * JSON's per-snapshot or per-window array streams (struct json_stream), so memory does not
 * grow with the record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "chart_out.h"
#include "quantile.h"
#include "report_parts.h"
#include "report_window.h"

#define MAX_PCTS 101	/* damo's -r 0 101 1 */

struct wss_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	uint64_t min_rate_bp;		/* 0: any access */
	double pcts[MAX_PCTS];
	unsigned int nr_pcts;
	uint64_t window_us;
	bool series;
	int format;		/* the index in --format's choices; -1: from -o */
	const char *output;
	uint64_t exclude;	/* --exclude-snapshots */
};

static const struct wss_opts wss_defaults = { .rin = RIN_OPTS_INIT, .format = -1 };

enum { O_MIN_RATE = 300, O_PCTS, O_WINDOW, O_SERIES, O_FORMAT, O_EXCLUDE };
enum { WSS_TEXT, WSS_PNG, WSS_SVG };	/* --format's choices, in order */

#define TO(kind, member) OPT_TO(kind, struct wss_opts, member)
static const struct opt wss_opts[] = {
	RIN_OPTS,
	{ "min-access-rate", O_MIN_RATE, OV_PERCENT, "PERCENT", "count regions accessed in at "
	  "least PERCENT of the samples (default: any access)", TO(OD_BP, min_rate_bp) },
	{ "percentiles", O_PCTS, OV_STRING, "LIST", "which percentiles (default "
	  "0,25,50,75,90,99,100)" },
	{ "window", O_WINDOW, OV_TIME, "TIME", "percentiles per window of TIME, in time order" },
	{ "series", O_SERIES, OV_NONE, NULL, "every snapshot's working set size",
	  TO(OD_FLAG, series) },
	{ "format", O_FORMAT, OV_FORMAT, "text|png|svg", "text (default), or a chart of the "
	  "working set size over time (default from -o's extension)", TO(OD_CHOICE, format) },
	{ "output", 'o', OV_FILE, "FILE", "write to FILE (needed for png)",
	  TO(OD_STRING, output) },
	{ "exclude-snapshots", O_EXCLUDE, OV_INT, "N", "leave out the first N snapshots "
	  "(damo's report wss leaves out 20 by default: taken before DAMON adapted its "
	  "regions)", TO(OD_U64, exclude) },
	{ 0 },
};
#undef TO

static int wss_parse(struct cli *cli, int key, const char *arg)
{
	struct wss_opts *wo = cli->opts;
	int r = rin_parse(cli, key, arg);

	if (r >= 0)
		return r;
	switch (key) {
	case O_PCTS: {
		int n = qhist_parse_list(arg, wo->pcts, MAX_PCTS);

		if (n < 0)
			return usage_error(cli, "--percentiles '%s': expected up to %d numbers "
					   "from 0 to 100, comma-separated", arg, MAX_PCTS);
		wo->nr_pcts = (unsigned int)n;
		return 0;
	}
	case O_WINDOW:
		if (parse_time_opt(cli, "window", arg, &wo->window_us))
			return EXIT_USAGE;
		return wo->window_us ? check_wait(cli, "window", arg, wo->window_us) :
			usage_error(cli, "--window '%s': expected a time above 0", arg);
	}
	return EXIT_USAGE;
}

static uint64_t wss_of(const struct wss_opts *wo, const struct damonctl_rec_snapshot *s)
{
	return damonctl_wss_bytes(s, wo->min_rate_bp);
}

json_object *wss_pcts_json(const struct damonctl_qhist *h, const double *pcts,
			   unsigned int nr)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < nr; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "percentile", json_object_new_double(pcts[i]));
		json_object_object_add(o, "wss", json_object_new_uint64(damonctl_qhist_value_at(h,
										    pcts[i])));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *pcts_json(const struct wss_opts *wo, const struct damonctl_qhist *h)
{
	return wss_pcts_json(h, wo->pcts, wo->nr_pcts);
}

static void window_row(const struct wss_opts *wo, const struct rin *in,
		       const struct damonctl_qhist *h, uint64_t w0)
{
	char buf[32];
	unsigned int i;

	printf("%9.1f s %6" PRIu64, (double)w0 / 1e6, damonctl_qhist_count(h));
	for (i = 0; i < wo->nr_pcts; i++)
		printf(" %11s", fmt_size_col(damonctl_qhist_value_at(h, wo->pcts[i]), buf,
					 sizeof(buf)));
	printf(" %11s\n", fmt_size_col((uint64_t)damonctl_qhist_mean(h), buf,
				    sizeof(buf)));
	(void)in;
}

static json_object *window_json(const struct wss_opts *wo, const struct damonctl_qhist *h,
				uint64_t w0)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "start_us", json_object_new_uint64(w0));
	json_object_object_add(o, "end_us", json_object_new_uint64(w0 + wo->window_us));
	json_object_object_add(o, "snapshots", json_object_new_uint64(damonctl_qhist_count(h)));
	json_object_object_add(o, "percentiles", pcts_json(wo, h));
	json_object_object_add(o, "mean", json_object_new_uint64(
		(uint64_t)damonctl_qhist_mean(h)));
	return o;
}

/* --json with --series or --window: the array streams as snapshots are read. The head
 * (format_version, the series, the rate) is printed with the first element, once the series
 * is known and so that an input that fails before any snapshot prints nothing; the figures
 * over the whole range and the input follow the array. */
struct stream {
	const char *key;		/* NULL: no array, one document at the end */
	bool begun;
	struct json_stream js;
};

static int stream_begin(struct stream *st, const struct wss_opts *wo, const struct rin *in)
{
	json_object *head = json_doc_new();

	st->begun = true;
	if (head) {
		json_object_object_add(head, "series", rin_series_json(in));
		json_object_object_add(head, "min_access_rate_bp",
				       json_object_new_uint64(wo->min_rate_bp));
	}
	return json_stream_begin(&st->js, head, st->key);
}

static int stream_add(struct stream *st, const struct wss_opts *wo, const struct rin *in,
		      json_object *elem)
{
	if (!st->begun && stream_begin(st, wo, in)) {
		json_object_put(elem);
		return -EIO;
	}
	return json_stream_add(&st->js, elem);
}

/* Every snapshot's working set size, for the chart. */
struct points {
	double *t, *wss;
	size_t n, cap;
};

static int points_add(struct points *p, double t, double v)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		double *a = realloc(p->t, cap * sizeof(*a)), *b;

		if (!a)
			return -ENOMEM;
		p->t = a;
		b = realloc(p->wss, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		p->wss = b;
		p->cap = cap;
	}
	p->t[p->n] = t;
	p->wss[p->n++] = v;
	return 0;
}

/* The chart: each snapshot's working set size, and the median over the span. */
static int write_chart(struct cli *cli, const struct rin *in, const struct points *p,
		       const struct damonctl_qhist *all)
{
	const struct wss_opts *wo = cli->opts;
	double *median = malloc(p->n * sizeof(*median));
	struct chart_series series[] = {
		{ .name = "each snapshot", .y = p->wss },
		{ .name = "median (p50) over the span", .y = median, .dashed = true },
	};
	char title[160], subtitle[320], rate[32];
	struct chart_ts c = {
		.title = title, .subtitle = subtitle, .y_label = "working set size",
		.y_unit = CHART_Y_BYTES, .x = p->t, .n = p->n, .series = series,
		.nr_series = 2,
	};
	size_t i;
	FILE *f;
	int r;

	if (!median)
		return oom_error(cli);
	for (i = 0; i < p->n; i++)
		median[i] = (double)damonctl_qhist_value_at(all, 50);
	snprintf(title, sizeof(title), "Working set size: %s", rin_series_name(in));
	snprintf(subtitle, sizeof(subtitle), "%s: %zu snapshot%s from %.3f s to %.3f s; regions "
		 "accessed in %s of the samples", rin_input_name(in), p->n, p->n == 1 ? "" : "s",
		 p->t[0], p->t[p->n - 1], wo->min_rate_bp ? fmt_bp(wo->min_rate_bp, rate,
		 sizeof(rate)) : "any");
	f = chart_open(cli, wo->output);
	if (!f) {
		free(median);
		return EXIT_USAGE;
	}
	r = chart_time_series(f, wo->format == WSS_PNG ? CHART_PNG : CHART_SVG, &c);
	free(median);
	return chart_close(cli, f, wo->output, r, "the chart");
}

/* Option combinations that cannot work, before the input is opened. 0 or an exit code. */
static int check_options(struct cli *cli, bool *chart)
{
	struct wss_opts *wo = cli->opts;

	if (!wo->nr_pcts)
		wo->nr_pcts = qhist_default_list(wo->pcts);
	if (wo->series && wo->window_us)
		return usage_error(cli, "--series and --window: pick one");
	if (wo->format < 0) {
		int fmt = wo->output ? chart_format_of_name(wo->output) : -1;

		wo->format = fmt == CHART_PNG ? WSS_PNG : fmt == CHART_SVG ? WSS_SVG : WSS_TEXT;
	}
	*chart = wo->format != WSS_TEXT;
	if (*chart && (cli->json || wo->series || wo->window_us))
		return usage_error(cli, "--format %s draws every snapshot; --json, --series and "
				   "--window are for text", wo->format == WSS_PNG ? "png" : "svg");
	if (!*chart && wo->output)
		return usage_error(cli, "-o is for the charts (png, svg); text goes to stdout");
	return *chart ? chart_check_output(cli, wo->format == WSS_PNG ? CHART_PNG : CHART_SVG,
					   wo->output) : 0;
}

/* One run's state: the whole range's histogram, the open window's, the streamed JSON array
 * and the chart's points. */
struct wss_run {
	const struct wss_opts *o;
	uint64_t seen;		/* snapshots, those left out included */
	struct damonctl_qhist *all, *win;
	struct stream st;
	struct points pts;
	bool chart, header, win_open;
	uint64_t first_ns, last_ns, w0;
};

/* --series: one row (or array element) for a snapshot. 0 or an exit code. */
static int series_row(struct wss_run *w, const struct rin *in, uint64_t t_us, uint64_t v)
{
	char buf[32];

	if (w->st.key) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "time_us", json_object_new_uint64(t_us));
		json_object_object_add(o, "wss", json_object_new_uint64(v));
		/* main says why it failed */
		return stream_add(&w->st, w->o, in, o) ? EXIT_FAIL : 0;
	}
	if (!w->header)
		printf("%11s %11s\n", "time", "wss");
	w->header = true;
	printf("%9.3f s %11s\n", (double)t_us / 1e6, fmt_size_col(v, buf, sizeof(buf)));
	return 0;
}

/* The window that ended, as a row or an array element. 0 or an exit code. */
static int window_end(struct wss_run *w, const struct rin *in)
{
	if (!w->st.key)
		window_row(w->o, in, w->win, w->w0);
	else if (stream_add(&w->st, w->o, in, window_json(w->o, w->win, w->w0)))
		return EXIT_FAIL;
	return 0;
}

/* --window: the snapshot goes to its window (aligned on the record's start; empty ones are
 * skipped), closing the one before. 0 or an exit code. */
static int window_add(struct wss_run *w, const struct rin *in, uint64_t t_us, uint64_t v)
{
	const struct wss_opts *wo = w->o;
	uint64_t at = t_us / wo->window_us * wo->window_us;
	char buf[32];
	unsigned int i;

	if (w->win_open && at != w->w0) {
		if (window_end(w, in))
			return EXIT_FAIL;
		damonctl_qhist_reset(w->win);
	}
	if (!w->st.key && !w->header) {
		printf("%11s %6s", "window", "snaps");
		for (i = 0; i < wo->nr_pcts; i++) {
			snprintf(buf, sizeof(buf), "p%g", wo->pcts[i]);
			printf(" %11s", buf);
		}
		printf(" %11s\n", "mean");
		w->header = true;
	}
	w->w0 = at;
	w->win_open = true;
	damonctl_qhist_add(w->win, v);
	return 0;
}

/* One snapshot into the run. 0 or an exit code. */
static int take_snapshot(struct cli *cli, struct wss_run *w, const struct rin *in,
			 const struct damonctl_rec_snapshot *snap)
{
	uint64_t v = wss_of(w->o, snap), t_us = (snap->end_ns - rin_base_ns(in)) / 1000;
	int e = 0;

	if (w->seen++ < w->o->exclude)
		return 0;	/* --exclude-snapshots */
	if (!damonctl_qhist_count(w->all))
		w->first_ns = snap->end_ns;
	w->last_ns = snap->end_ns;
	damonctl_qhist_add(w->all, v);
	if (w->chart && points_add(&w->pts, rin_rel_s(in, snap->end_ns), (double)v))
		return oom_error(cli);
	if (w->o->series)
		e = series_row(w, in, t_us, v);
	if (!e && w->o->window_us)
		e = window_add(w, in, t_us, v);
	return e;
}

/* The JSON document: the whole range's figures (after the streamed array, if any). */
static int print_json(struct wss_run *w, const struct rin *in)
{
	const struct wss_opts *wo = w->o;
	const struct damonctl_qhist *all = w->all;
	json_object *doc = w->st.key ? json_object_new_object() : json_doc_new();

	if (!w->st.key) {
		json_object_object_add(doc, "series", rin_series_json(in));
		json_object_object_add(doc, "min_access_rate_bp",
				       json_object_new_uint64(wo->min_rate_bp));
	}
	json_object_object_add(doc, "snapshots", json_object_new_uint64(damonctl_qhist_count(all)));
	json_object_object_add(doc, "percentiles", pcts_json(wo, all));
	json_object_object_add(doc, "mean", json_object_new_uint64(
		(uint64_t)damonctl_qhist_mean(all)));
	/* after the array: input says whether the record was read whole */
	json_object_object_add(doc, "input", rin_input_json(in));
	if (!w->st.key)
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	if (!w->st.begun && stream_begin(&w->st, wo, in))
		return json_object_put(doc), EXIT_FAIL;
	return json_stream_end(&w->st.js, doc) ? EXIT_FAIL : EXIT_OK;
}

/* The whole range's percentiles and mean, for people. */
static void print_text(const struct wss_run *w, const struct rin *in)
{
	const struct wss_opts *wo = w->o;
	const struct damonctl_qhist *all = w->all;
	char buf[32];
	unsigned int i;

	printf("%s: working set (regions accessed in %s of the samples) over %" PRIu64
	       " snapshots, %.3f s to %.3f s\n", rin_series_name(in),
	       wo->min_rate_bp ? fmt_bp(wo->min_rate_bp, buf, sizeof(buf)) : "any",
	       damonctl_qhist_count(all), rin_rel_s(in, w->first_ns),
	       rin_rel_s(in, w->last_ns));
	for (i = 0; i < wo->nr_pcts; i++)
		printf("  p%-6g %11s\n", wo->pcts[i],
		       fmt_size_col(damonctl_qhist_value_at(all, wo->pcts[i]), buf, sizeof(buf)));
	printf("  mean    %11s\n", fmt_size_col((uint64_t)damonctl_qhist_mean(all), buf,
					    sizeof(buf)));
}

static int wss_run(struct cli *cli, int argc, char **argv)
{
	struct wss_run w = { .o = cli->opts, .all = damonctl_qhist_new(),
			     .win = damonctl_qhist_new() };
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct rin *in = NULL;
	int r = 0, e;

	if (argc)
		e = usage_error(cli, "unexpected argument '%s'", argv[0]);
	else if (!w.all || !w.win)
		e = oom_error(cli);
	else
		e = check_options(cli, &w.chart);
	if (e)
		goto out;
	e = rin_open(cli, false, 0, &in);
	if (e)
		goto out;
	if (cli->json)
		w.st.key = w.o->series ? "wss_series" : w.o->window_us ? "windows" : NULL;
	while (!e && (r = rin_next(in, &it)) == 1)
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			e = take_snapshot(cli, &w, in, it.snapshot);
	if (!e && r < 0)
		e = -r;
	if (!e && w.win_open)
		e = window_end(&w, in);
	if (e)
		goto out;
	if (cli->json)
		e = print_json(&w, in);
	else if (!damonctl_qhist_count(w.all))
		e = (usage_error(cli, "no snapshot in %s matches the selection",
				 w.o->rin.input ? w.o->rin.input : "the capture"), EXIT_FAIL);
	else if (w.chart)
		e = write_chart(cli, in, &w.pts, w.all);
	else
		print_text(&w, in);
out:
	free(w.pts.t);
	free(w.pts.wss);
	damonctl_qhist_free(w.all);
	damonctl_qhist_free(w.win);
	r = rin_close(in);
	return e ? e : r;
}

int report_wss_of(struct cli *cli, const char *input)
{
	struct wss_opts wo = wss_defaults;

	wo.rin.input = input;
	return report_window_run(cli, &wo, wss_run);
}

const struct cmd cmd_report_wss = {
	.name = "wss",
	.summary = "working set size over time: percentiles, per window, per snapshot, or a chart",
	.usage = "[-i FILE|-] [--min-access-rate PERCENT] [--percentiles LIST]\n"
		 "       [--window TIME | --series] [--time-range START,END] [--json]\n"
		 "       damonc report wss [-i FILE|-] [--format png|svg] -o FILE",
	.opts = wss_opts,
	.parse = wss_parse,
	.run = wss_run,
	.opts_size = sizeof(struct wss_opts),
	.opts_init = &wss_defaults,
};
