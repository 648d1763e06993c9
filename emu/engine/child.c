// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kdamond process: `damon-emu --kdamond-child FD`. It runs the monitoring loop and,
 * while it sleeps between samples, serves the daemon's requests on FD. It ends on STOP, when
 * the daemon goes away (EOF), or by itself when every vaddr target has exited.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "ctx.h"
#include "ipc.h"
#include "monitor.h"
#include "params.h"
#include "proto.h"
#include "schemes.h"
#include "util.h"
#include "walk.h"

struct child {
	int sock;
	int walk_fd;		/* where the pending walk's result goes; -1: none */
	struct mon_ctx *ctx;
	bool quit;
};

static int reply(struct child *ch, int32_t code, const struct emu_buf *b)
{
	return emu_ipc_send(ch->sock, code, b ? b->data : NULL, b ? (uint32_t)b->len : 0, -1);
}

static int put_u64(struct emu_buf *b, uint64_t v)
{
	return emu_buf_put(b, &v, sizeof(v));
}

static int put_u32(struct emu_buf *b, uint32_t v)
{
	return emu_buf_put(b, &v, sizeof(v));
}

/* Sends a finished or canceled walk to whoever asked for it. */
static void deliver_walk(struct child *ch)
{
	struct mon_ctx *c = ch->ctx;
	struct mon_walk *w = &c->walk;
	struct emu_buf b = { 0 };
	int err = 0;

	if (w->state != MON_WALK_DONE && w->state != MON_WALK_CANCELED)
		return;
	if (ch->walk_fd >= 0) {
		if (w->state == MON_WALK_CANCELED) {
			emu_ipc_send(ch->walk_fd, -ECANCELED, NULL, 0, -1);
		} else {
			err = put_u32(&b, (uint32_t)w->nr_schemes);
			for (int i = 0; !err && i < w->nr_schemes; i++) {
				const struct mon_walk_region_list *l = &w->lists[i];

				err = put_u64(&b, w->total_bytes[i]);
				if (!err)
					err = put_u32(&b, (uint32_t)l->nr);
				for (size_t k = 0; !err && k < l->nr; k++)
					err = proto_put_tried(&b, &l->regions[k]);
			}
			emu_ipc_send(ch->walk_fd, err ? err : 0, err ? NULL : b.data,
				     err ? 0 : (uint32_t)b.len, -1);
			emu_buf_free(&b);
		}
		close(ch->walk_fd);
		ch->walk_fd = -1;
	}
	walk_reset(c);
}

static int unpack_params(const struct emu_msg *m, struct emu_ctx_params **p)
{
	struct emu_reader rd = { .data = m->data, .len = m->len };

	return emu_params_unpack(&rd, p);
}

