// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Files a program is given (a configuration, a document: read whole, never waited on) and
 * files it keeps (capture notes, journals, metrics, records, its own state). A program that
 * runs as root writes where others may have planted a symbolic link, a FIFO or a device
 * node: nothing here follows a symbolic link at the file's own name, opens or replaces what
 * is not a regular file, or writes through a name another process chose. A file written
 * whole goes to a new file of its own (O_EXCL, a random name beside the target) renamed over
 * the target; a file kept open (a log, a lock, a record streamed) is opened only once it is
 * known to be a regular file, and created O_EXCL.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* A regular file, or stdin ("-") whatever it is (a pipe, a terminal): a FIFO or a device
 * named would block or never end, so it is refused (-ENODEV) before reading. */
static int open_input(const char *path, int flags)
{
	struct stat st;

	if (strcmp(path, "-"))
		return dctl_open_regular(AT_FDCWD, path, O_RDONLY | flags, -ENODEV);
	if (fstat(STDIN_FILENO, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? -EISDIR : STDIN_FILENO;
}

static int read_fd(int fd, size_t max, char **out, size_t *len_out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int r = 0;

	if (max > SIZE_MAX - 2)
		max = SIZE_MAX - 2;
	for (;;) {
		ssize_t n;

		/* room for max + 1 bytes at most (and the NUL): one more than max is too many */
		if (cap - len < 4096 && cap < max + 2) {
			size_t want = cap ? cap * 2 : 65536;
			char *p;

			if (want > max + 2)
				want = max + 2;
			p = realloc(buf, want);
			if (!p) {
				r = -ENOMEM;
				break;
			}
			buf = p;
			cap = want;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
		if (len > max) {
			r = -EFBIG;
			break;
		}
	}
	if (!r && memchr(buf, '\0', len))
		r = -EILSEQ;
	if (r) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	return 0;
}

DAMONCTL_API int damonctl_file_read(const char *path, size_t max, char **out, size_t *len_out)
{
	int fd = open_input(path, 0), r;

	if (fd < 0)
		return fd;
	r = read_fd(fd, max, out, len_out);
	if (fd != STDIN_FILENO)
		close(fd);
	return r;
}

int dctl_state_read(const char *path, size_t max, char **out)
{
	int fd, r;

	/* a file of the state directory: what stands at its name, never a link's target */
	fd = dctl_open_regular(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, -ENODEV);
	if (fd < 0)
		return fd;
	r = read_fd(fd, max, out, NULL);
	close(fd);
	return r;
}

/* ---- writing ---- */

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* @path's directory into @dir and its last component as *base: "." for a bare name, and
 * -EISDIR for a path that names a directory ("x/", ".", ".."). */
static int split_path(const char *path, char *dir, size_t size, const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	*base = slash ? slash + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return -EISDIR;
	if (!slash)
		return dctl_fmt(dir, size, ".") ? 0 : -ENAMETOOLONG;
	if (!n)
		n = 1;		/* "/name" */
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return 0;
}

/* What stands at @base in @dirfd may be replaced or written: nothing, or a regular file.
 * A symbolic link is not followed (-ELOOP), a directory is one (-EISDIR), and a device, FIFO
 * or socket is never replaced (-ENODEV). */
static int check_target(int dirfd, const char *base, struct stat *st)
{
	if (fstatat(dirfd, base, st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (S_ISREG(st->st_mode))
		return 0;
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	return S_ISDIR(st->st_mode) ? -EISDIR : -ENODEV;
}

/* A new file of our own beside @base: ".<base>.<random>", created O_EXCL (nothing planted at
 * that name is ever opened), 0600 until it is whole. */
static int create_temp(int dirfd, const char *base, char *tmp, size_t size)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned int tries;

	for (tries = 0; tries < 100; tries++) {
		uint64_t rnd;
		char sfx[9];
		unsigned int i;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 20 ^
			      (uint64_t)clock() ^ tries;
		for (i = 0; i < 8; i++, rnd /= 36)
			sfx[i] = digits[rnd % 36];
		sfx[8] = '\0';
		/* the name fits in NAME_MAX whatever @base's length */
		if (!dctl_fmt(tmp, size, ".%.200s.%s", base, sfx))
			return -ENAMETOOLONG;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/* Write @len bytes into a new file in @dirfd and rename it over @base. */
static int replace_at(int dirfd, const char *base, const void *data, size_t len,
		      unsigned int mode)
{
	unsigned int perm = mode & 07777;
	char tmp[NAME_MAX + 1];
	struct stat st;
	int fd, r = check_target(dirfd, base, &st);

	if (r && r != -ENOENT)
		return r;
	fd = create_temp(dirfd, base, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	r = write_all(fd, data, len);
	if (!r && fchmod(fd, perm ? perm : 0600))
		r = -errno;
	if (!r && (mode & DAMONCTL_FILE_SYNC) && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	/* what stands there now: a FIFO or device put in place meanwhile is not replaced */
	if (!r) {
		r = check_target(dirfd, base, &st);
		r = r == -ENOENT ? 0 : r;
	}
	if (!r && renameat(dirfd, tmp, dirfd, base))
		r = -errno;
	if (r)
		unlinkat(dirfd, tmp, 0);
	else if ((mode & DAMONCTL_FILE_SYNC) && fsync(dirfd))
		r = -errno;	/* written, but maybe not on disk */
	return r;
}

DAMONCTL_API int damonctl_file_write(const char *path, const void *data, size_t len,
				     unsigned int mode)
{
	char dir[PATH_MAX];
	const char *base;
	int dirfd, r;

	if (!strcmp(path, "-"))
		return write_all(STDOUT_FILENO, data, len);
	r = split_path(path, dir, sizeof(dir), &base);
	if (r)
		return r;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	r = replace_at(dirfd, base, data, len, mode);
	close(dirfd);
	return r;
}

/* An existing regular file at @path opened with @flags, the same one that was looked at. */
static int open_existing(const char *path, int flags, const struct stat *seen)
{
	struct stat st;
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? -EAGAIN : -errno;
	if (fstat(fd, &st) || st.st_dev != seen->st_dev || st.st_ino != seen->st_ino ||
	    !S_ISREG(st.st_mode)) {
		close(fd);
		return -EAGAIN;		/* replaced meanwhile: look again */
	}
	return fd;
}

DAMONCTL_API int damonctl_file_open(const char *path, int flags, unsigned int mode)
{
	int open_flags = flags & (O_ACCMODE | O_APPEND), fd = -EAGAIN, tries;
	struct stat st;

	if (flags & ~(O_ACCMODE | O_APPEND | O_CREAT | O_TRUNC | O_EXCL))
		return -EINVAL;
	for (tries = 0; fd == -EAGAIN && tries < 100; tries++) {
		if (lstat(path, &st)) {
			if (errno != ENOENT || !(flags & O_CREAT))
				return -errno;
			/* created here, O_EXCL: never a file someone put at the name meanwhile */
			fd = open(path, open_flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
				  O_CLOEXEC, (mode & 07777) ? mode & 07777 : 0600);
			if (fd < 0)
				fd = errno == EEXIST ? -EAGAIN : -errno;
			continue;
		}
		if (flags & O_EXCL)
			return -EEXIST;
		if (!S_ISREG(st.st_mode))
			return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR :
			       -ENODEV;
		fd = open_existing(path, open_flags, &st);
	}
	if (fd < 0)
		return fd;
	if (fcntl(fd, F_SETFL, open_flags & O_APPEND) ||
	    ((flags & O_TRUNC) && ftruncate(fd, 0))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* ---- directories ---- */

DAMONCTL_API int damonctl_make_dirs(const char *dir)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(tmp, 0755) && errno != EEXIST ? -errno : 0;
}

DAMONCTL_API int damonctl_make_state_dir(const char *dir)
{
	char parent[PATH_MAX];
	const char *base;
	struct stat st;
	int r = split_path(dir, parent, sizeof(parent), &base), fd;

	if (r)
		return r == -EISDIR ? -EINVAL : r;
	r = damonctl_make_dirs(parent);
	if (r)
		return r;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	/* what stands there: a directory of ours that no one else can enter or write */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode) ? -ELOOP :
		       -errno;
	if (fstat(fd, &st))
		r = -errno;
	else if (st.st_uid != geteuid())
		r = -EPERM;
	else if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700))
		r = -errno;	/* made by an older damonc, 0755: tightened */
	close(fd);
	return r;
}

int dctl_state_write(const char *dir, const char *path, const char *text)
{
	size_t len = strlen(text);
	char *buf;
	int r = damonctl_make_state_dir(dir);

	if (r)
		return r;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = '\n';
	/* not synced: the state lives in /run, and a crash takes the kernel's state with it */
	r = damonctl_file_write(path, buf, len + 1, 0600);
	free(buf);
	return r;
}
