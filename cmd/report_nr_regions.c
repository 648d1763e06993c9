// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report nr-regions: how many regions DAMON kept per snapshot over time, per series
 * (damo's nr_regions): percentiles over the record, or one line per snapshot. Percentiles
 * come from a fixed-size histogram per series (damonctl_qhist), and --series --json streams its
 * rows (struct json_stream): memory does not grow with the record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "quantile.h"
#include "report_input.h"

#define MAX_PCTS 101	/* damo's -r 0 101 1 */

struct nr_regions_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	double pcts[MAX_PCTS];
	unsigned int nr_pcts;
	bool series;
	uint64_t exclude;	/* --exclude-snapshots */
};

enum { O_PCTS = 300, O_SERIES, O_EXCLUDE };

static const struct opt nr_regions_opts[] = {
	RIN_OPTS,
	{ "percentiles", O_PCTS, OV_STRING, "LIST", "which percentiles (default "
	  "0,25,50,75,90,99,100)" },
	{ "series", O_SERIES, OV_NONE, NULL, "every snapshot's number of regions, in time order",
	  OPT_TO(OD_FLAG, struct nr_regions_opts, series) },
	{ "exclude-snapshots", O_EXCLUDE, OV_INT, "N", "leave out each series' first N "
	  "snapshots (damo's report nr_regions leaves out 20: taken before DAMON adapted its "
	  "regions)", OPT_TO(OD_U64, struct nr_regions_opts, exclude) },
	{ 0 },
};

static int nr_regions_parse(struct cli *cli, int key, const char *arg)
{
	struct nr_regions_opts *no = cli->opts;
	int r = rin_parse(cli, key, arg), n;

	if (r >= 0)
		return r;
	if (key == O_PCTS) {
		n = qhist_parse_list(arg, no->pcts, MAX_PCTS);
		if (n < 0)
			return usage_error(cli, "--percentiles '%s': expected up to %d numbers "
					   "from 0 to 100, comma-separated", arg, MAX_PCTS);
		no->nr_pcts = (unsigned int)n;
		return 0;
	}
	return EXIT_USAGE;
}

struct nr_series {
	struct rin_key key;		/* first: see rin_slot() */
	uint64_t seen;			/* snapshots, those left out included */
	uint64_t first_ns, last_ns;
	struct damonctl_qhist *h;
};

static json_object *series_json(const struct nr_regions_opts *no, const struct rin *in,
				const struct nr_series *s)
{
	const struct damonctl_qhist *h = s->h;
	uint64_t n = damonctl_qhist_count(h);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	unsigned int i;

	json_object_object_add(o, "series", rin_key_json(&s->key));
	json_object_object_add(o, "snapshots", json_object_new_uint64(n));
	json_object_object_add(o, "first_us", json_object_new_uint64(
		(s->first_ns - rin_base_ns(in)) / 1000));
	json_object_object_add(o, "last_us", json_object_new_uint64(
		(s->last_ns - rin_base_ns(in)) / 1000));
	json_object_object_add(o, "min", json_object_new_uint64(damonctl_qhist_min(h)));
	json_object_object_add(o, "max", json_object_new_uint64(damonctl_qhist_max(h)));
	json_object_object_add(o, "mean", json_object_new_double(damonctl_qhist_mean(h)));
	for (i = 0; i < no->nr_pcts; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "percentile", json_object_new_double(no->pcts[i]));
		json_object_object_add(p, "nr_regions", json_object_new_uint64(
			damonctl_qhist_value_at(h, no->pcts[i])));
		json_object_array_add(arr, p);
	}
	json_object_object_add(o, "percentiles", arr);
	return o;
}

static void series_text(const struct nr_regions_opts *no, const struct rin *in,
			const struct nr_series *s)
{
	const struct damonctl_qhist *h = s->h;
	uint64_t n = damonctl_qhist_count(h);
	char name[64];
	unsigned int i;

	printf("%s: regions per snapshot over %" PRIu64 " snapshot%s, %.3f s to %.3f s\n",
	       rin_key_name(&s->key, name, sizeof(name)), n, n == 1 ? "" : "s",
	       rin_rel_s(in, s->first_ns), rin_rel_s(in, s->last_ns));
	for (i = 0; i < no->nr_pcts; i++)
		printf("  p%-6g %9" PRIu64 "\n", no->pcts[i],
		       damonctl_qhist_value_at(h, no->pcts[i]));
	printf("  mean    %11.1f\n", damonctl_qhist_mean(h));
}

static json_object *row_json(const struct rin *in, const struct damonctl_rec_snapshot *sn)
{
	json_object *o = json_object_new_object();
	struct rin_key k;

	rin_key_of(sn, &k);
	json_object_object_add(o, "time_us", json_object_new_uint64(
		(sn->end_ns - rin_base_ns(in)) / 1000));
	json_object_object_add(o, "series", rin_key_json(&k));
	json_object_object_add(o, "nr_regions", json_object_new_uint64(sn->nr_regions));
	return o;
}

