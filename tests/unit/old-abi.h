/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a program built against libdamonctl 0.1 to 0.3 was compiled with: those releases'
 * structures that have since grown a size, copied from their header under names of their
 * own, and their functions bound to the symbol versions such a program references
 * (.symver on an undefined symbol: what the linker records for a program built then).
 * test-compat.c runs the library's compatibility versions (lib/compat.c) through them,
 * and tests/record/capture-lib.c built with DAMONCTL_OLD_ABI the capture's.
 */
#ifndef DAMONC_OLD_ABI_H
#define DAMONC_OLD_ABI_H

#include <stdbool.h>
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

/* records (0.1), the merger (0.2), the capture (0.3) */
struct old_rec_snapshot {
	uint32_t kdamond, context;
	int32_t target;
	int32_t scheme;
	uint64_t start_ns, end_ns;
	uint64_t sample_us, aggr_us, update_us;
	uint64_t total_bytes;
	bool has_sz_filter_passed;
	uint32_t nr_regions;
	const struct damonctl_rec_region *regions;
};
struct old_rec_stats {
	uint64_t time_ns;
	uint32_t kdamond, context, scheme;
	uint32_t has;
	uint64_t v[8];
	char action[24];
};
struct old_rec_end {
	uint64_t time_ns;
	uint64_t nr_snapshots;
	enum damonctl_rec_end_reason reason;
};
struct old_rec_item {
	enum damonctl_rec_item_type type;
	const char *json;
	uint64_t time_ns;
	struct old_rec_snapshot snapshot;
	struct old_rec_stats stats;
	struct old_rec_end end;
};
OLD_API(int, old_rec_next, damonctl_rec_next, LIBDAMONCTL_0.1,
	(struct damonctl_rec_reader *r, struct old_rec_item *item))
OLD_API(int, old_rec_write_snapshot, damonctl_rec_write_snapshot, LIBDAMONCTL_0.1,
	(struct damonctl_rec_writer *w, const struct old_rec_snapshot *s))
OLD_API(int, old_rec_write_stats, damonctl_rec_write_stats, LIBDAMONCTL_0.1,
	(struct damonctl_rec_writer *w, const struct old_rec_stats *st))
OLD_API(int, old_rec_merger_add, damonctl_rec_merger_add, LIBDAMONCTL_0.2,
	(struct damonctl_rec_merger *m, const struct old_rec_snapshot *s,
	 struct old_rec_snapshot *out))
OLD_API(int, old_rec_merger_flush, damonctl_rec_merger_flush, LIBDAMONCTL_0.2,
	(struct damonctl_rec_merger *m, struct old_rec_snapshot *out))
OLD_API(int, old_capture_next, damonctl_capture_next, LIBDAMONCTL_0.3,
	(struct damonctl_capture *c, struct old_rec_item *item))

#endif
