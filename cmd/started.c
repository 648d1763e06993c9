// SPDX-License-Identifier: GPL-2.0-or-later
/* The record of kdamonds damonc started (see started.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "started.h"

#define STARTED_FILE "kdamonds.json"

/* started_use_file(): an --atomic batch's line keeps its record beside its staged tree */
static const char *staged_file;

void started_use_file(const char *path)
{
	staged_file = path;
}

int run_path(struct damonctl_ctx *ctx, const char *rel, char *buf, size_t size)
{
	const char *root = damonctl_get_sysroot(ctx);
	int n;

	if (!strcmp(root, "/"))
		root = "";
	n = rel && *rel ? snprintf(buf, size, "%s/run/damonc/%s", root, rel) :
			  snprintf(buf, size, "%s/run/damonc", root);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

static int file_path(struct damonctl_ctx *ctx, char *buf, size_t size)
{
	int r;

	if (staged_file)
		return snprintf(buf, size, "%s", staged_file) >= (int)size ? -ENAMETOOLONG : 0;
	r = run_path(ctx, STARTED_FILE, buf, size);
	return r < 0 ? r : 0;
}

/* damonc's run directory, made or checked as root's own (damonctl_make_state_dir(3)); what
 * is wrong with one found is said here, the caller's sentence says what could not be done. */
static int run_dir_make(const char *dir)
{
	int r = damonctl_make_state_dir(dir);

	if (r == -EPERM)
		warnx_("%s belongs to another user: damonc keeps its state only in a directory "
		       "of its own user's, mode 0700", dir);
	else if (r == -ELOOP || r == -ENOTDIR)
		warnx_("%s is %s: damonc keeps its state only in a directory of its own user's, "
		       "mode 0700", dir, r == -ELOOP ? "a symbolic link" : "not a directory");
	return r;
}

int started_stat(struct damonctl_ctx *ctx, struct stat *st)
{
	char path[4096];
	int r = file_path(ctx, path, sizeof(path));

	memset(st, 0, sizeof(*st));
	if (r)
		return r;
	return stat(path, st) && errno != ENOENT ? -errno : 0;
}

/* The lock's directory and file, for started_unlock() to tidy (one lock per process). */
static char lock_dir[4096], lock_path[4200];
static bool lock_made_dir;

int started_lock(struct damonctl_ctx *ctx)
{
	struct stat a, b;
	int r = run_path(ctx, "", lock_dir, sizeof(lock_dir)), fd;

	if (r < 0)
		return r;
	lock_made_dir = access(lock_dir, F_OK) != 0;
	r = run_dir_make(lock_dir);
	if (r)
		return r;
	snprintf(lock_path, sizeof(lock_path), "%s/lock", lock_dir);
	for (;;) {
		fd = damonctl_file_open(lock_path, O_RDWR | O_CREAT, 0600);
		if (fd == -ENOENT && !run_dir_make(lock_dir))
			continue;	/* another damonc removed the empty directory meanwhile */
		if (fd < 0)
			return fd;
		while (flock(fd, LOCK_EX)) {
			/* a kernel built without file locking (CONFIG_FILE_LOCKING=n, as small
			 * guests are): nothing to serialise with but ourselves, go on unlocked */
			if (errno == ENOSYS)
				break;
			if (errno != EINTR) {
				r = -errno;
				close(fd);
				return r;
			}
		}
		/* the holder before us may have removed the file (started_unlock): the lock is
		 * ours only on the file that is still at the path */
		if (!fstat(fd, &a) && !stat(lock_path, &b) && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
}

int started_lock_error(const struct cli *cli, int err)
{
	char dir[4096];

	if (run_path(cli->ctx, NULL, dir, sizeof(dir)) < 0)
		snprintf(dir, sizeof(dir), "/run/damonc");
	fprintf(stderr, "damonc: %s: cannot lock damonc's run directory %s: %s%s\n", cli->cmd_name,
		dir, strerror(-err), err == -EACCES || err == -EPERM ?
		" (damonc keeps there what it started and what it is in the middle of: the "
		"commands that change DAMON need root)" : "");
	return EXIT_FAIL;
}

/* Whether the run directory holds nothing but the lock. */
static bool only_lock_left(void)
{
	struct dirent *de;
	bool only = true;
	DIR *d = opendir(lock_dir);

	if (!d)
		return false;
	while (only && (de = readdir(d)))
		only = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		       !strcmp(de->d_name, "lock");
	closedir(d);
	return only;
}

void started_unlock(int fd)
{
	if (fd < 0)
		return;
	/* damonc remembers nothing here (a refusal, a stop of the last kdamond): it leaves
	 * nothing either, the directory included when it made it */
	if (only_lock_left()) {
		unlink(lock_path);
		if (lock_made_dir)
			rmdir(lock_dir);
	}
	close(fd);
}

/* Whether entry @e is still damonc's kdamond: the thread it started, or while it is off, the
 * directory damonc left (another program's nr_kdamonds write makes every one anew). */
static bool still_ours(struct damonctl_ctx *ctx, const struct started_entry *e)
{
	struct damonctl_kdamond_id was = { .sz = sizeof(was), .pid = e->pid,
					   .pid_start = e->pid_start, .dir_ino = e->dir_ino };
	struct damonctl_kdamond_id now = { .sz = sizeof(now) };
	int r = damonctl_kdamond_identify(ctx, e->kdamond, &now);

	damonctl_clear_error(ctx);
	/* a record from before identities: a running kdamond is known by its pid */
	if (!r && now.pid > 0 && !e->dir_ino)
		return now.pid == e->pid;
	return !r && damonctl_kdamond_id_same(&was, &now);
}

int started_load(struct damonctl_ctx *ctx, struct started *s)
{
	char path[4096];
	json_object *root, *arr;
	size_t i, n;
	int r;

	memset(s, 0, sizeof(*s));
	r = file_path(ctx, path, sizeof(path));
	if (r < 0)
		return r;
	r = read_json_file(path, &root);
	if (r || !root)
		return r;
	if (!json_object_object_get_ex(root, "kdamonds", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		json_object_put(root);
		return -EBADMSG;
	}
	n = json_object_array_length(arr);
	s->e = calloc(n ? n : 1, sizeof(*s->e));
	if (!s->e) {
		json_object_put(root);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		r = started_entry_from_json(json_object_array_get_idx(arr, i), &s->e[s->nr]);
		if (r == -EBADMSG) {
			free(s->e);
			s->e = NULL;
			s->nr = 0;
			json_object_put(root);
			return r;
		}
		if (!r) {
			/* a batch's staged record is checked against the kernel when made */
			s->e[s->nr].foreign = !staged_file && !still_ours(ctx, &s->e[s->nr]);
			s->nr++;
		}
	}
	json_object_put(root);
	return 0;
}

void started_rebind(struct damonctl_ctx *ctx, struct started *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		struct damonctl_kdamond_id id = { .sz = sizeof(id) };

		if (s->e[i].foreign || damonctl_kdamond_identify(ctx, s->e[i].kdamond, &id))
			continue;
		s->e[i].dir_ino = id.dir_ino;
		if (id.pid > 0 && id.pid == s->e[i].pid)
			s->e[i].pid_start = id.pid_start;
	}
	damonctl_clear_error(ctx);
}

int started_entry_from_json(json_object *o, struct started_entry *e)
{
	json_object *v;

	memset(e, 0, sizeof(*e));
	if (!json_object_object_get_ex(o, "kdamond", &v))
		return -ENOENT;
	e->kdamond = (unsigned int)json_object_get_int(v);
	if (json_object_object_get_ex(o, "pid", &v))
		e->pid = json_object_get_int(v);
	if (json_object_object_get_ex(o, "pid_start", &v))
		e->pid_start = (unsigned long long)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "dir_ino", &v))
		e->dir_ino = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "stopped", &v))
		e->stopped = json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "since", &v))
		e->since = json_object_get_int64(v);
	if (json_object_object_get_ex(o, "label", &v))
		snprintf(e->label, sizeof(e->label), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "targets", &v) &&
	    json_object_is_type(v, json_type_array)) {
		size_t t;

		for (t = 0; t < json_object_array_length(v) && t < STARTED_MAX_TARGETS; t++)
			e->targets[e->nr_targets++] =
				json_object_get_int(json_object_array_get_idx(v, t));
	}
	if (json_object_object_get_ex(o, "follow_children", &v))
		e->follow_children = json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "server_pid", &v))
		e->server_pid = json_object_get_int(v);
	if (json_object_object_get_ex(o, "fallbacks", &v) && fallback_from_json(v, &e->fbs))
		return -EBADMSG;
	return 0;
}

