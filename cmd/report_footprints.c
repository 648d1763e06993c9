// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report footprints: the memory footprint a record kept beside its snapshots (damo's
 * `report footprints`): each target's virtual size, RSS, share of a CPU and number of
 * mappings, the system's used memory and its huge pages, and the kdamond's share of a CPU,
 * as percentiles over the record or one line per sample, as libdamonctl's
 * damonctl_footprints_new(3) gathers them; --series --json streams its samples (struct
 * json_stream): memory does not grow with the record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_parts.h"

#define MAX_PCTS 101	/* damo's -r 0 101 1 */

struct footprints_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	double pcts[MAX_PCTS];
	unsigned int nr_pcts;
	bool series;
};

enum { O_PCTS = 300, O_SERIES };

static const struct opt footprints_opts[] = {
	RIN_OPTS,
	{ "percentiles", O_PCTS, OV_STRING, "LIST", "which percentiles (default "
	  "0,25,50,75,90,99,100)" },
	{ "series", O_SERIES, OV_NONE, NULL, "every sample, in time order",
	  OPT_TO(OD_FLAG, struct footprints_opts, series) },
	{ 0 },
};

static int footprints_parse(struct cli *cli, int key, const char *arg)
{
	struct footprints_opts *fo = cli->opts;
	int r = rin_parse(cli, key, arg), n;

	if (r >= 0)
		return r;
	switch (key) {
	case O_PCTS:
		n = qhist_parse_list(arg, fo->pcts, MAX_PCTS);
		if (n < 0)
			return usage_error(cli, "--percentiles '%s': expected up to %d numbers "
					   "from 0 to 100, comma-separated", arg, MAX_PCTS);
		fo->nr_pcts = (unsigned int)n;
		return 0;
	}
	return EXIT_USAGE;
}

/* --series --json: the samples stream under "footprints_series" as they are read; the head
 * (format_version) is printed with the first, so that an input that fails before any
 * prints nothing, and the summaries follow them. */
struct rows {
	bool stream, begun;
	struct json_stream js;
	bool header;
};

static int rows_begin(struct rows *w)
{
	w->begun = true;
	return json_stream_begin(&w->js, json_doc_new(), "footprints_series");
}

static json_object *target_json(const struct damonctl_footprint_target *t)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "target", json_object_new_int(t->target));
	json_object_object_add(o, "pid", json_object_new_int(t->pid));
	json_object_object_add(o, "vsz", json_object_new_uint64(t->vsz));
	json_object_object_add(o, "rss", json_object_new_uint64(t->rss));
	json_object_object_add(o, "cpu_bp", t->cpu_bp >= 0 ? json_object_new_int64(t->cpu_bp) :
			       NULL);
	json_object_object_add(o, "vmas", t->vmas >= 0 ? json_object_new_int64(t->vmas) : NULL);
	return o;
}

/* The last sample as a --series JSON row, into the stream (begun before the first); 0, or
 * -EIO when the row could not be written. */
static int row_json(struct rows *w, const struct rin *in, const struct damonctl_footprints *f)
{
	struct damonctl_footprint_sample s = { .sz = sizeof(s) };
	struct damonctl_footprint_target t = { .sz = sizeof(t) };
	json_object *row = json_object_new_object(), *rt = json_object_new_array();
	unsigned int i;

	damonctl_footprints_sample(f, &s);
	json_object_object_add(row, "time_us", json_object_new_uint64(
		s.time_ns > rin_base_ns(in) ? (s.time_ns - rin_base_ns(in)) / 1000 : 0));
	json_object_object_add(row, "used", s.has_system ? json_object_new_uint64(s.used) : NULL);
	json_object_object_add(row, "huge", s.has_system && s.has_huge ?
			       json_object_new_uint64(s.huge) : NULL);
	json_object_object_add(row, "kdamond_cpu_bp", s.kdamond_cpu_bp >= 0 ?
			       json_object_new_int64(s.kdamond_cpu_bp) : NULL);
	for (i = 0; !damonctl_footprints_sample_target(f, i, &t); i++)
		json_object_array_add(rt, target_json(&t));
	json_object_object_add(row, "targets", rt);
	if (!w->begun && rows_begin(w))
		return json_object_put(row), -EIO;
	return json_stream_add(&w->js, row) ? -EIO : 0;
}

