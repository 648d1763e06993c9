/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Live capture of a kdamond (damonctl_capture_*): the state shared by opening and closing
 * (capture.c), taking items (capture_tick.c), footprints (capture_footprint.c), the trace
 * method's reader (capture_trace.c) and the note of an installed capture scheme
 * (capture_guard.c).
 */
#ifndef DCTL_CAPTURE_INTERNAL_H
#define DCTL_CAPTURE_INTERNAL_H

#include <signal.h>

#include "internal.h"

#define DCTL_MAX_CAPTURE_SCHEMES 64
#define DCTL_MAX_USER_SCHEMES 64
#define DCTL_CAPTURE_MAX_PIDS 64
#define DCTL_CAPTURE_MAX_PENDING (DCTL_MAX_CAPTURE_SCHEMES + DCTL_MAX_USER_SCHEMES + 1)

struct dctl_cap_scheme {
	unsigned int index;	/* in the context */
	int32_t target;		/* -1: every target */
	struct damonctl_rec_region *regions;
	size_t cap;
	struct dctl_probe_hits hits;	/* the regions' probe hits (7.2) */
};

struct dctl_trace_src;

struct damonctl_capture {
	struct damonctl_ctx *ctx;
	struct damonctl_capture_opts o;
	char *state_dir;		/* o.state_dir, copied */
	unsigned int kdamond;
	int kdamond_pid;
	struct damonctl_tree *orig;	/* as found: restored at the end */
	bool installed;
	/* o.snapshot_filters while open runs (NULL: none; the options' copy is cleared), and
	 * the JSON of what the capture schemes got, set on every snapshot */
	const struct damonctl_scheme *filters;
	char *filters_json;
	struct damonctl_features *f;
	struct dctl_cap_scheme cs[DCTL_MAX_CAPTURE_SCHEMES];
	unsigned int nr_cs;
	bool of_scheme;			/* o.of_scheme: cs[0] is a scheme of the kdamond's own */
	unsigned int nr_user_schemes;
	char user_actions[DCTL_MAX_USER_SCHEMES][24];
	bool vaddr;
	uint64_t addr_unit;		/* paddr: bytes per address DAMON gives */
	int pids[DCTL_CAPTURE_MAX_PIDS];
	unsigned int nr_pids;
	int end_pidfd;			/* o.end_pid's pidfd, or -1 (then waitid(WNOWAIT)) */
	bool end_pid_exited;
	bool tuned;			/* intervals auto-tuning is on and can be read back */
	uint64_t sample_us, aggr_us, update_us;
	char *config_json;
	/* the items of the current tick: snapshots, stats, and a CONFIG or a FOOTPRINT; item i
	 * points to pend_snap[i] or pend_stats[i] */
	struct damonctl_rec_item pending[DCTL_CAPTURE_MAX_PENDING];
	struct damonctl_rec_snapshot pend_snap[DCTL_CAPTURE_MAX_PENDING];
	struct damonctl_rec_stats pend_stats[DCTL_CAPTURE_MAX_PENDING];
	char *footprint_json;		/* the current tick's FOOTPRINT */
	uint64_t next_footprint_ns;	/* method "trace" */
	unsigned int nr_pending, next_pending;
	uint64_t start_ns, next_tick_ns, nr_ticks;
	bool ended;
	enum damonctl_rec_end_reason reason;
	/* damonctl_capture_request_end(): the reason + 1, 0 for none (a signal handler's) */
	volatile sig_atomic_t requested;
	/* method "trace" */
	struct dctl_trace_src *trace;
	bool may_write;			/* allow_foreign: stats may be asked for */
	uint64_t last_kept_ns[64];	/* per target: snapshots are kept one per interval */
	uint64_t vma_hash[64];		/* per target: its mappings at the last FOOTPRINT (0: none) */
	uint64_t next_stats_ns;
	/* keeping up with the interval (damonctl_capture_pace) */
	uint64_t nr_missed;		/* snapshots due that were not taken */
	uint64_t work_ns, max_late_ns;	/* time spent taking snapshots; worst lateness */
};

/* Snapshot filters (struct damonctl_capture_opts): how many filters @s has (0: none), or
 * -EINVAL when one is the core layer's (addr, target: in core_filters, or by type). */
int dctl_capture_filters_count(const struct damonctl_scheme *s);
/* Whether this kernel (@f) can install them on a context of operations @ops: 0, or
 * -EOPNOTSUPP (no allow/sz_filter_passed, vaddr or fvaddr before 6.18, a type it lacks). */
int dctl_capture_filters_supported(const struct damonctl_scheme *s,
				   const struct damonctl_features *f, const char *ops);
/* damonctl_capture_add_schemes() with @filters (NULL: none) copied into each capture scheme
 * after its target filter; how many schemes, or -errno. */
int dctl_capture_add_filtered_schemes(struct damonctl_context *c, const struct damonctl_features *f,
				      const struct damonctl_scheme *filters);

uint64_t dctl_capture_now_ns(void);
uint64_t dctl_capture_mono_ns(void);
/* The end of the capture, for a reason it found itself (the first one counts). */
void dctl_capture_end(struct damonctl_capture *c, enum damonctl_rec_end_reason why);
bool dctl_capture_kdamond_gone(struct damonctl_capture *c);
/* The tuned sample and aggregation intervals, read back (after update_tuned_intervals). */
void dctl_capture_read_intervals(struct damonctl_capture *c);
void dctl_capture_take_footprint(struct damonctl_capture *c);

/* The trace method's reader: damon_aggregated in a tracefs instance of our own, filtered to
 * the kdamond's pid, or with @probes (the context has probes) damon_region_aggregated where
 * the kernel has it. -errno; the instance is set up and the event enabled. */
int dctl_trace_src_open(struct damonctl_ctx *ctx, int kdamond_pid,
			enum damonctl_capture_reader reader, bool probes,
			struct dctl_trace_src **out);
/* The next whole snapshot of one target (kdamond/context/intervals left to the caller):
 * 1, 0 when @timeout_ms passed first, -errno. Regions live until the next call. */
int dctl_trace_src_next(struct dctl_trace_src *t, int timeout_ms,
			struct damonctl_rec_snapshot *snap);
/* Disable the event and remove the instance. */
void dctl_trace_src_close(struct dctl_trace_src *t);
bool dctl_trace_src_available(struct damonctl_ctx *ctx);

/* The note for schemes [@first, @first + @nr) of kdamond @kdamond's context 0 in
 * @state_dir (see capture_guard.c). -errno. */
int dctl_capture_guard_write(const char *state_dir, unsigned int kdamond, int kdamond_pid,
			     unsigned int first, unsigned int nr);
void dctl_capture_guard_remove(const char *state_dir, unsigned int kdamond);

#endif
