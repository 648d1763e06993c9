// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc monitor: record and report in a loop, as `damo monitor` does. Given targets (--pid,
 * --ops paddr, '-- COMMAND') it starts a kdamond of its own through start's code (start.h),
 * as `damonc record` does, or it captures a running one (--kdamond N, left running). The
 * capture (capture.h) is cut into windows of --delay; each window's snapshots are written,
 * as they come, to a record in memory (memfd) that the chosen report (report_window.h) reads
 * once the window ends: memory holds one window, never the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "report_window.h"
#include "spec.h"
#include "start.h"

extern const struct cmd cmd_start;

enum mon_report { MON_HEATMAP, MON_WSS, MON_ACCESS, MON_HOLISTIC };	/* --report's choices, in order */
static const char *const report_names[] = { "heatmap", "wss", "access", "holistic" };

struct monitor_opts {
	struct start_opts start;	/* first: start's code reads them at cli->opts */
	struct capture_opts cap;
	uint64_t delay_us;
	uint64_t count;			/* rounds; 0: until the end */
	enum mon_report report;
	bool no_clear;
	bool starts;			/* a target or monitoring option: a kdamond of its own */
};

/* above start's own keys (300...) and below spec.c's (400...): start parses the targets */
enum { O_DELAY = 350, O_REPORT, O_COUNT, O_KDAMOND, O_NO_CLEAR, O_FOREIGN, O_SNAP_FILTER };

#define TO(kind, member) OPT_TO(kind, struct monitor_opts, member)
static const struct opt monitor_opts[] = {
	{ "delay", O_DELAY, OV_TIME, "TIME", "report every TIME of monitoring (default: 3s)" },
	{ "report", O_REPORT, OV_FORMAT, "heatmap|wss|access|holistic", "what each round shows: "
	  "heatmap (default, sized to the terminal), wss, access or holistic, as 'damonc report' "
	  "shows them" },
	{ "count", O_COUNT, OV_INT, "N", "stop after N rounds (default 0: until the command "
	  "exits, SIGINT or SIGTERM)", TO(OD_U64, count), .max = UINT32_MAX },
	{ "kdamond", O_KDAMOND, OV_INT, "N", "monitor the running kdamond N (left running) "
	  "instead of starting one", TO(OD_INT, cap.kdamond), .max = 1u << 20 },
	{ "no-clear", O_NO_CLEAR, OV_NONE, NULL, "do not clear the terminal between rounds",
	  TO(OD_FLAG, no_clear) },
	{ "allow-foreign", O_FOREIGN, OV_NONE, NULL, "with --kdamond: allow writing to a kdamond "
	  "damonc did not start (see damonc-record(1))", TO(OD_FLAG, cap.allow_foreign) },
	CAPTURE_FILTER_OPT(O_SNAP_FILTER),
	{ 0 },
};
#undef TO

static struct opt monitor_opts_tbl[48];

static void monitor_opts_init(void)
{
	const struct opt *tables[] = { monitor_opts, start_target_opts, spec_context_opts };
	static const char *const skip[] = { "pause", "resume", NULL };

	opts_merge(monitor_opts_tbl, 48, skip, tables, 3);
}

static int monitor_parse(struct cli *cli, int key, const char *arg)
{
	struct monitor_opts *mo = cli->opts;
	int i;

	switch (key) {
	case O_DELAY:
		if (parse_time_opt(cli, "delay", arg, &mo->delay_us))
			return EXIT_USAGE;
		if (mo->delay_us < 10000)
			return usage_error(cli, "--delay '%s': at least 10ms", arg);
		return check_wait(cli, "delay", arg, mo->delay_us);
	case O_SNAP_FILTER:
		return capture_parse_filter(cli, &mo->cap, arg);
	case O_REPORT:
		i = opt_choice(cli, monitor_opts, O_REPORT, arg);
		if (i < 0)
			return EXIT_USAGE;
		mo->report = (enum mon_report)i;
		/* holistic's distributions include the targets' and the system's memory */
		mo->cap.no_footprints = mo->report != MON_HOLISTIC;
		return 0;
	}
	/* --pid, --ops, the intervals...: what start takes for the kdamond */
	mo->starts = true;
	return cmd_start.parse(cli, key, arg);
}

