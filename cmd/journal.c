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

#include "capture.h"
#include "journal.h"
#include "started.h"

#define JOURNAL_FORMAT 1

static struct {
	struct cli *cli;
	bool held;		/* start: kept past DONE until journal_release() */
	json_object *kept;	/* journal_keep()'s, saved with each record */
	bool written;		/* the file exists */
	unsigned int stuck;	/* records set aside because undoing them failed */
} jn;

static int journal_path(struct damonctl_ctx *ctx, int pid, unsigned int seq, char *buf,
			size_t size)
{
	char rel[64];

	if (seq)
		snprintf(rel, sizeof(rel), "journal-%d-%u.json", pid, seq);
	else
		snprintf(rel, sizeof(rel), "journal-%d.json", pid);
	return damonctl_path(ctx, DAMONCTL_BASE_RUN, rel, buf, size);
}

/* The journal as a file: who, and the record. */
static int save(const char *record, bool abandoned, unsigned int seq)
{
	struct cli *cli = jn.cli;
	json_object *root = json_object_new_object(), *rec;
	char path[4096];
	int r;

	rec = record ? json_tokener_parse(record) : NULL;
	if (!root || !rec) {
		json_object_put(root);
		json_object_put(rec);
		return -ENOMEM;
	}
	json_object_object_add(root, "format_version", json_object_new_int(JOURNAL_FORMAT));
	json_object_object_add(root, "command", json_object_new_string(cli->cmd_name));
	json_object_object_add(root, "pid", json_object_new_int((int)getpid()));
	json_object_object_add(root, "starttime",
			       json_object_new_uint64(damonctl_proc_start_time((int)getpid())));
	json_object_object_add(root, "since", json_object_new_int64((int64_t)time(NULL)));
	if (abandoned)
		json_object_object_add(root, "abandoned", json_object_new_boolean(true));
	if (jn.kept) {
		json_object_object_foreach(jn.kept, key, val)
			json_object_object_add(root, key, json_object_get(val));
	}
	json_object_object_add(root, "record", rec);
	r = journal_path(cli->ctx, (int)getpid(), seq, path, sizeof(path));
	if (r >= 0)
		r = write_json_file(path, root);
	json_object_put(root);
	return r < 0 ? r : 0;
}

static void drop(void)
{
	char path[4096];

	if (jn.written && journal_path(jn.cli->ctx, (int)getpid(), 0, path, sizeof(path)) >= 0)
		unlink(path);
	jn.written = false;
}

static int hook(void *data, enum damonctl_txn_event ev, const char *record)
{
	static char *last;
	int r;

	(void)data;
	switch (ev) {
	case DAMONCTL_TXN_BEGIN:
	case DAMONCTL_TXN_APPLY:
	case DAMONCTL_TXN_UNDO:
		r = save(record, false, 0);
		if (r) {
			char dir[4096];

			damonctl_path(jn.cli->ctx, DAMONCTL_BASE_RUN, "", dir, sizeof(dir));
			warnx_("cannot keep the undo record of this change in %s (%s): nothing "
			       "is written without one", dir, strerror(-r));
			return r;
		}
		jn.written = true;
		free(last);
		last = strdup(record);
		return 0;
	case DAMONCTL_TXN_DONE:
		if (!jn.held)
			drop();
		return 0;
	case DAMONCTL_TXN_STUCK:
		/* set aside, marked abandoned: the next command undoes it even while this one
		 * runs on (the agent), and this one's next transaction cannot overwrite it */
		if (last && !save(last, true, ++jn.stuck))
			drop();
		return 0;
	}
	return 0;
}

void journal_attach(struct cli *cli)
{
	jn.cli = cli;
	damonctl_set_txn_hook(cli->ctx, hook, NULL);
}

void journal_hold(void)
{
	jn.held = true;
}

void journal_keep(const char *key, json_object *value)
{
	if (!jn.kept)
		jn.kept = json_object_new_object();
	if (jn.kept)
		json_object_object_add(jn.kept, key, value);
	else
		json_object_put(value);
}

void journal_release(struct cli *cli)
{
	(void)cli;
	jn.held = false;
	json_object_put(jn.kept);
	jn.kept = NULL;
	drop();
}

/* ---- leftovers ---- */

struct jfile {
	json_object *root, *rec;
	char path[4400];
	int pid;
	const char *command;
};

