// SPDX-License-Identifier: GPL-2.0-or-later
/* Live capture of a kdamond's monitoring results (see capture.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "capture_guard.h"
#include "capture_trace.h"
#include "journal.h"
#include "started.h"

#define MAX_CAPTURE_SCHEMES 64
#define MAX_USER_SCHEMES 64
#define DEFAULT_INTERVAL_US 1000000

volatile sig_atomic_t capture_stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	capture_stop_requested = 1;
}

void capture_catch_signals(void)
{
	/* no SA_RESTART: a sleep between snapshots ends at once */
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed output shows as EPIPE */
}

struct cap_scheme {
	unsigned int index;	/* in the context */
	int32_t target;		/* -1: every target */
	struct damonctl_rec_region *regions;
	size_t cap;
};

struct capture {
	struct cli *cli;
	struct capture_opts o;
	unsigned int kdamond;
	int kdamond_pid;
	struct damonctl_tree *orig;	/* as found: restored at the end */
	bool installed;
	struct damonctl_features *f;
	struct cap_scheme cs[MAX_CAPTURE_SCHEMES];
	unsigned int nr_cs;
	unsigned int nr_user_schemes;
	char user_actions[MAX_USER_SCHEMES][24];
	bool vaddr;
	uint64_t addr_unit;		/* paddr: bytes per address DAMON gives */
	int pids[64];
	unsigned int nr_pids;
	bool tuned;			/* intervals auto-tuning is on and can be read back */
	uint64_t sample_us, aggr_us, update_us;
	char *config_json;
	/* the items of the current tick */
	/* snapshots, stats, and a CONFIG or a FOOTPRINT */
	struct damonctl_rec_item pending[MAX_CAPTURE_SCHEMES + MAX_USER_SCHEMES + 1];
	char *footprint_json;		/* the current tick's FOOTPRINT */
	uint64_t next_footprint_ns;	/* method "trace" */
	unsigned int nr_pending, next_pending;
	uint64_t start_ns, next_tick_ns, nr_ticks;
	bool ended;
	enum damonctl_rec_end_reason reason;
	/* method "trace" */
	struct trace_src *trace;
	bool may_write;			/* ours, or --allow-foreign: stats may be asked for */
	uint64_t last_kept_ns[64];	/* per target: snapshots are kept one per interval */
	uint64_t vma_hash[64];		/* per target: its mappings at the last FOOTPRINT (0: none) */
	uint64_t next_stats_ns;
	int child_status;		/* the launched target's, once reaped; -1 before */
	/* keeping up with the interval (capture_pace) */
	uint64_t nr_missed;		/* snapshots due that were not taken */
	uint64_t work_ns, max_late_ns;	/* time spent taking snapshots; worst lateness */
};

uint64_t capture_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t capture_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

const char *capture_method_name(const struct capture *c)
{
	return c->trace ? "trace" : "tried-regions";
}

unsigned int capture_kdamond(const struct capture *c)
{
	return c->kdamond;
}

void capture_pace(const struct capture *c, struct capture_pace *p)
{
	memset(p, 0, sizeof(*p));
	p->interval_us = c->o.interval_us;
	if (c->trace && c->aggr_us > p->interval_us)
		p->interval_us = c->aggr_us;
	p->taken = c->nr_ticks;
	p->missed = c->nr_missed;
	p->max_late_us = c->max_late_ns / 1000;
	p->trace = c->trace != NULL;
	if (!c->trace && c->nr_ticks)
		p->mean_work_us = c->work_ns / 1000 / c->nr_ticks;
}

int capture_child_status(const struct capture *c)
{
	return c->child_status;
}

enum capture_method capture_method_for(struct damonctl_ctx *ctx, enum capture_method m)
{
	if (m != CAPTURE_AUTO)
		return m;
	return trace_available(ctx) ? CAPTURE_TRACE : CAPTURE_TRIED_REGIONS;
}

enum damonctl_rec_end_reason capture_end_reason(const struct capture *c)
{
	return c->reason;
}

void capture_request_end(struct capture *c, enum damonctl_rec_end_reason why)
{
	if (!c->ended) {
		c->ended = true;
		c->reason = why;
	}
}

bool capture_pattern_all(const struct damonctl_scheme *s, unsigned int max_filters)
{
	static const enum damonctl_filter_dir dirs[] = { DAMONCTL_FILTERS_LEGACY,
		DAMONCTL_FILTERS_CORE, DAMONCTL_FILTERS_OPS };
	unsigned int d, nr = 0;

	if (strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "stat") ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX) < UINT32_MAX ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX) < UINT32_MAX ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX) < UINT32_MAX ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS) ||
	    damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES) ||
	    damonctl_scheme_nr_goals(s) ||
	    strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_WMARKS_METRIC), "none"))
		return false;
	for (d = 0; d < 3; d++)
		nr += damonctl_scheme_nr_filters(s, dirs[d]);
	return nr <= max_filters;
}

