// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

#define E(x) { x, #x }
static const struct {
	int err;
	const char *name;
} names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(EBADF),
	E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
	E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOSPC),
	E(EROFS), E(ERANGE), E(ENOSYS), E(ETIMEDOUT), E(ECANCELED), E(EOPNOTSUPP),
	E(ENODATA),
};

const char *errno_name(int err)
{
	static char buf[16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].err == err)
			return names[i].name;
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

int errno_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(names[i].name, name))
			return names[i].err;
	}
	return -1;
}