/* The journals of commands that died (or records set aside), one at a time. */
static int next_dead(DIR *d, const char *dir, struct jfile *j, bool clean)
{
	struct dirent *de;

	while ((de = readdir(d))) {
		json_object *v;
		int pid, end = 0;
		unsigned long long st = 0;
		bool abandoned = false;

		if (sscanf(de->d_name, "journal-%d%n", &pid, &end) != 1 ||
		    strcmp(de->d_name + strlen(de->d_name) - 5, ".json"))
			continue;
		snprintf(j->path, sizeof(j->path), "%s/%s", dir, de->d_name);
		if (read_json_file(j->path, &j->root) || !j->root) {
			if (clean) {
				warnx_("%s does not parse: removed", j->path);
				unlink(j->path);
			}
			continue;
		}
		if (json_object_object_get_ex(j->root, "starttime", &v))
			st = json_object_get_uint64(v);
		if (json_object_object_get_ex(j->root, "abandoned", &v))
			abandoned = json_object_get_boolean(v);
		if (!json_object_object_get_ex(j->root, "record", &j->rec) ||
		    !json_object_is_type(j->rec, json_type_object)) {
			if (clean) {
				warnx_("%s holds no undo record: removed", j->path);
				unlink(j->path);
			}
			json_object_put(j->root);
			continue;
		}
		if (!abandoned && (pid == (int)getpid() || damonctl_proc_same(pid, st))) {
			json_object_put(j->root);
			continue;	/* in progress */
		}
		j->pid = pid;
		j->command = json_object_object_get_ex(j->root, "command", &v) ?
			json_object_get_string(v) : "?";
		return 1;
	}
	return 0;
}

static void describe(const struct jfile *j, struct leftover *l)
{
	json_object *v, *kds;
	size_t i;

	memset(l, 0, sizeof(*l));
	snprintf(l->command, sizeof(l->command), "%s", j->command);
	l->pid = j->pid;
	if (json_object_object_get_ex(j->rec, "kind", &v))
		snprintf(l->kind, sizeof(l->kind), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(j->rec, "kdamonds", &kds) &&
	    json_object_is_type(kds, json_type_array))
		for (i = 0; i < json_object_array_length(kds) && l->nr < 16; i++)
			l->kdamonds[l->nr++] = (unsigned int)json_object_get_int(
				json_object_array_get_idx(kds, i));
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
static void forget_removed(struct damonctl_ctx *ctx, json_object *root)
{
	struct damonctl_tree *t;
	struct started_entry old;
	struct started st;
	json_object *v;

	if (started_load(ctx, &st))
		return;
	if (json_object_object_get_ex(root, "started_before", &v) &&
	    !started_entry_from_json(v, &old))
		started_add(&st, &old);
	if (!damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t)) {
		started_prune(ctx, &st, t);
		damonctl_tree_free(t);
	}
	started_save(ctx, &st);
	damonctl_clear_error(ctx);
	started_free(&st);
}

int journal_recover(struct cli *cli)
{
	char dir[4096], what[512];
	struct jfile j;
	int e = EXIT_OK;
	DIR *d;

	if (damonctl_path(cli->ctx, DAMONCTL_BASE_RUN, "", dir, sizeof(dir)) < 0)
		return EXIT_OK;
	d = opendir(dir);
	if (!d)
		return EXIT_OK;
	while (next_dead(d, dir, &j, true) == 1) {
		struct leftover l;
		int r;

		describe(&j, &l);
		if (start_finished(cli->ctx, &l)) {
			unlink(j.path);
			json_object_put(j.root);
			continue;
		}
		r = damonctl_txn_undo(cli->ctx, json_object_to_json_string_ext(
			j.rec, JSON_C_TO_STRING_PLAIN), what, sizeof(what));
		if (r == -EINVAL) {
			warnx_("%s: not an undo record this damonc can carry out: removed", j.path);
			unlink(j.path);
		} else if (r) {
			e = lib_error(cli, r, "undoing what 'damonc %s' (pid %d) left when it was "
				      "killed; %s stays for the next try", l.command, l.pid, j.path);
		} else {
			if (*what)
				warnx_("note: 'damonc %s' (pid %d) was killed in the middle of a "
				       "change: %s", l.command, l.pid, what);
			unlink(j.path);
			if (!strcmp(l.kind, "start"))
				forget_removed(cli->ctx, j.root);
		}
		json_object_put(j.root);
	}
	closedir(d);
	return e;
}

int recover_leftovers(struct cli *cli)
{
	int e, e2;

	/* a line of an --atomic batch: the batch recovered before it began staging */
	if (cli->staging)
		return 0;
	e = journal_recover(cli);
	e2 = capture_recover(cli);

	return e ? e : e2;
}

int journal_leftovers(struct damonctl_ctx *ctx, struct leftover **out, unsigned int *nr)
{
	char dir[4096];
	struct leftover *ls = NULL;
	struct jfile j;
	DIR *d;

	*out = NULL;
	*nr = 0;
	if (damonctl_path(ctx, DAMONCTL_BASE_RUN, "", dir, sizeof(dir)) < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while (next_dead(d, dir, &j, false) == 1) {
		struct leftover *n = realloc(ls, (*nr + 1) * sizeof(*ls));

		if (!n) {
			json_object_put(j.root);
			break;
		}
		ls = n;
		describe(&j, &ls[*nr]);
		json_object_put(j.root);
		if (!start_finished(ctx, &ls[*nr]))
			(*nr)++;
	}
	closedir(d);
	*out = ls;
	return 0;
}
