// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report heatmap: access rate over time (x) and address (y).
 *
 * Two passes over the input into libdamonctl's heatmap (damonctl_heatmap_new(3)): the first
 * finds the address spans (gaps left out of the address axis), the second fills the grid.
 * Memory: one snapshot and the grid.
 * Formats: text (characters by rate), raw (time, address, rate triples for plotting), png
 * and svg (a colour map).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "color.h"
#include "chart_out.h"
#include "report_parts.h"
#include "report_window.h"

enum hm_format { HM_TEXT, HM_RAW, HM_PNG, HM_SVG };

struct heatmap_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	int format;		/* enum hm_format: the index of --format's choice; -1: from -o */
	const char *output;
	uint64_t tbins, abins;		/* 0: the format's default */
	uint64_t cell;
};

static const struct heatmap_opts heatmap_defaults = { .rin = RIN_OPTS_INIT, .format = -1 };

enum { O_FORMAT = 300, O_BINS, O_CELL };

#define TO(kind, member) OPT_TO(kind, struct heatmap_opts, member)
static const struct opt heatmap_opts[] = {
	RIN_OPTS,
	/* the metavar's order is enum hm_format's */
	{ "format", O_FORMAT, OV_FORMAT, "text|raw|png|svg", "text (default), raw (time, "
	  "address, rate triples), or a picture (default from -o's extension)",
	  TO(OD_CHOICE, format) },
	{ "output", 'o', OV_FILE, "FILE", "write to FILE (needed for png and svg)",
	  TO(OD_STRING, output) },
	{ "bins", O_BINS, OV_STRING, "TxA", "time x address cells (default: text 72x20, "
	  "pictures 200x100)" },
	{ "cell", O_CELL, OV_INT, "PIXELS", "pictures: pixels per cell side (default: the "
	  "cells fill an 800x400 plot)" },
	{ 0 },
};
#undef TO

static int heatmap_parse(struct cli *cli, int key, const char *arg)
{
	struct heatmap_opts *ho = cli->opts;
	int r = rin_parse(cli, key, arg);
	const char *end;
	char *x;

	if (r >= 0)
		return r;
	switch (key) {
	case O_BINS:
		x = strchr(arg, 'x');
		if (!x)
			return usage_error(cli, "--bins '%s': expected TIMExADDRESS, e.g. 72x20", arg);
		if (parse_uint_token(arg, 'x', &ho->tbins, &end) || !ho->tbins ||
		    ho->tbins > 10000)
			return usage_error(cli, "--bins '%s': time cells from 1 to 10000", arg);
		if (parse_uint_token(x + 1, 0, &ho->abins, &end) || !ho->abins ||
		    ho->abins > 10000)
			return usage_error(cli, "--bins '%s': address cells from 1 to 10000", arg);
		return 0;
	case O_CELL:
		/* not an OD_U64 entry: its "at least 1" is its own */
		if (parse_uint_opt(cli, "cell", arg, 64, &ho->cell))
			return EXIT_USAGE;
		return ho->cell ? 0 : usage_error(cli, "--cell '%s': at least 1", arg);
	}
	return EXIT_USAGE;
}

/* The scan's and the grid's figures, for the renderings. */
static struct damonctl_heatmap_layout layout_of(const struct damonctl_heatmap *h)
{
	struct damonctl_heatmap_layout g = DAMONCTL_HEATMAP_LAYOUT_INIT;

	damonctl_heatmap_layout(h, &g);
	return g;
}

/* The address where row @a begins. */
static uint64_t row_start(const struct damonctl_heatmap *h,
			  const struct damonctl_heatmap_layout *g, unsigned int a)
{
	return damonctl_heatmap_address(h, (uint64_t)a * g->address_bin_bytes);
}

/* The spans and time of the snapshots, and what the series' process had mapped (the
 * footprints after its snapshots say): the axis leaves the rest out. */
static int pass1(struct rin *in, struct damonctl_heatmap *h)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int r, target = -1;

	while ((r = rin_next(in, &it)) == 1) {
		if (it.type == DAMONCTL_REC_SNAPSHOT) {
			target = it.snapshot->target;
			if (damonctl_heatmap_scan(h, it.snapshot))
				return -ENOMEM;
		} else if (it.type == DAMONCTL_REC_FOOTPRINT && target >= 0 &&
			   damonctl_heatmap_footprint(h, target, it.json) == -ENOMEM) {
			return -ENOMEM;
		}
	}
	return r;
}

