/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live capture of a running kdamond's monitoring results, shared by `damonc record` and the
 * reports' live input: snapshots of regions (start, end, nr_accesses, age) and the stats of
 * the kdamond's own schemes, as record items.
 *
 * Method "tried-regions": a `stat` scheme matching every region (the capture scheme) is
 * installed with `commit` unless the kdamond already has one, and each snapshot is
 * `update_schemes_tried_regions` plus a read of its tried_regions directory. Installing it,
 * and even writing that command, are writes to the kdamond: on a kdamond damonc did not
 * start they need the caller's explicit consent (allow_foreign). Whatever was installed is
 * removed, and the kdamond's own configuration committed back, when the capture ends.
 *
 * Method "trace" (capture_trace.h): the damon_aggregated trace event, filtered to the
 * kdamond's pid in a tracefs instance of our own. It writes nothing to DAMON (stats are
 * recorded only where writing is allowed), sees every aggregation, and works on kernels
 * without tried_regions. "auto" takes it where the event is there.
 */
#ifndef DAMONC_CAPTURE_H
#define DAMONC_CAPTURE_H

#include <signal.h>

#include "damonc.h"

enum capture_method { CAPTURE_AUTO, CAPTURE_TRIED_REGIONS, CAPTURE_TRACE };

struct capture_opts {
	int kdamond;			/* -1: the one running kdamond damonc started */
	bool allow_foreign;
	enum capture_method method;
	uint64_t interval_us;		/* between snapshots; 0: the default */
	uint64_t duration_us;		/* 0: until stopped */
	uint64_t count;			/* snapshots per capture scheme; 0: unlimited */
	/* the kdamond's first @builtin schemes are capture schemes its start put there
	 * (capture_add_schemes): none is installed, and its CONFIG item leaves them out */
	unsigned int builtin;
	int child;			/* the launched target: reaped, it ends the capture */
	bool no_footprints;		/* no FOOTPRINT items */
};

/* Set by the caller's SIGINT/SIGTERM handler (capture_catch_signals installs one). */
extern volatile sig_atomic_t capture_stop_requested;
void capture_catch_signals(void);

struct capture;

/* Returns an exit code; on success *out is capturing (the scheme installed). */
int capture_start(struct cli *cli, const struct capture_opts *o, struct capture **out);
/* The next item (CONFIG first, then snapshots and stats as they are taken): 1, 0 when the
 * capture ended (see capture_end_reason), or an exit code negated (-EXIT_FAIL...). */
int capture_next(struct capture *c, struct damonctl_rec_item *item);
enum damonctl_rec_end_reason capture_end_reason(const struct capture *c);
void capture_request_end(struct capture *c, enum damonctl_rec_end_reason why);
/* "tried-regions", with the kdamond index: for INFO and messages. */
const char *capture_method_name(const struct capture *c);
unsigned int capture_kdamond(const struct capture *c);
/* How well the capture kept up with its interval. */
struct capture_pace {
	uint64_t interval_us;		/* the interval snapshots were due at */
	uint64_t taken, missed;		/* snapshots (ticks) taken, and due but not taken */
	uint64_t mean_work_us;		/* tried-regions: the time one tick takes */
	uint64_t max_late_us;		/* the worst lateness of a snapshot */
	bool trace;			/* events came from the trace (no work time) */
};
void capture_pace(const struct capture *c, struct capture_pace *p);
/* The launched target's wait status once it was reaped, or -1. */
int capture_child_status(const struct capture *c);
/* Undo what capture_start installed; returns an exit code. Frees @c. */
int capture_finish(struct capture *c);

/* Whether @s is a `stat` scheme with the all-inclusive pattern, no quota, goals or
 * watermarks, and at most @max_filters filters: one that shows every region (0), or one
 * damonc installs to capture (a target filter each where there are several targets). */
bool capture_pattern_all(const struct damonctl_scheme *s, unsigned int max_filters);

/* The method "auto" takes on this system (others are themselves). */
enum capture_method capture_method_for(struct damonctl_ctx *ctx, enum capture_method m);
/* Add the capture schemes a tried-regions capture needs to @c (the context of a kdamond not
 * yet started, its targets in place): one per target where a target filter can tell them
 * apart, else one. How many, or -errno. */
int capture_add_schemes(struct damonctl_context *c, const struct damonctl_features *f);
/* start_handoff's amend for a kdamond started only to be captured (record, monitor): start's
 * schemes removed, the capture schemes in; @data is the struct capture_opts. An exit code. */
int capture_own_amend(struct cli *cli, struct damonctl_kdamond *k,
		      const struct damonctl_features *f, void *data);
/* The launched command, still running when the capture ended (a signal, --duration,
 * --count): asked to end with SIGTERM and waited for (SIGKILL on another signal to us). */
void capture_end_command(int pid);

/* CPU time (user + system) of this process in ns, for the recorder's own cost report. */
uint64_t capture_cpu_ns(void);
uint64_t capture_now_ns(void);

#endif
