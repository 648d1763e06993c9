// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc agent: serves the user-space fallbacks (fallback.h) of the kdamonds damonc started.
 *
 * Every quota interval (a round) libdamonctl's fallback server (damonctl_fallback_server_new(3))
 * does the work: it feeds the hugepage_mem_bp values of user_input goals, and collapses (or
 * lets the kernel collapse) hot huge pages within each budget while the goal is not met.
 * The agent turns what the server tells into its log's sentences, and keeps its counters
 * under <sysroot>/run/damonc/agent-<kdamond>.json for `status` and `report hugepage`.
 *
 * Between rounds it waits on the kernel's process events connector (libdamonctl's
 * procevents), so a target's exit is noticed at once and, with --follow-children, a
 * target's new child becomes a target of its kdamond (staged with every pid, then
 * committed). Without the connector it checks the targets at every round instead.
 *
 * It ends serving a kdamond that stopped (by itself when its targets exited, or stopped by
 * someone else), gives up on one the kernel keeps refusing (and stops it: its fallbacks
 * are part of what it was started for), and on SIGTERM/SIGINT stops what it serves unless
 * told to leave it running. It exits when nothing is left to serve, leaving no pid or stats
 * file behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_stats.h"
#include "fallback.h"
#include "metrics.h"
#include "started.h"

#define MAX_TARGETS STARTED_MAX_TARGETS
#define MAX_REFUSALS 3		/* refusals in a row before giving up on a kdamond */
#define STATS_SAVE_MS 10000	/* the stats file, rewritten at least this often */
#define RECORD_CHECK_MS 10000	/* damonc's record, read whole at least this often */
#define SELF_STOP_WAIT_MS 5000	/* for a kdamond whose targets all exited to stop */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void agent_log(const char *fmt, ...)
{
	char when[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "damonc agent[%d] %s.%03ld: ", (int)getpid(), when, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

static const char *pct(uint64_t bp, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64 "%%", bp / 100, bp % 100);
	return buf;
}

/* ---- what is served ---- */

struct served {
	struct started_entry e;		/* as recorded; targets[i] <= 0 once it exited */
	struct damonctl_fallback_stats st;
	struct damonctl_fallback_server *srv;	/* its rounds: libdamonctl's */
	uint64_t next_ms;		/* the next round */
	unsigned int refusals;		/* in a row */
	bool busy_logged;		/* EBUSY said once until it passes */
	uint64_t all_gone_ms;		/* when its last target exited (0: some live) */
	uint64_t off_seen_ms;		/* when it was first seen stopped */
	struct damonctl_fallback_stats saved;	/* as the stats file has them */
	uint64_t saved_ms;		/* ... since */
};

struct agent {
	struct cli *cli;
	int only;			/* serve this kdamond only (foreground); -1: every one */
	bool leave_running;
	bool follow_children;		/* for every kdamond, not only those started with it */
	bool persist;			/* wait for work when nothing is left (a service) */
	struct damonctl_procevents *pe;
	int watched[DAMONCTL_PROCEVENTS_MAX_WATCH];	/* what the kernel passes events of */
	unsigned int nr_watched;
	bool watch_all;			/* more targets than a filter holds */
	struct served *sv;
	unsigned int nr;
	bool served_any;
	struct metrics_textfile *textfile;	/* --metrics-textfile, or NULL */
	struct stat record_st;		/* damonc's record when last read whole ... */
	uint64_t record_ms;		/* ... and when */
};

static bool proc_alive(struct cli *cli, int pid)
{
	return damonctl_proc_alive(cli->ctx, pid) == 1;
}

/* Whether @e still describes a running kdamond of ours: 1 yes, 0 no; *why says why not. */
static int kdamond_state(struct cli *cli, const struct started_entry *e, const char **why)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int pid = -1, r, tries = 0;

	/* reading state takes DAMON's sysfs lock with a trylock on real kernels: EBUSY says
	 * another writer holds it for a moment, not that the kdamond is gone */
	while ((r = damonctl_kdamond_is_running(cli->ctx, e->kdamond, &pid)) == -EBUSY &&
	       ++tries < 50)
		nanosleep(&pause, NULL);
	damonctl_clear_error(cli->ctx);
	if (r == -EBUSY)
		return 1;	/* unknown for now: looked at again at the next turn */

	if (r == 1 && pid == e->pid)
		return 1;
	*why = r < 0 ? "its directory is gone" : r == 1 ? "it was restarted by someone else" :
	       "it is off";
	return 0;
}

static unsigned int live_targets(const struct served *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->e.nr_targets; i++)
		n += s->e.targets[i] > 0;
	return n;
}

static void describe_targets(const struct served *s, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < s->e.nr_targets && n < size; i++) {
		int p = s->e.targets[i];
		int w = snprintf(buf + n, size - n, "%s%d%s", n ? ", " : "", p > 0 ? p : -p,
				 p > 0 ? "" : " (exited)");

		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (!n)
		snprintf(buf, size, "none");
}

/* Update the record of kdamond @s (targets, fallbacks, serving process); @clear: it is not
 * served any more. */
static void record_update(struct agent *ag, struct served *s, bool clear)
{
	int lock = started_lock(ag->cli->ctx);
	struct started started;
	struct started_entry *e;

	if (started_load(ag->cli->ctx, &started)) {
		started_unlock(lock);
		return;
	}
	e = started_find(&started, s->e.kdamond);
	if (e && e->pid == s->e.pid) {
		unsigned int i;

		if (clear) {
			memset(&e->fbs, 0, sizeof(e->fbs));
			e->follow_children = false;
			e->server_pid = 0;
		} else {
			e->fbs = s->e.fbs;
			e->nr_targets = 0;
			for (i = 0; i < s->e.nr_targets; i++)
				if (s->e.targets[i] > 0)
					e->targets[e->nr_targets++] = s->e.targets[i];
			e->server_pid = s->e.server_pid;
		}
		started_save(ag->cli->ctx, &started);
	}
	started_free(&started);
	started_unlock(lock);
}

static void served_free(struct served *s)
{
	damonctl_fallback_server_free(s->srv);
	s->srv = NULL;
}

/* The server takes @s's plan; @keep: in place when only goals and quotas changed (1). */
static int served_replan(struct served *s, bool keep)
{
	struct damonctl_fallbacks *l = fallback_to_lib(&s->e.fbs);
	int r = l ? damonctl_fallback_server_set_plan(s->srv, l, keep) : -ENOMEM;

	damonctl_fallbacks_free(l);
	return r;
}