/* One window of the capture, written as a record to memory as its snapshots come. */
struct window {
	int fd;				/* memfd */
	char path[40];			/* /proc/self/fd/N: what the report opens */
	struct damonctl_rec_writer *w;	/* NULL until its first snapshot */
	uint64_t start_ns, end_ns;	/* CLOCK_REALTIME, as snapshots' times */
	uint64_t nr;			/* snapshots */
	char *config;			/* the capture's last CONFIG item, which each record needs */
	uint64_t config_ns;
	char *footprint;		/* one taken after the window's end, for the next one */
	uint64_t footprint_ns;
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int window_open(struct window *win)
{
	int r;

	if (win->w)
		return 0;
	if (ftruncate(win->fd, 0) || lseek(win->fd, 0, SEEK_SET) < 0)
		return -errno;
	r = damonctl_rec_writer_new(win->fd, 0, NULL, &win->w);
	if (!r && win->config)
		r = damonctl_rec_write_config(win->w, win->config_ns, win->config);
	return r;
}

static int window_add(struct window *win, const struct damonctl_rec_snapshot *s)
{
	int r = window_open(win);

	if (r)
		return r;
	win->nr++;
	return damonctl_rec_write_snapshot(win->w, s);
}

/* A memory footprint (holistic's distributions) in the window whose time it was taken in:
 * one taken after this window's end waits for the next. */
static int window_footprint(struct window *win, uint64_t time_ns, const char *json)
{
	int r;

	if (time_ns >= win->end_ns) {
		free(win->footprint);
		win->footprint = strdup(json);
		win->footprint_ns = time_ns;
		return win->footprint ? 0 : -ENOMEM;
	}
	r = window_open(win);
	return r ? r : damonctl_rec_write_footprint(win->w, time_ns, json);
}

/* The next window: the footprint that waited for it, if it falls in it. */
static int window_next(struct window *win, uint64_t delay_ns)
{
	char *fp = win->footprint;
	int r = 0;

	win->start_ns = win->end_ns;
	win->end_ns += delay_ns;
	if (fp && win->footprint_ns < win->end_ns) {
		win->footprint = NULL;
		r = window_footprint(win, win->footprint_ns, fp);
		free(fp);
	}
	return r;
}

static int window_config(struct window *win, const struct damonctl_rec_item *it)
{
	free(win->config);
	win->config = strdup(it->json);
	win->config_ns = it->time_ns;
	if (!win->config)
		return -ENOMEM;
	return win->w ? damonctl_rec_write_config(win->w, it->time_ns, it->json) : 0;
}

/* The text heatmap fills the terminal's width (80 columns elsewhere), its labels included:
 * an address (0x and 16 digits) and " |" before the cells, "|" after them. */
static unsigned int heatmap_columns(void)
{
	struct winsize ws;
	unsigned int cols = 80;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		cols = ws.ws_col;
	return cols - 21;
}

static int run_report(struct cli *cli, const struct window *win)
{
	struct monitor_opts *mo = cli->opts;

	switch (mo->report) {
	case MON_HEATMAP:
		return report_heatmap_of(cli, win->path, heatmap_columns(), 20);
	case MON_WSS:
		return report_wss_of(cli, win->path);
	case MON_ACCESS:
		return report_access_of(cli, win->path);
	case MON_HOLISTIC:
		return report_holistic_of(cli, win->path);
	}
	return EXIT_FAIL;
}

/* The report's --json document, parsed: it prints it on stdout, here a memfd. */
static int report_json(struct cli *cli, const struct window *win, json_object **doc)
{
	struct monitor_opts *mo = cli->opts;
	int fd = memfd_create("damonc-monitor-json", MFD_CLOEXEC), saved, e;
	json_object *in;
	off_t len;
	char *buf;

	*doc = NULL;
	if (fd < 0)
		return lib_error(cli, -errno, "a buffer for the report");
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		e = lib_error(cli, -errno, "a buffer for the report");
		close(fd);
		if (saved >= 0)
			close(saved);
		return e;
	}
	e = run_report(cli, win);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = lseek(fd, 0, SEEK_END);
	buf = len > 0 ? malloc((size_t)len + 1) : NULL;
	if (!e && buf && pread(fd, buf, (size_t)len, 0) == len) {
		buf[len] = 0;
		*doc = json_tokener_parse(buf);
	}
	if (!e && !*doc)
		e = (usage_error(cli, "the %s report gave no JSON", report_names[mo->report]),
		     EXIT_FAIL);
	/* its input is the window, not the descriptor that held it */
	if (*doc && json_object_object_get_ex(*doc, "input", &in) &&
	    json_object_is_type(in, json_type_object))
		json_object_object_add(in, "name", json_object_new_string("the window"));
	free(buf);
	close(fd);
	return e;
}