/* The last sample as a --series text line (the header before the first). */
static void row_text(struct rows *w, const struct rin *in, const struct damonctl_footprints *f)
{
	struct damonctl_footprint_sample s = { .sz = sizeof(s) };
	struct damonctl_footprint_target t = { .sz = sizeof(t) };
	char a[32], b[32];
	unsigned int i;

	damonctl_footprints_sample(f, &s);
	if (!w->header)
		printf("%11s %*s %*s  %s\n", "time", SIZE_COL, "used", SIZE_COL, "huge",
		       "targets (rss/vsz)");
	w->header = true;
	printf("%9.3f s %*s %*s ", rin_rel_s(in, s.time_ns),
	       SIZE_COL, s.has_system ? fmt_size_col(s.used, a, sizeof(a)) : "-",
	       SIZE_COL, s.has_system && s.has_huge ? fmt_size_col(s.huge, b, sizeof(b)) : "-");
	for (i = 0; !damonctl_footprints_sample_target(f, i, &t); i++)
		printf(" %d: %s/%s", t.target, fmt_size(t.rss, a, sizeof(a)),
		       fmt_size(t.vsz, b, sizeof(b)));
	putchar('\n');
}

static const char *value_text(const struct damonctl_footprint_metric *m, uint64_t v,
			      char *buf, size_t size)
{
	if (m->unit == DAMONCTL_FOOTPRINT_BP)	/* CPU and ratios in percent, as status says */
		return fmt_bp(v, buf, size);
	if (m->unit == DAMONCTL_FOOTPRINT_COUNT) {
		snprintf(buf, size, "%" PRIu64, v);
		return buf;
	}
	return fmt_size_col(v, buf, size);
}

static const char *metric_label(const struct damonctl_footprint_metric *m, char *buf,
				size_t size)
{
	static const struct { const char *name, *label; } sys[] = {
		{ "used", "system used" }, { "huge", "system huge pages" },
		{ "huge_bp", "system huge/used" },
	};
	unsigned int i;

	if (m->target >= 0) {
		const char *what = !strcmp(m->name, "cpu_bp") ? "CPU" :
				   !strcmp(m->name, "vmas") ? "mappings" : m->name;

		snprintf(buf, size, "target %d (pid %d) %s", m->target, m->pid, what);
		return buf;
	}
	if (!strcmp(m->name, "kdamond_cpu_bp")) {
		snprintf(buf, size, "kdamond (pid %d) CPU", m->pid);
		return buf;
	}
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (!strcmp(m->name, sys[i].name))
			return sys[i].label;
	return m->name;
}

static void print_text(const struct damonctl_footprints *f, const struct rin *in,
		       const struct footprints_opts *fo)
{
	struct damonctl_footprint_metric m = { .sz = sizeof(m) };
	uint64_t first, last, n = damonctl_footprints_samples(f, &first, &last);
	char label[64], v[32], p[16];
	unsigned int i, j;

	printf("footprints: %" PRIu64 " sample%s, %.3f s to %.3f s\n", n, n == 1 ? "" : "s",
	       rin_rel_s(in, first), rin_rel_s(in, last));
	printf("%-32s", "what");
	for (j = 0; j < fo->nr_pcts; j++) {
		snprintf(p, sizeof(p), "p%g", fo->pcts[j]);
		printf(" %*s", SIZE_COL, p);
	}
	putchar('\n');
	for (i = 0; !damonctl_footprints_metric(f, i, &m); i++) {
		printf("%-32s", metric_label(&m, label, sizeof(label)));
		for (j = 0; j < fo->nr_pcts; j++)
			printf(" %*s", SIZE_COL, value_text(&m, damonctl_qhist_value_at(m.values,
										 fo->pcts[j]),
						   v, sizeof(v)));
		putchar('\n');
	}
}

static json_object *metric_json(const struct damonctl_footprint_metric *m, const double *pcts,
				unsigned int nr)
{
	static const char *const units[] = { "bytes", "bp", "count" };
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	const struct damonctl_qhist *h = m->values;
	unsigned int i;

	json_object_object_add(o, "metric", json_object_new_string(m->name));
	json_object_object_add(o, "unit", json_object_new_string(units[m->unit]));
	json_object_object_add(o, "target", m->target >= 0 ? json_object_new_int(m->target) : NULL);
	json_object_object_add(o, "pid", m->target >= 0 || m->pid ? json_object_new_int(m->pid) :
				       NULL);
	json_object_object_add(o, "samples", json_object_new_uint64(damonctl_qhist_count(h)));
	json_object_object_add(o, "min", json_object_new_uint64(damonctl_qhist_min(h)));
	json_object_object_add(o, "max", json_object_new_uint64(damonctl_qhist_max(h)));
	json_object_object_add(o, "mean", json_object_new_double(damonctl_qhist_mean(h)));
	for (i = 0; i < nr; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "percentile", json_object_new_double(pcts[i]));
		json_object_object_add(p, "value", json_object_new_uint64(
			damonctl_qhist_value_at(h, pcts[i])));
		json_object_array_add(arr, p);
	}
	json_object_object_add(o, "percentiles", arr);
	return o;
}

