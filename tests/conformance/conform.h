/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damon-conform: runs scripted sysfs write/read sequences with expected results against a
 * DAMON admin directory (a real kernel's or damon-emu's). libc only, so that it also runs
 * as a static binary in a busybox initramfs. Script format: see README.md next to this.
 */
#ifndef DAMON_CONFORM_H
#define DAMON_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Kernel version as major * 100 + minor; `next` is 7.3 plus queued features. */
struct kver {
	int v;
	bool next;
};

int kver_parse(const char *s, struct kver *out);
/* One condition word: >=6.12 <6.2 ==6.1 !=7.2 next !next. -1 if malformed. */
int kver_cond(const char *cond, const struct kver *k);

enum step_kind {
	ST_WRITE, ST_READ, ST_EXISTS, ST_ABSENT, ST_COUNT, ST_SPAWN, ST_KILL, ST_WAIT,
	ST_SLEEP, ST_MODWRITE, ST_SAVE, ST_RESET, ST_SET,
};

enum cmp_op { OP_EQ, OP_NE, OP_GT, OP_GE, OP_LT, OP_LE, OP_HAS, OP_ERR };

struct step {
	enum step_kind kind;
	int line;
	char *conds;		/* "" when unconditional */
	char *path;
	char *value;		/* write: what to write; read: expected (newlines as '|') */
	enum cmp_op op;
	int err;		/* expected errno for writes/reads, 0 for success */
	char *name;		/* spawn/kill/save */
	char *what;		/* spawn: sleep|touch */
	unsigned long long size;	/* spawn touch: bytes */
	double timeout;		/* wait: seconds; sleep: seconds */
	struct step *inner;	/* wait: the read to retry */
	char *text;		/* the source line, for messages */
};

struct script {
	const char *file;
	char *require;		/* script-level condition, or NULL */
	struct step *steps;
	int n;
};

int script_load(const char *file, struct script *s);
void script_free(struct script *s);

struct run_opts {
	const char *root;	/* admin directory */
	const char *modules;	/* /sys/module or an emulator's copy */
	struct kver kernel;
	bool verbose;
	bool keep;		/* do not reset the tree after the script */
};

/* 0: every expectation held (or the script does not apply), 1: mismatches, 2: error. */
int script_run(const struct script *s, const struct run_opts *o);

/* sysfs access */
int sys_read(const char *path, char **out, size_t *len);	/* 0 or errno */
int sys_write(const char *path, const char *val, size_t len);	/* 0 or errno */
int dump_tree(const char *root);

/* target processes for pid_target */
pid_t proc_spawn(const char *what, unsigned long long size);
int proc_kill(pid_t pid);
void proc_kill_all(void);

const char *errno_name(int err);
int errno_parse(const char *name);

#endif
