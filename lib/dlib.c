// SPDX-License-Identifier: LGPL-2.1-or-later
/* Libraries loaded on first use (see dlib.h). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dlib.h"

static pthread_mutex_t dlib_lock = PTHREAD_MUTEX_INITIALIZER;

int dlib_sym(void *handle, const char *name, void *fn, size_t size)
{
	void *p = dlsym(handle, name);

	if (!p || size != sizeof(p))
		return -ELIBACC;
	/* POSIX: the address dlsym gives of a function converts to its function pointer */
	memcpy(fn, &p, size);
	return 0;
}

int dlib_load(struct dlib *l)
{
	void *h;
	int r;

	pthread_mutex_lock(&dlib_lock);
	if (!l->tried) {
		l->tried = true;
		h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
		l->err = h ? l->resolve(h) : -ELIBACC;
		if (!h)
			snprintf(l->why, sizeof(l->why), "%s", dlerror());
		else if (l->err)
			snprintf(l->why, sizeof(l->why), "%s lacks a function libdamonctl calls",
				 l->soname);
		/* a library once loaded stays, as it would have linked in */
	}
	r = l->err;
	pthread_mutex_unlock(&dlib_lock);
	return r;
}
