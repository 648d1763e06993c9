/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CLI's side of a live capture (libdamonctl's damonctl_capture_*, shared by `damonc
 * record`, `monitor` and the reports' live input): the options as damonc takes them, the
 * kdamond picked among those damonc started (started.h) under its run directory's lock,
 * the library's errors turned into sentences and exit codes, SIGINT/SIGTERM, and the
 * launched command (reaped here, never by the library).
 */
#ifndef DAMONC_CAPTURE_H
#define DAMONC_CAPTURE_H

#include <signal.h>

#include "damonc.h"
#include "spec.h"

#define CAPTURE_MAX_FILTERS 8

struct capture_opts {
	int kdamond;			/* -1: the one running kdamond damonc started */
	bool allow_foreign;
	enum damonctl_capture_method method;
	uint64_t interval_us;		/* between snapshots; 0: the default */
	uint64_t duration_us;		/* 0: until stopped */
	uint64_t count;			/* snapshots per capture scheme; 0: unlimited */
	/* the kdamond's first @builtin schemes are capture schemes its start put there */
	unsigned int builtin;
	int child;			/* the launched target: its exit ends the capture */
	bool no_footprints;		/* no FOOTPRINT items */
	/* --snapshot-damos-filter: operations-layer filters of the capture scheme, whose
	 * passed bytes each region's sz_filter_passed then is (damo's --snapshot_damos_filter) */
	unsigned int nr_filters;
	struct damonctl_filter_spec filters[CAPTURE_MAX_FILTERS];
	/* --tried-regions-of: the regions the kdamond's own scheme @scheme tried, no capture
	 * scheme (damo's --tried_regions_of) */
	bool of_scheme;
	unsigned int scheme;
};

/* Whether @o has options only a live capture takes (--duration, --interval, --count,
 * --allow-foreign, --snapshot-damos-filter, --tried-regions-of). */
bool capture_live_asked(const struct capture_opts *o);
/* --tried-regions-of with --snapshot-damos-filter refused, for the command that @verb
 * ("records", "shows") what the scheme tried: 0 or an exit code after saying so. */
int capture_of_scheme_check(struct cli *cli, const struct capture_opts *o, const char *verb);
/* --snapshot-damos-filter ARG (--filter's form, an operations-layer type) added to @o: 0 or an
 * exit code after saying what was wrong. */
int capture_parse_filter(struct cli *cli, struct capture_opts *o, const char *arg);
/* --tried-regions-of SCHEME into @o: 0 or an exit code after saying what was wrong. */
int capture_parse_of_scheme(struct cli *cli, struct capture_opts *o, const char *arg);
#define CAPTURE_OF_SCHEME_OPT(key) \
	{ "tried-regions-of", (key), OV_INT, "SCHEME", "live: the regions the kdamond's scheme " \
	  "SCHEME tried (its index), with its stats and filters, instead of a capture scheme's " \
	  "(damo's --tried_regions_of)" }
/* Its option table entry, with @key, for the commands that capture. */
#define CAPTURE_FILTER_OPT(key) \
	{ "snapshot-damos-filter", (key), OV_FILTER, "allow|reject:[!]TYPE[:ARG]", "live: take " \
	  "the snapshots through this DAMOS filter of the operations layer (anon, active, memcg:" \
	  "PATH, young, hugepage_size:MIN-MAX, unmapped; repeatable, in order): each region's " \
	  "filters passed bytes are what they pass (damo's --snapshot_damos_filter; 6.14, vaddr " \
	  "6.18)" }

/* Set by the SIGINT/SIGTERM handler capture_catch_signals installs, which also asks the
 * capture in progress to end. */
extern volatile sig_atomic_t capture_stop_requested;
void capture_catch_signals(void);

struct capture;

/* Returns an exit code; on success *out is capturing (the scheme installed). */
int capture_start(struct cli *cli, const struct capture_opts *o, struct capture **out);
/* The next item (CONFIG first, then snapshots and stats as they are taken): 1, 0 when the
 * capture ended (see capture_end_reason), or an exit code negated (-EXIT_FAIL...), said. */
int capture_next(struct capture *c, struct damonctl_rec_item *item);
enum damonctl_rec_end_reason capture_end_reason(const struct capture *c);
void capture_request_end(struct capture *c, enum damonctl_rec_end_reason why);
/* "tried-regions", with the kdamond index: for INFO and messages. */
const char *capture_method_name(const struct capture *c);
unsigned int capture_kdamond(const struct capture *c);
void capture_pace(const struct capture *c, struct damonctl_capture_pace *p);
/* The launched target's wait status once it exited (reaped then), or -1. */
int capture_child_status(struct capture *c);
/* Undo what capture_start installed; returns an exit code. Frees @c. */
int capture_finish(struct capture *c);

/* Undo what killed captures left (damonctl_capture_recover), saying so; an exit code. */
int capture_recover(struct cli *cli);
/* The notes of killed captures not yet undone: kdamond and recorder pid, at most @max. */
unsigned int capture_leftovers(struct damonctl_ctx *ctx, unsigned int *kdamonds, int *pids,
			       unsigned int max);

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
