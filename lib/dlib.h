/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Libraries libdamonctl loads on first use rather than at every program's start: libyaml
 * (a YAML configuration), libnl-3 (the proc connector), zlib (records) and libm (log2, for
 * a log scale). A program that reads only the sysfs tree loads none of them: each is a
 * shared object the dynamic loader would map and relocate at every start. Each user keeps a table of the functions
 * it calls, declared from the library's own header (so their types are checked), and fills
 * it from the library on first use:
 *
 *   #define YAML_FNS(X, t) X(t, yaml_parser_initialize) X(t, yaml_parser_load) ...
 *   DLIB_DEFINE(yaml, DAMONCTL_SONAME_YAML, YAML_FNS)
 *   ...
 *   if (dlib_load(&yaml_lib)) return -ELIBACC;	(yaml_lib.why says why)
 *   yaml.yaml_parser_initialize(&parser);
 *
 * The sonames are those the build linked against (meson.build finds them), so the very
 * library a direct link would have loaded is the one loaded.
 */
#ifndef DAMONCTL_DLIB_H
#define DAMONCTL_DLIB_H

#include <stdbool.h>
#include <stddef.h>

#include "dlib_sonames.h"

struct dlib {
	const char *soname;
	int (*resolve)(void *handle);	/* fills the caller's table: 0, or -ELIBACC */
	bool tried;
	int err;			/* after the first try: 0, or -ELIBACC */
	char why[256];			/* dlerror()'s sentence when it failed */
};
#define DLIB_INIT(soname, resolve) { (soname), (resolve), false, 0, "" }

/* A member of a table: a pointer to function @f, of its declared type, named as it. */
#define DLIB_FN(t, f) __typeof__(f) *f;
/* In a resolve function (its argument: handle): table @t's member @f filled, or -ELIBACC
 * returned. */
#define DLIB_RESOLVE(t, f) \
	if (dlib_sym(handle, #f, &(t).f, sizeof((t).f))) \
		return -ELIBACC;
/* Function @name of @handle into the function pointer at @fn (of @size bytes): 0, or
 * -ELIBACC. */
int dlib_sym(void *handle, const char *name, void *fn, size_t size);

/* Loads @l once (thread-safe; later calls return what the first found): 0, or -ELIBACC
 * with the reason in l->why. */
int dlib_load(struct dlib *l);

/* A file's table @t of the functions @FNS lists (X(t, name) for each), the function that
 * fills it, and struct dlib @t##_lib that loads @soname for it. */
#define DLIB_DEFINE(t, soname, FNS) \
	static struct { \
		FNS(DLIB_FN, _) \
	} t; \
	static int t##_resolve(void *handle) \
	{ \
		FNS(DLIB_RESOLVE, t) \
		return 0; \
	} \
	static struct dlib t##_lib = DLIB_INIT(soname, t##_resolve);

#endif
