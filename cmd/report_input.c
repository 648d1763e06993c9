// SPDX-License-Identifier: GPL-2.0-or-later
/* The input of every record report (see report_input.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_input.h"

struct rin {
	struct cli *cli;
	struct rin_opts *o;		/* what to read (the report's options) */
	struct record_in rec;
	bool have_rec;
	struct capture *cap;		/* live, streaming */
	bool live;
	bool all_series;		/* rin_all_series(): no series is chosen */
	uint32_t skip_series;		/* rin_choose_series() */
	struct damonctl_rec_select *sel;	/* made at the first rin_next() */
	bool at_end;			/* the input was read to its end */
	int end_reason;			/* from the END item, -1 before it */
	char name[64];
};

static int parse_range_time(struct cli *cli, struct rin_opts *o, const char *arg)
{
	size_t bad;
	int r = damonctl_rec_select_parse_time(arg, &o->sel, &bad);

	if (r == -EBADMSG && !bad)
		return usage_error(cli, "--time-range '%s': '%.*s' is not a time such as 5s", arg,
				   (int)(strchr(arg, ',') - arg), arg);
	if (r == -EBADMSG)
		return usage_error(cli, "--time-range '%s': '%s' is not a time such as 1m", arg,
				   arg + bad);
	if (r == -ERANGE)
		return usage_error(cli, "--time-range '%s': START is after END", arg);
	if (r)
		return usage_error(cli, "--time-range '%s': expected START,END (e.g. 5s,1m)", arg);
	o->have_time = true;
	return 0;
}

static int parse_range_addr(struct cli *cli, struct rin_opts *o, const char *arg)
{
	int r = damonctl_rec_select_parse_addr(arg, &o->sel);

	if (r == -EBADMSG)
		return usage_error(cli, "--address-range '%s': expected addresses such as "
				   "0x7f0000000000 or sizes such as 4G", arg);
	if (r == -ERANGE)
		return usage_error(cli, "--address-range '%s': START must be below END", arg);
	if (r)
		return usage_error(cli, "--address-range '%s': expected START-END", arg);
	o->have_addr = true;
	return 0;
}

/* The input options but -i and --allow-foreign, which the table's entries store. */
int rin_parse_of(struct cli *cli, struct rin_opts *o, int key, const char *arg)
{
	uint64_t v;

	switch (key) {
	case 500:
		if (parse_uint_opt(cli, "kdamond", arg, 1u << 20, &v))
			return EXIT_USAGE;
		o->cap.kdamond = (int)v;
		return 0;
	case 501:
		if (parse_uint_opt(cli, "target", arg, INT32_MAX, &v))
			return EXIT_USAGE;
		o->target = (int)v;
		return 0;
	case 502:
		return parse_range_time(cli, o, arg);
	case 508:
		return capture_parse_filter(cli, &o->cap, arg);
	case 509:
		return capture_parse_of_scheme(cli, &o->cap, arg);
	case 503:
		return parse_range_addr(cli, o, arg);
	case 504:
		if (parse_time_opt(cli, "duration", arg, &o->cap.duration_us))
			return EXIT_USAGE;
		if (!o->cap.duration_us || o->cap.duration_us == DAMONCTL_MAX)
			return usage_error(cli, "--duration '%s': expected a time above 0", arg);
		return check_wait(cli, "duration", arg, o->cap.duration_us);
	case 505:
		if (parse_time_opt(cli, "interval", arg, &o->cap.interval_us))
			return EXIT_USAGE;
		if (o->cap.interval_us < 1000)
			return usage_error(cli, "--interval '%s': at least 1ms", arg);
		return check_wait(cli, "interval", arg, o->cap.interval_us);
	case 506:
		if (parse_uint_opt(cli, "count", arg, UINT32_MAX, &o->cap.count))
			return EXIT_USAGE;
		if (!o->cap.count)
			return usage_error(cli, "--count '%s': at least 1", arg);
		return 0;
	}
	return -1;
}

int rin_parse(struct cli *cli, int key, const char *arg)
{
	return rin_parse_of(cli, cli->opts, key, arg);
}

