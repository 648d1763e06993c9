// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc record: snapshots of a running kdamond's monitoring results, written as they are
 * taken in damonc's record format (docs/record-format.md), which `damonc report` streams.
 * Given targets (--pid, --regions, --ops, '-- COMMAND'), it starts a kdamond of its own for
 * them through start's code (start.h), records it, and removes it at the end.
 * With -i it converts a record instead: damo's record JSON to damonc's format, or back; with
 * --time-range, --address-range, --kdamond or --target too it writes that subset of it, and
 * with --aggregate its snapshots merged into longer aggregations (libdamonctl's merger).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "config.h"
#include "perf_profile.h"
#include "record_io.h"
#include "report_input.h"
#include "spec.h"
#include "start.h"

extern const struct cmd cmd_start;

enum out_format { FMT_DAMONC, FMT_DAMO_JSON, FMT_DAMO_ZLIB };

struct record_opts {
	struct start_opts start;	/* first: start's code reads them at cli->opts */
	struct capture_opts cap;
	const char *output;
	const char *input;
	int format;		/* enum out_format: the index of --format's choice */
	bool no_compress;
	bool subset;		/* -i with --time-range, --address-range, --target or --aggregate */
	uint64_t aggregate_us;	/* -i --aggregate: the new aggregation window */
	bool starts;		/* a target or monitoring option: record starts a kdamond */
	bool profile;		/* --profile: perf record beside the record */
	const char *profile_file, *perf;
	struct rin_opts sub;	/* -i: what of the record is copied, as the reports read it */
};

/* above start's own keys (300...) and below spec.c's (400...): start parses the targets */
enum { O_KDAMOND = 350, O_DURATION, O_INTERVAL, O_COUNT, O_METHOD, O_FOREIGN, O_FORMAT,
       O_NO_COMPRESS, O_TARGET, O_TIME_RANGE, O_ADDRESS_RANGE, O_NO_FOOTPRINTS, O_AGGREGATE,
       O_PROFILE, O_PERF, O_SNAP_FILTER, O_OF_SCHEME };

#define TO(kind, member) OPT_TO(kind, struct record_opts, member)
static const struct opt record_opts[] = {
	{ "output", 'o', OV_FILE, "FILE", "write the record to FILE, '-' for stdout "
	  "(default: damonc.rec)", TO(OD_STRING, output) },
	{ "kdamond", O_KDAMOND, OV_INT, "N",
	  "record kdamond N (default: the running kdamond damonc started); with -i: keep "
	  "kdamond N's snapshots", TO(OD_INT, cap.kdamond), .max = 1u << 20 },
	{ "duration", O_DURATION, OV_TIME, "TIME", "stop after TIME (default: until interrupted "
	  "or the target exits)" },
	{ "interval", O_INTERVAL, OV_TIME, "TIME", "time between snapshots (default: 1s)" },
	{ "count", O_COUNT, OV_INT, "N", "stop after N snapshots" },
	{ "method", O_METHOD, OV_STRING, "auto|trace|tried-regions", "how to capture: auto "
	  "(trace where the event is there), trace or tried-regions" },
	{ "allow-foreign", O_FOREIGN, OV_NONE, NULL, "allow writing to a kdamond damonc did not "
	  "start: commands, and a capture scheme restored afterwards",
	  TO(OD_FLAG, cap.allow_foreign) },
	{ "no-compress", O_NO_COMPRESS, OV_NONE, NULL, "do not zlib-compress snapshots",
	  TO(OD_FLAG, no_compress) },
	{ "no-footprints", O_NO_FOOTPRINTS, OV_NONE, NULL, "do not record the footprint (the "
	  "system's memory, the kdamond's CPU time, each target's size, RSS, CPU time and "
	  "mappings) with each snapshot", TO(OD_FLAG, cap.no_footprints) },
	{ "profile", O_PROFILE, OV_OPTIONAL, "FILE", "also profile the system with 'perf record' "
	  "into FILE (default: the record's file + .profile), on the record's clock, for "
	  "'damonc report profile'" },
	{ "perf", O_PERF, OV_FILE, "PATH", "with --profile: the perf to run (default: perf)" },
	CAPTURE_FILTER_OPT(O_SNAP_FILTER),
	CAPTURE_OF_SCHEME_OPT(O_OF_SCHEME),
	{ "input", 'i', OV_FILE, "FILE", "convert the record FILE ('-': stdin; damonc's or damo's "
	  "format) instead of recording", TO(OD_STRING, input) },
	{ "time-range", O_TIME_RANGE, OV_RANGE, "START,END", "with -i: keep the snapshots that "
	  "ended from START to END after the record began (e.g. 5s,1m; either may be empty)" },
	{ "address-range", O_ADDRESS_RANGE, OV_REGION, "START-END", "with -i: keep the memory in "
	  "[START, END) (regions are clipped to it)" },
	{ "target", O_TARGET, OV_INT, "N", "with -i: keep target N's snapshots (and --kdamond N: "
	  "kdamond N's)" },
	{ "aggregate", O_AGGREGATE, OV_TIME, "TIME", "with -i: merge each series' snapshots into "
	  "one per TIME of monitoring, as a longer aggregation interval would show them "
	  "(accesses summed, regions cut at every boundary)" },
	{ "format", O_FORMAT, OV_FORMAT, "damonc|damo-json|damo-zlib", "output format: damonc "
	  "(default), damo-json or damo-zlib (damo's compressed JSON); other than damonc needs "
	  "-i", TO(OD_CHOICE, format) },
	{ 0 },
};
#undef TO

static struct opt record_opts_tbl[48];

/* Its own options, then the targets and monitoring options of a kdamond it starts (start's
 * and spec.c's, parsed by start). */
static void record_opts_init(void)
{
	const struct opt *tables[] = { record_opts, start_target_opts, spec_context_opts };
	static const char *const skip[] = { "pause", "resume", NULL };	/* it records nothing */

	opts_merge(record_opts_tbl, 48, skip, tables, 3);
}

static int record_parse(struct cli *cli, int key, const char *arg)
{
	struct record_opts *ro = cli->opts;

	switch (key) {
	case O_DURATION:
		if (parse_time_opt(cli, "duration", arg, &ro->cap.duration_us))
			return EXIT_USAGE;
		if (!ro->cap.duration_us || ro->cap.duration_us == DAMONCTL_MAX)
			return usage_error(cli, "--duration '%s': expected a time above 0", arg);
		return check_wait(cli, "duration", arg, ro->cap.duration_us);
	case O_INTERVAL:
		if (parse_time_opt(cli, "interval", arg, &ro->cap.interval_us))
			return EXIT_USAGE;
		if (ro->cap.interval_us < 1000)
			return usage_error(cli, "--interval '%s': at least 1ms", arg);
		return check_wait(cli, "interval", arg, ro->cap.interval_us);
	case O_COUNT:
		if (parse_uint_opt(cli, "count", arg, UINT32_MAX, &ro->cap.count))
			return EXIT_USAGE;
		if (!ro->cap.count)
			return usage_error(cli, "--count '%s': at least 1", arg);
		return 0;
	case O_METHOD: {
		static const enum damonctl_capture_method methods[] = { DAMONCTL_CAPTURE_AUTO, DAMONCTL_CAPTURE_TRACE,
							       DAMONCTL_CAPTURE_TRIED_REGIONS };
		int i = opt_choice(cli, record_opts, O_METHOD, arg);

		if (i < 0)
			return EXIT_USAGE;
		ro->cap.method = methods[i];
		return 0;
	}
	case O_PROFILE:
		ro->profile = true;
		if (arg && !*arg)
			return usage_error(cli, "--profile=: expected a file name");
		ro->profile_file = arg;
		return 0;
	case O_PERF:
		if (!*arg)
			return usage_error(cli, "--perf '': expected perf's path");
		ro->perf = arg;
		return 0;
	case O_SNAP_FILTER:
		return capture_parse_filter(cli, &ro->cap, arg);
	case O_OF_SCHEME:
		return capture_parse_of_scheme(cli, &ro->cap, arg);
	case O_TARGET:
		ro->subset = true;
		return rin_parse_of(cli, &ro->sub, 501, arg);
	case O_TIME_RANGE:
		ro->subset = true;
		return rin_parse_of(cli, &ro->sub, 502, arg);
	case O_ADDRESS_RANGE:
		ro->subset = true;
		return rin_parse_of(cli, &ro->sub, 503, arg);
	case O_AGGREGATE:
		if (parse_time_opt(cli, "aggregate", arg, &ro->aggregate_us))
			return EXIT_USAGE;
		if (ro->aggregate_us < 1000)
			return usage_error(cli, "--aggregate '%s': at least 1ms", arg);
		if (check_wait(cli, "aggregate", arg, ro->aggregate_us))
			return EXIT_USAGE;
		ro->subset = true;
		return 0;
	}
	/* --pid, --regions, --ops, the intervals...: what start takes for the kdamond */
	ro->starts = true;
	return cmd_start.parse(cli, key, arg);
}

/* -o: opened before anything is done (a refusal leaves the tree as it was), never through a
 * link or into a device or FIFO; truncated only when the record begins, so that a capture
 * refused leaves a file that was there as it was, and removes one it made. */
struct rec_out {
	int fd;
	bool created;
	bool closed;		/* out_close() or out_abandon() done */
	struct stat st;
};

static int out_open(struct cli *cli, struct rec_out *o)
{
	struct record_opts *ro = cli->opts;
	struct stat in_st;

	*o = (struct rec_out){ .fd = STDOUT_FILENO };
	if (!strcmp(ro->output, "-"))
		return 0;
	/* truncating the record being read would lose it */
	if (ro->input && strcmp(ro->input, "-") && !stat(ro->input, &in_st) &&
	    !stat(ro->output, &o->st) && in_st.st_dev == o->st.st_dev &&
	    in_st.st_ino == o->st.st_ino)
		return usage_error(cli, "-o '%s' is the record -i reads: write to another file",
				   ro->output);
	o->created = lstat(ro->output, &o->st) != 0;
	/* 0600: a record holds the address layout of the processes it monitored */
	o->fd = damonctl_file_open(ro->output, O_WRONLY | O_CREAT, 0600);
	if (o->fd < 0)
		return output_error(cli, "-o", ro->output, o->fd);
	fstat(o->fd, &o->st);
	return 0;
}

/* The record begins: what the file held goes. */
static int out_begin(struct cli *cli, struct rec_out *o)
{
	struct record_opts *ro = cli->opts;

	if (o->fd == STDOUT_FILENO || !ftruncate(o->fd, 0))
		return 0;
	usage_error(cli, "writing '%s': %s", ro->output, strerror(errno));
	return EXIT_FAIL;
}

/* Nothing was recorded: a file made for it goes (the one made, not another at its name). */
static void out_abandon(struct cli *cli, struct rec_out *o)
{
	struct record_opts *ro = cli->opts;
	struct stat st;

	if (o->fd == STDOUT_FILENO || o->closed)
		return;
	o->closed = true;
	close(o->fd);
	if (o->created && !lstat(ro->output, &st) && st.st_ino == o->st.st_ino &&
	    st.st_dev == o->st.st_dev && !st.st_size)
		unlink(ro->output);
}

/* The record is written: on disk before the summary says so (fsync), its errors said; @e
 * the exit code so far. */
static int out_close(struct cli *cli, struct rec_out *o, int e)
{
	struct record_opts *ro = cli->opts;
	int err = 0;

	if (o->fd == STDOUT_FILENO || o->closed)
		return e;
	o->closed = true;
	if (!e && fsync(o->fd))
		err = errno;
	if (close(o->fd) && !err)
		err = errno;
	if (err && !e && err != EINTR) {
		usage_error(cli, "writing '%s': %s", ro->output, strerror(err));
		return EXIT_FAIL;
	}
	return e;
}

static char *info_json(struct cli *cli, const struct capture *c, const char *source)
{
	const struct record_opts *ro = cli->opts;
	const struct rin_opts *kept = &ro->sub;	/* -i's selection */
	json_object *o = json_object_new_object();
	struct utsname u;
	char host[256] = "";
	char *s;

	json_object_object_add(o, "format_version",
			       json_object_new_int(DAMONCTL_RECORD_FORMAT_VERSION));
	json_object_object_add(o, "recorder", json_object_new_string("damonc " DAMONC_VERSION));
	json_object_object_add(o, "start_time_ns", json_object_new_uint64(capture_now_ns()));
	if (c && ro->profile) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "file", json_object_new_string(ro->profile_file));
		json_object_object_add(p, "clockid", json_object_new_string(PERF_PROFILE_CLOCK));
		json_object_object_add(o, "profile", p);
	}
	if (c) {
		json_object_object_add(o, "method", json_object_new_string(capture_method_name(c)));
		json_object_object_add(o, "kdamond", json_object_new_int((int)capture_kdamond(c)));
		gethostname(host, sizeof(host) - 1);
		json_object_object_add(o, "hostname", json_object_new_string(host));
		if (!uname(&u))
			json_object_object_add(o, "kernel", json_object_new_string(u.release));
		json_object_object_add(o, "sysroot",
				       json_object_new_string(damonctl_get_sysroot(cli->ctx)));
	}
	if (source)
		json_object_object_add(o, "converted_from", json_object_new_string(source));
	if (source && ro->subset) {
		json_object *sub = json_object_new_object();

		if (kept->have_time) {
			json_object_object_add(sub, "from_us",
					       json_object_new_uint64(kept->sel.time_from_us));
			if (kept->sel.time_to_us != UINT64_MAX)
				json_object_object_add(sub, "to_us", json_object_new_uint64(
					kept->sel.time_to_us));
		}
		if (kept->have_addr) {
			json_object_object_add(sub, "address_start",
					       json_object_new_uint64(kept->sel.addr_start));
			json_object_object_add(sub, "address_end",
					       json_object_new_uint64(kept->sel.addr_end));
		}
		if (kept->cap.kdamond >= 0)
			json_object_object_add(sub, "kdamond",
					       json_object_new_int(kept->cap.kdamond));
		if (kept->target >= 0)
			json_object_object_add(sub, "target", json_object_new_int(kept->target));
		if (ro->aggregate_us)
			json_object_object_add(sub, "aggregate_us",
					       json_object_new_uint64(ro->aggregate_us));
		json_object_object_add(o, "subset", sub);
	}
	s = strdup(json_object_to_json_string_ext(o, DAMONC_JSON_PLAIN));
	json_object_put(o);
	return s;
}

