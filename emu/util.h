/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers: allocation that cannot fail quietly, errno names, monotonic time. */
#ifndef DAMON_EMU_UTIL_H
#define DAMON_EMU_UTIL_H

#include <stddef.h>
#include <stdint.h>

void *emu_xcalloc(size_t n, size_t size);
void *emu_xrealloc(void *p, size_t size);
char *emu_xstrdup(const char *s);
/* "EINVAL" for EINVAL (positive errno); a number for unknown ones. */
const char *emu_errname(int err);
/* Errno for a name ("EBUSY") or number ("16"); -1 if neither. */
int emu_errno_parse(const char *s);
uint64_t emu_now_ns(void);

#endif
