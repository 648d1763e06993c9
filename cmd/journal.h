/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a damonc command is in the middle of, kept where it outlives the command. Every
 * library transaction (start, commit, feature probe) hands its undo record to the hook
 * journal_attach() installs, before its first write; the hook keeps it in
 * <sysroot>/run/damonc/journal-<pid>.json until the transaction is over. A command killed
 * with SIGKILL leaves its journal behind: the next start, stop, tune or record carries it out
 * under the run-directory lock (journal_recover), and status names what it left
 * (journal_leftovers). `start` holds its journal until the kdamonds it started are recorded
 * as damonc's, so that a kdamond turned on by a start killed before recording it is rolled
 * back rather than left running unknown.
 */
#ifndef DAMONC_JOURNAL_H
#define DAMONC_JOURNAL_H

#include "damonc.h"

void journal_attach(struct cli *cli);
/* Keep the journal after the transactions end, until journal_release(). */
void journal_hold(void);
/* Keep @value (taken) under @key in the journal from its next write on, for journal_recover:
 * "started_before", the entry in damonc's list of a kdamond a start reuses, is put back
 * when the start is undone. */
void journal_keep(const char *key, json_object *value);
/* Remove the journal, unless a transaction could not be undone (then it stays for the next
 * command to finish). */
void journal_release(struct cli *cli);

/* Carry out the journals of commands that died (the caller holds the run lock): each undone
 * is said on stderr. Returns an exit code: 0, or that of a journal that could not be carried
 * out now (it stays). */
int journal_recover(struct cli *cli);

/* Everything dead damonc commands left, carried out (the caller holds the run lock): the
 * journals, then the capture schemes of killed recorders (capture.h). Said on stderr;
 * returns an exit code (0, or that of a leftover that stays for a later try). */
int recover_leftovers(struct cli *cli);

/* A journal of a command that died, not yet carried out. */
struct leftover {
	char command[64];	/* "start", "tune", "record", ... */
	int pid;
	char kind[16];		/* "start" or "commit" */
	unsigned int kdamonds[16];
	unsigned int nr;
};
/* The journals of dead commands (malloc'd array in *out); 0 or -errno. */
int journal_leftovers(struct damonctl_ctx *ctx, struct leftover **out, unsigned int *nr);

#endif
