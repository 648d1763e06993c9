// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Turning the kernel's terse errnos into sentences. The same errno means different things
 * on different files (EBUSY from `on` is another DAMON user, from nr_kdamonds a running
 * kdamond; ENOMEM from `on` is almost never memory), so the last failed access decides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

const char *dctl_exclusive_holder(const struct damonctl_ctx *ctx, const char **module)
{
	static const struct { const char *module, *name; } mods[] = {
		{ "damon_stat", "DAMON_STAT" },
		{ "damon_reclaim", "DAMON_RECLAIM" },
		{ "damon_lru_sort", "DAMON_LRU_SORT" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		char rel[128], path[PATH_MAX], buf[8];

		snprintf(rel, sizeof(rel), "module/%s/parameters/enabled", mods[i].module);
		if (damonctl_path(ctx, DAMONCTL_BASE_SYS, rel, path, sizeof(path)) < 0)
			continue;
		if (dctl_read_at(AT_FDCWD, path, buf, sizeof(buf)) > 0 && buf[0] == 'Y') {
			if (module)
				*module = mods[i].module;
			return mods[i].name;
		}
	}
	return NULL;
}

static unsigned int kdamond_of(const char *path)
{
	unsigned int k = 0;

	sscanf(path, "kdamonds/%u", &k);
	return k;
}

/* @path, missing, is the DAMON sysfs directory or one above it: then there is no DAMON sysfs
 * interface under this sysroot at all, and @buf says where and what to check. */
static bool no_admin_dir(const struct damonctl_ctx *ctx, const char *path, char *buf,
			 size_t size)
{
	char admin[PATH_MAX], sys[PATH_MAX];
	const char *root = damonctl_get_sysroot(ctx);
	size_t n = strlen(path);
	struct stat st;

	if (damonctl_path(ctx, DAMONCTL_BASE_ADMIN, NULL, admin, sizeof(admin)) < 0 ||
	    damonctl_path(ctx, DAMONCTL_BASE_SYS, NULL, sys, sizeof(sys)) < 0)
		return false;
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (strncmp(admin, path, n) || (admin[n] && admin[n] != '/'))
		return false;
	if (strcmp(root, "/") && stat(root, &st))
		snprintf(buf, size, "there is no DAMON sysfs interface at %s: the sysroot %s does "
			 "not exist", admin, root);
	else
		snprintf(buf, size, "there is no DAMON sysfs interface at %s: check that the "
			 "kernel is built with CONFIG_DAMON_SYSFS=y (see /boot/config-$(uname -r)) "
			 "and that sysfs is mounted on %s", admin, sys);
	return true;
}

DAMONCTL_API int damonctl_strerror(const struct damonctl_ctx *ctx, int err, char *buf,
				   size_t size)
{
	const char *path = ctx->have_err ? ctx->err.path : "";
	const char *value = ctx->have_err ? ctx->err.value : "";
	const char *sys = strerror(err < 0 ? -err : err);
	bool state = ends_with(path, "/state");
	bool start = state && !strcmp(value, "on");
	bool commit = state && (!strcmp(value, "commit") ||
				!strcmp(value, "commit_schemes_quota_goals"));
	char where[PATH_MAX + 300];
	const char *why = NULL;
	char whybuf[PATH_MAX * 2 + 256];

	if (!ctx->have_err || ctx->err.err != err) {
		path = "";
		value = "";
		state = start = commit = false;
	}
	if (*path && ctx->err.write)
		snprintf(where, sizeof(where), " (%s: %s)", path, value);
	else if (*path)
		snprintf(where, sizeof(where), " (%s)", path);
	else
		where[0] = '\0';

	switch (-err) {
	case EROFS:
		why = "the DAMON sysfs directory is read-only here";
		break;
	case EACCES:
	case EPERM:
		if (state && !strcmp(value, "off"))
			why = "the kdamond has already stopped by itself (its targets exited)";
		else if (*path == '/')	/* DAMON's are named relative to the admin dir */
			why = "permission denied: the file is another user's, or root's";
		else
			why = "permission denied: DAMON's sysfs files need root "
			      "(CAP_SYS_ADMIN)";
		break;
	case ENOENT:
		if (!*path || !strchr(path, '/') || no_admin_dir(ctx, path, whybuf,
								    sizeof(whybuf))) {
			if (*path && strchr(path, '/'))
				why = whybuf;
			else
				why = "this kernel has no DAMON sysfs interface (CONFIG_DAMON_SYSFS), "
				      "or sysfs is not mounted";
			where[0] = '\0';	/* the sentence names the directory */
		} else {
			why = "the file does not exist: the tree changed under us, or the "
			      "kernel lacks it";
		}
		break;
	case EOPNOTSUPP:
		why = "this kernel lacks that file, so it cannot express the value";
		break;
	case ENODEV:
		why = "the file was removed while it was read: the tree changed under us (another "
		      "program rewrote it, or updated the tried regions)";
		break;
	case EBUSY:
		if (ends_with(path, "nr_kdamonds")) {
			why = "nr_kdamonds cannot change while any kdamond runs";
		} else if (ends_with(path, "/parameters/enabled")) {
			why = "DAMON is in use: the module runs DAMON exclusively, and a kdamond of "
			      "the sysfs interface or another module holds it";
		} else if (start) {
			const char *module;
			const char *holder = dctl_exclusive_holder(ctx, &module);

			if (holder) {
				snprintf(whybuf, sizeof(whybuf),
					 "%s holds DAMON exclusively; disable it first (echo N > "
					 "/sys/module/%s/parameters/enabled)", holder, module);
				why = whybuf;
			} else {
				why = "the kdamond is already running, or an exclusive DAMON user "
				      "(DAMON_STAT, DAMON_RECLAIM or DAMON_LRU_SORT) holds DAMON";
			}
		} else if (ends_with(value, "tried_regions") || ends_with(value, "tried_bytes")) {
			why = "another tried-regions update is in progress";
		} else {
			why = "DAMON's sysfs lock is busy (another writer); try again";
		}
		break;
	case EINVAL:
		if (start || commit)
			why = "the kernel rejected the configuration: a target process does not "
			      "exist, regions overlap or are reversed, the operations set is not "
			      "available, or the monitoring attributes are inconsistent";
		else if (state && !strcmp(value, "off"))
			why = "the kdamond was never started";
		else if (state)
			why = "the kdamond is not running, or this kernel lacks the command";
		else
			why = "the kernel does not accept this value for this file";
		break;
	case ECANCELED:
		why = "the kdamond is not running any more";
		break;
	case ENOMEM:
		if (start || commit)
			why = "a scheme could not be built: an unknown memcg path in a filter or "
			      "goal, addr_end below addr_start, or a hugepage_size filter with "
			      "min above max (the kernel reports these as out of memory)";
		break;
	case ERANGE:
		why = "the value is out of range for this file";
		break;
	case ESRCH:
		if (ends_with(path, "pid_target")) {
			snprintf(whybuf, sizeof(whybuf), "target process %s has exited: 7.3 refuses "
				 "a commit that names it, and 6.1 to 6.12 stop the kdamond; remove "
				 "the target first", value);
			why = whybuf;
		} else {
			why = "no such process";
		}
		break;
	case ENXIO:
		why = "not a regular file (a FIFO, socket or device where a sysfs or procfs file "
		      "should be): this is not a kernel's tree";
		break;
	case ELIBACC:
		why = "a library libdamonctl loads when it is first needed (libnl-3 for process "
		      "events, zlib for records, libyaml for YAML) is not installed";
		break;
	default:
		break;
	}

	if (start)
		return snprintf(buf, size, "the kernel refused to start kdamond %u%s: %s (%s)",
				kdamond_of(path), where, why ? why : sys, sys);
	if (commit)
		return snprintf(buf, size, "the kernel refused to commit to kdamond %u%s: %s (%s)",
				kdamond_of(path), where, why ? why : sys, sys);
	if (why)
		return snprintf(buf, size, "%s%s (%s)", why, where, sys);
	return snprintf(buf, size, "%s%s", sys, where);
}
