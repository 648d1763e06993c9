// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc agent: serves the user-space fallbacks (fallback.h) of the kdamonds damonc started.
 *
 * Every quota interval it measures the huge-page ratio exactly as the kernel's
 * hugepage_mem_bp metric defines it and feeds the user_input goals standing in for it
 * (commit_schemes_quota_goals), and, for collapse emulated in user space, asks the kernel for
 * the regions the stand-in stat scheme matched (update_schemes_tried_regions) and collapses
 * them with process_madvise(MADV_COLLAPSE), hottest first, within the quota, and only while
 * the goal is not met (the temporal tuner's rule). What it did is kept under
 * <sysroot>/run/damonc/agent-<kdamond>.json for `status` and `report hugepage`.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_stats.h"
#include "fallback.h"
#include "started.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void agent_log(const char *fmt, ...)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "damonc agent %s: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep up to @ms, waking early on a stop request. */
static void nap(uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	while (!stop_requested && now_ms() < end) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
}

static int feed_goals(struct cli *cli, const struct started_entry *e, struct agent_stats *st)
{
	unsigned int i;
	bool fed = false;
	int r;

	for (i = 0; i < e->fbs.nr; i++) {
		const struct fallback *fb = &e->fbs.fb[i];
		char rel[256], val[32];
		uint64_t bp;

		if (fb->kind != FB_HUGEPAGE_GOAL)
			continue;
		r = fallback_measure_bp(cli->ctx, fb->scope_pid, e->targets, e->nr_targets, &bp);
		if (r)
			return r;
		snprintf(rel, sizeof(rel), "kdamonds/%u/contexts/0/schemes/%u/quotas/goals/%u/"
			 "current_value", e->kdamond, fb->scheme, fb->goal);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)bp);
		r = damonctl_write(cli->ctx, rel, val);
		if (r)
			return r;
		st->measured_bp = bp;
		st->feeds++;
		fed = true;
	}
	if (!fed)
		return 0;
	return damonctl_kdamond_cmd(cli->ctx, e->kdamond, DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS);
}

struct hot_region {
	uint64_t start, end, nr_accesses, age;
};

