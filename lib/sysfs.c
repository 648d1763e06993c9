// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading and writing single sysfs files. Directories are opened once and files are reached
 * with openat() relative to them, which keeps a whole-tree read to a few syscalls per file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* The kernel's damon_sysfs_lock is a trylock: readers of `state`, `pid` and the path files
 * get EBUSY while another writer holds it, and a tried-regions update holds it for up to an
 * apply interval. Retry with a growing pause, for about 3 s in all. */
#define BUSY_RETRIES 40

void dctl_busy_wait(int tries)
{
	long ms = tries < 10 ? 2 : tries < 20 ? 20 : 120;
	struct timespec ts = { 0, ms * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int dctl_open_dir(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* 0 when @fd is a regular file; -EISDIR for a directory, @not_regular for the rest. */
static int check_regular(int fd, int not_regular)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	return S_ISDIR(st.st_mode) ? -EISDIR : not_regular;
}

int dctl_open_regular(int dirfd, const char *file, int flags, int not_regular)
{
	int fd, r;

	/* a FIFO where a sysfs or procfs file should be would block the open and every read
	 * (a device would never end): refused, in a tree that is not the kernel's */
	fd = openat(dirfd, file, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = check_regular(fd, not_regular);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

int dctl_open_file(int dirfd, const char *file, int flags)
{
	return dctl_open_regular(dirfd, file, flags, -ENXIO);
}

int dctl_read_at(int dirfd, const char *file, char *buf, size_t size)
{
	int tries = 0, fd, err, r;
	ssize_t n;

	if (size == 0)
		return -EINVAL;
	for (;;) {
		/* One bounded read that cannot block (O_NONBLOCK) is safe from a FIFO or a
		 * device, so the file is not fstat'ed first as dctl_open_file() does (a
		 * hundred fstat(2)s were 0.06 ms of a status): a sysfs or procfs file reads
		 * as text, and only an empty or failed read, or one with a NUL byte, asks
		 * whether the file is a regular one at all. */
		fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			return -errno;
		n = read(fd, buf, size - 1);
		err = n < 0 ? errno : 0;
		if (n <= 0 || memchr(buf, '\0', (size_t)n)) {
			r = check_regular(fd, -ENXIO);
			if (r) {
				close(fd);
				return r;
			}
		}
		if (n < 0) {
			close(fd);
			if (err == EBUSY && ++tries < BUSY_RETRIES) {
				dctl_busy_wait(tries);
				continue;
			}
			return -err;
		}
		close(fd);
		break;
	}
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return (int)n;
}

/* The nr_* files (which make and remove directories) and the memcg paths take DAMON's
 * sysfs lock with a trylock as well: EBUSY while a stats refresh or a tried-regions update
 * holds it, which a retry outlasts. Not nr_kdamonds, whose EBUSY also means that a kdamond
 * runs. */
static bool takes_lock(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	return (!strncmp(base, "nr_", 3) && strcmp(base, "nr_kdamonds")) ||
	       !strcmp(base, "memcg_path") || !strcmp(base, "path");
}

static int write_once(int dirfd, const char *file, const char *value)
{
	size_t len = strlen(value);
	int fd, err = 0;
	ssize_t n;

	fd = dctl_open_file(dirfd, file, O_WRONLY);
	if (fd < 0)
		return fd;
	/* sysfs takes the whole value in one write; an empty string still needs one. */
	n = write(fd, len ? value : "\n", len ? len : 1);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != (len ? len : 1))
		err = -EIO;
	close(fd);
	return err;
}

int dctl_write_at(int dirfd, const char *file, const char *value)
{
	int r, tries = 0;

	while ((r = write_once(dirfd, file, value)) == -EBUSY && takes_lock(file) &&
	       ++tries < BUSY_RETRIES)
		dctl_busy_wait(tries);
	return r;
}

int dctl_admin_open(struct damonctl_ctx *ctx, const char *rel)
{
	char path[PATH_MAX];
	int r = damonctl_path(ctx, DAMONCTL_BASE_ADMIN, rel, path, sizeof(path));

	if (r < 0)
		return r;
	r = dctl_open_dir(AT_FDCWD, path);
	if (r < 0)
		dctl_set_error(ctx, r, false, rel && *rel ? rel : path, "");
	return r;
}

int dctl_admin_write(struct damonctl_ctx *ctx, const char *rel, const char *value)
{
	char path[PATH_MAX];
	int r = damonctl_path(ctx, DAMONCTL_BASE_ADMIN, rel, path, sizeof(path));

	if (r < 0)
		return r;
	/* a staging context changes its model only (staging.c) */
	r = ctx->staging ? -EROFS : dctl_write_at(AT_FDCWD, path, value);
	if (!ctx->staging && r != -ENOENT)	/* ENOENT: no such file, nothing written */
		dctl_wrec_note(ctx, rel, value);
	dctl_log(ctx, DAMONCTL_LOG_DEBUG, "write %s <= '%s': %s", rel, value,
		 r ? strerror(-r) : "ok");
	if (r)
		dctl_set_error(ctx, r, true, rel, value);
	return r;
}

DAMONCTL_API int damonctl_write(struct damonctl_ctx *ctx, const char *rel, const char *value)
{
	return dctl_admin_write(ctx, rel, value);
}

int dctl_read_under(struct damonctl_ctx *ctx, enum damonctl_base base, const char *rel,
		    char *buf, size_t size)
{
	char path[PATH_MAX];
	int r = damonctl_path(ctx, base, rel, path, sizeof(path));

	if (r < 0)
		return r;
	r = dctl_read_at(AT_FDCWD, path, buf, size);
	if (r < 0) {
		/* admin files are named as users know them, others by their full path */
		dctl_set_error(ctx, r, false, base == DAMONCTL_BASE_ADMIN ? rel : path, "");
		return r;
	}
	return 0;
}

DAMONCTL_API int damonctl_read(struct damonctl_ctx *ctx, const char *rel, char *buf,
			       size_t size)
{
	return dctl_read_under(ctx, DAMONCTL_BASE_ADMIN, rel, buf, size);
}

/* Base-0 integer parsing as the kernel's kstrto*() (one trailing newline allowed). */
int dctl_kstrtou64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || (*end && !(end[0] == '\n' && !end[1])))
		return -EINVAL;
	*v = x;
	return 0;
}

int dctl_kstrtos64(const char *s, int64_t *v)
{
	long long x;
	char *end;

	if (!s || !*s || *s == ' ')
		return -EINVAL;
	errno = 0;
	x = strtoll(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || (*end && !(end[0] == '\n' && !end[1])))
		return -EINVAL;
	*v = x;
	return 0;
}
