/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every record report reads: a record file, stdin, or a live kdamond (captured as
 * `damonc record` does), narrowed to one series (kdamond, context, target, scheme), a time
 * range and an address range. Items come one at a time: memory stays bounded by one
 * snapshot whatever the record's length.
 */
#ifndef DAMONC_REPORT_INPUT_H
#define DAMONC_REPORT_INPUT_H

#include "capture.h"
#include "record_io.h"

/* What reports read when neither -i nor a live capture option is given, if it exists (in
 * the current directory): what 'damonc record' writes by default. */
#define RIN_DEFAULT_RECORD "damonc.rec"

/* Option keys 500..519 are the input's. Their destinations are in struct rin_opts, the first
 * member of each report's options. */
#define RIN_OPTS \
	{ "input", 'i', OV_FILE, "FILE", "read the record FILE ('-': stdin; damonc's or damo's " \
	  "format); default: damonc.rec if it exists, else capture the running kdamond", \
	  OPT_TO(OD_STRING, struct rin_opts, input) }, \
	{ "kdamond", 500, OV_INT, "N", "only kdamond N (live: capture kdamond N)" }, \
	{ "target", 501, OV_INT, "N", "only target N (default: the first series of the record)" }, \
	{ "time-range", 502, OV_RANGE, "START,END", "only snapshots that ended from START to END " \
	  "after the record began (e.g. 5s,1m; either may be empty)" }, \
	{ "address-range", 503, OV_REGION, "START-END", "only memory in [START, END) (e.g. " \
	  "0x7f0000000000-0x7f0004000000)" }, \
	{ "duration", 504, OV_TIME, "TIME", "live: capture for TIME" }, \
	{ "interval", 505, OV_TIME, "TIME", "live: time between snapshots (default: 1s)" }, \
	{ "count", 506, OV_INT, "N", "live: capture N snapshots" }, \
	{ "allow-foreign", 507, OV_NONE, NULL, "live: allow writing to a kdamond damonc did not " \
	  "start (see damonc-record(1))", OPT_TO(OD_FLAG, struct rin_opts, cap.allow_foreign) }, \
	CAPTURE_FILTER_OPT(508), \
	CAPTURE_OF_SCHEME_OPT(509)

/*
 * What a report reads. Each record report has them as the first member of its own options
 * (struct cmd's opts_init: RIN_OPTS_INIT there), so that rin_parse() and rin_open() find them
 * at cli->opts; record, whose options begin with start's, passes its own to the _of forms.
 */
struct rin_opts {
	const char *input;
	struct capture_opts cap;
	int target;			/* -2: the first series' */
	bool have_time, have_addr;
	struct damonctl_rec_select_opts sel;	/* the time and address ranges */
};
#define RIN_OPTS_INIT { .cap = { .kdamond = -1 }, .target = -2, \
			.sel = DAMONCTL_REC_SELECT_OPTS_INIT }

/* 0, an exit code, or -1 when @key is not an input option (of the table's, those without a
 * destination). rin_parse_of: into @o, not cli->opts. */
int rin_parse(struct cli *cli, int key, const char *arg);
int rin_parse_of(struct cli *cli, struct rin_opts *o, int key, const char *arg);

struct rin;
/* @rewind: the report makes several passes. @live_count: snapshots a live capture takes when
 * neither --duration nor --count is given (0: one of them is required). The options are
 * cli->opts' (rin_open_of: @o's), which it completes (the default record, the live count)
 * and which must outlive the input. */
int rin_open(struct cli *cli, bool rewind, uint64_t live_count, struct rin **out);
int rin_open_of(struct cli *cli, struct rin_opts *o, bool rewind, uint64_t live_count,
		struct rin **out);
/* 1 (an item), 0 (the end), or -EXIT_* after an error was reported. Snapshots are those of
 * the chosen series in the time range, clipped to the address range. */
int rin_next(struct rin *in, struct damonctl_rec_item *it);
int rin_rewind(struct rin *in);
/* Snapshots of every series (--kdamond and --target still narrow them), for the reports
 * that show them side by side; call before the first rin_next(). */
void rin_all_series(struct rin *in);
/* How many series the input has (those --kdamond and --target keep), in a pass over it
 * (the input rewound after it: rin_open()'s @rewind), then the first chosen; an exit code. */
int rin_count_series(struct rin *in, unsigned int *n);
/* The series after @skip others (in the order their first snapshots come) is the one read
 * next; rewind first. */
void rin_choose_series(struct rin *in, unsigned int skip);
/* Nanoseconds: the start of the record's first snapshot (the origin of every time shown). */
uint64_t rin_base_ns(const struct rin *in);
/* Whether the input is a live capture (spooled or not), not a record given. */
bool rin_live(const struct rin *in);
/* What is read: the record's name ("-" for stdin), or "a live capture". */
const char *rin_input_name(const struct rin *in);
/* "kdamond 0 target 0" for titles; {"kdamond":..} for JSON. */
const char *rin_series_name(const struct rin *in);
json_object *rin_series_json(const struct rin *in);
/* A series, for the reports that keep state per series (rin_all_series()). */
struct rin_key {
	uint32_t kdamond, context;
	int32_t target, scheme;		/* -1: none */
};
void rin_key_of(const struct damonctl_rec_snapshot *s, struct rin_key *k);
/* "kdamond 0 target 0 scheme 1"; returns @buf. */
const char *rin_key_name(const struct rin_key *k, char *buf, size_t size);
/* {"kdamond", "context", "target", "scheme"} (null: none), as rin_series_json(). */
json_object *rin_key_json(const struct rin_key *k);
/* Per-series state: slots of @size bytes, each beginning with its struct rin_key, in the
 * order series first appear. Slots move when the table grows. */
struct rin_table {
	size_t size, nr, cap;
	char *slots;
};
#define rin_table_at(t, i) ((void *)((t)->slots + (i) * (t)->size))
/* The slot of @s's series, zeroed but for its key when new; NULL when out of memory. */
void *rin_slot(struct rin_table *t, const struct damonctl_rec_snapshot *s);

/* {"name", "format", "complete", ...} of the input (a live capture: {"live": true}). */
json_object *rin_input_json(const struct rin *in);
/* Warn about a cut-short record, undo a live capture; returns an exit code. */
int rin_close(struct rin *in);

/* Microseconds since rin_base_ns(). */
static inline double rin_rel_s(const struct rin *in, uint64_t ns)
{
	uint64_t b = rin_base_ns(in);

	return ns >= b ? (double)(ns - b) / 1e9 : -(double)(b - ns) / 1e9;
}

#endif
