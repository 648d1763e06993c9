// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Collapsing another process's memory into huge pages from user space: what DAMOS_COLLAPSE
 * (7.2) does inside the kernel, done with process_madvise(MADV_COLLAPSE) where the kernel
 * lacks the action. The same semantics: whole 2 MiB-aligned huge pages inside the range,
 * synchronous, memory already huge is left as it is.
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

#define HPAGE_SIZE (UINT64_C(2) << 20)

DAMONCTL_API int damonctl_pidfd_open(int pid)
{
	long fd = syscall(SYS_pidfd_open, (pid_t)pid, 0);

	return fd < 0 ? -errno : (int)fd;
}

DAMONCTL_API int damonctl_collapse_range(int pidfd, uint64_t start, uint64_t end,
					 uint64_t *collapsed)
{
	uint64_t s = (start + HPAGE_SIZE - 1) & ~(HPAGE_SIZE - 1), e = end & ~(HPAGE_SIZE - 1);
	struct iovec iov;
	long r;

	*collapsed = 0;
	if (s >= e)
		return -ERANGE;	/* no whole huge page inside */
	iov.iov_base = (void *)(uintptr_t)s;
	iov.iov_len = (size_t)(e - s);
	r = syscall(SYS_process_madvise, pidfd, &iov, 1UL, MADV_COLLAPSE, 0U);
	if (r < 0)
		return -errno;
	*collapsed = (uint64_t)r;
	return 0;
}