static int pass2(struct rin *in, struct damonctl_heatmap *h)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int r;

	while ((r = rin_next(in, &it)) == 1)
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			damonctl_heatmap_feed(h, it.snapshot);
	return r;
}

void hm_print_text(const struct rin *in, const struct damonctl_heatmap *h, const char *name,
		   FILE *f)
{
	const struct damonctl_heatmap_layout g = layout_of(h);
	size_t nr_spans = damonctl_heatmap_nr_spans(h);
	static const char levels[] = ".:-=+*#%@";
	unsigned int t, a;
	double t_end = (double)(g.last_ns - rin_base_ns(in)) / 1e9;
	bool color = f == stdout && color_on();
	char sz[32];

	fprintf(f, "%s: access rate over time (x: %.3f s to %.3f s, %u columns) and address "
		"(y: %u rows of %s in %zu span%s, gaps and unmapped memory left out)\n", name,
		rin_rel_s(in, g.first_ns), t_end, g.time_bins, g.address_bins,
		fmt_size(g.address_bin_bytes, sz, sizeof(sz)), nr_spans, nr_spans == 1 ? "" : "s");
	for (a = g.address_bins; a-- > 0;) {
		int shown = -1;	/* the heat colour in force */

		fprintf(f, "%s |", fmt_addr(row_start(h, &g, a), sz, sizeof(sz)));
		for (t = 0; t < g.time_bins; t++) {
			double v = damonctl_heatmap_cell(h, t, a);
			int lvl;

			/* '.' is exactly 0; the rest split (0, 100%] in eight */
			lvl = v < 0 ? -1 : v <= 0 ? 0 : 1 + (int)(v * 8 - 1e-9);
			lvl = lvl > 8 ? 8 : lvl;
			if (color && lvl != shown) {
				fputs(shown >= 0 ? color_end() : "", f);
				color_heat(f, lvl);
				shown = lvl;
			}
			fputc(lvl < 0 ? ' ' : levels[lvl], f);
		}
		fprintf(f, "%s|\n", color && shown >= 0 ? color_end() : "");
	}
	{
		char l[32], r[32];
		int pad;

		snprintf(l, sizeof(l), "%.3f s", rin_rel_s(in, g.first_ns));
		snprintf(r, sizeof(r), "%.3f s", t_end);
		pad = (int)g.time_bins - (int)strlen(l) - (int)strlen(r);
		fprintf(f, "%20s%s%*s%s\n", "", l, pad > 1 ? pad : 1, "", r);
	}
	fprintf(f, "'.' 0%%, ':-=+*#%%@' up to 100%% of samples accessed, ' ' no data\n");
}

static void print_raw(const struct rin *in, const struct damonctl_heatmap *h, FILE *f)
{
	const struct damonctl_heatmap_layout g = layout_of(h);
	unsigned int t, a;

	fprintf(f, "# time_s address access_rate_percent (%s)\n", rin_series_name(in));
	for (t = 0; t < g.time_bins; t++)
		for (a = 0; a < g.address_bins; a++) {
			double v = damonctl_heatmap_cell(h, t, a);

			if (v >= 0)
				fprintf(f, "%.6f %" PRIu64 " %.2f\n",
					rin_rel_s(in, g.first_ns + (uint64_t)t * g.time_bin_ns),
					row_start(h, &g, a), v * 100);
		}
}

