// SPDX-License-Identifier: GPL-2.0-or-later
/* The journal of undo records (see journal.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent_view.h"
#include "capture.h"
#include "fallback.h"
#include "journal.h"
#include "started.h"

/* The process's journal (libdamonctl's), in damonc's run directory. */
static struct damonctl_journal *jn;

void journal_attach(struct cli *cli)
{
	struct damonctl_journal_opts o = DAMONCTL_JOURNAL_OPTS_INIT;
	char dir[4096];

	if (run_path(cli->ctx, NULL, dir, sizeof(dir)) < 0)
		return;
	o.state_dir = dir;
	o.command = cli->cmd_name;
	damonctl_journal_close(jn);
	if (damonctl_journal_open(cli->ctx, &o, &jn))
		jn = NULL;
}

void journal_hold(void)
{
	if (jn)
		damonctl_journal_hold(jn);
}

void journal_keep(const char *key, json_object *value)
{
	if (jn)
		damonctl_journal_keep(jn, key, json_object_to_json_string_ext(value,
				      JSON_C_TO_STRING_PLAIN));
	json_object_put(value);
}

void journal_release(struct cli *cli)
{
	(void)cli;
	if (jn)
		damonctl_journal_release(jn);
}

/* ---- leftovers ---- */

static void describe(const struct damonctl_leftovers *ls, unsigned int i, struct leftover *l)
{
	unsigned int k;

	memset(l, 0, sizeof(*l));
	snprintf(l->command, sizeof(l->command), "%s", damonctl_leftover_command(ls, i));
	l->pid = damonctl_leftover_pid(ls, i);
	snprintf(l->kind, sizeof(l->kind), "%s", damonctl_leftover_kind(ls, i));
	for (k = 0; k < damonctl_leftover_nr_kdamonds(ls, i) && l->nr < 16; k++)
		l->kdamonds[l->nr++] = damonctl_leftover_kdamond(ls, i, k);
}

/* A start killed after its kdamonds were recorded as damonc's had finished: nothing to
 * undo. */
static bool start_finished(struct damonctl_ctx *ctx, const struct leftover *l)
{
	struct started st;
	unsigned int i;
	bool all = l->nr > 0;

	if (strcmp(l->command, "start") || strcmp(l->kind, "start") || started_load(ctx, &st))
		return false;
	for (i = 0; i < l->nr && all; i++) {
		struct started_entry *e = started_find(&st, l->kdamonds[i]);
		int pid = -1;

		all = e && damonctl_kdamond_is_running(ctx, l->kdamonds[i], &pid) == 1 &&
		      pid == e->pid;
	}
	damonctl_clear_error(ctx);
	started_free(&st);
	return all;
}

/* After a start is undone: the kdamonds it added are gone, and so are their entries in
 * damonc's list (`record` lists the kdamond it starts until it removes it); a kdamond it
 * reused gets its entry back (@root's "started_before"). */
static void forget_removed(struct damonctl_ctx *ctx, struct started *loaded,
			   const char *started_before)
{
	struct damonctl_tree *t;
	struct started_entry old;
	struct started st = *loaded;
	json_object *v;

	/* loaded before the undo wrote nr_kdamonds: damonc's kdamonds, known then by their
	 * directories, take their new ones */
	started_rebind(ctx, &st);
	v = started_before ? json_tokener_parse(started_before) : NULL;
	if (v && !started_entry_from_json(v, &old))
		started_add(&st, &old);
	json_object_put(v);
	if (!damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t)) {
		started_prune(ctx, &st, t);
		damonctl_tree_free(t);
	}
	started_save(ctx, &st);
	damonctl_clear_error(ctx);
	*loaded = st;
}

/* A leftover that is no undo record: said and removed. */
static bool unusable(const struct damonctl_leftovers *ls, unsigned int i)
{
	switch (damonctl_leftover_state(ls, i)) {
	case DAMONCTL_LEFTOVER_UNREADABLE:
		/* a file that does not parse, or no regular file at all (a FIFO, a device, a
		 * link: never waited on or followed) */
		warnx_("%s is no journal damonc can read (a regular file of JSON): removed",
		       damonctl_leftover_path(ls, i));
		break;
	case DAMONCTL_LEFTOVER_NO_RECORD:
		warnx_("%s holds no undo record: removed", damonctl_leftover_path(ls, i));
		break;
	default:
		return false;
	}
	damonctl_leftover_remove(ls, i);
	return true;
}

