// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report info: what a record holds (damo's record_info and times): its format and
 * recorder, each series (kdamond, target, scheme; the target's pid and operations when the
 * record has the kdamond's configuration) with its time span, the intervals seen and
 * whether they changed, snapshots, regions per snapshot and monitored bytes, and the scheme
 * stats, as libdamonctl's damonctl_rec_info_new(3) gathers them in one pass.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_parts.h"

static const struct opt info_opts[] = {
	RIN_OPTS,
	{ 0 },
};

static int info_parse(struct cli *cli, int key, const char *arg)
{
	int r = rin_parse(cli, key, arg);

	return r >= 0 ? r : EXIT_USAGE;
}

/* A series' name for rin_key_name() and rin_key_json(). */
static struct rin_key key_of(const struct damonctl_rec_info_series *s)
{
	return (struct rin_key){ .kdamond = s->kdamond, .context = s->context,
				 .target = s->target, .scheme = s->scheme };
}

/* damonc's records name their recorder; damo's are told by their format. */
static const char *recorder_of(const struct damonctl_rec_info *n)
{
	const char *v = damonctl_rec_info_recording(n, "recorder");

	return v ? v : damonctl_rec_info_recording(n, "source");
}

/* How a file that `record -i` wrote came from its input: a subset of it (a part chosen),
 * aggregated from it (all of it, in longer windows), or converted. */
static const char *what_of(const struct damonctl_rec_info *n)
{
	static const char *const part[] = { "from_us", "to_us", "address_start", "address_end",
					    "kdamond", "target" };
	unsigned int i;

	if (!damonctl_rec_info_has_subset(n))
		return "converted from";
	for (i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		if (damonctl_rec_info_subset(n, part[i]) >= 0)
			return "a subset of";
	return "aggregated from";
}

static int64_t rel_us(const struct rin *in, uint64_t ns)
{
	uint64_t b = rin_base_ns(in);

	return ns >= b ? (int64_t)((ns - b) / 1000) : -(int64_t)((b - ns) / 1000);
}

static json_object *ival_json(const struct damonctl_rec_interval *v)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "first", json_object_new_uint64(v->first));
	json_object_object_add(o, "last", json_object_new_uint64(v->last));
	json_object_object_add(o, "min", json_object_new_uint64(v->min));
	json_object_object_add(o, "max", json_object_new_uint64(v->max));
	return o;
}

static json_object *series_json(const struct rin *in,
				const struct damonctl_rec_info_series *s)
{
	json_object *o = json_object_new_object(), *iv = json_object_new_object(),
		*rg = json_object_new_object(), *by = json_object_new_object();
	const char *ops = s->operations;
	int64_t pid = s->pid;
	struct rin_key k = key_of(s);

	json_object_object_add(o, "series", rin_key_json(&k));
	json_object_object_add(o, "pid", pid >= 0 ? json_object_new_int64(pid) : NULL);
	json_object_object_add(o, "operations", ops ? json_object_new_string(ops) : NULL);
	json_object_object_add(o, "snapshots", json_object_new_uint64(s->snapshots));
	json_object_object_add(o, "start_us", json_object_new_int64(rel_us(in, s->first_start_ns)));
	json_object_object_add(o, "first_us", json_object_new_int64(rel_us(in, s->first_ns)));
	json_object_object_add(o, "last_us", json_object_new_int64(rel_us(in, s->last_ns)));
	json_object_object_add(o, "duration_us", json_object_new_uint64(
		(s->last_ns - s->first_start_ns) / 1000));
	json_object_object_add(iv, "sample_us", ival_json(&s->sample_us));
	json_object_object_add(iv, "aggr_us", ival_json(&s->aggr_us));
	json_object_object_add(iv, "update_us", ival_json(&s->update_us));
	json_object_object_add(iv, "changes", json_object_new_uint64(s->interval_changes));
	json_object_object_add(o, "intervals", iv);
	json_object_object_add(rg, "min", json_object_new_uint64(s->regions_min));
	json_object_object_add(rg, "mean", json_object_new_double(
		(double)s->regions_sum / (double)s->snapshots));
	json_object_object_add(rg, "max", json_object_new_uint64(s->regions_max));
	json_object_object_add(o, "regions", rg);
	json_object_object_add(by, "min", json_object_new_uint64(s->bytes_min));
	json_object_object_add(by, "max", json_object_new_uint64(s->bytes_max));
	json_object_object_add(o, "total_bytes", by);
	return o;
}

