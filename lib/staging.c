// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Staging: transactions made on a model instead of the kernel, committed later as one.
 *
 * A context given a staging file (damonctl_set_staging) writes nothing under DAMON: its
 * reads give the staged tree and its transactions change it (start turns kdamonds on in it,
 * commit and stage replace a kdamond's configuration, `off` turns one off). The model lives
 * in the file, with the results, the state and which files the kernel has, so that several
 * processes (a batch runs each line in one) add to it in turn and see what the lines before
 * them did, as they would on the kernel. damonctl_staging_commit() then makes the kernel run
 * it: what the batch stopped goes off, what runs on gets one commit, what it started is
 * staged and turned on; on any failure all of it is put back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_internal.h"

#define STAGING_FORMAT 1

static bool on(const struct dobj *k)
{
	return k && !strcmp(damonctl_kdamond_get_str((const struct damonctl_kdamond *)k,
						     DAMONCTL_KDAMOND_STATE), "on");
}

static struct dobj *kd(const struct dobj *t, unsigned int i)
{
	return i < dobj_nr(t, L_TREE_KDAMONDS) ? dobj_child(t, L_TREE_KDAMONDS, i) : NULL;
}

static int set_state(struct dobj *k, bool run, int pid)
{
	k->v[DAMONCTL_KDAMOND_PID].i = run ? pid : -1;
	return dobj_set_str(k, DAMONCTL_KDAMOND_STATE, run ? "on" : "off");
}

/* ---- the file: {"staging": 1, "base": the tree at the beginning, "tree": the model} ---- */

static int load(const char *path, struct dobj **base, struct dobj **tree)
{
	json_object *b, *t, *v, *root;
	int r;

	*base = *tree = NULL;
	root = dctl_json_state_file(path, &r);
	if (!root)
		return r == -EBADMSG ? -EINVAL : r;
	r = -EINVAL;
	if (json_object_object_get_ex(root, "staging", &v) &&
	    json_object_get_int(v) == STAGING_FORMAT &&
	    json_object_object_get_ex(root, "base", &b) &&
	    json_object_object_get_ex(root, "tree", &t)) {
		r = dctl_tree_from_json_exact(b, base);
		if (!r)
			r = dctl_tree_from_json_exact(t, tree);
	}
	json_object_put(root);
	if (r) {
		dobj_free(*base);
		*base = NULL;
	}
	return r;
}

/* Written whole or not at all: a reader sees the old model or the new. */
static int save(const char *path, const struct dobj *base, const struct dobj *tree)
{
	json_object *root = json_object_new_object();
	const char *s;
	int r;

	if (!root)
		return -ENOMEM;
	json_object_object_add(root, "staging", json_object_new_int(STAGING_FORMAT));
	json_object_object_add(root, "base", dctl_tree_to_json_object(base, 0));
	json_object_object_add(root, "tree", dctl_tree_to_json_object(tree, 0));
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	r = s ? damonctl_file_write(path, s, strlen(s), 0600) : -ENOMEM;
	json_object_put(root);
	return r;
}

DAMONCTL_API int damonctl_staging_begin(struct damonctl_ctx *ctx, const char *path)
{
	struct damonctl_tree *t;
	int r;

	if (ctx->staging)
		return -EINVAL;
	r = damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t);
	if (r)
		return r;
	r = save(path, CDOBJ(t), CDOBJ(t));
	damonctl_tree_free(t);
	return r;
}

DAMONCTL_API int damonctl_set_staging(struct damonctl_ctx *ctx, const char *path)
{
	char *copy = NULL;

	if (path && !(copy = strdup(path)))
		return -ENOMEM;
	free(ctx->staging);
	ctx->staging = copy;
	return 0;
}

DAMONCTL_API int damonctl_staging_read(const char *path, struct damonctl_tree **out)
{
	struct dobj *base, *tree;
	int r = load(path, &base, &tree);

	if (r)
		return r;
	dobj_free(base);
	*out = (struct damonctl_tree *)tree;
	return 0;
}

/* ---- what a staging context does instead of reading and writing DAMON ---- */

int dctl_staged_tree(struct damonctl_ctx *ctx, struct damonctl_tree **out)
{
	return damonctl_staging_read(ctx->staging, out);
}