/* Stop serving @sv[i]: say why, stop the kdamond if asked, drop its stats file. */
static void end_served(struct agent *ag, unsigned int i, bool stop_it, const char *why)
{
	struct served *s = &ag->sv[i];
	char sz[32], col[32];
	uint64_t nr = 0, bytes = 0, collapsed = 0;
	unsigned int j;
	int r;

	if (stop_it) {
		r = damonctl_kdamond_cmd(ag->cli->ctx, s->e.kdamond, DAMONCTL_CMD_OFF);
		if (r && r != -EPERM && r != -EINVAL)
			agent_log("kdamond %u: could not stop it: %s", s->e.kdamond, strerror(-r));
	}
	for (j = 0; j < s->st.nr; j++) {
		nr += s->st.s[j].nr_applied;
		bytes += s->st.s[j].sz_applied;
		collapsed += s->st.s[j].sz_collapsed;
	}
	if (nr)
		agent_log("kdamond %u: no longer served (%s); the agent collapsed %" PRIu64
			  " regions (%s, %s newly huge) for it over %" PRIu64 " rounds",
			  s->e.kdamond, why, nr, fmt_size(bytes, sz, sizeof(sz)),
			  fmt_size(collapsed, col, sizeof(col)), s->st.rounds);
	else
		agent_log("kdamond %u: no longer served (%s)", s->e.kdamond, why);
	/* the stats describe a running service: none is left behind */
	agent_stats_remove(ag->cli->ctx, s->e.kdamond);
	served_free(s);
	record_update(ag, s, true);
	memmove(&ag->sv[i], &ag->sv[i + 1], (ag->nr - i - 1) * sizeof(*ag->sv));
	ag->nr--;
}

/* ---- refusals ---- */

/* The kernel refused @what: retry next round, give up after MAX_REFUSALS in a row.
 * Returns true when @sv[i] was ended. */
static bool refused(struct agent *ag, unsigned int i, const char *what, int err)
{
	struct served *s = &ag->sv[i];
	const char *why;
	char msg[512];

	if (!kdamond_state(ag->cli, &s->e, &why))
		return false;	/* it stopped: the next check says so */
	/* a sysfs write has the library's sentence; anything else its errno */
	if (!strncmp(what, "the kernel refused", 18))
		damonctl_strerror(ag->cli->ctx, err, msg, sizeof(msg));
	else
		snprintf(msg, sizeof(msg), "%s", strerror(-err));
	damonctl_clear_error(ag->cli->ctx);
	/* another writer holds DAMON's sysfs lock for a moment, or rewrote what we read (a
	 * reading command's capture: its scheme installed, its tried-regions update): not the
	 * kernel refusing us, and no reason to stop what the user started */
	if (err == -EBUSY || ((err == -ENOENT || err == -ENODEV) && !strncmp(what, "reading", 7))) {
		if (!s->busy_logged)
			agent_log("kdamond %u: %s (%s: %s); retrying next round", s->e.kdamond,
				  err == -EBUSY ? "DAMON is busy" : "the tree changed under the read",
				  what, msg);
		s->busy_logged = true;
		return false;
	}
	s->refusals++;
	if (s->refusals < MAX_REFUSALS) {
		agent_log("kdamond %u: %s: %s (%u of %d refusals in a row: retrying next round)",
			  s->e.kdamond, what, msg, s->refusals, MAX_REFUSALS);
		return false;
	}
	agent_log("kdamond %u: %s: %s; giving up after %u refusals in a row, and stopping it: "
		  "what it was started for cannot be served", s->e.kdamond, what, msg,
		  s->refusals);
	end_served(ag, i, true, "the kernel kept refusing");
	return true;
}

static void accepted(struct served *s)
{
	s->busy_logged = false;
	if (s->refusals)
		agent_log("kdamond %u: the kernel accepts the agent's commands again",
			  s->e.kdamond);
	s->refusals = 0;
}

/* ---- what the server did, in sentences ---- */

static void say_goal(const struct damonctl_fallback_event *ev)
{
	char a[16], b[16], c[16], sz[32];

	switch (ev->kind) {
	case DAMONCTL_FBEV_FEEDING:
		agent_log("kdamond %u scheme %u: feeding hugepage_mem_bp (%s) to its user_input "
			  "goal %u every %" PRIu64 " ms: ratio %s, goal %s", ev->kdamond,
			  ev->scheme, ev->scope_pid ? "over its targets" : "system-wide", ev->goal,
			  ev->reset_ms, pct(ev->bp, a, sizeof(a)), pct(ev->target_bp, b, sizeof(b)));
		break;
	case DAMONCTL_FBEV_GOAL_MET:
		agent_log("kdamond %u scheme %u: goal met (%s, goal %s, %s): %s", ev->kdamond,
			  ev->scheme, pct(ev->bp, a, sizeof(a)), pct(ev->target_bp, b, sizeof(b)),
			  ev->scope_pid ? "its targets" : "system-wide",
			  ev->by_kernel ? "the kernel collapses nothing more" : "not collapsing");
		break;
	case DAMONCTL_FBEV_GOAL_MISSED:
		agent_log("kdamond %u scheme %u: ratio %s below goal %s again: %s", ev->kdamond,
			  ev->scheme, pct(ev->bp, a, sizeof(a)), pct(ev->target_bp, b, sizeof(b)),
			  ev->by_kernel ? "the kernel collapses again" : "collapsing again");
		break;
	case DAMONCTL_FBEV_UNREACHABLE:
		agent_log("kdamond %u scheme %u: goal not reachable: hot memory is %s (%s); with "
			  "all of it huge the ratio would be %s", ev->kdamond, ev->scheme,
			  fmt_size(ev->hot_bytes, sz, sizeof(sz)), pct(ev->hot_bp, b, sizeof(b)),
			  pct(ev->reachable_bp, c, sizeof(c)));
		break;
	case DAMONCTL_FBEV_REACHABLE:
		agent_log("kdamond %u scheme %u: the goal is reachable again (hot memory %s)",
			  ev->kdamond, ev->scheme, fmt_size(ev->hot_bytes, sz, sizeof(sz)));
		break;
	default:
		break;
	}
}

