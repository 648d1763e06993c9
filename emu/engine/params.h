/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parameter sets: deep copies, and the byte stream that carries them from the daemon to the
 * kdamond process. Both ends are the same executable (/proc/self/exe), so structures travel
 * as raw bytes and only the pointers are rebuilt on arrival.
 */
#ifndef DAMON_EMU_PARAMS_H
#define DAMON_EMU_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

struct emu_buf {
	uint8_t *data;
	size_t len, cap;
};

struct emu_reader {
	const uint8_t *data;
	size_t len, off;
};

int emu_buf_put(struct emu_buf *b, const void *p, size_t n);
int emu_buf_put_str(struct emu_buf *b, const char *s);
void emu_buf_free(struct emu_buf *b);
int emu_rd_get(struct emu_reader *r, void *p, size_t n);
/* Returns a malloc'd string, or NULL (errno set) on a malformed stream. */
char *emu_rd_get_str(struct emu_reader *r);

int emu_params_pack(struct emu_buf *b, const struct emu_ctx_params *p);
/* Returns 0 and a new parameter set in *out, or -EPROTO / -ENOMEM. */
int emu_params_unpack(struct emu_reader *r, struct emu_ctx_params **out);

#endif
