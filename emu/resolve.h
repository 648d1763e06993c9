/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel looks up while building a context: pids (find_get_pid), memcg paths
 * (cgroup_path compared with sysfs_streq) and exclusive DAMON users (damon_start()).
 */
#ifndef DAMON_EMU_RESOLVE_H
#define DAMON_EMU_RESOLVE_H

#include <stdbool.h>

bool emu_pid_exists(int pid);
/* @path as written to memcg_path/path (NULL if never written). */
bool emu_memcg_exists(const char *path);
/* A module (DAMON_RECLAIM, DAMON_LRU_SORT, DAMON_STAT) holds DAMON exclusively. */
bool emu_exclusive_user_running(void);
unsigned long emu_page_size(void);

#endif