static int set_capture_pattern(struct damonctl_scheme *s, uint64_t aggr_us, bool apply_iv)
{
	int r = damonctl_scheme_set_str(s, DAMONCTL_SCHEME_ACTION, "stat");

	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MIN, 0);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MAX, UINT64_MAX);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN, 0);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX, UINT32_MAX);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MIN, 0);
	r = r ? r : damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MAX, UINT32_MAX);
	/* apply once per aggregation: full counts, and the least work for the kernel */
	if (!r && apply_iv)
		r = damonctl_scheme_set(s, DAMONCTL_SCHEME_APPLY_INTERVAL_US, aggr_us);
	return r;
}

/* Pick the kdamond: the one asked for, or the one running kdamond damonc started. */
static int pick_kdamond(struct capture *c, const struct damonctl_tree *t,
			const struct started *st)
{
	struct damonctl_kdamond *k;
	unsigned int i, nr_ours = 0, nr_running = 0, ours = 0, running = 0;

	if (c->o.kdamond >= 0) {
		if ((unsigned int)c->o.kdamond >= damonctl_tree_nr_kdamonds(t))
			return usage_error(c->cli, "--kdamond %d: there are %u kdamonds",
					   c->o.kdamond, damonctl_tree_nr_kdamonds(t));
		c->kdamond = (unsigned int)c->o.kdamond;
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
	if (nr_ours == 1) {
		c->kdamond = ours;
		return 0;
	}
	if (nr_ours > 1)
		return usage_error(c->cli, "damonc runs %u kdamonds: pick one with --kdamond",
				   nr_ours);
	if (nr_running == 1 && c->o.allow_foreign) {
		c->kdamond = running;
		return 0;
	}
	if (!nr_running)
		return usage_error(c->cli, "no kdamond is running (start one with 'damonc start')");
	return usage_error(c->cli, "no running kdamond was started by damonc: name one with "
			   "--kdamond N (and --allow-foreign to install the capture scheme on it)");
}

int capture_add_schemes(struct damonctl_context *c, const struct damonctl_features *f)
{
	unsigned int nt = damonctl_context_nr_targets(c), n, i;
	/* one scheme per target where a target filter can tell them apart: tried_regions
	 * lists every target's regions one after the other, without saying whose */
	bool per_target = nt > 1 && nt <= MAX_CAPTURE_SCHEMES &&
		damonctl_features_has(f, DAMONCTL_FEAT_FILTER_ADDR_TARGET) == DAMONCTL_YES;
	bool apply_iv = damonctl_features_has(f, DAMONCTL_FEAT_APPLY_INTERVAL) == DAMONCTL_YES;
	uint64_t aggr_us = damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US);

	n = per_target ? nt : 1;
	for (i = 0; i < n; i++) {
		struct damonctl_scheme *s = damonctl_context_add_scheme(c);
		int r = s ? set_capture_pattern(s, aggr_us, apply_iv) : -ENOMEM;

		if (!r && per_target)
			r = damonctl_scheme_keep_target(s, f, i);
		if (r)
			return r;
	}
	return (int)n;
}

/* Capture schemes [@first, @first + @n) of a context with @nt targets, as
 * capture_add_schemes made them. */
static void use_capture_schemes(struct capture *c, unsigned int first, unsigned int n,
				unsigned int nt)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		c->cs[i].index = first + i;
		c->cs[i].target = n > 1 ? (int32_t)i : nt == 1 ? 0 : -1;
	}
	c->nr_cs = n;
}

static int install(struct capture *c, const struct damonctl_kdamond *orig_k)
{
	struct damonctl_tree *want = damonctl_tree_dup(c->orig);
	struct damonctl_kdamond *wk;
	struct damonctl_context *wc;
	int r;

	if (!want)
		return lib_error(c->cli, -ENOMEM, "installing the capture scheme");
	wk = damonctl_tree_kdamond(want, c->kdamond);
	wc = damonctl_kdamond_context(wk, 0);
	r = capture_add_schemes(wc, c->f);
	if (r < 0) {
		damonctl_tree_free(want);
		return lib_error(c->cli, r, "building the capture scheme");
	}
	use_capture_schemes(c, c->nr_user_schemes, (unsigned int)r,
			    damonctl_context_nr_targets(wc));
	r = capture_guard_write(c->cli->ctx, c->kdamond, c->kdamond_pid, c->nr_user_schemes,
				c->nr_cs);
	if (r) {
		damonctl_tree_free(want);
		return lib_error(c->cli, r, "writing the note that lets a later capture remove "
				 "the capture scheme if this one is killed");
	}
	/* a failed commit puts the staged files back as they were */
	r = damonctl_kdamond_commit(c->cli->ctx, wk, orig_k, DAMONCTL_COMMIT_F_FULL, NULL);
	if (r) {
		int e = lib_error(c->cli, r, "installing the capture scheme on kdamond %u",
				  c->kdamond);

		capture_guard_remove(c->cli->ctx, c->kdamond);
		damonctl_tree_free(want);
		return e;
	}
	damonctl_tree_free(want);
	c->installed = true;
	return 0;
}

