// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The files and directories of each directory kind, gated by the version tags of
 * docs/damon-abi.md §2, with the kernel's defaults and modes.
 */
#include <stdio.h>

#include "engine/engine.h"
#include "layout.h"
#include "state.h"

#define RW 0600
#define RO 0400

/* Plain typed files. */
#define F_UL(id, nm) static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_UL }
#define F_UL_EINVAL(id, nm) \
	static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_UL, .einval_all = true }
#define F_UINT(id, nm) static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_UINT }
#define F_INT(id, nm) static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_INT }
#define F_BOOL(id, nm) static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_BOOL }
#define F_KW(id, nm, set) \
	static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_KW, .kw = &(set) }
#define F_STR(id, nm) static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_STR }
#define F_RO_UL(id, nm) static const struct emu_fdef id = { .name = nm, .mode = RO, .type = VT_UL }
#define F_NR(id, nm, dk, mx) \
	static const struct emu_fdef id = { .name = nm, .mode = RW, .type = VT_SPECIAL, \
					    .special = FS_NR, .child = dk, .max = mx }

F_NR(fd_nr_kdamonds, "nr_kdamonds", DK_KDAMOND, 0);
static const struct emu_fdef fd_state = { .name = "state", .mode = RW, .type = VT_SPECIAL,
					  .special = FS_STATE };
static const struct emu_fdef fd_pid = { .name = "pid", .mode = RO, .type = VT_SPECIAL,
					.special = FS_PID };
F_UINT(fd_refresh_ms, "refresh_ms");
F_NR(fd_nr_contexts, "nr_contexts", DK_CONTEXT, 1);
static const struct emu_fdef fd_avail_ops = { .name = "avail_operations", .mode = RO,
					      .type = VT_SPECIAL, .special = FS_AVAIL_OPS };
F_KW(fd_operations, "operations", emu_kw_ops);
static const struct emu_fdef fd_addr_unit = { .name = "addr_unit", .mode = RW, .type = VT_UL,
					      .special = FS_NONZERO };
F_BOOL(fd_pause, "pause");
F_UL(fd_sample_us, "sample_us");
F_UL(fd_aggr_us, "aggr_us");
F_UL(fd_update_us, "update_us");
F_UL(fd_access_bp, "access_bp");
F_UL(fd_aggrs, "aggrs");
F_UL(fd_min_sample_us, "min_sample_us");
F_UL(fd_max_sample_us, "max_sample_us");
/*
 * damon_sysfs_ul_range (nr_regions, access_pattern ranges, sysfs-common.c) returns
 * kstrtoul's error as is: ERANGE on overflow (seen on 6.1, 6.12, 7.2 and 7.3 kernels).
 */
F_UL(fd_range_min, "min");
F_UL(fd_range_max, "max");
F_NR(fd_nr_probes, "nr_probes", DK_PROBE, 4);	/* DAMON_MAX_PROBES */
F_UINT(fd_probe_weight, "weight");	/* 7.3; kstrtouint's error as is */
F_NR(fd_nr_pfilters, "nr_filters", DK_PFILTER, 0);
F_KW(fd_pfilter_type, "type", emu_kw_probe_filter_types);
F_BOOL(fd_matching, "matching");
F_BOOL(fd_allow, "allow");
F_STR(fd_path, "path");
F_NR(fd_nr_targets, "nr_targets", DK_TARGET, 0);
static const struct emu_fdef fd_pid_target = { .name = "pid_target", .mode = RW, .type = VT_INT,
					       .einval_all = true };
