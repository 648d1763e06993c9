// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

void *emu_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("damon-emu: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *emu_xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) {
		fputs("damon-emu: out of memory\n", stderr);
		abort();
	}
	return p;
}

char *emu_xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fputs("damon-emu: out of memory\n", stderr);
		abort();
	}
	return d;
}

#define E(x) { x, #x }
static const struct {
	int err;
	const char *name;
} errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(EBADF),
	E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
	E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOSPC),
	E(EROFS), E(ERANGE), E(ENOSYS), E(ETIMEDOUT), E(ECANCELED),
	E(EOPNOTSUPP), E(ENODATA),
};

const char *emu_errname(int err)
{
	static __thread char buf[16];

	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++) {
		if (errnames[i].err == err)
			return errnames[i].name;
	}
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

int emu_errno_parse(const char *s)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++) {
		if (!strcmp(errnames[i].name, s))
			return errnames[i].err;
	}
	v = strtol(s, &end, 10);
	if (end == s || *end || v <= 0 || v > 4095)
		return -1;
	return (int)v;
}

uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
