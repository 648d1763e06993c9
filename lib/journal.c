// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Journals: the undo records of a process's transactions kept in files of a state directory,
 * so that what a process killed in the middle of a change leaves is undone by the next one.
 *
 *   <state_dir>/journal-<pid>.json     {"format_version": 1, "command": "start", "pid": P,
 *                                        "starttime": T, "since": unix time,
 *                                        [kept keys...], "record": {undo record}}
 *   <state_dir>/journal-<pid>-<n>.json a record whose undo failed, set aside ("abandoned":
 *                                       true): the next process carries it out even while
 *                                       this one runs on
 *
 * A journal belongs to a live process when its pid runs with the same start time (a pid
 * reused since is not it): those are left alone, unless abandoned.
 */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json_internal.h"

#define JOURNAL_FORMAT 1

struct damonctl_journal {
	struct damonctl_ctx *ctx;
	char dir[PATH_MAX];
	char *command;
	bool held;		/* kept past DONE until release */
	bool written;		/* the file exists */
	bool in_txn;		/* between BEGIN and DONE/STUCK */
	unsigned int stuck;	/* records set aside */
	json_object *kept;	/* damonctl_journal_keep()'s */
	char *last;		/* the last record, set aside when its undo is stuck */
};

static int journal_path(const struct damonctl_journal *j, unsigned int seq, char *buf,
			size_t size)
{
	int n = seq ? snprintf(buf, size, "%s/journal-%d-%u.json", j->dir, (int)getpid(), seq) :
		      snprintf(buf, size, "%s/journal-%d.json", j->dir, (int)getpid());

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int save(struct damonctl_journal *j, const char *record, bool abandoned,
		unsigned int seq)
{
	json_object *root = json_object_new_object(), *rec = json_tokener_parse(record);
	char path[PATH_MAX];
	int r;

	if (!root || !rec) {
		json_object_put(root);
		json_object_put(rec);
		return -ENOMEM;
	}
	json_object_object_add(root, "format_version", json_object_new_int(JOURNAL_FORMAT));
	json_object_object_add(root, "command",
			       j->command ? json_object_new_string(j->command) : NULL);
	json_object_object_add(root, "pid", json_object_new_int((int)getpid()));
	json_object_object_add(root, "starttime",
			       json_object_new_uint64(damonctl_proc_start_time((int)getpid())));
	json_object_object_add(root, "since", json_object_new_int64((int64_t)time(NULL)));
	if (abandoned)
		json_object_object_add(root, "abandoned", json_object_new_boolean(true));
	if (j->kept) {
		json_object_object_foreach(j->kept, key, val)
			json_object_object_add(root, key, json_object_get(val));
	}
	json_object_object_add(root, "record", rec);
	r = journal_path(j, seq, path, sizeof(path));
	if (!r)
		r = dctl_state_write(j->dir, path, json_object_to_json_string_ext(root,
				     JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (r)
		dctl_set_error(j->ctx, r, true, path, "");
	json_object_put(root);
	return r;
}

static void drop(struct damonctl_journal *j)
{
	char path[PATH_MAX];

	if (j->written && !journal_path(j, 0, path, sizeof(path)))
		unlink(path);
	j->written = false;
}

static int hook(void *data, enum damonctl_txn_event ev, const char *record)
{
	struct damonctl_journal *j = data;
	char *copy;
	int r;

	switch (ev) {
	case DAMONCTL_TXN_BEGIN:
	case DAMONCTL_TXN_APPLY:
	case DAMONCTL_TXN_UNDO:
		copy = strdup(record);
		r = copy ? save(j, record, false, 0) : -ENOMEM;
		if (r) {
			free(copy);
			return r;
		}
		j->written = j->in_txn = true;
		free(j->last);
		j->last = copy;
		return 0;
	case DAMONCTL_TXN_DONE:
		j->in_txn = false;
		if (!j->held)
			drop(j);
		return 0;
	case DAMONCTL_TXN_STUCK:
		j->in_txn = false;
		if (j->last && !save(j, j->last, true, ++j->stuck))
			drop(j);
		return 0;
	}
	return 0;
}

DAMONCTL_API int damonctl_journal_open(struct damonctl_ctx *ctx,
				       const struct damonctl_journal_opts *opts,
				       struct damonctl_journal **out)
{
	struct damonctl_journal *j;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts) || !opts->state_dir || !*opts->state_dir)
		return -EINVAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	if (snprintf(j->dir, sizeof(j->dir), "%s", opts->state_dir) >= (int)sizeof(j->dir)) {
		free(j);
		return -ENAMETOOLONG;
	}
	if (opts->command && !(j->command = strdup(opts->command))) {
		free(j);
		return -ENOMEM;
	}
	j->ctx = ctx;
	damonctl_set_txn_hook(ctx, hook, j);
	*out = j;
	return 0;
}

DAMONCTL_API void damonctl_journal_hold(struct damonctl_journal *j)
{
	j->held = true;
}

static const char *const reserved[] = {
	"format_version", "command", "pid", "starttime", "since", "abandoned", "record",
};

DAMONCTL_API int damonctl_journal_keep(struct damonctl_journal *j, const char *key,
				       const char *json)
{
	json_object *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reserved); i++)
		if (!strcmp(key, reserved[i]))
			return -EINVAL;
	v = json_tokener_parse(json);
	if (!v && strcmp(json, "null"))
		return -EINVAL;
	if (!j->kept && !(j->kept = json_object_new_object())) {
		json_object_put(v);
		return -ENOMEM;
	}
	json_object_object_add(j->kept, key, v);
	return 0;
}