/* Close the window and show it: round @round, text or a JSON line. An exit code. */
static int show_round(struct cli *cli, struct window *win, uint64_t round, uint64_t t0)
{
	struct monitor_opts *mo = cli->opts;
	json_object *line, *w, *doc = NULL;
	int r = 0, e = EXIT_OK;

	if (win->w) {
		r = damonctl_rec_writer_finish(win->w, DAMONCTL_REC_END_DURATION);
		win->w = NULL;
		if (r)
			return lib_error(cli, r, "writing the window's record");
	}
	if (cli->json) {
		if (win->nr)
			e = report_json(cli, win, &doc);
		if (e)
			return e;
		line = json_doc_new();
		w = json_object_new_object();
		json_object_object_add(line, "round", json_object_new_uint64(round));
		json_object_object_add(w, "start_ns", json_object_new_uint64(win->start_ns));
		json_object_object_add(w, "end_ns", json_object_new_uint64(win->end_ns));
		json_object_object_add(w, "start_s", json_object_new_double(
			(double)(win->start_ns - t0) / 1e9));
		json_object_object_add(w, "end_s", json_object_new_double(
			(double)(win->end_ns - t0) / 1e9));
		json_object_object_add(line, "window", w);
		json_object_object_add(line, "snapshots", json_object_new_uint64(win->nr));
		json_object_object_add(line, "report",
				       json_object_new_string(report_names[mo->report]));
		json_object_object_add(line, "data", doc);
		e = json_line_print(line) ? EXIT_FAIL : EXIT_OK;
	} else {
		if (!mo->no_clear && isatty(STDOUT_FILENO))
			fputs("\033[H\033[2J", stdout);
		printf("round %" PRIu64 ": %.3f s to %.3f s of monitoring, %" PRIu64
		       " snapshot%s\n", round, (double)(win->start_ns - t0) / 1e9,
		       (double)(win->end_ns - t0) / 1e9, win->nr, win->nr == 1 ? "" : "s");
		if (win->nr)
			e = run_report(cli, win);
		else
			printf("no snapshot in this window\n");
	}
	if (fflush(stdout) || ferror(stdout))
		e = e ? e : EXIT_FAIL;	/* the reader went away: the end */
	win->nr = 0;
	return e;
}

