// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report times: when a record holds regions of an access pattern (damo's report
 * times). A snapshot matches when at least one of its regions in the address range has the
 * pattern (and, with --snapshot-size, those regions' bytes are in range); consecutive
 * matching snapshots of the series make one time range, from the first's start to the last's
 * end. Ranges are printed as they close: memory stays bounded by one snapshot.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "report_times.h"

static const struct opt times_opts[] = {
	TIMES_OPTS,
	{ 0 },
};

int times_sel_parse(struct cli *cli, struct times_sel *sel, int key, const char *arg)
{
	int r = rin_parse(cli, key, arg);

	if (r < 0)
		r = pattern_parse(cli, &sel->pat, key, arg);
	if (r >= 0)
		return r;
	if (key == 300)
		return parse_min_max(cli, "snapshot-size", arg, damonctl_parse_size,
				     &sel->bytes_min, &sel->bytes_max, "sizes such as 4K or 2MiB");
	return -1;
}

static int times_parse(struct cli *cli, int key, const char *arg)
{
	struct times_opts *to = cli->opts;
	int r = times_sel_parse(cli, &to->sel, key, arg);

	return r >= 0 ? r : EXIT_USAGE;
}

struct out {
	const struct rin *in;
	bool json, begun;
	struct json_stream js;
	uint64_t nr;
};

static uint64_t rel_us(const struct rin *in, uint64_t ns)
{
	return ns > rin_base_ns(in) ? (ns - rin_base_ns(in)) / 1000 : 0;
}

/* The document's members before the ranges: the series is known once a snapshot was read
 * (the input, whether it was read whole, only at the end). */
static int begin(struct out *o)
{
	json_object *head;

	o->begun = true;
	if (!o->json)
		return 0;
	head = json_doc_new();
	json_object_object_add(head, "series", rin_series_json(o->in));
	return json_stream_begin(&o->js, head, "ranges");
}

static int emit(struct out *o, const struct damonctl_access_span *sp)
{
	char a[32], b[32], c[32];
	json_object *e;
	int r = o->begun ? 0 : begin(o);

	o->nr++;
	if (r || !o->json) {
		if (!r)
			printf("%9.3f s to %9.3f s  %s  %" PRIu64 " snapshot%s, %s to %s\n",
			       rin_rel_s(o->in, sp->start_ns), rin_rel_s(o->in, sp->end_ns),
			       fmt_time((sp->end_ns - sp->start_ns) / 1000, a, sizeof(a)),
			       sp->snapshots, sp->snapshots == 1 ? "" : "s",
			       fmt_size(sp->bytes_min, b, sizeof(b)),
			       fmt_size(sp->bytes_max, c, sizeof(c)));
		return r;
	}
	e = json_object_new_object();
	json_object_object_add(e, "start_us", json_object_new_uint64(rel_us(o->in, sp->start_ns)));
	json_object_object_add(e, "end_us", json_object_new_uint64(rel_us(o->in, sp->end_ns)));
	json_object_object_add(e, "snapshots", json_object_new_uint64(sp->snapshots));
	json_object_object_add(e, "min_bytes", json_object_new_uint64(sp->bytes_min));
	json_object_object_add(e, "max_bytes", json_object_new_uint64(sp->bytes_max));
	return json_stream_add(&o->js, e);
}

int times_scan(struct rin *in, const struct times_sel *sel,
	       int (*emit)(void *arg, const struct damonctl_access_span *sp), void *arg,
	       uint64_t *seen)
{
	struct damonctl_access_span sp = { .sz = sizeof(sp) };
	struct damonctl_access_times *t;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int r, e;

	*seen = 0;
	e = damonctl_access_times_new(&sel->pat.a, sel->bytes_min, sel->bytes_max, &t);
	if (e)
		return EXIT_FAIL;
	while (!e && (r = rin_next(in, &it)) == 1) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		(*seen)++;
		if (damonctl_access_times_feed(t, it.snapshot, &sp) == 1)
			e = emit(arg, &sp);
	}
	if (!e && r < 0)
		e = -r;
	if (!e && damonctl_access_times_end(t, &sp) == 1)
		e = emit(arg, &sp);
	damonctl_access_times_free(t);
	return e;
}

static int emit_cb(void *arg, const struct damonctl_access_span *sp)
{
	return emit(arg, sp) ? EXIT_FAIL : 0;
}

static int times_run(struct cli *cli, int argc, char **argv)
{
	const struct times_opts *to = cli->opts;
	struct out o = { .json = cli->json };
	uint64_t seen = 0;
	struct rin *in;
	int r, e = 0;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	e = rin_open(cli, false, 0, &in);
	if (e)
		return e;
	o.in = in;
	e = times_scan(in, &to->sel, emit_cb, &o, &seen);
	if (!e && !seen && !o.json)
		e = (usage_error(cli, "no snapshot in %s matches the selection",
				 rin_input_name(in)), EXIT_FAIL);
	else if (!e && !o.nr && !o.json)
		printf("no snapshot has regions of the pattern\n");
	if (!e && o.json) {
		json_object *tail = json_object_new_object();

		json_object_object_add(tail, "input", rin_input_json(in));
		if (!o.begun && begin(&o)) {
			json_object_put(tail);	/* json_stream_end frees it, not reached */
			e = EXIT_FAIL;
		} else if (json_stream_end(&o.js, tail)) {
			e = EXIT_FAIL;
		}
	}
	r = rin_close(in);
	return e ? e : r;
}

const struct cmd cmd_report_times = {
	.name = "times",
	.summary = "when a record holds regions of an access pattern: time ranges",
	.usage = "[-i FILE|-] [--size MIN,MAX] [--access-rate MIN,MAX] [--age MIN,MAX]\n"
		 "       [--address-range START-END] [--snapshot-size MIN,MAX] [--target N]\n"
		 "       [--time-range START,END] [--json]",
	.opts = times_opts,
	.parse = times_parse,
	.run = times_run,
	.opts_size = sizeof(struct times_opts),
	.opts_init = &(const struct times_opts)TIMES_OPTS_INIT,
};
