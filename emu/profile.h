/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel-version profiles: which files, keywords and behaviours the emulated tree has.
 * Everything version-dependent is decided by emu_since() against the ABI document's tags.
 */
#ifndef DAMON_EMU_PROFILE_H
#define DAMON_EMU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#define EMU_V(major, minor) ((major) * 100 + (minor))
/* Tag for items only the `next` profile has (queued upstream, in no release). */
#define EMU_V_NEXT (-1)

struct emu_profile {
	const char *name;
	int ver;		/* EMU_V() of the kernel */
	bool next;		/* 7.3 plus the hugepage_mem_bp goal metric */
};

extern struct emu_profile emu_prof;

/* Select a profile by name ("6.1", ... "7.2", "7.3", "next"); -EINVAL if unknown. */
int emu_profile_select(const char *name);
const char *emu_profile_names(void);
bool emu_since(int ver);

/* A keyword file's accepted words, each with the version that introduced it. */
struct emu_kw {
	const char *name;
	int since;
	int value;
};

struct emu_kwset {
	const struct emu_kw *kw;
	size_t n;
};

/* Value of the keyword @buf matches (sysfs_streq), or -EINVAL. */
int emu_kw_parse(const struct emu_kwset *set, const char *buf);
const char *emu_kw_name(const struct emu_kwset *set, int value);

extern const struct emu_kwset emu_kw_ops, emu_kw_actions, emu_kw_filter_types,
	emu_kw_probe_filter_types, emu_kw_goal_metrics, emu_kw_goal_tuners, emu_kw_wmark_metrics,
	emu_kw_state_cmds;

/* The `state` commands (damon_sysfs_cmd_strs order). */
enum emu_cmd {
	EMU_CMD_ON, EMU_CMD_OFF, EMU_CMD_COMMIT, EMU_CMD_COMMIT_GOALS, EMU_CMD_UPDATE_STATS,
	EMU_CMD_UPDATE_TRIED_BYTES, EMU_CMD_UPDATE_TRIED_REGIONS, EMU_CMD_CLEAR_TRIED_REGIONS,
	EMU_CMD_UPDATE_QUOTAS, EMU_CMD_UPDATE_INTERVALS,
};

/*
 * Behaviour eras of sysfs.c. Up to 6.14 the commands that touch the running context were
 * handed to a kdamond callback: errors found there stop the kdamond and the write still
 * succeeds. From 6.15 they go through damon_call()/damos_walk() and return their error.
 */
#define EMU_V_DAMON_CALL EMU_V(6, 15)

#endif