static void read_intervals(struct capture *c)
{
	char rel[128], buf[32];
	uint64_t v;

	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/monitoring_attrs/intervals/sample_us",
		 c->kdamond);
	if (!damonctl_read(c->cli->ctx, rel, buf, sizeof(buf)) && !damonctl_parse_u64(buf, &v))
		c->sample_us = v;
	snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/monitoring_attrs/intervals/aggr_us",
		 c->kdamond);
	if (!damonctl_read(c->cli->ctx, rel, buf, sizeof(buf)) && !damonctl_parse_u64(buf, &v))
		c->aggr_us = v;
	damonctl_clear_error(c->cli->ctx);
}

int capture_start(struct cli *cli, const struct capture_opts *o, struct capture **out)
{
	struct capture *c = calloc(1, sizeof(*c));
	struct damonctl_kdamond *k;
	struct damonctl_context *ctx0;
	struct damonctl_target *t;
	struct damonctl_scheme *s;
	struct started st;
	unsigned int i;
	bool ours;
	int r, lock;

	if (!c)
		return lib_error(cli, -ENOMEM, "starting the capture");
	c->cli = cli;
	c->o = *o;
	c->child_status = -1;
	/* installing a capture scheme is a change like start's and tune's: one at a time, and
	 * after what killed damonc commands left is undone */
	lock = started_lock(cli->ctx);
	if (lock < 0) {
		free(c);
		return lib_error(cli, lock, "locking damonc's run directory");
	}
	r = recover_leftovers(cli);
	if (r) {
		started_unlock(lock);
		free(c);
		return r;
	}
	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &c->orig);
	if (r) {
		started_unlock(lock);
		free(c);
		return lib_error(cli, r, "reading the DAMON tree");
	}
	if (started_load(cli->ctx, &st))
		memset(&st, 0, sizeof(st));
	r = pick_kdamond(c, c->orig, &st);
	if (r)
		goto fail_started;
	k = damonctl_tree_kdamond(c->orig, c->kdamond);
	ours = started_owns(&st, k);
	started_free(&st);
	if (strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on")) {
		r = usage_error(cli, "kdamond %u is not running", c->kdamond);
		goto fail;
	}
	c->may_write = ours || o->allow_foreign;
	if (o->method == CAPTURE_TRACE && !trace_available(cli->ctx)) {
		char path[4096];

		damonctl_path(cli->ctx, DAMONCTL_BASE_TRACEFS, "events/damon", path, sizeof(path));
		usage_error(cli, "--method trace: no damon_aggregated event in %s (is tracefs "
			    "mounted? CONFIG_DAMON tracepoints?); --method tried-regions works "
			    "without it", path);
		r = EXIT_UNSUPPORTED;
		goto fail;
	}
	c->o.method = capture_method_for(cli->ctx, o->method);
	if (c->o.method == CAPTURE_TRIED_REGIONS && !c->may_write) {
		r = usage_error(cli, "kdamond %u was not started by damonc: capturing its regions "
				"writes to it (update_schemes_tried_regions, and a capture scheme "
				"unless it has one; its configuration is restored afterwards). "
				"Pass --allow-foreign to agree", c->kdamond);
		goto fail;
	}
	if (damonctl_kdamond_nr_contexts(k) != 1) {
		r = usage_error(cli, "kdamond %u has %u contexts; DAMON runs exactly one",
				c->kdamond, damonctl_kdamond_nr_contexts(k));
		goto fail;
	}
	c->kdamond_pid = (int)damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID);
	r = damonctl_features_from_tree(cli->ctx, c->orig, &c->f);
	if (r) {
		r = lib_error(cli, r, "detecting DAMON's features");
		goto fail;
	}
	if (c->o.method == CAPTURE_TRIED_REGIONS &&
	    damonctl_features_has(c->f, DAMONCTL_FEAT_TRIED_REGIONS) != DAMONCTL_YES) {
		r = usage_error(cli, "this kernel has no tried_regions (6.2 or later needed)");
		r = EXIT_UNSUPPORTED;
		goto fail;
	}
	ctx0 = damonctl_kdamond_context(k, 0);
	c->sample_us = damonctl_context_get(ctx0, DAMONCTL_CONTEXT_SAMPLE_US);
	c->aggr_us = damonctl_context_get(ctx0, DAMONCTL_CONTEXT_AGGR_US);
	c->update_us = damonctl_context_get(ctx0, DAMONCTL_CONTEXT_UPDATE_US);
	c->tuned = damonctl_context_has(ctx0, DAMONCTL_CONTEXT_GOAL_AGGRS) &&
		damonctl_context_get(ctx0, DAMONCTL_CONTEXT_GOAL_AGGRS) != 0;
	if (c->tuned && c->may_write) {
		/* the tuned values, so that our commit does not reset them */
		damonctl_kdamond_cmd(cli->ctx, c->kdamond, DAMONCTL_CMD_UPDATE_TUNED_INTERVALS);
		damonctl_clear_error(cli->ctx);
		read_intervals(c);
		damonctl_context_set(ctx0, DAMONCTL_CONTEXT_SAMPLE_US, c->sample_us);
		damonctl_context_set(ctx0, DAMONCTL_CONTEXT_AGGR_US, c->aggr_us);
	}
	c->vaddr = strcmp(damonctl_context_get_str(ctx0, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
	c->addr_unit = !c->vaddr && damonctl_context_has(ctx0, DAMONCTL_CONTEXT_ADDR_UNIT) ?
		       damonctl_context_get(ctx0, DAMONCTL_CONTEXT_ADDR_UNIT) : 1;
	damonctl_for_each_target(ctx0, t, i)
		if (c->nr_pids < 64)
			c->pids[c->nr_pids++] = (int)damonctl_target_get_int(t, DAMONCTL_TARGET_PID);
	c->nr_user_schemes = damonctl_context_nr_schemes(ctx0);
	if (c->nr_user_schemes > MAX_USER_SCHEMES) {
		r = usage_error(cli, "kdamond %u has %u schemes; damonc records at most %d",
				c->kdamond, c->nr_user_schemes, MAX_USER_SCHEMES);
		goto fail;
	}
	if (o->builtin && (o->builtin > c->nr_user_schemes || o->builtin > MAX_CAPTURE_SCHEMES)) {
		r = usage_error(cli, "kdamond %u lost the capture schemes it was started with",
				c->kdamond);
		goto fail;
	}
	if (o->builtin)
		use_capture_schemes(c, 0, o->builtin, damonctl_context_nr_targets(ctx0));
	damonctl_for_each_scheme(ctx0, s, i) {
		snprintf(c->user_actions[i], sizeof(c->user_actions[i]), "%s",
			 damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION));
		if (!c->nr_cs && capture_pattern_all(s, 0)) {
			c->cs[0].index = i;
			c->cs[0].target = damonctl_context_nr_targets(ctx0) == 1 ? 0 : -1;
			c->nr_cs = 1;
		}
	}
	{
		struct damonctl_tree *one = damonctl_tree_new();

		struct damonctl_kdamond *kc = one ? damonctl_tree_add_kdamond_copy(one, k) : NULL;

		/* the record's configuration is the monitoring, not our capture schemes */
		for (i = 0; kc && i < o->builtin; i++)
			damonctl_context_remove_scheme(damonctl_kdamond_context(kc, 0), 0);
		if (kc)
			c->config_json = damonctl_tree_to_json(one, DAMONCTL_JSON_CONFIG);
		damonctl_tree_free(one);
	}
	if (c->o.method == CAPTURE_TRACE) {
		r = trace_open(cli->ctx, c->kdamond_pid, &c->trace);
		if (r) {
			r = lib_error(cli, r, "setting up the damon_aggregated trace event");
			goto fail;
		}
	} else if (!c->nr_cs) {
		r = install(c, k);
		if (r)
			goto fail;
	}
	c->start_ns = capture_now_ns();
	c->next_tick_ns = mono_ns();
	if (!c->o.interval_us)
		c->o.interval_us = DEFAULT_INTERVAL_US;
	/* the CONFIG item goes first */
	if (c->config_json) {
		c->pending[0].type = DAMONCTL_REC_CONFIG;
		c->pending[0].time_ns = c->start_ns;
		c->pending[0].json = c->config_json;
		c->nr_pending = 1;
	}
	started_unlock(lock);
	*out = c;
	return 0;
fail_started:
	started_free(&st);
fail:
	started_unlock(lock);
	damonctl_features_free(c->f);
	damonctl_tree_free(c->orig);
	free(c->config_json);
	free(c->footprint_json);
	free(c);
	return r;
}