int dctl_staged_base(struct damonctl_ctx *ctx, struct damonctl_tree **out)
{
	struct dobj *base, *tree;
	int r = load(ctx->staging, &base, &tree);

	if (r)
		return r;
	dobj_free(tree);
	*out = (struct damonctl_tree *)base;
	return 0;
}

int dctl_staged_kdamond(struct damonctl_ctx *ctx, unsigned int index,
			struct damonctl_kdamond **out)
{
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	int r = dctl_staged_tree(ctx, &t);

	if (r)
		return r;
	k = index < damonctl_tree_nr_kdamonds(t) ?
	    damonctl_kdamond_dup(damonctl_tree_kdamond(t, index)) : NULL;
	r = k ? 0 : index < damonctl_tree_nr_kdamonds(t) ? -ENOMEM : -ENOENT;
	damonctl_tree_free(t);
	if (!r)
		*out = k;
	return r;
}

int dctl_staged_is_running(struct damonctl_ctx *ctx, unsigned int index, int *pid)
{
	struct damonctl_kdamond *k;
	int r = dctl_staged_kdamond(ctx, index, &k);

	if (r)
		return r;
	r = on(CDOBJ(k));
	if (pid)
		*pid = (int)damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID);
	damonctl_kdamond_free(k);
	return r;
}

/* Change the model: read, change, written back whole (one writer at a time is the
 * caller's to keep: a batch runs its lines one after another). */
static int change(struct damonctl_ctx *ctx, int (*fn)(struct dobj *tree, const void *arg),
		  const void *arg)
{
	struct dobj *base, *tree;
	int r = load(ctx->staging, &base, &tree);

	if (r)
		return r;
	r = fn(tree, arg);
	if (!r)
		r = save(ctx->staging, base, tree);
	dobj_free(base);
	dobj_free(tree);
	return r;
}

/* Kdamond @k's configuration in place of the model's (its state stays the model's); a new
 * kdamond, off, when @k is one past the last. */
static int put_kdamond(struct dobj *tree, const struct dobj *k)
{
	struct dlist *l = &tree->lists[L_TREE_KDAMONDS];
	struct dobj *old = kd(tree, k->index), *n;
	int r;

	if (k->index > l->nr)
		return -ENOENT;
	n = dobj_dup(k, tree);
	if (!n)
		return -ENOMEM;
	r = set_state(n, on(old), old ? (int)old->v[DAMONCTL_KDAMOND_PID].i : -1);
	if (r) {
		dobj_free(n);
		return r;
	}
	if (old) {
		dobj_free(old);
		l->items[k->index] = n;
		return 0;
	}
	r = dobj_append(tree, L_TREE_KDAMONDS, n);
	if (r)
		dobj_free(n);
	return r;
}

static int stage_fn(struct dobj *tree, const void *arg)
{
	return put_kdamond(tree, arg);
}

int dctl_staged_kdamond_stage(struct damonctl_ctx *ctx, const struct damonctl_kdamond *want)
{
	return change(ctx, stage_fn, CDOBJ(want));
}

/* The whole tree as @arg: its kdamonds' configurations, those past its end dropped. */
static int tree_fn(struct dobj *tree, const void *arg)
{
	const struct dobj *want = arg;
	unsigned int i, n = dobj_nr(want, L_TREE_KDAMONDS);
	int r = 0;

	while (dobj_nr(tree, L_TREE_KDAMONDS) > n && !r)
		r = dobj_remove(tree, L_TREE_KDAMONDS, dobj_nr(tree, L_TREE_KDAMONDS) - 1);
	for (i = 0; i < n && !r; i++)
		r = put_kdamond(tree, kd(want, i));
	return r;
}

int dctl_staged_tree_stage(struct damonctl_ctx *ctx, const struct damonctl_tree *want)
{
	return change(ctx, tree_fn, CDOBJ(want));
}

struct start_arg {
	const struct dobj *want;
	const unsigned int *idx;
	unsigned int nr;
};

static int start_fn(struct dobj *tree, const void *arg)
{
	const struct start_arg *a = arg;
	unsigned int i;
	int r = tree_fn(tree, a->want);

	/* pid 0: on in the model, with no kernel thread yet */
	for (i = 0; i < a->nr && !r; i++)
		r = kd(tree, a->idx[i]) ? set_state(kd(tree, a->idx[i]), true, 0) : -ENOENT;
	return r;
}

