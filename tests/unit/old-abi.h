/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a program built against libdamonctl 0.1 to 0.3 was compiled with: those releases'
 * structures that have since grown a size, copied from their header under names of their
 * own, and their functions bound to the symbol versions such a program references
 * (.symver on an undefined symbol: what the linker records for a program built then).
 * test-compat.c runs the library's compatibility versions (lib/compat.c) through them.
 */
#ifndef DAMONC_OLD_ABI_H
#define DAMONC_OLD_ABI_H

#include <stdint.h>

#include "damonctl/damonctl.h"

#define OLD_API(ret, name, api, node, args) \
	ret name args; \
	__asm__(".symver " #name "," #api "@" #node);

/* 0.1 */
struct old_meminfo {
	uint64_t total, free, available, anon;
	uint64_t anon_huge, shmem_huge, file_huge;
};
OLD_API(int, old_meminfo_read, damonctl_meminfo_read, LIBDAMONCTL_0.1,
	(struct damonctl_ctx *ctx, struct old_meminfo *m))
OLD_API(uint64_t, old_meminfo_used, damonctl_meminfo_used, LIBDAMONCTL_0.1,
	(const struct old_meminfo *m))
OLD_API(uint64_t, old_meminfo_huge, damonctl_meminfo_huge, LIBDAMONCTL_0.1,
	(const struct old_meminfo *m))
OLD_API(uint64_t, old_meminfo_hugepage_bp, damonctl_meminfo_hugepage_bp, LIBDAMONCTL_0.1,
	(const struct old_meminfo *m))

struct old_procevent {
	enum damonctl_procevent_kind kind;
	int pid, parent_pid, exit_code;
};
OLD_API(int, old_procevents_next, damonctl_procevents_next, LIBDAMONCTL_0.1,
	(struct damonctl_procevents *pe, struct old_procevent *ev))

#endif
