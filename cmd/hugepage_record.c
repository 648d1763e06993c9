// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report hugepage -i FILE: huge pages as a record shows them, streamed.
 *
 * - per snapshot, the accessed memory that whole 2 MiB-aligned huge pages could hold (the
 *   hot part of each accessed region, rounded inward to 2 MiB boundaries): what a collapse
 *   scheme could act on, over time (first, median, last, largest);
 * - the collapse and hugepage schemes' recorded stats: what they tried and applied.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hugepage_record.h"
#include "quantile.h"
#include "record_io.h"

#define HUGE_SZ (2ull << 20)
#define MAX_SCHEMES 32

struct hp_scheme {
	uint32_t kdamond, scheme;
	char action[24];
	bool seen;
	uint64_t first[4], last[4];	/* nr_tried, sz_tried, nr_applied, sz_applied */
};

static uint64_t aligned(uint64_t start, uint64_t end)
{
	uint64_t lo = (start + HUGE_SZ - 1) / HUGE_SZ * HUGE_SZ, hi = end / HUGE_SZ * HUGE_SZ;

	return hi > lo ? hi - lo : 0;
}

/* Adjacent accessed regions make one span: a huge page may straddle two regions. */
static uint64_t huge_bytes(const struct damonctl_rec_snapshot *s)
{
	uint64_t sum = 0, a = 0, b = 0;
	bool open = false;
	uint32_t i;

	for (i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *r = &s->regions[i];

		if (!r->nr_accesses)
			continue;
		if (open && r->start == b) {
			b = r->end;
			continue;
		}
		if (open)
			sum += aligned(a, b);
		a = r->start;
		b = r->end;
		open = true;
	}
	return open ? sum + aligned(a, b) : sum;
}

/* What the report gathers: the record's first series' huge-page bytes per snapshot, and
 * the collapse and hugepage schemes' stats. */
struct hp_rec {
	struct qhist h;
	struct hp_scheme sch[MAX_SCHEMES];
	unsigned int nr_sch;
	uint64_t first, last, t0, t1;
	bool have_series;
	uint32_t kd;
	int32_t tg, sc;
};

static void take_snapshot(struct hp_rec *hr, const struct damonctl_rec_snapshot *s)
{
	uint64_t v;

	if (!hr->have_series) {	/* the record's first series, as the other reports */
		hr->have_series = true;
		hr->kd = s->kdamond;
		hr->tg = s->target;
		hr->sc = s->scheme;
		hr->t0 = s->end_ns;
	}
	if (s->kdamond != hr->kd || s->target != hr->tg || s->scheme != hr->sc)
		return;
	v = huge_bytes(s);
	if (!hr->h.n)
		hr->first = v;
	hr->last = v;
	hr->t1 = s->end_ns;
	qhist_add(&hr->h, v);
}

/* A collapse or hugepage scheme's stats: its first and last counters. */
static void take_stats(struct hp_rec *hr, const struct damonctl_rec_stats *st)
{
	struct hp_scheme *p = NULL;
	unsigned int i;

	if (strcmp(st->action, "collapse") && strcmp(st->action, "hugepage"))
		return;
	for (i = 0; i < hr->nr_sch; i++)
		if (hr->sch[i].kdamond == st->kdamond && hr->sch[i].scheme == st->scheme)
			p = &hr->sch[i];
	if (!p && hr->nr_sch < MAX_SCHEMES) {
		p = &hr->sch[hr->nr_sch++];
		memset(p, 0, sizeof(*p));
		p->kdamond = st->kdamond;
		p->scheme = st->scheme;
		memcpy(p->action, st->action, sizeof(p->action));
	}
	if (!p)
		return;
	for (i = 0; i < 4; i++) {
		if (!p->seen)
			p->first[i] = st->v[i];
		p->last[i] = st->v[i];
	}
	p->seen = true;
}

static int print_json(struct record_in *in, struct hp_rec *hr)
{
	json_object *doc = json_doc_new(), *hot = json_object_new_object();
	json_object *arr = json_object_new_array();
	const struct hp_scheme *sch = hr->sch;
	unsigned int i;

	json_object_object_add(doc, "input", record_in_status_json(in));
	json_object_object_add(hot, "snapshots", json_object_new_uint64(hr->h.n));
	json_object_object_add(hot, "first", json_object_new_uint64(hr->first));
	json_object_object_add(hot, "median", json_object_new_uint64(qhist_percentile(&hr->h, 50)));
	json_object_object_add(hot, "last", json_object_new_uint64(hr->last));
	json_object_object_add(hot, "max", json_object_new_uint64(hr->h.max));
	json_object_object_add(doc, "accessed_in_huge_pages", hot);
	for (i = 0; i < hr->nr_sch; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kdamond", json_object_new_int((int)sch[i].kdamond));
		json_object_object_add(o, "scheme", json_object_new_int((int)sch[i].scheme));
		json_object_object_add(o, "action", json_object_new_string(sch[i].action));
		json_object_object_add(o, "nr_applied", json_object_new_uint64(
			sch[i].last[2] - sch[i].first[2]));
		json_object_object_add(o, "sz_applied", json_object_new_uint64(
			sch[i].last[3] - sch[i].first[3]));
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "schemes", arr);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

static void print_text(const struct record_in *in, struct hp_rec *hr)
{
	const struct hp_scheme *sch = hr->sch;
	char a[32], b[32], c[32], d[32];
	unsigned int i;

	printf("Record %s: kdamond %u, %" PRIu64 " snapshots over %.1f s\n", in->name, hr->kd,
	       hr->h.n, (double)(hr->t1 - hr->t0) / 1e9);
	printf("  accessed memory in whole 2 MiB pages: first %s, median %s, last %s, max %s\n",
	       fmt_size(hr->first, a, sizeof(a)),
	       fmt_size(qhist_percentile(&hr->h, 50), b, sizeof(b)),
	       fmt_size(hr->last, c, sizeof(c)), fmt_size(hr->h.max, d, sizeof(d)));
	for (i = 0; i < hr->nr_sch; i++)
		printf("  kdamond %u scheme %u (%s): applied to %" PRIu64 " regions, %s, during the "
		       "record\n", sch[i].kdamond, sch[i].scheme, sch[i].action,
		       sch[i].last[2] - sch[i].first[2],
		       fmt_size(sch[i].last[3] - sch[i].first[3], a, sizeof(a)));
	if (!hr->nr_sch)
		printf("  no collapse or hugepage scheme stats in the record\n");
}

int hugepage_record_report(struct cli *cli, const char *path)
{
	struct hp_rec *hr = calloc(1, sizeof(*hr));
	struct damonctl_rec_item it;
	struct record_in in;
	int r, e;

	if (!hr)
		return usage_error(cli, "out of memory"), EXIT_FAIL;
	qhist_reset(&hr->h);
	e = record_in_open(cli, path, false, &in);
	if (e) {
		free(hr);
		return e;
	}
	while ((r = damonctl_rec_next(in.r, &it)) == 1) {
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			take_snapshot(hr, &it.snapshot);
		else if (it.type == DAMONCTL_REC_STATS)
			take_stats(hr, &it.stats);
	}
	if (r < 0)
		e = (usage_error(cli, "reading %s: %s", in.name, strerror(-r)), EXIT_FAIL);
	else if (cli->json)
		e = print_json(&in, hr);
	else if (!hr->h.n)
		e = (usage_error(cli, "no snapshot in %s", in.name), EXIT_FAIL);
	else
		print_text(&in, hr);
	record_in_report_loss(cli, &in);
	record_in_close(&in);
	free(hr);
	return e;
}
