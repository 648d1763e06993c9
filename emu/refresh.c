// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's repeat call runs in the kdamond at every sample and, when an update is due,
 * tries damon_sysfs_lock and gives the period up if it is busy; this thread looks every few
 * milliseconds and does the same. The lock is only tried when an update is due: holding it
 * otherwise would make readers of state or pid see EBUSY the kernel never gives.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "refresh.h"
#include "state.h"
#include "tree.h"
#include "util.h"

#define TICK_NS 5000000ull

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond;
static bool stopping, started;

static void *refresh_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!stopping) {
		struct timespec until;
		uint64_t t = emu_now_ns() + TICK_NS;
		bool due;

		until.tv_sec = (time_t)(t / 1000000000ull);
		until.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&cond, &lock, &until);
		if (stopping)
			break;
		pthread_mutex_unlock(&lock);
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
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int emu_refresh_start(void)
{
	pthread_condattr_t attr;
	int err;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&cond, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&thread, NULL, refresh_main, NULL);
	started = !err;
	return -err;
}

void emu_refresh_stop(void)
{
	if (!started)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	pthread_cond_destroy(&cond);
	started = false;
}
