// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A capture scheme must not outlive its capture. Before installing one, a capture with a
 * state directory leaves a note there, STATE_DIR/capture-K.json (its pid, the kdamond and
 * where the capture schemes are in its scheme list), and removes it once the kdamond's own
 * configuration is back. A capture killed with SIGKILL cannot do that: the next capture's
 * caller (damonctl_capture_recover) finds the note of a dead process and removes the schemes
 * it left, if they are still there and still look like capture schemes (otherwise someone
 * changed the kdamond since, and it is left alone with a warning).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_internal.h"
#include "json_internal.h"

struct note {
	int recorder_pid;
	unsigned long long recorder_starttime;	/* a reused pid is not the recorder */
	unsigned int kdamond;
	int kdamond_pid;
	unsigned int first, nr;
};

static int note_path(const char *state_dir, unsigned int kdamond, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/capture-%u.json", state_dir, kdamond);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int dctl_capture_guard_write(const char *state_dir, unsigned int kdamond, int kdamond_pid,
			     unsigned int first, unsigned int nr)
{
	json_object *root;
	char path[PATH_MAX];
	int r = note_path(state_dir, kdamond, path, sizeof(path));

	if (r < 0)
		return r;
	root = json_object_new_object();
	if (!root)
		return -ENOMEM;
	json_object_object_add(root, "format_version", json_object_new_int(1));
	json_object_object_add(root, "recorder_pid", json_object_new_int((int)getpid()));
	json_object_object_add(root, "recorder_starttime",
			       json_object_new_uint64(damonctl_proc_start_time((int)getpid())));
	json_object_object_add(root, "kdamond", json_object_new_int((int)kdamond));
	json_object_object_add(root, "kdamond_pid", json_object_new_int(kdamond_pid));
	json_object_object_add(root, "first_scheme", json_object_new_int((int)first));
	json_object_object_add(root, "nr_schemes", json_object_new_int((int)nr));
	r = dctl_state_write(state_dir, path, json_object_to_json_string_ext(root,
			 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return r;
}

void dctl_capture_guard_remove(const char *state_dir, unsigned int kdamond)
{
	char path[PATH_MAX];

	if (state_dir && !note_path(state_dir, kdamond, path, sizeof(path)))
		unlink(path);
}

static int get_int(json_object *root, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(root, key, &v) ? json_object_get_int(v) : -1;
}

static bool note_load(const char *path, struct note *n)
{
	json_object *root, *v;
	int kd, first, nr, err;

	root = dctl_json_state_file(path, &err);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return false;
	}
	n->recorder_pid = get_int(root, "recorder_pid");
	n->recorder_starttime = json_object_object_get_ex(root, "recorder_starttime", &v) ?
		json_object_get_uint64(v) : 0;
	kd = get_int(root, "kdamond");
	n->kdamond_pid = get_int(root, "kdamond_pid");
	first = get_int(root, "first_scheme");
	nr = get_int(root, "nr_schemes");
	json_object_put(root);
	if (n->recorder_pid <= 0 || kd < 0 || first < 0 || nr <= 0)
		return false;
	n->kdamond = (unsigned int)kd;
	n->first = (unsigned int)first;
	n->nr = (unsigned int)nr;
	return true;
}

static bool alive(const struct note *n)
{
	return n->recorder_pid == (int)getpid() ||
	       damonctl_proc_same(n->recorder_pid, n->recorder_starttime);
}

/* Whether the schemes after the kdamond's own are what a recorder adds: `stat` without
 * quota, goals or watermarks. A recorder killed while staging leaves them half-written
 * (access pattern and filters not yet set), so those are not looked at. */
static bool capture_like(const struct damonctl_scheme *s)
{
	return !strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION), "stat") &&
	       !damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_MS) &&
	       !damonctl_scheme_get(s, DAMONCTL_SCHEME_QUOTA_BYTES) && !damonctl_scheme_nr_goals(s) &&
	       !strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_WMARKS_METRIC), "none");
}

/* Whether what the note names is still there: the kdamond as the recorder found it (same
 * pid, its own schemes before the capture schemes) and only capture-like schemes after. */
static bool still_installed(const struct damonctl_kdamond *k, const struct note *n)
{
	struct damonctl_context *c = damonctl_kdamond_nr_contexts(k) == 1 ?
		damonctl_kdamond_context(k, 0) : NULL;
	bool running = !strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on");
	unsigned int i;

	if (!c || damonctl_context_nr_schemes(c) < n->first ||
	    (running && damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID) != n->kdamond_pid))
		return false;
	for (i = n->first; i < damonctl_context_nr_schemes(c); i++)
		if (!capture_like(damonctl_context_scheme(c, i)))
			return false;
	return true;
}

/* Remove the capture schemes of @n from the kdamond (staged, and committed if it runs):
 * 0 or -errno. */
