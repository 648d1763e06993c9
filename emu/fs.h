/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The FUSE (low-level API) operations serving the tree. */
#ifndef DAMON_EMU_FS_H
#define DAMON_EMU_FS_H

#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>

extern const struct fuse_lowlevel_ops emu_fs_ops;

#endif