F_BOOL(fd_obsolete, "obsolete_target");
F_NR(fd_nr_regions, "nr_regions", DK_REGION, 0);
F_UL(fd_start, "start");
F_UL(fd_end, "end");
F_NR(fd_nr_schemes, "nr_schemes", DK_SCHEME, 0);
F_KW(fd_action, "action", emu_kw_actions);
F_UL(fd_apply_interval, "apply_interval_us");
F_INT(fd_target_nid, "target_nid");
F_UL_EINVAL(fd_q_ms, "ms");
F_UL_EINVAL(fd_q_bytes, "bytes");
F_UL_EINVAL(fd_q_reset, "reset_interval_ms");
F_RO_UL(fd_q_effective, "effective_bytes");
F_KW(fd_q_tuner, "goal_tuner", emu_kw_goal_tuners);
static const struct emu_fdef fd_q_fc_num = { .name = "fail_charge_num", .mode = RW,
					     .type = VT_UINT, .einval_all = true };
static const struct emu_fdef fd_q_fc_denom = { .name = "fail_charge_denom", .mode = RW,
					       .type = VT_UINT, .einval_all = true };
F_UINT(fd_w_sz, "sz_permil");
F_UINT(fd_w_nr, "nr_accesses_permil");
F_UINT(fd_w_age, "age_permil");
F_NR(fd_nr_goals, "nr_goals", DK_GOAL, 0);
F_UL(fd_g_target, "target_value");
F_UL(fd_g_current, "current_value");
F_KW(fd_g_metric, "target_metric", emu_kw_goal_metrics);
F_INT(fd_g_nid, "nid");
F_KW(fd_wm_metric, "metric", emu_kw_wmark_metrics);
F_UL(fd_wm_interval, "interval_us");
F_UL(fd_wm_high, "high");
F_UL(fd_wm_mid, "mid");
F_UL(fd_wm_low, "low");
F_NR(fd_nr_filters, "nr_filters", DK_FILTER, 0);
static const struct emu_fdef fd_filter_type = { .name = "type", .mode = RW, .type = VT_KW,
						.kw = &emu_kw_filter_types,
						.special = FS_FILTER_TYPE };
F_STR(fd_memcg_path, "memcg_path");
F_UL(fd_addr_start, "addr_start");
F_UL(fd_addr_end, "addr_end");
F_INT(fd_target_idx, "damon_target_idx");
/* The filter's own min/max return kstrtoul's error as is (unlike ul_range). */
F_UL(fd_filter_min, "min");
F_UL(fd_filter_max, "max");
F_NR(fd_nr_dests, "nr_dests", DK_DEST, 0);
F_UINT(fd_dest_id, "id");
F_UINT(fd_dest_weight, "weight");
F_RO_UL(fd_nr_tried, "nr_tried");
F_RO_UL(fd_sz_tried, "sz_tried");
F_RO_UL(fd_nr_applied, "nr_applied");
F_RO_UL(fd_sz_applied, "sz_applied");
F_RO_UL(fd_sz_ops_passed, "sz_ops_filter_passed");
F_RO_UL(fd_qt_exceeds, "qt_exceeds");
F_RO_UL(fd_nr_snapshots, "nr_snapshots");
F_UL(fd_max_nr_snapshots, "max_nr_snapshots");
F_RO_UL(fd_total_bytes, "total_bytes");
const struct emu_fdef emu_fd_tr_start = { .name = "start", .mode = RO, .type = VT_UL };
const struct emu_fdef emu_fd_tr_end = { .name = "end", .mode = RO, .type = VT_UL };
const struct emu_fdef emu_fd_tr_nr_accesses = { .name = "nr_accesses", .mode = RO,
						.type = VT_UINT };
const struct emu_fdef emu_fd_tr_age = { .name = "age", .mode = RO, .type = VT_UINT };
const struct emu_fdef emu_fd_tr_sz_filter_passed = { .name = "sz_filter_passed", .mode = RO,
						     .type = VT_UL };
const struct emu_fdef emu_fd_tr_hits = { .name = "hits", .mode = RO, .type = VT_UINT };

static struct emu_node *file_u(struct emu_node *dir, const struct emu_fdef *fd, uint64_t v)
{
	struct emu_node *n = emu_node_new_file(dir, fd);

	n->v.u = v;
	return n;
}

