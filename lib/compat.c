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

/* ---- records (0.1; the merger 0.2, the capture 0.3): items held their structs ---- */

struct rec_snapshot_v0_1 {
	uint32_t kdamond, context;
	int32_t target, scheme;
	uint64_t start_ns, end_ns;
	uint64_t sample_us, aggr_us, update_us;
	uint64_t total_bytes;
	bool has_sz_filter_passed;
	uint32_t nr_regions;
	const struct damonctl_rec_region *regions;
};

#define REC_NR_STATS_V0_1 8

struct rec_stats_v0_1 {
	uint64_t time_ns;
	uint32_t kdamond, context, scheme;
	uint32_t has;
	uint64_t v[REC_NR_STATS_V0_1];
	char action[24];
};

struct rec_end_v0_1 {
	uint64_t time_ns;
	uint64_t nr_snapshots;
	enum damonctl_rec_end_reason reason;
};

struct rec_item_v0_1 {
	enum damonctl_rec_item_type type;
	const char *json;
	uint64_t time_ns;
	struct rec_snapshot_v0_1 snapshot;
	struct rec_stats_v0_1 stats;
	struct rec_end_v0_1 end;
};

static struct rec_snapshot_v0_1 snapshot_to_v0_1(const struct damonctl_rec_snapshot *s)
{
	return (struct rec_snapshot_v0_1){
		.kdamond = s->kdamond, .context = s->context, .target = s->target,
		.scheme = s->scheme, .start_ns = s->start_ns, .end_ns = s->end_ns,
		.sample_us = s->sample_us, .aggr_us = s->aggr_us, .update_us = s->update_us,
		.total_bytes = s->total_bytes, .has_sz_filter_passed = s->has_sz_filter_passed,
		.nr_regions = s->nr_regions, .regions = s->regions,
	};
}

static struct damonctl_rec_snapshot snapshot_from_v0_1(const struct rec_snapshot_v0_1 *o)
{
	return (struct damonctl_rec_snapshot){
		.sz = sizeof(struct damonctl_rec_snapshot), .kdamond = o->kdamond,
		.context = o->context, .target = o->target, .scheme = o->scheme,
		.start_ns = o->start_ns, .end_ns = o->end_ns, .sample_us = o->sample_us,
		.aggr_us = o->aggr_us, .update_us = o->update_us, .total_bytes = o->total_bytes,
		.has_sz_filter_passed = o->has_sz_filter_passed, .nr_regions = o->nr_regions,
		.regions = o->regions,
	};
}

/* The old struct has the first 8 values: the bits of later ones go */
static struct rec_stats_v0_1 stats_to_v0_1(const struct damonctl_rec_stats *st)
{
	struct rec_stats_v0_1 o = {
		.time_ns = st->time_ns, .kdamond = st->kdamond, .context = st->context,
		.scheme = st->scheme, .has = st->has & ((1u << REC_NR_STATS_V0_1) - 1),
	};

	memcpy(o.v, st->v, sizeof(o.v));
	memcpy(o.action, st->action, sizeof(o.action));
	return o;
}

static struct damonctl_rec_stats stats_from_v0_1(const struct rec_stats_v0_1 *o)
{
	struct damonctl_rec_stats st = {
		.sz = sizeof(st), .time_ns = o->time_ns, .kdamond = o->kdamond,
		.context = o->context, .scheme = o->scheme, .has = o->has,
	};

	memcpy(st.v, o->v, sizeof(o->v));
	memcpy(st.action, o->action, sizeof(st.action));
	return st;
}

/* An item as the old reader gave it: every struct of the other types zeroed. */
static void item_to_v0_1(const struct damonctl_rec_item *it, struct rec_item_v0_1 *o)
{
	memset(o, 0, sizeof(*o));
	o->type = it->type;
	o->json = it->json;
	o->time_ns = it->time_ns;
	if (it->snapshot)
		o->snapshot = snapshot_to_v0_1(it->snapshot);
	if (it->stats)
		o->stats = stats_to_v0_1(it->stats);
	if (it->end)
		o->end = (struct rec_end_v0_1){ it->end->time_ns, it->end->nr_snapshots,
						it->end->reason };
}

DAMONCTL_API int damonctl_rec_next_v0_1(struct damonctl_rec_reader *r, struct rec_item_v0_1 *o)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int ret = damonctl_rec_next(r, &it);

	if (ret == 1)
		item_to_v0_1(&it, o);
	return ret;
}
DCTL_COMPAT_VERSION(damonctl_rec_next_v0_1, damonctl_rec_next, LIBDAMONCTL_0.1)

DAMONCTL_API int damonctl_rec_write_snapshot_v0_1(struct damonctl_rec_writer *w,
						  const struct rec_snapshot_v0_1 *o)
{
	struct damonctl_rec_snapshot s = snapshot_from_v0_1(o);

	return damonctl_rec_write_snapshot(w, &s);
}
DCTL_COMPAT_VERSION(damonctl_rec_write_snapshot_v0_1, damonctl_rec_write_snapshot,
		    LIBDAMONCTL_0.1)

DAMONCTL_API int damonctl_rec_write_stats_v0_1(struct damonctl_rec_writer *w,
					       const struct rec_stats_v0_1 *o)
{
	struct damonctl_rec_stats st = stats_from_v0_1(o);

	return damonctl_rec_write_stats(w, &st);
}
DCTL_COMPAT_VERSION(damonctl_rec_write_stats_v0_1, damonctl_rec_write_stats, LIBDAMONCTL_0.1)

DAMONCTL_API int damonctl_rec_merger_add_v0_2(struct damonctl_rec_merger *m,
					      const struct rec_snapshot_v0_1 *o,
					      struct rec_snapshot_v0_1 *out)
{
	const struct damonctl_rec_snapshot *merged;
	struct damonctl_rec_snapshot s;
	int r;

	if (!o || !out)
		return -EINVAL;
	s = snapshot_from_v0_1(o);
	r = damonctl_rec_merger_add(m, &s, &merged);
	if (r == 1)
		*out = snapshot_to_v0_1(merged);
	return r;
}
DCTL_COMPAT_VERSION(damonctl_rec_merger_add_v0_2, damonctl_rec_merger_add, LIBDAMONCTL_0.2)

DAMONCTL_API int damonctl_rec_merger_flush_v0_2(struct damonctl_rec_merger *m,
						struct rec_snapshot_v0_1 *out)
{
	const struct damonctl_rec_snapshot *merged;
	int r;

	if (!out)
		return -EINVAL;
	r = damonctl_rec_merger_flush(m, &merged);
	if (r == 1)
		*out = snapshot_to_v0_1(merged);
	return r;
}
DCTL_COMPAT_VERSION(damonctl_rec_merger_flush_v0_2, damonctl_rec_merger_flush, LIBDAMONCTL_0.2)

DAMONCTL_API int damonctl_capture_next_v0_3(struct damonctl_capture *c, struct rec_item_v0_1 *o)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	int ret = damonctl_capture_next(c, &it);

	if (ret == 1)
		item_to_v0_1(&it, o);
	return ret;
}
DCTL_COMPAT_VERSION(damonctl_capture_next_v0_3, damonctl_capture_next, LIBDAMONCTL_0.3)
