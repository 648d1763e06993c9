// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * raw-tried: the floor under `damonc record`'s cost per snapshot: write
 * update_schemes_tried_regions to a kdamond's state file, then read every file of one
 * scheme's tried regions (start, end, nr_accesses, age, sz_filter_passed when present) with
 * open/read/close and nothing else: no parsing, no record. Repeats N times.
 *
 *   raw-tried ADMIN_DIR KDAMOND SCHEME N
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long nr_files;

static void slurp(int dirfd, const char *path)
{
	char buf[64];
	int fd = openat(dirfd, path, O_RDONLY);

	if (fd < 0)
		return;
	if (read(fd, buf, sizeof(buf)) > 0)
		nr_files++;
	close(fd);
}

int main(int argc, char **argv)
{
	static const char *const files[] = { "start", "end", "nr_accesses", "age",
					     "sz_filter_passed" };
	char path[4096];
	long n, i;

	if (argc != 5) {
		fprintf(stderr, "usage: raw-tried ADMIN_DIR KDAMOND SCHEME N\n");
		return 2;
	}
	n = atol(argv[4]);
	for (i = 0; i < n; i++) {
		struct dirent *de;
		DIR *d;
		int fd, dfd;

		snprintf(path, sizeof(path), "%s/kdamonds/%s/state", argv[1], argv[2]);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "update_schemes_tried_regions", 28) != 28) {
			perror(path);
			return 1;
		}
		close(fd);
		snprintf(path, sizeof(path), "%s/kdamonds/%s/contexts/0/schemes/%s/tried_regions",
			 argv[1], argv[2], argv[3]);
		d = opendir(path);
		if (!d) {
			perror(path);
			return 1;
		}
		dfd = dirfd(d);
		while ((de = readdir(d))) {
			char rel[300];
			unsigned int f;

			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
				snprintf(rel, sizeof(rel), "%s/%s", de->d_name, files[f]);
				slurp(dfd, rel);
			}
		}
		closedir(d);
	}
	printf("%ld files read\n", nr_files);
	return 0;
}