/* {"recorder", "method", ..., "subset"}: the recording's description, null where absent. */
static json_object *recording_json(const struct damonctl_rec_info *n)
{
	static const char *const rec_keys[] = { "method", "hostname", "kernel", "converted_from" };
	static const char *const keys[] = { "from_us", "to_us", "address_start", "address_end",
					    "kdamond", "target", "aggregate_us" };
	json_object *rec = json_object_new_object(), *o = NULL;
	const char *recorder = recorder_of(n);
	size_t i;

	json_object_object_add(rec, "recorder", recorder ? json_object_new_string(recorder) : NULL);
	for (i = 0; i < sizeof(rec_keys) / sizeof(rec_keys[0]); i++) {
		const char *v = damonctl_rec_info_recording(n, rec_keys[i]);

		json_object_object_add(rec, rec_keys[i], v ? json_object_new_string(v) : NULL);
	}
	if (damonctl_rec_info_has_subset(n)) {	/* the known keys, as numbers or null */
		o = json_object_new_object();
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			int64_t x = damonctl_rec_info_subset(n, keys[i]);

			json_object_object_add(o, keys[i], x < 0 ? NULL :
					       json_object_new_uint64((uint64_t)x));
		}
	}
	json_object_object_add(rec, "subset", o);
	return rec;
}

/* {"items", "schemes": [{"kdamond", "scheme", "action", "stats"}]} */
static json_object *stats_json(const struct damonctl_rec_info *n)
{
	json_object *st = json_object_new_object(), *sch = json_object_new_array();
	uint32_t kdamond, scheme;
	const char *action;
	uint64_t stats;
	size_t i;

	for (i = 0; !damonctl_rec_info_scheme(n, i, &kdamond, &scheme, &action, &stats); i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kdamond", json_object_new_int((int)kdamond));
		json_object_object_add(o, "scheme", json_object_new_int((int)scheme));
		json_object_object_add(o, "action", json_object_new_string(action));
		json_object_object_add(o, "stats", json_object_new_uint64(stats));
		json_object_array_add(sch, o);
	}
	json_object_object_add(st, "items", json_object_new_uint64(
		damonctl_rec_info_stats(n, NULL)));
	json_object_object_add(st, "schemes", sch);
	return st;
}

void info_fill_json(const struct damonctl_rec_info *n, const struct rin *in, json_object *doc)
{
	json_object *arr = json_object_new_array();
	uint64_t first, last, nr = damonctl_rec_info_snapshots(n, &first, &last);
	struct damonctl_rec_info_series s = DAMONCTL_REC_INFO_SERIES_INIT;
	size_t i;

	for (i = 0; !damonctl_rec_info_series(n, i, &s); i++)
		json_object_array_add(arr, series_json(in, &s));
	json_object_object_add(doc, "input", rin_input_json(in));
	json_object_object_add(doc, "recording", recording_json(n));
	json_object_object_add(doc, "has_config", json_object_new_boolean(
		damonctl_rec_info_has_config(n)));
	json_object_object_add(doc, "snapshots", json_object_new_uint64(nr));
	json_object_object_add(doc, "start_ns", nr ? json_object_new_uint64(rin_base_ns(in)) :
			       NULL);
	json_object_object_add(doc, "duration_us", json_object_new_uint64(
		nr ? (last - first) / 1000 : 0));
	json_object_object_add(doc, "series", arr);
	json_object_object_add(doc, "scheme_stats", stats_json(n));
}