/* Has our child (the '-- COMMAND') exited? Reaps it: a zombie keeps its /proc directory. */
static bool child_exited(struct capture *c)
{
	int st;

	if (c->child_status < 0 && waitpid(c->o.child, &st, WNOHANG) == c->o.child)
		c->child_status = st;
	return c->child_status >= 0;
}

/* Has the process of target @t exited (a zombie has: it holds no memory any more)? */
static bool target_exited(struct capture *c, unsigned int t)
{
	bool gone;

	if (c->o.child > 0)
		return child_exited(c);
	if (!c->vaddr || t >= c->nr_pids)
		return false;
	gone = damonctl_proc_alive(c->cli->ctx, c->pids[t]) == 0;
	damonctl_clear_error(c->cli->ctx);
	return gone;
}

static bool targets_gone(struct capture *c)
{
	unsigned int i;

	if (c->o.child > 0)
		return child_exited(c);
	if (!c->vaddr || !c->nr_pids)
		return false;
	for (i = 0; i < c->nr_pids; i++)
		if (!target_exited(c, i))
			return false;
	return true;
}

static bool kdamond_gone(struct capture *c)
{
	int pid = -1, r = damonctl_kdamond_is_running(c->cli->ctx, c->kdamond, &pid);

	damonctl_clear_error(c->cli->ctx);
	return r != 1 || pid != c->kdamond_pid;
}

