/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shell and batch mode: running lines of damonc commands (see damonc-shell(1)). */
#ifndef DAMONC_SESSION_H
#define DAMONC_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

/* How this damonc runs: a command, the shell, a batch, or one line of either (shell.c). */
struct session {
	const char *batch;	/* --batch FILE|- */
	bool force, atomic, dry_run;
	const char *sysroot;	/* --sysroot, for the shell's prompt and --atomic's commit */
	bool json;		/* --json: the batch's own output (--atomic's commit) too */
	bool in_line;		/* this process runs one line of a batch or of the shell */
	bool check_only;	/* ... and only checks its words: options parsed, nothing run */
	const char *staging;	/* ... of an --atomic batch: the directory of its staged model */
	char *global[16];	/* the global options given before the command, for every line */
	int nr_global;
};
extern struct session damonc_session;
void session_add_global(struct session *s, char *arg);
/* Run one line's words as `damonc WORDS` in a child process (see damonc-shell(1)): its exit
 * status, 128 + N when signal N ended it. @in: the child's stdin (-1: this one's). */
int session_run(const struct session *s, char **words, int n, bool check_only, int in);
/* Set by SIGINT once session_catch_sigint() installed its handler (without SA_RESTART, so
 * that a blocking read or sleep ends); the shell and the batch clear it, a line's child
 * that it catches between fork and exec-like reset raises SIGINT on itself. */
extern volatile sig_atomic_t session_sigint;
void session_catch_sigint(void);
/* The signal other than SIGINT (SIGTERM, SIGHUP, ...) that ends the batch after its line,
 * once cleaned up; 0 while none came. */
extern volatile sig_atomic_t session_ended;
/* Whether an --atomic batch stages command @cmd's line into its model (start, tune, stop);
 * commands that only read run as they are, and others cannot be part of one. */
bool session_stages(const char *cmd);
/* damonc --batch FILE|-: the exit status. */
int batch_main(struct session *s);
/* The lines of @in, as a batch runs them (the shell reading no terminal too). */
int session_batch(const struct session *s, FILE *in);

#endif
