// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Undo records: what a transaction hands its caller before writing, so that what it leaves
 * when its process is killed can be undone by the next one (see damonctl_set_txn_hook()).
 *
 *   {"format_version": 1, "kind": "start" | "commit", "phase": "stage" | "apply" | "undo",
 *    "kdamonds": [K...], "nr_kdamonds": N, "pids": [P...], "cmd": "commit"...,
 *    "before": {"format_version": 1, "kdamonds": [...]}}
 *
 * A start's "before" is the whole tree as it was (its configuration), "kdamonds" the ones it
 * adds or reuses and "nr_kdamonds" how many there were. A commit's "before" is the one
 * kdamond it changes, "pids" that kdamond's pid then, and "cmd" the command that applies it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

#define UNDO_FORMAT 1

static const char *const phases[] = {
	[DAMONCTL_TXN_BEGIN] = "stage",
	[DAMONCTL_TXN_APPLY] = "apply",
	[DAMONCTL_TXN_UNDO] = "undo",
};

static void emit(struct dctl_txn *t, enum damonctl_txn_event ev)
{
	if (!t->rec)
		return;
	json_object_object_add(t->rec, "phase", json_object_new_string(phases[ev]));
	t->ctx->txn_fn(t->ctx->txn_data, ev,
		       json_object_to_json_string_ext(t->rec, JSON_C_TO_STRING_PLAIN));
}

static int begin(struct dctl_txn *t, struct damonctl_ctx *ctx, json_object *rec)
{
	int r;

	t->ctx = ctx;
	t->rec = rec;
	if (!rec)
		return -ENOMEM;
	json_object_object_add(rec, "phase", json_object_new_string("stage"));
	r = ctx->txn_fn(ctx->txn_data, DAMONCTL_TXN_BEGIN,
			json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN));
	if (r) {
		json_object_put(rec);
		t->rec = NULL;
	}
	return r;
}

static json_object *record_new(const char *kind)
{
	json_object *rec = json_object_new_object();

	if (!rec)
		return NULL;
	json_object_object_add(rec, "format_version", json_object_new_int(UNDO_FORMAT));
	json_object_object_add(rec, "kind", json_object_new_string(kind));
	return rec;
}

int dctl_txn_begin_start(struct dctl_txn *t, struct damonctl_ctx *ctx,
			 const struct damonctl_tree *have, const unsigned int *idx, unsigned int nr)
{
	json_object *rec, *arr;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	if (!ctx->txn_fn)
		return 0;
	rec = record_new("start");
	arr = json_object_new_array();
	if (!rec || !arr) {
		json_object_put(arr);
		return begin(t, ctx, NULL);
	}
	for (i = 0; i < nr; i++)
		json_object_array_add(arr, json_object_new_int((int)idx[i]));
	json_object_object_add(rec, "kdamonds", arr);
	json_object_object_add(rec, "nr_kdamonds",
			       json_object_new_int((int)damonctl_tree_nr_kdamonds(have)));
	json_object_object_add(rec, "before", dctl_tree_to_json_object(CDOBJ(have),
								       DAMONCTL_JSON_CONFIG));
	return begin(t, ctx, rec);
}

int dctl_txn_begin_commit(struct dctl_txn *t, struct damonctl_ctx *ctx,
			  const struct damonctl_kdamond *have, const char *cmd)
{
	const struct dobj *k = CDOBJ(have);
	json_object *rec, *arr, *pids, *before, *kds;

	memset(t, 0, sizeof(*t));
	if (!ctx->txn_fn)
		return 0;
	rec = record_new("commit");
	arr = json_object_new_array();
	pids = json_object_new_array();
	before = json_object_new_object();
	kds = json_object_new_array();
	if (!rec || !arr || !pids || !before || !kds) {
		json_object_put(rec);
		json_object_put(arr);
		json_object_put(pids);
		json_object_put(before);
		json_object_put(kds);
		return begin(t, ctx, NULL);
	}
	json_object_array_add(arr, json_object_new_int((int)k->index));
	json_object_array_add(pids, json_object_new_int(
		(int)damonctl_kdamond_get_int(have, DAMONCTL_KDAMOND_PID)));
	json_object_object_add(rec, "kdamonds", arr);
	json_object_object_add(rec, "pids", pids);
	json_object_object_add(rec, "cmd", json_object_new_string(cmd ? cmd : ""));
	json_object_object_add(before, "format_version",
			       json_object_new_int(DAMONCTL_JSON_FORMAT_VERSION));
	json_object_array_add(kds, dctl_obj_to_json(k, DAMONCTL_JSON_CONFIG));
	json_object_object_add(before, "kdamonds", kds);
	json_object_object_add(rec, "before", before);
	return begin(t, ctx, rec);
}

