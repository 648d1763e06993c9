/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by the engine: clock, random numbers, arithmetic. */
#ifndef DAMON_EMU_UTIL_H
#define DAMON_EMU_UTIL_H

#include <stdint.h>
#include <time.h>

static inline uint64_t emu_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static inline uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: fast, and seedable so that tests can replay a run. */
static inline uint64_t emu_rand_next(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [lo, hi); lo when the range is empty. */
static inline uint64_t emu_rand_range(uint64_t *state, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + (uint64_t)(((unsigned __int128)emu_rand_next(state) * (hi - lo)) >> 64);
}

/* x * n / d without intermediate overflow, saturating at UINT64_MAX; 0 when d is 0. */
static inline uint64_t emu_mult_frac(uint64_t x, uint64_t n, uint64_t d)
{
	unsigned __int128 v;

	if (!d)
		return 0;
	v = (unsigned __int128)x * n / d;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static inline uint64_t emu_align_down(uint64_t x, uint64_t a)
{
	return a ? x - x % a : x;
}

static inline uint64_t emu_align_up(uint64_t x, uint64_t a)
{
	if (!a || !(x % a))
		return x;
	return x - x % a + a;
}

static inline uint64_t emu_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t emu_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

#endif
