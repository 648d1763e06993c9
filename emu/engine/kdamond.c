// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's side of a kdamond process: starting it (fork, then exec of /proc/self/exe at
 * once, since the FUSE daemon is multi-threaded), requests over the channel, stopping and
 * reaping. Safe to call from several FUSE threads: one request at a time goes over the
 * channel, and a walk waits for its result on a channel of its own so that it does not hold
 * up the other requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "ipc.h"
#include "params.h"
#include "proto.h"
#include "util.h"

/* Requests are answered between two samples; an action (a collapse) may take a while. */
#define EMU_REQ_TIMEOUT_MS 60000
#define EMU_STOP_TIMEOUT_MS 10000

struct emu_kdamond {
	pthread_mutex_t chan_lock;	/* one request/reply at a time */
	pthread_mutex_t walk_lock;	/* one walk at a time */
	pthread_mutex_t state_lock;	/* pid, exited */
	int sock;
	pid_t pid;
	bool exited;
	bool broken;			/* the channel lost sync: only stopping is left */
};

bool emu_kdamond_running(struct emu_kdamond *k)
{
	bool running;

	pthread_mutex_lock(&k->state_lock);
	if (!k->exited) {
		int status;
		pid_t r = waitpid(k->pid, &status, WNOHANG);

		/* ECHILD: someone else reaped it (a SIGCHLD handler of the host program) */
		if (r == k->pid || (r < 0 && errno == ECHILD))
			k->exited = true;
	}
	running = !k->exited;
	pthread_mutex_unlock(&k->state_lock);
	return running;
}

pid_t emu_kdamond_pid(const struct emu_kdamond *k)
{
	return k->pid;
}

/* Sends a request and waits for its reply; the caller holds chan_lock. */
static int request_locked(struct emu_kdamond *k, enum emu_req req, const struct emu_buf *b,
			  int fd, struct emu_msg *reply)
{
	struct emu_msg m;
	int err;

	if (k->broken)
		return -ECANCELED;
	err = emu_ipc_send(k->sock, req, b ? b->data : NULL, b ? (uint32_t)b->len : 0, fd);
	if (!err)
		err = emu_ipc_recv(k->sock, &m, EMU_REQ_TIMEOUT_MS);
	if (err) {
		if (err == -ETIMEDOUT)
			k->broken = true;
		return -ECANCELED;	/* the kdamond has stopped (or cannot be talked to) */
	}
	if (m.code) {
		err = m.code;
		emu_msg_free(&m);
		return err;
	}
	if (reply)
		*reply = m;
	else
		emu_msg_free(&m);
	return 0;
}

static int request(struct emu_kdamond *k, enum emu_req req, const struct emu_buf *b, int fd,
		   struct emu_msg *reply)
{
	int err;

	if (!emu_kdamond_running(k))
		return -ECANCELED;
	pthread_mutex_lock(&k->chan_lock);
	err = request_locked(k, req, b, fd, reply);
	pthread_mutex_unlock(&k->chan_lock);
	return err;
}

/*
 * The executable to re-execute: the file /proc/self/exe points to, which is this very binary
 * unless it was replaced on disk meanwhile (the link then ends in " (deleted)", and
 * /proc/self/exe itself still reaches the old one). Going through the path lets valgrind,
 * whose own /proc/self/exe is valgrind, follow the kdamond.
 */
static void self_exe(char *buf, size_t size)
{
	static const char deleted[] = " (deleted)";
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n > 0) {
		buf[n] = '\0';
		if ((size_t)n < sizeof(deleted) ||
		    strcmp(buf + n - (sizeof(deleted) - 1), deleted))
			return;
	}
	snprintf(buf, size, "/proc/self/exe");
}

static int spawn(struct emu_kdamond *k, int child_fd)
{
	char fdstr[16], exe[PATH_MAX];
	char *argv[] = { "damon-emu", "--kdamond-child", fdstr, NULL };
	pid_t pid;

	snprintf(fdstr, sizeof(fdstr), "%d", child_fd);
	self_exe(exe, sizeof(exe));
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		/* only async-signal-safe calls until exec: other threads may hold locks */
		if (fcntl(child_fd, F_SETFD, 0) < 0)
			_exit(127);
		execv(exe, argv);
		_exit(127);
	}
	k->pid = pid;
	return 0;
}

static void kill_and_reap(struct emu_kdamond *k)
{
	if (emu_kdamond_running(k)) {
		kill(k->pid, SIGKILL);
		pthread_mutex_lock(&k->state_lock);
		if (!k->exited)
			waitpid(k->pid, NULL, 0);
		k->exited = true;
		pthread_mutex_unlock(&k->state_lock);
	}
}