static const struct { const char *file; enum damonctl_rec_stat stat; } stat_files[] = {
	{ "stats/nr_tried", DAMONCTL_REC_NR_TRIED },
	{ "stats/sz_tried", DAMONCTL_REC_SZ_TRIED },
	{ "stats/nr_applied", DAMONCTL_REC_NR_APPLIED },
	{ "stats/sz_applied", DAMONCTL_REC_SZ_APPLIED },
	{ "stats/sz_ops_filter_passed", DAMONCTL_REC_SZ_OPS_FILTER_PASSED },
	{ "stats/qt_exceeds", DAMONCTL_REC_QT_EXCEEDS },
	{ "stats/nr_snapshots", DAMONCTL_REC_NR_SNAPSHOTS },
	{ "quotas/effective_bytes", DAMONCTL_REC_EFFECTIVE_BYTES },
};

static void take_stats(struct capture *c, uint64_t now)
{
	unsigned int s, i;

	/* none, or only the capture schemes the kdamond was started with */
	if (c->nr_user_schemes <= c->o.builtin)
		return;
	if (damonctl_kdamond_cmd(c->cli->ctx, c->kdamond, DAMONCTL_CMD_UPDATE_SCHEMES_STATS))
		goto out;
	if (damonctl_features_has(c->f, DAMONCTL_FEAT_EFFECTIVE_QUOTA) == DAMONCTL_YES)
		damonctl_kdamond_cmd(c->cli->ctx, c->kdamond,
				     DAMONCTL_CMD_UPDATE_SCHEMES_EFFECTIVE_QUOTAS);
	for (s = 0; s < c->nr_user_schemes; s++) {
		struct damonctl_rec_item *it = &c->pending[c->nr_pending];
		bool capture = false;

		for (i = 0; i < c->nr_cs; i++)
			if (c->cs[i].index == s)
				capture = true;
		if (capture)
			continue;
		memset(it, 0, sizeof(*it));
		it->type = DAMONCTL_REC_STATS;
		it->stats.time_ns = now;
		it->stats.kdamond = c->kdamond;
		it->stats.scheme = s;
		memcpy(it->stats.action, c->user_actions[s], sizeof(it->stats.action));
		for (i = 0; i < sizeof(stat_files) / sizeof(stat_files[0]); i++) {
			char rel[160], buf[32];
			uint64_t v;

			snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/schemes/%u/%s",
				 c->kdamond, s, stat_files[i].file);
			if (damonctl_read(c->cli->ctx, rel, buf, sizeof(buf)) ||
			    damonctl_parse_u64(buf, &v))
				continue;
			it->stats.v[stat_files[i].stat] = v;
			it->stats.has |= 1u << stat_files[i].stat;
		}
		c->nr_pending++;
	}
out:
	damonctl_clear_error(c->cli->ctx);
}

/* A process's mappings as FOOTPRINT's "vmas" ([start, end, perms, name] each, when @arr is
 * given), and their FNV-1a hash, by which a footprint keeps only those that changed. */
struct vma_list {
	json_object *arr;
	uint64_t hash;
};

static void fnv(uint64_t *h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
}

static int add_vma(void *data, const struct damonctl_vma *v)
{
	struct vma_list *l = data;
	json_object *e;

	fnv(&l->hash, &v->start, sizeof(v->start));
	fnv(&l->hash, &v->end, sizeof(v->end));
	fnv(&l->hash, v->perms, strlen(v->perms) + 1);
	fnv(&l->hash, v->name, strlen(v->name) + 1);
	if (!l->arr)
		return 0;
	e = json_object_new_array();
	json_object_array_add(e, json_object_new_uint64(v->start));
	json_object_array_add(e, json_object_new_uint64(v->end));
	json_object_array_add(e, json_object_new_string(v->perms));
	json_object_array_add(e, json_object_new_string(v->name));
	json_object_array_add(l->arr, e);
	return 0;
}

/* Target @i's footprint: its sizes, CPU time, and its mappings when they changed since its
 * last footprint; NULL when it has exited. */
static json_object *target_footprint(struct capture *c, unsigned int i)
{
	struct vma_list l = { NULL, 0xcbf29ce484222325ull };
	uint64_t vsz, rss, cpu_us;
	json_object *t;

	if (damonctl_proc_statm(c->cli->ctx, c->pids[i], &vsz, &rss))
		return NULL;
	t = json_object_new_object();
	json_object_object_add(t, "target", json_object_new_int((int)i));
	json_object_object_add(t, "pid", json_object_new_int(c->pids[i]));
	json_object_object_add(t, "vsz", json_object_new_uint64(vsz));
	json_object_object_add(t, "rss", json_object_new_uint64(rss));
	if (!damonctl_proc_cpu_time(c->cli->ctx, c->pids[i], &cpu_us))
		json_object_object_add(t, "cpu_us", json_object_new_uint64(cpu_us));
	/* hashed first, and only mappings that changed (rarely, after the first) read again
	 * into JSON: most ticks build nothing */
	if (damonctl_proc_maps(c->cli->ctx, c->pids[i], add_vma, &l) || l.hash == c->vma_hash[i])
		return t;
	l.arr = json_object_new_array();
	l.hash = 0xcbf29ce484222325ull;
	if (!damonctl_proc_maps(c->cli->ctx, c->pids[i], add_vma, &l)) {
		c->vma_hash[i] = l.hash;
		json_object_object_add(t, "vmas", l.arr);
	} else {
		json_object_put(l.arr);
	}
	return t;
}

