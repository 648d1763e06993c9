/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What each directory of the tree holds, with defaults, in the selected profile. */
#ifndef DAMON_EMU_LAYOUT_H
#define DAMON_EMU_LAYOUT_H

#include "tree.h"

/* A fresh tree: admin/kdamonds/nr_kdamonds = 0. */
struct emu_node *emu_layout_new_root(void);
/* Create the @i-th numbered child of @dir, of kind @dk, with its default content. */
struct emu_node *emu_layout_add_numbered(struct emu_node *dir, enum emu_dkind dk, int i);

/* File definitions used directly by other parts (results, state). */
extern const struct emu_fdef emu_fd_tr_start, emu_fd_tr_end, emu_fd_tr_nr_accesses,
	emu_fd_tr_age, emu_fd_tr_sz_filter_passed, emu_fd_tr_hits;

#endif
