// SPDX-License-Identifier: GPL-2.0-or-later
/* Lines of a file a user gives, bounded (see lines.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lines.h"

int lines_open(const char *path, FILE **out)
{
	struct stat a, b;
	int fd, err;

	if (!strcmp(path, "-")) {
		if (fstat(STDIN_FILENO, &a))
			return -errno;
		if (S_ISDIR(a.st_mode))
			return -EISDIR;
		*out = stdin;
		return 0;
	}
	/* looked at before it is opened: a device is never opened, a FIFO never waited on */
	if (stat(path, &a))
		return -errno;
	if (!S_ISREG(a.st_mode))
		return S_ISDIR(a.st_mode) ? -EISDIR : -ENODEV;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &b) || !S_ISREG(b.st_mode) || a.st_ino != b.st_ino ||
	    a.st_dev != b.st_dev || fcntl(fd, F_SETFL, 0)) {
		close(fd);
		return -ENODEV;		/* replaced meanwhile */
	}
	*out = fdopen(fd, "re");
	if (*out)
		return 0;
	err = -errno;
	close(fd);
	return err;
}

long lines_read(FILE *in, size_t max, char **buf, size_t *cap)
{
	size_t len = 0;
	bool nul = false;
	int c;

	while ((c = getc(in)) != EOF) {
		if (len + 2 > *cap) {
			size_t want = *cap ? *cap * 2 : 256;
			char *p;

			if (want > max + 2)
				want = max + 2;
			p = realloc(*buf, want);
			if (!p)
				return -ENOMEM;
			*buf = p;
			*cap = want;
		}
		(*buf)[len++] = (char)c;
		nul |= !c;
		if (len > max)
			return -EFBIG;	/* its newline included */
		if (c == '\n')
			break;
	}
	if (c == EOF && ferror(in))
		return errno ? -errno : -EIO;
	if (!len)
		return 0;
	(*buf)[len] = '\0';
	return nul ? -EILSEQ : (long)len;
}

int lines_words(const char *line, struct words *w, const char **why)
{
	int i, r = words_split(line, false, w, why);

	for (i = 0; !r && i < w->n && strcmp(w->v[i], "--"); i++) {
		if (strcmp(w->v[i], "--sysroot") && strncmp(w->v[i], "--sysroot=", 10))
			continue;
		*why = "--sysroot: a line acts on the tree of its batch or shell (give --sysroot "
		       "before --batch or shell)";
		words_free(w);
		r = -EINVAL;
	}
	return r;
}
