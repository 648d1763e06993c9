// SPDX-License-Identifier: LGPL-2.1-or-later
/* Processes from procfs under the sysroot: whether one runs, its children, its command line
 * (what a program serving DAMON targets needs to follow them), its CPU time (what a kdamond
 * costs), its memory footprint (what a record keeps beside the regions). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Read <sysroot>/proc/<rel> into @buf (NUL-terminated): the length, or -errno. */
static int read_proc(struct damonctl_ctx *ctx, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (size < 2)
		return -EINVAL;
	if (damonctl_path(ctx, DAMONCTL_BASE_PROC, rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = dctl_open_file(AT_FDCWD, path, O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = errno == ESRCH ? -ESRCH : -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	return (int)n;
}

/* The fields of a /proc/PID/stat line this library uses: the state (field 3) and, when the
 * line has them (@times), the CPU time used (14 and 15, utime and stime) and when it started
 * after boot (22), in clock ticks. */
struct stat_fields {
	char state;
	bool times;
	unsigned long long utime, stime, start;
};

/* One parser for every reader of the line: 0, or -EBADMSG without a state. */
static int parse_stat(const char *buf, struct stat_fields *f)
{
	/* counted after "pid (comm) ", where comm may hold spaces and parentheses: from the
	 * last ')' */
	const char *p = strrchr(buf, ')');

	memset(f, 0, sizeof(*f));
	if (!p || p[1] != ' ' || !p[2])
		return -EBADMSG;
	f->state = p[2];
	f->times = sscanf(p + 3, " %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
			  "%*d %*d %*d %*d %llu", &f->utime, &f->stime, &f->start) == 3;
	return 0;
}

DAMONCTL_API int damonctl_proc_alive(struct damonctl_ctx *ctx, int pid)
{
	struct stat_fields f;
	char rel[64], buf[1024];
	int r;

	if (pid <= 0)
		return 0;
	snprintf(rel, sizeof(rel), "%d/stat", pid);
	r = read_proc(ctx, rel, buf, sizeof(buf));
	if (r == -ESRCH)
		return 0;
	if (r < 0)
		return r;
	r = parse_stat(buf, &f);
	/* a zombie has exited, and holds no memory */
	return r ? r : f.state != 'Z' && f.state != 'X';
}

DAMONCTL_API int damonctl_proc_statm(struct damonctl_ctx *ctx, int pid, uint64_t *vsz,
				     uint64_t *rss)
{
	char rel[64], buf[256];
	unsigned long long size, resident;
	long page = sysconf(_SC_PAGESIZE);
	int r;

	if (pid <= 0)
		return -ESRCH;
	snprintf(rel, sizeof(rel), "%d/statm", pid);
	r = read_proc(ctx, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	/* "size resident shared text lib data dt", in pages; a zombie's is all zeros */
	if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
		return -EBADMSG;
	if (!size)
		return -ESRCH;
	*vsz = (uint64_t)size * (uint64_t)(page > 0 ? page : 4096);
	*rss = (uint64_t)resident * (uint64_t)(page > 0 ? page : 4096);
	return 0;
}

DAMONCTL_API int damonctl_proc_children(struct damonctl_ctx *ctx, int pid, int *pids,
					size_t max)
{
	char rel[64], *buf, *p, *end;
	int r, n = 0;

	if (pid <= 0)
		return -EINVAL;
	buf = malloc(65536);
	if (!buf)
		return -ENOMEM;
	snprintf(rel, sizeof(rel), "%d/task/%d/children", pid, pid);
	r = read_proc(ctx, rel, buf, 65536);
	if (r < 0) {
		free(buf);
		return r;
	}
	for (p = buf;; p = end) {
		long c = strtol(p, &end, 10);

		if (end == p)
			break;
		if (c > 0) {
			if ((size_t)n < max)
				pids[n] = (int)c;
			n++;
		}
	}
	free(buf);
	return n;
}

DAMONCTL_API int damonctl_proc_cmdline(struct damonctl_ctx *ctx, int pid, char *buf,
				       size_t size)
{
	char rel[64];

	if (pid <= 0)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "%d/cmdline", pid);
	return read_proc(ctx, rel, buf, size);
}

/* From <sysroot>/proc/PID/stat: the CPU time used and when it started after boot, clock
 * ticks turned into microseconds. */
static int proc_stat_times(struct damonctl_ctx *ctx, int pid, uint64_t *cpu_us,
			   uint64_t *start_us)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct stat_fields f;
	char rel[64], buf[1024];
	int r;

	if (pid <= 0 || hz <= 0)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "%d/stat", pid);
	r = read_proc(ctx, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (parse_stat(buf, &f) || !f.times)
		return -EBADMSG;
	*cpu_us = (uint64_t)(f.utime + f.stime) * 1000000 / (uint64_t)hz;
	*start_us = (uint64_t)f.start * 1000000 / (uint64_t)hz;
	return 0;
}

DAMONCTL_API int damonctl_proc_cpu_time(struct damonctl_ctx *ctx, int pid, uint64_t *us)
{
	uint64_t start_us;

	return proc_stat_times(ctx, pid, us, &start_us);
}

DAMONCTL_API int damonctl_proc_times(struct damonctl_ctx *ctx, int pid, uint64_t *cpu_us,
				     uint64_t *run_us)
{
	unsigned long long up_s, up_cs = 0;
	uint64_t cpu, start_us, up_us;
	char buf[128];
	int r;

	r = proc_stat_times(ctx, pid, &cpu, &start_us);
	if (r)
		return r;
	/* /proc/uptime: seconds since boot, with two decimals */
	r = read_proc(ctx, "uptime", buf, sizeof(buf));
	if (r < 0)
		return r;
	if (sscanf(buf, "%llu.%2llu", &up_s, &up_cs) < 1)
		return -EBADMSG;
	up_us = (uint64_t)up_s * 1000000 + (uint64_t)up_cs * 10000;
	*cpu_us = cpu;
	*run_us = up_us > start_us ? up_us - start_us : 0;
	return 0;
}

DAMONCTL_API unsigned long long damonctl_proc_start_time(int pid)
{
	struct stat_fields f;
	char path[64], buf[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (parse_stat(buf, &f) || f.state == 'Z' || f.state == 'X')
		return 0;
	return f.start ? f.start : 1;
}

DAMONCTL_API bool damonctl_proc_same(int pid, unsigned long long start_time)
{
	unsigned long long t;

	if (pid <= 0)
		return false;
	t = damonctl_proc_start_time(pid);
	return t && (!start_time || t == start_time);
}