static int undo(struct damonctl_ctx *ctx, const struct note *n)
{
	struct damonctl_kdamond *now = NULL, *want = NULL;
	struct damonctl_context *c;
	unsigned int i;
	int r = damonctl_kdamond_read(ctx, n->kdamond, &now);

	if (r == -ENOENT) {
		damonctl_clear_error(ctx);
		return 0;	/* the kdamond is gone, and its schemes with it */
	}
	if (!r)
		r = damonctl_kdamond_read(ctx, n->kdamond, &want);
	if (r) {
		damonctl_kdamond_free(now);
		return r;
	}
	if (!still_installed(now, n)) {
		dctl_log(ctx, DAMONCTL_LOG_WARN, "kdamond %u: record (pid %d) ended without "
			 "removing its capture scheme, but the kdamond has changed since: left it "
			 "alone", n->kdamond, n->recorder_pid);
		goto out;
	}
	c = damonctl_kdamond_context(want, 0);
	for (i = damonctl_context_nr_schemes(c); i-- > n->first;)
		damonctl_context_remove_scheme(c, i);
	/* running: commit even when the staged files are already back, since the running
	 * configuration may still hold the capture scheme (killed before its commit) */
	if (!strcmp(damonctl_kdamond_get_str(now, DAMONCTL_KDAMOND_STATE), "on")) {
		r = damonctl_kdamond_commit(ctx, want, now, DAMONCTL_COMMIT_F_FULL, NULL);
		if (!r && damonctl_context_nr_schemes(c) ==
			  damonctl_context_nr_schemes(damonctl_kdamond_context(now, 0)))
			r = damonctl_kdamond_cmd(ctx, n->kdamond, DAMONCTL_CMD_COMMIT);
	} else {
		r = damonctl_kdamond_stage(ctx, want, now);
	}
	if (r) {
		dctl_log(ctx, DAMONCTL_LOG_WARN, "kdamond %u: the capture scheme that record (pid "
			 "%d) left could not be removed", n->kdamond, n->recorder_pid);
		damonctl_kdamond_free(now);
		damonctl_kdamond_free(want);
		return r;	/* the note stays: the next capture tries again */
	}
	/* and the region directories its snapshots made the kernel create */
	damonctl_kdamond_cmd(ctx, n->kdamond, DAMONCTL_CMD_CLEAR_SCHEMES_TRIED_REGIONS);
	damonctl_clear_error(ctx);
	dctl_log(ctx, DAMONCTL_LOG_WARN, "kdamond %u: removed the capture scheme that record (pid "
		 "%d) left installed when it was killed", n->kdamond, n->recorder_pid);
out:
	damonctl_kdamond_free(now);
	damonctl_kdamond_free(want);
	return 0;
}

/* The next capture note in @d: 1 with its path in @path and *@ok telling whether it parsed
 * (into @n, naming the kdamond its file name says), 0 at the end. */
static int note_next(DIR *d, const char *dir, char *path, size_t size, struct note *n,
		     bool *ok)
{
	struct dirent *de;

	while ((de = readdir(d))) {
		unsigned int k;
		int end = 0;

		if (sscanf(de->d_name, "capture-%u.json%n", &k, &end) != 1 ||
		    de->d_name[end] != '\0')
			continue;
		snprintf(path, size, "%s/%s", dir, de->d_name);
		*ok = note_load(path, n) && n->kdamond == k;
		return 1;
	}
	return 0;
}

DAMONCTL_API int damonctl_capture_recover(struct damonctl_ctx *ctx, const char *state_dir)
{
	char path[PATH_MAX + 300];
	struct note n;
	bool ok;
	int e = 0;
	DIR *d = state_dir ? opendir(state_dir) : NULL;

	if (!d)
		return 0;		/* no state at all: nothing was left */
	while (!e && note_next(d, state_dir, path, sizeof(path), &n, &ok)) {
		if (!ok) {
			dctl_log(ctx, DAMONCTL_LOG_WARN, "%s does not parse: removed", path);
			unlink(path);
			continue;
		}
		if (alive(&n))
			continue;	/* a capture in progress */
		e = undo(ctx, &n);
		if (!e)
			unlink(path);
	}
	closedir(d);
	return e;
}

DAMONCTL_API unsigned int damonctl_capture_leftovers(const char *state_dir,
						     unsigned int *kdamonds, int *pids,
						     unsigned int max)
{
	char path[PATH_MAX + 300];
	unsigned int nr = 0;
	struct note n;
	bool ok;
	DIR *d = state_dir ? opendir(state_dir) : NULL;

	if (!d)
		return 0;
	while (nr < max && note_next(d, state_dir, path, sizeof(path), &n, &ok)) {
		if (!ok || alive(&n))
			continue;
		kdamonds[nr] = n.kdamond;
		pids[nr++] = n.recorder_pid;
	}
	closedir(d);
	return nr;
}
