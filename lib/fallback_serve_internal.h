/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fallback server (damonctl_fallback_server_*): the state shared by the object and its
 * goals (fallback_serve.c) and the collapse budgets (fallback_budget.c).
 */
#ifndef DCTL_FALLBACK_SERVE_INTERNAL_H
#define DCTL_FALLBACK_SERVE_INTERNAL_H

#include "internal.h"
#include "pagemap_scan.h"

#define FBS_MAX 160		/* damonctl_fallbacks' most */
#define FBS_MAX_TARGETS 64
#define FBS_MAX_GRANT 64	/* address ranges the kernel may collapse at once (filters) */

struct fbs_grant {
	unsigned int nr;	/* UINT32_MAX: unknown, commit whatever it is */
	uint64_t start[FBS_MAX_GRANT], end[FBS_MAX_GRANT];
};

struct damonctl_fallback_server {
	struct damonctl_ctx *ctx;
	unsigned int kdamond;
	struct damonctl_fallback_server_opts o;
	int targets[FBS_MAX_TARGETS];	/* <= 0 once it exited */
	unsigned int nr_targets;
	unsigned int nr;
	struct damonctl_fallback fb[FBS_MAX];
	struct damonctl_fallback_stats st;
	enum damonctl_fallback_step failed;
	/* the targets' huge-page ratio, kept between rounds: a walk of their page tables only
	 * when something changed it (damonctl_hugepage_meter_new(3)) */
	struct damonctl_hugepage_meter *meter;
	struct damonctl_features *features;	/* detected at the first grant */
	bool fresh_due;			/* the round's first measure walks (a grant is open) */
	uint64_t looked_ms, look_cost_us;	/* the last look at the regions, its CPU time */
	bool pidfd_said;		/* a pidfd_open() failure said once */
	bool fed_said;
	/* per entry: the goal's state, the value fed, and a budget's plan and grant */
	int goal_state[FBS_MAX];	/* -1 not measured yet, 0 below the goal, 1 met */
	uint64_t fed_bp[FBS_MAX];
	bool fed[FBS_MAX];
	struct damonctl_hugepage_plan *plan[FBS_MAX];
	struct fbs_grant *grant[FBS_MAX];
	bool recommit[FBS_MAX];		/* the grant is committed, but the quota changed */
	int unreachable[FBS_MAX];	/* -1 unknown, 0 reachable, 1 said unreachable */
	unsigned int short_looks[FBS_MAX];	/* looks in a row that fell short */
	uint64_t first_look_ms[FBS_MAX];
	uint64_t said_hot[FBS_MAX];	/* the hot memory the last "not reachable" said, */
	uint64_t said_ms[FBS_MAX];	/* ... and when */
	/* this round's access coverage, one per target whose huge ranges the meter knows */
	unsigned int nr_cov;
	struct damonctl_fallback_target_coverage cov[DAMONCTL_FALLBACK_STATS_MAX_TARGETS];
};

uint64_t dctl_fbs_now_ms(void);
void dctl_fbs_emit(const struct damonctl_fallback_server *srv,
		   struct damonctl_fallback_event *ev);
/* The ratio goal @fb measures; @fresh: walk the targets' page tables now (next to a look
 * at the pages the kernel may be collapsing). */
int dctl_fbs_measure(struct damonctl_fallback_server *srv, const struct damonctl_fallback *fb,
		     bool fresh, uint64_t *huge, uint64_t *used);
/* The targets' figures read through the meter (a fresh walk when one is due), for the
 * huge ranges it keeps (dctl_hugepage_meter_ranges()). */
int dctl_fbs_meter_read(struct damonctl_fallback_server *srv);
/* Whether the kernel may be collapsing pages of a grant now (one is open, or unknown). */
bool dctl_fbs_grant_open(const struct damonctl_fallback_server *srv);
void dctl_fbs_goal_transition(struct damonctl_fallback_server *srv, unsigned int fi,
			      uint64_t bp, bool met, bool by_kernel);
struct damonctl_fallback_scheme_stats *dctl_fbs_scheme_stats(struct damonctl_fallback_server *srv,
							     unsigned int scheme);
/* The collapse budgets' part of a round. */
int dctl_fbs_collapse_all(struct damonctl_fallback_server *srv);
/*
 * The grant that lets the kernel collapse @n of the @nr candidate huge pages @cand (hottest
 * first) after @prev (NULL or nr UINT32_MAX: none known): the pages of @prev first (a grant
 * that keeps changing makes the kernel chase it), adjacent pages merged into ranges (at most
 * FBS_MAX_GRANT: what does not fit waits for the next round). A grant that would let pages of
 * @prev go and take others only lets them go.
 */
void dctl_fbs_grant_pick(const uint64_t *cand, size_t nr, size_t n, const struct fbs_grant *prev,
			 struct fbs_grant *g);

#endif
