/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The monitoring context the kdamond process runs: targets and their regions, schemes and
 * their quota state, and the sampling clock. Mirrors what the kernel keeps in struct
 * damon_ctx, so that the algorithms in the other files can follow mm/damon/core.c closely.
 */
#ifndef DAMON_EMU_CTX_H
#define DAMON_EMU_CTX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine.h"

#define EMU_MAX_SCORE 99u	/* DAMOS_MAX_SCORE */

struct scenario;

struct mon_region {
	uint64_t start, end;
	unsigned int nr_accesses;	/* positive samples in this aggregation interval */
	unsigned int nr_accesses_bp;	/* moving sum over the last window, x10000 */
	unsigned int last_nr_accesses;
	unsigned int age;		/* aggregation intervals the pattern has held */
	uint8_t probe_hits[EMU_MAX_PROBES];	/* samples passing each probe's filters */
};

/* One mapping of a vaddr target, from /proc/PID/maps. */
struct mon_vma {
	uint64_t start, end;
	bool accessible;		/* not PROT_NONE */
	bool anon;			/* no backing file */
};

struct mon_target {
	pid_t pid;			/* -1 for paddr */
	int pidfd;			/* vaddr/fvaddr; -1 when the process could not be found */
	bool no_pidfd;			/* no pidfd_open(): the pid alone tells liveness */
	bool obsolete;
	struct mon_region *regions;
	size_t nr, cap;
	struct mon_vma *vmas;		/* vaddr/fvaddr: the mappings last read */
	size_t nr_vmas;
	uint64_t vmas_read_us;
	char *memcg;			/* cgroup v2 path of the process, read on demand */
	bool memcg_read;
};

struct mon_attrs {
	uint64_t sample_us, aggr_us, update_us;
	uint64_t goal_access_bp, goal_aggrs, goal_min_sample_us, goal_max_sample_us;
	uint64_t min_nr_regions, max_nr_regions;
	uint64_t aggr_samples;		/* aggr_us / sample_us when set from outside */
};

struct mon_quota {
	uint64_t esz;			/* effective size quota of the current window */
	uint64_t esz_bp;		/* goal tuners' output, x10000 */
	uint64_t total_charged_sz, total_charged_ns;
	uint64_t charged_sz;
	uint64_t charged_from_ms;	/* start of the current charge window */
	bool window_started;
	int charge_target_from;		/* where the last full window stopped; -1: nowhere */
	uint64_t charge_addr_from;
	unsigned int min_score;
};

struct mon_scheme {
	struct emu_scheme p;		/* owns p.goals, p.filters, p.dests */
	uint64_t *goal_last_psi;	/* per goal: PSI total at the last measurement */
	struct mon_quota q;
	struct emu_scheme_stats stat;
	bool wmark_active;
	uint64_t next_apply_sis;
	bool walk_completed;
	bool core_filters_allowed;
	bool core_default_reject, ops_default_reject;
};

struct mon_walk_region_list {
	struct emu_tried_region *regions;
	size_t nr, cap;
};

enum mon_walk_state { MON_WALK_IDLE, MON_WALK_ACTIVE, MON_WALK_DONE, MON_WALK_CANCELED };

struct mon_walk {
	enum mon_walk_state state;
	int nr_schemes;
	struct mon_walk_region_list *lists;	/* one per scheme */
	uint64_t *total_bytes;
};

struct mon_ctx {
	enum emu_ops ops;
	uint64_t addr_unit, min_region_sz;
	bool pause;
	struct mon_attrs attrs;
	int nr_targets;
	struct mon_target *targets;
	int nr_schemes;
	struct mon_scheme *schemes;
	int nr_probes;
	struct emu_probe *probes;		/* owns probes[].filters */

	/* the kernel's sampling-interval clock */
	uint64_t passed_sis, next_aggr_sis, next_update_sis, next_tune_sis;
	uint64_t sz_limit;			/* max region size for min_nr_regions */
	unsigned int max_nr_accesses;		/* of the last sampling */
	unsigned int last_nr_regions;		/* for the 3-way split heuristic */

	uint64_t start_us, now_us;		/* monotonic; now_us set by the driver */
	uint64_t rng;
	struct scenario *scn;
	char proc_root[PATH_MAX];
	char cgroup_root[PATH_MAX];
	bool real_actions, hugepage_metric;
	uint64_t page_size;
	bool warned_madvise;			/* process_madvise failures reported once */

	struct mon_walk walk;
	uint64_t hist[EMU_MAX_SCORE + 1];	/* regions score histogram */
	bool corrupted;				/* a failed commit left it unusable */
};

/*
 * Builds a context from @p (validated by the tree) and @opts. Targets get their pidfds;
 * vaddr targets without regions get theirs at mon_start(). Returns NULL on ENOMEM.
 */
struct mon_ctx *mon_ctx_new(const struct emu_ctx_params *p, const struct emu_engine_opts *opts,
			    uint64_t now_us, uint64_t seed);
void mon_ctx_free(struct mon_ctx *c);

/* damon_commit_ctx(): applies a whole new parameter set to a running context. */
int mon_commit(struct mon_ctx *c, const struct emu_ctx_params *p);
/* commit_schemes_quota_goals: only the goals of each scheme. */
int mon_commit_goals(struct mon_ctx *c, const struct emu_ctx_params *p);

/* damon_set_attrs(): validated new intervals, converting the monitoring results. */
void mon_set_attrs(struct mon_ctx *c, const struct mon_attrs *attrs);
void mon_scheme_set_next_apply(struct mon_ctx *c, struct mon_scheme *s);
uint64_t mon_max_nr_accesses(const struct mon_attrs *a);

static inline uint64_t mon_region_sz(const struct mon_region *r)
{
	return r->end - r->start;
}

#endif
