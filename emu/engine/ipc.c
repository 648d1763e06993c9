// SPDX-License-Identifier: GPL-2.0-or-later
/* Framed messages with optional fd passing over a stream socket. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ipc.h"

struct hdr {
	int32_t code;
	uint32_t len;
};

/* The payload size limit keeps a corrupt header from asking for gigabytes. */
#define EMU_IPC_MAX_LEN (256u << 20)

int emu_ipc_send(int sock, int32_t code, const void *data, uint32_t len, int fd)
{
	struct hdr h = { .code = code, .len = len };
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)data, .iov_len = len },
	};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	size_t total = sizeof(h) + len, sent = 0;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	while (sent < total) {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		sent += (size_t)n;
		/* the fd went with the first byte; advance the iovecs past what was sent */
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		while (n > 0 && mh.msg_iovlen) {
			if ((size_t)n >= mh.msg_iov->iov_len) {
				n -= (ssize_t)mh.msg_iov->iov_len;
				mh.msg_iov++;
				mh.msg_iovlen--;
			} else {
				mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + n;
				mh.msg_iov->iov_len -= (size_t)n;
				n = 0;
			}
		}
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_readable(int sock, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		int timeout = -1, n;

		if (deadline >= 0) {
			int64_t left = deadline - now_ms();

			timeout = left > 0 ? (int)left : 0;
		}
		n = poll(&p, 1, timeout);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* Reads exactly @len bytes (the first read may also pick up a passed fd). */
static int read_full(int sock, void *buf, size_t len, int *fd, int64_t deadline)
{
	size_t got = 0;

	while (got < len) {
		struct iovec iov = { .iov_base = (char *)buf + got, .iov_len = len - got };
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} ctl;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;
		int err;

		if (fd) {
			mh.msg_control = ctl.buf;
			mh.msg_controllen = sizeof(ctl.buf);
		}
		err = wait_readable(sock, deadline);
		if (err)
			return err;
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		if (fd) {
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
				if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
				    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
					int passed;

					memcpy(&passed, CMSG_DATA(c), sizeof(int));
					if (*fd >= 0)
						close(passed);
					else
						*fd = passed;
				}
			}
		}
		got += (size_t)n;
	}
	return 0;
}

int emu_ipc_recv(int sock, struct emu_msg *m, int timeout_ms)
{
	int64_t deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : -1;
	struct hdr h;
	int err;

	m->data = NULL;
	m->len = 0;
	m->fd = -1;
	err = read_full(sock, &h, sizeof(h), &m->fd, deadline);
	if (err)
		goto fail;
	if (h.len > EMU_IPC_MAX_LEN) {
		err = -EPROTO;
		goto fail;
	}
	m->code = h.code;
	m->len = h.len;
	if (h.len) {
		m->data = malloc((size_t)h.len + 1);
		if (!m->data) {
			err = -ENOMEM;
			goto fail;
		}
		err = read_full(sock, m->data, h.len, NULL, deadline);
		if (err)
			goto fail;
		m->data[h.len] = '\0';
	}
	return 0;
fail:
	emu_msg_free(m);
	return err;
}

void emu_msg_free(struct emu_msg *m)
{
	free(m->data);
	m->data = NULL;
	m->len = 0;
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}
