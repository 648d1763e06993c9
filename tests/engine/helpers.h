/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers for the engine tests: checks, workload processes, /proc readers. */
#ifndef DAMON_EMU_TEST_HELPERS_H
#define DAMON_EMU_TEST_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

extern int t_failures;

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                \
			t_failures++;                                                  \
		}                                                                      \
	} while (0)

#define CHECK_EQ(a, b)                                                                  \
	do {                                                                            \
		long long _a = (long long)(a), _b = (long long)(b);                     \
		if (_a != _b) {                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, #a, #b, _a, _b);                    \
			t_failures++;                                                   \
		}                                                                       \
	} while (0)

struct workload {
	pid_t pid;
	uint64_t hot_start, hot_end, cold_start, cold_end;
};

/* Starts @path (hotcold) with @args (NULL-terminated) and reads its address line. */
int workload_start(struct workload *w, const char *path, const char *const *args);
void workload_kill(struct workload *w);
/* Bytes of AnonHugePages in the mappings of @pid that lie in [start, end). */
uint64_t smaps_anon_huge(pid_t pid, uint64_t start, uint64_t end);
uint64_t now_ms(void);
void sleep_ms(unsigned int ms);
/* Directory of the running test binary + "/" + @rel, for sibling build outputs. */
const char *build_path(const char *rel);

#endif
