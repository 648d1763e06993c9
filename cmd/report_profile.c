// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report profile: the perf profile 'damonc record --profile' took, restricted to the
 * times the record's snapshots had regions of an access pattern (damo's report profile).
 * The ranges are report times' (report_times.h); they go to 'perf report --time' as one
 * space-separated list (perf takes one --time: a second would replace the first). With
 * --json, perf's --stdio table is parsed into rows. Both clocks are CLOCK_REALTIME.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_times.h"

/* one argument of execve: at most MAX_ARG_STRLEN (32 pages) */
#define TIME_ARG_MAX (128 * 1024)

struct profile_opts {
	struct times_opts t;	/* first: its input's, which rin_parse and rin_open take */
	const char *profile, *perf;
	bool dry_run;
};

enum { O_PROFILE = 310, O_PERF, O_DRY_RUN };

#define TO(kind, member) OPT_TO(kind, struct profile_opts, member)
static const struct opt profile_opts[] = {
	{ "input", 'i', OV_FILE, "FILE", "read the record FILE ('-': stdin; damonc's or damo's "
	  "format; default: damonc.rec)", TO(OD_STRING, t.rin.input) },
	{ "profile", O_PROFILE, OV_FILE, "FILE", "the profile 'damonc record --profile' wrote "
	  "(default: the record's file + .profile)", TO(OD_STRING, profile) },
	{ "perf", O_PERF, OV_FILE, "PATH", "the perf to run (default: perf)" },
	{ "dry-run", O_DRY_RUN, OV_NONE, NULL, "print the perf command line instead of running "
	  "it", TO(OD_FLAG, dry_run) },
	{ "kdamond", 500, OV_INT, "N", "only kdamond N" },
	{ "target", 501, OV_INT, "N", "only target N (default: the first series of the record)" },
	{ "time-range", 502, OV_RANGE, "START,END", "only snapshots that ended from START to END "
	  "after the record began (e.g. 5s,1m; either may be empty)" },
	{ "address-range", 503, OV_REGION, "START-END", "only memory in [START, END)" },
	PATTERN_OPTS,
	{ "snapshot-size", 300, OV_RANGE, "MIN,MAX", "only snapshots whose regions of the "
	  "pattern total MIN to MAX bytes (damo's --sz_snapshot; e.g. 1GiB,)" },
	{ 0 },
};
#undef TO

static int profile_parse(struct cli *cli, int key, const char *arg)
{
	struct profile_opts *po = cli->opts;
	int r;

	if (key == O_PERF) {
		if (!*arg)
			return usage_error(cli, "--perf '': expected perf's path");
		po->perf = arg;
		return 0;
	}
	r = times_sel_parse(cli, &po->t.sel, key, arg);
	return r >= 0 ? r : EXIT_USAGE;
}

/* The ranges: perf's --time value ("S.NNNNNNNNN,E.NNNNNNNNN ...") and, for JSON, a list. */
struct ranges {
	char *arg;
	size_t len;
	uint64_t nr;
	json_object *list;	/* NULL without --json */
	const struct rin *in;
	json_object *series;	/* with --json: the series the ranges are of */
	bool too_many;
};

static int add_range(void *data, const struct damonctl_access_span *sp)
{
	struct ranges *rg = data;
	char one[64];
	int n = snprintf(one, sizeof(one), "%s%" PRIu64 ".%09" PRIu64 ",%" PRIu64 ".%09" PRIu64,
			 rg->nr ? " " : "", sp->start_ns / 1000000000, sp->start_ns % 1000000000,
			 sp->end_ns / 1000000000, sp->end_ns % 1000000000);

	rg->nr++;
	if (rg->len + (size_t)n >= TIME_ARG_MAX) {
		rg->too_many = true;	/* said once the count is known */
		return 0;
	}
	memcpy(rg->arg + rg->len, one, (size_t)n + 1);
	rg->len += (size_t)n;
	if (rg->list) {
		json_object *e = json_object_new_object();
		uint64_t b = rin_base_ns(rg->in);

		json_object_object_add(e, "start_ns", json_object_new_uint64(sp->start_ns));
		json_object_object_add(e, "end_ns", json_object_new_uint64(sp->end_ns));
		json_object_object_add(e, "start_us", json_object_new_uint64(
			sp->start_ns > b ? (sp->start_ns - b) / 1000 : 0));
		json_object_object_add(e, "end_us", json_object_new_uint64(
			sp->end_ns > b ? (sp->end_ns - b) / 1000 : 0));
		json_object_object_add(e, "snapshots", json_object_new_uint64(sp->snapshots));
		json_object_array_add(rg->list, e);
	}
	return 0;
}

