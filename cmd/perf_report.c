// SPDX-License-Identifier: GPL-2.0-or-later
/* Running perf report and reading its table (see perf_report.h). */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf_report.h"

extern char **environ;

/* The next column: perf pads its columns with two spaces or more, and a column (a symbol
 * such as "operator new(unsigned long)") may hold single ones. */
static char *column(const char **p)
{
	const char *s = *p, *e;

	while (*s == ' ')
		s++;
	for (e = s; *e && !(e[0] == ' ' && e[1] == ' ') && *e != '\n'; e++)
		;
	*p = e;
	return e > s ? strndup(s, (size_t)(e - s)) : NULL;
}

static double percent(const char **p)
{
	char *end;
	double v = strtod(*p, &end);

	if (end == *p || *end != '%')
		return -1;
	*p = end + 1;
	return v;
}

int perf_parse_row(const char *line, struct perf_row *row)
{
	const char *p = line, *q;
	char *sym;
	size_t n;

	memset(row, 0, sizeof(*row));
	while (*p == ' ')
		p++;
	if (*p == '#' || !*p || *p == '\n')
		return 0;
	row->overhead = percent(&p);
	if (row->overhead < 0)
		return 0;
	/* with call chains, Children comes first and Self after it: keep Children */
	q = p;
	while (*q == ' ')
		q++;
	if (percent(&q) >= 0)
		p = q;
	row->command = column(&p);
	row->object = column(&p);
	while (*p == ' ')
		p++;
	if (p[0] == '[' && p[1] && p[2] == ']') {
		row->where = p[1];
		p += 3;
		while (*p == ' ')
			p++;
	}
	/* the symbol is the rest of the line, single spaces and all */
	n = strcspn(p, "\n");
	while (n && p[n - 1] == ' ')
		n--;
	sym = n ? strndup(p, n) : NULL;
	row->symbol = sym;
	if (!row->command || !row->object || !row->symbol) {
		bool oom = errno == ENOMEM;

		free(row->command);
		free(row->object);
		free(row->symbol);
		memset(row, 0, sizeof(*row));
		return oom ? -ENOMEM : 0;
	}
	return 1;
}

/* Reads perf's table from @f: its first @top rows into @out. */
static int read_rows(FILE *f, size_t top, struct perf_rows *out)
{
	char *line = NULL;
	size_t cap = 0;
	int r = 0;

	while (getline(&line, &cap, f) >= 0) {
		struct perf_row row;

		if (out->n >= top)
			continue;	/* drain, so that perf is not killed by a closed pipe */
		r = perf_parse_row(line, &row);
		if (r < 0)
			break;
		if (!r)
			continue;
		if (!out->v && !(out->v = calloc(top, sizeof(*out->v)))) {
			r = -ENOMEM;
			break;
		}
		out->v[out->n++] = row;
		r = 0;
	}
	free(line);
	return r < 0 ? r : 0;
}

int perf_report_top(const char *perf, const char *file, size_t top, struct perf_rows *out,
		    int *status)
{
	char *argv[] = { (char *)perf, "report", "-i", (char *)file, "--stdio", NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], r, st = 0;
	pid_t pid;
	FILE *f;

	memset(out, 0, sizeof(*out));
	*status = 0;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	r = posix_spawnp(&pid, perf, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (r) {
		close(fds[0]);
		return -r;
	}
	f = fdopen(fds[0], "r");
	if (!f) {
		r = -errno;
		close(fds[0]);
	} else {
		r = read_rows(f, top, out);
		fclose(f);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!r && !(WIFEXITED(st) && !WEXITSTATUS(st))) {
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		r = -ECHILD;
	}
	if (r)
		perf_rows_free(out);
	return r;
}

void perf_rows_free(struct perf_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		free(rows->v[i].command);
		free(rows->v[i].object);
		free(rows->v[i].symbol);
	}
	free(rows->v);
	rows->v = NULL;
	rows->n = 0;
}
