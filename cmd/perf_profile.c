// SPDX-License-Identifier: GPL-2.0-or-later
/* perf record beside a record: see perf_profile.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "perf_profile.h"

/* In the child: perf in its own process group (a terminal's ^C is for damonc, which stops
 * perf after its last snapshot), its stdout on stderr (record may write to stdout), and
 * gone with damonc. Reports exec's errno on @err_fd. */
static void exec_perf(const struct perf_profile *p, int ctl, int ack, int err_fd)
{
	char ctl_arg[64];
	int null = open("/dev/null", O_RDONLY);
	int e;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGINT);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	snprintf(ctl_arg, sizeof(ctl_arg), "fd:%d,%d", ctl, ack);
	/* -D -1: events disabled until "enable" on the control fd, acknowledged on ack */
	execlp(p->perf, p->perf, "record", "-a", "-k", PERF_PROFILE_CLOCK, "-D", "-1",
	       "--control", ctl_arg, "-o", p->file, (char *)NULL);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void reap(struct perf_profile *p)
{
	int st;

	while (waitpid(p->pid, &st, 0) < 0)
		if (errno != EINTR)
			return;
	p->status = st;
	p->pid = 0;
}

/* After fork: whether exec worked (the CLOEXEC pipe closes empty) and perf acknowledged
 * "enable" (it reads its control fd once its events are open; it exits when they fail). */
static int handshake(struct cli *cli, struct perf_profile *p, int ctl_w, int ack_r, int err_r)
{
	char buf[16], how[48];
	int e = 0;
	ssize_t n;

	while ((n = read(err_r, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (n == sizeof(e)) {
		reap(p);
		return usage_error(cli, "--perf '%s': cannot run it: %s%s", p->perf, strerror(e),
				   e == ENOENT ? " (install perf: Debian's linux-perf)" : "");
	}
	if (write(ctl_w, "enable\n", 7) == 7) {
		while ((n = read(ack_r, buf, sizeof(buf))) < 0 && errno == EINTR)
			;
		if (n > 0 && !strncmp(buf, "ack", 3))
			return 0;
	}
	kill(p->pid, SIGKILL);	/* perf said why on stderr; it may be stuck */
	reap(p);
	usage_error(cli, "--profile: '%s record' did not start profiling (it %s; see its "
		    "messages above)", p->perf, perf_profile_outcome(p, how, sizeof(how)));
	return EXIT_FAIL;
}

int perf_profile_start(struct cli *cli, const char *perf, const char *file,
		       struct perf_profile *p)
{
	int ctl[2], ack[2], err[2], e;

	*p = (struct perf_profile){ .status = -1, .perf = perf, .file = file, .ctl_fd = -1 };
	signal(SIGPIPE, SIG_IGN);	/* perf gone before "enable": EPIPE */
	if (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return usage_error(cli, "--profile: pipes: %s", strerror(errno)), EXIT_FAIL;
	p->pid = fork();
	if (p->pid < 0) {
		e = errno;
		p->pid = 0;
		return usage_error(cli, "--profile: fork: %s", strerror(e)), EXIT_FAIL;
	}
	if (!p->pid) {
		/* perf's ends of the control pipes survive exec */
		fcntl(ctl[0], F_SETFD, 0);
		fcntl(ack[1], F_SETFD, 0);
		exec_perf(p, ctl[0], ack[1], err[1]);
	}
	close(ctl[0]);
	close(ack[1]);
	close(err[1]);
	e = handshake(cli, p, ctl[1], ack[0], err[0]);
	if (e)
		close(ctl[1]);
	else
		p->ctl_fd = ctl[1];
	close(ack[0]);
	close(err[0]);
	return e;
}

bool perf_profile_ok(const struct perf_profile *p)
{
	int st = p->status;

	return p->asked && st >= 0 &&
	       ((WIFSIGNALED(st) && WTERMSIG(st) == SIGINT) || (WIFEXITED(st) && !WEXITSTATUS(st)));
}

const char *perf_profile_outcome(const struct perf_profile *p, char *buf, size_t size)
{
	int st = p->status;

	if (st < 0)
		snprintf(buf, size, "still running");
	else if (perf_profile_ok(p))
		snprintf(buf, size, "ended as asked");
	else if (WIFEXITED(st))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(buf, size, "was killed by signal %d", WTERMSIG(st));
	return buf;
}

int perf_profile_stop(struct cli *cli, struct perf_profile *p)
{
	char how[48];
	int st = -1;

	if (!p->pid)
		return 0;
	/* ended by itself already (a perf error mid-record): not ours to ask */
	if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
		p->status = st;
		p->pid = 0;
	} else {
		p->asked = true;
		capture_stop_requested = 0;
		kill(p->pid, SIGINT);
		while (waitpid(p->pid, &st, 0) < 0) {
			if (errno != EINTR)
				break;
			if (capture_stop_requested)
				kill(p->pid, SIGKILL);
		}
		p->status = st;
		p->pid = 0;
	}
	close(p->ctl_fd);
	p->ctl_fd = -1;
	if (perf_profile_ok(p))
		return 0;
	usage_error(cli, "--profile: perf %s before the record ended: '%s' may be incomplete",
		    perf_profile_outcome(p, how, sizeof(how)), p->file);
	return EXIT_FAIL;
}