/* The capture, cut into rounds until --count, its end or an error. An exit code. */
static int rounds(struct cli *cli, struct capture *c, struct window *win)
{
	struct monitor_opts *mo = cli->opts;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	uint64_t round = 0, t0 = realtime_ns();
	int r, e = EXIT_OK;

	win->start_ns = t0;
	win->end_ns = t0 + mo->delay_us * 1000;
	while ((r = capture_next(c, &it)) == 1) {
		if (it.type == DAMONCTL_REC_CONFIG) {
			r = window_config(win, &it);
		} else if (it.type == DAMONCTL_REC_SNAPSHOT) {
			/* a snapshot belongs to the window its aggregation ended in */
			while (it.snapshot->end_ns >= win->end_ns) {
				e = show_round(cli, win, ++round, t0);
				if (e || (mo->count && round >= mo->count)) {
					capture_request_end(c, e ? DAMONCTL_REC_END_ERROR :
							    DAMONCTL_REC_END_COUNT);
					return e;
				}
				r = window_next(win, mo->delay_us * 1000);
				if (r < 0)
					break;
			}
			if (r >= 0)
				r = window_add(win, it.snapshot);
		} else if (it.type == DAMONCTL_REC_FOOTPRINT) {
			r = window_footprint(win, it.time_ns, it.json);
		}
		if (r < 0) {
			capture_request_end(c, DAMONCTL_REC_END_ERROR);
			return lib_error(cli, r, "writing the window's record");
		}
	}
	if (r < 0)
		return -r;	/* capture_next's exit code, already reported */
	/* the targets ended: their last, shorter window is shown; a signal shows nothing more */
	if (win->nr && capture_end_reason(c) != DAMONCTL_REC_END_SIGNAL) {
		win->end_ns = realtime_ns();
		e = show_round(cli, win, ++round, t0);
	}
	return e;
}

/* Snapshots in a window: one a column of the heatmap, else ten (damo's heatmap has ten time
 * rows); no more than one an aggregation, which is all a snapshot can show. */
static uint64_t snapshot_interval(struct cli *cli)
{
	struct monitor_opts *mo = cli->opts;

	/* holistic's heatmaps have 60 time columns */
	uint64_t iv = mo->delay_us / (mo->report == MON_HEATMAP ? heatmap_columns() :
				     mo->report == MON_HOLISTIC ? 60 : 10), aggr;
	char rel[96], buf[32];

	snprintf(rel, sizeof(rel), "kdamonds/%d/contexts/0/monitoring_attrs/intervals/aggr_us",
		 mo->cap.kdamond);
	if (!damonctl_read(cli->ctx, rel, buf, sizeof(buf)) && !damonctl_parse_u64(buf, &aggr) &&
	    aggr > iv)
		iv = aggr;
	damonctl_clear_error(cli->ctx);
	return iv < 1000 ? 1000 : iv;
}

/* Capture kdamond mo->cap.kdamond in rounds; *@cmd_status: the launched command's wait
 * status when it ended, else -1. */
static int monitor_live(struct cli *cli, int *cmd_status)
{
	struct monitor_opts *mo = cli->opts;
	struct window win = { .fd = -1 };
	struct capture *c;
	int e, e2;

	*cmd_status = -1;
	capture_catch_signals();
	mo->cap.interval_us = snapshot_interval(cli);
	e = capture_start(cli, &mo->cap, &c);
	if (e)
		return e;
	win.fd = memfd_create("damonc-monitor", MFD_CLOEXEC);
	if (win.fd < 0) {
		e = lib_error(cli, -errno, "a buffer for the window");
		capture_request_end(c, DAMONCTL_REC_END_ERROR);
	} else {
		snprintf(win.path, sizeof(win.path), "/proc/self/fd/%d", win.fd);
		e = rounds(cli, c, &win);
	}
	if (win.w)
		damonctl_rec_writer_finish(win.w, -1);
	free(win.config);
	free(win.footprint);
	if (win.fd >= 0)
		close(win.fd);
	if (mo->cap.child)
		*cmd_status = capture_child_status(c);
	e2 = capture_finish(c);
	return e ? e : e2;
}

/* start_handoff_run, the launched command's standard output on /dev/null as damo monitor
 * has it: the screen is the reports' (its standard error stays, to say what went wrong). */
static int start_quiet(struct cli *cli, int argc, char **argv, struct start_handoff *h)
{
	int null = argc ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1, saved = -1, e;

	fflush(stdout);
	if (null >= 0) {
		saved = dup(STDOUT_FILENO);
		if (saved < 0 || dup2(null, STDOUT_FILENO) < 0) {
			if (saved >= 0)
				close(saved);
			saved = -1;
		}
		close(null);
	}
	e = start_handoff_run(cli, argc, argv, h);
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return e;
}