void dctl_txn_event(struct dctl_txn *t, enum damonctl_txn_event ev)
{
	emit(t, ev);
}

void dctl_txn_end(struct dctl_txn *t, bool clean)
{
	if (!t->rec)
		return;
	t->ctx->txn_fn(t->ctx->txn_data, clean ? DAMONCTL_TXN_DONE : DAMONCTL_TXN_STUCK, NULL);
	json_object_put(t->rec);
	t->rec = NULL;
}

DAMONCTL_API void damonctl_set_txn_hook(struct damonctl_ctx *ctx, damonctl_txn_fn fn, void *data)
{
	ctx->txn_fn = fn;
	ctx->txn_data = data;
}

/* ---- carrying a record out ---- */

static int say(char *what, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *what, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (what && size) {
		va_start(ap, fmt);
		vsnprintf(what, size, fmt, ap);
		va_end(ap);
	}
	return 0;
}

static int int_at(json_object *arr, size_t i, int *v)
{
	json_object *o = json_object_array_get_idx(arr, i);

	if (!json_object_is_type(o, json_type_int))
		return -EINVAL;
	*v = json_object_get_int(o);
	return 0;
}

static bool is_on(const struct damonctl_kdamond *k)
{
	return !strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on");
}

static int before_tree(json_object *rec, struct damonctl_tree **out)
{
	json_object *b;

	if (!json_object_object_get_ex(rec, "before", &b) ||
	    !json_object_is_type(b, json_type_object))
		return -EINVAL;
	return damonctl_tree_from_json(json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN),
				       out, NULL, 0) ? -EINVAL : 0;
}

/* A start's record, read and checked. */
struct start_record {
	json_object *kds;		/* the kdamonds it adds or reuses */
	unsigned int n, top;		/* how many, and one more than the highest index */
	int nr_before;			/* how many the tree had */
	struct damonctl_tree *before;	/* the tree as it was */
	char list[128];			/* the indexes, for a sentence: "1, 2" */
};

static int start_record_read(json_object *rec, json_object *kds, struct start_record *s)
{
	json_object *v;
	unsigned int i;
	int idx = 0, r;

	s->kds = kds;
	s->n = (unsigned int)json_object_array_length(kds);
	s->top = 0;
	s->before = NULL;
	s->list[0] = '\0';
	if (!json_object_object_get_ex(rec, "nr_kdamonds", &v) ||
	    !json_object_is_type(v, json_type_int) || (s->nr_before = json_object_get_int(v)) < 0)
		return -EINVAL;
	r = before_tree(rec, &s->before);
	if (r)
		return r;
	if (damonctl_tree_nr_kdamonds(s->before) != (unsigned int)s->nr_before)
		goto bad;
	for (i = 0; i < s->n; i++) {
		if (int_at(kds, i, &idx) || idx < 0 || idx > 4096)
			goto bad;
		if ((unsigned int)idx + 1 > s->top)
			s->top = (unsigned int)idx + 1;
		snprintf(s->list + strlen(s->list), sizeof(s->list) - strlen(s->list), "%s%d",
			 i ? ", " : "", idx);
	}
	return 0;
bad:
	damonctl_tree_free(s->before);
	s->before = NULL;
	return -EINVAL;
}

