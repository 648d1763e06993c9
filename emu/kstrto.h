/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's string conversions as sysfs store handlers see them (lib/kstrtox.c,
 * lib/string.c): base 0, one optional trailing newline, -EINVAL on a parse error and
 * -ERANGE on overflow. Written from their documented behaviour, not copied.
 */
#ifndef DAMON_EMU_KSTRTO_H
#define DAMON_EMU_KSTRTO_H

#include <stdbool.h>
#include <stdint.h>

int emu_kstrtoull(const char *s, unsigned int base, uint64_t *res);
int emu_kstrtoll(const char *s, unsigned int base, int64_t *res);
int emu_kstrtouint(const char *s, unsigned int base, unsigned int *res);
int emu_kstrtoint(const char *s, unsigned int base, int *res);
int emu_kstrtobool(const char *s, bool *res);
/* Equal, allowing one trailing newline on either side. */
bool emu_sysfs_streq(const char *a, const char *b);

#endif