json_object *started_entry_to_json(const struct started_entry *e)
{
	json_object *o = json_object_new_object(), *t;
	unsigned int j;

	json_object_object_add(o, "kdamond", json_object_new_int((int)e->kdamond));
	json_object_object_add(o, "pid", json_object_new_int(e->pid));
	if (e->pid_start)
		json_object_object_add(o, "pid_start", json_object_new_int64((int64_t)e->pid_start));
	if (e->dir_ino)
		json_object_object_add(o, "dir_ino", json_object_new_int64((int64_t)e->dir_ino));
	if (e->stopped)
		json_object_object_add(o, "stopped", json_object_new_boolean(true));
	json_object_object_add(o, "since", json_object_new_int64(e->since));
	json_object_object_add(o, "label", json_object_new_string(e->label));
	t = json_object_new_array();
	for (j = 0; j < e->nr_targets; j++)
		json_object_array_add(t, json_object_new_int(e->targets[j]));
	json_object_object_add(o, "targets", t);
	json_object_object_add(o, "fallbacks", fallback_to_json(&e->fbs));
	json_object_object_add(o, "follow_children", json_object_new_boolean(e->follow_children));
	if (e->server_pid)
		json_object_object_add(o, "server_pid", json_object_new_int(e->server_pid));
	return o;
}

