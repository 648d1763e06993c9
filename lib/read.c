// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loading the live tree into the model. Every file the schema knows is read if it exists;
 * a missing file means this kernel lacks it (recorded in dobj.has), never an error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define VALBUF 4096

/* internal: the tried regions of a scheme whose context has no probes skip probes/ */
#define READ_NO_TRIED_PROBES (1u << 30)
#define MA_PROBES_NR "monitoring_attrs/probes/nr_probes"

static int read_obj(struct damonctl_ctx *ctx, int dirfd, struct dobj *o, const char *rel,
		    unsigned int flags);

static int fail(struct damonctl_ctx *ctx, int err, const char *rel, const char *file)
{
	char path[PATH_MAX];

	dctl_fmt(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", file);
	dctl_set_error(ctx, err, false, path, "");
	return err;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int dctl_list_indexes(int dirfd, const char *dir, unsigned int **out, size_t *nr)
{
	unsigned int *idx = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd = dctl_open_dir(dirfd, dir);

	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		char *end;
		unsigned long v;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		v = strtoul(de->d_name, &end, 10);
		if (*end || v > UINT32_MAX)
			continue;
		if (n == cap) {
			unsigned int *p = realloc(idx, (cap = cap ? cap * 2 : 64) * sizeof(*p));

			if (!p) {
				free(idx);
				closedir(d);
				return -ENOMEM;
			}
			idx = p;
		}
		idx[n++] = (unsigned int)v;
	}
	closedir(d);
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_uint);
	*out = idx;
	*nr = n;
	return 0;
}

static int read_child(struct damonctl_ctx *ctx, int dirfd, struct dobj *o, unsigned int list,
		      unsigned int i, const char *rel, unsigned int flags)
{
	const struct list_desc *ld = &dctl_kinds[o->kind].lists[list];
	char sub[PATH_MAX], childrel[PATH_MAX];
	struct dobj *c;
	int fd, r;

	if (!dctl_fmt(sub, sizeof(sub), "%s/%u", ld->dir, i) ||
	    !dctl_fmt(childrel, sizeof(childrel), "%s%s%s", rel, *rel ? "/" : "", sub))
		return -ENAMETOOLONG;
	fd = dctl_open_dir(dirfd, sub);
	if (fd < 0)
		return fail(ctx, fd, rel, sub);
	c = dobj_add(o, list);
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	r = read_obj(ctx, fd, c, childrel, flags);
	close(fd);
	return r;
}

static int read_list(struct damonctl_ctx *ctx, int dirfd, struct dobj *o, unsigned int list,
		     const char *rel, unsigned int flags)
{
	const struct list_desc *ld = &dctl_kinds[o->kind].lists[list];
	char buf[64];
	unsigned int *idx = NULL, i;
	size_t nr = 0;
	uint64_t n;
	int r;

	if (o->kind == K_SCHEME && list == L_SCHEME_TRIED &&
	    (flags & DAMONCTL_READ_NO_TRIED_REGIONS)) {
		struct stat st;

		/* left out, but the kernel has them: feature detection still knows */
		if (!fstatat(dirfd, ld->dir, &st, 0) && S_ISDIR(st.st_mode))
			o->lists_has |= 1u << list;
		return 0;
	}
	if (o->kind == K_TRIED && list == L_TRIED_PROBES && (flags & READ_NO_TRIED_PROBES))
		return 0;
	if (o->kind == K_SCHEME && list == L_SCHEME_TRIED) {
		/* 7.2 gives every tried region a probes directory, its context's probes or
		 * none: read them only where there are probes (a listing per region through
		 * thousands of regions is what an agent's round would pay) */
		r = dctl_read_at(dirfd, "../../" MA_PROBES_NR, buf, sizeof(buf));
		if (r < 0 || (!dctl_kstrtou64(buf, &n) && !n))
			flags |= READ_NO_TRIED_PROBES;
	}
	if (!ld->nr_file) {
		r = dctl_list_indexes(dirfd, ld->dir, &idx, &nr);
		if (r == -ENOENT)
			return 0;
		if (r)
			return fail(ctx, r, rel, ld->dir);
		o->lists_has |= 1u << list;
		for (i = 0, r = 0; i < nr && !r; i++) {
			r = read_child(ctx, dirfd, o, list, idx[i], rel, flags);
			/* Results the kernel rebuilds (an update_schemes_tried_regions running
			 * meanwhile, from damonc's agent or anyone) may vanish under us: that
			 * entry is gone (ENOENT, or ENODEV from a file whose directory went
			 * after it was opened), the rest is still worth reading. */
			if (r == -ENOENT || r == -ENODEV) {
				dobj_remove(o, list, dobj_nr(o, list) - 1);
				damonctl_clear_error(ctx);
				r = 0;
			} else if (!r && !(dobj_child(o, list, dobj_nr(o, list) - 1)->has & 1)) {
				/* the directory went while we read it: its files read as absent */
				dobj_remove(o, list, dobj_nr(o, list) - 1);
			}
		}
		free(idx);
		return r;
	}
	r = dctl_read_at(dirfd, ld->nr_file, buf, sizeof(buf));
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return fail(ctx, r, rel, ld->nr_file);
	if (dctl_kstrtou64(buf, &n) || n > INT32_MAX)
		return fail(ctx, -EBADMSG, rel, ld->nr_file);
	o->lists_has |= 1u << list;
	for (i = 0; i < n; i++) {
		r = read_child(ctx, dirfd, o, list, i, rel, flags);
		if (r)
			return r;
	}
	return 0;
}