static void say_collapsed(const struct damonctl_fallback_event *ev)
{
	const char *used = ev->quota_used ? "; the quota of this interval is used up" : "";
	char a[16], b[16], sz[32];

	fmt_size(ev->pages * DAMONCTL_HUGEPAGE_SIZE, sz, sizeof(sz));
	if (ev->target_bp)
		agent_log("kdamond %u: collapsed %zu huge pages (%s%s) of pid %d in %" PRIu64
			  " ms; ratio %s %s goal %s%s", ev->kdamond, (size_t)ev->pages, sz,
			  ev->some_failed ? ", some failed" : "", ev->pid, ev->busy_us / 1000,
			  pct(ev->bp, a, sizeof(a)), ev->bp >= ev->target_bp ? ">=" : "<",
			  pct(ev->target_bp, b, sizeof(b)), used);
	else
		agent_log("kdamond %u: collapsed %zu huge pages (%s%s) of pid %d in %" PRIu64
			  " ms%s", ev->kdamond, (size_t)ev->pages, sz,
			  ev->some_failed ? ", some failed" : "", ev->pid, ev->busy_us / 1000, used);
}

/* libdamonctl's fallback server tells what it did: the agent's log says it. */
static void on_event(const struct damonctl_fallback_event *ev, void *arg)
{
	char a[16], b[16], sz[32];

	(void)arg;
	switch (ev->kind) {
	case DAMONCTL_FBEV_COLLAPSED:
		say_collapsed(ev);
		break;
	case DAMONCTL_FBEV_GRANTED:
		agent_log("kdamond %u scheme %u: the kernel may collapse %s in %u ranges; ratio %s, "
			  "goal %s", ev->kdamond, ev->scheme, fmt_size(ev->bytes, sz, sizeof(sz)),
			  (unsigned int)ev->nr, pct(ev->bp, a, sizeof(a)),
			  pct(ev->target_bp, b, sizeof(b)));
		break;
	case DAMONCTL_FBEV_COLLAPSE_DENIED:
		agent_log("kdamond %u scheme %u: process_madvise(MADV_COLLAPSE) on pid %d: %s "
			  "(the agent needs CAP_SYS_ADMIN and a kernel with MADV_COLLAPSE)",
			  ev->kdamond, ev->scheme, ev->pid, strerror(-ev->err));
		break;
	case DAMONCTL_FBEV_PIDFD_FAILED:
		agent_log("kdamond %u: pidfd_open(%d): %s: cannot collapse its memory",
			  ev->kdamond, ev->pid, strerror(-ev->err));
		break;
	default:
		say_goal(ev);
		break;
	}
}

/* The step of a round that failed, as refused() says it. */
static const char *step_what(enum damonctl_fallback_step step)
{
	switch (step) {
	case DAMONCTL_FBSTEP_MEASURE:
		return "measuring the huge-page ratio failed";
	case DAMONCTL_FBSTEP_GOAL_VALUE:
		return "the kernel refused the goal's current_value";
	case DAMONCTL_FBSTEP_GOAL_COMMIT:
		return "the kernel refused commit_schemes_quota_goals";
	case DAMONCTL_FBSTEP_GRANT:
		return "the kernel refused the collapse scheme's allowed ranges";
	case DAMONCTL_FBSTEP_TRIED_REGIONS:
		return "the kernel refused update_schemes_tried_regions";
	case DAMONCTL_FBSTEP_READ_REGIONS:
		return "reading the regions DAMON found failed";
	default:
		return "serving its fallbacks failed";
	}
}

/* ---- rounds ---- */

static bool coverage_moved(const struct damonctl_fallback_stats *a,
			   const struct damonctl_fallback_stats *b)
{
	uint64_t x = UINT64_MAX, y = UINT64_MAX;

	damonctl_hugepage_coverage_bp(&a->coverage, &x);
	damonctl_hugepage_coverage_bp(&b->coverage, &y);
	return (x > y ? x - y : y - x) >= 10;
}

/* Whether @a and @b differ in more than what changes at every round (the count of rounds,
 * their time, the ratio's last digits): what `status` must see at once. */
static bool stats_moved(const struct damonctl_fallback_stats *a,
			const struct damonctl_fallback_stats *b)
{
	uint64_t d = a->measured_bp > b->measured_bp ? a->measured_bp - b->measured_bp :
		     b->measured_bp - a->measured_bp;
	struct damonctl_fallback_stats x, y;

	if (d >= 10)
		return true;	/* a tenth of a percent */
	/* byte copies: the padding compared is the server's (calloc'ed) */
	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	x.rounds = y.rounds = 0;
	x.updated = y.updated = 0;
	x.measured_bp = y.measured_bp = 0;
	/* the coverage's weights move at every look: its tenth of a percent counts */
	if (coverage_moved(a, b))
		return true;
	memset(&x.coverage, 0, sizeof(x.coverage));
	memset(&y.coverage, 0, sizeof(y.coverage));
	memset(x.tc, 0, sizeof(x.tc));
	memset(y.tc, 0, sizeof(y.tc));
	return memcmp(&x, &y, sizeof(x)) != 0;
}

/* The stats file, rewritten when something but the round's count moved, and at least every
 * STATS_SAVE_MS (a file a second is most of what holding a goal costs). */
static void save_stats(struct agent *ag, struct served *s, uint64_t now)
{
	if (s->saved_ms && now - s->saved_ms < STATS_SAVE_MS && !stats_moved(&s->st, &s->saved))
		return;
	agent_stats_save(ag->cli->ctx, s->e.kdamond, &s->st);
	memcpy(&s->saved, &s->st, sizeof(s->saved));
	s->saved_ms = now;
}

/* One round for @sv[i]. Returns true when it was ended. */
static bool serve_round(struct agent *ag, unsigned int i)
{
	struct served *s = &ag->sv[i];
	uint64_t t0 = now_ms(), t1;
	int r;

	s->next_ms = t0 + damonctl_fallback_server_interval_ms(s->srv);
	if (!s->e.fbs.nr)
		return false;	/* followed only */
	damonctl_fallback_server_set_targets(s->srv, s->e.targets, s->e.nr_targets);
	r = damonctl_fallback_server_round(s->srv);
	/*
	 * A tried-regions update holds DAMON's sysfs lock (a trylock for everyone else) until
	 * the kdamond answers, which can take longer than our interval on a slow machine: rest
	 * at least as long as the round took, so that `damonc stop` and other users of DAMON
	 * get the lock at least half of the time.
	 */
	t1 = now_ms();
	if (s->next_ms < t1 + (t1 - t0))
		s->next_ms = t1 + (t1 - t0);
	damonctl_fallback_server_stats(s->srv, &s->st);
	save_stats(ag, s, t1);
	if (r)
		return refused(ag, i, step_what(damonctl_fallback_server_failed_step(s->srv)), r);
	accepted(s);
	return false;
}