static struct emu_node *file_i(struct emu_node *dir, const struct emu_fdef *fd, int64_t v)
{
	struct emu_node *n = emu_node_new_file(dir, fd);

	n->v.i = v;
	return n;
}

static struct emu_node *file_kw(struct emu_node *dir, const struct emu_fdef *fd, int kw)
{
	struct emu_node *n = emu_node_new_file(dir, fd);

	n->v.kw = kw;
	return n;
}

static struct emu_node *file(struct emu_node *dir, const struct emu_fdef *fd)
{
	return emu_node_new_file(dir, fd);
}

static void populate(struct emu_node *d);

static struct emu_node *subdir(struct emu_node *parent, const char *name, enum emu_dkind dk)
{
	struct emu_node *d = emu_node_new_dir(parent, name, dk);

	populate(d);
	return d;
}

static void range(struct emu_node *parent, const char *name, uint64_t min, uint64_t max)
{
	struct emu_node *d = emu_node_new_dir(parent, name, DK_RANGE);

	file_u(d, &fd_range_min, min);
	file_u(d, &fd_range_max, max);
}

/* A directory of numbered children: its nr_ file alone, whose writes make them. */
static void numbered_dir(struct emu_node *parent, const char *name, enum emu_dkind dk,
			 const struct emu_fdef *nr)
{
	file(emu_node_new_dir(parent, name, dk), nr);
}

static void populate_scheme(struct emu_node *d)
{
	file_kw(d, &fd_action, EMU_ACT_STAT);
	if (emu_since(EMU_V(6, 7)))
		file_u(d, &fd_apply_interval, 0);
	if (emu_since(EMU_V(6, 11)))
		file_i(d, &fd_target_nid, -1);	/* NUMA_NO_NODE */
	subdir(d, "access_pattern", DK_ACCESS_PATTERN);
	subdir(d, "quotas", DK_QUOTAS);
	subdir(d, "watermarks", DK_WMARKS);
	if (emu_since(EMU_V(6, 3)))
		numbered_dir(d, "filters", DK_FILTERS, &fd_nr_filters);
	if (emu_since(EMU_V(6, 15))) {
		numbered_dir(d, "core_filters", DK_FILTERS, &fd_nr_filters);
		numbered_dir(d, "ops_filters", DK_FILTERS, &fd_nr_filters);
	}
	if (emu_since(EMU_V(6, 17)))
		numbered_dir(d, "dests", DK_DESTS, &fd_nr_dests);
	subdir(d, "stats", DK_STATS);
	if (emu_since(EMU_V(6, 2)))
		subdir(d, "tried_regions", DK_TRIED);
}

static void populate_quotas(struct emu_node *d)
{
	file_u(d, &fd_q_ms, 0);
	file_u(d, &fd_q_bytes, 0);
	file_u(d, &fd_q_reset, 0);
	if (emu_since(EMU_V(6, 9)))
		file_u(d, &fd_q_effective, 0);
	if (emu_since(EMU_V(7, 1)))
		file_kw(d, &fd_q_tuner, EMU_TUNER_CONSIST);
	if (emu_since(EMU_V(7, 2))) {
		file_u(d, &fd_q_fc_num, 0);
		file_u(d, &fd_q_fc_denom, 0);
	}
	subdir(d, "weights", DK_WEIGHTS);
	if (emu_since(EMU_V(6, 8)))
		numbered_dir(d, "goals", DK_GOALS, &fd_nr_goals);
}

static void populate_goal(struct emu_node *d)
{
	file_u(d, &fd_g_target, 0);
	file_u(d, &fd_g_current, 0);
	if (emu_since(EMU_V(6, 9)))
		file_kw(d, &fd_g_metric, EMU_METRIC_USER_INPUT);
	if (emu_since(EMU_V(6, 16)))
		file_i(d, &fd_g_nid, 0);
	if (emu_since(EMU_V(6, 19)))
		file(d, &fd_path);
}

