// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc status: every kdamond with its state, contexts, targets, schemes, quotas, goals,
 * filters and stats. Reads only, unless --refresh asks the kernel to update the stats first
 * (a write to `state`, so never done by default: the machine's own kdamonds are not ours).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_view.h"
#include "capture.h"
#include "damonc.h"
#include "journal.h"
#include "started.h"
#include "status.h"

struct status_opts {
	bool refresh;
	bool regions;
	int kdamond;	/* -1: all */
};

enum { O_REFRESH = 256, O_KDAMOND, O_REGIONS };

#define TO(kind, member) OPT_TO(kind, struct status_opts, member)
static const struct opt status_opts_tbl[] = {
	{ "kdamond", O_KDAMOND, OV_INT, "N", "show kdamond N only", TO(OD_INT, kdamond),
	  .max = 1u << 20 },
	{ "refresh", O_REFRESH, OV_NONE, NULL,
	  "ask the running kdamonds to update their stats and tuned intervals first (writes to "
	  "their state file)",
	  TO(OD_FLAG, refresh) },
	{ "regions", O_REGIONS, OV_NONE, NULL, "list every tried region, not just their count",
	  TO(OD_FLAG, regions) },
	{ 0 },
};
#undef TO

/* Refresh the stats of running kdamonds (only on request). */
static int refresh(struct cli *cli, struct damonctl_tree *t,
		   const struct damonctl_features *f)
{
	struct status_opts *sopts = cli->opts;
	struct damonctl_kdamond *k;
	unsigned int i;
	int r;

	damonctl_for_each_kdamond(t, k, i) {
		if (sopts->kdamond >= 0 && (int)i != sopts->kdamond)
			continue;
		if (strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on"))
			continue;
		r = damonctl_kdamond_refresh_stats(cli->ctx, i, f);
		/* where DAMON tunes the intervals (6.15), the files get where it has them */
		if (!r && damonctl_features_has(f, DAMONCTL_FEAT_INTERVALS_GOAL) == DAMONCTL_YES)
			r = damonctl_kdamond_cmd(cli->ctx, i, DAMONCTL_CMD_UPDATE_TUNED_INTERVALS);
		if (r && r != -EINVAL)	/* stopped meanwhile: show what is there */
			return lib_error(cli, r, "refreshing kdamond %u", i);
	}
	return 0;
}

struct extra_data {
	struct cli *cli;
	struct started *started;
	struct leftover *left;		/* journals of killed commands */
	unsigned int nr_left;
	unsigned int cap_kdamond[16];	/* capture schemes of killed recorders */
	int cap_pid[16];
	unsigned int nr_cap;
	char buf[512];
	const char *mods[4];		/* the enabled DAMON modules, read once */
	int mod_pids[4];
	unsigned int nr_mods;
};

/* What killed damonc commands left on kdamond @kdamond, said for people: status only reads,
 * the next start, stop, tune or record undoes it. */
static const char *extra_leftover(unsigned int kdamond, void *data)
{
	struct extra_data *x = data;
	unsigned int i, j;

	for (i = 0; i < x->nr_left; i++) {
		for (j = 0; j < x->left[i].nr; j++) {
			if (x->left[i].kdamonds[j] != kdamond)
				continue;
			snprintf(x->buf, sizeof(x->buf), "'damonc %s' (pid %d) was killed while %s "
				 "it; 'damonc stop' (or the next start, tune or record) %s",
				 x->left[i].command, x->left[i].pid,
				 !strcmp(x->left[i].kind, "start") ? "starting" : "changing",
				 !strcmp(x->left[i].kind, "start") ? "rolls that start back" :
				 "puts its staged files back");
			return x->buf;
		}
	}
	for (i = 0; i < x->nr_cap; i++) {
		if (x->cap_kdamond[i] != kdamond)
			continue;
		snprintf(x->buf, sizeof(x->buf), "the capture scheme of 'damonc record' (pid %d), "
			 "which was killed; 'damonc stop' (or the next start, tune or record) "
			 "removes it", x->cap_pid[i]);
		return x->buf;
	}
	return NULL;
}

static void extra_text(FILE *out, unsigned int kdamond, void *data)
{
	struct extra_data *x = data;
	struct started_entry *e = started_find(x->started, kdamond);

	if (e)
		agent_view_text(out, x->cli, e);
}

static json_object *extra_json(unsigned int kdamond, void *data)
{
	struct extra_data *x = data;
	struct started_entry *e = started_find(x->started, kdamond);

	return e ? agent_view_json(x->cli, e) : NULL;
}

static bool extra_cpu(int pid, uint64_t *cpu_us, uint64_t *run_us, void *data)
{
	struct extra_data *x = data;
	bool ok = !damonctl_proc_times(x->cli->ctx, pid, cpu_us, run_us);

	damonctl_clear_error(x->cli->ctx);
	return ok;
}

/* The enabled DAMON modules, read once before printing */
static void read_modules(struct extra_data *x)
{
	const char *name;
	unsigned int m;

	for (m = 0; (name = damonctl_module_name(m)) && x->nr_mods < 4; m++)
		if (damonctl_module_enabled(x->cli->ctx, name, &x->mod_pids[x->nr_mods]) == 1)
			x->mods[x->nr_mods++] = name;
	damonctl_clear_error(x->cli->ctx);
}

static const char *extra_module(unsigned int i, int *pid, void *data)
{
	struct extra_data *x = data;

	if (i >= x->nr_mods)
		return NULL;
	*pid = x->mod_pids[i];
	return x->mods[i];
}

static int status_run(struct cli *cli, int argc, char **argv)
{
	struct status_opts *sopts = cli->opts;
	struct extra_data xd = { .cli = cli };
	struct status_extra x = { extra_text, extra_json, &xd, extra_leftover, extra_cpu,
				  extra_module };
	struct damonctl_features *f = NULL;
	struct damonctl_tree *t;
	char thp[32];
	struct started started;
	int r;

	(void)argv;
	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	r = damonctl_tree_read(cli->ctx, &t);
	if (r)
		return lib_error(cli, r, "reading the DAMON tree");
	if (sopts->kdamond >= 0 && (unsigned int)sopts->kdamond >= damonctl_tree_nr_kdamonds(t)) {
		unsigned int nr = damonctl_tree_nr_kdamonds(t);

		damonctl_tree_free(t);
		return usage_error(cli, "--kdamond %d: there %s %u kdamond%s", sopts->kdamond,
				   nr == 1 ? "is" : "are", nr, nr == 1 ? "" : "s");
	}
	x.refreshed = sopts->refresh;
	if (!damonctl_sys_read_setting(cli->ctx, "kernel/mm/transparent_hugepage/enabled", thp,
				       sizeof(thp)))
		x.thp_enabled = thp;
	damonctl_clear_error(cli->ctx);
	if (sopts->refresh) {
		r = damonctl_features_detect(cli->ctx, &f);
		if (r) {
			damonctl_tree_free(t);
			return lib_error(cli, r, "detecting features");
		}
		r = refresh(cli, t, f);
		damonctl_features_free(f);
		damonctl_tree_free(t);
		if (r)
			return r;
		r = damonctl_tree_read(cli->ctx, &t);
		if (r)
			return lib_error(cli, r, "reading the DAMON tree");
	}
	r = started_load(cli->ctx, &started);
	if (r) {
		warnx_("cannot read damonc's record of what it started: %s", strerror(-r));
		memset(&started, 0, sizeof(started));
	}
	xd.started = &started;
	journal_leftovers(cli->ctx, &xd.left, &xd.nr_left);
	xd.nr_cap = capture_leftovers(cli->ctx, xd.cap_kdamond, xd.cap_pid, 16);
	read_modules(&xd);
	r = cli->json ? status_print_json(t, &started, sopts->kdamond, &x)
		      : status_print_text(stdout, t, &started, sopts->kdamond, sopts->regions, &x);
	started_free(&started);
	free(xd.left);
	damonctl_tree_free(t);
	return r ? EXIT_FAIL : EXIT_OK;
}

const struct cmd cmd_status = {
	.name = "status",
	.summary = "show every kdamond: state, targets, schemes, quotas, goals, filters, stats",
	.usage = "[--kdamond N] [--refresh] [--regions] [--json]",
	.opts = status_opts_tbl,
	.opts_size = sizeof(struct status_opts),
	.opts_init = &(const struct status_opts){ .kdamond = -1 },
	.run = status_run,
};