/* The record's time ranges of the pattern: 0, or an exit code after saying why (1: none). */
static int read_ranges(struct cli *cli, struct ranges *rg)
{
	const struct profile_opts *po = cli->opts;
	struct rin *in;
	uint64_t seen;
	int e, e2;

	rg->arg = calloc(1, TIME_ARG_MAX);
	if (!rg->arg)
		return oom_error(cli);
	e = rin_open(cli, false, 0, &in);
	if (e)
		return e;
	rg->in = in;
	e = times_scan(in, &po->t.sel, add_range, rg, &seen);
	if (rg->list && seen)
		rg->series = rin_series_json(in);
	if (!e && !seen)
		e = (usage_error(cli, "no snapshot in %s matches the selection",
				 rin_input_name(in)), EXIT_FAIL);
	else if (!e && !rg->nr)
		e = (usage_error(cli, "no snapshot in %s has regions of the pattern: no time to "
				 "profile", rin_input_name(in)), EXIT_FAIL);
	else if (!e && rg->too_many)
		e = usage_error(cli, "%" PRIu64 " time ranges are more than perf's command line "
				"takes: narrow them (--time-range, the pattern)", rg->nr);
	e2 = rin_close(in);
	return e ? e : e2;
}

/* perf report's arguments: ours, then the user's (after '--'); NULL-terminated. */
static char **perf_argv(const struct profile_opts *po, const struct ranges *rg, bool stdio,
			int argc, char **argv)
{
	char **a = calloc((size_t)argc + 16, sizeof(*a));
	int n = 0;

	if (!a)
		return NULL;
	a[n++] = (char *)po->perf;
	a[n++] = "report";
	a[n++] = "-i";
	a[n++] = (char *)po->profile;
	a[n++] = "--time";
	a[n++] = rg->arg;
	if (stdio) {	/* the columns the rows are parsed from */
		a[n++] = "--stdio";
		a[n++] = "-n";
		a[n++] = "--sort";
		a[n++] = "comm,dso,sym";
		a[n++] = "--field-separator=\t";
	}
	for (int i = 0; i < argc; i++)
		a[n++] = argv[i];
	return a;
}

/* Run perf (its stdout into @out_fd when not -1). Its exit code, or an exit code of ours
 * after saying why it could not run. */
