// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Checking a model before anything is written: that this kernel can express every
 * non-default value, and that `on` would not refuse it for a reason known in advance. A
 * failed start must leave the kernel untouched, and the cheapest way is to never begin.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static void label(const struct dobj *o, char *buf, size_t size)
{
	char parent[256] = "";
	const char *name = dctl_kinds[o->kind].name;

	if (o->kind == K_TREE) {
		buf[0] = '\0';
		return;
	}
	if (o->parent && o->parent->kind != K_TREE)
		label(o->parent, parent, sizeof(parent));
	if (o->kind == K_FILTER && o->parent) {
		static const char *const names[] = {
			[L_SCHEME_FILTERS] = "filter",
			[L_SCHEME_CORE_FILTERS] = "core filter",
			[L_SCHEME_OPS_FILTERS] = "ops filter",
		};
		unsigned int l;

		for (l = L_SCHEME_FILTERS; l <= L_SCHEME_OPS_FILTERS; l++)
			if (o->index < o->parent->lists[l].nr &&
			    o->parent->lists[l].items[o->index] == o)
				name = names[l];
	}
	snprintf(buf, size, "%s%s%s %u", parent, *parent ? ", " : "", name, o->index);
}

static int why_fail(char *why, size_t size, int err, const struct dobj *o, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int why_fail(char *why, size_t size, int err, const struct dobj *o, const char *fmt, ...)
{
	char where[256], msg[512];
	va_list ap;

	if (why && size) {
		label(o, where, sizeof(where));
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		snprintf(why, size, "%s%s%s", where, *where ? ": " : "", msg);
	}
	return err;
}

DAMONCTL_API int damonctl_features_describe_version(const struct damonctl_features *f,
						     char *buf, size_t size)
{
	int n;

	if (f->vmax && f->vmax <= f->vmin)
		n = snprintf(buf, size, "%d.%d", f->vmin / 1000, f->vmin % 1000);
	else if (!f->vmax)
		n = snprintf(buf, size, "%d.%d or later", f->vmin / 1000, f->vmin % 1000);
	else
		n = snprintf(buf, size, "%d.%d to %d.%d", f->vmin / 1000, f->vmin % 1000,
			     f->vmax / 1000, f->vmax % 1000);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

static int missing(const struct damonctl_features *f, enum damonctl_feature feat,
		   const struct dobj *o, const char *what, char *why, size_t size)
{
	char ver[64];

	damonctl_features_describe_version(f, ver, sizeof(ver));
	if (dctl_feature_queued(feat))
		return why_fail(why, size, -EOPNOTSUPP, o,
				"%s needs %s (%s), which no released kernel has yet; this kernel "
				"is %s", what, damonctl_feature_description(feat),
				damonctl_feature_since(feat), ver);
	return why_fail(why, size, -EOPNOTSUPP, o,
			"%s needs %s, which arrived in Linux %s; this kernel is %s", what,
			damonctl_feature_description(feat), damonctl_feature_since(feat), ver);
}

static int check_features(const struct dobj *o, const struct damonctl_features *f, char *why,
			  size_t size)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	unsigned int a, l, i;
	char what[256];
	int r;

	for (a = 0; a < kd->nr_attrs; a++) {
		const struct attr_desc *d = &kd->attrs[a];

		if (d->flags & A_RO || dobj_is_default(o, a))
			continue;
		if (d->feature != FEAT_NONE && damonctl_features_has(f, d->feature) == DAMONCTL_NO) {
			snprintf(what, sizeof(what), "%s", d->file);
			return missing(f, d->feature, o, what, why, size);
		}
	}
	/* Keywords are checked even when default: the default of one kernel may be missing
	 * from another only for operations, which depend on the build, not the version. */
	for (a = 0; a < kd->nr_attrs; a++) {
		const struct attr_desc *d = &kd->attrs[a];
		const char *kw;
		const struct keyword *k;

		if (d->type != V_KW || d->flags & A_RO)
			continue;
		kw = o->v[a].s ? o->v[a].s : d->defs;
		k = dctl_keyword_find(d->kwset, kw);
		if (!k)
			return why_fail(why, size, -EINVAL, o, "%s '%s' is not a known keyword",
					d->file, kw);
		if (d->kwset == DAMONCTL_KW_OPERATIONS) {
			if (damonctl_features_has_keyword(f, d->kwset, kw) == DAMONCTL_NO)
				return why_fail(why, size, -EOPNOTSUPP, o,
						"operations '%s' is not available on this kernel "
						"(it is not in avail_operations; CONFIG_DAMON_%s "
						"may be off)", kw,
						!strcmp(kw, "paddr") ? "PADDR" : "VADDR");
			continue;
		}
		if (dobj_is_default(o, a))
			continue;	/* a default is what the kernel has, or no file at all */
		if (k->feature != FEAT_NONE && damonctl_features_has(f, k->feature) == DAMONCTL_NO) {
			snprintf(what, sizeof(what), "%s '%s'", d->file, kw);
			return missing(f, k->feature, o, what, why, size);
		}
	}
	for (l = 0; l < kd->nr_lists; l++) {
		const struct list_desc *ld = &kd->lists[l];

		if (ld->flags & A_RO || !o->lists[l].nr)
			continue;
		if (ld->feature != FEAT_NONE && damonctl_features_has(f, ld->feature) == DAMONCTL_NO) {
			snprintf(what, sizeof(what), "%s", ld->dir);
			return missing(f, ld->feature, o, what, why, size);
		}
		for (i = 0; i < o->lists[l].nr; i++) {
			r = check_features(o->lists[l].items[i], f, why, size);
			if (r)
				return r;
		}
	}
	return 0;
}

/* A cgroup path with a control character (a newline from a file, an escape sequence) can
 * name no cgroup, and would be written to the kernel as is. */
static int check_path_text(const struct dobj *o, const char *file, const char *path, char *why,
			   size_t size)
{
	const unsigned char *p;

	for (p = (const unsigned char *)(path ? path : ""); *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return why_fail(why, size, -EINVAL, o, "%s holds the control character "
					"\\x%02x at byte %zu; no cgroup path has one", file, *p,
					(size_t)(p - (const unsigned char *)path));
	return 0;
}

/* The number of regions and the intervals (with their goal). */
static int check_intervals(const struct dobj *c, char *why, size_t size)
{
	uint64_t sample = c->v[DAMONCTL_CONTEXT_SAMPLE_US].u;
	uint64_t aggr = c->v[DAMONCTL_CONTEXT_AGGR_US].u;
	uint64_t rmin = c->v[DAMONCTL_CONTEXT_MIN_NR_REGIONS].u;
	uint64_t rmax = c->v[DAMONCTL_CONTEXT_MAX_NR_REGIONS].u;
	uint64_t lo = c->v[DAMONCTL_CONTEXT_GOAL_MIN_SAMPLE_US].u;
	uint64_t hi = c->v[DAMONCTL_CONTEXT_GOAL_MAX_SAMPLE_US].u;

	if (rmin < 3)
		return why_fail(why, size, -EINVAL, c,
				"the minimum number of regions is %llu; DAMON needs at least 3",
				(unsigned long long)rmin);
	if (rmin > rmax)
		return why_fail(why, size, -EINVAL, c,
				"the minimum number of regions (%llu) exceeds the maximum (%llu)",
				(unsigned long long)rmin, (unsigned long long)rmax);
	if (sample > aggr)
		return why_fail(why, size, -EINVAL, c,
				"the sampling interval (%llu us) exceeds the aggregation "
				"interval (%llu us)", (unsigned long long)sample,
				(unsigned long long)aggr);
	if (!c->v[DAMONCTL_CONTEXT_GOAL_AGGRS].u)
		return 0;
	if (lo > hi)
		return why_fail(why, size, -EINVAL, c,
				"intervals goal: min_sample_us (%llu) exceeds max_sample_us (%llu)",
				(unsigned long long)lo, (unsigned long long)hi);
	if (sample < lo || sample > hi)
		return why_fail(why, size, -EINVAL, c,
				"intervals goal: the sampling interval (%llu us) is outside "
				"[%llu, %llu] us", (unsigned long long)sample,
				(unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

/* The address unit, and the targets with their regions for operations @ops. */
static int check_targets(const struct dobj *c, const char *ops, char *why, size_t size)
{
	uint64_t unit = c->v[DAMONCTL_CONTEXT_ADDR_UNIT].u;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned int i, j;

	if (!unit)
		return why_fail(why, size, -EINVAL, c, "addr_unit is 0; the unit is at least 1 byte");
	/* paddr's smallest region is a page in units (at least 1), which DAMON wants a power
	 * of 2 (6.18.y) */
	if (!strcmp(ops, "paddr") && unit < page && ((page / unit) & (page / unit - 1)))
		return why_fail(why, size, -EINVAL, c, "addr_unit %llu: the page size (%llu) over "
				"it, %llu, is not a power of 2", (unsigned long long)unit,
				(unsigned long long)page, (unsigned long long)(page / unit));
	if (!strcmp(ops, "paddr") && c->lists[L_CONTEXT_TARGETS].nr > 1)
		return why_fail(why, size, -EINVAL, c,
				"paddr monitors one target, not %u",
				c->lists[L_CONTEXT_TARGETS].nr);
	for (i = 0; i < c->lists[L_CONTEXT_TARGETS].nr; i++) {
		const struct dobj *t = c->lists[L_CONTEXT_TARGETS].items[i];
		const struct dlist *rl = &t->lists[L_TARGET_REGIONS];

		if (strcmp(ops, "paddr") && t->v[DAMONCTL_TARGET_PID].i <= 0)
			return why_fail(why, size, -EINVAL, t, "%s needs a process id (pid_target)",
					ops);
		for (j = 0; j < rl->nr; j++) {
			uint64_t s = rl->items[j]->v[A_REGION_START].u;
			uint64_t e = rl->items[j]->v[A_REGION_END].u;

			if (s >= e)
				return why_fail(why, size, -EINVAL, t,
						"region %u [0x%llx, 0x%llx) is empty or reversed", j,
						(unsigned long long)s, (unsigned long long)e);
			if (j && rl->items[j - 1]->v[A_REGION_END].u > s)
				return why_fail(why, size, -EINVAL, t,
						"regions %u and %u overlap or are out of order", j - 1,
						j);
		}
	}
	return 0;
}

/* The access probes (7.2) and their filters. */
static int check_probes(const struct dobj *c, char *why, size_t size)
{
	unsigned int i, j;

	if (c->lists[L_CONTEXT_PROBES].nr > DAMONCTL_MAX_PROBES)
		return why_fail(why, size, -EINVAL, c, "%u access probes; the kernel takes at most "
				"%d (DAMON_MAX_PROBES)", c->lists[L_CONTEXT_PROBES].nr,
				DAMONCTL_MAX_PROBES);
	for (i = 0; i < c->lists[L_CONTEXT_PROBES].nr; i++) {
		const struct dobj *p = c->lists[L_CONTEXT_PROBES].items[i];

		for (j = 0; j < p->lists[L_PROBE_FILTERS].nr; j++) {
			const struct dobj *f = p->lists[L_PROBE_FILTERS].items[j];
			const char *path = f->v[DAMONCTL_PROBE_FILTER_PATH].s;

			if (!strcmp(f->v[DAMONCTL_PROBE_FILTER_TYPE].s ?
				    f->v[DAMONCTL_PROBE_FILTER_TYPE].s : "anon", "memcg") &&
			    !*(path ? path : ""))
				return why_fail(why, size, -EINVAL, f,
						"a memcg filter needs a path");
			if (check_path_text(f, "path", path, why, size))
				return -EINVAL;
		}
	}
	return 0;
}

/* A DAMOS filter of list @l (filters, core_filters or ops_filters). */
static int check_filter(const struct dobj *f, unsigned int l, char *why, size_t size)
{
	const char *type = f->v[DAMONCTL_FILTER_TYPE].s ? f->v[DAMONCTL_FILTER_TYPE].s : "anon";
	bool core = !strcmp(type, "addr") || !strcmp(type, "target");

	if (!strcmp(type, "addr") &&
	    f->v[DAMONCTL_FILTER_ADDR_END].u < f->v[DAMONCTL_FILTER_ADDR_START].u)
		return why_fail(why, size, -EINVAL, f, "addr_end is below addr_start");
	if (!strcmp(type, "hugepage_size") &&
	    f->v[DAMONCTL_FILTER_MIN].u > f->v[DAMONCTL_FILTER_MAX].u)
		return why_fail(why, size, -EINVAL, f, "min is above max");
	if (!strcmp(type, "memcg") &&
	    !*(f->v[DAMONCTL_FILTER_MEMCG_PATH].s ? f->v[DAMONCTL_FILTER_MEMCG_PATH].s : ""))
		return why_fail(why, size, -EINVAL, f, "a memcg filter needs memcg_path");
	if (check_path_text(f, "memcg_path", f->v[DAMONCTL_FILTER_MEMCG_PATH].s, why, size))
		return -EINVAL;
	if (l == L_SCHEME_CORE_FILTERS && !core)
		return why_fail(why, size, -EINVAL, f,
				"core_filters take only addr and target filters, not '%s'", type);
	if (l == L_SCHEME_OPS_FILTERS && core)
		return why_fail(why, size, -EINVAL, f,
				"ops_filters do not take '%s' filters (use core_filters)", type);
	return 0;
}

/* A scheme: its goals' paths, its access pattern's ranges, its filters. */
static int check_scheme(const struct dobj *s, char *why, size_t size)
{
	static const struct { unsigned int lo, hi; const char *what; } ranges[] = {
		{ DAMONCTL_SCHEME_SZ_MIN, DAMONCTL_SCHEME_SZ_MAX, "size" },
		{ DAMONCTL_SCHEME_NR_ACCESSES_MIN, DAMONCTL_SCHEME_NR_ACCESSES_MAX, "access rate" },
		{ DAMONCTL_SCHEME_AGE_MIN, DAMONCTL_SCHEME_AGE_MAX, "age" },
	};
	unsigned int k, l;
	int r;

	for (k = 0; k < s->lists[L_SCHEME_GOALS].nr; k++) {
		const struct dobj *g = s->lists[L_SCHEME_GOALS].items[k];

		if (check_path_text(g, "path", g->v[DAMONCTL_GOAL_PATH].s, why, size))
			return -EINVAL;
	}
	for (k = 0; k < ARRAY_SIZE(ranges); k++)
		if (s->v[ranges[k].lo].u > s->v[ranges[k].hi].u)
			return why_fail(why, size, -EINVAL, s,
					"the %s range has its minimum (%llu) above its maximum "
					"(%llu): the scheme can never apply", ranges[k].what,
					(unsigned long long)s->v[ranges[k].lo].u,
					(unsigned long long)s->v[ranges[k].hi].u);
	for (l = L_SCHEME_FILTERS; l <= L_SCHEME_OPS_FILTERS; l++)
		for (k = 0; k < s->lists[l].nr; k++) {
			r = check_filter(s->lists[l].items[k], l, why, size);
			if (r)
				return r;
		}
	return 0;
}

/* The bounds of one context (DAMONCTL_MAX_TARGETS...): what it holds, counted. */
static int check_bounds(const struct dobj *c, char *why, size_t size)
{
	const struct dlist *tl = &c->lists[L_CONTEXT_TARGETS], *sl = &c->lists[L_CONTEXT_SCHEMES];
	unsigned int i, l, regions = 0, filters = 0, goals = 0;

	for (i = 0; i < tl->nr; i++)
		regions += tl->items[i]->lists[L_TARGET_REGIONS].nr;
	for (i = 0; i < sl->nr; i++) {
		goals += sl->items[i]->lists[L_SCHEME_GOALS].nr;
		for (l = L_SCHEME_FILTERS; l <= L_SCHEME_OPS_FILTERS; l++)
			filters += sl->items[i]->lists[l].nr;
	}
	const struct { unsigned int nr, max; const char *what, *why; } b[] = {
		{ tl->nr, DAMONCTL_MAX_TARGETS, "targets", "" },
		{ regions, DAMONCTL_MAX_REGIONS, "initial regions",
		  " (DAMON keeps at most max_nr_regions)" },
		{ sl->nr, DAMONCTL_MAX_SCHEMES, "schemes", "" },
		{ filters, DAMONCTL_MAX_FILTERS, "DAMOS filters", " (each is tried on every region)" },
		{ goals, DAMONCTL_MAX_GOALS, "quota goals", "" },
	};
	for (i = 0; i < ARRAY_SIZE(b); i++)
		if (b[i].nr > b[i].max)
			return why_fail(why, size, -EINVAL, c, "%u %s; damonc takes at most %u in a "
					"context%s", b[i].nr, b[i].what, b[i].max, b[i].why);
	return 0;
}

/* What the kernel would refuse at `on` (sysfs.c/core.c), said before writing anything. */
static int check_context(const struct dobj *c, char *why, size_t size)
{
	const char *ops = c->v[DAMONCTL_CONTEXT_OPERATIONS].s ?
		c->v[DAMONCTL_CONTEXT_OPERATIONS].s : "vaddr";
	unsigned int i;
	int r;

	r = check_bounds(c, why, size);
	if (!r)
		r = check_intervals(c, why, size);
	if (!r)
		r = check_targets(c, ops, why, size);
	if (!r)
		r = check_probes(c, why, size);
	for (i = 0; !r && i < c->lists[L_CONTEXT_SCHEMES].nr; i++)
		r = check_scheme(c->lists[L_CONTEXT_SCHEMES].items[i], why, size);
	return r;
}

DAMONCTL_API int damonctl_kdamond_check(const struct damonctl_kdamond *kdamond,
				       const struct damonctl_features *f, char *why, size_t size)
{
	const struct dobj *k = CDOBJ(kdamond);
	unsigned int c;
	int r;

	if (why && size)
		why[0] = '\0';
	if (k->lists[L_KDAMOND_CONTEXTS].nr != 1)
		return why_fail(why, size, -EINVAL, k, "a kdamond runs one context, not %u",
				k->lists[L_KDAMOND_CONTEXTS].nr);
	for (c = 0; c < k->lists[L_KDAMOND_CONTEXTS].nr; c++) {
		r = check_context(k->lists[L_KDAMOND_CONTEXTS].items[c], why, size);
		if (r)
			return r;
	}
	return f ? check_features(k, f, why, size) : 0;
}

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h: the flag of kernel threads */

int dctl_user_process(struct damonctl_ctx *ctx, int64_t pid, const char **what)
{
	char rel[64], path[PATH_MAX], buf[1024], *p;
	unsigned long flags = 0;
	int fd, i;
	ssize_t n;

	*what = "does not exist";
	if (pid <= 0 || pid > INT32_MAX)
		return 0;
	snprintf(rel, sizeof(rel), "%lld/stat", (long long)pid);
	if (damonctl_path(ctx, DAMONCTL_BASE_PROC, rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = dctl_open_file(AT_FDCWD, path, O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT || fd == -ESRCH ? 0 : fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno != ESRCH ? -errno : 0;
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp session tty tpgid flags": comm may hold ") " */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return -EBADMSG;
	if (p[2] == 'Z' || p[2] == 'X') {
		*what = "has exited";
		return 0;
	}
	for (p += 2, i = 0; i < 6 && p; i++)
		p = strchr(p + 1, ' ');
	if (p)
		flags = strtoul(p + 1, NULL, 10);
	if (flags & PF_KTHREAD) {
		*what = "is a kernel thread, which has no user memory to monitor";
		return 0;
	}
	return 1;
}

/* The cgroup hierarchy memory cgroups live in, or "" when <sysroot>/sys/fs/cgroup is none
 * (an emulated root, a container without it): then paths cannot be checked. */
static void memcg_root(struct damonctl_ctx *ctx, char *buf, size_t size)
{
	char probe[PATH_MAX + 32];

	buf[0] = '\0';
	if (damonctl_path(ctx, DAMONCTL_BASE_SYS, "fs/cgroup", buf, size) < 0) {
		buf[0] = '\0';
		return;
	}
	snprintf(probe, sizeof(probe), "%s/cgroup.controllers", buf);
	if (!access(probe, F_OK))
		return;		/* cgroup v2 */
	snprintf(probe, sizeof(probe), "%s/memory/cgroup.procs", buf);
	if (!access(probe, F_OK)) {
		strncat(buf, "/memory", size - strlen(buf) - 1);
		return;		/* cgroup v1's memory controller */
	}
	buf[0] = '\0';
}

static int check_memcg(const struct dobj *o, const char *file, const char *path,
		       const char *root, char *why, size_t size)
{
	char dir[PATH_MAX * 2];
	struct stat st;

	if (!path || !*path)
		return 0;
	if (path[0] != '/')
		return why_fail(why, size, -EINVAL, o, "%s '%s' does not start with '/': the "
				"kernel matches it against cgroup paths, which all do", file, path);
	if (!*root)
		return 0;
	snprintf(dir, sizeof(dir), "%s%s", root, path);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return why_fail(why, size, -ENOENT, o, "%s '%s' names no cgroup (no directory %s)",
				file, path, dir);
	return 0;
}

/* The memcg filters of scheme @s (filters/ and ops_filters/) name cgroups that exist; on
 * a failure *@bad (if given) is the path of the filter that failed. */
static int scheme_filters_memcg(const struct dobj *s, const char *root, char *why,
				size_t size, const char **bad)
{
	unsigned int l, n;
	int r;

	for (l = L_SCHEME_FILTERS; l <= L_SCHEME_OPS_FILTERS; l++) {
		for (n = 0; n < s->lists[l].nr; n++) {
			const struct dobj *f = s->lists[l].items[n];
			const char *type = f->v[DAMONCTL_FILTER_TYPE].s ?
				f->v[DAMONCTL_FILTER_TYPE].s : "anon";

			if (strcmp(type, "memcg"))
				continue;
			r = check_memcg(f, "memcg_path", f->v[DAMONCTL_FILTER_MEMCG_PATH].s, root,
					why, size);
			if (r) {
				if (bad)
					*bad = f->v[DAMONCTL_FILTER_MEMCG_PATH].s;
				return r;
			}
		}
	}
	return 0;
}

int dctl_check_filters_memcg(struct damonctl_ctx *ctx, const struct damonctl_scheme *scheme)
{
	char root[PATH_MAX], dir[PATH_MAX + 256];
	const char *bad = NULL;
	int r;

	memcg_root(ctx, root, sizeof(root));
	r = scheme_filters_memcg(CDOBJ(scheme), root, NULL, 0, &bad);
	if (r == -ENOENT && bad) {
		/* which cgroup is missing: the directory looked up, the filter's path */
		snprintf(dir, sizeof(dir), "%s%s", root, bad);
		dctl_set_error(ctx, r, false, dir, bad);
	}
	return r;
}

DAMONCTL_API int damonctl_kdamond_check_system(struct damonctl_ctx *ctx,
					       const struct damonctl_kdamond *kdamond, char *why,
					       size_t size)
{
	const struct dobj *k = CDOBJ(kdamond);
	char root[PATH_MAX];
	unsigned int c, i, n;
	int r;

	if (why && size)
		why[0] = '\0';
	memcg_root(ctx, root, sizeof(root));
	for (c = 0; c < k->lists[L_KDAMOND_CONTEXTS].nr; c++) {
		const struct dobj *cx = k->lists[L_KDAMOND_CONTEXTS].items[c];
		const char *ops = cx->v[DAMONCTL_CONTEXT_OPERATIONS].s ?
			cx->v[DAMONCTL_CONTEXT_OPERATIONS].s : "vaddr";

		for (i = 0; strcmp(ops, "paddr") && i < cx->lists[L_CONTEXT_TARGETS].nr; i++) {
			const struct dobj *t = cx->lists[L_CONTEXT_TARGETS].items[i];
			int64_t pid = t->v[DAMONCTL_TARGET_PID].i;
			const char *what;

			r = dctl_user_process(ctx, pid, &what);
			if (r < 0)
				return why_fail(why, size, r, t, "cannot read /proc/%lld/stat: %s",
						(long long)pid, strerror(-r));
			if (!r)
				return why_fail(why, size, -ESRCH, t, "process %lld %s",
						(long long)pid, what);
		}
		for (i = 0; i < cx->lists[L_CONTEXT_PROBES].nr; i++) {
			const struct dobj *p = cx->lists[L_CONTEXT_PROBES].items[i];

			for (n = 0; n < p->lists[L_PROBE_FILTERS].nr; n++) {
				const struct dobj *f = p->lists[L_PROBE_FILTERS].items[n];
				const char *type = f->v[DAMONCTL_PROBE_FILTER_TYPE].s;

				if (!type || strcmp(type, "memcg"))
					continue;
				r = check_memcg(f, "path", f->v[DAMONCTL_PROBE_FILTER_PATH].s, root,
						why, size);
				if (r)
					return r;
			}
		}
		for (i = 0; i < cx->lists[L_CONTEXT_SCHEMES].nr; i++) {
			const struct dobj *s = cx->lists[L_CONTEXT_SCHEMES].items[i];

			for (n = 0; n < s->lists[L_SCHEME_GOALS].nr; n++) {
				const struct dobj *g = s->lists[L_SCHEME_GOALS].items[n];

				r = check_memcg(g, "path", g->v[DAMONCTL_GOAL_PATH].s, root, why,
						size);
				if (r)
					return r;
			}
			r = scheme_filters_memcg(s, root, why, size, NULL);
			if (r)
				return r;
		}
	}
	return 0;
}

DAMONCTL_API int damonctl_tree_check(const struct damonctl_tree *tree,
				     const struct damonctl_features *f, char *why, size_t size)
{
	const struct dobj *t = CDOBJ(tree);
	unsigned int k;
	int r;

	if (why && size)
		why[0] = '\0';
	for (k = 0; k < t->lists[L_TREE_KDAMONDS].nr; k++) {
		r = damonctl_kdamond_check((const struct damonctl_kdamond *)
					   t->lists[L_TREE_KDAMONDS].items[k], f, why, size);
		if (r)
			return r;
	}
	return 0;
}

static bool uses_unknown(const struct dobj *o, const struct damonctl_features *f)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	unsigned int a, l, i;

	for (a = 0; a < kd->nr_attrs; a++) {
		const struct attr_desc *d = &kd->attrs[a];

		if (d->flags & A_RO || dobj_is_default(o, a))
			continue;
		if (d->feature != FEAT_NONE &&
		    damonctl_features_has(f, d->feature) == DAMONCTL_UNKNOWN)
			return true;
		if (d->type == V_KW && damonctl_features_has_keyword(f, d->kwset,
			o->v[a].s ? o->v[a].s : d->defs) == DAMONCTL_UNKNOWN)
			return true;
	}
	for (l = 0; l < kd->nr_lists; l++) {
		if (kd->lists[l].flags & A_RO || !o->lists[l].nr)
			continue;
		if (kd->lists[l].feature != FEAT_NONE &&
		    damonctl_features_has(f, kd->lists[l].feature) == DAMONCTL_UNKNOWN)
			return true;
		for (i = 0; i < o->lists[l].nr; i++)
			if (uses_unknown(o->lists[l].items[i], f))
				return true;
	}
	return false;
}

DAMONCTL_API bool damonctl_kdamond_uses_unknown(const struct damonctl_kdamond *k,
						const struct damonctl_features *f)
{
	/* the operations set matters even as a default: vaddr may be configured out */
	const struct dobj *o = CDOBJ(k);
	unsigned int c;

	for (c = 0; c < o->lists[L_KDAMOND_CONTEXTS].nr; c++) {
		const struct dobj *ctx = o->lists[L_KDAMOND_CONTEXTS].items[c];
		const char *ops = ctx->v[DAMONCTL_CONTEXT_OPERATIONS].s ?
			ctx->v[DAMONCTL_CONTEXT_OPERATIONS].s : "vaddr";

		if (damonctl_features_has_keyword(f, DAMONCTL_KW_OPERATIONS, ops) ==
		    DAMONCTL_UNKNOWN)
			return true;
	}
	return uses_unknown(o, f);
}