/* Start a kdamond for the targets, monitor it, and put the tree back as it was. */
static int monitor_started(struct cli *cli, int argc, char **argv)
{
	struct monitor_opts *mo = cli->opts;
	struct start_handoff h = { .label = "monitor", .amend = capture_own_amend,
				  .data = &mo->cap };
	int e, e2, st;

	mo->cap.method = damonctl_capture_method_for(cli->ctx, DAMONCTL_CAPTURE_AUTO);
	capture_catch_signals();
	e = start_quiet(cli, argc, argv, &h);
	if (e)
		return e;
	mo->cap.kdamond = (int)h.kdamond;
	mo->cap.child = h.child;
	e = monitor_live(cli, &st);
	e2 = start_handoff_undo(cli, &h);
	/* the kdamond is gone first: a command slow to end keeps nothing running */
	if (h.child && st < 0)
		capture_end_command(h.child);
	return e ? e : e2;
}

static int monitor_run(struct cli *cli, int argc, char **argv)
{
	struct monitor_opts *mo = cli->opts;

	if ((mo->starts || argc) && mo->cap.kdamond >= 0)
		return usage_error(cli, "--kdamond monitors a running kdamond; --pid, --ops and "
				   "'-- COMMAND' start one: not both");
	if (mo->starts || argc) {
		if (mo->cap.allow_foreign)
			return usage_error(cli, "--allow-foreign is for --kdamond; with targets, "
					   "monitor starts its own kdamond");
		return monitor_started(cli, argc, argv);
	}
	if (mo->cap.kdamond < 0)
		return usage_error(cli, "no target: --pid PID, --ops paddr, '-- COMMAND' or "
				   "--kdamond N");
	int st, pid, r = damonctl_kdamond_is_running(cli->ctx, (unsigned int)mo->cap.kdamond, &pid);

	damonctl_clear_error(cli->ctx);
	if (r != 1)
		return usage_error(cli, "--kdamond %d: no such kdamond is running (it monitors a "
				   "running one; give targets to start one)", mo->cap.kdamond);
	return monitor_live(cli, &st);
}

const struct cmd cmd_monitor = {
	.name = "monitor",
	.summary = "record and report in a loop: a heatmap, wss, access or holistic report "
		   "every --delay",
	.usage = "(--pid PID ... | --ops OPS [--regions R | --numa-node N] | -- COMMAND ARGS)\n"
		 "              [--sample TIME] [--aggr TIME] [--update TIME] [--nr-regions MIN,MAX]\n"
		 "              [--intervals-goal GOAL] [--refresh TIME] [--addr-unit SIZE]\n"
		 "              [--snapshot-damos-filter FILTER]... [--delay TIME]\n"
		 "              [--report heatmap|wss|access|holistic] [--count N] [--no-clear]\n"
		 "       damonc monitor --kdamond N [--allow-foreign] [--snapshot-damos-filter FILTER]...\n"
		 "              [--delay TIME] [--report heatmap|wss|access|holistic] [--count N]\n"
		 "              [--no-clear]\n\n"
		 "Every --delay (3s) it shows what the kdamond saw in that time, as 'damonc\n"
		 "report heatmap' (sized to the terminal), 'wss', 'access' or 'holistic' show a\n"
		 "record of it, until --count rounds, the command's exit, SIGINT or SIGTERM.\n"
		 "Given targets it starts a kdamond for them as 'damonc record' does, and stops\n"
		 "and removes it at the end; --kdamond N monitors a running one and leaves it\n"
		 "running. On a terminal the screen is cleared between rounds (--no-clear keeps\n"
		 "them). With --json, one JSON document a round, on its own line.",
	.opts = monitor_opts_tbl,
	.init = monitor_opts_init,
	.parse = monitor_parse,
	.run = monitor_run,
	.opts_size = sizeof(struct monitor_opts),
	.opts_init = &(const struct monitor_opts){ .start = START_OPTS_INIT,
						    .cap = { .kdamond = -1, .no_footprints = true },
						    .delay_us = 3000000 },
};
