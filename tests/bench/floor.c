// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor a command's start-up is measured against: a C program that does only the
 * opens and reads of files the command did (as strace saw them; tests/bench/opens-of turns
 * a trace into these arguments), with the same directory descriptors as bases and reads of
 * the same sizes, and nothing else. Whatever a command costs above it is loading, parsing
 * and printing.
 *   floor [KIND BASE NAME READS]...
 * KIND: d (a directory, kept open as a base for later opens), l (a directory, listed), f (a
 * file); BASE: '-' (the working directory) or the index of an earlier d or l quadruplet;
 * READS: the sizes of a file's reads, comma-separated ('-': none). An open that fails (the
 * command's did too: a file it looked for) is left at that.
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

/* The reads @sizes lists ("4095,4095"), as the command made them. */
static void reads(int fd, const char *sizes)
{
	char *end;

	while (*sizes && *sizes != '-') {
		unsigned long n = strtoul(sizes, &end, 10);

		if (read(fd, buf, n < sizeof(buf) ? n : sizeof(buf)) < 0)
			return;
		sizes = *end == ',' ? end + 1 : end;
	}
}

int main(int argc, char **argv)
{
	int n = (argc - 1) / 4, i;
	int *fds;

	if ((argc - 1) % 4) {
		fprintf(stderr, "usage: floor [KIND BASE NAME READS]...\n");
		return 2;
	}
	fds = calloc(n ? n : 1, sizeof(int));
	if (!fds)
		return 1;
	for (i = 0; i < n; i++) {
		const char *kind = argv[1 + 4 * i], *base = argv[2 + 4 * i];
		const char *name = argv[3 + 4 * i], *sizes = argv[4 + 4 * i];
		int dirfd = strcmp(base, "-") ? fds[atoi(base)] : AT_FDCWD;
		int fd;

		if (*kind == 'f') {
			fd = openat(dirfd, name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			fds[i] = -1;
			if (fd >= 0) {
				reads(fd, sizes);
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