static int write_error(struct cli *cli, int r)
{
	struct record_opts *ro = cli->opts;

	if (r == -EPIPE)
		return 0;
	if (!strcmp(ro->output, "-"))
		usage_error(cli, "writing the record to standard output: %s", strerror(-r));
	else
		usage_error(cli, "writing '%s': %s", ro->output, strerror(-r));
	return EXIT_FAIL;
}

/* What -i copies: everything but the footprints when --no-footprints says so. */
static bool keep_item(const struct record_opts *ro, const struct damonctl_rec_item *it)
{
	return !(ro->cap.no_footprints && it->type == DAMONCTL_REC_FOOTPRINT);
}

/* -i into damonc's format: a damo record converted, or a damonc one copied, whole or with a
 * selection (the snapshots, clipped, and the stats and configurations it keeps), streamed. */
static int copy_record(struct cli *cli)
{
	struct record_opts *ro = cli->opts;
	struct damonctl_rec_writer *w = NULL;
	struct damonctl_rec_merger *m = NULL;
	const struct damonctl_rec_snapshot *merged;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct rin *in;
	struct rec_out out;
	char *info;
	int r, e, e2;

	ro->sub.input = ro->input;
	ro->sub.cap.kdamond = ro->cap.kdamond;
	e = rin_open_of(cli, &ro->sub, false, 0, &in);
	if (e)
		return e;
	rin_all_series(in);
	e = out_open(cli, &out);
	if (!e)
		e = out_begin(cli, &out);
	if (e) {
		out_abandon(cli, &out);
		rin_close(in);
		return e;
	}
	info = info_json(cli, NULL, ro->input);
	r = damonctl_rec_writer_new(out.fd, ro->no_compress ? 0 : DAMONCTL_REC_COMPRESS, info,
				    &w);
	free(info);
	if (!r && ro->aggregate_us)
		r = damonctl_rec_merger_new(ro->aggregate_us, &m);
	e = 0;
	while (!r) {
		r = rin_next(in, &it);
		if (r != 1) {
			if (r < 0) {	/* reported: an exit code */
				e = -r;
				r = 0;
			}
			break;
		}
		if (m && it.type == DAMONCTL_REC_SNAPSHOT) {
			r = damonctl_rec_merger_add(m, it.snapshot, &merged);
			if (r == 1)
				r = damonctl_rec_write_snapshot(w, merged);
			continue;
		}
		r = keep_item(ro, &it) ? record_write_item(w, &it) : 0;
	}
	/* the windows still open at the end, before END */
	while (m && !r && !e && (r = damonctl_rec_merger_flush(m, &merged)) == 1)
		r = damonctl_rec_write_snapshot(w, merged);
	damonctl_rec_merger_free(m);
	if (r < 0 || e) {
		if (w)
			damonctl_rec_writer_finish(w, -1);
		e = e ? e : write_error(cli, r);
	} else {
		r = damonctl_rec_writer_finish(w, DAMONCTL_REC_END_CONVERTED);
		e = r ? write_error(cli, r) : EXIT_OK;
	}
	e = out_close(cli, &out, e);
	e2 = rin_close(in);
	return e ? e : e2;
}

