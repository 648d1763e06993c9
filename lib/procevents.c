// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Process events from the kernel's process events connector (NETLINK_CONNECTOR, group
 * CN_IDX_PROC, subscribed with PROC_CN_MCAST_LISTEN), through libnl: forks and exits as they
 * happen, so that a caller notices at once that a monitored process exited, or follows its
 * children. Only process-level events are returned: a thread's fork or exit is skipped.
 *
 * The connector needs CAP_NET_ADMIN in the initial user namespace, and reports nothing to
 * a caller in another pid namespace. After subscribing, the kernel acknowledges with a
 * PROC_EVENT_NONE message: waiting for it tells a kernel that has the connector but not
 * process events (CONFIG_PROC_EVENTS off) from one that works. libnl-3 is loaded by the
 * first damonctl_procevents_open() (dlib.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "dlib.h"
#include "internal.h"

#define NL_FNS(X, t) X(t, nl_socket_alloc) X(t, nl_socket_free) X(t, nl_connect) \
	X(t, nl_socket_get_fd) X(t, nl_socket_add_membership) X(t, nl_socket_set_buffer_size) \
	X(t, nl_socket_disable_seq_check) X(t, nl_socket_disable_auto_ack) \
	X(t, nl_send_simple) X(t, nlmsg_ok) X(t, nlmsg_datalen) X(t, nlmsg_data)
DLIB_DEFINE(nl, DAMONCTL_SONAME_NL, NL_FNS)

#define ACK_WAIT_MS 1000
#define RECV_BUF 8192

struct damonctl_procevents {
	struct nl_sock *sk;
	int fd;
	uint32_t nonce;		/* our subscription's cn_msg.ack: the kernel answers nonce + 1 */
	int ack_err;		/* the error our acknowledgement carried (positive errno) */
	char buf[RECV_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	size_t len, off;	/* received bytes, and how far they were parsed */
};

/* Send one connector control message: PROC_CN_MCAST_LISTEN or _IGNORE. */
static int send_op(struct damonctl_procevents *pe, enum proc_cn_mcast_op op)
{
	char msg[sizeof(struct cn_msg) + sizeof(op)] __attribute__((aligned(8)));
	struct cn_msg *cn = (struct cn_msg *)msg;
	int r;

	memset(msg, 0, sizeof(msg));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->ack = pe->nonce;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	r = nl.nl_send_simple(pe->sk, NLMSG_DONE, 0, msg, sizeof(msg));
	return r < 0 ? -ECOMM : 0;
}

static int nl_to_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_PERM:
		return -EPERM;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PROTO_MISMATCH:
	case NLE_OPNOTSUPP:
		return -EPROTONOSUPPORT;
	case NLE_AGAIN:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

/* Receive what is pending into the buffer: 1 if something came, 0 if nothing, -errno. */
static int fill(struct damonctl_procevents *pe)
{
	ssize_t n;

	pe->len = pe->off = 0;
	n = recv(pe->fd, pe->buf, sizeof(pe->buf), MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	pe->len = (size_t)n;
	return n > 0;
}

enum { EV_NONE_ACK = 2 };

/*
 * Parse the next connector message of the buffer: 1 with @ev filled, EV_NONE_ACK for our
 * subscription's acknowledgement, 0 when the buffer is used up. Acknowledgements go to every
 * listener: ours is the one whose ack is our nonce + 1 (the kernel renumbers seq).
 */
static int parse_next(struct damonctl_procevents *pe, struct damonctl_procevent *ev)
{
	while (pe->off < pe->len) {
		struct nlmsghdr *nh = (struct nlmsghdr *)(pe->buf + pe->off);
		int left = (int)(pe->len - pe->off);
		struct proc_event *e;
		struct cn_msg *cn;

		if (!nl.nlmsg_ok(nh, left)) {
			pe->off = pe->len;
			break;
		}
		pe->off += NLMSG_ALIGN(nh->nlmsg_len);
		if (nh->nlmsg_type == NLMSG_NOOP || nh->nlmsg_type == NLMSG_ERROR ||
		    nl.nlmsg_datalen(nh) < (int)(sizeof(*cn) + sizeof(*e) - sizeof(e->event_data)))
			continue;
		cn = nl.nlmsg_data(nh);
		if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
			continue;
		e = (struct proc_event *)cn->data;
		switch (e->what) {
		case PROC_EVENT_NONE:
			if (cn->ack != pe->nonce + 1)
				continue;	/* another listener's */
			pe->ack_err = (int)e->event_data.ack.err;
			return EV_NONE_ACK;
		case PROC_EVENT_FORK:
			/* a new thread of an existing process is not a new process */
			if (e->event_data.fork.child_pid != e->event_data.fork.child_tgid)
				continue;
			*ev = (struct damonctl_procevent)DAMONCTL_PROCEVENT_INIT;
			ev->kind = DAMONCTL_PROCEVENT_FORK;
			ev->pid = e->event_data.fork.child_tgid;
			ev->parent_pid = e->event_data.fork.parent_tgid;
			return 1;
		case PROC_EVENT_EXIT:
			/* the process ends when its thread group leader does */
			if (e->event_data.exit.process_pid != e->event_data.exit.process_tgid)
				continue;
			*ev = (struct damonctl_procevent)DAMONCTL_PROCEVENT_INIT;
			ev->kind = DAMONCTL_PROCEVENT_EXIT;
			ev->pid = e->event_data.exit.process_tgid;
			ev->exit_code = (int)e->event_data.exit.exit_code;
			return 1;
		default:
			continue;
		}
	}
	return 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for the kernel's acknowledgement of the subscription (events before it are lost
 * for nobody: they stay in the buffer for damonctl_procevents_next()). */
static int wait_ack(struct damonctl_procevents *pe)
{
	int64_t end = mono_ms() + ACK_WAIT_MS;
	struct damonctl_procevent ev;
	bool overrun = false;

	for (;;) {
		struct pollfd p = { .fd = pe->fd, .events = POLLIN };
		int64_t left = end - mono_ms();
		size_t keep;
		int r;

		/* no acknowledgement: a connector without process events, or ours was among
		 * what a busy machine's events crowded out of the buffer */
		if (left <= 0)
			return overrun ? -ENOBUFS : -EOPNOTSUPP;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		r = fill(pe);
		if (r == -ENOBUFS) {
			/* every process's events reach us until watch(): an overrun loses some
			 * of them, not the subscription, whose acknowledgement may still come */
			overrun = true;
			continue;
		}
		if (r < 0)
			return r;
		while ((r = parse_next(pe, &ev)) != 0) {
			if (r != EV_NONE_ACK)
				continue;
			if (pe->ack_err)
				return -pe->ack_err;	/* refused, e.g. EPERM */
			/* keep the rest of this buffer for the caller */
			keep = pe->len - pe->off;
			memmove(pe->buf, pe->buf + pe->off, keep);
			pe->len = keep;
			pe->off = 0;
			return 0;
		}
	}
}

DAMONCTL_API int damonctl_procevents_open(struct damonctl_procevents **out)
{
	struct damonctl_procevents *pe = calloc(1, sizeof(*pe));
	int r;

	if (!pe)
		return -ENOMEM;
	if (dlib_load(&nl_lib)) {
		free(pe);
		return -ELIBACC;
	}
	pe->sk = nl.nl_socket_alloc();
	if (!pe->sk) {
		free(pe);
		return -ENOMEM;
	}
	/* a nonce no other listener's subscription is likely to share */
	if (getrandom(&pe->nonce, sizeof(pe->nonce), GRND_NONBLOCK) != sizeof(pe->nonce))
		pe->nonce = (uint32_t)getpid() * 2654435761u ^ (uint32_t)mono_ms();
	nl.nl_socket_disable_seq_check(pe->sk);
	nl.nl_socket_disable_auto_ack(pe->sk);
	r = nl.nl_connect(pe->sk, NETLINK_CONNECTOR);
	if (r < 0) {
		r = errno == EPROTONOSUPPORT || errno == EAFNOSUPPORT ? -EPROTONOSUPPORT :
		    nl_to_errno(r);
		goto fail;
	}
	pe->fd = nl.nl_socket_get_fd(pe->sk);
	r = nl.nl_socket_add_membership(pe->sk, CN_IDX_PROC);
	if (r < 0) {
		r = nl_to_errno(r);
		goto fail;
	}
	/* lose no event while the caller is busy: a larger buffer than the default */
	nl.nl_socket_set_buffer_size(pe->sk, 1 << 20, 0);
	r = send_op(pe, PROC_CN_MCAST_LISTEN);
	if (r)
		goto fail;
	r = wait_ack(pe);
	if (r)
		goto fail;
	*out = pe;
	return 0;
fail:
	nl.nl_socket_free(pe->sk);
	free(pe);
	return r;
}

/* Where the fields the filter reads are in a message: netlink header, connector header,
 * then the event. */
#define EV_OFF (NLMSG_HDRLEN + (unsigned int)sizeof(struct cn_msg))
#define WHAT_OFF (EV_OFF + (unsigned int)offsetof(struct proc_event, what))
#define FORK_PARENT_OFF (EV_OFF + (unsigned int)offsetof(struct proc_event, \
						      event_data.fork.parent_tgid))
#define EXIT_PID_OFF (EV_OFF + (unsigned int)offsetof(struct proc_event, \
						   event_data.exit.process_pid))

