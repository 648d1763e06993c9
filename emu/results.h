/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Copying engine results into the files of context @ctx, as the kernel's update_* handlers
 * do: by scheme index, up to the smaller of the running and the sysfs scheme counts.
 * Caller holds emu_tree_lock (and emu_sysfs_lock where the tree changes shape).
 */
#ifndef DAMON_EMU_RESULTS_H
#define DAMON_EMU_RESULTS_H

#include <stddef.h>

#include "engine/engine.h"
#include "tree.h"

void emu_results_stats(struct emu_node *ctx, int n, const struct emu_scheme_stats *st);
void emu_results_quotas(struct emu_node *ctx, int n, const uint64_t *bytes);
void emu_results_intervals(struct emu_node *ctx, uint64_t sample_us, uint64_t aggr_us);
void emu_results_clear_tried(struct emu_node *ctx);
void emu_results_tried(struct emu_node *ctx, int n, struct emu_tried_region **regions,
		       const size_t *nr, const uint64_t *total, bool bytes_only, int nr_probes);

#endif