void hm_fill_json(const struct rin *in, const struct damonctl_heatmap *h, json_object *doc)
{
	const struct damonctl_heatmap_layout g = layout_of(h);
	size_t nr_spans = damonctl_heatmap_nr_spans(h);
	json_object *times = json_object_new_array();
	json_object *addrs = json_object_new_array(), *rows = json_object_new_array();
	json_object *spans = json_object_new_array();
	unsigned int t, a;
	size_t i;

	for (t = 0; t < g.time_bins; t++)
		json_object_array_add(times, json_object_new_uint64(
			(g.first_ns + (uint64_t)t * g.time_bin_ns - rin_base_ns(in)) / 1000));
	for (a = 0; a < g.address_bins; a++) {
		json_object *o = json_object_new_object();
		uint64_t lo = (uint64_t)a * g.address_bin_bytes;
		uint64_t hi = lo + g.address_bin_bytes < g.covered_bytes ?
			      lo + g.address_bin_bytes : g.covered_bytes;

		json_object_object_add(o, "start", json_object_new_uint64(
			damonctl_heatmap_address(h, lo)));
		json_object_object_add(o, "end", json_object_new_uint64(
			damonctl_heatmap_address(h, hi - 1) + 1));
		json_object_array_add(addrs, o);
	}
	for (i = 0; i < nr_spans; i++) {
		json_object *o = json_object_new_object();
		uint64_t start, end;

		damonctl_heatmap_span(h, i, &start, &end, NULL);
		json_object_object_add(o, "start", json_object_new_uint64(start));
		json_object_object_add(o, "end", json_object_new_uint64(end));
		json_object_array_add(spans, o);
	}
	for (t = 0; t < g.time_bins; t++) {
		json_object *row = json_object_new_array();

		for (a = 0; a < g.address_bins; a++) {
			double v = damonctl_heatmap_cell(h, t, a);

			json_object_array_add(row, v < 0 ? NULL :
					      json_object_new_uint64((uint64_t)(v * 10000 + 0.5)));
		}
		json_object_array_add(rows, row);
	}
	json_object_object_add(doc, "time_bins_us", times);
	json_object_object_add(doc, "time_bin_width_us", json_object_new_uint64(
		g.time_bin_ns / 1000));
	json_object_object_add(doc, "address_spans", spans);
	json_object_object_add(doc, "address_bins", addrs);
	/* access rate in bp per [time][address] cell; null: no data */
	json_object_object_add(doc, "access_rate_bp", rows);
}

