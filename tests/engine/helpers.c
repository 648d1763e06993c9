// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers for the engine tests. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

int t_failures;

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

const char *build_path(const char *rel)
{
	static char buf[PATH_MAX + 256];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n < 0)
		return rel;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, sizeof(buf), "%s/%s", exe, rel);
	return buf;
}

int workload_start(struct workload *w, const char *path, const char *const *args)
{
	const char *argv[16] = { path };
	char line[256];
	int fds[2], n = 1;
	FILE *f;

	for (; args && args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	if (pipe(fds))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (!w->pid) {
		/* a test that crashes must not leave a spinning workload behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "hot=0x%" SCNx64 "-0x%" SCNx64 " cold=0x%" SCNx64 "-0x%" SCNx64,
		   &w->hot_start, &w->hot_end, &w->cold_start, &w->cold_end) != 4) {
		if (f)
			fclose(f);
		workload_kill(w);
		return -EIO;
	}
	fclose(f);
	return 0;
}

void workload_kill(struct workload *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
	w->pid = -1;
}

uint64_t smaps_anon_huge(pid_t pid, uint64_t start, uint64_t end)
{
	char path[64], line[512];
	uint64_t total = 0, vs = 0, ve = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b, kb;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &a, &b) == 2 && strchr(line, ' ') &&
		    line[strcspn(line, " ")] == ' ' && strchr(line, '-') < strchr(line, ' ')) {
			vs = a;
			ve = b;
		} else if (sscanf(line, "AnonHugePages: %" SCNu64 " kB", &kb) == 1) {
			if (vs >= start && ve <= end)
				total += kb * 1024;
		}
	}
	fclose(f);
	return total;
}
