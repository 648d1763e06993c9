/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damon-emu: the interface between the sysfs tree (tree.c and friends, which own the files,
 * their parsing and the validation done at `on`/`commit`) and the engine (kdamond.c and
 * friends, which own the running "kdamond.N" process: monitoring, schemes, quotas, tuners,
 * actions, stats and tried regions).
 *
 * The tree builds a `struct emu_ctx_params` from the staged files at `on`/`commit`, after all
 * the validation the kernel does in sysfs.c/core.c (so the engine may trust it), and hands
 * it to the engine. Results come back through the query functions below and are copied into
 * the files by the tree, which is what the kernel's `update_*` commands do.
 *
 * This emulator shares no code with libdamonctl: it is an independent implementation of the
 * ABI in ../shared/damon-abi.md, read off the kernel's own sources.
 */
#ifndef DAMON_EMU_ENGINE_H
#define DAMON_EMU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Keyword enums, in the kernel's own order (sysfs name tables). */
enum emu_ops { EMU_OPS_VADDR, EMU_OPS_FVADDR, EMU_OPS_PADDR };

enum emu_action {
	EMU_ACT_WILLNEED, EMU_ACT_COLD, EMU_ACT_PAGEOUT, EMU_ACT_HUGEPAGE,
	EMU_ACT_NOHUGEPAGE, EMU_ACT_COLLAPSE, EMU_ACT_LRU_PRIO, EMU_ACT_LRU_DEPRIO,
	EMU_ACT_MIGRATE_HOT, EMU_ACT_MIGRATE_COLD, EMU_ACT_STAT,
};

enum emu_filter_type {
	EMU_FILTER_ANON, EMU_FILTER_ACTIVE, EMU_FILTER_MEMCG, EMU_FILTER_YOUNG,
	EMU_FILTER_HUGEPAGE_SIZE, EMU_FILTER_UNMAPPED, EMU_FILTER_ADDR, EMU_FILTER_TARGET,
};

/* Which directory a filter came from; evaluation order is core, ops, then legacy. */
enum emu_filter_dir { EMU_FDIR_CORE, EMU_FDIR_OPS, EMU_FDIR_LEGACY };

enum emu_goal_metric {
	EMU_METRIC_USER_INPUT, EMU_METRIC_SOME_MEM_PSI_US, EMU_METRIC_NODE_MEM_USED_BP,
	EMU_METRIC_NODE_MEM_FREE_BP, EMU_METRIC_NODE_MEMCG_USED_BP,
	EMU_METRIC_NODE_MEMCG_FREE_BP, EMU_METRIC_ACTIVE_MEM_BP, EMU_METRIC_INACTIVE_MEM_BP,
	EMU_METRIC_NODE_ELIGIBLE_MEM_BP, EMU_METRIC_HUGEPAGE_MEM_BP,
};

enum emu_goal_tuner { EMU_TUNER_CONSIST, EMU_TUNER_TEMPORAL };

enum emu_wmark_metric { EMU_WMARK_NONE, EMU_WMARK_FREE_MEM_RATE };

struct emu_range { uint64_t min, max; };
struct emu_region { uint64_t start, end; };

struct emu_goal {
	enum emu_goal_metric metric;
	uint64_t target_value;
	uint64_t current_value;
	int nid;
	char path[256];
};

struct emu_filter {
	enum emu_filter_dir dir;
	enum emu_filter_type type;
	bool matching;
	bool allow;
	char memcg_path[256];
	uint64_t addr_start, addr_end;	/* half-open */
	unsigned int target_idx;
	uint64_t min, max;		/* hugepage_size, closed */
};

struct emu_dest { unsigned int id, weight; };

/*
 * A monitoring probe (7.2, monitoring_attrs/probes/<P>): counts, per region, the sampled
 * accesses that hit memory passing its filters (type anon or memcg only; dir is unused).
 */
#define EMU_MAX_PROBES 4
struct emu_probe {
	int nr_filters;
	struct emu_filter *filters;
};

struct emu_scheme {
	enum emu_action action;
	uint64_t apply_interval_us;	/* 0: aggr_us */
	int target_nid;
	struct emu_range sz, nr_accesses, age;	/* nr_accesses in samples, age in aggrs */
	/* quotas */
	uint64_t quota_ms, quota_bytes, quota_reset_interval_ms;
	unsigned int fail_charge_num, fail_charge_denom;
	unsigned int weight_sz, weight_nr_accesses, weight_age;	/* permil */
	enum emu_goal_tuner goal_tuner;
	int nr_goals;
	struct emu_goal *goals;
	/* watermarks */
	enum emu_wmark_metric wmark_metric;
	uint64_t wmark_interval_us, wmark_high, wmark_mid, wmark_low;
	/* filters, already in evaluation order (core, ops, legacy; numeric within each) */
	int nr_filters;
	struct emu_filter *filters;
	int nr_dests;
	struct emu_dest *dests;
	uint64_t max_nr_snapshots;	/* 0: unlimited */
};

