// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report heatmap: access rate over time (x) and address (y).
 *
 * Two passes over the input: the first finds the time span and the address spans that
 * regions ever covered (gaps between them, such as the unmapped space between a process's
 * heap and its mmap area, are left out of the address axis), the second adds every region
 * into the cells it covers, weighted by bytes. Memory: one snapshot and the grid.
 * Formats: text (characters by rate), raw (time, address, rate triples for plotting), png
 * and svg (a colour map).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart_out.h"
#include "report_parts.h"
#include "report_window.h"

enum hm_format { HM_TEXT, HM_RAW, HM_PNG, HM_SVG };

static struct {
	enum hm_format format;
	bool format_set;
	const char *output;
	uint64_t tbins, abins;		/* 0: the format's default */
	uint64_t cell;
} ho;

enum { O_FORMAT = 300, O_BINS, O_CELL };

static const struct opt heatmap_opts[] = {
	RIN_OPTS,
	{ "format", O_FORMAT, OV_FORMAT, "text|raw|png|svg", "text (default), raw (time, "
	  "address, rate triples), or a picture (default from -o's extension)" },
	{ "output", 'o', OV_FILE, "FILE", "write to FILE (needed for png and svg)" },
	{ "bins", O_BINS, OV_STRING, "TxA", "time x address cells (default: text 72x20, "
	  "pictures 200x100)" },
	{ "cell", O_CELL, OV_INT, "PIXELS", "pictures: pixels per cell side (default: the "
	  "cells fill an 800x400 plot)" },
	{ 0 },
};

static int heatmap_parse(struct cli *cli, int key, const char *arg)
{
	int r = rin_parse(cli, key, arg);
	char *x, *end;

	if (r >= 0)
		return r;
	switch (key) {
	case O_FORMAT:
		/* the metavar's order is enum hm_format's */
		r = opt_choice(cli, heatmap_opts, O_FORMAT, arg);
		if (r < 0)
			return EXIT_USAGE;
		ho.format = (enum hm_format)r;
		ho.format_set = true;
		return 0;
	case 'o':
		ho.output = arg;
		return 0;
	case O_BINS:
		x = strchr(arg, 'x');
		if (!x)
			return usage_error(cli, "--bins '%s': expected TIMExADDRESS, e.g. 72x20", arg);
		ho.tbins = strtoull(arg, &end, 10);
		if (end != x || !ho.tbins || ho.tbins > 10000)
			return usage_error(cli, "--bins '%s': time cells from 1 to 10000", arg);
		ho.abins = strtoull(x + 1, &end, 10);
		if (*end || !ho.abins || ho.abins > 10000)
			return usage_error(cli, "--bins '%s': address cells from 1 to 10000", arg);
		return 0;
	case O_CELL:
		if (parse_uint_opt(cli, "cell", arg, 64, &ho.cell))
			return EXIT_USAGE;
		return ho.cell ? 0 : usage_error(cli, "--cell '%s': at least 1", arg);
	}
	return EXIT_USAGE;
}

struct span {
	uint64_t start, end, off;	/* off: where it begins on the gap-free axis */
};

struct heatmap {
	struct span *spans, *tmp;
	size_t nr_spans, cap, tmp_cap;
	uint64_t covered;
	uint64_t t_first, t_last, nr_snaps;
	unsigned int nt, na;
	uint64_t t_width, a_width;
	double *sum, *weight;
	uint64_t nth;			/* snapshots added */
};

/* Merge [s, e) into the sorted, disjoint span list. */
static int add_span(struct heatmap *h, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = h->nr_spans, i, j, n = 0;

	/* already covered: the common case once the first snapshot is in */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->spans[mid].end < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->nr_spans && h->spans[lo].start <= s && e <= h->spans[lo].end)
		return 0;
	if (h->nr_spans + 1 > h->tmp_cap) {
		size_t c = (h->nr_spans + 1) * 2;
		void *p = realloc(h->tmp, c * sizeof(*h->tmp)), *q;

		if (!p)
			return -ENOMEM;
		h->tmp = p;
		q = realloc(h->spans, c * sizeof(*h->spans));
		if (!q)
			return -ENOMEM;
		h->spans = q;
		h->tmp_cap = h->cap = c;
	}
	for (i = 0; i < lo; i++)
		h->tmp[n++] = h->spans[i];
	/* spans that touch or overlap [s, e) melt into it */
	for (j = lo; j < h->nr_spans && h->spans[j].start <= e; j++) {
		if (h->spans[j].start < s)
			s = h->spans[j].start;
		if (h->spans[j].end > e)
			e = h->spans[j].end;
	}
	h->tmp[n++] = (struct span){ s, e, 0 };
	for (; j < h->nr_spans; j++)
		h->tmp[n++] = h->spans[j];
	memcpy(h->spans, h->tmp, n * sizeof(*h->spans));
	h->nr_spans = n;
	return 0;
}

