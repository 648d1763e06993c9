// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor a command's start-up is measured against: a C program that does only the
 * opens and reads of files the command did (as strace saw them; tests/bench/opens-of turns
 * a trace into these arguments), with the same directory descriptors as bases, and nothing
 * else. Whatever a command costs above it is loading, parsing and printing.
 *   floor [KIND BASE NAME]...
 * KIND: d (a directory, kept open as a base for later opens), l (a directory, listed), f (a
 * file, read once); BASE: '-' (the working directory) or the index of an earlier d or l
 * triplet. An open that fails (the command's did too: a file it looked for) is left at that.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[65536];

static void list(int fd)
{
	while (getdents64(fd, buf, sizeof(buf)) > 0)
		;
}

int main(int argc, char **argv)
{
	int n = (argc - 1) / 3, i;
	int *fds;

	if ((argc - 1) % 3) {
		fprintf(stderr, "usage: floor [KIND BASE NAME]...\n");
		return 2;
	}
	fds = calloc(n ? n : 1, sizeof(int));
	if (!fds)
		return 1;
	for (i = 0; i < n; i++) {
		const char *kind = argv[1 + 3 * i], *base = argv[2 + 3 * i];
		const char *name = argv[3 + 3 * i];
		int dirfd = strcmp(base, "-") ? fds[atoi(base)] : AT_FDCWD;
		int fd;

		if (*kind == 'f') {
			fd = openat(dirfd, name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			fds[i] = -1;
			if (fd >= 0) {
				if (read(fd, buf, sizeof(buf)) < 0)
					perror(name);
				close(fd);
			}
			continue;
		}
		fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
		fds[i] = fd;
		if (fd >= 0 && *kind == 'l')
			list(fd);
	}
	return 0;
}
