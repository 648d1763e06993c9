/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The channel between the daemon and a kdamond process: a stream socket carrying framed
 * messages (a signed code, a length, a payload) and, optionally, one file descriptor.
 * Requests carry an EMU_REQ_* code; replies carry 0 or -errno.
 */
#ifndef DAMON_EMU_IPC_H
#define DAMON_EMU_IPC_H

#include <stdint.h>

enum emu_req {
	EMU_REQ_INIT = 1,	/* name, options, params; reply once the loop is about to run */
	EMU_REQ_COMMIT,		/* params */
	EMU_REQ_COMMIT_GOALS,	/* params */
	EMU_REQ_STATS,
	EMU_REQ_QUOTAS,
	EMU_REQ_INTERVALS,
	EMU_REQ_WALK,		/* carries the fd on which the result will come */
	EMU_REQ_STOP,
};

struct emu_msg {
	int32_t code;
	uint32_t len;
	uint8_t *data;		/* malloc'd, NUL-terminated for convenience; NULL if len == 0 */
	int fd;			/* -1 unless one came with the message */
};

/* Never raises SIGPIPE. Returns 0 or -errno. */
int emu_ipc_send(int sock, int32_t code, const void *data, uint32_t len, int fd);
/*
 * Blocks up to @timeout_ms (-1: forever) for a whole message. Returns 0, -ECONNRESET when
 * the peer has gone, -ETIMEDOUT, or another -errno.
 */
int emu_ipc_recv(int sock, struct emu_msg *m, int timeout_ms);
void emu_msg_free(struct emu_msg *m);

#endif
