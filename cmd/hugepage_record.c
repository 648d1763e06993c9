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

int hugepage_record_report(struct cli *cli, const char *path)
{
	struct qhist *h = malloc(sizeof(*h));
	struct hp_scheme sch[MAX_SCHEMES];
	struct damonctl_rec_item it;
	struct record_in in;
	uint64_t first = 0, last = 0, t0 = 0, t1 = 0, base = 0;
	unsigned int nr_sch = 0, i;
	bool have_series = false;
	uint32_t kd = 0;
	int32_t tg = 0, sc = 0;
	char a[32], b[32], c[32], d[32];
	int r, e;

	if (!h)
		return usage_error(cli, "out of memory"), EXIT_FAIL;
	qhist_reset(h);
	e = record_in_open(cli, path, false, &in);
	if (e) {
		free(h);
		return e;
	}
	while ((r = damonctl_rec_next(in.r, &it)) == 1) {
		if (it.type == DAMONCTL_REC_SNAPSHOT) {
			const struct damonctl_rec_snapshot *s = &it.snapshot;
			uint64_t v;

			if (!have_series) {	/* the record's first series, as the other reports */
				have_series = true;
				kd = s->kdamond;
				tg = s->target;
				sc = s->scheme;
				base = s->start_ns;
				t0 = s->end_ns;
			}
			if (s->kdamond != kd || s->target != tg || s->scheme != sc)
				continue;
			v = huge_bytes(s);
			if (!h->n)
				first = v;
			last = v;
			t1 = s->end_ns;
			qhist_add(h, v);
		} else if (it.type == DAMONCTL_REC_STATS) {
			const struct damonctl_rec_stats *st = &it.stats;
			struct hp_scheme *p = NULL;

			if (strcmp(st->action, "collapse") && strcmp(st->action, "hugepage"))
				continue;
			for (i = 0; i < nr_sch; i++)
				if (sch[i].kdamond == st->kdamond && sch[i].scheme == st->scheme)
					p = &sch[i];
			if (!p && nr_sch < MAX_SCHEMES) {
				p = &sch[nr_sch++];
				memset(p, 0, sizeof(*p));
				p->kdamond = st->kdamond;
				p->scheme = st->scheme;
				memcpy(p->action, st->action, sizeof(p->action));
			}
			if (!p)
				continue;
			for (i = 0; i < 4; i++) {
				if (!p->seen)
					p->first[i] = st->v[i];
				p->last[i] = st->v[i];
			}
			p->seen = true;
		}
	}
	if (r < 0) {
		e = (usage_error(cli, "reading %s: %s", in.name, strerror(-r)), EXIT_FAIL);
		goto out;
	}
	if (cli->json) {
		json_object *doc = json_doc_new(), *hot = json_object_new_object();
		json_object *arr = json_object_new_array();

		json_object_object_add(doc, "input", record_in_status_json(&in));
		json_object_object_add(hot, "snapshots", json_object_new_uint64(h->n));
		json_object_object_add(hot, "first", json_object_new_uint64(first));
		json_object_object_add(hot, "median", json_object_new_uint64(qhist_percentile(h, 50)));
		json_object_object_add(hot, "last", json_object_new_uint64(last));
		json_object_object_add(hot, "max", json_object_new_uint64(h->max));
		json_object_object_add(doc, "accessed_in_huge_pages", hot);
		for (i = 0; i < nr_sch; i++) {
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
		e = json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
		goto out;
	}
	if (!h->n) {
		e = (usage_error(cli, "no snapshot in %s", in.name), EXIT_FAIL);
		goto out;
	}
	printf("Record %s: kdamond %u, %" PRIu64 " snapshots over %.1f s\n", in.name, kd, h->n,
	       (double)(t1 - t0) / 1e9);
	printf("  accessed memory in whole 2 MiB pages: first %s, median %s, last %s, max %s\n",
	       fmt_size(first, a, sizeof(a)), fmt_size(qhist_percentile(h, 50), b, sizeof(b)),
	       fmt_size(last, c, sizeof(c)), fmt_size(h->max, d, sizeof(d)));
	for (i = 0; i < nr_sch; i++)
		printf("  kdamond %u scheme %u (%s): applied to %" PRIu64 " regions, %s, during the "
		       "record\n", sch[i].kdamond, sch[i].scheme, sch[i].action,
		       sch[i].last[2] - sch[i].first[2],
		       fmt_size(sch[i].last[3] - sch[i].first[3], a, sizeof(a)));
	if (!nr_sch)
		printf("  no collapse or hugepage scheme stats in the record\n");
	(void)base;
out:
	record_in_report_loss(cli, &in);
	record_in_close(&in);
	free(h);
	return e;
}