/* ---- following children: new targets, online ---- */

/*
 * Make @child a target of @s's kdamond, online, by libdamonctl's retarget transaction (the
 * one `tune --add-target` makes): the child checked as start checks its targets, targets
 * that exited dropped (a dead pid would make the commit fail), the collapse budgets
 * following their targets (a stat scheme with a target filter per target where collapse is
 * emulated: tried regions do not say whose they are); then committed, the pids read back
 * first.
 */
static int add_target(struct agent *ag, struct served *s, int child, char *why, size_t size)
{
	struct damonctl_kdamond *have = NULL, *want = NULL;
	struct damonctl_features *f = NULL;
	struct damonctl_fallbacks *l = fallback_to_lib(&s->e.fbs);
	struct damonctl_retarget rt = { .sz = sizeof(rt), .add = &child, .nr_add = 1,
					.flags = DAMONCTL_RETARGET_DROP_EXITED, .fbs = l,
					.nowhere = STARTED_TARGET_NOWHERE, .why = why,
					.why_size = size };
	struct damonctl_context *c;
	unsigned int i;
	int r = l ? damonctl_kdamond_read(ag->cli->ctx, s->e.kdamond, &have) : -ENOMEM;

	if (!r)
		r = damonctl_features_detect(ag->cli->ctx, &f);
	want = r ? NULL : damonctl_kdamond_dup(have);
	if (r || !want) {
		snprintf(why, size, "reading the DAMON tree: %s", strerror(r ? -r : ENOMEM));
		r = r ? r : -ENOMEM;
		goto out;
	}
	r = damonctl_kdamond_retarget(ag->cli->ctx, want, f, &rt, NULL);
	c = r ? NULL : damonctl_kdamond_context(want, 0);
	if (!r && damonctl_context_nr_targets(c) > MAX_TARGETS) {
		snprintf(why, size, "it has %d targets already, damonc's most", MAX_TARGETS);
		r = -ENOSPC;
	}
	/* checks that every pid is in place before committing, undoes the staging if not */
	if (!r) {
		r = damonctl_kdamond_commit(ag->cli->ctx, want, have, DAMONCTL_COMMIT_F_FULL, NULL);
		if (r)
			damonctl_strerror(ag->cli->ctx, r, why, size);
	}
	if (r)
		goto out;
	fallback_from_lib(l, &s->e.fbs);
	s->e.nr_targets = 0;
	for (i = 0; i < damonctl_context_nr_targets(c); i++)
		if (!damonctl_target_get(damonctl_context_target(c, i), DAMONCTL_TARGET_OBSOLETE))
			s->e.targets[s->e.nr_targets++] = (int)damonctl_target_get_int(
				damonctl_context_target(c, i), DAMONCTL_TARGET_PID);
	s->all_gone_ms = 0;
	served_replan(s, false);	/* the plans follow budgets by index, which moved */
	record_update(ag, s, false);
out:
	damonctl_clear_error(ag->cli->ctx);
	damonctl_fallbacks_free(l);
	damonctl_features_free(f);
	damonctl_kdamond_free(want);
	damonctl_kdamond_free(have);
	return r;
}

static void follow_child(struct agent *ag, int parent, int child)
{
	unsigned int i, j;

	for (i = 0; i < ag->nr; i++) {
		struct served *s = &ag->sv[i];
		char why[512], tg[128];
		bool ours = false;

		if (!s->e.follow_children && !ag->follow_children)
			continue;
		for (j = 0; j < s->e.nr_targets; j++) {
			ours |= s->e.targets[j] == parent;
			if (s->e.targets[j] == child)
				return;	/* known already */
		}
		if (!ours)
			continue;
		if (add_target(ag, s, child, why, sizeof(why))) {
			agent_log("kdamond %u: cannot add pid %d, a child of target %d: %s",
				  s->e.kdamond, child, parent, why);
			continue;
		}
		describe_targets(s, tg, sizeof(tg));
		agent_log("kdamond %u: pid %d, a child of target %d, is a target now (targets: %s)",
			  s->e.kdamond, child, parent, tg);
	}
}

/* Without process events: children of the targets, from /proc/PID/task/TID/children. */
static void scan_children(struct agent *ag)
{
	unsigned int i, j;

	for (i = 0; i < ag->nr; i++) {
		struct served *s = &ag->sv[i];

		if (!s->e.follow_children && !ag->follow_children)
			continue;
		for (j = 0; j < s->e.nr_targets; j++) {
			int parent = s->e.targets[j], kids[64], n, k;

			if (parent <= 0)
				continue;
			n = damonctl_proc_children(ag->cli->ctx, parent, kids, 64);
			for (k = 0; k < n && k < 64; k++)
				follow_child(ag, parent, kids[k]);
		}
	}
}

/* ---- targets exiting ---- */

static void target_exited(struct agent *ag, int pid, int code, bool from_event)
{
	unsigned int i, j;

	for (i = 0; i < ag->nr; i++) {
		struct served *s = &ag->sv[i];

		for (j = 0; j < s->e.nr_targets; j++) {
			if (s->e.targets[j] != pid)
				continue;
			s->e.targets[j] = -pid;
			if (from_event)
				agent_log("kdamond %u: target pid %d exited (%s %d)", s->e.kdamond,
					  pid, WIFSIGNALED(code) ? "signal" : "status",
					  WIFSIGNALED(code) ? WTERMSIG(code) : WEXITSTATUS(code));
			else
				agent_log("kdamond %u: target pid %d is gone", s->e.kdamond, pid);
			if (!live_targets(s)) {
				s->all_gone_ms = now_ms();
				agent_log("kdamond %u: all its targets exited: the kernel stops it "
					  "by itself", s->e.kdamond);
			}
		}
	}
}

