// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live processes to monitor (pid_target). Children die with the runner (PR_SET_PDEATHSIG)
 * and are reaped when killed, so that their pid really goes away.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conform.h"

#define MAX_CHILDREN 64
#define HUGE_ALIGN (2ull << 20)

static pid_t children[MAX_CHILDREN];
static int nr_children;

/* Keep touching every page of an anonymous, 2MiB-aligned region (THP-friendly). */
static void toucher(unsigned long long size)
{
	char *raw = mmap(NULL, size + HUGE_ALIGN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *mem;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	if (raw == MAP_FAILED)
		_exit(1);
	mem = (volatile char *)(((uintptr_t)raw + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1));
	for (unsigned int round = 0;; round++) {
		for (unsigned long long off = 0; off < size; off += 4096)
			mem[off] = (char)round;
		nanosleep(&ts, NULL);
	}
}

pid_t proc_spawn(const char *what, unsigned long long size)
{
	pid_t pid;

	if (nr_children == MAX_CHILDREN)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, !strcmp(what, "touch") ? "conform-touch" : "conform-sleep");
		if (!strcmp(what, "touch"))
			toucher(size);
		for (;;)
			pause();
	}
	children[nr_children++] = pid;
	return pid;
}

int proc_kill(pid_t pid)
{
	for (int i = 0; i < nr_children; i++) {
		if (children[i] != pid)
			continue;
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		children[i] = children[--nr_children];
		return 0;
	}
	return -1;
}

void proc_kill_all(void)
{
	while (nr_children)
		proc_kill(children[0]);
}