/* The memory footprint now, as the FOOTPRINT item docs/record-format.md describes: the
 * system's, the kdamond's CPU time, and each monitored process's (those that exited are
 * left out). Nothing when it cannot be read: a footprint is an extra, never a reason to
 * stop recording. Its time is when it is read, not when the tick began: reading the
 * regions before it may take a while, and CPU shares divide by the time between two. */
static void take_footprint(struct capture *c)
{
	uint64_t now = capture_now_ns(), cpu_us;
	struct damonctl_meminfo m;
	json_object *o, *sys, *arr;
	unsigned int i;
	const char *s;

	if (c->o.no_footprints || damonctl_meminfo_read(c->cli->ctx, &m)) {
		damonctl_clear_error(c->cli->ctx);
		return;
	}
	o = json_object_new_object();
	sys = json_object_new_object();
	json_object_object_add(sys, "total", json_object_new_uint64(m.total));
	json_object_object_add(sys, "free", json_object_new_uint64(m.free));
	json_object_object_add(sys, "available", json_object_new_uint64(m.available));
	json_object_object_add(sys, "huge", json_object_new_uint64(damonctl_meminfo_huge(&m)));
	json_object_object_add(o, "system", sys);
	if (c->kdamond_pid > 0 &&
	    !damonctl_proc_cpu_time(c->cli->ctx, c->kdamond_pid, &cpu_us)) {
		json_object *k = json_object_new_object();

		json_object_object_add(k, "pid", json_object_new_int(c->kdamond_pid));
		json_object_object_add(k, "cpu_us", json_object_new_uint64(cpu_us));
		json_object_object_add(o, "kdamond", k);
	}
	arr = json_object_new_array();
	for (i = 0; c->vaddr && i < c->nr_pids; i++) {
		json_object *t = target_footprint(c, i);

		if (t)
			json_object_array_add(arr, t);
	}
	damonctl_clear_error(c->cli->ctx);
	json_object_object_add(o, "targets", arr);
	s = json_object_to_json_string_ext(o, DAMONC_JSON_PLAIN);
	free(c->footprint_json);
	c->footprint_json = s ? strdup(s) : NULL;
	json_object_put(o);
	if (!c->footprint_json)
		return;
	memset(&c->pending[c->nr_pending], 0, sizeof(c->pending[0]));
	c->pending[c->nr_pending].type = DAMONCTL_REC_FOOTPRINT;
	c->pending[c->nr_pending].time_ns = now;
	c->pending[c->nr_pending].json = c->footprint_json;
	c->nr_pending++;
}

/* One snapshot of every capture scheme, then the stats: an exit code, or 0. */
static int tick(struct capture *c)
{
	uint64_t now;
	unsigned int i;
	bool skipped = false;
	int r;

	c->nr_pending = c->next_pending = 0;
	r = damonctl_kdamond_cmd(c->cli->ctx, c->kdamond,
				 DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_REGIONS);
	if (r) {
		/* ECANCELED: the kernel says the kdamond stopped, even while `state` may still
		 * read "on" for a moment */
		if (r == -ECANCELED || kdamond_gone(c)) {
			capture_request_end(c, targets_gone(c) ? DAMONCTL_REC_END_TARGET_EXITED :
					    DAMONCTL_REC_END_KDAMOND_STOPPED);
			return 0;
		}
		return lib_error(c->cli, r, "updating the tried regions of kdamond %u",
				 c->kdamond);
	}
	now = capture_now_ns();
	if (c->tuned &&
	    damonctl_features_has(c->f, DAMONCTL_FEAT_INTERVALS_GOAL) == DAMONCTL_YES &&
	    !damonctl_kdamond_cmd(c->cli->ctx, c->kdamond, DAMONCTL_CMD_UPDATE_TUNED_INTERVALS))
		read_intervals(c);
	damonctl_clear_error(c->cli->ctx);
	for (i = 0; i < c->nr_cs; i++) {
		struct damonctl_rec_item *it = &c->pending[c->nr_pending];
		struct cap_scheme *cs = &c->cs[i];
		struct damonctl_rec_snapshot *s = &it->snapshot;
		uint64_t total = 0;
		bool has_sz = false;

		r = damonctl_tried_regions_read(c->cli->ctx, c->kdamond, 0, cs->index,
						&cs->regions, &cs->cap, &total, &has_sz);
		if (r < 0) {
			if (kdamond_gone(c)) {
				capture_request_end(c, DAMONCTL_REC_END_KDAMOND_STOPPED);
				return 0;
			}
			return lib_error(c->cli, r, "reading the tried regions of kdamond %u",
					 c->kdamond);
		}
		/* a target that exited since the last tick has no regions left (its mm is gone):
		 * that is no snapshot of its memory, and would end the record as an empty one */
		if (!r && (cs->target < 0 ? targets_gone(c) : target_exited(c, (unsigned)cs->target))) {
			skipped = true;
			continue;
		}
		memset(it, 0, sizeof(*it));
		it->type = DAMONCTL_REC_SNAPSHOT;
		s->kdamond = c->kdamond;
		s->context = 0;
		s->target = cs->target;
		s->scheme = -1;
		s->end_ns = now;
		s->start_ns = now - c->aggr_us * 1000;
		s->sample_us = c->sample_us;
		s->aggr_us = c->aggr_us;
		s->update_us = c->update_us;
		s->total_bytes = total;
		s->has_sz_filter_passed = has_sz;
		s->nr_regions = (uint32_t)r;
		s->regions = cs->regions;
		c->nr_pending++;
	}
	if (skipped && !c->nr_pending && targets_gone(c)) {
		capture_request_end(c, DAMONCTL_REC_END_TARGET_EXITED);
		return 0;
	}
	take_stats(c, now);
	take_footprint(c);
	c->nr_ticks++;
	return 0;
}