int dctl_staged_tree_start(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
			   const unsigned int *idx, unsigned int nr)
{
	struct start_arg a = { CDOBJ(want), idx, nr };

	return change(ctx, start_fn, &a);
}

struct cmd_arg {
	unsigned int index;
	enum damonctl_cmd cmd;
};

static int cmd_fn(struct dobj *tree, const void *arg)
{
	const struct cmd_arg *a = arg;
	struct dobj *k = kd(tree, a->index);

	if (!k)
		return -ENOENT;
	switch (a->cmd) {
	case DAMONCTL_CMD_ON:
		return on(k) ? -EBUSY : set_state(k, true, 0);
	case DAMONCTL_CMD_OFF:
		return on(k) ? set_state(k, false, -1) : -EPERM;
	case DAMONCTL_CMD_COMMIT:
	case DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS:
		return on(k) ? 0 : -EINVAL;	/* the model is what was staged */
	default:
		return 0;	/* results: the model's are those it was staged with */
	}
}

int dctl_staged_cmd(struct damonctl_ctx *ctx, unsigned int index, enum damonctl_cmd cmd)
{
	struct cmd_arg a = { index, cmd };

	return change(ctx, cmd_fn, &a);
}

/* ---- the commit ---- */

/*
 * What the batch changed, onto the kernel as it is now: @out (a copy of the kernel's object)
 * takes each value that differs between @base (the tree the batch began from) and @staged,
 * and each list whose length the batch changed; the rest stays the kernel's, so what others
 * changed meanwhile (the damonc agent pacing a quota, a goal's current_value) is kept.
 */
static int merge(struct dobj *out, const struct dobj *base, const struct dobj *staged)
{
	const struct kind_desc *d = &dctl_kinds[out->kind];
	char val[PATH_MAX];
	unsigned int a, l, i;
	int r;

	for (a = 0; a < d->nr_attrs; a++) {
		if (d->attrs[a].flags & A_RO || dobj_val_equal(base, staged, a))
			continue;
		r = dobj_format(staged, a, val, sizeof(val));
		if (r >= 0)
			r = dobj_parse(out, a, val);
		if (r < 0)
			return r;
	}
	for (l = 0; l < d->nr_lists; l++) {
		unsigned int n = dobj_nr(staged, l);

		if (d->lists[l].flags & A_RO)
			continue;
		if (n == dobj_nr(base, l) && n == dobj_nr(out, l)) {
			for (i = 0; i < n; i++) {
				r = merge(dobj_child(out, l, i), dobj_child(base, l, i),
					  dobj_child(staged, l, i));
				if (r)
					return r;
			}
			continue;
		}
		if (n == dobj_nr(base, l))
			continue;	/* only the kernel's list changed: it stays */
		dobj_clear_list(out, l);
		for (i = 0; i < n; i++) {
			struct dobj *c = dobj_dup(dobj_child(staged, l, i), out);

			if (!c)
				return -ENOMEM;
			r = dobj_append(out, l, c);
			if (r) {
				dobj_free(c);
				return r;
			}
		}
	}
	return 0;
}

/* The tree to commit: the batch's changes merged onto @now, kdamond by kdamond; those the
 * batch added as it staged them. A kdamond takes the batch's state where the batch changed
 * it, else keeps the kernel's. */
static int merged(const struct dobj *base, const struct dobj *staged, const struct dobj *now,
		  struct dobj **out)
{
	struct dobj *t = dobj_dup(now, NULL);
	unsigned int i;
	int r = t ? 0 : -ENOMEM;

	for (i = 0; !r && i < dobj_nr(staged, L_TREE_KDAMONDS); i++) {
		const struct dobj *b = kd(base, i), *s = kd(staged, i);
		struct dobj *k = kd(t, i);

		if (!k) {
			k = dobj_dup(s, t);
			r = k ? dobj_append(t, L_TREE_KDAMONDS, k) : -ENOMEM;
			if (r)
				dobj_free(k);
			continue;
		}
		r = merge(k, b, s);
		if (!r && on(b) != on(s))
			r = set_state(k, on(s), on(s) ? 0 : -1);
	}
	if (r) {
		dobj_free(t);
		return r;
	}
	*out = t;
	return 0;
}

/*
 * Put the kernel back as @before (read before the commit's first write): kdamonds that run
 * now and ran before get their old configuration committed, those that run now only are
 * turned off, every staged file is put back, and those that ran before only are turned on
 * again. The first error is returned, the rest is still tried.
 */
