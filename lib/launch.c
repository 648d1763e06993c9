// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A command launched for monitoring (damo's `start -- COMMAND`): forked, then held before
 * its exec until the caller lets it go, so that its pid can be a target of the kdamond being
 * built, and every check can still refuse the start without the command having run. It is
 * let go before the kdamond starts: DAMON takes a process's address space when it starts,
 * and before the exec that is a copy of the caller's. A failed exec is told to the caller,
 * through a pipe that a successful one closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

struct damonctl_launch {
	pid_t pid;
	int go;		/* the caller's end of the socket the child waits on */
	int exec_err;	/* the child's errno of a failed exec, or EOF once it exec'd */
	bool released, exec_failed;
};

DAMONCTL_API int damonctl_launch_find(const char *name, char *path, size_t size)
{
	const char *dirs = getenv("PATH"), *p, *end;
	struct stat st;
	int err = -ENOENT;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (stat(name, &st))
			return -errno;
		if (!S_ISREG(st.st_mode))
			return S_ISDIR(st.st_mode) ? -EISDIR : -EACCES;
		if (access(name, X_OK))
			return -errno;
		return snprintf(path, size, "%s", name) < (int)size ? 0 : -ENAMETOOLONG;
	}
	for (p = dirs && *dirs ? dirs : "/bin:/usr/bin"; p; p = end ? end + 1 : NULL) {
		end = strchr(p, ':');
		snprintf(path, size, "%.*s%s%s", end ? (int)(end - p) : (int)strlen(p), p,
			 end == p || !*p ? "" : "/", name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!access(path, X_OK))
			return 0;
		err = -EACCES;
	}
	return err;
}

DAMONCTL_API int damonctl_launch_new(const char *path, char *const argv[],
				     struct damonctl_launch **out)
{
	struct damonctl_launch *l = calloc(1, sizeof(*l));
	int go[2], status[2], err;

	if (!l)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go)) {
		err = -errno;
		free(l);
		return err;
	}
	if (pipe2(status, O_CLOEXEC)) {
		err = -errno;
		goto fail_go;
	}
	l->pid = fork();
	if (l->pid < 0) {
		err = -errno;
		close(status[0]);
		close(status[1]);
		goto fail_go;
	}
	if (!l->pid) {
		char c;
		int e;

		close(go[0]);
		close(status[0]);
		/* the caller's end closed without a word: it is gone, or gave up */
		if (read(go[1], &c, 1) != 1)
			_exit(127);
		close(go[1]);
		/* execvp: a file the kernel cannot execute runs as a shell script, as in a shell */
		execvp(path, argv);
		e = errno;
		if (write(status[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(go[1]);
	close(status[1]);
	l->go = go[0];
	l->exec_err = status[0];
	*out = l;
	return 0;
fail_go:
	close(go[0]);
	close(go[1]);
	free(l);
	return err;
}

DAMONCTL_API int damonctl_launch_pid(const struct damonctl_launch *l)
{
	return l ? (int)l->pid : -1;
}

DAMONCTL_API int damonctl_launch_release(struct damonctl_launch *l)
{
	ssize_t n;
	int e = 0;

	if (l->released)
		return -EALREADY;
	l->released = true;
	n = send(l->go, "g", 1, MSG_NOSIGNAL);
	close(l->go);
	l->go = -1;
	if (n != 1)
		return -ESRCH;	/* it ended before its exec */
	/* its errno when the exec failed; nothing when the exec closed the pipe */
	do
		n = read(l->exec_err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	l->exec_failed = n == sizeof(e) && e;
	return l->exec_failed ? -e : 0;
}

DAMONCTL_API void damonctl_launch_free(struct damonctl_launch *l)
{
	if (!l)
		return;
	/* held still: the command never runs; or its exec failed, and it has exited */
	if (!l->released)
		kill(l->pid, SIGKILL);
	if (!l->released || l->exec_failed)
		while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR)
			;
	if (l->go >= 0)
		close(l->go);
	close(l->exec_err);
	free(l);
}