int emu_kdamond_start(const struct emu_ctx_params *p, const char *name,
		      const struct emu_engine_opts *opts, struct emu_kdamond **out)
{
	struct emu_kdamond *k = calloc(1, sizeof(*k));
	struct emu_buf b = { 0 };
	uint8_t real = opts && opts->real_actions, huge = opts && opts->hugepage_metric;
	int sv[2], err;

	if (!k)
		return -ENOMEM;
	pthread_mutex_init(&k->chan_lock, NULL);
	pthread_mutex_init(&k->walk_lock, NULL);
	pthread_mutex_init(&k->state_lock, NULL);
	k->sock = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		goto fail;
	}
	k->sock = sv[0];
	err = spawn(k, sv[1]);
	close(sv[1]);
	if (err)
		goto fail;

	err = emu_buf_put_str(&b, name ? name : "kdamond");
	err = err ? err : emu_buf_put_str(&b, opts && opts->scenario_path ? opts->scenario_path : "");
	err = err ? err : emu_buf_put_str(&b, opts && opts->proc_root ? opts->proc_root : "");
	err = err ? err : emu_buf_put_str(&b, opts && opts->cgroup_root ? opts->cgroup_root : "");
	err = err ? err : emu_buf_put(&b, &real, 1);
	err = err ? err : emu_buf_put(&b, &huge, 1);
	err = err ? err : emu_params_pack(&b, p);
	if (!err) {
		pthread_mutex_lock(&k->chan_lock);
		err = request_locked(k, EMU_REQ_INIT, &b, -1, NULL);
		pthread_mutex_unlock(&k->chan_lock);
		/* -ECANCELED here means the child died before answering (exec failed...) */
		if (err == -ECANCELED)
			err = -ECHILD;
	}
	emu_buf_free(&b);
	if (err) {
		kill_and_reap(k);
		goto fail;
	}
	*out = k;
	return 0;
fail:
	if (k->sock >= 0)
		close(k->sock);
	pthread_mutex_destroy(&k->chan_lock);
	pthread_mutex_destroy(&k->walk_lock);
	pthread_mutex_destroy(&k->state_lock);
	free(k);
	return err;
}

static int commit(struct emu_kdamond *k, enum emu_req req, const struct emu_ctx_params *p)
{
	struct emu_buf b = { 0 };
	int err = emu_params_pack(&b, p);

	if (!err)
		err = request(k, req, &b, -1, NULL);
	emu_buf_free(&b);
	return err;
}

int emu_kdamond_commit(struct emu_kdamond *k, const struct emu_ctx_params *p)
{
	return commit(k, EMU_REQ_COMMIT, p);
}

int emu_kdamond_commit_goals(struct emu_kdamond *k, const struct emu_ctx_params *p)
{
	return commit(k, EMU_REQ_COMMIT_GOALS, p);
}

int emu_kdamond_stop(struct emu_kdamond *k)
{
	uint64_t deadline;

	if (emu_kdamond_running(k)) {
		pthread_mutex_lock(&k->chan_lock);
		request_locked(k, EMU_REQ_STOP, NULL, -1, NULL);
		pthread_mutex_unlock(&k->chan_lock);
	}
	/* it exits right after the reply; give it a moment, then make sure */
	deadline = emu_now_us() + EMU_STOP_TIMEOUT_MS * 1000ull;
	while (emu_kdamond_running(k) && emu_now_us() < deadline)
		usleep(1000);
	kill_and_reap(k);
	return 0;
}

void emu_kdamond_free(struct emu_kdamond *k)
{
	if (!k)
		return;
	if (emu_kdamond_running(k))
		emu_kdamond_stop(k);
	close(k->sock);
	pthread_mutex_destroy(&k->chan_lock);
	pthread_mutex_destroy(&k->walk_lock);
	pthread_mutex_destroy(&k->state_lock);
	free(k);
}

static int get_u32(struct emu_reader *r, uint32_t *v)
{
	return emu_rd_get(r, v, sizeof(*v));
}

static int get_u64(struct emu_reader *r, uint64_t *v)
{
	return emu_rd_get(r, v, sizeof(*v));
}