static int hotter_first(const void *a, const void *b)
{
	const struct hot_region *x = a, *y = b;

	if (x->nr_accesses != y->nr_accesses)
		return x->nr_accesses > y->nr_accesses ? -1 : 1;
	if (x->age != y->age)
		return x->age > y->age ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Collapse what scheme fb->scheme matched, within the quota and until the goal. */
static int collapse_scheme(struct cli *cli, const struct started_entry *e,
			   const struct fallback *fb, const struct damonctl_kdamond *k,
			   struct agent_scheme_stats *ss)
{
	struct damonctl_context *c = damonctl_kdamond_context(k, 0);
	struct damonctl_scheme *s = c ? damonctl_context_scheme(c, fb->scheme) : NULL;
	struct damonctl_tried_region *tr;
	struct hot_region *regs;
	uint64_t used_bytes = 0, t0 = now_ms(), bp;
	unsigned int i, n;
	int pidfd, r = 0;

	if (!s || fb->target >= e->nr_targets)
		return -ENOENT;
	n = damonctl_scheme_nr_tried_regions(s);
	if (!n)
		return 0;
	regs = calloc(n, sizeof(*regs));
	if (!regs)
		return -ENOMEM;
	damonctl_for_each_tried_region(s, tr, i) {
		regs[i].start = damonctl_tried_region_get(tr, DAMONCTL_TRIED_START);
		regs[i].end = damonctl_tried_region_get(tr, DAMONCTL_TRIED_END);
		regs[i].nr_accesses = damonctl_tried_region_get(tr, DAMONCTL_TRIED_NR_ACCESSES);
		regs[i].age = damonctl_tried_region_get(tr, DAMONCTL_TRIED_AGE);
	}
	qsort(regs, n, sizeof(*regs), hotter_first);
	pidfd = damonctl_pidfd_open(e->targets[fb->target]);
	if (pidfd < 0) {
		free(regs);
		return pidfd;
	}
	for (i = 0; i < n; i++) {
		uint64_t size = regs[i].end - regs[i].start, done = 0;

		if (fb->quota_bytes && used_bytes >= fb->quota_bytes) {
			ss->qt_exceeds++;
			break;
		}
		if (fb->quota_ms && now_ms() - t0 >= fb->quota_ms) {
			ss->qt_exceeds++;
			break;
		}
		if (fb->target_bp) {
			r = fallback_measure_bp(cli->ctx, fb->scope_pid, e->targets, e->nr_targets,
						&bp);
			if (r)
				break;
			if (bp >= fb->target_bp)
				break;	/* the goal is met: stop, as the temporal tuner would */
		}
		ss->nr_tried++;
		ss->sz_tried += size;
		used_bytes += size;
		r = damonctl_collapse_range(pidfd, regs[i].start, regs[i].end, &done);
		if (r == -ESRCH)
			break;
		r = 0;	/* a region that cannot be collapsed is tried, not applied: go on */
		if (done) {
			ss->nr_applied++;
			ss->sz_applied += done;
		}
	}
	close(pidfd);
	free(regs);
	return r;
}

static bool goal_met(struct cli *cli, const struct started_entry *e, const struct fallback *fb)
{
	uint64_t bp;

	return fb->target_bp &&
	       !fallback_measure_bp(cli->ctx, fb->scope_pid, e->targets, e->nr_targets, &bp) &&
	       bp >= fb->target_bp;
}

static int collapse_all(struct cli *cli, const struct started_entry *e, struct agent_stats *st)
{
	struct damonctl_kdamond *k;
	bool need = false;
	unsigned int i;
	int r;

	for (i = 0; i < e->fbs.nr; i++)
		if (e->fbs.fb[i].kind == FB_COLLAPSE && !goal_met(cli, e, &e->fbs.fb[i]))
			need = true;
	if (!need)
		return 0;
	/* one snapshot of what every scheme matched, then collapse scheme by scheme */
	r = damonctl_kdamond_cmd(cli->ctx, e->kdamond, DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_REGIONS);
	if (r)
		return r;
	r = damonctl_kdamond_read(cli->ctx, e->kdamond, &k);
	if (r)
		return r;
	for (i = 0; i < e->fbs.nr && !r; i++) {
		const struct fallback *fb = &e->fbs.fb[i];

		if (fb->kind != FB_COLLAPSE)
			continue;
		r = collapse_scheme(cli, e, fb, k, agent_stats_scheme(st, fb->scheme));
	}
	damonctl_kdamond_free(k);
	if (!r) {
		uint64_t bp;

		if (!fallback_measure_bp(cli->ctx, e->fbs.fb[0].scope_pid, e->targets,
					 e->nr_targets, &bp))
			st->measured_bp = bp;
	}
	return r;
}

static uint64_t interval_ms(const struct started_entry *e)
{
	uint64_t ms = 0;
	unsigned int i;

	for (i = 0; i < e->fbs.nr; i++)
		if (e->fbs.fb[i].reset_ms && (!ms || e->fbs.fb[i].reset_ms < ms))
			ms = e->fbs.fb[i].reset_ms;
	return ms ? ms : 1000;
}

/* One round for one kdamond: 0, or -errno (e.g. the kdamond stopped). */
static int serve_round(struct cli *cli, const struct started_entry *e)
{
	struct agent_stats st;
	int r;

	agent_stats_load(cli->ctx, e->kdamond, &st);
	r = feed_goals(cli, e, &st);
	if (!r)
		r = collapse_all(cli, e, &st);
	st.updated = (long long)time(NULL);
	agent_stats_save(cli->ctx, e->kdamond, &st);
	return r;
}

/* Whether @e still describes a running kdamond of ours. */
static bool still_ours(struct cli *cli, const struct started_entry *e)
{
	int pid = -1, r = damonctl_kdamond_is_running(cli->ctx, e->kdamond, &pid);

	return r == 1 && pid == e->pid;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int agent_serve_foreground(struct cli *cli, unsigned int kdamond)
{
	struct started started;
	struct started_entry e;
	int r = 0;

	install_signals();
	agent_log("serving kdamond %u in the foreground", kdamond);
	while (!stop_requested) {
		if (started_load(cli->ctx, &started))
			break;
		if (!started_find(&started, kdamond)) {
			started_free(&started);
			agent_log("kdamond %u is no longer damonc's: done", kdamond);
			break;
		}
		e = *started_find(&started, kdamond);
		started_free(&started);
		if (!still_ours(cli, &e)) {
			agent_log("kdamond %u stopped (its targets exited, or it was stopped): done",
				  kdamond);
			break;
		}
		r = serve_round(cli, &e);
		if (r && still_ours(cli, &e))
			agent_log("kdamond %u: %s", kdamond, strerror(-r));
		nap(interval_ms(&e));
	}
	if (stop_requested) {
		agent_log("stopping kdamond %u", kdamond);
		damonctl_kdamond_cmd(cli->ctx, kdamond, DAMONCTL_CMD_OFF);
		if (!started_load(cli->ctx, &started)) {
			started_remove(&started, kdamond);
			started_save(cli->ctx, &started);
			started_free(&started);
		}
	}
	return 0;
}

static int pidfile_path(struct cli *cli, char *buf, size_t size)
{
	return damonctl_path(cli->ctx, DAMONCTL_BASE_RUN, "agent.pid", buf, size);
}

/* Hold the agent lock: one agent per sysroot. Returns the fd, or -EBUSY if held. */
static int lock_agent(struct cli *cli)
{
	char path[4096], dir[4096], buf[32];
	int fd, n;

	if (damonctl_path(cli->ctx, DAMONCTL_BASE_RUN, "", dir, sizeof(dir)) < 0 ||
	    pidfile_path(cli, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	mkdir(dir, 0755);	/* started.c created it when it recorded the kdamond */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -EBUSY;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || write(fd, buf, (size_t)n) != n) {
		close(fd);
		return -EIO;
	}
	return fd;
}

int agent_ensure_running(struct cli *cli)
{
	char logpath[4096];
	const char *sysroot = damonctl_get_sysroot(cli->ctx);
	int fd = lock_agent(cli);
	pid_t pid;

	if (fd == -EBUSY)
		return 0;	/* one runs; it picks the new kdamond up at its next round */
	if (fd < 0)
		return fd;
	close(fd);	/* the agent takes the lock itself */
	if (damonctl_path(cli->ctx, DAMONCTL_BASE_RUN, "agent.log", logpath, sizeof(logpath)) < 0)
		return -ENAMETOOLONG;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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
	return 0;
}

/* ---- the command ---- */

static struct {
	bool leave_running;
} ao;

enum { O_LEAVE = 500 };

static const struct opt agent_opts[] = {
	{ "leave-running", O_LEAVE, OV_NONE, NULL,
	  "on SIGTERM/SIGINT, leave the kdamonds running (default: stop what it serves)" },
	{ 0 },
};

static int agent_parse(struct cli *cli, int key, const char *arg)
{
	(void)cli;
	(void)arg;
	if (key == O_LEAVE) {
		ao.leave_running = true;
		return 0;
	}
	return EXIT_USAGE;
}

/* On SIGTERM/SIGINT: stop the kdamonds the agent serves (they depend on it). */
static void stop_served(struct cli *cli)
{
	struct started started;
	unsigned int i;

	if (started_load(cli->ctx, &started))
		return;
	for (i = 0; i < started.nr; i++) {
		if (!started.e[i].fbs.nr || !still_ours(cli, &started.e[i]))
			continue;
		agent_log("stopping kdamond %u", started.e[i].kdamond);
		damonctl_kdamond_cmd(cli->ctx, started.e[i].kdamond, DAMONCTL_CMD_OFF);
	}
	started_free(&started);
}

static int agent_run(struct cli *cli, int argc, char **argv)
{
	int lockfd;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	lockfd = lock_agent(cli);
	if (lockfd == -EBUSY) {
		warnx_("agent: another damonc agent already serves %s", damonctl_get_sysroot(cli->ctx));
		return EXIT_BUSY;
	}
	if (lockfd < 0)
		return lib_error(cli, lockfd, "taking the agent lock");
	install_signals();
	agent_log("started (pid %d)", (int)getpid());
	while (!stop_requested) {
		struct started started;
		uint64_t next = 1000;
		unsigned int i, served = 0;

		if (started_load(cli->ctx, &started))
			break;
		for (i = 0; i < started.nr && !stop_requested; i++) {
			struct started_entry *e = &started.e[i];
			int r;

			if (!e->fbs.nr)
				continue;
			if (!still_ours(cli, e)) {
				agent_log("kdamond %u stopped (its targets exited, or it was "
					  "stopped): no longer served", e->kdamond);
				continue;
			}
			served++;
			r = serve_round(cli, e);
			if (r && still_ours(cli, e))
				agent_log("kdamond %u: %s", e->kdamond, strerror(-r));
			if (interval_ms(e) < next)
				next = interval_ms(e);
		}
		if (!served) {
			started_free(&started);
			agent_log("nothing left to serve: exiting");
			break;
		}
		started_free(&started);
		nap(next);
	}
	if (stop_requested && !ao.leave_running)
		stop_served(cli);
	agent_log("exiting");
	close(lockfd);
	return EXIT_OK;
}

const struct cmd cmd_agent = {
	.name = "agent",
	.summary = "serve the user-space fallbacks of damonc's kdamonds (huge-page goal, collapse)",
	.usage = "[--leave-running]",
	.opts = agent_opts,
	.parse = agent_parse,
	.run = agent_run,
};