/* -i --format damo-json|damo-zlib: a whole record in damo's format. */
static int export_damo(struct cli *cli)
{
	struct record_opts *ro = cli->opts;
	struct record_in in;
	struct rec_out out;
	int r, e;

	e = record_in_open(cli, ro->input, true, &in);
	if (e)
		return e;
	e = out_open(cli, &out);
	if (!e)
		e = out_begin(cli, &out);
	if (e) {
		out_abandon(cli, &out);
		record_in_close(&in);
		return e;
	}
	r = damonctl_rec_export_damo(in.r, out.fd, ro->format == FMT_DAMO_ZLIB);
	e = r ? usage_error(cli, "converting '%s' to damo's format: %s", ro->input,
			    strerror(-r)), EXIT_FAIL : EXIT_OK;
	e = out_close(cli, &out, e);
	if (!e)
		e = record_in_report_loss(cli, &in);
	record_in_close(&in);
	return e;
}

/* On a terminal, one line on stderr that each snapshot redraws: elapsed time, snapshots,
 * bytes written (as perf record and dd status=progress show how far they are). */
static void show_progress(uint64_t t0, uint64_t nr, uint64_t bytes)
{
	char sz[32];

	fprintf(stderr, "\rdamonc: record: %.1f s, %" PRIu64 " snapshot%s, %s\033[K",
		(double)(capture_now_ns() - t0) / 1e9, nr, nr == 1 ? "" : "s",
		fmt_size(bytes, sz, sizeof(sz)));
	fflush(stderr);
}