/* What it turned on, off (up to 7.2, `off` gives EPERM for a kdamond already stopped). */
static int turn_off_started(struct damonctl_ctx *ctx, const struct start_record *s,
			    const struct damonctl_tree *now)
{
	struct damonctl_kdamond *k;
	unsigned int i;
	int idx = 0, r;

	for (i = 0; i < s->n; i++) {
		int_at(s->kds, i, &idx);
		k = damonctl_tree_kdamond(now, (unsigned int)idx);
		if (!k || !is_on(k))
			continue;
		r = damonctl_kdamond_cmd(ctx, (unsigned int)idx, DAMONCTL_CMD_OFF);
		if (r && r != -EPERM)
			return r;
	}
	return 0;
}

/* The kdamonds it reused, as they were; nobody else's is touched. */
static int stage_back_reused(struct damonctl_ctx *ctx, const struct start_record *s,
			     unsigned int nr_now, char *what, size_t size)
{
	unsigned int i;
	int idx = 0, r;

	for (i = 0; i < s->n; i++) {
		struct damonctl_kdamond *cur;

		int_at(s->kds, i, &idx);
		if ((unsigned int)idx >= nr_now)
			continue;
		r = damonctl_kdamond_read(ctx, (unsigned int)idx, &cur);
		if (!r) {
			r = damonctl_kdamond_stage(ctx, damonctl_tree_kdamond(s->before,
					(unsigned int)idx), cur);
			damonctl_kdamond_free(cur);
		}
		if (r)
			return r;
	}
	return say(what, size, "kdamond%s %s staged back as %s", s->n > 1 ? "s" : "", s->list,
		   s->n > 1 ? "they were" : "it was");
}

/* The kdamonds it added: removing them rewrites nr_kdamonds, which no running kdamond
 * allows, and recreates every directory: the others get their configuration back. */
static int remove_added(struct damonctl_ctx *ctx, const struct start_record *s,
			const struct damonctl_tree *now, char *what, size_t size)
{
	struct damonctl_kdamond *k;
	unsigned int i;
	int idx = 0, r, busy = -1;

	damonctl_for_each_kdamond(now, k, i) {
		unsigned int j;
		bool listed = false;

		for (j = 0; j < s->n; j++)
			listed |= !int_at(s->kds, j, &idx) && (unsigned int)idx == i;
		if (is_on(k) && !listed)
			busy = (int)i;
	}
	if (busy >= 0) {
		dctl_set_error(ctx, -EBUSY, true, "kdamonds/nr_kdamonds", "");
		say(what, size, "kdamond %d runs, so kdamond%s %s cannot be removed yet", busy,
		    s->n > 1 ? "s" : "", s->list);
		return -EBUSY;
	}
	r = damonctl_tree_restore(ctx, s->before);
	if (!r)
		say(what, size, "removed kdamond%s %s and put the tree back as it was", s->n > 1 ?
		    "s" : "", s->list);
	return r;
}

static int undo_start(struct damonctl_ctx *ctx, json_object *rec, json_object *kds, char *what,
		      size_t size)
{
	struct damonctl_tree *now = NULL;
	struct start_record s;
	unsigned int nr_now;
	int r = start_record_read(rec, kds, &s);

	if (r)
		return r;
	r = damonctl_tree_read(ctx, &now);
	if (r)
		goto out;
	nr_now = damonctl_tree_nr_kdamonds(now);
	if (nr_now != (unsigned int)s.nr_before && nr_now != s.top) {
		/* any nr_kdamonds write recreates every kdamond: what it left is gone */
		r = say(what, size, "the tree was rewritten since (%u kdamonds, not %d or %u): "
			"nothing of it is left", nr_now, s.nr_before, s.top);
		goto out;
	}
	r = turn_off_started(ctx, &s, now);
	if (r)
		goto out;
	if (nr_now == (unsigned int)s.nr_before)
		r = stage_back_reused(ctx, &s, nr_now, what, size);
	else
		r = remove_added(ctx, &s, now, what, size);
out:
	damonctl_tree_free(now);
	damonctl_tree_free(s.before);
	return r;
}