int journal_recover(struct cli *cli)
{
	struct damonctl_leftovers *ls;
	char dir[4096], what[512];
	struct started st;
	unsigned int i;
	int e = EXIT_OK;

	if (run_path(cli->ctx, NULL, dir, sizeof(dir)) < 0 || damonctl_leftovers_read(dir, &ls))
		return EXIT_OK;
	for (i = 0; i < damonctl_leftovers_count(ls); i++) {
		const char *path = damonctl_leftover_path(ls, i);
		struct leftover l;
		int r;

		if (unusable(ls, i))
			continue;
		describe(ls, i, &l);
		if (start_finished(cli->ctx, &l)) {
			damonctl_leftover_remove(ls, i);
			continue;
		}
		if (started_load(cli->ctx, &st))
			memset(&st, 0, sizeof(st));
		r = damonctl_leftover_undo(cli->ctx, ls, i, what, sizeof(what));
		if (r == -EINVAL) {
			warnx_("%s: not an undo record this damonc can carry out: removed", path);
			damonctl_leftover_remove(ls, i);
		} else if (r) {
			e = lib_error(cli, r, "undoing what 'damonc %s' (pid %d) left when it was "
				      "killed; %s stays for the next try", l.command, l.pid, path);
		} else {
			if (*what)
				warnx_("note: 'damonc %s' (pid %d) was killed in the middle of a "
				       "change: %s", l.command, l.pid, what);
			damonctl_leftover_remove(ls, i);
			if (!strcmp(l.kind, "start"))
				forget_removed(cli->ctx, &st, damonctl_leftover_kept(ls, i,
										  "started_before"));
		}
		started_free(&st);
	}
	damonctl_leftovers_free(ls);
	return e;
}

/* The collapse grants an agent killed while serving left open (the kernel goes on
 * collapsing what it last allowed): closed, and said, for each running kdamond of damonc's
 * that no agent serves now. */
static void close_orphan_grants(struct cli *cli)
{
	struct started st;
	unsigned int i;

	if (started_load(cli->ctx, &st))
		return;
	for (i = 0; i < st.nr; i++) {
		const struct started_entry *e = &st.e[i];
		struct damonctl_fallbacks *l;
		int pid, r;

		if (!e->fbs.nr || agent_view_server(cli, e, &pid) != AGENT_NOBODY ||
		    damonctl_kdamond_is_running(cli->ctx, e->kdamond, &pid) != 1 || pid != e->pid)
			continue;
		l = fallback_to_lib(&e->fbs);
		r = l ? damonctl_fallbacks_close(cli->ctx, e->kdamond, l) : -ENOMEM;
		damonctl_fallbacks_free(l);
		if (r > 0)
			warnx_("note: kdamond %u: the damonc agent that served it is gone, and the "
			       "collapse it allowed the kernel is closed again (nothing more is "
			       "collapsed until an agent runs)", e->kdamond);
		else if (r < 0)
			lib_error(cli, r, "closing the collapse the killed agent allowed on kdamond "
				  "%u", e->kdamond);
		damonctl_clear_error(cli->ctx);
	}
	started_free(&st);
}

int recover_leftovers(struct cli *cli)
{
	int e, e2;

	/* a line of an --atomic batch: the batch recovered before it began staging */
	if (cli->staging)
		return 0;
	e = journal_recover(cli);
	e2 = capture_recover(cli);
	close_orphan_grants(cli);

	return e ? e : e2;
}

int journal_leftovers(struct damonctl_ctx *ctx, struct leftover **out, unsigned int *nr)
{
	struct damonctl_leftovers *ls;
	struct leftover *arr;
	unsigned int i;
	char dir[4096];

	*out = NULL;
	*nr = 0;
	if (run_path(ctx, NULL, dir, sizeof(dir)) < 0 || damonctl_leftovers_read(dir, &ls))
		return 0;
	arr = calloc(damonctl_leftovers_count(ls) + 1, sizeof(*arr));
	for (i = 0; arr && i < damonctl_leftovers_count(ls); i++) {
		if (damonctl_leftover_state(ls, i) != DAMONCTL_LEFTOVER_RECORD)
			continue;
		describe(ls, i, &arr[*nr]);
		if (!start_finished(ctx, &arr[*nr]))
			(*nr)++;
	}
	damonctl_leftovers_free(ls);
	*out = arr;
	return 0;
}
