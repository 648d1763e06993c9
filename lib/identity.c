// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A kdamond's identity beyond its index. Other programs rewrite nr_kdamonds and put kdamonds
 * of their own where ours were; an index alone would let a program stop or overwrite theirs.
 * A running kdamond is its kernel thread, a pid and the thread's start time (a pid can come
 * back); a stopped one is its directory, which the kernel recreates on every nr_kdamonds
 * write (kernfs gives a new node a new inode number), keeping nothing of what was there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

DAMONCTL_API int damonctl_kdamond_identify(struct damonctl_ctx *ctx, unsigned int index,
					   struct damonctl_kdamond_id *id)
{
	struct damonctl_kdamond_id v = { .sz = sizeof(v), .pid = -1 };
	char rel[64], path[PATH_MAX];
	struct stat sb;
	int r, pid = -1;
	size_t sz;

	if (!ctx || !id || id->sz < DCTL_SZ_TO(struct damonctl_kdamond_id, pid))
		return -EINVAL;
	sz = id->sz < sizeof(v) ? id->sz : sizeof(v);
	r = damonctl_kdamond_is_running(ctx, index, &pid);
	if (r < 0)
		return r;
	if (r == 1 && pid > 0) {
		v.pid = pid;
		v.pid_start = damonctl_proc_start_time(pid);
	}
	/* a staging context's kdamonds have no directory of their own */
	if (!ctx->staging) {
		snprintf(rel, sizeof(rel), "kdamonds/%u", index);
		r = damonctl_path(ctx, DAMONCTL_BASE_ADMIN, rel, path, sizeof(path));
		if (r < 0)
			return r;
		if (stat(path, &sb))
			return -errno;
		v.dir_ino = (uint64_t)sb.st_ino;
	}
	memcpy((char *)id + sizeof(id->sz), (char *)&v + sizeof(v.sz), sz - sizeof(v.sz));
	return 0;
}

DAMONCTL_API bool damonctl_kdamond_id_same(const struct damonctl_kdamond_id *was,
					   const struct damonctl_kdamond_id *now)
{
	if (!was || !now)
		return false;
	if (now->pid > 0)
		return was->pid == now->pid &&
		       (!was->pid_start || !now->pid_start || was->pid_start == now->pid_start);
	return was->dir_ino && was->dir_ino == now->dir_ino;
}