/* Without process events (or after some were lost): check every target. */
static void check_targets(struct agent *ag)
{
	unsigned int i, j;

	for (i = 0; i < ag->nr; i++)
		for (j = 0; j < ag->sv[i].e.nr_targets; j++)
			if (ag->sv[i].e.targets[j] > 0 &&
			    !proc_alive(ag->cli, ag->sv[i].e.targets[j]))
				target_exited(ag, ag->sv[i].e.targets[j], 0, false);
}

static void drain_events(struct agent *ag)
{
	struct damonctl_procevent ev = DAMONCTL_PROCEVENT_INIT;
	int r;

	while ((r = damonctl_procevents_next(ag->pe, &ev)) == 1) {
		if (ev.kind == DAMONCTL_PROCEVENT_EXIT)
			target_exited(ag, ev.pid, ev.exit_code, true);
		else
			follow_child(ag, ev.parent_pid, ev.pid);
	}
	if (r == -ENOBUFS) {
		agent_log("process events were lost (the agent fell behind): checking every "
			  "target");
		check_targets(ag);
		scan_children(ag);
	} else if (r < 0) {
		agent_log("process events: %s; checking the targets every round from now on",
			  strerror(-r));
		damonctl_procevents_close(ag->pe);
		ag->pe = NULL;
	}
}

/* Let the kernel pass only the events of the targets (a socket filter), so that the agent
 * sleeps through the rest of the system's forks and exits. When the set grows, what
 * happened before the filter let it through is caught by looking once. */
static void update_watch(struct agent *ag)
{
	int pids[DAMONCTL_PROCEVENTS_MAX_WATCH];
	unsigned int i, j, n = 0;
	bool all = false, grew = false;
	int r;

	if (!ag->pe)
		return;
	for (i = 0; i < ag->nr; i++) {
		for (j = 0; j < ag->sv[i].e.nr_targets; j++) {
			if (ag->sv[i].e.targets[j] <= 0)
				continue;
			if (n == DAMONCTL_PROCEVENTS_MAX_WATCH)
				all = true;
			else
				pids[n++] = ag->sv[i].e.targets[j];
		}
	}
	if (all == ag->watch_all && n == ag->nr_watched &&
	    !memcmp(pids, ag->watched, n * sizeof(pids[0])))
		return;
	for (i = 0; i < n && !grew; i++) {
		grew = true;
		for (j = 0; j < ag->nr_watched; j++)
			if (ag->watched[j] == pids[i])
				grew = false;
	}
	r = all ? 0 : damonctl_procevents_watch(ag->pe, pids, n);
	if (r)
		agent_log("cannot filter process events (%s): woken by every process", strerror(-r));
	if (all && !ag->watch_all) {
		/* no filter holds them all: a new subscription, without one, and the agent
		 * sorts every event out */
		damonctl_procevents_close(ag->pe);
		ag->pe = NULL;
		r = damonctl_procevents_open(&ag->pe);
		if (r)
			agent_log("process events: %s; checking the targets every round", strerror(-r));
	}
	memcpy(ag->watched, pids, n * sizeof(pids[0]));
	ag->nr_watched = n;
	ag->watch_all = all;
	if (grew) {
		check_targets(ag);
		scan_children(ag);
	}
}

/* ---- the set of served kdamonds ---- */

/* What `tune` changed in the record: goals and patterns move in place; a plan that grew
 * (a goal tuned in on a kdamond started without one) is taken whole. */
static void take_tuned(struct served *s, const struct started_entry *e)
{
	struct damonctl_fallbacks *l;
	unsigned int j, nr_live = 0;
	bool all_same = s->e.nr_targets == e->nr_targets, live_same = true;
	int r;

	/* `tune --add-target/--remove-target`: the record names other targets than ours, as
	 * they are (those that exited are negated in ours) or as the agent last wrote them
	 * (the live ones only) */
	for (j = 0; j < s->e.nr_targets; j++) {
		int pid = s->e.targets[j] < 0 ? -s->e.targets[j] : s->e.targets[j];

		all_same = all_same && pid == e->targets[j];
		if (s->e.targets[j] > 0)
			live_same = live_same && nr_live < e->nr_targets &&
				    s->e.targets[j] == e->targets[nr_live++];
	}
	live_same = live_same && nr_live == e->nr_targets;
	if (!all_same && !live_same) {
		s->e.nr_targets = e->nr_targets;
		memcpy(s->e.targets, e->targets, sizeof(e->targets));
		/* a process of the record may have exited since `tune` wrote it, its event
		 * seen already: it counts as gone, or its kdamond's end would go unnoticed */
		for (j = 0; j < s->e.nr_targets; j++)
			if (s->e.targets[j] > 0 && !damonctl_proc_same(s->e.targets[j], 0))
				s->e.targets[j] = -s->e.targets[j];
		s->all_gone_ms = 0;
		agent_log("kdamond %u: its targets changed (damonc tune)", s->e.kdamond);
	}

	/* goals, patterns and quotas move in place (a size quota `tune` wrote over the
	 * grant's is committed again) */
	l = fallback_to_lib(&e->fbs);
	r = l ? damonctl_fallback_server_set_plan(s->srv, l, true) : -ENOMEM;
	if (r == 1 && !damonctl_fallback_server_plan(s->srv, l))
		fallback_from_lib(l, &s->e.fbs);
	damonctl_fallbacks_free(l);
	if (r)
		return;
	s->e.fbs = e->fbs;
	s->e.follow_children = e->follow_children;
	s->next_ms = 0;
	agent_log("kdamond %u: its plan changed (damonc tune): serving it anew", s->e.kdamond);
}

/* @s's server, going on with the counts of a restarted agent for the very same kdamond
 * (the server keeps them, and the stats file takes them after each round). */
static int served_open(struct agent *ag, struct served *s)
{
	struct damonctl_fallback_server_opts o = { .sz = sizeof(o), .on_event = on_event };
	struct damonctl_fallbacks *l = fallback_to_lib(&s->e.fbs);
	int r;

	r = l ? damonctl_fallback_server_new(ag->cli->ctx, s->e.kdamond, l, s->e.targets,
					     s->e.nr_targets, &o, &s->srv) : -ENOMEM;
	damonctl_fallbacks_free(l);
	if (r)
		return r;
	agent_stats_load(ag->cli->ctx, s->e.kdamond, &s->st);
	if (s->st.kdamond_pid != s->e.pid) {
		memset(&s->st, 0, sizeof(s->st));
		s->st.sz = sizeof(s->st);
		s->st.kdamond = s->e.kdamond;
		s->st.kdamond_pid = s->e.pid;
	}
	s->st.agent_pid = (int)getpid();
	if (!s->st.since)
		s->st.since = (long long)time(NULL);
	return damonctl_fallback_server_set_stats(s->srv, &s->st);
}