struct emu_target {
	pid_t pid;			/* vaddr/fvaddr; ignored by paddr */
	bool obsolete;
	int nr_regions;
	struct emu_region *regions;	/* validated: sorted, non-overlapping */
};

struct emu_ctx_params {
	enum emu_ops ops;
	uint64_t addr_unit;
	bool pause;
	uint64_t sample_us, aggr_us, update_us;
	/* intervals_goal; aggrs == 0 means no auto-tuning */
	uint64_t goal_access_bp, goal_aggrs, goal_min_sample_us, goal_max_sample_us;
	uint64_t min_nr_regions, max_nr_regions;
	int nr_targets;
	struct emu_target *targets;
	int nr_schemes;
	struct emu_scheme *schemes;
	int nr_probes;			/* 0..EMU_MAX_PROBES; always 0 before 7.2 */
	struct emu_probe *probes;
};

/* What the engine can be told at mount time (damon-emu options). */
struct emu_engine_opts {
	const char *scenario_path;	/* access-rate scenario file; NULL: nothing is accessed */
	const char *proc_root;		/* "/proc" normally: maps, meminfo, pressure */
	bool real_actions;		/* carry out collapse/pageout/cold/willneed for real */
	bool hugepage_metric;		/* the profile has hugepage_mem_bp (the `next` profile) */
	const char *cgroup_root;	/* for node_memcg_* goals; NULL: /sys/fs/cgroup */
};

struct emu_scheme_stats {
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied;
	uint64_t sz_ops_filter_passed, qt_exceeds, nr_snapshots;
};

struct emu_tried_region {
	uint64_t start, end;
	unsigned int nr_accesses, age;
	uint64_t sz_filter_passed;
	uint8_t probe_hits[EMU_MAX_PROBES];	/* tried_regions/<R>/probes/<P>/hits (7.2) */
};

struct emu_kdamond;

/*
 * The kdamond is a separate process: emu_kdamond_start() forks and immediately re-executes
 * the damon-emu binary (/proc/self/exe) as `damon-emu --kdamond-child FD` (fork without exec
 * is unsafe in the multi-threaded FUSE daemon), and the child names itself "kdamond.N" with
 * prctl(PR_SET_NAME). main() hands such an invocation to this function and exits with its
 * return value. @fd is the child's end of the channel to the daemon.
 */
int emu_kdamond_child_main(int fd);

/* Deep copy / free of params (the engine keeps its own copy). */
struct emu_ctx_params *emu_params_dup(const struct emu_ctx_params *p);
void emu_params_free(struct emu_ctx_params *p);

/*
 * Start a kdamond: fork a process named @name ("kdamond.N") that runs the monitoring loop.
 * Returns 0 or -errno; *out is set only on success.
 */
int emu_kdamond_start(const struct emu_ctx_params *p, const char *name,
		      const struct emu_engine_opts *opts, struct emu_kdamond **out);
pid_t emu_kdamond_pid(const struct emu_kdamond *k);
/* Non-blocking: reaps the process if it exited by itself (e.g. all vaddr targets died). */
bool emu_kdamond_running(struct emu_kdamond *k);
/* Online commit of a whole new parameter set; -ECANCELED if the kdamond has stopped. */
int emu_kdamond_commit(struct emu_kdamond *k, const struct emu_ctx_params *p);
/* commit_schemes_quota_goals: only the goals of each scheme of @p are taken. */
int emu_kdamond_commit_goals(struct emu_kdamond *k, const struct emu_ctx_params *p);
/* Synchronous stop. */
int emu_kdamond_stop(struct emu_kdamond *k);
void emu_kdamond_free(struct emu_kdamond *k);

/* Queries; all need the kdamond running (-ECANCELED otherwise). */
int emu_kdamond_stats(struct emu_kdamond *k, int nr_schemes, struct emu_scheme_stats *out);
int emu_kdamond_effective_quotas(struct emu_kdamond *k, int nr_schemes, uint64_t *bytes);
int emu_kdamond_tuned_intervals(struct emu_kdamond *k, uint64_t *sample_us, uint64_t *aggr_us);
/*
 * damos_walk(): blocks until every scheme has passed one apply interval, then returns the
 * regions each scheme tried in that interval (malloc'd array per scheme, caller frees with
 * free()). -EBUSY if another walk is running.
 */
int emu_kdamond_walk(struct emu_kdamond *k, int nr_schemes, struct emu_tried_region **regions,
		     size_t *nr_regions, uint64_t *total_bytes);

#endif