static int put_back(struct damonctl_ctx *ctx, const struct dobj *before)
{
	struct damonctl_tree *now;
	unsigned int i, nr_before = dobj_nr(before, L_TREE_KDAMONDS), nr_now;
	int r, first;

	first = damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &now);
	if (first)
		return first;
	nr_now = damonctl_tree_nr_kdamonds(now);
	for (i = 0; i < nr_now; i++) {
		const struct dobj *k = kd(CDOBJ(now), i), *was = kd(before, i);

		if (!on(k))
			continue;
		if (on(was))
			r = damonctl_kdamond_commit(ctx, (const struct damonctl_kdamond *)was,
						    (const struct damonctl_kdamond *)k, 0, NULL);
		else
			r = damonctl_kdamond_cmd(ctx, i, DAMONCTL_CMD_OFF);
		if (r && r != -EPERM && !first)
			first = r;
	}
	r = damonctl_tree_restore(ctx, (const struct damonctl_tree *)before);
	if (r && !first)
		first = r;
	for (i = 0; i < nr_before; i++) {
		const struct dobj *k = kd(CDOBJ(now), i);

		if (!on(kd(before, i)) || on(k))
			continue;
		r = damonctl_kdamond_cmd(ctx, i, DAMONCTL_CMD_ON);
		if (r && !first)
			first = r;
	}
	damonctl_tree_free(now);
	return first;
}

/* The writes, in the order the kernel takes them. */
static int apply(struct damonctl_ctx *ctx, const struct dobj *tree, const struct dobj *now)
{
	unsigned int i, nr = dobj_nr(now, L_TREE_KDAMONDS), idx[64], n = 0;
	struct damonctl_tree *cur;
	int r;

	/* what the batch stopped (the kernel adds no kdamond while any runs) */
	for (i = 0; i < nr; i++) {
		if (!on(kd(now, i)) || on(kd(tree, i)))
			continue;
		r = damonctl_kdamond_cmd(ctx, i, DAMONCTL_CMD_OFF);
		if (r && r != -EPERM)
			return r;
	}
	/* one commit for each that runs on */
	for (i = 0; i < nr; i++) {
		if (!on(kd(now, i)) || !on(kd(tree, i)))
			continue;
		r = damonctl_kdamond_commit(ctx, (const struct damonctl_kdamond *)kd(tree, i),
					    (const struct damonctl_kdamond *)kd(now, i), 0, NULL);
		if (r)
			return r;
	}
	/* the rest staged, and what the batch started turned on */
	r = damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &cur);
	if (r)
		return r;
	for (i = 0; i < dobj_nr(tree, L_TREE_KDAMONDS); i++) {
		if (!on(kd(tree, i)) || on(kd(CDOBJ(cur), i)))
			continue;
		if (n == sizeof(idx) / sizeof(idx[0])) {
			damonctl_tree_free(cur);
			return -E2BIG;
		}
		idx[n++] = i;
	}
	r = n ? damonctl_tree_start(ctx, (const struct damonctl_tree *)tree, cur, idx, n) :
		damonctl_tree_stage(ctx, (const struct damonctl_tree *)tree, cur);
	damonctl_tree_free(cur);
	return r;
}

DAMONCTL_API int damonctl_staging_commit(struct damonctl_ctx *ctx, const char *path)
{
	struct dobj *base, *tree, *want = NULL;
	struct damonctl_tree *now;
	int r;

	if (ctx->staging)
		return -EINVAL;
	r = load(path, &base, &tree);
	if (r)
		return r;
	r = damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &now);
	if (r)
		goto out;
	/* kdamonds added or removed since: the batch's indexes may name others */
	if (dobj_nr(base, L_TREE_KDAMONDS) != damonctl_tree_nr_kdamonds(now))
		r = -ESTALE;
	if (!r)
		r = merged(base, tree, CDOBJ(now), &want);
	if (!r) {
		r = apply(ctx, want, CDOBJ(now));
		if (r) {
			struct dctl_kept_error k;

			dctl_keep_error(ctx, &k);
			put_back(ctx, CDOBJ(now));
			dctl_put_back_error(ctx, &k);
		}
	}
	damonctl_tree_free(now);
out:
	dobj_free(want);
	dobj_free(base);
	dobj_free(tree);
	return r;
}
