// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's repeat call runs in the kdamond at every sample and, when an update is due,
 * tries damon_sysfs_lock and gives the period up if it is busy; this thread looks every few
 * milliseconds and does the same. The lock is only tried when an update is due: holding it
 * otherwise would make readers of state or pid see EBUSY the kernel never gives.
 */
#include <pthread.h>
#include <stdbool.h>

#include "refresh.h"
#include "state.h"
#include "ticker.h"
#include "tree.h"
#include "util.h"

#define TICK_NS 5000000ull

static void refresh_tick(void)
{
	uint64_t t;
	bool due;

	pthread_mutex_lock(&emu_tree_lock);
	t = emu_now_ns();
	due = emu_state_refresh_due(t);
	pthread_mutex_unlock(&emu_tree_lock);
	if (due && !pthread_mutex_trylock(&emu_sysfs_lock)) {
		pthread_mutex_lock(&emu_tree_lock);
		emu_state_refresh(t);
		pthread_mutex_unlock(&emu_tree_lock);
		pthread_mutex_unlock(&emu_sysfs_lock);
	}
}

static struct emu_ticker ticker = { .fn = refresh_tick, .period_ns = TICK_NS };

int emu_refresh_start(void)
{
	return emu_ticker_start(&ticker);
}

void emu_refresh_stop(void)
{
	emu_ticker_stop(&ticker);
}