void fp_fill_json(const struct damonctl_footprints *f, const struct rin *in,
		  const double *pcts, unsigned int nr, json_object *doc)
{
	struct damonctl_footprint_metric m = { .sz = sizeof(m) };
	uint64_t first, last, n = damonctl_footprints_samples(f, &first, &last);
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; !damonctl_footprints_metric(f, i, &m); i++)
		json_object_array_add(arr, metric_json(&m, pcts, nr));
	json_object_object_add(doc, "samples", json_object_new_uint64(n));
	json_object_object_add(doc, "first_us", n ? json_object_new_uint64(
		(first - rin_base_ns(in)) / 1000) : NULL);
	json_object_object_add(doc, "last_us", n ? json_object_new_uint64(
		(last - rin_base_ns(in)) / 1000) : NULL);
	json_object_object_add(doc, "metrics", arr);
}

const char *fp_label(const struct damonctl_footprint_metric *m, char *buf, size_t size)
{
	return metric_label(m, buf, size);
}

/* The footprints and, with --series, each sample's row; an exit code. */
static int read_footprints(struct cli *cli, struct rin *in, struct damonctl_footprints *f,
			   struct rows *w)
{
	const struct footprints_opts *fo = cli->opts;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int r;

	while ((r = rin_next(in, &it)) == 1) {
		r = damonctl_footprints_feed(f, &it);
		if (r == 1 && w->stream)
			r = row_json(w, in, f);
		else if (r == 1 && fo->series)
			row_text(w, in, f);
		/* main says why the output failed */
		if (r == -EIO)
			return EXIT_FAIL;
		if (r < 0)
			return oom_error(cli);
	}
	return r < 0 ? -r : 0;
}

static int footprints_run(struct cli *cli, int argc, char **argv)
{
	struct footprints_opts *fo = cli->opts;
	struct damonctl_footprints *f;
	struct rows w = { 0 };
	struct rin *in = NULL;
	int r, e;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (!fo->nr_pcts)
		fo->nr_pcts = qhist_default_list(fo->pcts);
	e = rin_open(cli, false, 0, &in);
	if (e)
		return e;
	rin_all_series(in);
	f = damonctl_footprints_new(fo->rin.target);
	w.stream = cli->json && fo->series;
	e = f ? read_footprints(cli, in, f, &w) : oom_error(cli);
	if (e)
		goto out;
	if (cli->json) {
		json_object *doc = w.stream ? json_object_new_object() : json_doc_new();

		fp_fill_json(f, in, fo->pcts, fo->nr_pcts, doc);
		/* after the samples: input says whether the record was read whole */
		json_object_object_add(doc, "input", rin_input_json(in));
		if (!w.stream)
			e = json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
		else if (!w.begun && rows_begin(&w))
			e = (json_object_put(doc), EXIT_FAIL);
		else
			e = json_stream_end(&w.js, doc) ? EXIT_FAIL : EXIT_OK;
		goto out;
	}
	if (!damonctl_footprints_samples(f, NULL, NULL)) {
		e = (usage_error(cli, "no footprint in %s%s (recorded with --no-footprints, by "
				 "damo, or before damonc 0.2?)", rin_input_name(in),
				 fo->rin.have_time ? " in the time range" : ""), EXIT_FAIL);
		goto out;
	}
	if (!fo->series)
		print_text(f, in, fo);
out:
	damonctl_footprints_free(f);
	r = rin_close(in);
	return e ? e : r;
}

const struct cmd cmd_report_footprints = {
	.name = "footprints",
	.summary = "memory footprints over a record: targets' sizes and CPU, the system's "
		   "memory",
	.usage = "[-i FILE|-] [--percentiles LIST] [--series] [--target N]\n"
		 "       [--time-range START,END] [--json]",
	.opts = footprints_opts,
	.opts_size = sizeof(struct footprints_opts),
	.opts_init = &(const struct footprints_opts){ .rin = RIN_OPTS_INIT },
	.parse = footprints_parse,
	.run = footprints_run,
};
