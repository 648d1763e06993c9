// SPDX-License-Identifier: GPL-2.0-or-later
/* A thread calling a function every period (see ticker.h). */
#include <time.h>

#include "ticker.h"
#include "util.h"

static void *ticker_main(void *arg)
{
	struct emu_ticker *t = arg;

	pthread_mutex_lock(&t->lock);
	while (!t->stopping) {
		struct timespec until;
		uint64_t at = emu_now_ns() + t->period_ns;

		until.tv_sec = (time_t)(at / 1000000000ull);
		until.tv_nsec = (long)(at % 1000000000ull);
		pthread_cond_timedwait(&t->cond, &t->lock, &until);
		if (t->stopping)
			break;
		pthread_mutex_unlock(&t->lock);
		t->fn();
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int emu_ticker_start(struct emu_ticker *t)
{
	pthread_condattr_t attr;
	int err;

	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cond, &attr);
	pthread_condattr_destroy(&attr);
	t->stopping = false;
	err = pthread_create(&t->thread, NULL, ticker_main, t);
	t->started = !err;
	return -err;
}

void emu_ticker_stop(struct emu_ticker *t)
{
	if (!t->started)
		return;
	pthread_mutex_lock(&t->lock);
	t->stopping = true;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	t->started = false;
}