/* Sleep until the next tick; false when the capture should end instead. */
static bool wait_tick(struct capture *c)
{
	for (;;) {
		uint64_t now = mono_ns(), elapsed = capture_now_ns() - c->start_ns;
		struct timespec ts;

		if (capture_stop_requested) {
			capture_request_end(c, DAMONCTL_REC_END_SIGNAL);
			return false;
		}
		if (c->o.duration_us && elapsed >= c->o.duration_us * 1000) {
			capture_request_end(c, DAMONCTL_REC_END_DURATION);
			return false;
		}
		if (c->o.count && c->nr_ticks >= c->o.count) {
			capture_request_end(c, DAMONCTL_REC_END_COUNT);
			return false;
		}
		if (targets_gone(c)) {
			capture_request_end(c, DAMONCTL_REC_END_TARGET_EXITED);
			return false;
		}
		if (now >= c->next_tick_ns)
			break;
		/* wake at least every 100 ms to notice the end of --duration */
		{
			uint64_t d = c->next_tick_ns - now;

			if (d > 100000000u)
				d = 100000000u;
			ts.tv_sec = (time_t)(d / 1000000000u);
			ts.tv_nsec = (long)(d % 1000000000u);
			nanosleep(&ts, NULL);
		}
	}
	{
		uint64_t now = mono_ns(), iv = c->o.interval_us * 1000;

		if (now - c->next_tick_ns > c->max_late_ns)
			c->max_late_ns = now - c->next_tick_ns;
		c->next_tick_ns += iv;
		/* fell behind: the snapshots due meanwhile are missed (counted, not taken in a
		 * burst to catch up) */
		if (c->next_tick_ns < now) {
			c->nr_missed += (now - c->next_tick_ns) / iv + 1;
			c->next_tick_ns = now + iv;
		}
	}
	return true;
}

/* The trace method: every aggregation arrives by itself; one snapshot per target and
 * interval is kept, and the stats (when we may ask for them) follow the interval too. */
static int trace_next_item(struct capture *c, struct damonctl_rec_item *item)
{
	for (;;) {
		struct damonctl_rec_snapshot snap;
		uint64_t now = capture_now_ns();
		int r;

		if (c->next_pending < c->nr_pending) {
			*item = c->pending[c->next_pending++];
			return 1;
		}
		if (capture_stop_requested)
			capture_request_end(c, DAMONCTL_REC_END_SIGNAL);
		else if (c->o.duration_us && now - c->start_ns >= c->o.duration_us * 1000)
			capture_request_end(c, DAMONCTL_REC_END_DURATION);
		else if (c->o.count && c->nr_ticks >= c->o.count)
			capture_request_end(c, DAMONCTL_REC_END_COUNT);
		else if (targets_gone(c))
			capture_request_end(c, DAMONCTL_REC_END_TARGET_EXITED);
		if (c->ended)
			return 0;
		r = trace_next(c->trace, 100, &snap);
		if (r < 0)
			return -lib_error(c->cli, r, "reading the trace of kdamond %u", c->kdamond);
		if (!r) {
			if (kdamond_gone(c))
				capture_request_end(c, DAMONCTL_REC_END_KDAMOND_STOPPED);
			continue;
		}
		if (snap.target < 0 || snap.target >= 64 || snap.end_ns < c->start_ns ||
		    (c->last_kept_ns[snap.target] &&
		     snap.end_ns - c->last_kept_ns[snap.target] + 500000 < c->o.interval_us * 1000))
			continue;
		if (c->last_kept_ns[snap.target]) {
			/* the events come once per aggregation: a gap of more than one and a
			 * half of the intervals they can come at is missed snapshots */
			uint64_t iv = (c->o.interval_us > c->aggr_us ? c->o.interval_us :
				       c->aggr_us) * 1000;
			uint64_t gap = snap.end_ns - c->last_kept_ns[snap.target];

			if (gap > iv + iv / 2)
				c->nr_missed += (gap + iv / 2) / iv - 1;
			if (gap > iv && gap - iv > c->max_late_ns)
				c->max_late_ns = gap - iv;
		}
		c->last_kept_ns[snap.target] = snap.end_ns;
		c->nr_pending = c->next_pending = 0;
		memset(&c->pending[0], 0, sizeof(c->pending[0]));
		c->pending[0].type = DAMONCTL_REC_SNAPSHOT;
		snap.kdamond = c->kdamond;
		snap.context = 0;
		snap.start_ns = snap.end_ns - c->aggr_us * 1000;
		snap.sample_us = c->sample_us;
		snap.aggr_us = c->aggr_us;
		snap.update_us = c->update_us;
		c->pending[0].snapshot = snap;
		c->nr_pending = 1;
		c->nr_ticks++;
		if (c->may_write && now >= c->next_stats_ns) {
			take_stats(c, now);
			c->next_stats_ns = now + c->o.interval_us * 1000;
		}
		if (now >= c->next_footprint_ns) {
			take_footprint(c);
			c->next_footprint_ns = now + c->o.interval_us * 1000;
		}
	}
}

