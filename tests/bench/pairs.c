// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pairs: two commands run N times each, in alternating pairs (A B, B A, A B, ...: neither
 * always goes first, and a change of the machine's load falls on both), each run a whole
 * process of its own with its output to /dev/null. Prints each command's median CPU time
 * (user + system, wait4's rusage of that child alone) and median wall time, in
 * microseconds, as one line:
 *   a_cpu_us=C a_wall_us=W b_cpu_us=C b_wall_us=W
 * Exits 1 if a run fails (its stderr is left through, so the reason shows).
 *   pairs N A... -- B...
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cost {
	long cpu_us, wall_us;
};

static long us_of(struct timeval tv)
{
	return tv.tv_sec * 1000000L + tv.tv_usec;
}

/* Runs @argv once; 0 and its cost, or -1 once the failure is said. */
static int run(char **argv, struct cost *c)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pairs: %s failed (status %d)\n", argv[0], status);
		return -1;
	}
	c->cpu_us = us_of(ru.ru_utime) + us_of(ru.ru_stime);
	c->wall_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static long median(long *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	long *cpu[2], *wall[2];
	char **cmd[2];
	int n, i, k, sep;

	n = argc > 1 ? atoi(argv[1]) : 0;
	for (sep = 2; sep < argc && strcmp(argv[sep], "--"); sep++)
		;
	if (n < 1 || sep == 2 || sep >= argc - 1) {
		fprintf(stderr, "usage: pairs N A... -- B...\n");
		return 2;
	}
	argv[sep] = NULL;
	cmd[0] = argv + 2;
	cmd[1] = argv + sep + 1;
	for (k = 0; k < 2; k++) {
		cpu[k] = calloc(n, sizeof(long));
		wall[k] = calloc(n, sizeof(long));
		if (!cpu[k] || !wall[k])
			return 1;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++) {
			int which = i % 2 ? 1 - k : k;
			struct cost c;

			if (run(cmd[which], &c))
				return 1;
			cpu[which][i] = c.cpu_us;
			wall[which][i] = c.wall_us;
		}
	}
	printf("a_cpu_us=%ld a_wall_us=%ld b_cpu_us=%ld b_wall_us=%ld\n", median(cpu[0], n),
	       median(wall[0], n), median(cpu[1], n), median(wall[1], n));
	return 0;
}
