/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Payloads of the daemon <-> kdamond messages (see ipc.h for the framing). Integers travel
 * in host order: both ends are the same binary on the same machine.
 *
 *   INIT            str name, str scenario_path, str proc_root, str cgroup_root,
 *                   u8 real_actions, u8 hugepage_metric, params  -> 0 | -errno
 *   COMMIT          params                                -> 0 | -errno
 *   COMMIT_GOALS    params                                -> 0 | -errno
 *   STATS                                                 -> u32 n, n x 7 u64
 *   QUOTAS                                                -> u32 n, n x u64
 *   INTERVALS                                             -> u64 sample_us, u64 aggr_us
 *   WALK            (fd attached)                         -> 0 | -EBUSY
 *       later, on that fd: code 0 and u32 n, n x (u64 total_bytes, u32 nr,
 *       nr x (u64 start, u64 end, u32 nr_accesses, u32 age, u64 sz_filter_passed,
 *       u8 probe_hits[EMU_MAX_PROBES])),
 *       or code -ECANCELED
 *   STOP                                                  -> 0, then the process exits
 */
#ifndef DAMON_EMU_PROTO_H
#define DAMON_EMU_PROTO_H

#include "engine.h"
#include "params.h"

int proto_put_tried(struct emu_buf *b, const struct emu_tried_region *r);
int proto_get_tried(struct emu_reader *rd, struct emu_tried_region *r);

#endif
