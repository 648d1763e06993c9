// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Binaries built against releases 0.1 to 0.3 of the library, before its structures had a
 * size first: the layouts they were built with, and the functions of those releases that
 * take them, each keeping its old symbol version (libdamonctl.map) and converting to and
 * from the current function, the default version. Nothing else in the library knows these
 * layouts. tests/unit/compat-test runs a program built against them.
 */
#include <errno.h>

#include "internal.h"

/* ---- memory figures (0.1) ---- */

struct meminfo_v0_1 {
	uint64_t total, free, available, anon;
	uint64_t anon_huge, shmem_huge, file_huge;
};

static struct damonctl_meminfo meminfo_from_v0_1(const struct meminfo_v0_1 *o)
{
	return (struct damonctl_meminfo){
		.sz = sizeof(struct damonctl_meminfo), .total = o->total, .free = o->free,
		.available = o->available, .anon = o->anon, .anon_huge = o->anon_huge,
		.shmem_huge = o->shmem_huge, .file_huge = o->file_huge,
	};
}

DAMONCTL_API int damonctl_meminfo_read_v0_1(struct damonctl_ctx *ctx, struct meminfo_v0_1 *o)
{
	struct damonctl_meminfo m = DAMONCTL_MEMINFO_INIT;
	int r = damonctl_meminfo_read(ctx, &m);

	if (!r)
		*o = (struct meminfo_v0_1){ m.total, m.free, m.available, m.anon, m.anon_huge,
					    m.shmem_huge, m.file_huge };
	return r;
}
DCTL_COMPAT_VERSION(damonctl_meminfo_read_v0_1, damonctl_meminfo_read, LIBDAMONCTL_0.1)

DAMONCTL_API uint64_t damonctl_meminfo_used_v0_1(const struct meminfo_v0_1 *o)
{
	struct damonctl_meminfo m = meminfo_from_v0_1(o);

	return damonctl_meminfo_used(&m);
}
DCTL_COMPAT_VERSION(damonctl_meminfo_used_v0_1, damonctl_meminfo_used, LIBDAMONCTL_0.1)

DAMONCTL_API uint64_t damonctl_meminfo_huge_v0_1(const struct meminfo_v0_1 *o)
{
	struct damonctl_meminfo m = meminfo_from_v0_1(o);

	return damonctl_meminfo_huge(&m);
}
DCTL_COMPAT_VERSION(damonctl_meminfo_huge_v0_1, damonctl_meminfo_huge, LIBDAMONCTL_0.1)

DAMONCTL_API uint64_t damonctl_meminfo_hugepage_bp_v0_1(const struct meminfo_v0_1 *o)
{
	struct damonctl_meminfo m = meminfo_from_v0_1(o);

	return damonctl_meminfo_hugepage_bp(&m);
}
DCTL_COMPAT_VERSION(damonctl_meminfo_hugepage_bp_v0_1, damonctl_meminfo_hugepage_bp,
		    LIBDAMONCTL_0.1)

/* ---- process events (0.1) ---- */

struct procevent_v0_1 {
	enum damonctl_procevent_kind kind;
	int pid, parent_pid, exit_code;
};

DAMONCTL_API int damonctl_procevents_next_v0_1(struct damonctl_procevents *pe,
					       struct procevent_v0_1 *o)
{
	struct damonctl_procevent ev = DAMONCTL_PROCEVENT_INIT;
	int r = damonctl_procevents_next(pe, &ev);

	if (r == 1)
		*o = (struct procevent_v0_1){ ev.kind, ev.pid, ev.parent_pid, ev.exit_code };
	return r;
}
DCTL_COMPAT_VERSION(damonctl_procevents_next_v0_1, damonctl_procevents_next, LIBDAMONCTL_0.1)
