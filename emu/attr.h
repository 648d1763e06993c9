/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading and writing one file of the tree by inode number, with each file's show/store
 * semantics and damon_sysfs_lock where the kernel takes it. A file removed since it was
 * opened answers ENODEV, as kernfs does.
 */
#ifndef DAMON_EMU_ATTR_H
#define DAMON_EMU_ATTR_H

#include <stddef.h>
#include <stdint.h>

/* What read(2) at offset 0 returns; *out is malloc'd. 0 or -errno. */
int emu_attr_read(uint64_t ino, char **out, size_t *len);
/* One write(2) of @buf (NUL-terminated copy of what was written). 0 or -errno. */
int emu_attr_write(uint64_t ino, const char *buf);

#endif
