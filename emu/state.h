/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kdamond directory's runtime side: the context the engine runs (kept after it stops,
 * so results stay readable and `off` can tell "stopped" from "never started") and the
 * `state` commands of docs/damon-abi.md §3.
 */
#ifndef DAMON_EMU_STATE_H
#define DAMON_EMU_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tree.h"

struct emu_kdamond;

struct emu_kd {
	struct emu_kdamond *k;	/* damon_ctx: NULL before a successful `on` */
	/* shape of the running context, which result copies are bounded by */
	int nr_schemes, nr_targets, nr_probes;
	uint64_t next_refresh_ns;
};

struct emu_kd *emu_kd_new(void);
/* Stops the kdamond if it still runs. */
void emu_kd_free(struct emu_kd *kd);
/* Reaps a kdamond that stopped by itself. */
bool emu_kd_running(struct emu_kd *kd);
pid_t emu_kd_pid(struct emu_kd *kd);
bool emu_kd_any_running(void);

/*
 * A write to kdamonds/<K>/state. The caller holds emu_sysfs_lock and emu_tree_lock; the
 * latter is dropped while the engine works (reads of other files go on meanwhile).
 */
int emu_state_store(struct emu_node *kdir, const char *buf);
/* Stop every kdamond (unmount). Caller holds both locks. */
void emu_state_stop_all(void);
/* refresh_ms: is a kdamond due? Caller holds the tree lock. */
bool emu_state_refresh_due(uint64_t now_ns);
/* refresh_ms: copy the periodic results of due kdamonds. Caller holds both locks. */
void emu_state_refresh(uint64_t now_ns);

#endif