/* A live capture into an unlinked temporary record, for reports that make several passes. */
static int capture_to_file(struct rin *in)
{
	const char *dir = getenv("TMPDIR");
	struct damonctl_rec_writer *w = NULL;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct capture *c;
	int fd, r, e;

	fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return usage_error(in->cli, "a temporary file for the capture: %s",
				   strerror(errno)), EXIT_FAIL;
	e = capture_start(in->cli, &in->o->cap, &c);
	if (e) {
		close(fd);
		return e;
	}
	r = damonctl_rec_writer_new(fd, 0, NULL, &w);
	while (!r && (r = capture_next(c, &it)) == 1)
		r = record_write_item(w, &it);
	e = r < 0 && r > -256 ? (usage_error(in->cli, "writing the capture: %s", strerror(-r)),
				 EXIT_FAIL) : r < 0 ? -r : 0;
	if (w)
		damonctl_rec_writer_finish(w, (int)capture_end_reason(c));
	r = capture_finish(c);
	if (e || r) {
		close(fd);
		return e ? e : r;
	}
	lseek(fd, 0, SEEK_SET);
	in->rec.name = "the capture";
	in->rec.fd = fd;
	{
		char why[256];

		r = damonctl_rec_reader_new(fd, &in->rec.r, why, sizeof(why));
		if (r) {
			close(fd);
			return usage_error(in->cli, "reading back the capture: %s", why), EXIT_FAIL;
		}
	}
	in->have_rec = true;
	return 0;
}

int rin_open_of(struct cli *cli, struct rin_opts *o, bool rewind, uint64_t live_count,
		struct rin **out)
{
	struct rin *in = calloc(1, sizeof(*in));
	int e;

	if (!in)
		return oom_error(cli);
	in->cli = cli;
	in->o = o;
	in->end_reason = -1;
	/* as perf report reads perf.data and damo report damon.data: the record that
	 * 'damonc record' writes by default, unless a live capture was asked for */
	if (!o->input && !capture_live_asked(&o->cap) && !access(RIN_DEFAULT_RECORD, F_OK))
		o->input = RIN_DEFAULT_RECORD;
	if (o->input) {
		if (capture_live_asked(&o->cap)) {
			free(in);
			return usage_error(cli, "-i reads a record: --duration, --interval, --count, "
					   "--allow-foreign, --snapshot-damos-filter and "
					   "--tried-regions-of are for live captures");
		}
		e = record_in_open(cli, o->input, rewind, &in->rec);
		if (e) {
			free(in);
			return e;
		}
		in->have_rec = true;
		*out = in;
		return 0;
	}
	in->live = true;
	e = capture_of_scheme_check(cli, &o->cap, "shows");
	if (e) {
		free(in);
		return e;
	}
	if (!o->cap.duration_us && !o->cap.count) {
		if (!live_count) {
			free(in);
			return usage_error(cli, "no %s here: read a record with -i FILE, or "
					   "capture a running kdamond with --duration or --count",
					   RIN_DEFAULT_RECORD);
		}
		o->cap.count = live_count;
	}
	capture_catch_signals();
	e = rewind ? capture_to_file(in) : capture_start(cli, &o->cap, &in->cap);
	if (e) {
		free(in);
		return e;
	}
	*out = in;
	return 0;
}

int rin_open(struct cli *cli, bool rewind, uint64_t live_count, struct rin **out)
{
	return rin_open_of(cli, cli->opts, rewind, live_count, out);
}

/* The library's selection of what the options ask for. */
static int select_new(struct rin *in)
{
	struct damonctl_rec_select_opts o = in->o->sel;

	o.kdamond = in->o->cap.kdamond;
	o.target = in->o->target >= 0 ? in->o->target : -1;
	o.one_series = !in->all_series;
	o.skip_series = in->skip_series;
	return damonctl_rec_select_new(&o, &in->sel);
}

/* The chosen series' name, once it is chosen. */
static void name_series(struct rin *in)
{
	struct damonctl_rec_snapshot s = DAMONCTL_REC_SNAPSHOT_INIT;
	struct rin_key k;

	if (in->name[0] || damonctl_rec_select_series(in->sel, &s))
		return;
	rin_key_of(&s, &k);
	rin_key_name(&k, in->name, sizeof(in->name));
}

int rin_next(struct rin *in, struct damonctl_rec_item *it)
{
	if (!in->sel && select_new(in))
		return oom_error(in->cli), -EXIT_FAIL;
	for (;;) {
		int r = in->cap ? capture_next(in->cap, it) : damonctl_rec_next(in->rec.r, it);

		if (r < 0 && in->cap)
			return r;
		if (r < 0)
			return usage_error(in->cli, "reading %s: %s", in->rec.name, strerror(-r)),
			       -EXIT_FAIL;
		if (!r) {
			in->at_end = true;
			return 0;
		}
		if (it->type == DAMONCTL_REC_END)
			in->end_reason = (int)it->end->reason;
		r = damonctl_rec_select_item(in->sel, it);
		if (it->type == DAMONCTL_REC_SNAPSHOT)
			name_series(in);
		if (r < 0)
			return oom_error(in->cli), -EXIT_FAIL;
		if (r)
			return 1;
	}
}

void rin_all_series(struct rin *in)
{
	in->all_series = true;
}

/* A series that rin_count_series() counted, as a slot of its table */
struct series_seen {
	struct rin_key k;
};