/*
 * Write at @n a block that loads the pid at @off and jumps to @accept_at when it is one of
 * @pids, or drops the message; return where the next instruction goes. A jump's offset
 * counts from the next instruction.
 */
static unsigned int pid_block(struct sock_filter *f, unsigned int n, unsigned int off,
			      const int *pids, unsigned int nr, unsigned int accept_at)
{
	unsigned int i;

	f[n] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off);
	n++;
	for (i = 0; i < nr; i++, n++)
		f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						    htonl((uint32_t)pids[i]),
						    (uint8_t)(accept_at - n - 1), 0);
	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	return n + 1;
}

DAMONCTL_API int damonctl_procevents_watch(struct damonctl_procevents *pe, const int *pids,
					   unsigned int nr)
{
	/* what, 3 jumps, ret 0; per list: load, nr compares, ret 0; accept */
	struct sock_filter f[2 * DAMONCTL_PROCEVENTS_MAX_WATCH + 10];
	struct sock_fprog prog = { .filter = f };
	unsigned int n = 0, fork_at, exit_at, accept_at;

	if (nr > DAMONCTL_PROCEVENTS_MAX_WATCH)
		return -E2BIG;
	/* the layout of the program, so that every jump is known before it is written */
	fork_at = 5;
	exit_at = fork_at + 1 + nr + 1;
	accept_at = exit_at + 1 + nr + 1;
	/* cBPF loads words in network byte order: compare with htonl() of the values; a
	 * jump's offset counts from the next instruction */
#define JUMP_TO(at) ((uint8_t)((at) - n - 1))
	f[n] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, WHAT_OFF);
	n++;
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_NONE),
					    JUMP_TO(accept_at), 0);
	n++;
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_FORK),
					    JUMP_TO(fork_at), 0);
	n++;
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_EXIT),
					    JUMP_TO(exit_at), 0);
	n++;
	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	n++;
	/* forks of the watched processes, then their exits (their main thread: the process) */
	n = pid_block(f, n, FORK_PARENT_OFF, pids, nr, accept_at);
	n = pid_block(f, n, EXIT_PID_OFF, pids, nr, accept_at);
	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffffffff);
	n++;