/* A record that could not keep its interval says so, and why (stderr). */
static void warn_pace(const struct damonctl_capture_pace *p)
{
	char iv[32], late[32];

	if (!p->missed)
		return;
	fmt_time(p->interval_us, iv, sizeof(iv));
	fmt_time(p->max_late_us, late, sizeof(late));
	fprintf(stderr, "damonc: record: warning: missed %" PRIu64 " of %" PRIu64 " snapshots due "
		"every %s: ", p->missed, p->missed + p->taken, iv);
	if (p->trace)
		fprintf(stderr, "the trace's events came up to %s late (the kdamond was held up, "
			"or events were lost)\n", late);
	else if (p->mean_work_us * 10 >= p->interval_us * 8)
		fprintf(stderr, "taking one takes %.1f ms, about the interval or more: ask for a "
			"longer --interval (or fewer regions)\n", (double)p->mean_work_us / 1000);
	else
		fprintf(stderr, "damonc ran up to %s late although taking one takes %.1f ms (a "
			"busy machine left it no CPU)\n", late, (double)p->mean_work_us / 1000);
}

static json_object *pace_json(const struct damonctl_capture_pace *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "interval_us", json_object_new_uint64(p->interval_us));
	json_object_object_add(o, "taken", json_object_new_uint64(p->taken));
	json_object_object_add(o, "missed", json_object_new_uint64(p->missed));
	json_object_object_add(o, "mean_work_us", p->trace ? NULL :
			       json_object_new_uint64(p->mean_work_us));
	json_object_object_add(o, "max_late_us", json_object_new_uint64(p->max_late_us));
	return o;
}