DAMONCTL_API void damonctl_journal_release(struct damonctl_journal *j)
{
	j->held = false;
	json_object_put(j->kept);
	j->kept = NULL;
	if (!j->in_txn)
		drop(j);
}

DAMONCTL_API void damonctl_journal_close(struct damonctl_journal *j)
{
	if (!j)
		return;
	damonctl_set_txn_hook(j->ctx, NULL, NULL);
	json_object_put(j->kept);
	free(j->last);
	free(j->command);
	free(j);
}

/* ---- what dead processes left ---- */

struct leftover {
	enum damonctl_leftover_state state;
	char *path;
	json_object *root;	/* NULL when unreadable */
	json_object *rec;	/* the undo record, or NULL */
	int pid;
	char *kept_text;	/* the last damonctl_leftover_kept() answer */
};

struct damonctl_leftovers {
	struct leftover *v;
	unsigned int nr;
};

/* Whether @root is the journal of a live process (its own, unless set aside). */
static bool in_progress(json_object *root, int pid)
{
	unsigned long long st = 0;
	json_object *v;

	if (json_object_object_get_ex(root, "abandoned", &v) && json_object_get_boolean(v))
		return false;
	if (json_object_object_get_ex(root, "starttime", &v))
		st = json_object_get_uint64(v);
	return pid == (int)getpid() || damonctl_proc_same(pid, st);
}

static int read_one(const char *dir, const char *name, struct leftover *l)
{
	json_object *rec;
	int pid, n;

	memset(l, 0, sizeof(*l));
	n = (int)strlen(name);
	if (sscanf(name, "journal-%d", &pid) != 1 || n < 5 || strcmp(name + n - 5, ".json"))
		return 0;
	if (asprintf(&l->path, "%s/%s", dir, name) < 0) {
		l->path = NULL;
		return -ENOMEM;
	}
	l->pid = pid;
	/* never a FIFO or a device waited on, nor a link followed: unreadable, and said */
	l->root = dctl_json_state_file(l->path, &n);
	if (!l->root || !json_object_is_type(l->root, json_type_object)) {
		json_object_put(l->root);
		l->root = NULL;
		l->state = DAMONCTL_LEFTOVER_UNREADABLE;
		return 1;
	}
	if (!json_object_object_get_ex(l->root, "record", &rec) ||
	    !json_object_is_type(rec, json_type_object)) {
		l->state = DAMONCTL_LEFTOVER_NO_RECORD;
		return 1;
	}
	if (in_progress(l->root, pid)) {
		json_object_put(l->root);
		free(l->path);
		return 0;
	}
	l->rec = rec;
	l->state = DAMONCTL_LEFTOVER_RECORD;
	return 1;
}

static void leftover_free(struct leftover *l)
{
	json_object_put(l->root);
	free(l->path);
	free(l->kept_text);
}