#undef JUMP_TO
	prog.len = (unsigned short)n;
	if (setsockopt(pe->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		return -errno;
	return 0;
}

DAMONCTL_API int damonctl_procevents_fd(const struct damonctl_procevents *pe)
{
	return pe->fd;
}

/* the struct as 0.4, the first release with sz, had it */
#define PROCEVENT_MIN_SZ DCTL_SZ_TO(struct damonctl_procevent, exit_code)

DAMONCTL_API int damonctl_procevents_next_v0_4(struct damonctl_procevents *pe,
					       struct damonctl_procevent *ev)
{
	if (!ev || ev->sz < PROCEVENT_MIN_SZ)
		return -EINVAL;
	for (;;) {
		struct damonctl_procevent e;
		int r = parse_next(pe, &e);

		if (r == 1) {
			dctl_fill_sized(ev, &e, sizeof(e));
			return 1;
		}
		if (r == EV_NONE_ACK)
			continue;	/* another listener subscribed */
		r = fill(pe);
		if (r <= 0)
			return r;	/* -ENOBUFS: the kernel dropped events */
	}
}

DCTL_DEFAULT_VERSION(damonctl_procevents_next_v0_4, damonctl_procevents_next, LIBDAMONCTL_0.4)

DAMONCTL_API void damonctl_procevents_close(struct damonctl_procevents *pe)
{
	if (!pe)
		return;
	send_op(pe, PROC_CN_MCAST_IGNORE);
	nl.nl_socket_free(pe->sk);
	free(pe);
}
