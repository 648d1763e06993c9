// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report holistic: a first look at a record in one report (damo's `report
 * holistic`): what the record holds (report info), a heatmap per series and per address
 * span it monitored (report heatmap), the distribution of the working set size of all
 * targets together and of each target's RSS and size and the system's used memory (report
 * wss, report footprints), and, given a perf profile, its hottest functions.
 *
 * Three passes over the input, each feeding the other reports' code: the first the record's
 * summary, working set sizes and footprints, and where each series ends (for --last); the
 * second the address spans of each series (heatmap's first pass); the third the heatmaps'
 * cells. Memory: one snapshot, the histograms and the grids.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "color.h"
#include "perf_report.h"
#include "report_parts.h"
#include "report_window.h"

static const double pcts[] = { 0, 25, 50, 75, 100 };	/* damo's */
#define NR_PCTS (sizeof(pcts) / sizeof(pcts[0]))

struct holistic_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	uint64_t tbins, abins;
	uint64_t last_us;		/* 0: the whole record */
	const char *profile, *perf;
	uint64_t top;
};

static const struct holistic_opts holistic_defaults = {
	.rin = RIN_OPTS_INIT, .tbins = 60, .abins = 10, .perf = "perf", .top = 15 };

enum { O_BINS = 300, O_LAST, O_PROFILE, O_PERF, O_TOP };

#define TO(kind, member) OPT_TO(kind, struct holistic_opts, member)
static const struct opt holistic_opts[] = {
	RIN_OPTS,
	{ "bins", O_BINS, OV_STRING, "TxA", "each heatmap's time x address cells (default 60x10: "
	  "80 columns)" },
	{ "last", O_LAST, OV_TIME, "TIME", "heatmaps of the last TIME of each series only" },
	{ "profile", O_PROFILE, OV_FILE, "FILE", "the hotspot functions of FILE, a perf.data "
	  "(perf record's output)", TO(OD_STRING, profile) },
	{ "perf", O_PERF, OV_FILE, "PATH", "the perf program (default: perf in PATH)",
	  TO(OD_STRING, perf) },
	{ "top", O_TOP, OV_INT, "N", "hotspot functions to show (default 15)" },
	{ 0 },
};
#undef TO

static int parse_bins(struct cli *cli, struct holistic_opts *ro, const char *arg)
{
	const char *x = strchr(arg, 'x'), *end;

	if (!x)
		return usage_error(cli, "--bins '%s': expected TIMExADDRESS, e.g. 60x10", arg);
	if (parse_uint_token(arg, 'x', &ro->tbins, &end) || !ro->tbins ||
	    ro->tbins > 10000)
		return usage_error(cli, "--bins '%s': time cells from 1 to 10000", arg);
	if (parse_uint_token(x + 1, 0, &ro->abins, &end) || !ro->abins ||
	    ro->abins > 10000)
		return usage_error(cli, "--bins '%s': address cells from 1 to 10000", arg);
	return 0;
}

static int holistic_parse(struct cli *cli, int key, const char *arg)
{
	struct holistic_opts *ro = cli->opts;
	int r = rin_parse(cli, key, arg);

	if (r >= 0)
		return r;
	switch (key) {
	case O_BINS:
		return parse_bins(cli, ro, arg);
	case O_LAST:
		if (parse_time_opt(cli, "last", arg, &ro->last_us))
			return EXIT_USAGE;
		return ro->last_us ? check_wait(cli, "last", arg, ro->last_us) :
			usage_error(cli, "--last '%s': expected a time above 0", arg);
	case O_TOP:
		/* not an OD_U64 entry: its "at least 1" is its own */
		if (parse_uint_opt(cli, "top", arg, 100000, &ro->top))
			return EXIT_USAGE;
		return ro->top ? 0 : usage_error(cli, "--top '%s': at least 1", arg);
	}
	return EXIT_USAGE;
}

struct hseries {
	struct rin_key key;		/* first: see rin_slot() */
	uint64_t last_ns;		/* the end of its last snapshot */
	struct damonctl_heatmap *scan;	/* its spans (pass 2) */
	struct damonctl_heatmap **maps;	/* a heatmap per span (pass 3) */
	size_t nr_maps;
};

struct holistic {
	const struct holistic_opts *o;
	struct damonctl_rec_info *info;
	struct damonctl_footprints *fp;
	struct damonctl_wss_total *wss;	/* all targets' working set, per aggregation */
	const struct damonctl_qhist *wss_all;	/* its values, after pass 1 */
	struct rin_table series;
	struct perf_rows hot;
};

/* Pass 1: the summary, the working set sizes, the footprints, where each series ends. */
static int pass_summary(struct rin *in, struct holistic *h)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int r;

	while ((r = rin_next(in, &it)) == 1) {
		struct hseries *s;

		if (damonctl_rec_info_feed(h->info, &it) ||
		    damonctl_footprints_feed(h->fp, &it) < 0)
			return -ENOMEM;
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		s = rin_slot(&h->series, it.snapshot);
		if (!s)
			return -ENOMEM;
		s->last_ns = it.snapshot->end_ns;
		damonctl_wss_total_feed(h->wss, it.snapshot);
	}
	if (r == 0)
		h->wss_all = damonctl_wss_total_values(h->wss);
	return r;
}

/* A snapshot of @s in the heatmaps' time (--last). */
static bool in_window(const struct holistic_opts *ro, const struct hseries *s,
		      const struct damonctl_rec_snapshot *sn)
{
	uint64_t w = ro->last_us * 1000;

	return !ro->last_us || s->last_ns < w || sn->end_ns >= s->last_ns - w;
}

/* Pass 2 (scan) and pass 3 (cells) of the heatmaps. */
static int pass_heat(struct rin *in, struct holistic *h, bool scan)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int r;

	while ((r = rin_next(in, &it)) == 1) {
		struct hseries *s;
		size_t i;

		/* what each series' process had mapped: the heatmaps leave the rest out */
		for (i = 0; scan && it.type == DAMONCTL_REC_FOOTPRINT && i < h->series.nr; i++) {
			s = rin_table_at(&h->series, i);
			if (s->scan && damonctl_heatmap_footprint(s->scan, s->key.target,
								  it.json) == -ENOMEM)
				return -ENOMEM;
		}
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		s = rin_slot(&h->series, it.snapshot);
		if (!s)
			return -ENOMEM;
		if (!in_window(h->o, s, it.snapshot))
			continue;
		if (scan && !s->scan && !(s->scan = damonctl_heatmap_new()))
			return -ENOMEM;
		if (scan && damonctl_heatmap_scan(s->scan, it.snapshot))
			return -ENOMEM;
		for (i = 0; !scan && i < s->nr_maps; i++)
			damonctl_heatmap_feed(s->maps[i], it.snapshot);
	}
	return r;
}

/* After pass 2: a heatmap per span of each series. */
static int make_maps(struct holistic *h)
{
	const struct holistic_opts *ro = h->o;
	size_t i, j;

	for (i = 0; i < h->series.nr; i++) {
		struct hseries *s = rin_table_at(&h->series, i);
		size_t n = s->scan ? damonctl_heatmap_nr_spans(s->scan) : 0;

		if (!n)
			continue;
		s->maps = calloc(n, sizeof(*s->maps));
		if (!s->maps)
			return -ENOMEM;
		for (j = 0; j < n; j++) {
			s->maps[j] = damonctl_heatmap_of_span(s->scan, j);
			if (!s->maps[j] || damonctl_heatmap_grid(s->maps[j], ro->tbins, ro->abins))
				return -ENOMEM;
			s->nr_maps = j + 1;
		}
	}
	return 0;
}

/* The hotspot functions; 0 or an exit code after saying why. */
static int profile(struct cli *cli, struct holistic *h)
{
	const struct holistic_opts *ro = h->o;
	struct stat st;
	int fd, status, r;

	if (!ro->profile)
		return 0;
	fd = open(ro->profile, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return usage_error(cli, "--profile '%s': %s", ro->profile, strerror(errno));
	r = fstat(fd, &st) ? -errno : 0;
	close(fd);
	if (r || !S_ISREG(st.st_mode))
		return usage_error(cli, "--profile '%s': %s", ro->profile,
				   r ? strerror(-r) : "not a file (expected perf record's perf.data)");
	r = perf_report_top(ro->perf, ro->profile, (size_t)ro->top, &h->hot, &status);
	if (r == -ENOENT || r == -EACCES) {
		if (strcmp(ro->perf, "perf"))
			return usage_error(cli, "--perf '%s': %s", ro->perf, strerror(-r));
		return usage_error(cli, "--profile needs perf, which is not installed (no 'perf' "
				   "in PATH): install it (linux-perf, perf) or name it with --perf "
				   "PATH"), EXIT_FAIL;
	}
	if (r == -ECHILD)
		return usage_error(cli, "--profile '%s': '%s report -i %s --stdio' failed (exit "
				   "status %d): is it perf record's output?", ro->profile, ro->perf,
				   ro->profile, status);
	if (r)
		return usage_error(cli, "--profile '%s': running %s: %s", ro->profile, ro->perf,
				   strerror(-r)), EXIT_FAIL;
	return 0;
}

static int read_passes(struct cli *cli, struct rin *in, struct holistic *h)
{
	int r = pass_summary(in, h);

	if (!r && !(r = rin_rewind(in) ? -EXIT_FAIL : 0))
		r = pass_heat(in, h, true);
	if (!r)
		r = make_maps(h);
	if (!r && !(r = rin_rewind(in) ? -EXIT_FAIL : 0))
		r = pass_heat(in, h, false);
	if (r == -ENOMEM)
		return oom_error(cli);
	return -r;
}

static void holistic_free(struct holistic *h)
{
	size_t i, j;

	for (i = 0; i < h->series.nr; i++) {
		struct hseries *s = rin_table_at(&h->series, i);

		for (j = 0; j < s->nr_maps; j++)
			damonctl_heatmap_free(s->maps[j]);
		free(s->maps);
		damonctl_heatmap_free(s->scan);
	}
	free(h->series.slots);
	damonctl_wss_total_free(h->wss);
	damonctl_rec_info_free(h->info);
	damonctl_footprints_free(h->fp);
	perf_rows_free(&h->hot);
	free(h);
}

static void heading(const char *title)
{
	size_t i, n = strlen(title);

	printf("\n%s%s%s\n", color_start(CR_HEAD), title, color_end());
	for (i = 0; i < n; i++)
		putchar('=');
	putchar('\n');
}

static void text_heatmaps(const struct rin *in, const struct holistic *h)
{
	char name[64], title[160], a[32], range[48];
	size_t i, j, n = 0;

	heading("Heatmaps");
	for (i = 0; i < h->series.nr; i++) {
		const struct hseries *s = rin_table_at(&h->series, i);

		rin_key_name(&s->key, name, sizeof(name));
		for (j = 0; j < s->nr_maps; j++, n++) {
			uint64_t lo, hi;

			damonctl_heatmap_span(s->maps[j], 0, &lo, &hi, NULL);
			snprintf(title, sizeof(title), "%s %s", name,
				 fmt_range(lo, hi, range, sizeof(range)));
			printf("%s# %s, address range %zu of %zu: %s\n", n ? "\n" : "", name, j + 1,
			       s->nr_maps, fmt_size(hi - lo, a, sizeof(a)));
			hm_print_text(in, s->maps[j], title, stdout);
		}
	}
	if (!n)
		printf("no snapshot with regions\n");
}

static void pct_row(const char *label, const struct damonctl_qhist *q)
{
	char v[32];
	size_t j;

	printf("%-32s", label);
	for (j = 0; j < NR_PCTS; j++)
		printf(" %*s", SIZE_COL, fmt_size_col(damonctl_qhist_value_at(q, pcts[j]), v,
						      sizeof(v)));
	putchar('\n');
}

/* damo's rows: the working set, each target's rss and vsz, the system's used memory. */
static void text_distributions(const struct holistic *h)
{
	static const char *const shown[] = { "rss", "vsz", "used" };
	char label[64], p[16];
	unsigned int i, k;
	size_t j;

	heading("Working set size and memory footprints");
	printf("%-32s", "percentile");
	for (j = 0; j < NR_PCTS; j++) {
		snprintf(p, sizeof(p), "p%g", pcts[j]);
		printf(" %*s", SIZE_COL, p);
	}
	putchar('\n');
	if (damonctl_qhist_count(h->wss_all))
		pct_row("wss (all targets)", h->wss_all);
	for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++) {
		struct damonctl_footprint_metric m = { .sz = sizeof(m) };

		for (i = 0; !damonctl_footprints_metric(h->fp, i, &m); i++)
			if (!strcmp(m.name, shown[k]))
				pct_row(fp_label(&m, label, sizeof(label)), m.values);
	}
	if (!damonctl_qhist_count(h->wss_all) && !damonctl_footprints_samples(h->fp, NULL, NULL))
		printf("no snapshot and no footprint\n");
	else if (!damonctl_footprints_samples(h->fp, NULL, NULL))
		printf("(no footprint: recorded with --no-footprints, by damo, or before damonc "
		       "0.2?)\n");
}

static void text_hotspots(const struct holistic *h)
{
	const struct holistic_opts *ro = h->o;
	size_t i;

	heading("Hotspot functions");
	printf("perf report -i %s --stdio: the first %zu of them\n", ro->profile, h->hot.n);
	printf("%9s  %-16s %-24s %s\n", "overhead", "command", "shared object", "symbol");
	for (i = 0; i < h->hot.n; i++) {
		const struct perf_row *w = &h->hot.v[i];

		printf("%8.2f%%  %-16s %-24s [%c] %s\n", w->overhead, w->command, w->object,
		       w->where ? w->where : '?', w->symbol);
	}
}

static int holistic_print_text(const struct rin *in, const struct holistic *h)
{
	heading("Record");
	info_print_text(h->info, in);
	text_heatmaps(in, h);
	text_distributions(h);
	if (h->o->profile)
		text_hotspots(h);
	return EXIT_OK;
}

static json_object *json_heatmaps(const struct rin *in, const struct holistic *h)
{
	json_object *arr = json_object_new_array();
	size_t i, j;

	for (i = 0; i < h->series.nr; i++) {
		const struct hseries *s = rin_table_at(&h->series, i);

		for (j = 0; j < s->nr_maps; j++) {
			json_object *o = json_object_new_object(), *r = json_object_new_object();
			struct damonctl_heatmap_layout g = DAMONCTL_HEATMAP_LAYOUT_INIT;
			uint64_t lo, hi;

			damonctl_heatmap_layout(s->maps[j], &g);
			damonctl_heatmap_span(s->maps[j], 0, &lo, &hi, NULL);
			json_object_object_add(r, "start", json_object_new_uint64(lo));
			json_object_object_add(r, "end", json_object_new_uint64(hi));
			json_object_object_add(o, "series", rin_key_json(&s->key));
			json_object_object_add(o, "address_range", r);
			json_object_object_add(o, "snapshots",
					       json_object_new_uint64(g.nr_snapshots));
			hm_fill_json(in, s->maps[j], o);
			json_object_array_add(arr, o);
		}
	}
	return arr;
}

static json_object *json_hotspots(const struct holistic *h)
{
	const struct holistic_opts *ro = h->o;
	json_object *o, *rows;
	size_t i;

	if (!ro->profile)
		return NULL;
	o = json_object_new_object();
	rows = json_object_new_array();
	json_object_object_add(o, "profile", json_object_new_string(ro->profile));
	json_object_object_add(o, "perf", json_object_new_string(ro->perf));
	for (i = 0; i < h->hot.n; i++) {
		const struct perf_row *w = &h->hot.v[i];
		json_object *r = json_object_new_object();
		char where[2] = { w->where, '\0' };

		json_object_object_add(r, "overhead_percent", json_object_new_double(w->overhead));
		json_object_object_add(r, "command", json_object_new_string(w->command));
		json_object_object_add(r, "shared_object", json_object_new_string(w->object));
		json_object_object_add(r, "symbol", json_object_new_string(w->symbol));
		json_object_object_add(r, "where", w->where ? json_object_new_string(where) : NULL);
		json_object_array_add(rows, r);
	}
	json_object_object_add(o, "rows", rows);
	return o;
}

static int holistic_print_json(const struct rin *in, const struct holistic *h)
{
	json_object *doc = json_doc_new(), *info = json_object_new_object();
	json_object *wss = json_object_new_object(), *fp = json_object_new_object();

	info_fill_json(h->info, in, info);
	json_object_object_del(info, "input");	/* the document's */
	json_object_object_add(doc, "input", rin_input_json(in));
	json_object_object_add(doc, "info", info);
	json_object_object_add(doc, "last_us", h->o->last_us ?
			       json_object_new_uint64(h->o->last_us) : NULL);
	json_object_object_add(doc, "heatmaps", json_heatmaps(in, h));
	/* report wss's model; no series: all of them, summed per aggregation */
	json_object_object_add(wss, "series", NULL);
	json_object_object_add(wss, "min_access_rate_bp", json_object_new_uint64(0));
	json_object_object_add(wss, "snapshots", json_object_new_uint64(
		damonctl_qhist_count(h->wss_all)));
	json_object_object_add(wss, "percentiles", wss_pcts_json(h->wss_all, pcts, NR_PCTS));
	json_object_object_add(wss, "mean", json_object_new_uint64(
		(uint64_t)damonctl_qhist_mean(h->wss_all)));
	json_object_object_add(doc, "wss", wss);
	fp_fill_json(h->fp, in, pcts, NR_PCTS, fp);
	json_object_object_add(doc, "footprints", fp);
	json_object_object_add(doc, "hotspots", json_hotspots(h));
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

static int holistic_run(struct cli *cli, int argc, char **argv)
{
	const struct holistic_opts *ro = cli->opts;
	struct holistic *h;
	struct rin *in = NULL;
	int e, r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	h = calloc(1, sizeof(*h));
	if (!h || !(h->info = damonctl_rec_info_new()) ||
	    !(h->fp = damonctl_footprints_new(ro->rin.target)) ||
	    !(h->wss = damonctl_wss_total_new())) {
		if (h)
			holistic_free(h);
		return oom_error(cli);
	}
	h->o = ro;
	h->series.size = sizeof(struct hseries);
	/* the profile first: a bad one fails before any output */
	e = profile(cli, h);
	if (!e)
		e = rin_open(cli, true, 0, &in);
	if (e) {
		holistic_free(h);
		return e;
	}
	rin_all_series(in);
	e = read_passes(cli, in, h);
	if (!e)
		e = cli->json ? holistic_print_json(in, h) : holistic_print_text(in, h);
	r = rin_close(in);
	holistic_free(h);
	return e ? e : r;
}

int report_holistic_of(struct cli *cli, const char *input)
{
	struct holistic_opts ro = holistic_defaults;

	ro.rin.input = input;
	return report_window_run(cli, &ro, holistic_run);
}

const struct cmd cmd_report_holistic = {
	.name = "holistic",
	.summary = "a first look at a record: summary, heatmaps, working set, footprints, "
		   "hotspots",
	.usage = "[-i FILE|-] [--bins TxA] [--last TIME] [--profile FILE [--perf PATH] [--top N]]"
		 "\n       [--target N] [--time-range START,END] [--address-range START-END] [--json]",
	.opts = holistic_opts,
	.parse = holistic_parse,
	.run = holistic_run,
	.opts_size = sizeof(struct holistic_opts),
	.opts_init = &holistic_defaults,
};