static void row_text(const struct rin *in, const struct damonctl_rec_snapshot *sn,
		     bool *header)
{
	struct rin_key k;
	char name[64];

	if (!*header)
		printf("%11s %-28s %10s\n", "time", "series", "nr_regions");
	*header = true;
	rin_key_of(sn, &k);
	printf("%9.3f s %-28s %10" PRIu32 "\n", rin_rel_s(in, sn->end_ns),
	       rin_key_name(&k, name, sizeof(name)), sn->nr_regions);
}

/* --series --json: the rows stream as snapshots are read, under "nr_regions_series"; the
 * document's head (format_version) is printed with the first row, so that an input that
 * fails before any snapshot prints nothing, and the summaries follow the rows. */
struct rows {
	bool on, begun;
	struct json_stream js;
};

static int rows_begin(struct rows *w)
{
	w->begun = true;
	return json_stream_begin(&w->js, json_doc_new(), "nr_regions_series");
}

static int rows_add(struct rows *w, const struct rin *in, const struct damonctl_rec_snapshot *sn)
{
	if (!w->begun && rows_begin(w))
		return -EIO;
	return json_stream_add(&w->js, row_json(in, sn));
}

static int nr_regions_run(struct cli *cli, int argc, char **argv)
{
	struct nr_regions_opts *no = cli->opts;
	struct rin_table t = { .size = sizeof(struct nr_series) };
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct rows rows = { 0 };
	struct rin *in = NULL;
	bool header = false;
	size_t i;
	int r, e;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (!no->nr_pcts)
		no->nr_pcts = qhist_default_list(no->pcts);
	e = rin_open(cli, false, 0, &in);
	if (e)
		return e;
	rin_all_series(in);
	rows.on = cli->json && no->series;
	while ((r = rin_next(in, &it)) == 1) {
		struct nr_series *s;

		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		s = rin_slot(&t, it.snapshot);
		if (s && !s->h)
			s->h = damonctl_qhist_new();
		if (!s || !s->h) {
			e = oom_error(cli);
			goto out;
		}
		if (s->seen++ < no->exclude)
			continue;	/* --exclude-snapshots */
		if (!damonctl_qhist_count(s->h))
			s->first_ns = it.snapshot->end_ns;
		s->last_ns = it.snapshot->end_ns;
		damonctl_qhist_add(s->h, it.snapshot->nr_regions);
		if (rows.on) {
			if (rows_add(&rows, in, it.snapshot)) {
				e = EXIT_FAIL;	/* main says why the output failed */
				goto out;
			}
		} else if (no->series) {
			row_text(in, it.snapshot, &header);
		}
	}
	if (r < 0) {
		e = -r;
		goto out;
	}
	if (cli->json) {
		json_object *doc = rows.on ? json_object_new_object() : json_doc_new();
		json_object *arr = json_object_new_array();

		for (i = 0; i < t.nr; i++)
			json_object_array_add(arr, series_json(no, in, rin_table_at(&t, i)));
		json_object_object_add(doc, "input", rin_input_json(in));
		json_object_object_add(doc, "series", arr);
		if (!rows.on)
			e = json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
		else if (!rows.begun && rows_begin(&rows))
			e = (json_object_put(doc), EXIT_FAIL);
		else	/* after the rows: input says whether the record was read whole */
			e = json_stream_end(&rows.js, doc) ? EXIT_FAIL : EXIT_OK;
		goto out;
	}
	if (!t.nr) {
		e = (usage_error(cli, "no snapshot in %s matches the selection",
				 rin_input_name(in)), EXIT_FAIL);
		goto out;
	}
	if (!no->series)
		for (i = 0; i < t.nr; i++)
			series_text(no, in, rin_table_at(&t, i));
out:
	for (i = 0; i < t.nr; i++)
		damonctl_qhist_free(((struct nr_series *)rin_table_at(&t, i))->h);
	free(t.slots);
	r = rin_close(in);
	return e ? e : r;
}

const struct cmd cmd_report_nr_regions = {
	.name = "nr-regions",
	.summary = "regions per snapshot over time, per series: percentiles or every snapshot",
	.usage = "[-i FILE|-] [--percentiles LIST] [--series] [--target N]\n"
		 "       [--time-range START,END] [--json]",
	.opts = nr_regions_opts,
	.parse = nr_regions_parse,
	.run = nr_regions_run,
	.opts_size = sizeof(struct nr_regions_opts),
	.opts_init = &(const struct nr_regions_opts){ .rin = RIN_OPTS_INIT },
};