static int run_perf(struct cli *cli, char **a, int out_fd)
{
	const struct profile_opts *po = cli->opts;
	int err[2], st, e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(err, O_CLOEXEC))
		return usage_error(cli, "pipe: %s", strerror(errno)), EXIT_FAIL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return usage_error(cli, "fork: %s", strerror(errno)), EXIT_FAIL;
	if (!pid) {
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		execvp(a[0], a);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(err[1]);
	while ((n = read(err[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(err[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n == sizeof(e))
		return usage_error(cli, "--perf '%s': cannot run it: %s%s", po->perf, strerror(e),
				   e == ENOENT ? " (install perf: Debian's linux-perf)" : "");
	if (WIFEXITED(st))
		return WEXITSTATUS(st) ? EXIT_FAIL : 0;
	return EXIT_FAIL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n'))
		*--e = 0;
	return s;
}

/* perf report --stdio -n --sort comm,dso,sym -t TAB: "# Samples: N  of event 'E'" heads
 * each event's table, whose rows are overhead%, samples, command, object, symbol. */
static json_object *parse_rows(FILE *f)
{
	json_object *rows = json_object_new_array();
	char line[8192], event[256] = "";

	while (fgets(line, sizeof(line), f)) {
		char *col[5], *p = line, *q;
		int n = 0;

		if (!strncmp(line, "# Samples: ", 11) && (q = strstr(line, "of event '"))) {
			snprintf(event, sizeof(event), "%s", q + 10);
			if ((q = strchr(event, '\'')))
				*q = 0;
			continue;
		}
		if (line[0] == '#' || !strchr(line, '%'))
			continue;
		while (n < 5 && (q = strsep(&p, "\t")))
			col[n++] = trim(q);
		if (n < 5)
			continue;
		json_object *r = json_object_new_object();

		json_object_object_add(r, "event", json_object_new_string(event));
		json_object_object_add(r, "overhead_percent", json_object_new_double(
			strtod(col[0], NULL)));
		json_object_object_add(r, "samples", json_object_new_uint64(
			strtoull(col[1], NULL, 10)));
		json_object_object_add(r, "command", json_object_new_string(col[2]));
		json_object_object_add(r, "shared_object", json_object_new_string(col[3]));
		json_object_object_add(r, "symbol", json_object_new_string(col[4]));
		json_object_array_add(rows, r);
	}
	return rows;
}

/* --json: the ranges, the command, and perf's rows (none with --dry-run). */
static int profile_json(struct cli *cli, struct ranges *rg, char **a)
{
	const struct profile_opts *po = cli->opts;
	json_object *doc = json_doc_new(), *cmd = json_object_new_array();
	FILE *f = NULL;
	int e = 0;

	for (char **p = a; *p; p++)
		json_object_array_add(cmd, json_object_new_string(*p));
	json_object_object_add(doc, "input", json_object_new_string(po->t.rin.input));
	json_object_object_add(doc, "profile", json_object_new_string(po->profile));
	json_object_object_add(doc, "series", rg->series);
	json_object_object_add(doc, "ranges", rg->list);
	json_object_object_add(doc, "command", cmd);
	if (!po->dry_run) {
		f = tmpfile();
		if (!f)
			e = (usage_error(cli, "a temporary file: %s", strerror(errno)), EXIT_FAIL);
		if (!e)
			e = run_perf(cli, a, fileno(f));
		if (!e) {
			rewind(f);
			json_object_object_add(doc, "rows", parse_rows(f));
		}
		if (f)
			fclose(f);
	}
	rg->series = rg->list = NULL;	/* the document's */
	if (e) {
		json_object_put(doc);
		return e;
	}
	return json_doc_print(doc) ? EXIT_FAIL : 0;
}

/* --dry-run: the command, quoted for a shell. */
static void print_command(char **a)
{
	for (char **p = a; *p; p++) {
		bool plain = **p && strspn(*p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789,._-+=/:%") == strlen(*p);

		if (p != a)
			putchar(' ');
		if (plain) {
			fputs(*p, stdout);
			continue;
		}
		putchar('\'');
		for (const char *c = *p; *c; c++)
			if (*c == '\'')
				fputs("'\\''", stdout);
			else
				putchar(*c);
		putchar('\'');
	}
	putchar('\n');
}

/* The profile's file: --profile, or the record's + .profile; readable, or exit 2. */
static int profile_file(struct cli *cli, char *buf, size_t size)
{
	struct profile_opts *po = cli->opts;
	int fd;

	if (!po->t.rin.input)
		po->t.rin.input = RIN_DEFAULT_RECORD;
	if (!po->profile) {
		if (!strcmp(po->t.rin.input, "-"))
			return usage_error(cli, "-i -: name the profile with --profile FILE");
		snprintf(buf, size, "%s.profile", po->t.rin.input);
		po->profile = buf;
	}
	fd = open(po->profile, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return usage_error(cli, "--profile '%s': %s", po->profile, strerror(errno));
	close(fd);
	return 0;
}

static int profile_run(struct cli *cli, int argc, char **argv)
{
	const struct profile_opts *po = cli->opts;
	struct ranges rg = { 0 };
	char buf[4096], **a = NULL;
	int e;

	e = profile_file(cli, buf, sizeof(buf));
	if (!e && cli->json)
		rg.list = json_object_new_array();
	if (!e)
		e = read_ranges(cli, &rg);
	if (!e && !(a = perf_argv(po, &rg, cli->json, argc, argv)))
		e = oom_error(cli);
	if (!e && cli->json)
		e = profile_json(cli, &rg, a);
	else if (!e && po->dry_run)
		print_command(a);
	else if (!e)
		e = run_perf(cli, a, -1);
	json_object_put(rg.list);
	json_object_put(rg.series);
	free(rg.arg);
	free(a);
	return e;
}

const struct cmd cmd_report_profile = {
	.name = "profile",
	.summary = "the perf profile of 'record --profile' in the times of an access pattern",
	.usage = "[-i FILE|-] [--profile FILE] [--perf PATH] [--dry-run] [--size MIN,MAX]\n"
		 "       [--access-rate MIN,MAX] [--age MIN,MAX] [--address-range START-END]\n"
		 "       [--snapshot-size MIN,MAX] [--target N] [--time-range START,END] [--json]\n"
		 "       [-- PERF-REPORT-ARGS]\n\n"
		 "The time ranges are those of 'damonc report times' with the same options; perf\n"
		 "report shows the samples of the profile in them (--time). Arguments after '--'\n"
		 "go to perf report. --json parses 'perf report --stdio' into rows.",
	.opts = profile_opts,
	.parse = profile_parse,
	.run = profile_run,
	.opts_size = sizeof(struct profile_opts),
	.opts_init = &(const struct profile_opts){ .t = TIMES_OPTS_INIT, .perf = "perf" },
};
