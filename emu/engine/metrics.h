/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System metrics measured for real, from <proc_root>/meminfo and <proc_root>/pressure/memory:
 * quota goal metrics and the free_mem_rate watermark metric.
 */
#ifndef DAMON_EMU_METRICS_H
#define DAMON_EMU_METRICS_H

#include "ctx.h"

struct emu_meminfo {
	uint64_t total, free, active, inactive;		/* bytes */
	uint64_t anon_huge, shmem_huge, file_huge;
};

int metrics_read_meminfo(const char *proc_root, struct emu_meminfo *m);
/* "some total" of memory pressure, in microseconds; 0 if there is no PSI. */
uint64_t metrics_psi_some_total_us(const char *proc_root);
/* (AnonHugePages + ShmemHugePages + FileHugePages) * 10000 / (MemTotal - MemFree) */
uint64_t metrics_hugepage_mem_bp(const struct emu_meminfo *m);

/*
 * Current value of goal @gi of scheme @s, measured now (damos_set_quota_goal_current_value).
 * user_input keeps what the user committed.
 */
void metrics_update_goal(struct mon_ctx *c, struct mon_scheme *s, int gi);
/* free_mem_rate in permil; returns -EINVAL for metric "none" (the scheme is always active). */
int metrics_wmark_value(struct mon_ctx *c, enum emu_wmark_metric metric, uint64_t *value);

#endif