int started_save(struct damonctl_ctx *ctx, const struct started *s)
{
	char path[4096];
	json_object *root, *arr;
	unsigned int i, nr = 0;
	int r;

	r = file_path(ctx, path, sizeof(path));
	if (r < 0)
		return r;
	for (i = 0; i < s->nr; i++)
		nr += !s->e[i].foreign;
	if (!nr) {
		if (unlink(path) && errno != ENOENT)
			return -errno;
		return 0;
	}
	root = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(root, "format_version", json_object_new_int(1));
	json_object_object_add(root, "kdamonds", arr);
	for (i = 0; i < s->nr; i++)
		if (!s->e[i].foreign)	/* another program's kdamond now */
			json_object_array_add(arr, started_entry_to_json(&s->e[i]));
	r = write_json_file(path, root);
	json_object_put(root);
	return r;
}

void started_free(struct started *s)
{
	free(s->e);
	s->e = NULL;
	s->nr = 0;
}

struct started_entry *started_find(struct started *s, unsigned int kdamond)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		if (s->e[i].kdamond == kdamond && !s->e[i].foreign)
			return &s->e[i];
	return NULL;
}

int started_add(struct started *s, const struct started_entry *e)
{
	struct started_entry *n;

	started_remove(s, e->kdamond);
	n = realloc(s->e, (s->nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->e = n;
	s->e[s->nr++] = *e;
	return 0;
}

void started_remove(struct started *s, unsigned int kdamond)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		if (s->e[i].kdamond != kdamond)
			continue;
		memmove(&s->e[i], &s->e[i + 1], (s->nr - i - 1) * sizeof(*s->e));
		s->nr--;
		return;
	}
}

bool started_owns(const struct started *s, const struct damonctl_kdamond *k)
{
	unsigned int i, idx = damonctl_kdamond_index(k);
	int pid = (int)damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID);

	for (i = 0; i < s->nr; i++) {
		if (s->e[i].kdamond != idx || s->e[i].foreign)
			continue;
		/* identified at load; running, it must still be the very kdamond we started */
		return pid < 0 || pid == s->e[i].pid;
	}
	return false;
}

bool started_by_damonc(const struct started *s, const struct damonctl_kdamond *k)
{
	const struct started_entry *e;

	if (!started_owns(s, k))
		return false;
	e = started_find((struct started *)s, damonctl_kdamond_index(k));
	return e && !e->stopped;
}

int started_stop(struct damonctl_ctx *ctx, struct started *s, unsigned int idx, bool *was_running)
{
	struct started_entry *e = started_find(s, idx);
	int r = damonctl_kdamond_is_running(ctx, idx, NULL);

	if (r == 1)
		r = damonctl_kdamond_cmd(ctx, idx, DAMONCTL_CMD_OFF);
	else if (!r)
		r = -EPERM;
	/* it may have stopped by itself in between (its targets exited) */
	if (r == -EPERM)
		r = 0;
	else if (!r && was_running)
		*was_running = true;
	if (r || !e)
		return r;
	memset(&e->fbs, 0, sizeof(e->fbs));
	e->follow_children = false;
	e->server_pid = 0;
	e->stopped = true;
	return 0;
}

int started_prune(struct damonctl_ctx *ctx, struct started *s, const struct damonctl_tree *tree)
{
	unsigned int i = 0;
	int dropped = 0;

	(void)ctx;
	while (i < s->nr) {
		struct damonctl_kdamond *k = damonctl_tree_kdamond(tree, s->e[i].kdamond);

		if (!k || !started_owns(s, k)) {
			started_remove(s, s->e[i].kdamond);
			dropped++;
			continue;
		}
		i++;
	}
	return dropped;
}

void started_refresh_stats(struct damonctl_ctx *ctx, const struct started *s,
			   bool unless_refreshed)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		char rel[64], buf[32];
		int pid = -1;

		if (damonctl_kdamond_is_running(ctx, s->e[i].kdamond, &pid) != 1 ||
		    pid != s->e[i].pid)
			continue;
		snprintf(rel, sizeof(rel), "kdamonds/%u/refresh_ms", s->e[i].kdamond);
		if (unless_refreshed && !damonctl_read(ctx, rel, buf, sizeof(buf)) &&
		    strtoull(buf, NULL, 10) > 0)
			continue;
		damonctl_kdamond_refresh_stats(ctx, s->e[i].kdamond, NULL);
	}
	damonctl_clear_error(ctx);
}
