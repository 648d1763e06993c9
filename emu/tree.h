/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emulated sysfs tree: directories and attribute files, built per profile by layout.c.
 *
 * Two locks, as in the kernel: emu_tree_lock (held briefly by every operation) protects the
 * nodes; emu_sysfs_lock models damon_sysfs_lock and is only ever try-locked (EBUSY when
 * busy). Whoever holds emu_sysfs_lock may drop emu_tree_lock and keep node pointers: only
 * holders of emu_sysfs_lock add or remove nodes. Lock order: sysfs lock, then tree lock.
 */
#ifndef DAMON_EMU_TREE_H
#define DAMON_EMU_TREE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

/* Directory kinds: what a directory contains (layout.c). */
enum emu_dkind {
	DK_ADMIN, DK_KDAMONDS, DK_KDAMOND, DK_CONTEXTS, DK_CONTEXT, DK_ATTRS, DK_INTERVALS,
	DK_IGOAL, DK_RANGE, DK_PROBES, DK_PROBE, DK_PFILTERS, DK_PFILTER, DK_TARGETS,
	DK_TARGET, DK_REGIONS, DK_REGION, DK_SCHEMES, DK_SCHEME, DK_ACCESS_PATTERN, DK_QUOTAS,
	DK_WEIGHTS, DK_GOALS, DK_GOAL, DK_WMARKS, DK_FILTERS, DK_FILTER, DK_DESTS, DK_DEST,
	DK_STATS, DK_TRIED, DK_TREGION, DK_TRPROBES, DK_TRPROBE,
};

/* Value types, each with the kernel's show format. */
enum emu_vtype {
	VT_UL,		/* %lu, kstrtoul */
	VT_UINT,	/* %u, kstrtouint */
	VT_INT,		/* %d, kstrtoint */
	VT_BOOL,	/* Y/N, kstrtobool */
	VT_KW,		/* %s, one of a keyword set */
	VT_STR,		/* %s, stored verbatim; read and written under damon_sysfs_lock */
	VT_SPECIAL,	/* shown/stored by a dedicated handler */
};

/* Store handlers that differ from the plain typed store. */
enum emu_fspecial {
	FS_NONE,
	FS_NR,		/* nr_*: recreate numbered children of @child */
	FS_STATE,
	FS_PID,
	FS_AVAIL_OPS,
	FS_NONZERO,	/* addr_unit: 0 is EINVAL */
	FS_FILTER_TYPE,	/* scheme filter type: core/ops/both layer check */
};

struct emu_fdef {
	const char *name;
	mode_t mode;			/* 0600 or 0400 */
	enum emu_vtype type;
	enum emu_fspecial special;
	bool einval_all;		/* handler turns every parse error into EINVAL */
	const struct emu_kwset *kw;	/* VT_KW */
	enum emu_dkind child;		/* FS_NR: kind of the numbered children */
	int max;			/* FS_NR: largest count accepted, 0 for no limit */
};

struct emu_kd;

struct emu_node {
	uint64_t ino;			/* FUSE inode number, never reused; the root is 1 */
	struct emu_node *hnext;		/* inode hash chain */
	char name[32];
	struct emu_node *parent;
	struct emu_node **kids;
	int nkids, cap;
	bool dir;
	enum emu_dkind dk;		/* dir */
	const struct emu_fdef *fd;	/* file */
	union {
		uint64_t u;
		int64_t i;
		bool b;
		int kw;
	} v;
	char *str;			/* VT_STR; NULL until written, as in the kernel */
	struct emu_kd *kd;		/* DK_KDAMOND: the kdamond's runtime state */
};

extern pthread_mutex_t emu_tree_lock;
extern pthread_mutex_t emu_sysfs_lock;
extern struct emu_node *emu_root;

struct emu_node *emu_node_new_dir(struct emu_node *parent, const char *name, enum emu_dkind dk);
struct emu_node *emu_node_new_file(struct emu_node *parent, const struct emu_fdef *fd);
/* Remove and free @n and everything below it (kdamond runtime state included). */
void emu_node_free(struct emu_node *n);
/* Free the numbered ("0", "1", ...) children of @dir. */
void emu_node_free_numbered(struct emu_node *dir);
bool emu_node_is_numbered(const struct emu_node *n);
int emu_node_count_numbered(const struct emu_node *dir);

/* The node of inode @ino, or NULL once it has been removed. */
struct emu_node *emu_node_by_ino(uint64_t ino);
/* @path relative to @from, '/'-separated, no leading '/'; "" is @from itself. */
struct emu_node *emu_node_at(struct emu_node *from, const char *path);
struct emu_node *emu_node_child(struct emu_node *dir, const char *name);
struct emu_node *emu_node_nth(struct emu_node *dir, int idx);
/* Path of @n relative to the root, into @buf. */
void emu_node_path(const struct emu_node *n, char *buf, size_t size);
/* Nearest ancestor (or @n itself) of kind @dk. */
struct emu_node *emu_node_up(struct emu_node *n, enum emu_dkind dk);

/* Typed getters on files below @dir; @dflt when the file is absent from the profile. */
uint64_t emu_get_u(struct emu_node *dir, const char *path, uint64_t dflt);
int64_t emu_get_i(struct emu_node *dir, const char *path, int64_t dflt);
bool emu_get_b(struct emu_node *dir, const char *path, bool dflt);
int emu_get_kw(struct emu_node *dir, const char *path, int dflt);
const char *emu_get_str(struct emu_node *dir, const char *path);
void emu_set_u(struct emu_node *dir, const char *path, uint64_t v);

#endif