static int print_json(const struct rin *in, const struct damonctl_heatmap *h)
{
	json_object *doc = json_doc_new();

	json_object_object_add(doc, "input", rin_input_json(in));
	json_object_object_add(doc, "series", rin_series_json(in));
	hm_fill_json(in, h, doc);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

static double chart_cell(const void *data, unsigned int t, unsigned int a)
{
	return damonctl_heatmap_cell(data, t, a);
}

static uint64_t chart_row(const void *data, unsigned int a)
{
	const struct damonctl_heatmap *h = data;
	const struct damonctl_heatmap_layout g = layout_of(h);

	if (a >= g.address_bins)
		return damonctl_heatmap_address(h, g.covered_bytes - 1) + 1;
	return row_start(h, &g, a);
}

/* The picture: chart.c lays it out with a title, the axes and a colour scale. */
static int write_image(const struct heatmap_opts *ho, const struct rin *in,
		       const struct damonctl_heatmap *h, FILE *f)
{
	const struct damonctl_heatmap_layout g = layout_of(h);
	size_t nr_spans = damonctl_heatmap_nr_spans(h);
	unsigned int *gaps = calloc(g.address_bins, sizeof(*gaps));
	char title[160], subtitle[320], sz[32];
	struct chart_heatmap c = {
		.title = title,
		.subtitle = subtitle,
		.nt = g.time_bins,
		.na = g.address_bins,
		.t0_s = rin_rel_s(in, g.first_ns),
		.t1_s = rin_rel_s(in, g.first_ns + (uint64_t)g.time_bins * g.time_bin_ns),
		.cell = chart_cell,
		.row_addr = chart_row,
		.gaps = gaps,
		.data = h,
		.cell_px = (unsigned int)ho->cell,
	};
	unsigned int a;
	int r;

	if (!gaps)
		return -ENOMEM;
	/* a gap lies where a row does not begin where the one below it ends */
	for (a = 1; a < g.address_bins; a++)
		if (row_start(h, &g, a) != row_start(h, &g, a - 1) + g.address_bin_bytes)
			gaps[c.nr_gaps++] = a;
	snprintf(title, sizeof(title), "Memory access heatmap: %s", rin_series_name(in));
	snprintf(subtitle, sizeof(subtitle), "%s: %" PRIu64 " snapshot%s from %.3f s to %.3f s; "
		 "rows of %s in %zu address span%s", rin_input_name(in), g.nr_snapshots,
		 g.nr_snapshots == 1 ? "" : "s", rin_rel_s(in, g.first_ns),
		 rin_rel_s(in, g.last_ns), fmt_size(g.address_bin_bytes, sz, sizeof(sz)), nr_spans,
		 nr_spans == 1 ? "" : "s");
	r = chart_heatmap(f, ho->format == HM_PNG ? CHART_PNG : CHART_SVG, &c);
	free(gaps);
	return r;
}

static int heatmap_run(struct cli *cli, int argc, char **argv)
{
	struct heatmap_opts *ho = cli->opts;
	struct damonctl_heatmap *h;
	struct rin *in;
	FILE *f;
	int r, e = EXIT_OK;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (ho->format < 0) {
		int fmt = ho->output ? chart_format_of_name(ho->output) : -1;

		ho->format = fmt == CHART_PNG ? HM_PNG : fmt == CHART_SVG ? HM_SVG : HM_TEXT;
	}
	if ((ho->format == HM_PNG || ho->format == HM_SVG) && cli->json)
		return usage_error(cli, "--json describes the grid as text does; images have no "
				   "JSON form (use --format text --json)");
	if (ho->format == HM_PNG || ho->format == HM_SVG) {
		e = chart_check_output(cli, ho->format == HM_PNG ? CHART_PNG : CHART_SVG,
				       ho->output);
		if (e)
			return e;
	} else if (ho->output && output_check(cli, "-o", ho->output)) {
		return EXIT_USAGE;
	}
	if (!ho->tbins) {
		bool img = ho->format == HM_PNG || ho->format == HM_SVG;

		ho->tbins = img ? 200 : 72;
		ho->abins = img ? 100 : 20;
	}
	h = damonctl_heatmap_new();
	if (!h)
		return oom_error(cli);
	e = rin_open(cli, true, 0, &in);
	if (e) {
		damonctl_heatmap_free(h);
		return e;
	}
	r = pass1(in, h);
	if (r < 0) {
		e = r == -ENOMEM ? oom_error(cli) : -r;
		goto out;
	}
	if (!damonctl_heatmap_nr_spans(h)) {	/* spans come from snapshots */
		e = (usage_error(cli, "no snapshot with regions in %s",
				 ho->rin.input ? ho->rin.input : "the capture"), EXIT_FAIL);
		goto out;
	}
	if (damonctl_heatmap_grid(h, ho->tbins, ho->abins)) {
		e = oom_error(cli);
		goto out;
	}
	e = rin_rewind(in);
	if (e)
		goto out;
	r = pass2(in, h);
	if (r < 0) {
		e = -r;
		goto out;
	}
	if (cli->json) {
		e = print_json(in, h);
		goto out;
	}
	f = chart_open(cli, ho->output);
	if (!f) {
		e = EXIT_USAGE;
		goto out;
	}
	r = 0;
	switch ((enum hm_format)ho->format) {
	case HM_TEXT:
		hm_print_text(in, h, rin_series_name(in), f);
		break;
	case HM_RAW:
		print_raw(in, h, f);
		break;
	case HM_PNG:
	case HM_SVG:
		r = write_image(ho, in, h, f);
		break;
	}
	e = chart_close(cli, f, ho->output, r, "the heatmap");
out:
	damonctl_heatmap_free(h);
	r = rin_close(in);
	return e ? e : r;
}

int report_heatmap_of(struct cli *cli, const char *input, unsigned int tbins,
		      unsigned int abins)
{
	struct heatmap_opts ho = heatmap_defaults;

	ho.rin.input = input;
	ho.format = HM_TEXT;
	ho.tbins = tbins;
	ho.abins = abins;
	return report_window_run(cli, &ho, heatmap_run);
}

const struct cmd cmd_report_heatmap = {
	.name = "heatmap",
	.summary = "access rate by time and address: text, raw triples, PNG or SVG",
	.usage = "[-i FILE|-] [--format text|raw|png|svg] [-o FILE] [--bins TxA] [--cell PIXELS]\n"
		 "       [--time-range START,END] [--address-range START-END] [--json]",
	.opts = heatmap_opts,
	.parse = heatmap_parse,
	.run = heatmap_run,
	.opts_size = sizeof(struct heatmap_opts),
	.opts_init = &heatmap_defaults,
};