/* Whether damonc's record may have changed since it was last read whole: it is replaced at
 * each change (a new inode), which a stat tells; and after RECORD_CHECK_MS anyway (a
 * `start --foreground` that serves a kdamond may have died since). */
static bool record_changed(struct agent *ag)
{
	struct stat st;
	uint64_t now = now_ms();
	const struct stat *o = &ag->record_st;

	if (started_stat(ag->cli->ctx, &st))
		return true;
	if (ag->record_ms && now - ag->record_ms < RECORD_CHECK_MS && st.st_ino == o->st_ino &&
	    st.st_dev == o->st_dev && st.st_size == o->st_size &&
	    st.st_mtim.tv_sec == o->st_mtim.tv_sec && st.st_mtim.tv_nsec == o->st_mtim.tv_nsec)
		return false;
	ag->record_st = st;
	ag->record_ms = now;
	return true;
}

/* Pick up kdamonds that need the agent and are not served yet; refresh the others'
 * goals (`tune` may have moved them). */
static void sync_served(struct agent *ag)
{
	struct started started;
	unsigned int i, j;

	if (!record_changed(ag) || started_load(ag->cli->ctx, &started))
		return;
	for (i = 0; i < started.nr; i++) {
		struct started_entry *e = &started.e[i];
		struct served *s = NULL, *n;
		const char *why;
		char desc[1024], tg[128];

		if (ag->only >= 0 && e->kdamond != (unsigned int)ag->only)
			continue;
		for (j = 0; j < ag->nr; j++)
			if (ag->sv[j].e.kdamond == e->kdamond && ag->sv[j].e.pid == e->pid)
				s = &ag->sv[j];
		if (s) {
			take_tuned(s, e);
			continue;
		}
		if (!started_needs_agent(e) && !(ag->follow_children && ag->only < 0))
			continue;
		if (ag->only < 0 && e->server_pid && e->server_pid != getpid() &&
		    proc_alive(ag->cli, e->server_pid))
			continue;	/* `start --foreground` serves it */
		if (!kdamond_state(ag->cli, e, &why))
			continue;
		n = realloc(ag->sv, (ag->nr + 1) * sizeof(*n));
		if (!n)
			break;
		ag->sv = n;
		s = &ag->sv[ag->nr++];
		memset(s, 0, sizeof(*s));
		s->e = *e;
		if (served_open(ag, s)) {
			ag->nr--;
			break;
		}
		for (j = 0; j < s->e.nr_targets; j++)
			if (!proc_alive(ag->cli, s->e.targets[j]))
				s->e.targets[j] = -s->e.targets[j];
		fallback_describe(&s->e.fbs, desc, sizeof(desc));
		describe_targets(s, tg, sizeof(tg));
		agent_log("serving kdamond %u (pid %d, targets %s): %s%s", e->kdamond, e->pid, tg,
			  *desc ? desc : "following its targets",
			  s->e.follow_children || ag->follow_children ?
			  "; following the targets' children" : "");
		ag->served_any = true;
		if (ag->only >= 0 && !s->e.server_pid) {
			s->e.server_pid = (int)getpid();
			record_update(ag, s, false);
		}
		if (!live_targets(s) && s->e.nr_targets)
			s->all_gone_ms = now_ms();
		if (s->e.follow_children || ag->follow_children)
			scan_children(ag);	/* children forked before we listened */
	}
	started_free(&started);
}

/* `damonc stop` clears what the agent does for the kdamonds it stops. */
static bool stopped_by_damonc(struct agent *ag, const struct served *s)
{
	struct started started;
	struct started_entry *e;
	bool r;

	if (started_load(ag->cli->ctx, &started))
		return false;
	e = started_find(&started, s->e.kdamond);
	r = e && e->pid == s->e.pid && !started_needs_agent(e);
	started_free(&started);
	return r;
}

/* End serving the kdamonds that stopped. */
static void check_stopped(struct agent *ag)
{
	unsigned int i = 0;

	while (i < ag->nr) {
		struct served *s = &ag->sv[i];
		const char *why;

		if (kdamond_state(ag->cli, &s->e, &why)) {
			if (s->all_gone_ms && now_ms() - s->all_gone_ms > SELF_STOP_WAIT_MS) {
				agent_log("kdamond %u still runs %d s after its last target exited: "
					  "stopping it", s->e.kdamond, SELF_STOP_WAIT_MS / 1000);
				end_served(ag, i, true, "its targets exited");
				continue;
			}
			i++;
			continue;
		}
		if (s->all_gone_ms || (s->e.nr_targets && !live_targets(s))) {
			end_served(ag, i, false, "it stopped by itself: its targets exited");
			continue;
		}
		/* `damonc stop` updates the record right after the kdamond stops: a moment
		 * to tell it from someone else */
		if (!s->off_seen_ms)
			s->off_seen_ms = now_ms();
		if (now_ms() - s->off_seen_ms < 500 && !stopped_by_damonc(ag, s)) {
			i++;
			continue;
		}
		if (stopped_by_damonc(ag, s))
			end_served(ag, i, false, "stopped with 'damonc stop'");
		else if (!strcmp(why, "it is off"))
			end_served(ag, i, false, "it was stopped behind the agent's back: "
				   "its state is off");
		else
			end_served(ag, i, false, why);
	}
}