int emu_kdamond_stats(struct emu_kdamond *k, int nr_schemes, struct emu_scheme_stats *out)
{
	struct emu_msg m;
	struct emu_reader r;
	uint32_t n;
	int err = request(k, EMU_REQ_STATS, NULL, -1, &m);

	if (err)
		return err;
	r = (struct emu_reader){ .data = m.data, .len = m.len };
	memset(out, 0, (size_t)(nr_schemes > 0 ? nr_schemes : 0) * sizeof(*out));
	err = get_u32(&r, &n);
	for (uint32_t i = 0; !err && i < n; i++) {
		struct emu_scheme_stats s;

		err = get_u64(&r, &s.nr_tried);
		err = err ? err : get_u64(&r, &s.sz_tried);
		err = err ? err : get_u64(&r, &s.nr_applied);
		err = err ? err : get_u64(&r, &s.sz_applied);
		err = err ? err : get_u64(&r, &s.sz_ops_filter_passed);
		err = err ? err : get_u64(&r, &s.qt_exceeds);
		err = err ? err : get_u64(&r, &s.nr_snapshots);
		if (!err && (int)i < nr_schemes)
			out[i] = s;
	}
	emu_msg_free(&m);
	return err;
}

int emu_kdamond_effective_quotas(struct emu_kdamond *k, int nr_schemes, uint64_t *bytes)
{
	struct emu_msg m;
	struct emu_reader r;
	uint32_t n;
	int err = request(k, EMU_REQ_QUOTAS, NULL, -1, &m);

	if (err)
		return err;
	r = (struct emu_reader){ .data = m.data, .len = m.len };
	memset(bytes, 0, (size_t)(nr_schemes > 0 ? nr_schemes : 0) * sizeof(*bytes));
	err = get_u32(&r, &n);
	for (uint32_t i = 0; !err && i < n; i++) {
		uint64_t v;

		err = get_u64(&r, &v);
		if (!err && (int)i < nr_schemes)
			bytes[i] = v;
	}
	emu_msg_free(&m);
	return err;
}

int emu_kdamond_tuned_intervals(struct emu_kdamond *k, uint64_t *sample_us, uint64_t *aggr_us)
{
	struct emu_msg m;
	struct emu_reader r;
	int err = request(k, EMU_REQ_INTERVALS, NULL, -1, &m);

	if (err)
		return err;
	r = (struct emu_reader){ .data = m.data, .len = m.len };
	err = get_u64(&r, sample_us);
	err = err ? err : get_u64(&r, aggr_us);
	emu_msg_free(&m);
	return err;
}

static int parse_walk(const struct emu_msg *m, int nr_schemes, struct emu_tried_region **regions,
		      size_t *nr_regions, uint64_t *total_bytes)
{
	struct emu_reader r = { .data = m->data, .len = m->len };
	uint32_t n;
	int err = get_u32(&r, &n);

	for (uint32_t i = 0; !err && i < n; i++) {
		struct emu_tried_region *arr = NULL;
		uint64_t total;
		uint32_t nr;

		err = get_u64(&r, &total);
		err = err ? err : get_u32(&r, &nr);
		if (err)
			break;
		if (nr > (r.len - r.off) / 32)
			return -EPROTO;
		if (nr && (int)i < nr_schemes) {
			arr = malloc(nr * sizeof(*arr));
			if (!arr)
				return -ENOMEM;
		}
		for (uint32_t k = 0; !err && k < nr; k++) {
			struct emu_tried_region t;

			err = proto_get_tried(&r, &t);
			if (!err && arr)
				arr[k] = t;
		}
		if (err) {
			free(arr);
			break;
		}
		if ((int)i < nr_schemes) {
			regions[i] = arr;
			nr_regions[i] = nr;
			total_bytes[i] = total;
		}
	}
	return err;
}

int emu_kdamond_walk(struct emu_kdamond *k, int nr_schemes, struct emu_tried_region **regions,
		     size_t *nr_regions, uint64_t *total_bytes)
{
	struct emu_msg m;
	int sv[2], err;

	for (int i = 0; i < nr_schemes; i++) {
		regions[i] = NULL;
		nr_regions[i] = 0;
		total_bytes[i] = 0;
	}
	if (pthread_mutex_trylock(&k->walk_lock))
		return -EBUSY;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		goto out;
	}
	err = request(k, EMU_REQ_WALK, NULL, sv[1], NULL);
	close(sv[1]);
	if (!err) {
		/* as long as it takes every scheme to pass an apply interval */
		err = emu_ipc_recv(sv[0], &m, -1);
		if (err) {
			err = -ECANCELED;	/* the kdamond stopped meanwhile */
		} else {
			err = m.code ? m.code : parse_walk(&m, nr_schemes, regions, nr_regions,
							     total_bytes);
			emu_msg_free(&m);
		}
		if (err) {
			for (int i = 0; i < nr_schemes; i++) {
				free(regions[i]);
				regions[i] = NULL;
				nr_regions[i] = 0;
				total_bytes[i] = 0;
			}
		}
	}
	close(sv[0]);
out:
	pthread_mutex_unlock(&k->walk_lock);
	return err;
}
