/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * zlib, loaded by the first record read or written (dlib.h): the records' code calls it
 * through this table, after zlib_load().
 */
#ifndef DAMONCTL_ZLIB_DL_H
#define DAMONCTL_ZLIB_DL_H

#include <zlib.h>

#include "dlib.h"

#define ZLIB_FNS(X, t) X(t, crc32) X(t, compressBound) X(t, deflateInit_) X(t, deflate) \
	X(t, deflateReset) X(t, deflateEnd) X(t, inflateInit_) X(t, inflate) \
	X(t, inflateReset) X(t, inflateEnd)
struct zlib_fns {
	ZLIB_FNS(DLIB_FN, _)
};
extern struct zlib_fns zlib_fn;

/* 0 once zlib is there, or -ELIBACC with the reason in @why (@size bytes; none when 0). */
int zlib_load(char *why, size_t size);

/* zlib.h's deflateInit() and inflateInit(), through the table */
#define zlib_deflate_init(strm, level) \
	zlib_fn.deflateInit_((strm), (level), ZLIB_VERSION, (int)sizeof(z_stream))
#define zlib_inflate_init(strm) zlib_fn.inflateInit_((strm), ZLIB_VERSION, (int)sizeof(z_stream))

#endif