static void install_signals(sigset_t *orig)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	/* delivered only while waiting (ppoll), so a collapse is never cut in the middle */
	sigprocmask(SIG_BLOCK, &block, orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int serve(struct agent *ag)
{
	sigset_t orig;
	unsigned int i;
	int r;

	install_signals(&orig);
	r = damonctl_procevents_open(&ag->pe);
	if (r)
		agent_log("process events connector unavailable (%s): checking the target "
			  "processes at every round instead", strerror(-r));
	else
		agent_log("following the target processes through the process events connector");
	while (!stop_signal) {
		uint64_t now, next = UINT64_MAX;
		struct pollfd p = { .fd = ag->pe ? damonctl_procevents_fd(ag->pe) : -1,
				    .events = POLLIN };
		struct timespec ts;

		sync_served(ag);
		update_watch(ag);
		if (!ag->pe) {
			check_targets(ag);
			scan_children(ag);
		}
		check_stopped(ag);
		now = now_ms();
		for (i = 0; i < ag->nr && !stop_signal; i++) {
			if (ag->sv[i].next_ms <= now && !ag->sv[i].all_gone_ms &&
			    !ag->sv[i].off_seen_ms) {
				if (serve_round(ag, i)) {
					i--;	/* ended: the next one moved here */
					continue;
				}
			}
		}
		/* damonc-metrics(1): the textfile, rewritten after the rounds (once a second) */
		if (ag->textfile)
			metrics_textfile_update(ag->cli, ag->textfile, false);
		if (!ag->nr && !ag->persist) {
			agent_log(ag->served_any ? "nothing left to serve: exiting" :
				  "nothing to serve: exiting");
			break;
		}
		if (!ag->nr && ag->served_any) {
			agent_log("nothing left to serve: waiting for damonc to start more (--persist)");
			ag->served_any = false;
		}
		now = now_ms();
		for (i = 0; i < ag->nr; i++) {
			uint64_t at = ag->sv[i].all_gone_ms || ag->sv[i].off_seen_ms ? now + 100 :
				      ag->sv[i].next_ms;

			if (at < next)
				next = at;
		}
		next = next > now ? next - now : 0;
		/* look at the record now and then: `start` adds kdamonds while we wait */
		if (next > 1000)
			next = 1000;
		ts.tv_sec = (time_t)(next / 1000);
		ts.tv_nsec = (long)(next % 1000) * 1000000;
		r = ppoll(&p, 1, &ts, &orig);
		if (r > 0 && ag->pe)
			drain_events(ag);
	}
	if (stop_signal) {
		agent_log("%s received: %s", strsignal(stop_signal), ag->leave_running ?
			  "leaving the kdamonds running, as asked (--leave-running)" :
			  "stopping the kdamonds the agent serves");
		while (ag->nr) {
			if (ag->leave_running) {
				agent_log("kdamond %u: left running; a new agent serves it again",
					  ag->sv[0].e.kdamond);
				agent_stats_save(ag->cli->ctx, ag->sv[0].e.kdamond, &ag->sv[0].st);
				ag->sv[0].e.server_pid = 0;
				record_update(ag, &ag->sv[0], false);
				served_free(&ag->sv[0]);
				memmove(&ag->sv[0], &ag->sv[1], (ag->nr - 1) * sizeof(*ag->sv));
				ag->nr--;
			} else {
				end_served(ag, 0, true, "stopped on a signal");
			}
		}
	}
	damonctl_procevents_close(ag->pe);
	ag->pe = NULL;
	free(ag->sv);
	ag->sv = NULL;
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return stop_signal ? 128 + stop_signal : 0;
}

int agent_serve_foreground(struct cli *cli, unsigned int kdamond, bool leave_running)
{
	struct agent ag = { .cli = cli, .only = (int)kdamond, .leave_running = leave_running };

	agent_log("serving kdamond %u from this process (damonc start --foreground)", kdamond);
	serve(&ag);
	return 0;
}

/* ---- the pid file and lock: one agent per sysroot ---- */

static int pidfile_path(struct cli *cli, char *buf, size_t size)
{
	return run_path(cli->ctx, "agent.pid", buf, size);
}

/* Hold the agent lock. Returns the fd, or -EBUSY if another agent holds it. */
static int lock_agent(struct cli *cli)
{
	char path[4096], dir[4096], buf[32];
	int fd, n, tries;

	if (run_path(cli->ctx, NULL, dir, sizeof(dir)) < 0 ||
	    pidfile_path(cli, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	n = damonctl_make_state_dir(dir);
	if (n)
		return n;
	for (tries = 0; tries < 10; tries++) {
		struct stat a, b;

		/* never through a link, never a FIFO or device put at its name */
		fd = damonctl_file_open(path, O_RDWR | O_CREAT, 0644);
		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			close(fd);
			return -EBUSY;
		}
		/* the file we locked must still be the one at the path: an agent that was
		 * exiting may have removed it meanwhile */
		if (fstat(fd, &a) || stat(path, &b) || a.st_ino != b.st_ino ||
		    a.st_dev != b.st_dev) {
			close(fd);
			continue;
		}
		n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
		if (ftruncate(fd, 0) || write(fd, buf, (size_t)n) != n) {
			close(fd);
			return -EIO;
		}
		return fd;
	}
	return -EAGAIN;
}

/* Remove the pid file, then let the lock go: no stale file behind. */
static void unlock_agent(struct cli *cli, int fd)
{
	char path[4096];

	if (pidfile_path(cli, path, sizeof(path)) >= 0)
		unlink(path);
	close(fd);
}

int agent_running_pid(struct cli *cli)
{
	char path[4096], *text, cmdline[4096], *p;
	int pid;
	ssize_t n;

	if (pidfile_path(cli, path, sizeof(path)) < 0 ||
	    damonctl_file_read(path, 31, &text, NULL))
		return 0;
	pid = atoi(text);
	free(text);
	if (pid <= 0 || !proc_alive(cli, pid))
		return 0;
	/* a pid left by an agent that was killed may have been reused: it must be a
	 * `damonc ... agent` (comm says "exe" when it was started through /proc/self/exe) */
	n = damonctl_proc_cmdline(cli->ctx, pid, cmdline, sizeof(cmdline));
	for (p = cmdline; n > 0 && p < cmdline + n; p += strlen(p) + 1)
		if (!strcmp(p, "agent"))
			return pid;
	return 0;
}

int agent_ensure_running(struct cli *cli)
{
	char logpath[4096];
	const char *sysroot = damonctl_get_sysroot(cli->ctx);
	int fd = lock_agent(cli), i;
	pid_t pid;

	if (fd == -EBUSY)
		return 0;	/* one runs; it picks the new kdamond up within a second */
	if (fd < 0)
		return fd;
	if (run_path(cli->ctx, "agent.log", logpath, sizeof(logpath)) < 0) {
		unlock_agent(cli, fd);
		return -ENAMETOOLONG;
	}
	pid = fork();
	if (pid < 0) {
		i = -errno;
		unlock_agent(cli, fd);
		return i;
	}
	if (!pid) {
		int logfd;

		close(fd);	/* our copy of the lock: the agent takes it itself */
		/* never appended through a link to another file: without its log (a link, a
		 * FIFO put there), the agent writes nowhere rather than to start's terminal */
		logfd = damonctl_file_open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (logfd < 0)
			logfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		setsid();
		if (nullfd >= 0)
			dup2(nullfd, STDIN_FILENO);
		if (logfd >= 0) {
			dup2(logfd, STDOUT_FILENO);
			dup2(logfd, STDERR_FILENO);
		}
		execl("/proc/self/exe", "damonc", "--sysroot", sysroot, "agent", (char *)NULL);
		_exit(127);
	}
	/* hand the lock over only once the agent holds it: wait for its pid in the file */
	close(fd);
	for (i = 0; i < 100; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		if (agent_running_pid(cli) == pid)
			return 0;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* ---- the command ---- */

struct agent_opts {
	bool leave_running;
	bool follow_children;
	bool persist;
	struct metrics_textfile textfile;
};

enum { O_LEAVE = 500, O_FOLLOW, O_PERSIST, O_METRICS, O_METRICS_INTERVAL };

#define TO(kind, member) OPT_TO(kind, struct agent_opts, member)
static const struct opt agent_opts_tbl[] = {
	{ "leave-running", O_LEAVE, OV_NONE, NULL,
	  "on SIGTERM/SIGINT, leave the kdamonds running (default: stop what it serves)",
	  TO(OD_FLAG, leave_running) },
	{ "follow-children", O_FOLLOW, OV_NONE, NULL,
	  "add new children of every target as targets of its kdamond",
	  TO(OD_FLAG, follow_children) },
	{ "persist", O_PERSIST, OV_NONE, NULL,
	  "keep running when nothing is left to serve (as a service)", TO(OD_FLAG, persist) },
	{ "metrics-textfile", O_METRICS, OV_FILE, "FILE",
	  "keep FILE (*.prom) fresh with damonc metrics for node_exporter's textfile collector" },
	{ "metrics-interval", O_METRICS_INTERVAL, OV_TIME, "TIME",
	  "with --metrics-textfile: rewrite it every TIME (default 15s, at least 1s)",
	  TO(OD_TIME, textfile.interval_us), .positive = true },
	{ 0 },
};
#undef TO

/*
 * --metrics-textfile asked while an agent already serves (one that `damonc start` started
 * in the background, say): one agent serves a sysroot, so this one keeps the textfile fresh
 * beside it, every --metrics-interval (looking every second whether the other still runs),
 * and takes its place once it exits. Returns the agent lock, or
 * -EINTR after SIGINT or SIGTERM.
 */
static int keep_textfile_beside(struct cli *cli, struct metrics_textfile *mt)
{
	struct timespec second = { 1, 0 };
	sigset_t orig;
	int lockfd = -EBUSY;

	agent_log("agent %d serves %s: keeping %s fresh beside it, and serving once it exits",
		  agent_running_pid(cli), damonctl_get_sysroot(cli->ctx), mt->path);
	install_signals(&orig);
	while (!stop_signal && lockfd == -EBUSY) {
		metrics_textfile_update(cli, mt, false);
		ppoll(NULL, 0, &second, &orig);
		lockfd = lock_agent(cli);
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	if (lockfd >= 0 && stop_signal) {
		unlock_agent(cli, lockfd);
		lockfd = -EBUSY;
	}
	return stop_signal ? -EINTR : lockfd;
}

static int agent_parse(struct cli *cli, int key, const char *arg)
{
	struct agent_opts *ao = cli->opts;

	return key == O_METRICS ? metrics_textfile_option(cli, arg, &ao->textfile) : EXIT_USAGE;
}

static int agent_run(struct cli *cli, int argc, char **argv)
{
	struct agent_opts *ao = cli->opts;
	struct agent ag = { .cli = cli, .only = -1, .leave_running = ao->leave_running,
			    .follow_children = ao->follow_children, .persist = ao->persist,
			    .textfile = &ao->textfile };
	int lockfd, i;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	/* a service writes a log, not one document: what it does is in others' documents */
	if (cli->json)
		return usage_error(cli, "--json: the agent runs until stopped and writes a log, not "
				   "a document; its state is in 'damonc status --json' (\"agent\") "
				   "and its counters in 'damonc metrics'");
	if (ao->textfile.interval_us && ao->textfile.interval_us < 1000000)
		return usage_error(cli, "--metrics-interval: at least 1s");
	if (ao->textfile.interval_us && !ao->textfile.path)
		return usage_error(cli, "--metrics-interval: only with --metrics-textfile");
	lockfd = lock_agent(cli);
	/* `damonc start` holds the lock while it starts us, until it closes its copy: a
	 * holder that is no agent lets go within moments */
	for (i = 0; lockfd == -EBUSY && !agent_running_pid(cli) && i < 100; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		lockfd = lock_agent(cli);
	}
	if (lockfd == -EBUSY && ao->textfile.path)
		lockfd = keep_textfile_beside(cli, &ao->textfile);
	if (lockfd == -EINTR)
		return EXIT_OK;
	if (lockfd == -EBUSY) {
		warnx_("agent: another damonc agent (pid %d) already serves %s",
		       agent_running_pid(cli), damonctl_get_sysroot(cli->ctx));
		return EXIT_BUSY;
	}
	if (lockfd < 0)
		return lib_error(cli, lockfd, "taking the agent lock");
	agent_log("started (sysroot %s)", damonctl_get_sysroot(cli->ctx));
	serve(&ag);
	agent_log("exiting");
	unlock_agent(cli, lockfd);
	metrics_textfile_update(cli, &ao->textfile, true);	/* the agent no longer runs */
	metrics_textfile_free(&ao->textfile);
	return EXIT_OK;
}

const struct cmd cmd_agent = {
	.name = "agent",
	.summary = "serve the user-space fallbacks of damonc's kdamonds (huge-page goal, collapse)",
	.usage = "[--leave-running] [--follow-children] [--persist] [--metrics-textfile FILE "
		 "[--metrics-interval TIME]]",
	.opts = agent_opts_tbl,
	.opts_size = sizeof(struct agent_opts),
	.opts_init = &(const struct agent_opts){ 0 },
	.parse = agent_parse,
	.run = agent_run,
};
