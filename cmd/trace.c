// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc trace: DAMON's trace events as they happen (damo's `report trace`), or as a file
 * of trace_pipe, `trace-cmd report` or `perf script` lines has them (-i). Live, it reads
 * tracefs through an instance of its own (instances/damonc-trace-PID: the system's trace
 * buffer and anybody else's instance are left alone) and writes nothing under DAMON.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "damonc.h"
#include "lines.h"

#define MAX_EVENTS 32

struct trace_opts {
	const char *events, *no_events, *input, *output;
	bool raw;
	int kdamond;		/* -1: every thread's */
	uint64_t duration_us, count;
};

enum { O_EVENT = 300, O_NO_EVENT, O_KDAMOND, O_DURATION, O_COUNT, O_RAW };

#define TO(kind, member) OPT_TO(kind, struct trace_opts, member)
static const struct opt trace_opts_tbl[] = {
	{ "event", O_EVENT, OV_STRING, "EVENT[,EVENT...]",
	  "only these DAMON events (default: every one the kernel has)", TO(OD_STRING, events) },
	{ "no-event", O_NO_EVENT, OV_STRING, "EVENT[,EVENT...]", "not these events",
	  TO(OD_STRING, no_events) },
	{ "kdamond", O_KDAMOND, OV_INT, "N", "only the events of kdamond N's thread",
	  TO(OD_INT, kdamond) },
	{ "duration", O_DURATION, OV_TIME, "TIME", "stop after TIME", TO(OD_TIME, duration_us),
	  .positive = true, .max = DAMONCTL_WAIT_MAX_US },
	{ "count", O_COUNT, OV_INT, "N", "stop after N events", TO(OD_U64, count),
	  .max = UINT32_MAX, .positive = true },
	{ "input", 'i', OV_FILE, "FILE",
	  "read trace_pipe, trace-cmd report or perf script lines from FILE (- for stdin)",
	  TO(OD_STRING, input) },
	{ "output", 'o', OV_FILE, "FILE", "also save the events' lines to FILE (for -i)",
	  TO(OD_STRING, output) },
	{ "raw", O_RAW, OV_NONE, NULL, "print the lines as the tracer printed them",
	  TO(OD_FLAG, raw) },
	{ 0 },
};
#undef TO

/* The events to show: names, NUL-separated in @buf. */
struct selection {
	char buf[1024];
	const char *name[MAX_EVENTS];
	unsigned int nr;
};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* One of the DAMON events kernels have had (libdamonctl's list): a name outside it is taken
 * for a typo (exit 2), one in it that this kernel lacks for a missing feature (exit 3). */
static bool known(const char *name)
{
	const char *k;

	for (unsigned int i = 0; (k = damonctl_trace_damon_event(i, NULL)); i++)
		if (!strcmp(k, name))
			return true;
	return false;
}

static bool selected(const struct selection *s, const char *event)
{
	for (unsigned int i = 0; i < s->nr; i++)
		if (!strcmp(s->name[i], event))
			return true;
	return false;
}

/* Each name of --event and --no-event must be a DAMON event: in @have (the kernel's, live),
 * or one DAMON has had (-i). */
static int check_names(struct cli *cli, const char *opt, const char *list,
		       const struct selection *have)
{
	char name[64];

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (have ? selected(have, name) : known(name))
			continue;
		if (!known(name)) {
			char all[512] = "";
			const char *k;

			for (unsigned int i = 0; (k = damonctl_trace_damon_event(i, NULL)); i++)
				snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
					 i ? ", " : "", k);
			usage_error(cli, "%s '%s': no DAMON trace event has that name (%s)", opt,
				    name, all);
			return EXIT_USAGE;
		}
		usage_error(cli, "%s '%s': this kernel has no such DAMON trace event", opt, name);
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

static int add_event(void *data, const char *event)
{
	struct selection *have = data;
	size_t off = have->nr ? (size_t)(have->name[have->nr - 1] - have->buf) +
				strlen(have->name[have->nr - 1]) + 1 : 0;
	size_t n = strlen(event) + 1;

	if (have->nr < MAX_EVENTS && off + n <= sizeof(have->buf)) {
		memcpy(have->buf + off, event, n);
		have->name[have->nr++] = have->buf + off;
	}
	return 0;
}

/* The kernel's DAMON events (events/damon/ of tracefs). */
static int kernel_events(struct cli *cli, struct selection *have)
{
	char path[4096];
	int r = damonctl_trace_kernel_events(cli->ctx, add_event, have);

	if (r < 0) {
		damonctl_path(cli->ctx, DAMONCTL_BASE_TRACEFS, "events/damon", path, sizeof(path));
		usage_error(cli, "no DAMON trace events in %s (is tracefs mounted? a kernel "
			    "without CONFIG_TRACEPOINTS?)", path);
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

/* What to show: --event's names (or all of @from), less --no-event's. */
static void select_events(const struct trace_opts *to, const struct selection *from,
			  struct selection *s)
{
	size_t off = 0;

	for (unsigned int i = 0; i < from->nr; i++) {
		size_t n = strlen(from->name[i]) + 1;

		if ((to->events && !in_list(to->events, from->name[i])) ||
		    in_list(to->no_events, from->name[i]) || off + n > sizeof(s->buf))
			continue;
		memcpy(s->buf + off, from->name[i], n);
		s->name[s->nr++] = s->buf + off;
		off += n;
	}
}

/* --- printing ------------------------------------------------------------------------ */
struct printer {
	struct cli *cli;
	FILE *save;
	uint64_t shown;
	/* the region index within a snapshot, per event kind that prints regions */
	unsigned int region_idx[MAX_EVENTS];
	const struct selection *sel;
	struct damonctl_trace_event *ev;	/* the line being shown */
};

static int event_index(const struct selection *s, const char *event)
{
	for (unsigned int i = 0; i < s->nr; i++)
		if (!strcmp(s->name[i], event))
			return (int)i;
	return -1;
}

typedef struct damonctl_trace_event tev;

static json_object *field_json(const tev *t, unsigned int i)
{
	const char *text = damonctl_trace_event_field_text(t, i);
	unsigned int n = damonctl_trace_event_field_nr_values(t, i);
	json_object *a;

	if (text)
		return json_object_new_string(text);
	if (!damonctl_trace_event_field_is_list(t, i) && n == 1)
		return json_object_new_uint64(damonctl_trace_event_field_u64(t, i, 0));
	a = json_object_new_array();
	for (unsigned int j = 0; j < n; j++) {
		uint64_t v = damonctl_trace_event_field_u64(t, i, j);

		json_object_array_add(a, json_object_new_uint64(v));
	}
	return a;
}

/* A region event ("START-END: ..." with nr_regions) is one of a snapshot's regions: its
 * index, counted as damo does. -1 for other events. */
static int region_index(struct printer *p, const tev *t)
{
	const char *name = damonctl_trace_event_name(t);
	int nr = damonctl_trace_event_field_index(t, "nr_regions");
	int e = event_index(p->sel, name);
	uint64_t nr_regions = nr < 0 ? 0 : damonctl_trace_event_field_u64(t, (unsigned int)nr, 0);
	int idx;

	/* only the aggregation events print every region of a snapshot in turn */
	if (nr < 0 || damonctl_trace_event_field_index(t, "start") < 0 || e < 0 || !nr_regions ||
	    !strstr(name, "aggregated"))
		return -1;
	idx = (int)(p->region_idx[e] % nr_regions);
	p->region_idx[e] = (unsigned int)((idx + 1) % nr_regions);
	return idx;
}

static int print_json(const tev *t, int idx)
{
	json_object *o = json_object_new_object(), *f = json_object_new_object();
	int cpu = damonctl_trace_event_cpu(t);

	json_object_object_add(o, "format_version", json_object_new_int(DAMONC_JSON_FORMAT_VERSION));
	json_object_object_add(o, "ts_ns", json_object_new_uint64(damonctl_trace_event_ts_ns(t)));
	json_object_object_add(o, "task", json_object_new_string(damonctl_trace_event_task(t)));
	json_object_object_add(o, "pid", json_object_new_int(damonctl_trace_event_pid(t)));
	json_object_object_add(o, "cpu", cpu < 0 ? NULL : json_object_new_int(cpu));
	json_object_object_add(o, "event", json_object_new_string(damonctl_trace_event_name(t)));
	json_object_object_add(o, "region_index", idx < 0 ? NULL : json_object_new_int(idx));
	for (unsigned int i = 0; i < damonctl_trace_event_nr_fields(t); i++)
		json_object_object_add(f, damonctl_trace_event_field_key(t, i), field_json(t, i));
	json_object_object_add(o, "fields", f);
	return json_line_print(o);
}

static bool is_size(const char *key)
{
	return !strncmp(key, "sz_", 3) || !strcmp(key, "esz");
}

/* One field as key=VALUE, a list as key=V,V,..., a size with its human form after it. */
static void print_field(const tev *t, unsigned int i)
{
	const char *key = damonctl_trace_event_field_key(t, i);
	const char *text = damonctl_trace_event_field_text(t, i);
	unsigned int n = damonctl_trace_event_field_nr_values(t, i);
	char a[32], safe[64];

	printf(" %s=", key);
	if (text)
		printf("%s", safe_str(text, safe, sizeof(safe)));
	for (unsigned int j = 0; j < n; j++)
		printf("%s%" PRIu64, j ? "," : "", damonctl_trace_event_field_u64(t, i, j));
	if (n == 1 && is_size(key))
		printf(" (%s)", fmt_size(damonctl_trace_event_field_u64(t, i, 0), a, sizeof(a)));
}

/* "TIME TASK-PID EVENT fields": a region as START-END (SIZE) with its index, sizes with
 * their human form beside the exact number. */
static void print_text(const tev *t, int idx)
{
	int s = damonctl_trace_event_field_index(t, "start");
	int e = damonctl_trace_event_field_index(t, "end");
	uint64_t ts = damonctl_trace_event_ts_ns(t);
	char a[32], safe[64];

	printf("%" PRIu64 ".%06" PRIu64 " %s-%d %s", ts / 1000000000, ts % 1000000000 / 1000,
	       safe_str(damonctl_trace_event_task(t), safe, sizeof(safe)),
	       damonctl_trace_event_pid(t), damonctl_trace_event_name(t));
	for (unsigned int i = 0; i < damonctl_trace_event_nr_fields(t); i++) {
		if ((int)i == e)
			continue;
		if ((int)i == s && e >= 0) {
			uint64_t start = damonctl_trace_event_field_u64(t, i, 0);
			uint64_t end = damonctl_trace_event_field_u64(t, (unsigned int)e, 0);

			if (idx >= 0)
				printf(" region=%d", idx);
			printf(" %" PRIu64 "-%" PRIu64 " (%s)", start, end,
			       fmt_size(end - start, a, sizeof(a)));
			continue;
		}
		print_field(t, i);
	}
	putchar('\n');
}

/* One line: 1 when it was shown, 0 when it is no event or not one asked for, -1 output. */
static int show(struct printer *p, const char *line, int kdamond_pid)
{
	const struct trace_opts *to = p->cli->opts;
	const tev *t = p->ev;
	int idx;

	if (damonctl_trace_event_parse(p->ev, line) ||
	    !selected(p->sel, damonctl_trace_event_name(t)) ||
	    (kdamond_pid > 0 && damonctl_trace_event_pid(t) != kdamond_pid))
		return 0;
	idx = region_index(p, t);
	if (p->save && fprintf(p->save, "%s%s", line,
			       line[strlen(line) - 1] == '\n' ? "" : "\n") < 0)
		return -1;
	if (to->raw)
		printf("%s%s", line, line[strlen(line) - 1] == '\n' ? "" : "\n");
	else if (p->cli->json)
		return print_json(t, idx) ? -1 : 1;
	else
		print_text(t, idx);
	return output_flush(stdout) ? -1 : 1;
}

/* --- reading ------------------------------------------------------------------------- */
static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static bool done(const struct printer *p, uint64_t start_us)
{
	const struct trace_opts *to = p->cli->opts;

	return capture_stop_requested || (to->count && p->shown >= to->count) ||
	       (to->duration_us && now_us() - start_us >= to->duration_us);
}

/* Lines from @fd (trace_pipe, non-blocking) until done; 0 or an exit code. */
static int read_pipe(struct printer *p, int fd, int kdamond_pid)
{
	static char buf[1 << 16];
	uint64_t start = now_us();
	size_t len = 0;

	while (!done(p, start)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		char *nl = NULL, *line;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return lib_error(p->cli, n ? -errno : -EIO, "reading trace_pipe");
		len += (size_t)n;
		buf[len] = '\0';
		for (line = buf; !done(p, start) && (nl = strchr(line, '\n')); line = nl + 1) {
			int r;

			*nl = '\0';
			r = show(p, line, kdamond_pid);
			if (r < 0)
				return EXIT_FAIL;
			p->shown += (uint64_t)r;
		}
		len -= (size_t)(line - buf);	/* a line's beginning, for the next read */
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1)
			len = 0;	/* no event is that long: drop it */
	}
	return EXIT_OK;
}

static int read_file_lines(struct printer *p, FILE *in)
{
	const struct trace_opts *to = p->cli->opts;
	uint64_t start = now_us(), no = 0;
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	int rc = EXIT_OK;

	while (!done(p, start) && (n = lines_read(in, LINE_MAX_BYTES, &line, &cap)) > 0) {
		int r = show(p, line, 0);

		no++;
		if (r < 0) {
			rc = EXIT_FAIL;
			break;
		}
		p->shown += (uint64_t)r;
	}
	free(line);
	if (n == -EFBIG || n == -EILSEQ) {
		usage_error(p->cli, "-i '%s': line %" PRIu64 " %s: not a trace", to->input, no + 1,
			    n == -EFBIG ? "is longer than 64 KiB" : "holds a NUL byte");
		return EXIT_USAGE;
	}
	if (n < 0)
		return lib_error(p->cli, (int)n, "reading '%s'", to->input);
	return rc;
}

static int kdamond_pid(struct cli *cli, int *pid)
{
	struct trace_opts *to = cli->opts;
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	const char *state;
	int r = damonctl_tree_read(cli->ctx, &t);

	if (r)
		return lib_error(cli, r, "reading the DAMON tree");
	k = damonctl_tree_kdamond(t, to->kdamond);
	state = k ? damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE) : NULL;
	if (!k || !state || strcmp(state, "on")) {
		damonctl_tree_free(t);
		return usage_error(cli, "--kdamond %d: %s", to->kdamond,
				   k ? "it is not running" : "no such kdamond");
	}
	*pid = (int)damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID);
	damonctl_tree_free(t);
	return 0;
}

static int trace_live(struct cli *cli, struct printer *p, const struct selection *sel)
{
	struct trace_opts *to = cli->opts;
	const char *paths[MAX_EVENTS + 1] = { 0 };
	char file[256], filter[64];
	struct damonctl_trace_instance *inst;
	int pid = 0, r, fd;

	if (to->kdamond >= 0 && (r = kdamond_pid(cli, &pid)))
		return r;
	for (unsigned int i = 0; i < sel->nr; i++) {
		static char names[MAX_EVENTS][96];

		snprintf(names[i], sizeof(names[i]), "damon/%s", sel->name[i]);
		paths[i] = names[i];
	}
	/* instances of damonc traces that were killed before removing theirs */
	damonctl_trace_instance_remove_stale(cli->ctx, "damonc-trace", paths);
	r = damonctl_trace_instance_create(cli->ctx, "damonc-trace", &inst);
	if (r)
		return lib_error(cli, r, "creating a tracefs instance");
	snprintf(filter, sizeof(filter), "common_pid == %d", pid);
	for (unsigned int i = 0; !r && i < sel->nr; i++) {
		if (pid) {
			snprintf(file, sizeof(file), "events/%s/filter", paths[i]);
			r = damonctl_trace_instance_put(inst, file, filter);
		}
		snprintf(file, sizeof(file), "events/%s/enable", paths[i]);
		if (!r)
			r = damonctl_trace_instance_put(inst, file, "1");
	}
	fd = r ? r : damonctl_trace_instance_open_pipe(inst);
	if (fd < 0) {
		damonctl_trace_instance_remove(inst, paths);
		return lib_error(cli, fd, "enabling the DAMON trace events");
	}
	r = read_pipe(p, fd, pid);
	close(fd);
	damonctl_trace_instance_remove(inst, paths);
	return r;
}

static int trace_run(struct cli *cli, int argc, char **argv)
{
	struct trace_opts *to = cli->opts;
	struct selection have = { .nr = 0 }, sel = { .nr = 0 };
	struct printer p = { .cli = cli, .sel = &sel };
	FILE *in = NULL;
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (to->input && to->kdamond >= 0)
		return usage_error(cli, "--kdamond: not with -i (filter by the lines' pid "
				   "with grep)");
	if (to->raw && cli->json)
		return usage_error(cli, "--raw: not with --json");
	if (to->input) {
		const char *k;

		for (unsigned int i = 0; (k = damonctl_trace_damon_event(i, NULL)); i++)
			add_event(&have, k);
	} else if ((r = kernel_events(cli, &have))) {
		return r;
	}
	if ((r = check_names(cli, "--event", to->events, to->input ? NULL : &have)) ||
	    (r = check_names(cli, "--no-event", to->no_events, to->input ? NULL : &have)))
		return r;
	select_events(to, &have, &sel);
	if (!sel.nr)
		return usage_error(cli, "--no-event: leaves no event to trace");
	/* a regular file or stdin, never a FIFO or device waited on; -o never through a link
	 * or into a device */
	if (to->input && (r = lines_open(to->input, &in)))
		return input_error(cli, "-i", to->input, r);
	if (to->output) {
		/* 0600: the events hold the monitored processes' addresses */
		int fd = damonctl_file_open(to->output, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		p.save = fd < 0 ? NULL : fdopen(fd, "w");
		if (!p.save) {
			r = fd < 0 ? fd : -errno;
			if (fd >= 0)
				close(fd);
			if (in && in != stdin)
				fclose(in);
			return output_error(cli, "-o", to->output, r);
		}
	}
	if ((r = damonctl_trace_event_new(&p.ev))) {
		r = lib_error(cli, r, "allocating a trace event");
	} else {
		capture_catch_signals();
		r = in ? read_file_lines(&p, in) : trace_live(cli, &p, &sel);
		damonctl_trace_event_free(p.ev);
	}
	if (in && in != stdin)
		fclose(in);
	/* on disk before trace is done with it, as record's -o */
	if (p.save && (fflush(p.save) || fsync(fileno(p.save))) && !r)
		r = lib_error(cli, -errno, "writing %s", to->output);
	if (p.save && fclose(p.save) && !r)
		r = lib_error(cli, -errno, "writing %s", to->output);
	return r;
}

const struct cmd cmd_trace = {
	.name = "trace",
	.summary = "DAMON's trace events as they happen, or from a saved trace",
	.usage = "[--event E,...] [--no-event E,...] [--kdamond N] [--duration TIME] "
		 "[--count N] [-i FILE] [-o FILE] [--raw] [--json]",
	.opts = trace_opts_tbl,
	.run = trace_run,
	.opts_size = sizeof(struct trace_opts),
	.opts_init = &(const struct trace_opts){ .kdamond = -1 },
};
