/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting a kdamond for another command: `damonc record --pid P` (or `-- COMMAND`) starts
 * its kdamond through start's own code (the same options, checks, undo record and list of
 * damonc's kdamonds) and puts the tree back as it was when it is done. Until then the start's
 * undo record stays in the journal: a recorder killed with SIGKILL leaves a kdamond that the
 * next damonc command (stop, start, tune, record) turns off and removes.
 */
#ifndef DAMONC_START_H
#define DAMONC_START_H

#include "damonc.h"
#include "started.h"

#include "spec.h"

#define START_MAX_PIDS STARTED_MAX_TARGETS
#define START_MAX_REGIONS 64
#define START_MAX_NODES 16

/*
 * start's options. The commands that take them too (record, monitor: start_target_opts and
 * the context's options, passed on to cmd_start.parse) have them as the first member of
 * their own options, so that cli->opts points to them in start's code as well.
 */
struct start_opts {
	struct spec_line sl;	/* sl.sp[0]: the context and the first scheme */
	int pids[START_MAX_PIDS];
	unsigned int nr_pids;
	uint64_t regions[START_MAX_REGIONS][2];
	unsigned int nr_regions;
	bool user_regions;	/* --regions given (else damonc found them) */
	int nodes[START_MAX_NODES];	/* --numa-node */
	unsigned int nr_nodes;
	bool regions_found;	/* damonc's ranges for paddr are in regions (once a start) */
	struct probe_spec probes[DAMONCTL_MAX_PROBES];
	unsigned int nr_probes;
	const char *config;
	struct damonctl_tree *config_tree;	/* -c's, read once */
	char prog[4096];	/* the command to launch, as found in PATH */
	bool dry_run;
	bool foreground;
	int scope_pid;		/* --goal-scope: -1 not given, 0 system, 1 pid */
	bool no_fallback;
	bool follow_children;
	bool leave_running;
};

#define START_OPTS_INIT { .scope_pid = -1 }

/* --pid and --regions, for the commands that take start's targets */
extern const struct opt start_target_opts[];

struct start_handoff {
	/* set by the caller */
	const char *label;	/* what the kdamond is for, in damonc's list */
	/* called on the kdamond built from the options, before any check: the caller's
	 * schemes; an exit code */
	int (*amend)(struct cli *cli, struct damonctl_kdamond *k,
		     const struct damonctl_features *f, void *data);
	void *data;
	/* set by start_handoff_run */
	unsigned int kdamond;
	struct damonctl_tree *have;	/* the tree before */
	bool had_entry;			/* a stopped kdamond of damonc's was reused: */
	struct started_entry old;	/* its entry in the list, put back at the end */
	int child;			/* '-- COMMAND': its pid, exec'd before the kdamond started */
};

/*
 * Start the kdamond of the options cmd_start.parse took (and of '-- COMMAND' in @argv), as
 * `damonc start` does, saying nothing on success. An exit code; on success @h holds what
 * start_handoff_undo() needs; a launched command has exec'd (a failed exec is exit 2).
 */
int start_handoff_run(struct cli *cli, int argc, char **argv, struct start_handoff *h);
/* Stop the kdamond, put the tree and damonc's list back as they were, and drop the undo
 * record; when that fails it stays for the next command. An exit code. */
int start_handoff_undo(struct cli *cli, struct start_handoff *h);

#endif
