// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report hugepage -i FILE: huge pages as a record shows them, streamed through the
 * library's damonctl_hugepage_rec (the accessed memory whole 2 MiB pages could hold, per
 * snapshot; the collapse and hugepage schemes' recorded stats), with its median here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_out.h"
#include "hugepage_record.h"
#include "record_io.h"

/* The chart's samples: one a snapshot of the series, the system's huge pages from the
 * footprint that follows it (NaN where none did). */
struct hp_points {
	size_t n, cap;
	double *x, *accessed, *system;	/* seconds since the first; bytes */
	uint64_t first_ns;
};

struct hp_view {
	struct damonctl_qhist *h;	/* the series' bytes, for the median */
	struct damonctl_hugepage_rec_series s;
	const struct damonctl_hugepage_rec *rec;
	struct hp_points pts;
	struct damonctl_footprints *fp;	/* with a chart */
};

static int points_add(struct hp_points *p, uint64_t end_ns, uint64_t bytes)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		double *x = realloc(p->x, cap * sizeof(*x)), *a, *s;

		if (x)
			p->x = x;
		a = x ? realloc(p->accessed, cap * sizeof(*a)) : NULL;
		if (a)
			p->accessed = a;
		s = a ? realloc(p->system, cap * sizeof(*s)) : NULL;
		if (!s)
			return -ENOMEM;
		p->system = s;
		p->cap = cap;
	}
	if (!p->n)
		p->first_ns = end_ns;
	p->x[p->n] = end_ns >= p->first_ns ? (double)(end_ns - p->first_ns) / 1e9 : 0;
	p->accessed[p->n] = (double)bytes;
	p->system[p->n++] = NAN;
	return 0;
}

/* A footprint after a snapshot: the system's huge pages then. */
static int points_footprint(struct hp_view *v, const struct damonctl_rec_item *it)
{
	struct damonctl_footprint_sample fs = { .sz = sizeof(fs) };
	int r = damonctl_footprints_feed(v->fp, it);

	if (r == 1 && v->pts.n && !damonctl_footprints_sample(v->fp, &fs) && fs.has_system &&
	    fs.has_huge)
		v->pts.system[v->pts.n - 1] = (double)fs.huge;
	return r < 0 ? r : 0;
}

static int draw(struct cli *cli, const struct record_in *in, const struct hp_view *v, int fmt,
		const char *output)
{
	struct chart_series series[2] = {
		{ .name = "accessed memory whole 2 MiB pages could hold", .y = v->pts.accessed },
		{ .name = "the system's huge pages", .y = v->pts.system },
	};
	char title[160], subtitle[200];
	struct chart_ts ts = {
		.title = title, .subtitle = subtitle, .y_label = "bytes", .y_unit = CHART_Y_BYTES,
		.x = v->pts.x, .n = v->pts.n, .series = series,
		.nr_series = damonctl_footprints_samples(v->fp, NULL, NULL) ? 2 : 1,
	};
	FILE *f;

	snprintf(title, sizeof(title), "Huge pages over a record: kdamond %u", v->s.kdamond);
	snprintf(subtitle, sizeof(subtitle), "%s: %" PRIu64 " snapshots over %.1f s%s", in->name,
		 v->s.snapshots, (double)(v->s.last_ns - v->s.first_ns) / 1e9,
		 ts.nr_series == 2 ? "" : " (no footprints: the system's huge pages unknown)");
	f = chart_open(cli, output);
	if (!f)
		return EXIT_USAGE;
	return chart_close(cli, f, output, chart_time_series(f, (enum chart_format)fmt, &ts),
			   "the chart");
}

static void scheme_of(const struct hp_view *v, size_t i, struct damonctl_hugepage_rec_scheme *s)
{
	*s = (struct damonctl_hugepage_rec_scheme){ .sz = sizeof(*s) };
	damonctl_hugepage_rec_get_scheme(v->rec, i, s);
}

