// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc stop: stop what damonc started, and nothing else unless asked by index (--kdamond)
 * or for everything (--all). damo stops every running kdamond; on a machine whose own
 * kdamonds matter, damonc must not. A stopped kdamond stays damonc's (its directory, with
 * its last results, is reused by the next start).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_stats.h"
#include "journal.h"
#include "started.h"

struct stop_opts {
	int only[64];
	unsigned int nr_only;
	bool all;
};

enum { O_KDAMOND = 300, O_ALL };

static const struct opt stop_opts_tbl[] = {
	{ "kdamond", O_KDAMOND, OV_INT, "N",
	  "stop kdamond N even if damonc did not start it (repeatable)" },
	{ "all", O_ALL, OV_NONE, NULL, "stop every running kdamond, damonc's or not",
	  OPT_TO(OD_FLAG, struct stop_opts, all) },
	{ 0 },
};

static int stop_parse(struct cli *cli, int key, const char *arg)
{
	struct stop_opts *to = cli->opts;
	uint64_t v;

	if (key != O_KDAMOND)
		return EXIT_USAGE;
	if (to->nr_only >= 64)
		return usage_error(cli, "--kdamond: at most 64");
	if (parse_uint_opt(cli, "kdamond", arg, 1u << 20, &v))
		return EXIT_USAGE;
	to->only[to->nr_only++] = (int)v;
	return 0;
}

static bool selected(const struct stop_opts *to, const struct started *s,
		     const struct damonctl_kdamond *k)
{
	unsigned int i, idx = damonctl_kdamond_index(k);

	if (to->all)
		return true;
	if (to->nr_only) {
		for (i = 0; i < to->nr_only; i++)
			if ((unsigned int)to->only[i] == idx)
				return true;
		return false;
	}
	return started_owns(s, k);
}

/* The pid file of an agent that was killed (SIGKILL leaves it): nobody holds its lock, so it
 * goes; held, an agent runs (or is starting) and it stays. */
static void remove_stale_agent_pidfile(struct cli *cli)
{
	char path[4096];
	struct stat a, b;
	int fd;

	if (run_path(cli->ctx, "agent.pid", path, sizeof(path)) < 0)
		return;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	/* the same file still at the path: an agent removes it before letting its lock go */
	if (!flock(fd, LOCK_EX | LOCK_NB) && !fstat(fd, &a) && !stat(path, &b) &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		unlink(path);
	close(fd);
}

/* Every --kdamond N names a kdamond the tree has; else said, and false. */
static bool kdamonds_exist(struct cli *cli, const struct damonctl_tree *t)
{
	struct stop_opts *to = cli->opts;
	unsigned int i;

	for (i = 0; i < to->nr_only; i++) {
		if ((unsigned int)to->only[i] >= damonctl_tree_nr_kdamonds(t)) {
			usage_error(cli, "--kdamond %d: there are %u kdamonds", to->only[i],
				    damonctl_tree_nr_kdamonds(t));
			return false;
		}
	}
	return true;
}

/* What became of kdamond @idx: a JSON object into @arr, or a line for people. */
static void say_stopped(struct cli *cli, json_object *arr, unsigned int idx, bool running,
			bool ours)
{
	json_object *o;

	if (cli->json) {
		o = json_object_new_object();
		json_object_object_add(o, "index", json_object_new_int((int)idx));
		json_object_object_add(o, "was_running", json_object_new_boolean(running));
		json_object_object_add(o, "started_by_damonc", json_object_new_boolean(ours));
		if (cli->staging)
			json_object_object_add(o, "staged", json_object_new_boolean(true));
		json_object_array_add(arr, o);
	} else {
		printf("kdamond %u: %s%s\n", idx, !running ? "was already off" :
		       cli->staging ? "stop staged (the batch stops it at its end)" :
		       "stopped", ours ? "" : " (not started by damonc)");
	}
}

/* Kdamond @k (index @idx) stopped if selected: true when it counts as stopped (it was, or
 * --kdamond/--all named it though off); a failure to stop it is said and goes to *ret. */
static bool stop_one(struct cli *cli, struct started *started, struct damonctl_kdamond *k,
		     unsigned int idx, json_object *arr, int *ret)
{
	struct stop_opts *to = cli->opts;
	bool ours = started_owns(started, k), was_running = false;
	bool running = !strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on");
	int r;

	if (!selected(to, started, k))
		return false;
	/* by default only what runs: a stopped kdamond of ours stays ours, for reuse */
	if (!running && !to->all && !to->nr_only)
		return false;
	/* stopped on purpose: the record says so (status, metrics: no alert) */
	r = started_stop(cli->ctx, started, idx, &was_running);
	if (r) {
		*ret = lib_error(cli, r, "stopping kdamond %u", idx);
		return false;
	}
	if (ours && !cli->staging)
		agent_stats_remove(cli->ctx, idx);
	say_stopped(cli, arr, idx, running && was_running, ours);
	return true;
}

static int stop_run(struct cli *cli, int argc, char **argv)
{
	struct stop_opts *to = cli->opts;
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	struct started started;
	json_object *doc = NULL, *arr = NULL;
	unsigned int i, nr_stopped = 0;
	int r, ret = EXIT_OK, lock;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (to->all && to->nr_only)
		return usage_error(cli, "--all and --kdamond do not go together");
	lock = started_lock(cli->ctx);
	if (lock < 0)
		return started_lock_error(cli, lock);
	/* what a killed damonc left (a half-built kdamond, a capture scheme) goes first */
	recover_leftovers(cli);
	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t);
	if (r) {
		started_unlock(lock);
		return lib_error(cli, r, "reading the DAMON tree");
	}
	if (!kdamonds_exist(cli, t)) {
		damonctl_tree_free(t);
		started_unlock(lock);
		return EXIT_USAGE;
	}
	r = started_load(cli->ctx, &started);
	if (r)
		warnx_("ignoring damonc's record of started kdamonds: %s", strerror(-r));
	if (cli->json) {
		doc = json_doc_new();
		arr = json_object_new_array();
	}
	damonctl_for_each_kdamond(t, k, i)
		if (stop_one(cli, &started, k, i, arr, &ret))
			nr_stopped++;
	r = started_save(cli->ctx, &started);
	if (r)
		warnx_("cannot update damonc's record of started kdamonds: %s", strerror(-r));
	remove_stale_agent_pidfile(cli);
	started_unlock(lock);
	if (!nr_stopped && !cli->json)
		fprintf(stderr, "damonc: stop: %s\n", to->all || to->nr_only ? "nothing to stop" :
			"no kdamond started by damonc is running (use --kdamond N or --all to stop "
			"others)");
	if (cli->json) {
		json_object_object_add(doc, "kdamonds", arr);
		json_doc_print(doc);
	}
	started_free(&started);
	damonctl_tree_free(t);
	return ret;
}

const struct cmd cmd_stop = {
	.name = "stop",
	.summary = "stop the kdamonds damonc started (others only with --kdamond or --all)",
	.usage = "[--kdamond N ... | --all]",
	.opts = stop_opts_tbl,
	.parse = stop_parse,
	.run = stop_run,
	.opts_size = sizeof(struct stop_opts),
	.opts_init = &(const struct stop_opts){ .nr_only = 0 },
};