static void handle(struct child *ch, struct emu_msg *m)
{
	struct mon_ctx *c = ch->ctx;
	struct emu_ctx_params *p = NULL;
	struct emu_buf b = { 0 };
	int err = 0;

	switch (m->code) {
	case EMU_REQ_COMMIT:
	case EMU_REQ_COMMIT_GOALS:
		err = unpack_params(m, &p);
		if (!err)
			err = m->code == EMU_REQ_COMMIT ? mon_commit(c, p) : mon_commit_goals(c, p);
		emu_params_free(p);
		reply(ch, err, NULL);
		if (c->corrupted)
			ch->quit = true;	/* as the kernel's kdamond does */
		return;
	case EMU_REQ_STATS:
		err = put_u32(&b, (uint32_t)c->nr_schemes);
		for (int i = 0; !err && i < c->nr_schemes; i++) {
			const struct emu_scheme_stats *s = &c->schemes[i].stat;

			err = put_u64(&b, s->nr_tried);
			err = err ? err : put_u64(&b, s->sz_tried);
			err = err ? err : put_u64(&b, s->nr_applied);
			err = err ? err : put_u64(&b, s->sz_applied);
			err = err ? err : put_u64(&b, s->sz_ops_filter_passed);
			err = err ? err : put_u64(&b, s->qt_exceeds);
			err = err ? err : put_u64(&b, s->nr_snapshots);
		}
		break;
	case EMU_REQ_QUOTAS:
		err = put_u32(&b, (uint32_t)c->nr_schemes);
		for (int i = 0; !err && i < c->nr_schemes; i++)
			err = put_u64(&b, c->schemes[i].q.esz);
		break;
	case EMU_REQ_INTERVALS:
		err = put_u64(&b, c->attrs.sample_us);
		err = err ? err : put_u64(&b, c->attrs.aggr_us);
		break;
	case EMU_REQ_WALK:
		if (m->fd < 0) {
			err = -EPROTO;
		} else if (ch->walk_fd >= 0) {
			err = -EBUSY;
		} else {
			err = walk_start(c);
			if (!err) {
				ch->walk_fd = m->fd;
				m->fd = -1;
			}
		}
		reply(ch, err, NULL);
		return;
	case EMU_REQ_STOP:
		reply(ch, 0, NULL);
		ch->quit = true;
		return;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	reply(ch, err, err ? NULL : &b);
	emu_buf_free(&b);
}

/* Serves requests until @deadline_us (monotonic); stops early when told to quit. */
static void serve_until(struct child *ch, uint64_t deadline_us)
{
	while (!ch->quit) {
		uint64_t now = emu_now_us(), left;
		struct pollfd pfd = { .fd = ch->sock, .events = POLLIN };
		struct timespec ts;
		struct emu_msg m;
		int n;

		if (now >= deadline_us)
			return;
		left = deadline_us - now;
		ts.tv_sec = (time_t)(left / 1000000);
		ts.tv_nsec = (long)(left % 1000000) * 1000;
		n = ppoll(&pfd, 1, &ts, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (emu_ipc_recv(ch->sock, &m, 10000)) {
			ch->quit = true;	/* the daemon is gone */
			return;
		}
		handle(ch, &m);
		emu_msg_free(&m);
	}
}

/* kdamond_wait_activation(): sleeps while the watermarks hold every scheme off. */
static bool wait_activation(struct child *ch)
{
	struct mon_ctx *c = ch->ctx;

	while (!ch->quit && !mon_need_stop(c)) {
		uint64_t wait = schemes_wmark_wait_us(c);

		if (!wait)
			return true;
		serve_until(ch, emu_now_us() + wait);
		walk_cancel(c);
		deliver_walk(ch);
	}
	return false;
}

static void run(struct child *ch)
{
	struct mon_ctx *c = ch->ctx;

	while (!ch->quit && !mon_need_stop(c)) {
		struct mon_iter it;

		mon_iter_begin(c, &it);
		if (!wait_activation(ch))
			break;
		/*
		 * A full sampling interval after the work, as the kernel's kdamond sleeps: the
		 * intervals are never shorter than asked, so a quota window of one aggregation
		 * interval has always ended by the next apply.
		 */
		serve_until(ch, emu_now_us() + (it.sample_us ? it.sample_us : 1));
		if (ch->quit || c->corrupted)
			break;
		c->now_us = emu_now_us();
		mon_sample(c, &it);
		while (c->pause && !ch->quit) {
			walk_cancel(c);
			deliver_walk(ch);
			serve_until(ch, emu_now_us() + (c->attrs.sample_us ? c->attrs.sample_us : 1));
			if (mon_need_stop(c))
				ch->quit = true;
		}
		if (ch->quit)
			break;
		c->now_us = emu_now_us();
		mon_after_sample(c, &it);
		deliver_walk(ch);
	}
	walk_cancel(c);
	deliver_walk(ch);
}

static int init(struct child *ch, const struct emu_msg *m)
{
	struct emu_reader rd = { .data = m->data, .len = m->len };
	struct emu_engine_opts opts = { 0 };
	struct emu_ctx_params *p = NULL;
	char *name = NULL, *scenario = NULL, *proc_root = NULL, *cgroup_root = NULL;
	uint8_t real = 0, huge = 0;
	int err = -EPROTO;

	if (m->code != EMU_REQ_INIT)
		return -EPROTO;
	name = emu_rd_get_str(&rd);
	scenario = name ? emu_rd_get_str(&rd) : NULL;
	proc_root = scenario ? emu_rd_get_str(&rd) : NULL;
	cgroup_root = proc_root ? emu_rd_get_str(&rd) : NULL;
	if (!cgroup_root || emu_rd_get(&rd, &real, 1) || emu_rd_get(&rd, &huge, 1))
		goto out;
	err = emu_params_unpack(&rd, &p);
	if (err)
		goto out;
	prctl(PR_SET_NAME, name, 0, 0, 0);
	opts.scenario_path = *scenario ? scenario : NULL;
	opts.proc_root = *proc_root ? proc_root : "/proc";
	opts.cgroup_root = *cgroup_root ? cgroup_root : NULL;
	opts.real_actions = real;
	opts.hugepage_metric = huge;
	ch->ctx = mon_ctx_new(p, &opts, emu_now_us(), emu_now_ns() ^ ((uint64_t)getpid() << 32));
	err = ch->ctx ? 0 : -ENOMEM;
	if (!err)
		mon_start(ch->ctx);
out:
	emu_params_free(p);
	free(name);
	free(scenario);
	free(proc_root);
	free(cgroup_root);
	return err;
}

int emu_kdamond_child_main(int fd)
{
	struct child ch = { .sock = fd, .walk_fd = -1 };
	struct emu_msg m;
	int err;

	/* terminal signals are for the daemon; the daemon stops us through the channel */
	setpgid(0, 0);
	signal(SIGPIPE, SIG_IGN);
	if (emu_ipc_recv(fd, &m, 10000))
		return 1;
	err = init(&ch, &m);
	emu_msg_free(&m);
	emu_ipc_send(fd, err, NULL, 0, -1);
	if (err) {
		close(fd);
		return 1;
	}
	run(&ch);
	mon_ctx_free(ch.ctx);
	if (ch.walk_fd >= 0)
		close(ch.walk_fd);
	close(fd);
	return 0;
}