DAMONCTL_API int damonctl_leftovers_read(const char *state_dir, struct damonctl_leftovers **out)
{
	struct damonctl_leftovers *ls = calloc(1, sizeof(*ls));
	struct dirent *de;
	DIR *d;
	int r = 0;

	*out = NULL;
	if (!ls)
		return -ENOMEM;
	d = opendir(state_dir);
	while (d && (de = readdir(d))) {
		struct leftover l, *n;

		r = read_one(state_dir, de->d_name, &l);
		if (r <= 0) {
			if (r)
				break;
			continue;
		}
		r = 0;
		n = realloc(ls->v, (ls->nr + 1) * sizeof(*n));
		if (!n) {
			leftover_free(&l);
			r = -ENOMEM;
			break;
		}
		ls->v = n;
		ls->v[ls->nr++] = l;
	}
	if (d)
		closedir(d);
	if (r) {
		damonctl_leftovers_free(ls);
		return r;
	}
	*out = ls;
	return 0;
}

DAMONCTL_API void damonctl_leftovers_free(struct damonctl_leftovers *ls)
{
	unsigned int i;

	if (!ls)
		return;
	for (i = 0; i < ls->nr; i++)
		leftover_free(&ls->v[i]);
	free(ls->v);
	free(ls);
}

DAMONCTL_API unsigned int damonctl_leftovers_count(const struct damonctl_leftovers *ls)
{
	return ls ? ls->nr : 0;
}

DAMONCTL_API enum damonctl_leftover_state
damonctl_leftover_state(const struct damonctl_leftovers *ls, unsigned int i)
{
	return ls->v[i].state;
}

DAMONCTL_API const char *damonctl_leftover_path(const struct damonctl_leftovers *ls,
						unsigned int i)
{
	return ls->v[i].path;
}

DAMONCTL_API const char *damonctl_leftover_command(const struct damonctl_leftovers *ls,
						   unsigned int i)
{
	json_object *v;

	if (ls->v[i].root && json_object_object_get_ex(ls->v[i].root, "command", &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "?";
}

DAMONCTL_API int damonctl_leftover_pid(const struct damonctl_leftovers *ls, unsigned int i)
{
	return ls->v[i].pid;
}

DAMONCTL_API const char *damonctl_leftover_kind(const struct damonctl_leftovers *ls,
						unsigned int i)
{
	json_object *v;

	if (ls->v[i].rec && json_object_object_get_ex(ls->v[i].rec, "kind", &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "";
}

static json_object *kdamonds_of(const struct leftover *l)
{
	json_object *v;

	if (l->rec && json_object_object_get_ex(l->rec, "kdamonds", &v) &&
	    json_object_is_type(v, json_type_array))
		return v;
	return NULL;
}

DAMONCTL_API unsigned int damonctl_leftover_nr_kdamonds(const struct damonctl_leftovers *ls,
							unsigned int i)
{
	json_object *a = kdamonds_of(&ls->v[i]);

	return a ? (unsigned int)json_object_array_length(a) : 0;
}

DAMONCTL_API unsigned int damonctl_leftover_kdamond(const struct damonctl_leftovers *ls,
						    unsigned int i, unsigned int k)
{
	json_object *a = kdamonds_of(&ls->v[i]);

	return a ? (unsigned int)json_object_get_int(json_object_array_get_idx(a, k)) : 0;
}

DAMONCTL_API const char *damonctl_leftover_kept(const struct damonctl_leftovers *ls,
						unsigned int i, const char *key)
{
	struct leftover *l = &ls->v[i];
	json_object *v;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(reserved); k++)
		if (!strcmp(key, reserved[k]))
			return NULL;
	if (!l->root || !json_object_object_get_ex(l->root, key, &v))
		return NULL;
	free(l->kept_text);
	l->kept_text = strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	return l->kept_text;
}

DAMONCTL_API int damonctl_leftover_undo(struct damonctl_ctx *ctx,
					const struct damonctl_leftovers *ls, unsigned int i,
					char *what, size_t size)
{
	const struct leftover *l = &ls->v[i];

	if (size)
		*what = '\0';
	if (l->state != DAMONCTL_LEFTOVER_RECORD)
		return -EINVAL;
	return damonctl_txn_undo(ctx, json_object_to_json_string_ext(l->rec,
				 JSON_C_TO_STRING_PLAIN), what, size);
}

DAMONCTL_API int damonctl_leftover_remove(const struct damonctl_leftovers *ls, unsigned int i)
{
	return unlink(ls->v[i].path) && errno != ENOENT ? -errno : 0;
}