static int undo_commit(struct damonctl_ctx *ctx, json_object *rec, json_object *kds, char *what,
		       size_t size)
{
	struct damonctl_tree *before = NULL;
	struct damonctl_kdamond *now = NULL, *want = NULL;
	json_object *v, *pids;
	const char *phase = "", *cmd = "";
	int idx, pid, pid_now = -1, r;
	bool running;

	if (json_object_array_length(kds) != 1 || int_at(kds, 0, &idx) || idx < 0 ||
	    !json_object_object_get_ex(rec, "pids", &pids) ||
	    !json_object_is_type(pids, json_type_array) || int_at(pids, 0, &pid))
		return -EINVAL;
	if (json_object_object_get_ex(rec, "phase", &v))
		phase = json_object_get_string(v);
	if (json_object_object_get_ex(rec, "cmd", &v))
		cmd = json_object_get_string(v);
	r = before_tree(rec, &before);
	if (!r && damonctl_tree_nr_kdamonds(before) != 1)
		r = -EINVAL;
	if (r)
		goto out;
	r = damonctl_kdamond_read(ctx, (unsigned int)idx, &now);
	if (r == -ENOENT) {
		r = say(what, size, "kdamond %d is gone", idx);
		goto out;
	}
	if (r)
		goto out;
	running = is_on(now);
	if (running)
		pid_now = (int)damonctl_kdamond_get_int(now, DAMONCTL_KDAMOND_PID);
	if (running && pid_now != pid) {
		/* restarted since: its `on` took whatever was staged, and it runs that now */
		r = say(what, size, "kdamond %d was restarted since (pid %d): left as it runs",
			idx, pid_now);
		goto out;
	}
	if (!strcmp(phase, "apply")) {
		/* killed at its `commit`: everything was staged and checked; finish it */
		enum damonctl_cmd c = !strcmp(cmd, "commit_schemes_quota_goals") ?
			DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS : DAMONCTL_CMD_COMMIT;

		if (!running) {
			r = say(what, size, "kdamond %d has stopped: its staged files stay for its "
				"next start", idx);
			goto out;
		}
		r = damonctl_kdamond_cmd(ctx, (unsigned int)idx, c);
		if (!r)
			say(what, size, "committed to kdamond %d what was staged", idx);
		goto out;
	}
	want = damonctl_kdamond_dup(damonctl_tree_kdamond(before, 0));
	if (!want) {
		r = -ENOMEM;
		goto out;
	}
	DOBJ(want)->index = (unsigned int)idx;
	r = damonctl_kdamond_stage(ctx, want, now);
	if (!r)
		say(what, size, "staged kdamond %d's files back to what it runs", idx);
out:
	damonctl_kdamond_free(want);
	damonctl_kdamond_free(now);
	damonctl_tree_free(before);
	return r;
}

DAMONCTL_API int damonctl_txn_undo(struct damonctl_ctx *ctx, const char *record, char *what,
				   size_t size)
{
	json_object *rec, *v, *kds;
	const char *kind;
	int r;

	if (what && size)
		what[0] = '\0';
	rec = dctl_json_parse(record, strlen(record), NULL, 0);
	if (!rec)
		return -EINVAL;
	if (!json_object_is_type(rec, json_type_object) ||
	    !json_object_object_get_ex(rec, "format_version", &v) ||
	    json_object_get_int(v) != UNDO_FORMAT ||
	    !json_object_object_get_ex(rec, "kind", &v) ||
	    !json_object_object_get_ex(rec, "kdamonds", &kds) ||
	    !json_object_is_type(kds, json_type_array)) {
		json_object_put(rec);
		return -EINVAL;
	}
	kind = json_object_get_string(v);
	if (!strcmp(kind, "start"))
		r = undo_start(ctx, rec, kds, what, size);
	else if (!strcmp(kind, "commit"))
		r = undo_commit(ctx, rec, kds, what, size);
	else
		r = -EINVAL;
	json_object_put(rec);
	return r;
}
