// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The modules' parameters under --modules DIR are plain files, which cannot refuse a write
 * as newer kernels do (EBUSY from enabled). So they behave as Linux 6.1's modules do: the
 * write of enabled is taken, and the module's work item, run a moment later, starts DAMON in
 * exclusive mode or, when a sysfs kdamond or another module holds it, turns enabled back to
 * N. Running, a module shows its kdamond's pid in kdamond_pid (this daemon's: a live pid);
 * stopped, -1. This thread is that work item, looking every few milliseconds.
 */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "emu.h"
#include "modules.h"
#include "state.h"
#include "ticker.h"
#include "tree.h"
#include "util.h"

#define TICK_NS 5000000ull

static const char *const names[] = { "damon_reclaim", "damon_lru_sort", "damon_stat" };
#define NR_MODULES (sizeof(names) / sizeof(names[0]))

static bool running[NR_MODULES];

static void param_path(unsigned int m, const char *param, char *path, size_t size)
{
	snprintf(path, size, "%s/%s/parameters/%s", emu_opt.modules_dir, names[m], param);
}

/* 1 (Y), 0 (N), -1 (no such module) */
static int enabled(unsigned int m)
{
	char path[PATH_MAX], buf[8] = "";
	FILE *f;

	param_path(m, "enabled", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] == 'Y';
}

static void put(unsigned int m, const char *param, const char *value)
{
	char path[PATH_MAX];
	FILE *f;

	param_path(m, param, path, sizeof(path));
	if (!strcmp(param, "kdamond_pid") && access(path, F_OK))
		return;		/* a module without one (damon_stat before 7.2) */
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(value, f);
	fclose(f);
}

static const char *own_pid(void)
{
	static char buf[24];

	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	return buf;
}

/* One pass of the work item over the modules. */
static void work(void)
{
	for (unsigned int m = 0; m < NR_MODULES; m++) {
		int on = enabled(m);
		bool held = false;

		if (on < 0 || on == running[m])
			continue;
		if (!on) {
			running[m] = false;
			put(m, "kdamond_pid", "-1\n");
			continue;
		}
		for (unsigned int o = 0; o < NR_MODULES; o++)
			held |= o != m && running[o];
		pthread_mutex_lock(&emu_tree_lock);
		held |= emu_kd_any_running();
		pthread_mutex_unlock(&emu_tree_lock);
		if (held) {
			put(m, "enabled", "N\n");
			continue;
		}
		running[m] = true;
		put(m, "kdamond_pid", own_pid());
	}
}

static struct emu_ticker ticker = { .fn = work, .period_ns = TICK_NS };

int emu_modules_start(void)
{
	if (!emu_opt.modules_dir)
		return 0;
	/* those enabled at the start run (as after boot), whatever holds DAMON */
	for (unsigned int m = 0; m < NR_MODULES; m++)
		if (enabled(m) == 1) {
			running[m] = true;
			put(m, "kdamond_pid", own_pid());
		}
	return emu_ticker_start(&ticker);
}

void emu_modules_stop(void)
{
	emu_ticker_stop(&ticker);
}
