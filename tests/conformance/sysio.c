// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading, writing and dumping sysfs files the way shell tools do. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conform.h"

/* The whole content, read until EOF. Returns 0 or the errno of open/read. */
int sys_read(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb) {
				free(buf);
				close(fd);
				return ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			return e;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* One write(2) of the whole value, as `echo -n` does. Returns 0 or the errno. */
int sys_write(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t r;
	int e = 0;

	if (fd < 0)
		return errno;
	do {
		r = write(fd, val, len);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		e = errno;
	if (close(fd) && !e)
		e = errno;
	return e;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries below @dir (relative to @root) in C-locale path order, as `find | sort` lists. */
static int collect(const char *root, const char *rel, char ***list, size_t *n, size_t *cap)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return errno;
	while ((e = readdir(d))) {
		char child[PATH_MAX];
		struct stat st;
		int w;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		w = snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (w < 0 || (size_t)w >= sizeof(child))
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			*list = realloc(*list, *cap * sizeof(**list));
			if (!*list) {
				closedir(d);
				return ENOMEM;
			}
		}
		(*list)[(*n)++] = strdup(child);
		w = snprintf(path, sizeof(path), "%s/%s", root, child);
		if (w >= 0 && (size_t)w < sizeof(path) && !lstat(path, &st) &&
		    S_ISDIR(st.st_mode))
			collect(root, child, list, n, cap);
	}
	closedir(d);
	return 0;
}

static void print_escaped(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		putchar(s[i] == '\n' ? '|' : s[i]);
}

/*
 * A read, tried again while it fails with EBUSY. pid and state try damon_sysfs_lock, which
 * the kdamond's periodic refresh (refresh_ms) holds for a moment: that EBUSY says when the
 * file was read, not what the tree is. One that lasts (a lock held by a blocked write) is
 * still dumped as <EBUSY>, after 1000 tries a millisecond apart.
 */
static int read_settled(const char *path, char **val, size_t *len)
{
	const struct timespec ms = { 0, 1000000 };
	int err, tries = 1000;

	while ((err = sys_read(path, val, len)) == EBUSY && --tries)
		nanosleep(&ms, NULL);
	return err;
}

/* The fixtures' format: "D 755 path", "F 600 path = value|" ("|" for each newline). */
int dump_tree(const char *root)
{
	char **list = NULL;
	size_t n = 0, cap = 0;
	struct stat st;
	int err;

	if (stat(root, &st))
		return errno;
	printf("D %o %s\n", st.st_mode & 07777, root);
	err = collect(root, "", &list, &n, &cap);
	if (err)
		return err;
	qsort(list, n, sizeof(*list), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], *val;
		size_t len;
		int w = snprintf(path, sizeof(path), "%s/%s", root, list[i]);

		if (w < 0 || (size_t)w >= sizeof(path)) {
			printf("? %s: path too long\n", list[i]);
		} else if (lstat(path, &st)) {
			printf("? %s: %s\n", list[i], strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			printf("D %o %s\n", st.st_mode & 07777, list[i]);
		} else {
			printf("F %o %s = ", st.st_mode & 07777, list[i]);
			err = read_settled(path, &val, &len);
			if (err) {
				printf("<%s>\n", errno_name(err));
			} else {
				print_escaped(val, len);
				putchar('\n');
				free(val);
			}
		}
		free(list[i]);
	}
	free(list);
	return 0;
}
