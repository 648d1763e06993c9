/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A thread that calls a function every few milliseconds until stopped: the kernel's periodic
 * work (the refresh_ms updates, the modules' work items). */
#ifndef DAMON_EMU_TICKER_H
#define DAMON_EMU_TICKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct emu_ticker {
	void (*fn)(void);
	uint64_t period_ns;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopping, started;
};

/* 0 or -errno; @t->fn and @t->period_ns set by the caller */
int emu_ticker_start(struct emu_ticker *t);
void emu_ticker_stop(struct emu_ticker *t);

#endif
