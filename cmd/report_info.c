// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report info: what a record holds (damo's record_info and times): its format and
 * recorder, each series (kdamond, target, scheme; the target's pid and operations when the
 * record has the kdamond's configuration) with its time span, the intervals seen and
 * whether they changed, snapshots, regions per snapshot and monitored bytes, and the scheme
 * stats. One pass, state per series: memory does not grow with the record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_parts.h"

#define MAX_STAT_SCHEMES 64

static const struct opt info_opts[] = {
	RIN_OPTS,
	{ 0 },
};

static int info_parse(struct cli *cli, int key, const char *arg)
{
	int r = rin_parse(cli, key, arg);

	return r >= 0 ? r : EXIT_USAGE;
}

/* One interval: its first and last value, its extremes. */
struct ival {
	uint64_t first, last, min, max;
};

struct info_series {
	struct rin_key key;		/* first: see rin_slot() */
	uint64_t snapshots, first_start_ns, first_ns, last_ns;
	uint64_t reg_min, reg_max, reg_sum;
	uint64_t bytes_min, bytes_max;
	struct ival sample, aggr, update;
	uint64_t interval_changes;	/* snapshots whose intervals differ from the previous */
};

struct stat_scheme {
	uint32_t kdamond, scheme;
	char action[24];
	uint64_t stats;
};

struct info {
	struct rin_table series;
	struct stat_scheme schemes[MAX_STAT_SCHEMES];
	unsigned int nr_schemes;
	uint64_t stats, stats_untold;	/* STATS items; those of schemes past the table */
	uint64_t snapshots, configs;
	json_object *recording;		/* the INFO item, parsed */
	json_object *config;		/* the last CONFIG item, parsed */
};

static void ival_add(struct ival *v, uint64_t x, bool first)
{
	if (first || x < v->min)
		v->min = x;
	if (first || x > v->max)
		v->max = x;
	if (first)
		v->first = x;
	v->last = x;
}

static void add_snapshot(struct info_series *s, const struct damonctl_rec_snapshot *sn)
{
	bool first = !s->snapshots;

	if (!first && (sn->sample_us != s->sample.last || sn->aggr_us != s->aggr.last ||
		       sn->update_us != s->update.last))
		s->interval_changes++;
	ival_add(&s->sample, sn->sample_us, first);
	ival_add(&s->aggr, sn->aggr_us, first);
	ival_add(&s->update, sn->update_us, first);
	if (first) {
		s->first_start_ns = sn->start_ns;
		s->first_ns = sn->end_ns;
	}
	s->last_ns = sn->end_ns;
	if (first || sn->nr_regions < s->reg_min)
		s->reg_min = sn->nr_regions;
	if (first || sn->nr_regions > s->reg_max)
		s->reg_max = sn->nr_regions;
	s->reg_sum += sn->nr_regions;
	if (first || sn->total_bytes < s->bytes_min)
		s->bytes_min = sn->total_bytes;
	if (first || sn->total_bytes > s->bytes_max)
		s->bytes_max = sn->total_bytes;
	s->snapshots++;
}

static void add_stats(struct info *n, const struct damonctl_rec_stats *st)
{
	unsigned int i;

	n->stats++;
	for (i = 0; i < n->nr_schemes; i++)
		if (n->schemes[i].kdamond == st->kdamond && n->schemes[i].scheme == st->scheme)
			break;
	if (i == n->nr_schemes) {
		if (i == MAX_STAT_SCHEMES) {
			n->stats_untold++;
			return;
		}
		n->schemes[i].kdamond = st->kdamond;
		n->schemes[i].scheme = st->scheme;
		memcpy(n->schemes[i].action, st->action, sizeof(n->schemes[i].action));
		n->schemes[i].action[sizeof(n->schemes[i].action) - 1] = '\0';
		n->nr_schemes++;
	}
	n->schemes[i].stats++;
}

/* The recorded kdamond's configuration applies to the series of the kdamond the INFO item
 * names, or, when it names none, to every series if they all share one kdamond. */
static bool config_applies(const struct info *n, uint32_t kdamond)
{
	json_object *k;
	size_t i;

	if (!n->config)
		return false;
	if (n->recording && json_object_is_type(n->recording, json_type_object) &&
	    json_object_object_get_ex(n->recording, "kdamond", &k) &&
	    json_object_is_type(k, json_type_int))
		return json_object_get_int64(k) == (int64_t)kdamond;
	for (i = 0; i < n->series.nr; i++)
		if (((struct info_series *)rin_table_at(&n->series, i))->key.kdamond != kdamond)
			return false;
	return true;
}

/* Element @i of the array @key of object @o, or NULL (a record's JSON is not trusted). */
static json_object *member_at(json_object *o, const char *key, size_t i)
{
	json_object *a;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array) ||
	    i >= json_object_array_length(a))
		return NULL;
	return json_object_array_get_idx(a, i);
}

