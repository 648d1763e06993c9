// SPDX-License-Identifier: GPL-2.0-or-later
/* The CLI's side of a live capture (see capture.h); the capture is libdamonctl's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "journal.h"
#include "started.h"

struct capture {
	struct cli *cli;
	struct damonctl_capture *lc;
	int child;
	int child_status;		/* once reaped; -1 before */
};

volatile sig_atomic_t capture_stop_requested;
/* the capture a signal ends */
static struct damonctl_capture *volatile signal_capture;

static void on_signal(int sig)
{
	(void)sig;
	capture_stop_requested = 1;
	if (signal_capture)
		damonctl_capture_request_end(signal_capture, DAMONCTL_REC_END_SIGNAL);
}

void capture_catch_signals(void)
{
	/* no SA_RESTART: a sleep between snapshots ends at once */
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed output shows as EPIPE */
}

uint64_t capture_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t capture_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/* damonc's run directory: where the capture leaves its note. */
static const char *state_dir(struct damonctl_ctx *ctx, char *buf, size_t size)
{
	return run_path(ctx, NULL, buf, size) < 0 ? NULL : buf;
}

/* Pick the kdamond: the one asked for, or the one running kdamond damonc started. */
static int pick_kdamond(struct cli *cli, const struct capture_opts *o,
			const struct damonctl_tree *t, const struct started *st, unsigned int *idx)
{
	struct damonctl_kdamond *k;
	unsigned int i, nr_ours = 0, nr_running = 0, ours = 0, running = 0;

	if (o->kdamond >= 0) {
		if ((unsigned int)o->kdamond >= damonctl_tree_nr_kdamonds(t))
			return usage_error(cli, "--kdamond %d: there are %u kdamonds",
					   o->kdamond, damonctl_tree_nr_kdamonds(t));
		*idx = (unsigned int)o->kdamond;
		return 0;
	}
	damonctl_for_each_kdamond(t, k, i) {
		if (strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on"))
			continue;
		nr_running++;
		running = i;
		if (started_owns(st, k)) {
			nr_ours++;
			ours = i;
		}
	}
	*idx = nr_ours == 1 ? ours : running;
	if (nr_ours == 1 || (!nr_ours && nr_running == 1 && o->allow_foreign))
		return 0;
	if (nr_ours > 1)
		return usage_error(cli, "damonc runs %u kdamonds: pick one with --kdamond",
				   nr_ours);
	if (!nr_running)
		return usage_error(cli, "no kdamond is running (start one with 'damonc start')");
	return usage_error(cli, "no running kdamond was started by damonc: name one with "
			   "--kdamond N (and --allow-foreign to install the capture scheme on it)");
}

/* damonctl_capture_open's -errno @r as a sentence: its refusals by their errno, a failed
 * file access by the library's sentence. An exit code. */
static int open_error(struct cli *cli, const struct capture_opts *o,
		      const struct damonctl_kdamond *k, unsigned int idx, int r)
{
	struct damonctl_error le;
	char path[4096];

	if (damonctl_last_error(cli->ctx, &le) && le.err == r)
		return lib_error(cli, r, "capturing kdamond %u", idx);
	switch (-r) {
	case ESRCH:
		return usage_error(cli, "kdamond %u is not running", idx);
	case EOPNOTSUPP:
		if (o->method != DAMONCTL_CAPTURE_TRACE) {
			usage_error(cli, "this kernel has no tried_regions (6.2 or later needed)");
			return EXIT_UNSUPPORTED;
		}
		damonctl_path(cli->ctx, DAMONCTL_BASE_TRACEFS, "events/damon", path, sizeof(path));
		usage_error(cli, "--method trace: no damon_aggregated event in %s (is tracefs "
			    "mounted? CONFIG_DAMON tracepoints?); --method tried-regions works "
			    "without it", path);
		return EXIT_UNSUPPORTED;
	case EPERM:
		return usage_error(cli, "kdamond %u was not started by damonc: capturing its "
				   "regions writes to it (update_schemes_tried_regions, and a "
				   "capture scheme unless it has one; its configuration is restored "
				   "afterwards). Pass --allow-foreign to agree", idx);
	case EINVAL:
		return usage_error(cli, "kdamond %u has %u contexts; DAMON runs exactly one", idx,
				   damonctl_kdamond_nr_contexts(k));
	case E2BIG:
		return usage_error(cli, "kdamond %u has %u schemes; damonc records at most 64",
				   idx, damonctl_context_nr_schemes(damonctl_kdamond_context(k, 0)));
	case ESTALE:
		return usage_error(cli, "kdamond %u lost the capture schemes it was started with",
				   idx);
	default:
		return lib_error(cli, r, "capturing kdamond %u", idx);
	}
}

int capture_parse_filter(struct cli *cli, struct capture_opts *o, const char *arg)
{
	struct damonctl_filter_spec *f = &o->filters[o->nr_filters];
	int r;

	if (o->nr_filters == CAPTURE_MAX_FILTERS)
		return usage_error(cli, "--snapshot-damos-filter: at most %d filters",
				   CAPTURE_MAX_FILTERS);
	r = spec_parse_filter(cli, "snapshot-damos-filter", arg, f);
	if (r)
		return r;
	if (!strcmp(f->type, "addr") || !strcmp(f->type, "target"))
		return usage_error(cli, "--snapshot-damos-filter '%s': %s is a filter of DAMON's "
				   "core, which decides what is tried, not what passes (anon, "
				   "active, memcg, young, hugepage_size, unmapped; --address-range "
				   "narrows a report)", arg, f->type);
	if (!strcmp(f->type, "memcg") && f->memcg[0] != '/')
		return usage_error(cli, "--snapshot-damos-filter '%s': a memcg path begins with "
				   "'/' (as under /sys/fs/cgroup)", arg);
	o->nr_filters++;
	return 0;
}

int capture_parse_of_scheme(struct cli *cli, struct capture_opts *o, const char *arg)
{
	uint64_t v;

	if (parse_uint_opt(cli, "tried-regions-of", arg, 1u << 20, &v))
		return EXIT_USAGE;
	o->of_scheme = true;
	o->scheme = (unsigned int)v;
	return 0;
}

/* The snapshot filters as a scheme of a tree of their own (the library reads its filters),
 * or NULL (none, or out of memory: *err) */
static struct damonctl_scheme *filters_scheme(const struct capture_opts *o,
					      struct damonctl_tree **t, int *err)
{
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_scheme *s = NULL;

	*err = 0;
	*t = o->nr_filters ? damonctl_tree_new() : NULL;
	k = *t ? damonctl_tree_add_kdamond(*t) : NULL;
	c = k ? damonctl_kdamond_add_context(k) : NULL;
	s = c ? damonctl_context_add_scheme(c) : NULL;
	for (unsigned int i = 0; s && i < o->nr_filters && !*err; i++) {
		struct damonctl_filter *f = damonctl_scheme_add_filter(s, DAMONCTL_FILTERS_OPS);

		*err = f ? damonctl_filter_set_spec(f, &o->filters[i]) : -ENOMEM;
	}
	if (o->nr_filters && !s)
		*err = -ENOMEM;
	return *err ? NULL : s;
}

bool capture_live_asked(const struct capture_opts *o)
{
	return o->duration_us || o->interval_us || o->count || o->allow_foreign ||
	       o->nr_filters || o->of_scheme;
}

int capture_of_scheme_check(struct cli *cli, const struct capture_opts *o, const char *verb)
{
	if (o->of_scheme && o->nr_filters)
		return usage_error(cli, "--tried-regions-of %s what the kdamond's scheme tried "
				   "through its own filters: --snapshot-damos-filter is for a "
				   "capture scheme", verb);
	return 0;
}

/* Whether damonctl_capture_open()'s @r refused the snapshot filters: -EOPNOTSUPP or -ENOENT
 * with no file access to blame, or -ENOENT whose last error names a memcg filter's cgroup */
static bool filters_refused(struct cli *cli, const struct capture_opts *o, int r)
{
	struct damonctl_error e;
	unsigned int i;

	if (!o->nr_filters || (r != -EOPNOTSUPP && r != -ENOENT))
		return false;
	if (!damonctl_last_error(cli->ctx, &e) || e.err != r)
		return true;
	for (i = 0; r == -ENOENT && i < o->nr_filters; i++)
		if (!strcmp(o->filters[i].type, "memcg") && !strcmp(o->filters[i].memcg, e.value))
			return true;
	return false;
}

/* The library's refusal of the snapshot filters (-EOPNOTSUPP, -ENOENT) as a sentence */
static int filters_error(struct cli *cli, int r)
{
	struct damonctl_error e;

	if (r == -ENOENT)
		return usage_error(cli, "--snapshot-damos-filter: no cgroup '%s' (memcg paths are "
				   "as under /sys/fs/cgroup)",
				   damonctl_last_error(cli->ctx, &e) ? e.value : "");
	usage_error(cli, "--snapshot-damos-filter: this kernel cannot take snapshots through "
		    "DAMOS filters: it needs the filters' allow and sz_filter_passed (Linux 6.14), "
		    "for vaddr and fvaddr the stat action's filters (6.18), and each type (anon "
		    "and memcg 6.3, young 6.10, active, hugepage_size and unmapped 6.15)");
	return EXIT_UNSUPPORTED;
}

/* DAMONC_TRACE_READER=text or raw (damonc-record(1), for tests/bench/trace-read.sh). */
static enum damonctl_capture_reader trace_reader(void)
{
	const char *v = getenv("DAMONC_TRACE_READER");

	if (!v)
		return DAMONCTL_CAPTURE_READER_AUTO;
	return strcmp(v, "text") ? DAMONCTL_CAPTURE_READER_RAW : DAMONCTL_CAPTURE_READER_TEXT;
}

static unsigned int nr_schemes(const struct damonctl_kdamond *k)
{
	const struct damonctl_context *c = damonctl_kdamond_nr_contexts(k) ?
					   damonctl_kdamond_context(k, 0) : NULL;

	return c ? damonctl_context_nr_schemes(c) : 0;
}

/* Open the library's capture of the kdamond @o names: an exit code. */
static int open_capture(struct capture *c, const struct capture_opts *o)
{
	struct damonctl_capture_opts lo = DAMONCTL_CAPTURE_OPTS_INIT;
	struct damonctl_tree *t, *ft = NULL;
	struct started st;
	char dir[4096];
	unsigned int idx = 0;
	int r = damonctl_tree_read_flags(c->cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t);

	if (r)
		return lib_error(c->cli, r, "reading the DAMON tree");
	if (started_load(c->cli->ctx, &st))
		memset(&st, 0, sizeof(st));
	r = pick_kdamond(c->cli, o, t, &st, &idx);
	if (!r) {
		lo.method = o->method;
		lo.interval_us = o->interval_us;
		lo.duration_us = o->duration_us;
		lo.count = o->count;
		lo.builtin = o->builtin;
		lo.allow_foreign = o->allow_foreign ||
				   started_owns(&st, damonctl_tree_kdamond(t, idx));
		lo.no_footprints = o->no_footprints;
		lo.end_pid = o->child;
		lo.state_dir = state_dir(c->cli->ctx, dir, sizeof(dir));
		lo.trace_reader = trace_reader();
		lo.snapshot_filters = filters_scheme(o, &ft, &r);
		lo.of_scheme = o->of_scheme;
		lo.scheme = o->scheme;
		if (!r)
			r = damonctl_capture_open(c->cli->ctx, idx, &lo, &c->lc);
		if (r && filters_refused(c->cli, o, r))
			r = filters_error(c->cli, r);
		else if (r == -ENOENT && o->of_scheme)
			r = usage_error(c->cli, "--tried-regions-of %u: kdamond %u has %u scheme%s", o->scheme,
					idx, nr_schemes(damonctl_tree_kdamond(t, idx)),
					nr_schemes(damonctl_tree_kdamond(t, idx)) == 1 ? "" : "s");
		else if (r)
			r = open_error(c->cli, o, damonctl_tree_kdamond(t, idx), idx, r);
	}
	damonctl_tree_free(ft);
	started_free(&st);
	damonctl_tree_free(t);
	return r;
}

int capture_start(struct cli *cli, const struct capture_opts *o, struct capture **out)
{
	struct capture *c = calloc(1, sizeof(*c));
	int r, lock;

	if (!c)
		return lib_error(cli, -ENOMEM, "starting the capture");
	c->cli = cli;
	c->child = o->child;
	c->child_status = -1;
	/* installing a capture scheme is a change like start's and tune's: one at a time, and
	 * after what killed damonc commands left is undone */
	lock = started_lock(cli->ctx);
	if (lock < 0) {
		free(c);
		return started_lock_error(cli, lock);
	}
	r = recover_leftovers(cli);
	if (!r)
		r = open_capture(c, o);
	started_unlock(lock);
	if (r) {
		free(c);
		return r;
	}
	signal_capture = c->lc;
	if (capture_stop_requested)
		damonctl_capture_request_end(c->lc, DAMONCTL_REC_END_SIGNAL);
	*out = c;
	return 0;
}

int capture_next(struct capture *c, struct damonctl_rec_item *item)
{
	int r = damonctl_capture_next(c->lc, item);

	if (r < 0)
		return -lib_error(c->cli, r, "capturing kdamond %u",
				  damonctl_capture_kdamond(c->lc));
	return r;
}

enum damonctl_rec_end_reason capture_end_reason(const struct capture *c)
{
	return damonctl_capture_end_reason(c->lc);
}

void capture_request_end(struct capture *c, enum damonctl_rec_end_reason why)
{
	damonctl_capture_request_end(c->lc, why);
}

const char *capture_method_name(const struct capture *c)
{
	return damonctl_capture_get_method(c->lc) == DAMONCTL_CAPTURE_TRACE ? "trace" :
	       "tried-regions";
}

unsigned int capture_kdamond(const struct capture *c)
{
	return damonctl_capture_kdamond(c->lc);
}

void capture_pace(const struct capture *c, struct damonctl_capture_pace *p)
{
	p->sz = sizeof(*p);
	damonctl_capture_pace(c->lc, p);
}

int capture_child_status(struct capture *c)
{
	int st;

	/* the library watched it exit without reaping it */
	if (c->child > 0 && c->child_status < 0 && waitpid(c->child, &st, WNOHANG) == c->child)
		c->child_status = st;
	return c->child_status;
}

int capture_finish(struct capture *c)
{
	struct cli *cli;
	unsigned int k;
	int r, lock;

	if (!c)
		return EXIT_OK;
	cli = c->cli;
	signal_capture = NULL;
	k = damonctl_capture_kdamond(c->lc);
	/* putting the kdamond's configuration back is a change like installing it */
	lock = started_lock(cli->ctx);
	r = damonctl_capture_close(c->lc);
	started_unlock(lock);
	free(c);
	if (r)
		return lib_error(cli, r, "restoring kdamond %u's configuration (the capture "
				 "scheme may still be installed; the next capture retries)", k);
	return EXIT_OK;
}

int capture_recover(struct cli *cli)
{
	char dir[4096];
	int r = damonctl_capture_recover(cli->ctx, state_dir(cli->ctx, dir, sizeof(dir)));

	return r ? lib_error(cli, r, "removing the capture scheme a killed record left") : 0;
}

unsigned int capture_leftovers(struct damonctl_ctx *ctx, unsigned int *kdamonds, int *pids,
			       unsigned int max)
{
	char dir[4096];

	return damonctl_capture_leftovers(state_dir(ctx, dir, sizeof(dir)), kdamonds, pids, max);
}

int capture_own_amend(struct cli *cli, struct damonctl_kdamond *k,
		      const struct damonctl_features *f, void *data)
{
	struct damonctl_context *c = damonctl_kdamond_context(k, 0);
	struct capture_opts *o = data;
	int r;

	/* no scheme of start's: only what the capture needs */
	while (damonctl_context_nr_schemes(c))
		damonctl_context_remove_scheme(c, 0);
	o->builtin = 0;
	if (o->method == DAMONCTL_CAPTURE_TRACE)
		return 0;
	r = damonctl_capture_add_schemes(c, f);
	if (r < 0)
		return lib_error(cli, r, "building the capture schemes");
	o->builtin = (unsigned int)r;
	return 0;
}

void capture_end_command(int pid)
{
	int st;

	if (pid <= 0)
		return;
	capture_stop_requested = 0;
	kill(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		if (capture_stop_requested)
			kill(pid, SIGKILL);
}