int hm_scan(struct heatmap *h, const struct damonctl_rec_snapshot *s)
{
	uint32_t i = 0;

	if (!h->nr_snaps++)
		h->t_first = s->end_ns;
	h->t_last = s->end_ns;
	while (i < s->nr_regions) {
		uint64_t a = s->regions[i].start, b = s->regions[i].end;

		/* a run of adjacent regions is one span */
		for (i++; i < s->nr_regions && s->regions[i].start == b; i++)
			b = s->regions[i].end;
		if (b > a && add_span(h, a, b))
			return -ENOMEM;
	}
	return 0;
}

static int pass1(struct rin *in, struct heatmap *h)
{
	struct damonctl_rec_item it;
	int r;

	while ((r = rin_next(in, &it)) == 1)
		if (it.type == DAMONCTL_REC_SNAPSHOT && hm_scan(h, &it.snapshot))
			return -ENOMEM;
	return r;
}

struct heatmap *hm_new(void)
{
	return calloc(1, sizeof(struct heatmap));
}

uint64_t hm_nr_snapshots(const struct heatmap *h)
{
	return h->nr_snaps;
}

size_t hm_nr_spans(const struct heatmap *h)
{
	return h->nr_spans;
}

void hm_span(const struct heatmap *h, uint64_t *start, uint64_t *end)
{
	*start = h->nr_spans ? h->spans[0].start : 0;
	*end = h->nr_spans ? h->spans[h->nr_spans - 1].end : 0;
}

struct heatmap *hm_of_span(const struct heatmap *h, size_t i)
{
	struct heatmap *n = hm_new();

	if (!n)
		return NULL;
	n->t_first = h->t_first;
	n->t_last = h->t_last;
	n->nr_snaps = h->nr_snaps;
	if (add_span(n, h->spans[i].start, h->spans[i].end)) {
		hm_free(n);
		return NULL;
	}
	return n;
}

void hm_free(struct heatmap *h)
{
	if (!h)
		return;
	free(h->spans);
	free(h->tmp);
	free(h->sum);
	free(h->weight);
	free(h);
}