/* The context (and target) of @k in the configuration, or NULL. */
static json_object *config_get(const struct info *n, const struct rin_key *k, bool target)
{
	json_object *c;

	if (!config_applies(n, k->kdamond))
		return NULL;
	c = member_at(member_at(n->config, "kdamonds", 0), "contexts", k->context);
	if (!target)
		return c;
	return k->target < 0 ? NULL : member_at(c, "targets", (size_t)k->target);
}

static const char *series_ops(const struct info *n, const struct rin_key *k)
{
	json_object *c = config_get(n, k, false), *v;

	return c && json_object_is_type(c, json_type_object) &&
	       json_object_object_get_ex(c, "operations", &v) &&
	       json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* -1 when unknown (damo's records, a paddr target). */
static int64_t series_pid(const struct info *n, const struct rin_key *k)
{
	json_object *t = config_get(n, k, true), *v;

	return t && json_object_is_type(t, json_type_object) &&
	       json_object_object_get_ex(t, "pid_target", &v) &&
	       json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

/* The INFO item's "subset" (what `record -i ... --time-range ...` kept), or NULL. */
static json_object *recording_subset(const struct info *n)
{
	json_object *v;

	return n->recording && json_object_is_type(n->recording, json_type_object) &&
	       json_object_object_get_ex(n->recording, "subset", &v) &&
	       json_object_is_type(v, json_type_object) ? v : NULL;
}

/* A member of the subset object as a number (-1: absent). */
static int64_t subset_num(json_object *sub, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(sub, key, &v) && json_object_is_type(v, json_type_int) ?
	       json_object_get_int64(v) : -1;
}

/* How a file that `record -i` wrote came from its input: a subset of it (a part chosen),
 * aggregated from it (all of it, in longer windows), or converted. */
static const char *what_of(json_object *sub)
{
	static const char *const part[] = { "from_us", "to_us", "address_start", "address_end",
					    "kdamond", "target" };
	unsigned int i;

	if (!sub)
		return "converted from";
	for (i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		if (subset_num(sub, part[i]) >= 0)
			return "a subset of";
	return "aggregated from";
}

static const char *recording_str(const struct info *n, const char *key)
{
	json_object *v;

	return n->recording && json_object_is_type(n->recording, json_type_object) &&
	       json_object_object_get_ex(n->recording, key, &v) &&
	       json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* damonc's records name their recorder; damo's are told by their format. */
static const char *recorder_of(const struct info *n)
{
	const char *v = recording_str(n, "recorder");

	return v ? v : recording_str(n, "source");
}

static int64_t rel_us(const struct rin *in, uint64_t ns)
{
	uint64_t b = rin_base_ns(in);

	return ns >= b ? (int64_t)((ns - b) / 1000) : -(int64_t)((b - ns) / 1000);
}

static json_object *ival_json(const struct ival *v)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "first", json_object_new_uint64(v->first));
	json_object_object_add(o, "last", json_object_new_uint64(v->last));
	json_object_object_add(o, "min", json_object_new_uint64(v->min));
	json_object_object_add(o, "max", json_object_new_uint64(v->max));
	return o;
}

static json_object *series_json(const struct info *n, const struct rin *in,
				const struct info_series *s)
{
	json_object *o = json_object_new_object(), *iv = json_object_new_object(),
		*rg = json_object_new_object(), *by = json_object_new_object();
	const char *ops = series_ops(n, &s->key);
	int64_t pid = series_pid(n, &s->key);

	json_object_object_add(o, "series", rin_key_json(&s->key));
	json_object_object_add(o, "pid", pid >= 0 ? json_object_new_int64(pid) : NULL);
	json_object_object_add(o, "operations", ops ? json_object_new_string(ops) : NULL);
	json_object_object_add(o, "snapshots", json_object_new_uint64(s->snapshots));
	json_object_object_add(o, "start_us", json_object_new_int64(rel_us(in, s->first_start_ns)));
	json_object_object_add(o, "first_us", json_object_new_int64(rel_us(in, s->first_ns)));
	json_object_object_add(o, "last_us", json_object_new_int64(rel_us(in, s->last_ns)));
	json_object_object_add(o, "duration_us", json_object_new_uint64(
		(s->last_ns - s->first_start_ns) / 1000));
	json_object_object_add(iv, "sample_us", ival_json(&s->sample));
	json_object_object_add(iv, "aggr_us", ival_json(&s->aggr));
	json_object_object_add(iv, "update_us", ival_json(&s->update));
	json_object_object_add(iv, "changes", json_object_new_uint64(s->interval_changes));
	json_object_object_add(o, "intervals", iv);
	json_object_object_add(rg, "min", json_object_new_uint64(s->reg_min));
	json_object_object_add(rg, "mean", json_object_new_double(
		(double)s->reg_sum / (double)s->snapshots));
	json_object_object_add(rg, "max", json_object_new_uint64(s->reg_max));
	json_object_object_add(o, "regions", rg);
	json_object_object_add(by, "min", json_object_new_uint64(s->bytes_min));
	json_object_object_add(by, "max", json_object_new_uint64(s->bytes_max));
	json_object_object_add(o, "total_bytes", by);
	return o;
}

void info_fill_json(const struct info *n, const struct rin *in, json_object *doc)
{
	json_object *arr = json_object_new_array(),
		*sch = json_object_new_array(), *rec = json_object_new_object(), *st;
	static const char *const rec_keys[] = { "method", "hostname", "kernel", "converted_from" };
	const char *recorder = recorder_of(n);
	uint64_t first = UINT64_MAX, last = 0;
	size_t i;

	json_object_object_add(rec, "recorder", recorder ? json_object_new_string(recorder) : NULL);
	for (i = 0; i < sizeof(rec_keys) / sizeof(rec_keys[0]); i++) {
		const char *v = recording_str(n, rec_keys[i]);

		json_object_object_add(rec, rec_keys[i], v ? json_object_new_string(v) : NULL);
	}
	{
		json_object *sub = recording_subset(n), *o = NULL;
		static const char *const keys[] = { "from_us", "to_us", "address_start",
						    "address_end", "kdamond", "target",
						    "aggregate_us" };

		if (sub) {	/* the known keys, as numbers or null */
			o = json_object_new_object();
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				int64_t x = subset_num(sub, keys[i]);

				json_object_object_add(o, keys[i], x < 0 ? NULL :
						       json_object_new_uint64((uint64_t)x));
			}
		}
		json_object_object_add(rec, "subset", o);
	}
	for (i = 0; i < n->series.nr; i++) {
		const struct info_series *s = rin_table_at(&n->series, i);

		json_object_array_add(arr, series_json(n, in, s));
		first = s->first_start_ns < first ? s->first_start_ns : first;
		last = s->last_ns > last ? s->last_ns : last;
	}
	for (i = 0; i < n->nr_schemes; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kdamond", json_object_new_int((int)n->schemes[i].kdamond));
		json_object_object_add(o, "scheme", json_object_new_int((int)n->schemes[i].scheme));
		json_object_object_add(o, "action", json_object_new_string(n->schemes[i].action));
		json_object_object_add(o, "stats", json_object_new_uint64(n->schemes[i].stats));
		json_object_array_add(sch, o);
	}
	json_object_object_add(doc, "input", rin_input_json(in));
	json_object_object_add(doc, "recording", rec);
	json_object_object_add(doc, "has_config", json_object_new_boolean(n->configs > 0));
	json_object_object_add(doc, "snapshots", json_object_new_uint64(n->snapshots));
	json_object_object_add(doc, "start_ns", n->snapshots ?
			       json_object_new_uint64(rin_base_ns(in)) : NULL);
	json_object_object_add(doc, "duration_us", json_object_new_uint64(
		n->snapshots ? (last - first) / 1000 : 0));
	json_object_object_add(doc, "series", arr);
	st = json_object_new_object();
	json_object_object_add(st, "items", json_object_new_uint64(n->stats));
	json_object_object_add(st, "schemes", sch);
	json_object_object_add(doc, "scheme_stats", st);
}

static int print_json(const struct info *n, const struct rin *in)
{
	json_object *doc = json_doc_new();

	info_fill_json(n, in, doc);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

static void print_ival(const char *name, const struct ival *v)
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
static void print_subset(json_object *sub)
{
	int64_t a = subset_num(sub, "from_us"), b = subset_num(sub, "to_us");
	int64_t lo = subset_num(sub, "address_start"), hi = subset_num(sub, "address_end");
	int64_t k = subset_num(sub, "kdamond"), t = subset_num(sub, "target");
	int64_t g = subset_num(sub, "aggregate_us");

	if (a >= 0)
		printf(" (from %.3f s%s", (double)a / 1e6, b >= 0 ? "" : " on");
	if (a >= 0 && b >= 0)
		printf(" to %.3f s", (double)b / 1e6);
	printf("%s", a >= 0 ? ")" : "");
	if (lo >= 0)
		printf(" [0x%" PRIx64 ", 0x%" PRIx64 ")", (uint64_t)lo, (uint64_t)hi);
	if (k >= 0)
		printf(" kdamond %" PRId64, k);
	if (t >= 0)
		printf(" target %" PRId64, t);
	if (g >= 0)
		printf(", aggregated to %.3f s windows", (double)g / 1e6);
}

/* "recorded by: ..., method, host, kernel, what it was converted from and the subset" */
static void print_recording(const struct info *n)
{
	const char *recorder = recorder_of(n), *v;

	if (recorder)
		printf("recorded by: %s", recorder);
	if ((v = recording_str(n, "method")))
		printf(", method %s", v);
	if ((v = recording_str(n, "hostname")))
		printf(", on %s", v);
	if ((v = recording_str(n, "kernel")))
		printf(", kernel %s", v);
	if ((v = recording_str(n, "converted_from")))
		printf(", %s %s", what_of(recording_subset(n)), v);
	if (recording_subset(n))
		print_subset(recording_subset(n));
	if (recorder)
		printf("\n");
}

/* "recorded: WHEN, for SECONDS; N snapshots in M series", or "no snapshot". */
static void print_span(const struct info *n, const struct rin *in)
{
	uint64_t first = UINT64_MAX, last = 0;
	char a[64];
	size_t i;

	for (i = 0; i < n->series.nr; i++) {
		const struct info_series *s = rin_table_at(&n->series, i);

		first = s->first_start_ns < first ? s->first_start_ns : first;
		last = s->last_ns > last ? s->last_ns : last;
	}
	if (n->snapshots) {
		time_t t = (time_t)(rin_base_ns(in) / 1000000000ull);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(a, sizeof(a), "%Y-%m-%d %H:%M:%S UTC", &tm);
		printf("recorded: %s, for %.3f s; %" PRIu64 " snapshot%s in %zu series\n", a,
		       (double)(last - first) / 1e9, n->snapshots, n->snapshots == 1 ? "" : "s",
		       n->series.nr);
	} else {
		printf("no snapshot\n");
	}
}

/* One series: its name, pid and operations, its snapshots, intervals, regions and size. */
static void print_series(const struct info *n, const struct rin *in,
			 const struct info_series *s)
{
	const char *ops = series_ops(n, &s->key);
	int64_t pid = series_pid(n, &s->key);
	char a[64], b[32];

	printf("%s", rin_key_name(&s->key, a, sizeof(a)));
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
	print_ival(" sample", &s->sample);
	print_ival(", aggregation", &s->aggr);
	print_ival(", update", &s->update);
	if (s->interval_changes)
		printf("; changed %" PRIu64 " time%s\n", s->interval_changes,
		       s->interval_changes == 1 ? "" : "s");
	else
		printf("; unchanged\n");
	printf("  regions per snapshot: min %" PRIu64 ", mean %.1f, max %" PRIu64 "\n",
	       s->reg_min, (double)s->reg_sum / (double)s->snapshots, s->reg_max);
	printf("  monitored: %s", fmt_size(s->bytes_min, a, sizeof(a)));
	if (s->bytes_max != s->bytes_min)
		printf(" to %s", fmt_size(s->bytes_max, b, sizeof(b)));
	printf("\n");
}

static void print_scheme_stats(const struct info *n)
{
	size_t i;

	if (!n->stats) {
		printf("scheme stats: none\n");
		return;
	}
	printf("scheme stats: %" PRIu64 "\n", n->stats);
	for (i = 0; i < n->nr_schemes; i++)
		printf("  kdamond %u scheme %u (%s): %" PRIu64 "\n", n->schemes[i].kdamond,
		       n->schemes[i].scheme, n->schemes[i].action, n->schemes[i].stats);
	if (n->stats_untold)
		printf("  %" PRIu64 " more of other schemes\n", n->stats_untold);
}

void info_print_text(const struct info *n, const struct rin *in)
{
	size_t i;

	print_input(in);
	print_recording(n);
	print_span(n, in);
	for (i = 0; i < n->series.nr; i++)
		print_series(n, in, rin_table_at(&n->series, i));
	print_scheme_stats(n);
}

struct info *info_new(void)
{
	struct info *n = calloc(1, sizeof(*n));

	if (n)
		n->series.size = sizeof(struct info_series);
	return n;
}

int info_feed(struct info *n, const struct damonctl_rec_item *it)
{
	struct info_series *s;

	switch (it->type) {
	case DAMONCTL_REC_INFO:
		json_object_put(n->recording);
		n->recording = json_tokener_parse(it->json);
		break;
	case DAMONCTL_REC_CONFIG:
		json_object_put(n->config);
		n->config = json_tokener_parse(it->json);
		n->configs++;
		break;
	case DAMONCTL_REC_SNAPSHOT:
		s = rin_slot(&n->series, &it->snapshot);
		if (!s)
			return -ENOMEM;
		add_snapshot(s, &it->snapshot);
		n->snapshots++;
		break;
	case DAMONCTL_REC_STATS:
		add_stats(n, &it->stats);
		break;
	default:
		break;
	}
	return 0;
}

void info_free(struct info *n)
{
	if (!n)
		return;
	json_object_put(n->recording);
	json_object_put(n->config);
	free(n->series.slots);
	free(n);
}

static int info_run(struct cli *cli, int argc, char **argv)
{
	struct info *n;
	struct damonctl_rec_item it;
	struct rin *in = NULL;
	int r, e;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	n = info_new();
	if (!n)
		return usage_error(cli, "out of memory"), EXIT_FAIL;
	e = rin_open(cli, false, 0, &in);
	if (e)
		goto out;
	rin_all_series(in);
	while ((r = rin_next(in, &it)) == 1) {
		if (info_feed(n, &it)) {
			e = (usage_error(cli, "out of memory"), EXIT_FAIL);
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
	info_free(n);
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
};
