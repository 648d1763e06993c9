/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What damonc started: a small JSON file under <sysroot>/run/damonc, keyed by kdamond index
 * and the kdamond's pid, so that `stop` and `tune` act only on damonc's own kdamonds (damo
 * stops every running kdamond, including ones it did not start).
 */
#ifndef DAMONC_STARTED_H
#define DAMONC_STARTED_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "damonc.h"
#include "fallback.h"

/* The processes one kdamond of damonc's monitors, at most (a forking server's children
 * among them): the fallback server's most (FBS_MAX_TARGETS). */
#define STARTED_MAX_TARGETS 64
/* A target index no kdamond of damonc's has: where the collapse budgets of targets gone
 * keep their schemes (damonctl_kdamond_retarget). */
#define STARTED_TARGET_NOWHERE (STARTED_MAX_TARGETS + 1)

struct started_entry {
	unsigned int kdamond;
	int pid;		/* the kdamond's pid when started: a restarted index is not ours */
	unsigned long long pid_start;	/* its thread's start time (0: unknown) */
	uint64_t dir_ino;	/* kdamonds/N's inode when damonc last wrote nr_kdamonds or
				 * started it: a stopped kdamond is ours while it is the same */
	bool stopped;		/* stopped with `damonc stop`: damonc's still (a start reuses
				 * it), but not meant to run */
	bool foreign;		/* found at load not to be damonc's kdamond any more (another
				 * program's now): owned by nobody here, never saved */
	long long since;	/* unix time */
	char label[64];		/* what it was started for, e.g. "collapse pid 1234" */
	int targets[STARTED_MAX_TARGETS];	/* the processes it monitors (vaddr) */
	unsigned int nr_targets;
	struct fallbacks fbs;	/* what the damonc agent does for it */
	bool follow_children;	/* the agent adds children of the targets as targets */
	int server_pid;		/* `start --foreground` serving it itself; 0: the agent */
};

/* Whether the agent has something to do for @e. */
static inline bool started_needs_agent(const struct started_entry *e)
{
	return e->fbs.nr || e->follow_children;
}

/* damonc's own state directory, <sysroot>/run/damonc (the library has none: it takes a
 * directory where it keeps something, as the capture's state_dir), or @rel under it.
 * Returns the length, or -ENAMETOOLONG. */
int run_path(struct damonctl_ctx *ctx, const char *rel, char *buf, size_t size);

struct started {
	struct started_entry *e;
	unsigned int nr;
};

/*
 * Serialise the commands that change DAMON and this record (start, stop, tune, the agent's
 * updates): an exclusive flock on <run>/lock, waited for. Returns the lock's fd, or -errno
 * when the run directory cannot be written (the sysfs writes would fail anyway).
 */
int started_lock(struct damonctl_ctx *ctx);
void started_unlock(int fd);
/* started_lock()'s -errno @err said ("damonc: CMD: cannot lock damonc's run directory DIR:
 * ..."): the run directory named, not DAMON's files. Returns EXIT_FAIL. */
int started_lock_error(const struct cli *cli, int err);

/* One entry as the list's file keeps it; from_json: 0, -ENOENT (not an entry), -EBADMSG. */
json_object *started_entry_to_json(const struct started_entry *e);
int started_entry_from_json(json_object *o, struct started_entry *e);

/* Load (an absent file is an empty list). */
int started_load(struct damonctl_ctx *ctx, struct started *s);
/* The record file's identity (inode, size, times; all 0 when there is none): it is replaced
 * whole at each change, so a reader that polls can tell a change without reading it. */
int started_stat(struct damonctl_ctx *ctx, struct stat *st);
/* Load and save the record at @path instead of damonc's (NULL: damonc's again). */
void started_use_file(const char *path);
/* Write atomically; removes the file when empty. */
int started_save(struct damonctl_ctx *ctx, const struct started *s);
void started_free(struct started *s);
struct started_entry *started_find(struct started *s, unsigned int kdamond);
int started_add(struct started *s, const struct started_entry *e);
void started_remove(struct started *s, unsigned int kdamond);
/* Entries whose kdamond is gone or now runs with another pid are dropped (not ours any more):
 * returns the number dropped. Kdamonds that stopped by themselves keep their entry. */
int started_prune(struct damonctl_ctx *ctx, struct started *s,
		  const struct damonctl_tree *tree);
/* Whether kdamond @k of @tree is one damonc started: by identity, checked when the record
 * was loaded (the thread that runs it, or the directory of a stopped one), never by its
 * index alone. */
bool started_owns(const struct started *s, const struct damonctl_kdamond *k);
/* Whether damonc started kdamond @k and means it to run: one `damonc stop` stopped stays
 * damonc's (started_owns: a start reuses it) but is not started by damonc any more. */
bool started_by_damonc(const struct started *s, const struct damonctl_kdamond *k);
/* Stop kdamond @idx (off already is fine), and when it is damonc's, record that damonc
 * stopped it on purpose: nothing for the agent to serve, no agent stats, `stopped`. Every
 * command that stops a kdamond as asked goes through here. 0, or the write's -errno. */
int started_stop(struct damonctl_ctx *ctx, struct started *s, unsigned int idx, bool *was_running);
/* After damonc itself wrote nr_kdamonds (a start, an undo): every kdamond directory is new,
 * so the entries still damonc's take their kdamonds' identities again. */
void started_rebind(struct damonctl_ctx *ctx, struct started *s);
/* Ask damonc's own running kdamonds (never anyone else's) to update their stats and
 * effective quotas, for reports between the kernel's own refreshes; with
 * @unless_refreshed, only those the kernel does not refresh by itself (refresh_ms, 6.17).
 * Best effort: a kdamond that stopped meanwhile, or a kernel without a command, is
 * skipped. */
void started_refresh_stats(struct damonctl_ctx *ctx, const struct started *s,
			   bool unless_refreshed);

#endif