static size_t find_span(const struct heatmap *h, uint64_t addr)
{
	size_t lo = 0, hi = h->nr_spans;

	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->spans[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The real address at a position of the gap-free axis. */
static uint64_t unmap(const struct heatmap *h, uint64_t off)
{
	size_t i;

	for (i = 0; i + 1 < h->nr_spans && h->spans[i + 1].off <= off; i++)
		;
	return h->spans[i].start + (off - h->spans[i].off);
}

static void layout(struct heatmap *h, uint64_t tbins, uint64_t abins)
{
	size_t i;
	uint64_t span_t;

	for (i = 0; i < h->nr_spans; i++) {
		h->spans[i].off = h->covered;
		h->covered += h->spans[i].end - h->spans[i].start;
	}
	h->nt = (unsigned int)(h->nr_snaps < tbins ? h->nr_snaps : tbins);
	span_t = h->t_last - h->t_first + 1;
	h->t_width = (span_t + h->nt - 1) / h->nt;
	h->na = (unsigned int)(h->covered < abins ? h->covered : abins);
	h->a_width = (h->covered + h->na - 1) / h->na;
}

int hm_grid(struct heatmap *h, uint64_t tbins, uint64_t abins)
{
	layout(h, tbins, abins);
	h->sum = calloc((size_t)h->nt * h->na, sizeof(*h->sum));
	h->weight = calloc((size_t)h->nt * h->na, sizeof(*h->weight));
	return h->sum && h->weight ? 0 : -ENOMEM;
}

void hm_add(struct heatmap *h, const struct damonctl_rec_snapshot *s)
{
	unsigned int t;
	uint32_t i;

	if (!s->aggr_us || !s->sample_us)
		return;
	/* a column per snapshot when they are fewer than the columns: their times jitter,
	 * and binning by time would leave some columns empty and fill others twice */
	if (h->nr_snaps <= h->nt)
		t = (unsigned int)h->nth++;
	else
		t = (unsigned int)((s->end_ns - h->t_first) / h->t_width);
	if (t >= h->nt)
		t = h->nt - 1;
	for (i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *rg = &s->regions[i];
		const struct span *sp = &h->spans[find_span(h, rg->start)];
		double rate = (double)rg->nr_accesses * (double)s->sample_us / (double)s->aggr_us;
		uint64_t r0 = rg->start > sp->start ? rg->start : sp->start;
		uint64_t r1 = rg->end < sp->end ? rg->end : sp->end;
		uint64_t o1, o2, a;

		/* the spans of a heatmap of one span (hm_of_span()) hold only part of them */
		if (r0 >= r1)
			continue;
		o1 = sp->off + (r0 - sp->start);
		o2 = o1 + (r1 - r0);
		if (rate > 1)
			rate = 1;
		for (a = o1 / h->a_width; a < h->na && a * h->a_width < o2; a++) {
			uint64_t lo = a * h->a_width, hi = lo + h->a_width;
			double ov = (double)((hi < o2 ? hi : o2) - (lo > o1 ? lo : o1));
			size_t c = (size_t)t * h->na + a;

			h->sum[c] += rate * ov;
			h->weight[c] += ov;
		}
	}
}

static int pass2(struct rin *in, struct heatmap *h)
{
	struct damonctl_rec_item it;
	int r;

	while ((r = rin_next(in, &it)) == 1)
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			hm_add(h, &it.snapshot);
	return r;
}

/* The rate of a cell in [0, 1], or -1 for no data. */
static double cell(const struct heatmap *h, unsigned int t, unsigned int a)
{
	size_t c = (size_t)t * h->na + a;

	return h->weight[c] > 0 ? h->sum[c] / h->weight[c] : -1;
}

void hm_print_text(const struct rin *in, const struct heatmap *h, const char *name, FILE *f)
{
	static const char levels[] = ".:-=+*#%@";
	unsigned int t, a;
	double t_end = (double)(h->t_last - rin_base_ns(in)) / 1e9;
	char sz[32];

	fprintf(f, "%s: access rate over time (x: %.3f s to %.3f s, %u columns) and address "
		"(y: %s covered in %zu span%s, %u rows, gaps left out)\n", name,
		rin_rel_s(in, h->t_first), t_end, h->nt, fmt_size(h->covered, sz, sizeof(sz)),
		h->nr_spans, h->nr_spans == 1 ? "" : "s", h->na);
	for (a = h->na; a-- > 0;) {
		fprintf(f, "0x%014" PRIx64 " |", unmap(h, (uint64_t)a * h->a_width));
		for (t = 0; t < h->nt; t++) {
			double v = cell(h, t, a);
			int lvl;

			if (v < 0) {
				fputc(' ', f);
				continue;
			}
			/* '.' is exactly 0; the rest split (0, 100%] in eight */
			lvl = v <= 0 ? 0 : 1 + (int)(v * 8 - 1e-9);
			fputc(levels[lvl > 8 ? 8 : lvl], f);
		}
		fputs("|\n", f);
	}
	{
		char l[32], r[32];
		int pad;

		snprintf(l, sizeof(l), "%.3f s", rin_rel_s(in, h->t_first));
		snprintf(r, sizeof(r), "%.3f s", t_end);
		pad = (int)h->nt - (int)strlen(l) - (int)strlen(r);
		fprintf(f, "%18s%s%*s%s\n", "", l, pad > 1 ? pad : 1, "", r);
	}
	fprintf(f, "'.' 0%%, ':-=+*#%%@' up to 100%% of samples accessed, ' ' no data\n");
}

static void print_raw(const struct rin *in, const struct heatmap *h, FILE *f)
{
	unsigned int t, a;

	fprintf(f, "# time_s address access_rate_percent (%s)\n", rin_series_name(in));
	for (t = 0; t < h->nt; t++)
		for (a = 0; a < h->na; a++) {
			double v = cell(h, t, a);

			if (v >= 0)
				fprintf(f, "%.6f %" PRIu64 " %.2f\n",
					rin_rel_s(in, h->t_first + (uint64_t)t * h->t_width),
					unmap(h, (uint64_t)a * h->a_width), v * 100);
		}
}

void hm_fill_json(const struct rin *in, const struct heatmap *h, json_object *doc)
{
	json_object *times = json_object_new_array();
	json_object *addrs = json_object_new_array(), *rows = json_object_new_array();
	json_object *spans = json_object_new_array();
	unsigned int t, a;
	size_t i;

	for (t = 0; t < h->nt; t++)
		json_object_array_add(times, json_object_new_uint64(
			(h->t_first + (uint64_t)t * h->t_width - rin_base_ns(in)) / 1000));
	for (a = 0; a < h->na; a++) {
		json_object *o = json_object_new_object();
		uint64_t lo = (uint64_t)a * h->a_width;
		uint64_t hi = lo + h->a_width < h->covered ? lo + h->a_width : h->covered;

		json_object_object_add(o, "start", json_object_new_uint64(unmap(h, lo)));
		json_object_object_add(o, "end", json_object_new_uint64(unmap(h, hi - 1) + 1));
		json_object_array_add(addrs, o);
	}
	for (i = 0; i < h->nr_spans; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "start", json_object_new_uint64(h->spans[i].start));
		json_object_object_add(o, "end", json_object_new_uint64(h->spans[i].end));
		json_object_array_add(spans, o);
	}
	for (t = 0; t < h->nt; t++) {
		json_object *row = json_object_new_array();

		for (a = 0; a < h->na; a++) {
			double v = cell(h, t, a);

			json_object_array_add(row, v < 0 ? NULL :
					      json_object_new_uint64((uint64_t)(v * 10000 + 0.5)));
		}
		json_object_array_add(rows, row);
	}
	json_object_object_add(doc, "time_bins_us", times);
	json_object_object_add(doc, "time_bin_width_us", json_object_new_uint64(h->t_width / 1000));
	json_object_object_add(doc, "address_spans", spans);
	json_object_object_add(doc, "address_bins", addrs);
	/* access rate in bp per [time][address] cell; null: no data */
	json_object_object_add(doc, "access_rate_bp", rows);
}

static int print_json(const struct rin *in, const struct heatmap *h)
{
	json_object *doc = json_doc_new();

	json_object_object_add(doc, "input", rin_input_json(in));
	json_object_object_add(doc, "series", rin_series_json(in));
	hm_fill_json(in, h, doc);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

static double chart_cell(const void *data, unsigned int t, unsigned int a)
{
	return cell(data, t, a);
}

static uint64_t chart_row(const void *data, unsigned int a)
{
	const struct heatmap *h = data;

	if (a >= h->na)
		return unmap(h, h->covered - 1) + 1;
	return unmap(h, (uint64_t)a * h->a_width);
}

/* The picture: chart.c lays it out with a title, the axes and a colour scale. */
static int write_image(const struct rin *in, const struct heatmap *h, FILE *f)
{
	unsigned int *gaps = calloc(h->nr_spans, sizeof(*gaps));
	char title[160], subtitle[320], sz[32];
	struct chart_heatmap c = {
		.title = title,
		.subtitle = subtitle,
		.nt = h->nt,
		.na = h->na,
		.t0_s = rin_rel_s(in, h->t_first),
		.t1_s = rin_rel_s(in, h->t_first + (uint64_t)h->nt * h->t_width),
		.cell = chart_cell,
		.row_addr = chart_row,
		.gaps = gaps,
		.data = h,
		.cell_px = (unsigned int)ho.cell,
	};
	size_t i;
	int r;

	if (!gaps)
		return -ENOMEM;
	/* a gap lies where a span begins, on the gap-free axis */
	for (i = 1; i < h->nr_spans; i++)
		gaps[c.nr_gaps++] = (unsigned int)((h->spans[i].off + h->a_width / 2) /
						   h->a_width);
	snprintf(title, sizeof(title), "Memory access heatmap: %s", rin_series_name(in));
	snprintf(subtitle, sizeof(subtitle), "%s: %" PRIu64 " snapshot%s from %.3f s to %.3f s; "
		 "%s of memory in %zu address span%s", rin_input_name(in), h->nr_snaps,
		 h->nr_snaps == 1 ? "" : "s", rin_rel_s(in, h->t_first),
		 rin_rel_s(in, h->t_last), fmt_size(h->covered, sz, sizeof(sz)), h->nr_spans,
		 h->nr_spans == 1 ? "" : "s");
	r = chart_heatmap(f, ho.format == HM_PNG ? CHART_PNG : CHART_SVG, &c);
	free(gaps);
	return r;
}

static int heatmap_run(struct cli *cli, int argc, char **argv)
{
	struct heatmap h = { 0 };
	struct rin *in;
	FILE *f;
	int r, e = EXIT_OK;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (!ho.format_set && ho.output) {
		int fmt = chart_format_of_name(ho.output);

		ho.format = fmt == CHART_PNG ? HM_PNG : fmt == CHART_SVG ? HM_SVG : HM_TEXT;
	}
	if ((ho.format == HM_PNG || ho.format == HM_SVG) && cli->json)
		return usage_error(cli, "--json describes the grid as text does; images have no "
				   "JSON form (use --format text --json)");
	if (ho.format == HM_PNG && chart_check_output(cli, CHART_PNG, ho.output))
		return EXIT_USAGE;
	if (!ho.tbins) {
		bool img = ho.format == HM_PNG || ho.format == HM_SVG;

		ho.tbins = img ? 200 : 72;
		ho.abins = img ? 100 : 20;
	}
	e = rin_open(cli, true, 0, &in);
	if (e)
		return e;
	r = pass1(in, &h);
	if (r < 0) {
		e = r == -ENOMEM ? (usage_error(cli, "out of memory"), EXIT_FAIL) : -r;
		goto out;
	}
	if (!h.nr_snaps || !h.nr_spans) {
		e = (usage_error(cli, "no snapshot with regions in %s",
				 rin_o.input ? rin_o.input : "the capture"), EXIT_FAIL);
		goto out;
	}
	if (hm_grid(&h, ho.tbins, ho.abins)) {
		e = (usage_error(cli, "out of memory"), EXIT_FAIL);
		goto out;
	}
	e = rin_rewind(in);
	if (e)
		goto out;
	r = pass2(in, &h);
	if (r < 0) {
		e = -r;
		goto out;
	}
	if (cli->json) {
		e = print_json(in, &h);
		goto out;
	}
	f = chart_open(cli, ho.output);
	if (!f) {
		e = EXIT_USAGE;
		goto out;
	}
	r = 0;
	switch (ho.format) {
	case HM_TEXT:
		hm_print_text(in, &h, rin_series_name(in), f);
		break;
	case HM_RAW:
		print_raw(in, &h, f);
		break;
	case HM_PNG:
	case HM_SVG:
		r = write_image(in, &h, f);
		break;
	}
	e = chart_close(cli, f, ho.output, r, "the heatmap");
out:
	free(h.spans);
	free(h.tmp);
	free(h.sum);
	free(h.weight);
	r = rin_close(in);
	return e ? e : r;
}

int report_heatmap_of(struct cli *cli, const char *input, unsigned int tbins,
		      unsigned int abins)
{
	/* its run fills in defaults: the next window starts from the same options */
	char saved[sizeof(ho)];
	int r;

	memcpy(saved, &ho, sizeof(ho));
	rin_o.input = input;
	ho.format = HM_TEXT;
	ho.tbins = tbins;
	ho.abins = abins;
	r = heatmap_run(cli, 0, NULL);
	memcpy(&ho, saved, sizeof(ho));
	return r;
}

const struct cmd cmd_report_heatmap = {
	.name = "heatmap",
	.summary = "access rate by time and address: text, raw triples, PNG or SVG",
	.usage = "[-i FILE|-] [--format text|raw|png|svg] [-o FILE] [--bins TxA] [--cell PIXELS]\n"
		 "       [--time-range START,END] [--address-range START-END] [--json]",
	.opts = heatmap_opts,
	.parse = heatmap_parse,
	.run = heatmap_run,
};