/* --profile: perf (@prof) is profiling before anything is changed in the kernel (0 or an exit
 * code; nothing to do without --profile). */
static int profile_begin(struct cli *cli, struct perf_profile *prof)
{
	struct record_opts *ro = cli->opts;

	if (!ro->profile)
		return 0;
	return perf_profile_start(cli, ro->perf ? ro->perf : "perf", ro->profile_file, prof);
}

/* The summary's profile: where, on which clock, and how perf ended. */
static void profile_summary(const struct record_opts *ro, const struct perf_profile *prof,
			    bool text, json_object *doc)
{
	char how[48];
	int st = prof->status;

	if (!ro->profile)
		return;
	perf_profile_outcome(prof, how, sizeof(how));
	if (text && perf_profile_ok(prof))
		fprintf(stderr, "damonc: record: profile '%s' (perf %s)\n", ro->profile_file, how);
	if (doc) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "file", json_object_new_string(ro->profile_file));
		json_object_object_add(p, "clockid", json_object_new_string(PERF_PROFILE_CLOCK));
		json_object_object_add(p, "perf_status", st < 0 ? NULL : json_object_new_int(
			WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)));
		json_object_object_add(p, "complete",
				       json_object_new_boolean(perf_profile_ok(prof)));
		json_object_object_add(doc, "profile", p);
	}
}

/* record --json to a file: the summary as one document. */
static void print_summary_json(const struct record_opts *ro, const struct perf_profile *prof,
			       struct capture *c, bool started, uint64_t nr, uint64_t bytes,
			       enum damonctl_rec_end_reason why, uint64_t cpu0,
			       const struct damonctl_capture_pace *pace, int cmd_status)
{
	json_object *doc = json_doc_new();

	json_object_object_add(doc, "output", json_object_new_string(ro->output));
	json_object_object_add(doc, "kdamond", json_object_new_int((int)capture_kdamond(c)));
	json_object_object_add(doc, "snapshots", json_object_new_uint64(nr));
	json_object_object_add(doc, "bytes", json_object_new_uint64(bytes));
	json_object_object_add(doc, "end_reason", json_object_new_string(
		damonctl_rec_end_reason_name(why)));
	json_object_object_add(doc, "cpu_ns_per_snapshot", json_object_new_uint64(
		nr ? (capture_cpu_ns() - cpu0) / nr : 0));
	json_object_object_add(doc, "pace", pace_json(pace));
	if (started)
		json_object_object_add(doc, "started_kdamond", json_object_new_boolean(true));
	if (cmd_status >= 0)
		json_object_object_add(doc, "command_status", json_object_new_int(
			WIFEXITED(cmd_status) ? WEXITSTATUS(cmd_status) :
			128 + WTERMSIG(cmd_status)));
	profile_summary(ro, prof, false, doc);
	json_doc_print(doc);
}

