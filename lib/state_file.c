// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Files a program is given (a configuration, a document: read whole, never waited on) and
 * files it keeps (capture notes, journals, its own state: written whole or not at all).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* A regular file, or stdin ("-") whatever it is (a pipe, a terminal): a FIFO or a device
 * named would block or never end, so it is refused (-ENODEV) before reading. */
static int open_input(const char *path)
{
	struct stat st;

	if (strcmp(path, "-"))
		return dctl_open_regular(AT_FDCWD, path, O_RDONLY, -ENODEV);
	if (fstat(STDIN_FILENO, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? -EISDIR : STDIN_FILENO;
}

DAMONCTL_API int damonctl_file_read(const char *path, size_t max, char **out, size_t *len_out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fd = open_input(path), r = 0;

	if (fd < 0)
		return fd;
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
	if (fd != STDIN_FILENO)
		close(fd);
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

DAMONCTL_API int damonctl_file_write(const char *path, const void *data, size_t len,
				     unsigned int mode)
{
	const char *p = data;
	char tmp[PATH_MAX];
	int r = 0, fd;

	/* written aside in the same directory and renamed: a reader never sees half a file */
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (mode && fchmod(fd, mode))
		r = -errno;
	while (!r && len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

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

int dctl_state_write(const char *dir, const char *path, const char *text)
{
	size_t len = strlen(text);
	char *buf;
	int r = damonctl_make_dirs(dir);

	if (r)
		return r;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = '\n';
	r = damonctl_file_write(path, buf, len + 1, 0);
	free(buf);
	return r;
}
