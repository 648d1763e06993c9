// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The raw cost of reading a DAMON tree: open, read and close every regular file below a
 * directory, N times. The baseline `damonc status` is measured against (same files, same
 * run), so what is left is damonc's own work.
 *   raw-tree DIR [N]
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long files;

static void walk(int dirfd)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	char buf[4096];

	if (!d)
		return;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		if (de->d_type == DT_DIR) {
			fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0)
				walk(fd);
			continue;
		}
		fd = openat(dirfd, de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, buf, sizeof(buf)) >= 0)
			files++;
		close(fd);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	int i, n = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 2) {
		fprintf(stderr, "usage: raw-tree DIR [N]\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		walk(fd);
	}
	printf("%ld files read\n", files / (n ? n : 1));
	return 0;
}