static int print_json(const struct damonctl_rec_info *n, const struct rin *in)
{
	json_object *doc = json_doc_new();

	info_fill_json(n, in, doc);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

static void print_ival(const char *name, const struct damonctl_rec_interval *v)
{
	char a[32], b[32], c[32];

	if (v->min == v->max)
		printf("%s %s", name, fmt_time(v->first, a, sizeof(a)));
	else
		printf("%s %s to %s (first %s)", name, fmt_time(v->min, a, sizeof(a)),
		       fmt_time(v->max, b, sizeof(b)), fmt_time(v->first, c, sizeof(c)));
}

/* "input: NAME (FORMAT format[, cut short])" */
static void print_input(const struct rin *in)
{
	json_object *o, *f, *c = NULL;

	printf("input: %s", rin_input_name(in));
	o = rin_input_json(in);
	if (json_object_object_get_ex(o, "format", &f)) {
		json_object_object_get_ex(o, "complete", &c);
		printf(" (%s format%s)", json_object_get_string(f),
		       c && !json_object_get_boolean(c) ? ", cut short" : "");
	}
	json_object_put(o);
	printf("\n");
}

/* The subset a conversion kept: times, addresses, kdamond, target, aggregation. */
static void print_subset(const struct damonctl_rec_info *n)
{
	int64_t a = damonctl_rec_info_subset(n, "from_us");
	int64_t b = damonctl_rec_info_subset(n, "to_us");
	int64_t lo = damonctl_rec_info_subset(n, "address_start");
	int64_t hi = damonctl_rec_info_subset(n, "address_end");
	int64_t k = damonctl_rec_info_subset(n, "kdamond");
	int64_t t = damonctl_rec_info_subset(n, "target");
	int64_t g = damonctl_rec_info_subset(n, "aggregate_us");
	char rg[48];

	if (a >= 0)
		printf(" (from %.3f s%s", (double)a / 1e6, b >= 0 ? "" : " on");
	if (a >= 0 && b >= 0)
		printf(" to %.3f s", (double)b / 1e6);
	printf("%s", a >= 0 ? ")" : "");
	if (lo >= 0)
		printf(" %s", fmt_range((uint64_t)lo, (uint64_t)hi, rg, sizeof(rg)));
	if (k >= 0)
		printf(" kdamond %" PRId64, k);
	if (t >= 0)
		printf(" target %" PRId64, t);
	if (g >= 0)
		printf(", aggregated to %.3f s windows", (double)g / 1e6);
}

/* "recorded by: ..., method, host, kernel, what it was converted from and the subset": the
 * record's own words, their control characters shown as \xHH (a record may come from
 * anyone, and escapes in it would drive the terminal) */
static void print_recording(const struct damonctl_rec_info *n)
{
	const char *recorder = recorder_of(n), *v;
	char s[512];

	if (recorder)
		printf("recorded by: %s", safe_str(recorder, s, sizeof(s)));
	if ((v = damonctl_rec_info_recording(n, "method")))
		printf(", method %s", safe_str(v, s, sizeof(s)));
	if ((v = damonctl_rec_info_recording(n, "hostname")))
		printf(", on %s", safe_str(v, s, sizeof(s)));
	if ((v = damonctl_rec_info_recording(n, "kernel")))
		printf(", kernel %s", safe_str(v, s, sizeof(s)));
	if ((v = damonctl_rec_info_recording(n, "converted_from")))
		printf(", %s %s", what_of(n), safe_str(v, s, sizeof(s)));
	if (damonctl_rec_info_has_subset(n))
		print_subset(n);
	if (recorder)
		printf("\n");
}

/* "recorded: WHEN, for SECONDS; N snapshots in M series", or "no snapshot". */
static void print_span(const struct damonctl_rec_info *n, const struct rin *in)
{
	uint64_t first, last, nr = damonctl_rec_info_snapshots(n, &first, &last);
	char a[64];

	if (nr) {
		time_t t = (time_t)(rin_base_ns(in) / 1000000000ull);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(a, sizeof(a), "%Y-%m-%d %H:%M:%S UTC", &tm);
		printf("recorded: %s, for %.3f s; %" PRIu64 " snapshot%s in %zu series\n", a,
		       (double)(last - first) / 1e9, nr, nr == 1 ? "" : "s",
		       damonctl_rec_info_nr_series(n));
	} else {
		printf("no snapshot\n");
	}
}

/* One series: its name, pid and operations, its snapshots, intervals, regions and size. */
static void print_series(const struct rin *in, const struct damonctl_rec_info_series *s)
{
	const char *ops = s->operations;
	int64_t pid = s->pid;
	struct rin_key k = key_of(s);
	char a[64], b[32];

	printf("%s", rin_key_name(&k, a, sizeof(a)));
	if (pid >= 0 || ops) {
		printf(" (");
		if (pid >= 0)
			printf("pid %" PRId64 "%s", pid, ops ? ", " : "");
		printf("%s)", ops ? ops : "");
	}
	printf(": %" PRIu64 " snapshot%s from %.3f s to %.3f s\n", s->snapshots,
	       s->snapshots == 1 ? "" : "s", rin_rel_s(in, s->first_ns),
	       rin_rel_s(in, s->last_ns));
	printf("  intervals:");
	print_ival(" sample", &s->sample_us);
	print_ival(", aggregation", &s->aggr_us);
	print_ival(", update", &s->update_us);
	if (s->interval_changes)
		printf("; changed %" PRIu64 " time%s\n", s->interval_changes,
		       s->interval_changes == 1 ? "" : "s");
	else
		printf("; unchanged\n");
	printf("  regions per snapshot: min %" PRIu64 ", mean %.1f, max %" PRIu64 "\n",
	       s->regions_min, (double)s->regions_sum / (double)s->snapshots, s->regions_max);
	printf("  monitored: %s", fmt_size(s->bytes_min, a, sizeof(a)));
	if (s->bytes_max != s->bytes_min)
		printf(" to %s", fmt_size(s->bytes_max, b, sizeof(b)));
	printf("\n");
}

static void print_scheme_stats(const struct damonctl_rec_info *n)
{
	uint64_t untold, items = damonctl_rec_info_stats(n, &untold), stats;
	uint32_t kdamond, scheme;
	const char *action;
	char safe[128];
	size_t i;

	if (!items) {
		printf("scheme stats: none\n");
		return;
	}
	printf("scheme stats: %" PRIu64 "\n", items);
	for (i = 0; !damonctl_rec_info_scheme(n, i, &kdamond, &scheme, &action, &stats); i++)
		printf("  kdamond %u scheme %u (%s): %" PRIu64 "\n", kdamond, scheme,
		       safe_str(action, safe, sizeof(safe)), stats);
	if (untold)
		printf("  %" PRIu64 " more of other schemes\n", untold);
}

void info_print_text(const struct damonctl_rec_info *n, const struct rin *in)
{
	struct damonctl_rec_info_series s = DAMONCTL_REC_INFO_SERIES_INIT;
	size_t i;

	print_input(in);
	print_recording(n);
	print_span(n, in);
	for (i = 0; !damonctl_rec_info_series(n, i, &s); i++)
		print_series(in, &s);
	print_scheme_stats(n);
}

static int info_run(struct cli *cli, int argc, char **argv)
{
	struct damonctl_rec_info *n;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct rin *in = NULL;
	int r, e;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	n = damonctl_rec_info_new();
	if (!n)
		return oom_error(cli);
	e = rin_open(cli, false, 0, &in);
	if (e)
		goto out;
	rin_all_series(in);
	while ((r = rin_next(in, &it)) == 1) {
		if (damonctl_rec_info_feed(n, &it)) {
			e = oom_error(cli);
			goto out;
		}
	}
	if (r < 0) {
		e = -r;
		goto out;
	}
	if (cli->json)
		e = print_json(n, in);
	else
		info_print_text(n, in);
out:
	damonctl_rec_info_free(n);
	r = rin_close(in);
	return e ? e : r;
}

const struct cmd cmd_report_info = {
	.name = "info",
	.summary = "what a record holds: format, series, time span, intervals, regions, stats",
	.usage = "[-i FILE|-] [--kdamond N] [--target N] [--time-range START,END] [--json]",
	.opts = info_opts,
	.parse = info_parse,
	.run = info_run,
	/* the input's alone: rin_parse and rin_open take them at cli->opts */
	.opts_size = sizeof(struct rin_opts),
	.opts_init = &(const struct rin_opts)RIN_OPTS_INIT,
};
