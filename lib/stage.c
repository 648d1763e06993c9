// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Writing a model into the kernel's staging files, and the `state` commands.
 *
 * Staging compares the wanted model with what the files hold and writes only differences.
 * Writing any nr_* file makes the kernel drop every child and create fresh defaults, so a
 * list whose length changes is rewritten whole, and an unchanged list is never touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void join(char *buf, size_t size, const char *rel, const char *file)
{
	dctl_fmt(buf, size, "%s%s%s", rel, *rel ? "/" : "", file);
}

static int stage_write(struct damonctl_ctx *ctx, int dirfd, const char *rel, const char *file,
		       const char *value)
{
	char path[PATH_MAX];
	int r = dctl_write_at(dirfd, file, value);

	join(path, sizeof(path), rel, file);
	dctl_log(ctx, DAMONCTL_LOG_DEBUG, "write %s <= '%s': %s", path, value,
		 r ? strerror(-r) : "ok");
	if (r) {
		if (r == -ENOENT)
			r = -EOPNOTSUPP;
		dctl_set_error(ctx, r, true, path, value);
	}
	return r;
}

static int unsupported(struct damonctl_ctx *ctx, const char *rel, const char *file,
		       const char *value)
{
	char path[PATH_MAX];

	join(path, sizeof(path), rel, file);
	dctl_set_error(ctx, -EOPNOTSUPP, true, path, value);
	return -EOPNOTSUPP;
}

static int stage_obj(struct damonctl_ctx *ctx, int dirfd, const char *rel,
		     const struct dobj *want, const struct dobj *have);

static int stage_list(struct damonctl_ctx *ctx, int dirfd, const char *rel,
		      const struct dobj *want, const struct dobj *have, unsigned int l)
{
	const struct list_desc *ld = &dctl_kinds[want->kind].lists[l];
	unsigned int nw = dobj_nr(want, l), nh = have ? dobj_nr(have, l) : 0, i;
	bool fresh = !have || nw != nh;
	char buf[32];
	int r;

	if (have && !(have->lists_has >> l & 1)) {
		if (!nw)
			return 0;
		snprintf(buf, sizeof(buf), "%u", nw);
		return unsupported(ctx, rel, ld->nr_file, buf);
	}
	if (nw != nh) {
		snprintf(buf, sizeof(buf), "%u", nw);
		r = stage_write(ctx, dirfd, rel, ld->nr_file, buf);
		if (r)
			return r;
	}
	for (i = 0; i < nw; i++) {
		char sub[PATH_MAX], childrel[PATH_MAX];
		int fd;

		dctl_fmt(sub, sizeof(sub), "%s/%u", ld->dir, i);
		join(childrel, sizeof(childrel), rel, sub);
		fd = dctl_open_dir(dirfd, sub);
		if (fd < 0) {
			dctl_set_error(ctx, fd, false, childrel, "");
			return fd;
		}
		r = stage_obj(ctx, fd, childrel, dobj_child(want, l, i),
			      fresh ? NULL : dobj_child(have, l, i));
		close(fd);
		if (r)
			return r;
	}
	return 0;
}

static int stage_obj(struct damonctl_ctx *ctx, int dirfd, const char *rel,
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
		r = stage_write(ctx, dirfd, rel, d->file, val);
		if (r)
			return r;
	}
	for (l = 0; l < kd->nr_lists; l++) {
		if (kd->lists[l].flags & A_RO)
			continue;
		r = stage_list(ctx, dirfd, rel, want, have, l);
		if (r)
			return r;
	}
	return 0;
}

DAMONCTL_API int damonctl_tree_stage(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
				     const struct damonctl_tree *have)
{
	int fd = dctl_admin_open(ctx, ""), r;

	if (fd < 0)
		return fd;
	r = stage_obj(ctx, fd, "", CDOBJ(want), CDOBJ(have));
	close(fd);
	return r;
}

DAMONCTL_API int damonctl_kdamond_stage(struct damonctl_ctx *ctx,
					const struct damonctl_kdamond *want,
					const struct damonctl_kdamond *have)
{
	char rel[64];
	int fd, r;

	snprintf(rel, sizeof(rel), "kdamonds/%u", CDOBJ(want)->index);
	fd = dctl_admin_open(ctx, rel);
	if (fd < 0)
		return fd;
	r = stage_obj(ctx, fd, rel, CDOBJ(want), CDOBJ(have));
	close(fd);
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

	if (!name)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "kdamonds/%u/state", index);
	return dctl_admin_write(ctx, rel, name);
}

DAMONCTL_API int damonctl_kdamond_is_running(struct damonctl_ctx *ctx, unsigned int index,
					     int *pid)
{
	char rel[64], buf[32];
	int r;

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
