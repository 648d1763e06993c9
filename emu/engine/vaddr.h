/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The virtual address space operations (vaddr, fvaddr): target processes, their mappings
 * from /proc/PID/maps, and the kernel's "three regions" initial layout (mm/damon/vaddr.c).
 */
#ifndef DAMON_EMU_VADDR_H
#define DAMON_EMU_VADDR_H

#include "ctx.h"
#include "regions.h"

static inline bool mon_ops_is_va(enum emu_ops ops)
{
	return ops == EMU_OPS_VADDR || ops == EMU_OPS_FVADDR;
}

/* Gets a pidfd for the target's process (t->pidfd = -1 if it does not exist). */
void va_open_target(struct mon_target *t);
void va_close_target(struct mon_target *t);
/* The process still runs (exited processes, zombies included, are gone for DAMON). */
bool va_target_valid(const struct mon_target *t);

/* Parses <proc_root>/PID/maps. Returns 0 or -errno. */
int va_read_vmas(const char *proc_root, pid_t pid, struct mon_vma **vmas, size_t *n);
/* Re-reads the mappings of @t if they are older than @max_age_us. */
void va_refresh_vmas(struct mon_ctx *c, struct mon_target *t, uint64_t max_age_us);
/*
 * The three ranges that cover the mappings apart from the two biggest gaps. Returns 0, or
 * -EINVAL when there are not two gaps.
 */
int va_three_regions(const struct mon_vma *vmas, size_t n, uint64_t align,
		     struct mon_range out[3]);

/* kdamond start (damon_va_init): three regions for targets that have none. */
void va_init(struct mon_ctx *c);
/* every update_us (damon_va_update): refit all targets to their current mappings. */
void va_update(struct mon_ctx *c);

/* A sample at @addr can see an access: the address is mapped, and not PROT_NONE. */
bool va_addr_accessible(const struct mon_target *t, uint64_t addr);
/* Every byte of [start, end) is mapped (what madvise() needs to not fail with ENOMEM). */
bool va_range_mapped(const struct mon_target *t, uint64_t start, uint64_t end);
/* The mapping containing @addr, or NULL. */
const struct mon_vma *va_vma_at(const struct mon_target *t, uint64_t addr);
/* cgroup v2 path of the process ("/" if unknown), cached. */
const char *va_target_memcg(struct mon_ctx *c, struct mon_target *t);

#endif
