/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From staged files to struct emu_ctx_params, with the kernel's validation in its order
 * (docs/damon-abi.md §4): steps 1-5 here; 6 (damon_commit_ctx) and 7 (damon_start) in
 * emu_check_commit()/emu_check_start().
 */
#ifndef DAMON_EMU_BUILD_H
#define DAMON_EMU_BUILD_H

#include "engine/engine.h"
#include "tree.h"

struct emu_built {
	struct emu_ctx_params *p;
	unsigned long min_region_sz;	/* ctx->min_region_sz as the kernel computes it */
};

/* Build the parameters of context directory @ctx; 0 or -errno (nothing to free then). */
int emu_build_params(struct emu_node *ctx, struct emu_built *out);
/*
 * commit_schemes_quota_goals: the goals of the first @nr_schemes schemes only (the kernel
 * walks the running context's schemes), memcg lookups returning their own error.
 */
int emu_build_goals(struct emu_node *ctx, int nr_schemes, struct emu_built *out);
void emu_built_free(struct emu_built *b);

/* damon_start(): power-of-2 minimum region size, then exclusive DAMON users. */
int emu_check_start(const struct emu_built *b);
/*
 * damon_commit_ctx() against a running context that has @nr_cur_targets targets:
 * power-of-2 size, node_eligible_mem_bp needing paddr, obsolete targets with no match.
 */
int emu_check_commit(const struct emu_built *b, int nr_cur_targets);
/* Number of targets a successful commit leaves in a context that had @nr_cur. */
int emu_targets_after_commit(const struct emu_ctx_params *p, int nr_cur);

#endif
