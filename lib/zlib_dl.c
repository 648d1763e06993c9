// SPDX-License-Identifier: LGPL-2.1-or-later
/* zlib loaded on first use (see zlib_dl.h). */
#include <errno.h>
#include <stdio.h>

#include "zlib_dl.h"

struct zlib_fns zlib_fn;

static int zlib_resolve(void *handle)
{
	ZLIB_FNS(DLIB_RESOLVE, zlib_fn)
	return 0;
}

static struct dlib libz = DLIB_INIT(DAMONCTL_SONAME_ZLIB, zlib_resolve);

int zlib_load(char *why, size_t size)
{
	int r = dlib_load(&libz);

	if (r && size)
		snprintf(why, size, "%s", libz.why);
	return r;
}
