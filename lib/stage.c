// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Writing a model into the kernel's staging files, and the `state` commands.
 *
 * Staging is planned first, without any I/O: the wanted model is compared with what the
 * files hold and only differences become writes. Writing any nr_* file makes the kernel drop
 * every child and create fresh defaults, so a list whose length changes is rewritten whole
 * (its children are then compared with defaults), and an unchanged list is never touched.
 * A plan can be printed (damonc start --dry-run) or applied, write after write, in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct plan_write {
	char *path;	/* relative to the admin directory */
	char *value;
};

struct damonctl_plan {
	struct plan_write *w;
	size_t nr, cap;
};

static int plan_add(struct damonctl_plan *p, const char *rel, const char *file,
		    const char *value)
{
	struct plan_write *w;
	char path[PATH_MAX];

	if (!dctl_fmt(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", file))
		return -ENAMETOOLONG;
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		w = realloc(p->w, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		p->w = w;
		p->cap = cap;
	}
	w = &p->w[p->nr];
	w->path = strdup(path);
	w->value = strdup(value);
	if (!w->path || !w->value) {
		free(w->path);
		free(w->value);
		return -ENOMEM;
	}
	p->nr++;
	return 0;
}

static int unsupported(struct damonctl_ctx *ctx, const char *rel, const char *file,
		       const char *value)
{
	char path[PATH_MAX];

	dctl_fmt(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", file);
	dctl_set_error(ctx, -EOPNOTSUPP, true, path, value);
	return -EOPNOTSUPP;
}

static int plan_obj(struct damonctl_ctx *ctx, struct damonctl_plan *p, const char *rel,
		    const struct dobj *want, const struct dobj *have);

static int plan_list(struct damonctl_ctx *ctx, struct damonctl_plan *p, const char *rel,
		     const struct dobj *want, const struct dobj *have, unsigned int l)
{
	const struct list_desc *ld = &dctl_kinds[want->kind].lists[l];
	unsigned int nw = dobj_nr(want, l), nh = have ? dobj_nr(have, l) : 0, i;
	bool fresh = !have || nw != nh;
	char buf[32];
	int r;

	snprintf(buf, sizeof(buf), "%u", nw);
	if (have && !(have->lists_has >> l & 1))
		return nw ? unsupported(ctx, rel, ld->nr_file, buf) : 0;
	if (nw != nh) {
		r = plan_add(p, rel, ld->nr_file, buf);
		if (r)
			return r;
	}
	for (i = 0; i < nw; i++) {
		char childrel[PATH_MAX];

		if (!dctl_fmt(childrel, sizeof(childrel), "%s%s%s/%u", rel, *rel ? "/" : "",
			      ld->dir, i))
			return -ENAMETOOLONG;
		r = plan_obj(ctx, p, childrel, dobj_child(want, l, i),
			     fresh ? NULL : dobj_child(have, l, i));
		if (r)
			return r;
	}
	return 0;
}

static int plan_obj(struct damonctl_ctx *ctx, struct damonctl_plan *p, const char *rel,
		    const struct dobj *want, const struct dobj *have)
{
	const struct kind_desc *kd = &dctl_kinds[want->kind];
	char val[PATH_MAX];
	unsigned int a, l;
	int r;

	for (a = 0; a < kd->nr_attrs; a++) {
		const struct attr_desc *d = &kd->attrs[a];

		if (d->flags & A_RO)
			continue;
		r = dobj_format(want, a, val, sizeof(val));
		if (r < 0)
			return r;
		if (have && !(have->has >> a & 1)) {
			if (!dobj_is_default(want, a))
				return unsupported(ctx, rel, d->file, val);
			continue;
		}
		if (have ? dobj_val_equal(want, have, a) : dobj_is_default(want, a))
			continue;
		r = plan_add(p, rel, d->file, val);
		if (r)
			return r;
	}
	for (l = 0; l < kd->nr_lists; l++) {
		if (kd->lists[l].flags & A_RO)
			continue;
		r = plan_list(ctx, p, rel, want, have, l);
		if (r)
			return r;
	}
	return 0;
}

DAMONCTL_API void damonctl_plan_free(struct damonctl_plan *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++) {
		free(p->w[i].path);
		free(p->w[i].value);
	}
	free(p->w);
	free(p);
}

static int plan_new(struct damonctl_plan **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

DAMONCTL_API int damonctl_tree_plan(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
				    const struct damonctl_tree *have, struct damonctl_plan **out)
{
	struct damonctl_plan *p;
	int r = plan_new(&p);

	if (r)
		return r;
	r = plan_obj(ctx, p, "", CDOBJ(want), CDOBJ(have));
	if (r) {
		damonctl_plan_free(p);
		return r;
	}
	*out = p;
	return 0;
}

DAMONCTL_API int damonctl_kdamond_plan(struct damonctl_ctx *ctx,
				       const struct damonctl_kdamond *want,
				       const struct damonctl_kdamond *have,
				       struct damonctl_plan **out)
{
	struct damonctl_plan *p;
	char rel[64];
	int r = plan_new(&p);

	if (r)
		return r;
	snprintf(rel, sizeof(rel), "kdamonds/%u", CDOBJ(want)->index);
	r = plan_obj(ctx, p, rel, CDOBJ(want), CDOBJ(have));
	if (r) {
		damonctl_plan_free(p);
		return r;
	}
	*out = p;
	return 0;
}

DAMONCTL_API size_t damonctl_plan_nr_writes(const struct damonctl_plan *p)
{
	return p->nr;
}

DAMONCTL_API int damonctl_plan_write(const struct damonctl_plan *p, size_t i, const char **path,
				     const char **value)
{
	if (i >= p->nr)
		return -ENOENT;
	*path = p->w[i].path;
	*value = p->w[i].value;
	return 0;
}

DAMONCTL_API int damonctl_plan_apply(struct damonctl_ctx *ctx, const struct damonctl_plan *p)
{
	size_t i;
	int fd, r = 0;

	if (ctx->staging) {
		if (p->nr)
			dctl_set_error(ctx, -EROFS, true, p->w[0].path, p->w[0].value);
		return p->nr ? -EROFS : 0;
	}
	fd = dctl_admin_open(ctx, "");
	if (fd < 0)
		return fd;
	for (i = 0; i < p->nr && !r; i++) {
		r = dctl_write_at(fd, p->w[i].path, p->w[i].value);
		if (r != -ENOENT)	/* no such file: nothing written */
			dctl_wrec_note(ctx, p->w[i].path, p->w[i].value);
		dctl_log(ctx, DAMONCTL_LOG_DEBUG, "write %s <= '%s': %s", p->w[i].path,
			 p->w[i].value, r ? strerror(-r) : "ok");
		if (r) {
			if (r == -ENOENT)
				r = -EOPNOTSUPP;
			dctl_set_error(ctx, r, true, p->w[i].path, p->w[i].value);
		}
	}
	close(fd);
	return r;
}

DAMONCTL_API int damonctl_tree_stage(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
				     const struct damonctl_tree *have)
{
	struct damonctl_plan *p;
	int r = damonctl_tree_plan(ctx, want, have, &p);

	if (r)
		return r;
	r = ctx->staging ? dctl_staged_tree_stage(ctx, want) : damonctl_plan_apply(ctx, p);
	damonctl_plan_free(p);
	return r;
}

DAMONCTL_API int damonctl_kdamond_stage(struct damonctl_ctx *ctx,
					const struct damonctl_kdamond *want,
					const struct damonctl_kdamond *have)
{
	struct damonctl_plan *p;
	int r = damonctl_kdamond_plan(ctx, want, have, &p);

	if (r)
		return r;
	r = ctx->staging ? dctl_staged_kdamond_stage(ctx, want) : damonctl_plan_apply(ctx, p);
	damonctl_plan_free(p);
	return r;
}

DAMONCTL_API int damonctl_tree_restore(struct damonctl_ctx *ctx,
				       const struct damonctl_tree *saved)
{
	struct damonctl_tree *now;
	int r = damonctl_tree_read(ctx, &now);

	if (r)
		return r;
	r = damonctl_tree_stage(ctx, saved, now);
	damonctl_tree_free(now);
	return r;
}

static const char *const cmd_names[] = {
	[DAMONCTL_CMD_ON] = "on",
	[DAMONCTL_CMD_OFF] = "off",
	[DAMONCTL_CMD_COMMIT] = "commit",
	[DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS] = "commit_schemes_quota_goals",
	[DAMONCTL_CMD_UPDATE_SCHEMES_STATS] = "update_schemes_stats",
	[DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_REGIONS] = "update_schemes_tried_regions",
	[DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_BYTES] = "update_schemes_tried_bytes",
	[DAMONCTL_CMD_CLEAR_SCHEMES_TRIED_REGIONS] = "clear_schemes_tried_regions",
	[DAMONCTL_CMD_UPDATE_SCHEMES_EFFECTIVE_QUOTAS] = "update_schemes_effective_quotas",
	[DAMONCTL_CMD_UPDATE_TUNED_INTERVALS] = "update_tuned_intervals",
};

DAMONCTL_API const char *damonctl_cmd_name(enum damonctl_cmd cmd)
{
	return (unsigned int)cmd < ARRAY_SIZE(cmd_names) ? cmd_names[cmd] : NULL;
}

DAMONCTL_API int damonctl_kdamond_cmd(struct damonctl_ctx *ctx, unsigned int index,
				      enum damonctl_cmd cmd)
{
	char rel[64];
	const char *name = damonctl_cmd_name(cmd);

	int r, tries = 0;

	if (!name)
		return -EINVAL;
	if (ctx->staging)
		return dctl_staged_cmd(ctx, index, cmd);
	snprintf(rel, sizeof(rel), "kdamonds/%u/state", index);
	/* EBUSY is DAMON's sysfs lock held by another writer for a moment (a tried-regions
	 * update waits for the kdamond with it held, an aggregation interval or more; the
	 * damonc agent makes one every interval): try again for about 5 s. Not for `on`,
	 * whose EBUSY means that an exclusive DAMON user runs. */
	while ((r = dctl_admin_write(ctx, rel, name)) == -EBUSY && cmd != DAMONCTL_CMD_ON &&
	       ++tries < 60)
		dctl_busy_wait(tries);
	return r;
}

DAMONCTL_API int damonctl_kdamond_refresh_stats(struct damonctl_ctx *ctx, unsigned int index,
					       const struct damonctl_features *f)
{
	int r = damonctl_kdamond_cmd(ctx, index, DAMONCTL_CMD_UPDATE_SCHEMES_STATS), e;

	/* effective quotas came with 6.9: written where @f says so; tried without @f, a
	 * kernel without them refusing the word */
	if (r || (f && damonctl_features_has(f, DAMONCTL_FEAT_EFFECTIVE_QUOTA) != DAMONCTL_YES))
		return r;
	e = damonctl_kdamond_cmd(ctx, index, DAMONCTL_CMD_UPDATE_SCHEMES_EFFECTIVE_QUOTAS);
	return f ? e : 0;
}

DAMONCTL_API int damonctl_kdamond_is_running(struct damonctl_ctx *ctx, unsigned int index,
					     int *pid)
{
	char rel[64], buf[32];
	int r;

	if (ctx->staging)
		return dctl_staged_is_running(ctx, index, pid);
	snprintf(rel, sizeof(rel), "kdamonds/%u/state", index);
	r = damonctl_read(ctx, rel, buf, sizeof(buf));
	if (r)
		return r;
	if (pid) {
		char pbuf[32];
		int64_t v;

		snprintf(rel, sizeof(rel), "kdamonds/%u/pid", index);
		r = damonctl_read(ctx, rel, pbuf, sizeof(pbuf));
		if (r)
			return r;
		if (dctl_kstrtos64(pbuf, &v))
			return -EBADMSG;
		*pid = (int)v;
	}
	return !strcmp(buf, "on");
}
