// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DAMOS actions.
 *
 * vaddr/fvaddr, as mm/damon/vaddr.c:
 *   willneed, cold, pageout, collapse: process_madvise(2) when real actions are on; applied
 *       is the region size if the call succeeded, else 0 (a range with unmapped holes fails
 *       with ENOMEM, as madvise does). Needs CAP_SYS_NICE over the target: without it, the
 *       call fails and nothing is applied (reported once on stderr).
 *   hugepage, nohugepage: process_madvise() does not accept them, so they, and the four above
 *       when real actions are off, are counted only: applied is the region size when the
 *       whole range is mapped (when madvise would have succeeded), else 0.
 *   migrate_hot, migrate_cold: the emulated machine has one node, where the pages already
 *       are, so nothing is migrated (applied 0), as the kernel does for an invalid node.
 *   stat: applies nothing; with ops filters it counts the present bytes they let through.
 *   lru_prio, lru_deprio: not supported by vaddr: tried, 0 applied.
 * paddr, as mm/damon/paddr.c, on emulated physical memory (every page present, see
 * filters.h for its properties):
 *   pageout, lru_prio, lru_deprio: counted only; every page the ops filters let through
 *       counts as applied (and as sz_filter_passed). pageout, like the kernel's, also
 *       skips young pages (the scenario's share of accessed pages) unless the scheme has
 *       a young filter of its own.
 *   migrate_hot, migrate_cold: sz_filter_passed counted, 0 applied.
 *   stat: sz_filter_passed counted when there are ops filters, 0 applied.
 *   the madvise actions: not supported by paddr: tried, 0 applied.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "actions.h"
#include "filters.h"
#include "util.h"
#include "vaddr.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

bool actions_supported(enum emu_ops ops, enum emu_action a)
{
	switch (a) {
	case EMU_ACT_WILLNEED:
	case EMU_ACT_COLD:
	case EMU_ACT_HUGEPAGE:
	case EMU_ACT_NOHUGEPAGE:
	case EMU_ACT_COLLAPSE:
		return mon_ops_is_va(ops);
	case EMU_ACT_LRU_PRIO:
	case EMU_ACT_LRU_DEPRIO:
		return ops == EMU_OPS_PADDR;
	case EMU_ACT_PAGEOUT:
	case EMU_ACT_MIGRATE_HOT:
	case EMU_ACT_MIGRATE_COLD:
	case EMU_ACT_STAT:
		return true;
	}
	return false;
}

static int madvise_advice(enum emu_action a)
{
	switch (a) {
	case EMU_ACT_WILLNEED:
		return MADV_WILLNEED;
	case EMU_ACT_COLD:
		return MADV_COLD;
	case EMU_ACT_PAGEOUT:
		return MADV_PAGEOUT;
	case EMU_ACT_COLLAPSE:
		return MADV_COLLAPSE;
	default:
		return -1;	/* not accepted by process_madvise() */
	}
}

static uint64_t va_madvise(struct mon_ctx *c, struct mon_target *t, const struct mon_region *r,
			   enum emu_action a)
{
	uint64_t start = emu_align_up(r->start, c->page_size);
	uint64_t len = emu_align_up(mon_region_sz(r), c->page_size);
	int advice = madvise_advice(a);

	if (!va_target_valid(t))
		return 0;
	if (c->real_actions && advice >= 0) {
		struct iovec iov = { .iov_base = (void *)(uintptr_t)start, .iov_len = len };
		long ret;

		if (t->pidfd < 0)
			return 0;	/* no pidfd, no process_madvise(): nothing done */
		ret = syscall(SYS_process_madvise, t->pidfd, &iov, 1, advice, 0);

		if (ret < 0 && (errno == EPERM || errno == ENOSYS) && !c->warned_madvise) {
			c->warned_madvise = true;
			fprintf(stderr, "damon-emu: process_madvise(pid %d): %m; real actions "
				"apply nothing\n", (int)t->pid);
		}
		return ret == (long)len ? len : 0;
	}
	va_refresh_vmas(c, t, c->attrs.aggr_us);
	return va_range_mapped(t, start, start + len) ? len : 0;
}

uint64_t actions_apply(struct mon_ctx *c, int ti, size_t ri, struct mon_scheme *s,
		       uint64_t *sz_filter_passed)
{
	struct mon_target *t = &c->targets[ti];
	const struct mon_region *r = &t->regions[ri];
	enum emu_action a = s->p.action;

	*sz_filter_passed = 0;
	if (!actions_supported(c->ops, a))
		return 0;
	if (mon_ops_is_va(c->ops)) {
		switch (a) {
		case EMU_ACT_STAT:
			if (filters_has_ops(s))
				*sz_filter_passed = filters_passed_bytes(c, t, r->start, r->end, s,
									 false);
			return 0;
		case EMU_ACT_MIGRATE_HOT:
		case EMU_ACT_MIGRATE_COLD:
			return 0;
		default:
			return va_madvise(c, t, r, a);
		}
	}
	if (a == EMU_ACT_STAT && !filters_has_ops(s))
		return 0;
	*sz_filter_passed = filters_passed_bytes(c, t, r->start, r->end, s,
						 a == EMU_ACT_PAGEOUT);
	switch (a) {
	case EMU_ACT_PAGEOUT:
	case EMU_ACT_LRU_PRIO:
	case EMU_ACT_LRU_DEPRIO:
		return *sz_filter_passed;
	default:
		return 0;
	}
}