static int print_json(struct record_in *in, const struct hp_view *v)
{
	json_object *doc = json_doc_new(), *hot = json_object_new_object();
	json_object *arr = json_object_new_array();
	size_t i;

	json_object_object_add(doc, "input", record_in_status_json(in));
	json_object_object_add(hot, "snapshots", json_object_new_uint64(v->s.snapshots));
	json_object_object_add(hot, "first", json_object_new_uint64(v->s.first));
	json_object_object_add(hot, "median", json_object_new_uint64(damonctl_qhist_value_at(v->h, 50)));
	json_object_object_add(hot, "last", json_object_new_uint64(v->s.last));
	json_object_object_add(hot, "max", json_object_new_uint64(v->s.max));
	json_object_object_add(doc, "accessed_in_huge_pages", hot);
	for (i = 0; i < damonctl_hugepage_rec_nr_schemes(v->rec); i++) {
		json_object *o = json_object_new_object();
		struct damonctl_hugepage_rec_scheme s;

		scheme_of(v, i, &s);
		json_object_object_add(o, "kdamond", json_object_new_int((int)s.kdamond));
		json_object_object_add(o, "scheme", json_object_new_int((int)s.scheme));
		json_object_object_add(o, "action", json_object_new_string(s.action));
		json_object_object_add(o, "nr_applied", json_object_new_uint64(s.nr_applied));
		json_object_object_add(o, "sz_applied", json_object_new_uint64(s.sz_applied));
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "schemes", arr);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

static void print_text(const struct record_in *in, const struct hp_view *v)
{
	size_t i, nr = damonctl_hugepage_rec_nr_schemes(v->rec);
	char a[32], b[32], c[32], d[32];

	printf("Record %s: kdamond %u, %" PRIu64 " snapshots over %.1f s\n", in->name,
	       v->s.kdamond, v->s.snapshots, (double)(v->s.last_ns - v->s.first_ns) / 1e9);
	printf("  accessed memory in whole 2 MiB pages: first %s, median %s, last %s, max %s\n",
	       fmt_size(v->s.first, a, sizeof(a)),
	       fmt_size(damonctl_qhist_value_at(v->h, 50), b, sizeof(b)),
	       fmt_size(v->s.last, c, sizeof(c)), fmt_size(v->s.max, d, sizeof(d)));
	for (i = 0; i < nr; i++) {
		struct damonctl_hugepage_rec_scheme s;

		scheme_of(v, i, &s);
		printf("  kdamond %u scheme %u (%s): applied to %" PRIu64 " regions, %s, during the "
		       "record\n", s.kdamond, s.scheme, s.action, s.nr_applied,
		       fmt_size(s.sz_applied, a, sizeof(a)));
	}
	if (!nr)
		printf("  no collapse or hugepage scheme stats in the record\n");
}

int hugepage_record_report(struct cli *cli, const char *path, int fmt, const char *output)
{
	struct hp_view *v = calloc(1, sizeof(*v));
	struct damonctl_hugepage_rec *rec = NULL;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct record_in in;
	uint64_t bytes;
	int r, e;

	if (!v || !(v->h = damonctl_qhist_new()) || damonctl_hugepage_rec_new(&rec) ||
	    (fmt >= 0 && !(v->fp = damonctl_footprints_new(-1)))) {
		if (v)
			damonctl_qhist_free(v->h);
		damonctl_hugepage_rec_free(rec);
		free(v);
		return oom_error(cli);
	}
	v->rec = rec;
	v->s.sz = sizeof(v->s);
	e = record_in_open(cli, path, false, &in);
	if (e)
		goto out;
	while ((r = damonctl_rec_next(in.r, &it)) == 1) {
		if (damonctl_hugepage_rec_add(rec, &it, &bytes) == 1) {
			damonctl_qhist_add(v->h, bytes);
			if (fmt >= 0 && points_add(&v->pts, it.snapshot->end_ns, bytes))
				r = -ENOMEM;
		} else if (fmt >= 0 && it.type == DAMONCTL_REC_FOOTPRINT) {
			r = points_footprint(v, &it);
		}
		if (r < 0)
			break;
	}
	damonctl_hugepage_rec_get_series(rec, &v->s);
	if (r < 0)
		e = (usage_error(cli, "reading %s: %s", in.name, strerror(-r)), EXIT_FAIL);
	else if (cli->json)
		e = print_json(&in, v);
	else if (!v->s.snapshots)
		e = (usage_error(cli, "no snapshot in %s", in.name), EXIT_FAIL);
	else if (fmt >= 0)
		e = draw(cli, &in, v, fmt, output);
	else
		print_text(&in, v);
	record_in_report_loss(cli, &in);
	record_in_close(&in);
out:
	damonctl_hugepage_rec_free(rec);
	damonctl_qhist_free(v->h);
	damonctl_footprints_free(v->fp);
	free(v->pts.x);
	free(v->pts.accessed);
	free(v->pts.system);
	free(v);
	return e;
}