static void populate_filter(struct emu_node *d)
{
	/* zero-initialised in the kernel: anon even where the directory rejects writing it */
	file_kw(d, &fd_filter_type, EMU_FILTER_ANON);
	file(d, &fd_matching);
	if (emu_since(EMU_V(6, 14)))
		file(d, &fd_allow);
	file(d, &fd_memcg_path);
	if (emu_since(EMU_V(6, 6))) {
		file_u(d, &fd_addr_start, 0);
		file_u(d, &fd_addr_end, 0);
		file_i(d, &fd_target_idx, 0);
	}
	if (emu_since(EMU_V(6, 15))) {
		file_u(d, &fd_filter_min, 0);
		file_u(d, &fd_filter_max, 0);
	}
}

static void populate_stats(struct emu_node *d)
{
	file_u(d, &fd_nr_tried, 0);
	file_u(d, &fd_sz_tried, 0);
	file_u(d, &fd_nr_applied, 0);
	file_u(d, &fd_sz_applied, 0);
	if (emu_since(EMU_V(6, 14)))
		file_u(d, &fd_sz_ops_passed, 0);
	file_u(d, &fd_qt_exceeds, 0);
	if (emu_since(EMU_V(7, 0))) {
		file_u(d, &fd_nr_snapshots, 0);
		file_u(d, &fd_max_nr_snapshots, 0);
	}
}

/* The admin directory, a kdamond, its contexts and their targets. */
static void populate_kdamond_tree(struct emu_node *d)
{
	switch (d->dk) {
	case DK_ADMIN:
		numbered_dir(d, "kdamonds", DK_KDAMONDS, &fd_nr_kdamonds);
		break;
	case DK_KDAMOND:
		d->kd = emu_kd_new();
		file(d, &fd_state);
		file(d, &fd_pid);
		if (emu_since(EMU_V(6, 17)))
			file_u(d, &fd_refresh_ms, 0);
		numbered_dir(d, "contexts", DK_CONTEXTS, &fd_nr_contexts);
		break;
	case DK_CONTEXT:
		file(d, &fd_avail_ops);
		file_kw(d, &fd_operations, EMU_OPS_VADDR);
		if (emu_since(EMU_V(6, 18)))
			file_u(d, &fd_addr_unit, 1);
		if (emu_since(EMU_V(7, 2)))
			file(d, &fd_pause);
		subdir(d, "monitoring_attrs", DK_ATTRS);
		numbered_dir(d, "targets", DK_TARGETS, &fd_nr_targets);
		numbered_dir(d, "schemes", DK_SCHEMES, &fd_nr_schemes);
		break;
	case DK_TARGET:
		file_i(d, &fd_pid_target, 0);
		if (emu_since(EMU_V(6, 19)))
			file(d, &fd_obsolete);
		numbered_dir(d, "regions", DK_REGIONS, &fd_nr_regions);
		break;
	case DK_REGION:
		file_u(d, &fd_start, 0);
		file_u(d, &fd_end, 0);
		break;
	default:
		break;
	}
}

/* A context's monitoring attributes: the intervals and their goal, the probes (7.2). */
static void populate_monitoring_attrs(struct emu_node *d)
{
	switch (d->dk) {
	case DK_ATTRS:
		subdir(d, "intervals", DK_INTERVALS);
		range(d, "nr_regions", 10, 1000);
		if (emu_since(EMU_V(7, 2)))
			numbered_dir(d, "probes", DK_PROBES, &fd_nr_probes);
		break;
	case DK_INTERVALS:
		file_u(d, &fd_sample_us, 5000);
		file_u(d, &fd_aggr_us, 100000);
		file_u(d, &fd_update_us, 60000000);
		if (emu_since(EMU_V(6, 15)))
			subdir(d, "intervals_goal", DK_IGOAL);
		break;
	case DK_IGOAL:
		file_u(d, &fd_access_bp, 0);
		file_u(d, &fd_aggrs, 0);
		file_u(d, &fd_min_sample_us, 0);
		file_u(d, &fd_max_sample_us, 0);
		break;
	case DK_PROBE:
		if (emu_since(EMU_V(7, 3)))
			file_u(d, &fd_probe_weight, 0);	/* kzalloc'd */
		numbered_dir(d, "filters", DK_PFILTERS, &fd_nr_pfilters);
		break;
	case DK_PFILTER:
		file_kw(d, &fd_pfilter_type, EMU_FILTER_ANON);
		file(d, &fd_matching);
		file(d, &fd_allow);
		file(d, &fd_path);
		break;
	default:
		break;
	}
}

