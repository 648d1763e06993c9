// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs instances of the caller's own (<sysroot>/sys/kernel/tracing/instances/NAME-PID):
 * their own ring buffer and event switches, so nobody else's tracing is touched, removed
 * again when done.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_internal.h"

bool damonctl_trace_has_event(struct damonctl_ctx *ctx, const char *event)
{
	char rel[256], path[4096];

	snprintf(rel, sizeof(rel), "events/%s/enable", event);
	return damonctl_path(ctx, DAMONCTL_BASE_TRACEFS, rel, path, sizeof(path)) >= 0 &&
	       !access(path, W_OK);
}

int damonctl_trace_instance_create(struct damonctl_ctx *ctx, const char *name,
				   struct damonctl_trace_instance **out)
{
	struct damonctl_trace_instance *t = malloc(sizeof(*t));
	char rel[256];

	if (!t)
		return -ENOMEM;
	snprintf(rel, sizeof(rel), "instances/%s-%d", name, (int)getpid());
	if (damonctl_path(ctx, DAMONCTL_BASE_TRACEFS, rel, t->dir, sizeof(t->dir)) < 0) {
		free(t);
		return -ENAMETOOLONG;
	}
	if (mkdir(t->dir, 0700)) {
		int r = -errno;

		free(t);
		return r;
	}
	*out = t;
	return 0;
}

const char *damonctl_trace_instance_dir(const struct damonctl_trace_instance *t)
{
	return t->dir;
}

int damonctl_trace_instance_put(const struct damonctl_trace_instance *t, const char *file,
				const char *value)
{
	char path[4400];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		r = -errno;
	close(fd);
	return r;
}

int damonctl_trace_instance_open(const struct damonctl_trace_instance *t, const char *file)
{
	char path[4400];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int damonctl_trace_instance_open_pipe(const struct damonctl_trace_instance *t)
{
	return damonctl_trace_instance_open(t, "trace_pipe");
}

int damonctl_trace_instance_get(const struct damonctl_trace_instance *t, const char *file,
				char *buf, size_t size)
{
	char path[4400];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (!size)
		return -EINVAL;
	if (size > INT_MAX)
		size = INT_MAX;
	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* tracefs files come in pieces: read to the end */
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return (int)len;
}

/* Events off, then the directory: tracefs refuses to remove an instance in use. */
static int remove_dir(const char *dir, const char *const *events)
{
	struct damonctl_trace_instance t;
	char file[512];

	snprintf(t.dir, sizeof(t.dir), "%s", dir);
	for (; events && *events; events++) {
		snprintf(file, sizeof(file), "events/%s/enable", *events);
		damonctl_trace_instance_put(&t, file, "0");
		snprintf(file, sizeof(file), "events/%s/filter", *events);
		damonctl_trace_instance_put(&t, file, "0");
	}
	return rmdir(dir) ? -errno : 0;
}

int damonctl_trace_instance_remove(struct damonctl_trace_instance *t, const char *const *events)
{
	int r;

	if (!t)
		return 0;
	r = remove_dir(t->dir, events);
	free(t);
	return r;
}

int damonctl_trace_instance_remove_stale(struct damonctl_ctx *ctx, const char *name,
					 const char *const *events)
{
	char path[4096], dir[4400];
	size_t n = strlen(name);
	struct dirent *d;
	int nr = 0;
	DIR *dirp;

	if (damonctl_path(ctx, DAMONCTL_BASE_TRACEFS, "instances", path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	dirp = opendir(path);
	if (!dirp)
		return -errno;
	while ((d = readdir(dirp))) {
		int pid;

		/* NAME-PID of a process that is gone (not merely someone else's) */
		if (strncmp(d->d_name, name, n) || d->d_name[n] != '-' ||
		    sscanf(d->d_name + n + 1, "%d", &pid) != 1 || pid == getpid() ||
		    !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", path, d->d_name);
		if (!remove_dir(dir, events))
			nr++;
	}
	closedir(dirp);
	return nr;
}
