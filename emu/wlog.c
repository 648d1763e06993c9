// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "wlog.h"

static int fd = -1;
static bool with_pids;

int emu_wlog_open(const char *path, bool pids)
{
	with_pids = pids;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : 0;
}

void emu_wlog_write(const char *path, const char *value, size_t len, int err, const char *mark,
		    int pid)
{
	char *line;
	size_t cap, off = 0;

	if (fd < 0)
		return;
	cap = strlen(path) + 4 * len + 64;
	line = emu_xcalloc(cap, 1);
	off += (size_t)snprintf(line, cap, "W %s '", path);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c == '\n')
			off += (size_t)snprintf(line + off, cap - off, "\\n");
		else if (c == '\t')
			off += (size_t)snprintf(line + off, cap - off, "\\t");
		else if (c == '\\' || c == '\'')
			off += (size_t)snprintf(line + off, cap - off, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			off += (size_t)snprintf(line + off, cap - off, "\\x%02x", c);
		else
			line[off++] = (char)c;
	}
	off += (size_t)snprintf(line + off, cap - off, "' %s%s%s",
				err ? emu_errname(err) : "ok", mark ? " " : "", mark ? mark : "");
	if (with_pids)
		off += (size_t)snprintf(line + off, cap - off, " pid=%d", pid);
	line[off++] = '\n';
	/* one write(2) per line: readers see whole lines, in order */
	if (write(fd, line, off) < 0)
		perror("damon-emu: --log");
	free(line);
}

void emu_wlog_close(void)
{
	if (fd >= 0)
		close(fd);
	fd = -1;
}
