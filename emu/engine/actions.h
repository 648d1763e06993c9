/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Carrying out DAMOS actions. With real actions on, vaddr/fvaddr willneed, cold, pageout and
 * collapse go to the target through process_madvise(2), synchronously, as the kernel's vaddr
 * operations call madvise; the applied size is what the call really did (all or nothing per
 * region, like the kernel's damos_madvise()). Everything else is counted only: see actions.c.
 */
#ifndef DAMON_EMU_ACTIONS_H
#define DAMON_EMU_ACTIONS_H

#include "ctx.h"

/* Whether operations set @ops implements action @a (ABI §5). */
bool actions_supported(enum emu_ops ops, enum emu_action a);
/*
 * Applies the action of @s to region @ri of target @ti. Returns the bytes (core address
 * units) applied; sets *sz_filter_passed as the operations set does.
 */
uint64_t actions_apply(struct mon_ctx *c, int ti, size_t ri, struct mon_scheme *s,
		       uint64_t *sz_filter_passed);

#endif
