// SPDX-License-Identifier: GPL-2.0-or-later
/* damonc's own tracefs instances (see tracefs.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefs.h"

bool tfs_has_event(struct damonctl_ctx *ctx, const char *event)
{
	char rel[256], path[4096];

	snprintf(rel, sizeof(rel), "events/%s/enable", event);
	return damonctl_path(ctx, DAMONCTL_BASE_TRACEFS, rel, path, sizeof(path)) >= 0 &&
	       !access(path, W_OK);
}

int tfs_create(struct damonctl_ctx *ctx, const char *name, struct tfs *t)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "instances/%s-%d", name, (int)getpid());
	if (damonctl_path(ctx, DAMONCTL_BASE_TRACEFS, rel, t->dir, sizeof(t->dir)) < 0)
		return -ENAMETOOLONG;
	return mkdir(t->dir, 0700) ? -errno : 0;
}

int tfs_put(const struct tfs *t, const char *file, const char *value)
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

int tfs_open(const struct tfs *t, const char *file)
{
	char path[4400];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int tfs_open_pipe(const struct tfs *t)
{
	return tfs_open(t, "trace_pipe");
}

ssize_t tfs_get(const struct tfs *t, const char *file, char *buf, size_t size)
{
	char path[4400];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* tracefs files come in pieces: read to the end */
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

void tfs_remove(const struct tfs *t, const char *const *events)
{
	char file[512];

	for (; events && *events; events++) {
		snprintf(file, sizeof(file), "events/%s/enable", *events);
		tfs_put(t, file, "0");
		snprintf(file, sizeof(file), "events/%s/filter", *events);
		tfs_put(t, file, "0");
	}
	rmdir(t->dir);
}