/* @h: the kdamond it started (NULL: record a running one); @prof: --profile's perf, stopped
 * after the last snapshot; *@cmd_status: the launched command's wait status when it ended
 * the recording, else -1 */
static int record_live(struct cli *cli, struct perf_profile *prof, struct start_handoff *h,
		       struct rec_out *out, int *cmd_status)
{
	struct record_opts *ro = cli->opts;
	struct damonctl_rec_writer *w = NULL;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct capture *c;
	uint64_t cpu0, t0, nr = 0;
	bool progress;
	char *info, cmd_note[64] = "";
	int fd, r, wr, e, e2, pe;

	*cmd_status = -1;
	capture_catch_signals();
	/* a kdamond record started has its profile already: it began before the start */
	e = h ? 0 : profile_begin(cli, prof);
	if (!e)
		e = capture_start(cli, &ro->cap, &c);
	if (e)
		return e;	/* record_modes() abandons the file */
	e = out_begin(cli, out);
	if (e) {
		capture_finish(c);
		return e;
	}
	fd = out->fd;
	cpu0 = capture_cpu_ns();
	t0 = capture_now_ns();
	info = info_json(cli, c, NULL);
	r = damonctl_rec_writer_new(fd, ro->no_compress ? 0 : DAMONCTL_REC_COMPRESS, info, &w);
	free(info);
	/* wr: -errno of the writer; r: also capture_next's exit codes, negated (-1 is
	 * -EXIT_FAIL there, not -EPERM) */
	wr = r;
	progress = isatty(STDERR_FILENO);
	if (progress && w)
		show_progress(t0, 0, damonctl_rec_writer_bytes(w));
	while (!r && (r = capture_next(c, &it)) == 1) {
		r = wr = record_write_item(w, &it);
		nr += it.type == DAMONCTL_REC_SNAPSHOT;
		if (progress && it.type == DAMONCTL_REC_SNAPSHOT)
			show_progress(t0, nr, damonctl_rec_writer_bytes(w));
	}
	if (progress)
		fputs("\r\033[K", stderr);	/* the summary takes the line */
	pe = perf_profile_stop(cli, prof);	/* the last snapshot was taken */
	if (r == -EPIPE)
		capture_request_end(c, DAMONCTL_REC_END_OUTPUT_CLOSED);
	if (wr < 0 && wr != -EPIPE) {
		/* a library error writing, its header's included (no writer then: -ENOSPC was
		 * taken for capture_next's exit code 28 and said nothing): say so, end the record
		 * honestly */
		e = write_error(cli, wr);
		capture_request_end(c, DAMONCTL_REC_END_ERROR);
	} else if (r < 0 && r != -EPIPE) {
		e = -r;		/* capture_next's exit code, already reported */
		capture_request_end(c, DAMONCTL_REC_END_ERROR);
	}
	if (h && h->child) {
		int st = *cmd_status = capture_child_status(c);

		if (st >= 0)
			snprintf(cmd_note, sizeof(cmd_note), "; the command %s %d",
				 WIFEXITED(st) ? "exited with status" : "was killed by signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		else
			snprintf(cmd_note, sizeof(cmd_note), "; the command is asked to end "
				 "(SIGTERM)");
	}
	if (w) {
		uint64_t bytes = damonctl_rec_writer_bytes(w);
		enum damonctl_rec_end_reason why = capture_end_reason(c);
		struct damonctl_capture_pace pace;

		capture_pace(c, &pace);
		r = damonctl_rec_writer_finish(w, r == -EPIPE ? -1 : (int)why);
		if (r && r != -EPIPE && !e)
			e = write_error(cli, r);
		if (!cli->json || fd == STDOUT_FILENO)
			fprintf(stderr, "damonc: record: %" PRIu64 " snapshots of kdamond %u, %.1f KiB "
				"in %.1f s (%s); %.3f ms of CPU per snapshot%s\n", nr,
				capture_kdamond(c), (double)bytes / 1024,
				(double)(capture_now_ns() - t0) / 1e9,
				damonctl_rec_end_reason_name(why),
				nr ? (double)(capture_cpu_ns() - cpu0) / 1e6 / (double)nr : 0.0,
				cmd_note);
		warn_pace(&pace);
		profile_summary(ro, prof, !cli->json || fd == STDOUT_FILENO, NULL);
		if (cli->json && fd != STDOUT_FILENO)
			print_summary_json(ro, prof, c, h != NULL, nr, bytes, why, cpu0, &pace,
					   *cmd_status);
	} else if (r < 0 && !e) {
		e = write_error(cli, r);
	}
	e = out_close(cli, out, e);
	e2 = capture_finish(c);
	return e ? e : e2 ? e2 : pe;
}

/* Start a kdamond for the targets, record it, and put the tree back as it was. */
static int record_started(struct cli *cli, struct perf_profile *prof, struct rec_out *out,
			  int argc, char **argv)
{
	struct record_opts *ro = cli->opts;
	struct start_handoff h = { .label = "record", .amend = capture_own_amend,
				  .data = &ro->cap };
	int e, e2, st;

	if (ro->cap.kdamond >= 0)
		return usage_error(cli, "--kdamond records a running kdamond; --pid, --regions, "
				   "--ops and '-- COMMAND' start one to record: not both");
	if (ro->cap.allow_foreign)
		return usage_error(cli, "--allow-foreign is for a kdamond damonc did not start; "
				   "with targets, record starts its own");
	if (!strcmp(ro->output, "-") && argc)
		return usage_error(cli, "-o -: the command's output would mix with the record");
	e = profile_begin(cli, prof);	/* before the kernel is touched */
	if (e)
		return e;
	ro->cap.method = damonctl_capture_method_for(cli->ctx, ro->cap.method);
	if (ro->cap.method == DAMONCTL_CAPTURE_TRACE && !damonctl_trace_has_event(cli->ctx, "damon/damon_aggregated")) {
		usage_error(cli, "--method trace: no damon_aggregated event in tracefs; "
			    "--method tried-regions works without it");
		return EXIT_UNSUPPORTED;
	}
	/* a signal from here on ends the recording, and the kdamond goes */
	capture_catch_signals();
	e = start_handoff_run(cli, argc, argv, &h);
	if (e)
		return e;
	ro->cap.kdamond = (int)h.kdamond;
	ro->cap.child = h.child;
	e = record_live(cli, prof, &h, out, &st);
	e2 = start_handoff_undo(cli, &h);
	/* the kdamond is gone first: a command slow to end keeps nothing running */
	if (h.child && st < 0)
		capture_end_command(h.child);
	return e ? e : e2;
}

/* --profile's file (by default the record's + .profile, in @buf) and --perf: checked
 * before anything runs. */
static int profile_check(struct cli *cli, char *buf, size_t size)
{
	struct record_opts *ro = cli->opts;

	if (!ro->profile) {
		if (ro->perf)
			return usage_error(cli, "--perf '%s' is for --profile", ro->perf);
		return 0;
	}
	if (ro->input)
		return usage_error(cli, "--profile profiles a recording; -i converts a record: "
				   "not both");
	if (!ro->profile_file) {
		if (!strcmp(ro->output, "-"))
			return usage_error(cli, "--profile with -o -: name the profile's file "
					   "(--profile=FILE)");
		snprintf(buf, size, "%s.profile", ro->output);
		ro->profile_file = buf;
	}
	if (!strcmp(ro->profile_file, "-") || !strcmp(ro->profile_file, ro->output))
		return usage_error(cli, "--profile=%s: the profile needs a file of its own",
				   ro->profile_file);
	/* perf writes it by name: never a link or a device there */
	return output_check(cli, "--profile", ro->profile_file);
}

static int record_modes(struct cli *cli, struct perf_profile *prof, int argc, char **argv)
{
	struct record_opts *ro = cli->opts;

	if (ro->input) {
		if (capture_live_asked(&ro->cap) || ro->starts || argc)
			return usage_error(cli, "-i converts a record: --duration, --interval, "
					   "--count, --allow-foreign, --snapshot-damos-filter, "
					   "--tried-regions-of, targets and monitoring options do not "
					   "apply");
		if ((ro->subset || ro->cap.kdamond >= 0) && ro->format != FMT_DAMONC)
			return usage_error(cli, "--format %s converts a whole record: write the "
					   "subset in damonc's format, then convert it",
					   ro->format == FMT_DAMO_JSON ? "damo-json" : "damo-zlib");
		return ro->format == FMT_DAMONC ? copy_record(cli) : export_damo(cli);
	}
	if (ro->subset)
		return usage_error(cli, "--time-range, --address-range, --target and --aggregate "
				   "work on a record: they need -i FILE");
	if (ro->cap.of_scheme && (ro->starts || argc))
		return usage_error(cli, "--tried-regions-of records a running kdamond's scheme: a "
				   "kdamond record starts has none");
	if (capture_of_scheme_check(cli, &ro->cap, "records"))
		return EXIT_USAGE;
	if (ro->cap.of_scheme && ro->cap.method == DAMONCTL_CAPTURE_TRACE)
		return usage_error(cli, "--tried-regions-of reads the scheme's tried regions: "
				   "--method trace takes none");
	if (ro->cap.nr_filters && ro->cap.method == DAMONCTL_CAPTURE_TRACE)
		return usage_error(cli, "--snapshot-damos-filter takes snapshots through a DAMOS "
				   "scheme's tried regions: --method trace's events carry no "
				   "filter-passed bytes");
	if (ro->format != FMT_DAMONC)
		return usage_error(cli, "--format %s needs -i (record in damonc's format, then "
				   "convert)", ro->format == FMT_DAMO_JSON ? "damo-json" : "damo-zlib");
	/* the file first: a refused -o leaves the tree as it was */
	struct rec_out out;
	int st, e = out_open(cli, &out);

	if (e)
		return e;
	e = ro->starts || argc ? record_started(cli, prof, &out, argc, argv) :
	    record_live(cli, prof, NULL, &out, &st);
	out_abandon(cli, &out);		/* when nothing was recorded */
	return e;
}

static int record_run(struct cli *cli, int argc, char **argv)
{
	/* the run's: --profile's perf, and the profile's name when it is the default one */
	struct perf_profile prof = { 0 };
	char prof_default[4096];
	int e = profile_check(cli, prof_default, sizeof(prof_default)), e2;

	if (e)
		return e;
	e = record_modes(cli, &prof, argc, argv);
	e2 = perf_profile_stop(cli, &prof);	/* an error ended the record before its loop */
	return e ? e : e2;
}

const struct cmd cmd_record = {
	.name = "record",
	.summary = "record a kdamond's monitoring results (regions over time) for 'damonc report'",
	.usage = "[-o FILE|-] [--kdamond N] [--duration TIME] [--interval TIME] [--count N]\n"
		 "              [--allow-foreign] [--no-compress] [--profile[=FILE]] [--perf PATH]\n"
		 "       damonc record (--pid PID ... | --ops paddr [--regions R] | -- COMMAND ARGS)\n"
		 "              [--sample TIME] [--aggr TIME] [--update TIME] [--nr-regions MIN,MAX]\n"
		 "              [-o FILE] [--duration TIME] [--interval TIME] [--count N]\n"
		 "              [--profile[=FILE]] [--perf PATH]\n"
		 "       damonc record -i FILE|- [-o FILE|-] [--format damonc|damo-json|damo-zlib]\n"
		 "              [--time-range A,B] [--address-range S-E] [--target N] [--aggregate TIME]\n\n"
		 "Where tracefs has DAMON's damon_aggregated event, snapshots come from it and\n"
		 "nothing is written to DAMON (--method trace). Otherwise (--method tried-\n"
		 "regions) each snapshot writes update_schemes_tried_regions to the kdamond's\n"
		 "state file, and a capture scheme is committed unless the kdamond has one\n"
		 "matching every region: then there is no read-only way to record. On a kdamond\n"
		 "damonc did not start this needs --allow-foreign; the kdamond's own\n"
		 "configuration is committed back at the end (SIGINT, SIGTERM, --duration,\n"
		 "--count, or the kdamond or its targets exiting).\n"
		 "A record cut short (kill -9) stays readable up to its last whole chunk.\n\n"
		 "Given targets, record starts a kdamond for them as 'damonc start' would (with\n"
		 "the capture scheme, or none with trace), records until --duration, --count,\n"
		 "SIGINT, SIGTERM or the targets' exit, then stops and removes it. With\n"
		 "'-- COMMAND' the recording ends when the command exits; the exit status is\n"
		 "record's own, the command's is in the summary.\n\n"
		 "--profile runs 'perf record -a -k CLOCK_REALTIME' from before the first snapshot\n"
		 "to the end of the recording: 'damonc report profile' shows its samples of the\n"
		 "times the record's regions had an access pattern.",
	.opts = record_opts_tbl,
	.init = record_opts_init,
	.parse = record_parse,
	.run = record_run,
	.opts_size = sizeof(struct record_opts),
	.opts_init = &(const struct record_opts){ .start = START_OPTS_INIT,
						   .cap = { .kdamond = -1 },
						   .output = "damonc.rec", .sub = RIN_OPTS_INIT },
};