/* A scheme and what it holds. */
static void populate_scheme_tree(struct emu_node *d)
{
	switch (d->dk) {
	case DK_SCHEME:
		populate_scheme(d);
		break;
	case DK_ACCESS_PATTERN:
		range(d, "sz", 0, 0);
		range(d, "nr_accesses", 0, 0);
		range(d, "age", 0, 0);
		break;
	case DK_QUOTAS:
		populate_quotas(d);
		break;
	case DK_WEIGHTS:
		file_u(d, &fd_w_sz, 0);
		file_u(d, &fd_w_nr, 0);
		file_u(d, &fd_w_age, 0);
		break;
	case DK_GOAL:
		populate_goal(d);
		break;
	case DK_WMARKS:
		file_kw(d, &fd_wm_metric, EMU_WMARK_NONE);
		file_u(d, &fd_wm_interval, 0);
		file_u(d, &fd_wm_high, 0);
		file_u(d, &fd_wm_mid, 0);
		file_u(d, &fd_wm_low, 0);
		break;
	case DK_FILTER:
		populate_filter(d);
		break;
	case DK_DEST:
		file_u(d, &fd_dest_id, 0);
		file_u(d, &fd_dest_weight, 0);
		break;
	case DK_STATS:
		populate_stats(d);
		break;
	case DK_TRIED:
		if (emu_since(EMU_V(6, 6)))
			file_u(d, &fd_total_bytes, 0);
		break;
	default:
		break;
	}
}

/* The files and subdirectories of a new directory, by its kind. Every kind is named here,
 * so that the compiler tells of a new one (-Wswitch). */
static void populate(struct emu_node *d)
{
	switch (d->dk) {
	case DK_ADMIN:
	case DK_KDAMOND:
	case DK_CONTEXT:
	case DK_TARGET:
	case DK_REGION:
		populate_kdamond_tree(d);
		break;
	case DK_ATTRS:
	case DK_INTERVALS:
	case DK_IGOAL:
	case DK_PROBE:
	case DK_PFILTER:
		populate_monitoring_attrs(d);
		break;
	case DK_SCHEME:
	case DK_ACCESS_PATTERN:
	case DK_QUOTAS:
	case DK_WEIGHTS:
	case DK_GOAL:
	case DK_WMARKS:
	case DK_FILTER:
	case DK_DEST:
	case DK_STATS:
	case DK_TRIED:
		populate_scheme_tree(d);
		break;
	case DK_KDAMONDS:
	case DK_CONTEXTS:
	case DK_PROBES:
	case DK_PFILTERS:
	case DK_TARGETS:
	case DK_REGIONS:
	case DK_SCHEMES:
	case DK_GOALS:
	case DK_FILTERS:
	case DK_DESTS:
	case DK_RANGE:
	case DK_TREGION:
	case DK_TRPROBES:
	case DK_TRPROBE:
		/* filled by their creators (numbered_dir(), range(), results.c) */
		break;
	}
}

struct emu_node *emu_layout_new_root(void)
{
	struct emu_node *root = emu_node_new_dir(NULL, "admin", DK_ADMIN);

	populate(root);
	return root;
}

struct emu_node *emu_layout_add_numbered(struct emu_node *dir, enum emu_dkind dk, int i)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", i);
	return subdir(dir, name, dk);
}