static int read_obj(struct damonctl_ctx *ctx, int dirfd, struct dobj *o, const char *rel,
		    unsigned int flags)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	char buf[VALBUF];
	unsigned int a, l;
	int r;

	o->has = 0;
	o->lists_has = 0;
	for (a = 0; a < kd->nr_attrs; a++) {
		r = dctl_read_at(dirfd, kd->attrs[a].file, buf, sizeof(buf));
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return fail(ctx, r, rel, kd->attrs[a].file);
		r = dobj_parse(o, a, buf);
		if (r)
			return fail(ctx, -EBADMSG, rel, kd->attrs[a].file);
		o->has |= UINT64_C(1) << a;
	}
	for (l = 0; l < kd->nr_lists; l++) {
		r = read_list(ctx, dirfd, o, l, rel, flags);
		if (r)
			return r;
	}
	return 0;
}

/*
 * A directory that went while we read it (ENOENT, or ENODEV from a file opened before its
 * directory was removed): another program changed the tree under the read, as the damonc
 * agent serving a kdamond does at each round (it commits filters and updates the tried
 * regions, and the kernel removes and recreates those directories). The read is taken
 * again, whole, a few times, with pauses in between that give the other program time to
 * finish (150 ms in all: an agent's commit on a slow guest): a read is of one moment.
 */
#define READ_TRIES 5

static bool changed_under_read(struct damonctl_ctx *ctx, int r, int tries)
{
	if ((r != -ENOENT && r != -ENODEV) || tries + 1 >= READ_TRIES)
		return false;
	damonctl_clear_error(ctx);
	dctl_changed_pause(tries + 1);
	return true;
}

DAMONCTL_API int damonctl_tree_read_flags(struct damonctl_ctx *ctx, unsigned int flags,
					  struct damonctl_tree **out)
{
	struct dobj *t;
	int fd, r;

	if (flags & ~(unsigned int)DAMONCTL_READ_NO_TRIED_REGIONS)
		return -EINVAL;
	if (ctx->staging)
		return dctl_staged_tree(ctx, out);
	fd = dctl_admin_open(ctx, "");
	if (fd < 0)
		return fd;
	for (int tries = 0;; tries++) {
		t = dobj_new(K_TREE);
		if (!t) {
			close(fd);
			return -ENOMEM;
		}
		r = read_obj(ctx, fd, t, "", flags);
		if (!r || !changed_under_read(ctx, r, tries))
			break;
		dobj_free(t);
	}
	close(fd);
	if (r) {
		dobj_free(t);
		return r;
	}
	*out = (struct damonctl_tree *)t;
	return 0;
}

DAMONCTL_API int damonctl_tree_read(struct damonctl_ctx *ctx, struct damonctl_tree **out)
{
	return damonctl_tree_read_flags(ctx, 0, out);
}

DAMONCTL_API int damonctl_kdamond_read(struct damonctl_ctx *ctx, unsigned int index,
				       struct damonctl_kdamond **out)
{
	char rel[64];
	struct dobj *k;
	int fd, r;

	if (ctx->staging)
		return dctl_staged_kdamond(ctx, index, out);
	snprintf(rel, sizeof(rel), "kdamonds/%u", index);
	fd = dctl_admin_open(ctx, rel);
	if (fd < 0)
		return fd;
	for (int tries = 0;; tries++) {
		k = dobj_new(K_KDAMOND);
		if (!k) {
			close(fd);
			return -ENOMEM;
		}
		k->index = index;
		r = read_obj(ctx, fd, k, rel, 0);
		if (!r || !changed_under_read(ctx, r, tries))
			break;
		dobj_free(k);
	}
	close(fd);
	if (r) {
		dobj_free(k);
		return r;
	}
	*out = (struct damonctl_kdamond *)k;
	return 0;
}