int rin_count_series(struct rin *in, unsigned int *n)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct rin_table t = { .size = sizeof(struct series_seen) };
	int r;

	in->all_series = true;
	while ((r = rin_next(in, &it)) == 1)
		if (it.type == DAMONCTL_REC_SNAPSHOT && !rin_slot(&t, it.snapshot)) {
			r = (oom_error(in->cli), -EXIT_FAIL);
			break;
		}
	*n = (unsigned int)t.nr;
	free(t.slots);
	if (r < 0)
		return -r;
	rin_choose_series(in, 0);
	return rin_rewind(in);
}

void rin_choose_series(struct rin *in, unsigned int skip)
{
	damonctl_rec_select_free(in->sel);
	in->sel = NULL;
	in->all_series = false;
	in->skip_series = skip;
	in->name[0] = '\0';
}

int rin_rewind(struct rin *in)
{
	int r;

	if (!in->have_rec)
		return usage_error(in->cli, "internal: a live capture cannot be read twice"),
		       EXIT_FAIL;
	in->at_end = false;
	r = damonctl_rec_rewind(in->rec.r);
	if (r)
		return usage_error(in->cli, "reading %s again: %s", in->rec.name, strerror(-r)),
		       EXIT_FAIL;
	return 0;
}

uint64_t rin_base_ns(const struct rin *in)
{
	return damonctl_rec_select_base_ns(in->sel);
}

bool rin_live(const struct rin *in)
{
	return in->live;
}

const char *rin_input_name(const struct rin *in)
{
	return in->have_rec && !in->live ? in->rec.name : "a live capture";
}

const char *rin_series_name(const struct rin *in)
{
	return in->name[0] ? in->name : "no snapshot";
}

json_object *rin_series_json(const struct rin *in)
{
	struct damonctl_rec_snapshot s = DAMONCTL_REC_SNAPSHOT_INIT;
	struct rin_key k;

	if (!in->sel || damonctl_rec_select_series(in->sel, &s))
		return NULL;
	rin_key_of(&s, &k);
	return rin_key_json(&k);
}

void rin_key_of(const struct damonctl_rec_snapshot *s, struct rin_key *k)
{
	k->kdamond = s->kdamond;
	k->context = s->context;
	k->target = s->target;
	k->scheme = s->scheme;
}

const char *rin_key_name(const struct rin_key *k, char *buf, size_t size)
{
	int n = k->target >= 0 ? snprintf(buf, size, "kdamond %u target %d", k->kdamond, k->target)
			       : snprintf(buf, size, "kdamond %u", k->kdamond);

	if (k->scheme >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " scheme %d", k->scheme);
	return buf;
}

json_object *rin_key_json(const struct rin_key *k)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kdamond", json_object_new_int((int)k->kdamond));
	json_object_object_add(o, "context", json_object_new_int((int)k->context));
	json_object_object_add(o, "target", k->target >= 0 ? json_object_new_int(k->target) : NULL);
	json_object_object_add(o, "scheme", k->scheme >= 0 ? json_object_new_int(k->scheme) : NULL);
	return o;
}

void *rin_slot(struct rin_table *t, const struct damonctl_rec_snapshot *s)
{
	struct rin_key k;
	size_t i;
	char *e;

	rin_key_of(s, &k);
	for (i = 0; i < t->nr; i++) {
		e = t->slots + i * t->size;
		if (!memcmp(e, &k, sizeof(k)))
			return e;
	}
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4;
		void *p = realloc(t->slots, cap * t->size);

		if (!p)
			return NULL;
		t->slots = p;
		t->cap = cap;
	}
	e = t->slots + t->nr++ * t->size;
	memset(e, 0, t->size);
	memcpy(e, &k, sizeof(k));
	return e;
}

json_object *rin_input_json(const struct rin *in)
{
	json_object *o;

	if (in->have_rec && !in->live) {
		o = record_in_status_json((struct record_in *)&in->rec);
		json_object_object_add(o, "read_to_end", json_object_new_boolean(in->at_end));
		json_object_object_add(o, "end_reason", in->end_reason < 0 ? NULL :
			json_object_new_string(damonctl_rec_end_reason_name(in->end_reason)));
		if (!in->at_end) {
			/* what follows was not read: nothing is known of it */
			json_object_object_add(o, "complete", NULL);
			json_object_object_add(o, "bytes_lost", NULL);
		}
		return o;
	}
	o = json_object_new_object();
	json_object_object_add(o, "live", json_object_new_boolean(true));
	return o;
}

int rin_close(struct rin *in)
{
	int e = EXIT_OK;

	if (!in)
		return EXIT_OK;
	if (in->have_rec && !in->live && in->at_end)
		record_in_report_loss(in->cli, &in->rec);
	if (in->have_rec)
		record_in_close(&in->rec);
	if (in->cap)
		e = capture_finish(in->cap);
	damonctl_rec_select_free(in->sel);
	free(in);
	return e;
}