static int next_item(struct capture *c, struct damonctl_rec_item *item)
{
	if (c->trace && c->next_pending >= c->nr_pending)
		return trace_next_item(c, item);
	while (c->next_pending >= c->nr_pending) {
		int r;

		uint64_t t;

		if (c->ended || !wait_tick(c))
			return 0;
		t = mono_ns();
		r = tick(c);
		c->work_ns += mono_ns() - t;
		if (r)
			return -r;
		if (c->ended)
			return 0;
	}
	*item = c->pending[c->next_pending++];
	return 1;
}

int capture_next(struct capture *c, struct damonctl_rec_item *item)
{
	int r = next_item(c, item);

	/* DAMON gives paddr addresses in units of addr_unit (6.18); a record holds bytes */
	if (r == 1 && item->type == DAMONCTL_REC_SNAPSHOT && c->addr_unit > 1) {
		struct damonctl_rec_snapshot *s = &item->snapshot;
		/* the capture's own buffer, consumed once */
		struct damonctl_rec_region *rg = (struct damonctl_rec_region *)s->regions;

		for (uint32_t i = 0; i < s->nr_regions; i++) {
			rg[i].start *= c->addr_unit;
			rg[i].end *= c->addr_unit;
			rg[i].sz_filter_passed *= c->addr_unit;
		}
		s->total_bytes *= c->addr_unit;
	}
	return r;
}

int capture_finish(struct capture *c)
{
	struct damonctl_kdamond *now = NULL, *orig;
	int r = 0, e = EXIT_OK;
	unsigned int i;

	if (!c)
		return EXIT_OK;
	trace_close(c->trace);
	/* drop the region directories the snapshots made the kernel create */
	if (!c->trace)
		damonctl_kdamond_cmd(c->cli->ctx, c->kdamond,
				     DAMONCTL_CMD_CLEAR_SCHEMES_TRIED_REGIONS);
	damonctl_clear_error(c->cli->ctx);
	if (c->installed) {
		int lock = started_lock(c->cli->ctx);

		orig = damonctl_tree_kdamond(c->orig, c->kdamond);
		r = damonctl_kdamond_read(c->cli->ctx, c->kdamond, &now);
		/* one that stopped or was restarted meanwhile gets its files staged only */
		if (!r && kdamond_gone(c)) {
			r = damonctl_kdamond_stage(c->cli->ctx, orig, now);
		} else if (!r) {
			r = damonctl_kdamond_commit(c->cli->ctx, orig, now, DAMONCTL_COMMIT_F_FULL,
						    NULL);
			/* it stopped between the check and the commit (its target exited), or
			 * a target exited and no commit may name it: the files at least */
			if (r == -ECANCELED || r == -ESRCH || (r && kdamond_gone(c))) {
				if (r == -ESRCH && !kdamond_gone(c))
					warnx_("record: kdamond %u keeps the capture scheme until "
					       "its next commit: a target of it exited (its files "
					       "are put back)", c->kdamond);
				damonctl_clear_error(c->cli->ctx);
				damonctl_kdamond_free(now);
				now = NULL;
				r = damonctl_kdamond_read(c->cli->ctx, c->kdamond, &now);
				if (!r)
					r = damonctl_kdamond_stage(c->cli->ctx, orig, now);
			}
		}
		if (r)
			e = lib_error(c->cli, r, "restoring kdamond %u's configuration (the capture "
				      "scheme may still be installed; the next capture retries)",
				      c->kdamond);
		else
			capture_guard_remove(c->cli->ctx, c->kdamond);
		damonctl_kdamond_free(now);
		started_unlock(lock);
	}
	for (i = 0; i < c->nr_cs; i++)
		free(c->cs[i].regions);
	damonctl_features_free(c->f);
	damonctl_tree_free(c->orig);
	free(c->config_json);
	free(c->footprint_json);
	free(c);
	return e;
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
	if (o->method == CAPTURE_TRACE)
		return 0;
	r = capture_add_schemes(c, f);
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
